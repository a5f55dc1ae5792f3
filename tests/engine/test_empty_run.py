"""An empty run (a filter that removed every row) is scored, as trec_eval -c scores a query
the run does not answer, as an empty ranking on every qrels query: values of 0 for the
measures below. It is said once, with an EmptyRunWarning at the caller's line, in every
frontend; empty qrels still give an empty result (EmptyResultWarning) and no EmptyRunWarning."""
from __future__ import annotations

import warnings

import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fn()
        if isinstance(res, pl.LazyFrame):
            res = res.collect()
        elif hasattr(res, "compute"):
            res = res.compute()
    return res, [w for w in caught if issubclass(w.category, ta.TruncAccessorWarning)]


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy", "dask"])
@pytest.mark.parametrize("call", ["evaluate", "metric", "curve"])
def test_an_empty_run_warns_that_every_query_is_an_empty_ranking(library, call):
    run, qrels = ta.load_example()
    emptied = run[run["score"] > 1e9]  # a filter that removed everything
    assert len(emptied) == 0
    if library == "dask":
        dd = pytest.importorskip("dask.dataframe")
        frame = dd.from_pandas(run, npartitions=3)
        frame = frame[frame["score"] > 1e9]
    else:
        frame = emptied if library == "pandas" else pl.from_pandas(emptied)
        frame = frame.lazy() if library == "lazy" else frame
    fn = {"evaluate": lambda: frame.ir.evaluate(qrels, ["ap", "P@10"], ties="trec_eval"),
          "metric": lambda: frame.ir.ndcg(qrels, k=10),
          "curve": lambda: frame.ir.cutoff_curve(qrels, "ap")}[call]
    res, ours = _caught(fn)
    assert [w.category for w in ours] == [ta.EmptyRunWarning], ours
    message = str(ours[0].message)
    assert "the run has no rows" in message and "empty ranking" in message
    if library != "dask":  # Dask computes in its worker threads
        assert ours[0].filename == __file__
    if call != "curve":  # every qrels query is scored, each 0 (trec_eval -c's empty ranking)
        frame_ = res.to_pandas().set_index("qid") if isinstance(res, pl.DataFrame) else res
        assert sorted(frame_.index.astype(str)) == ["301", "302", "303"]
        assert (pd.DataFrame(frame_).to_numpy() == 0).all()


def test_the_cases_that_are_not_an_emptied_run_say_nothing_of_it():
    run, qrels = ta.load_example()
    # empty qrels: the result is empty, said by EmptyResultWarning only
    _, ours = _caught(lambda: run.head(0).ir.evaluate(qrels.head(0), ["ap"]))
    assert ta.EmptyRunWarning not in [w.category for w in ours]
    assert ta.EmptyResultWarning in [w.category for w in ours]
    # a run with rows: no EmptyRunWarning, even for queries it does not answer
    _, ours = _caught(lambda: run[run["qid"] == "301"].ir.ap(qrels))
    assert not ours
    # one ranking given as an empty list is asked for on purpose
    from trunc_accessor.frontends.single import alpha_ndcg, ap

    _, ours = _caught(lambda: (ap([], R=2), alpha_ndcg([], judged=[{3}])))
    assert not ours
