"""Provenance of judgments: ``evaluate(..., source=column)`` scores each source's judgments
and their union, on every frontend."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor.errors import InputError

METRICS = ["P@10", "ndcg@10", "ap", "judged@10"]


@pytest.fixture(scope="module")
def mixed():
    """trec_eval's run and qrels, its judgments split between a "human" and an "llm" source,
    and 40 pairs judged by both (the llm's grade flipped on half of them)."""
    run, qrels = ta.load_example()
    rng = np.random.default_rng(3)
    qrels = qrels.assign(judge=np.where(rng.random(len(qrels)) < 0.5, "human", "llm"))
    again = qrels[qrels["judge"] == "human"].sample(40, random_state=1).assign(judge="llm")
    again["rel"] = np.where(np.arange(40) % 2 == 0, 1 - again["rel"], again["rel"])
    return run, pd.concat([qrels, again], ignore_index=True)


def test_each_source_is_scored_on_its_own_judgments(mixed):
    run, qrels = mixed
    res = run.ir.evaluate(qrels, METRICS, source="judge")
    assert res.index.names == ["judge", "qid"]
    assert res.index.get_level_values("judge").unique().tolist() == ["human", "llm", "all"]
    for judge in ("human", "llm"):
        own = qrels[qrels["judge"] == judge].drop(columns="judge")
        pd.testing.assert_frame_equal(res.loc[judge], run.ir.evaluate(own, METRICS))


def test_the_union_takes_a_pair_judged_twice_at_its_largest_grade(mixed):
    run, qrels = mixed
    union = qrels.groupby(["qid", "docid"], as_index=False, sort=False)["rel"].max()
    assert len(union) < len(qrels)  # pairs judged twice, some with two grades
    res = run.ir.evaluate(qrels, METRICS, source="judge")
    pd.testing.assert_frame_equal(res.loc["all"], run.ir.evaluate(union, METRICS))


def test_sources_agree_on_every_frontend(mixed):
    import dask.dataframe as dd

    run, qrels = mixed
    expected = run.ir.evaluate(qrels, METRICS, source="judge").reset_index()
    prun, pqrels = pl.from_pandas(run), pl.from_pandas(qrels)
    polars = prun.ir.evaluate(pqrels, METRICS, source="judge").to_pandas()
    lazy = prun.lazy().ir.evaluate(pqrels, METRICS, source="judge").collect().to_pandas()
    dask = (dd.from_pandas(run, npartitions=2).ir.evaluate(qrels, METRICS, source="judge")
            .compute().reset_index()[["judge", "qid", *METRICS]])
    for other in (polars, lazy, dask):
        pd.testing.assert_frame_equal(other.reset_index(drop=True), expected,
                                      check_dtype=False)


def test_sources_combine_with_by_and_judged_only(mixed):
    run, qrels = mixed
    runs = pd.concat([run.assign(system="a"), run.assign(system="b")], ignore_index=True)
    res = runs.ir.evaluate(qrels, ["P@10"], source="judge", by="system", judged_only=True)
    assert res.index.names == ["judge", "system", "qid"]
    llm = qrels[qrels["judge"] == "llm"].drop(columns="judge")
    assert res.loc[("llm", "b"), "P@10"].tolist() == run.ir.evaluate(
        llm, ["P@10"], judged_only=True)["P@10"].tolist()


@pytest.mark.parametrize(("change", "match"), [
    (lambda q: q, "no such column"),
    (lambda q: q.assign(judge=None), "missing for some pairs"),
    (lambda q: q.assign(judge="all"), "names a source 'all'"),
])
def test_bad_source_columns_are_refused(mixed, change, match):
    run, qrels = mixed
    frame = change(qrels.drop(columns="judge")) if match == "no such column" else change(qrels)
    with pytest.raises(InputError, match=match):
        run.ir.evaluate(frame, METRICS, source="judge")


def test_a_source_that_is_also_a_by_column_is_refused(mixed):
    run, qrels = mixed
    with pytest.raises(InputError, match="also a by= column"):
        run.assign(judge="x").ir.evaluate(qrels, METRICS, source="judge", by="judge")
