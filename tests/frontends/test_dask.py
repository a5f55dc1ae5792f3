"""The Dask frontend (trunc_accessor.frontends.dask) equals the pandas accessor.

Every comparison runs on one distributed LocalCluster (two worker processes) and compares
``.compute()`` with the pandas accessor on the computed run (``drun.compute()``: the same
rows in the same order), values exactly (``check_exact``) unless said otherwise.
"""
from __future__ import annotations

import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

import trunc_accessor as ta  # noqa: E402 - after the importorskip calls above
from tests.strategies import frames_of, random_queries  # noqa: E402
from trunc_accessor.frontends import dask as dask_accessor  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Sending large graph:UserWarning")

METRICS = ["ndcg@10", "ap", "rr", "P@10", "err@20", "rbp(p=0.8)", "R@100", "bpref", "ndcg",
           "rprec", "num_rel_ret", "iprec_at_recall(recall=0.1)", "ap_prime"]
TIES = ["average", "trec_eval", "trec_eval9", "first"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _scattered(run, qrels, seed, partitions):
    """(Dask run of the rows shuffled into partitions that hold no whole query, persisted
    on the cluster; the pandas frame of the same rows in the same order; qrels)."""
    drun = dd.from_pandas(run.sample(frac=1, random_state=seed), npartitions=partitions,
                          sort=False).persist()
    return drun, drun.compute(), qrels


@pytest.fixture(scope="module")
def example(client):
    """The trec_eval test run in 4 partitions."""
    return _scattered(*ta.load_example(), seed=7, partitions=4)


@pytest.fixture(scope="module")
def cranfield_dask(client, cranfield):
    return _scattered(*cranfield, seed=3, partitions=5)


@pytest.fixture(scope="module")
def cranfield_small(client, cranfield):
    """40 of Cranfield's queries, seven systems, shuffled into 4 partitions."""
    runs, qrels = cranfield
    qids = sorted(qrels["qid"].unique())[::5][:40]
    return _scattered(runs[runs["qid"].isin(qids)], qrels[qrels["qid"].isin(qids)], seed=5,
                      partitions=4)


# With pandas 2, Dask's default "dataframe.convert-string" makes the string key columns of
# curves and CRP frames string[pyarrow] where pandas keeps object: values are compared
# exactly, the string dtype only on pandas >= 3 (README, Dask section).
PANDAS_2 = int(pd.__version__.split(".")[0]) < 3


def same(got, want, **kw):
    kw = {"check_exact": True, **kw}
    if PANDAS_2 and isinstance(want, pd.DataFrame):  # index levels become columns too
        got, want = got.reset_index(), want.reset_index()
        strings = [c for c in want.columns if want[c].dtype == object]
        got = got.astype({c: object for c in strings if c in got.columns})
    if isinstance(want, pd.Series):
        pd.testing.assert_series_equal(got, want, **kw)
    else:
        pd.testing.assert_frame_equal(got, want, **kw)


def both(drun, run, call):
    """(Dask answer computed, pandas answer) of ``call(frame)``."""
    lazy = call(drun)
    assert isinstance(lazy, (dd.DataFrame, dd.Series))
    return lazy.compute(), call(run)


# --------------------------------------------------------------------------- evaluate
def test_example_every_ties_mode_and_judged_only(example):
    drun, run, qrels = example
    lazy = {(t, j): drun.ir.evaluate(qrels, METRICS, ties=t, judged_only=j)
            for t in TIES for j in (False, True) if not j or t in ("average", "trec_eval")}
    lazy["single"] = drun.ir.ndcg(qrels, k=10, ties="trec_eval")
    lazy["levels"] = drun.ir.evaluate(qrels, ["P(rel=2)@5", "ndcg_cut_10"], names="canonical")
    lazy["twist"] = drun.ir.evaluate(qrels, ["infap", "twist"], ties="first")
    done = dict(zip(lazy, dask.compute(*lazy.values())))
    for (t, j), got in ((k, v) for k, v in done.items() if isinstance(k, tuple)):
        same(got, run.ir.evaluate(qrels, METRICS, ties=t, judged_only=j))
    same(done["single"], run.ir.ndcg(qrels, k=10, ties="trec_eval"))
    same(done["levels"], run.ir.evaluate(qrels, ["P(rel=2)@5", "ndcg_cut_10"], names="canonical"))
    same(done["twist"], run.ir.evaluate(qrels, ["infap", "twist"], ties="first"))
    # and the trec_eval test run's own numbers (the shuffle changed nothing)
    assert round(float(done[("trec_eval", False)]["ndcg@10"].mean()), 4) == 0.3016


def test_cranfield_seven_systems_by(cranfield_dask):
    drun, run, qrels = cranfield_dask
    metrics = ["nDCG@10", "map", "ERR@20", "P@10", "recip_rank"]
    a, b = dask.compute(drun.ir.evaluate(qrels, metrics, by="system"),
                        drun.ir.ap(qrels, by="system", ties="first"))
    same(a, run.ir.evaluate(qrels, metrics, by="system"))
    same(b, run.ir.ap(qrels, by="system", ties="first"))
    assert a.index.get_level_values("system").nunique() == 7


def test_known_divisions_skip_the_shuffle(client, cranfield):
    runs, qrels = cranfield
    indexed = dd.from_pandas(runs.set_index("qid"), npartitions=4)  # qid index, divisions
    assert indexed.known_divisions
    flat = indexed.compute().reset_index()
    lazy = indexed.ir.evaluate(qrels, ["ndcg@10", "ap"], by="system", ties="first")
    assert "shuffle" not in str(lazy.__dask_graph__().keys())
    unknown = indexed.clear_divisions()  # divisions forgotten: the qid ranges still say so
    kept = unknown.ir.evaluate(qrels, ["ndcg@10", "ap"], by="system", ties="first")
    assert "shuffle" not in str(kept.__dask_graph__().keys())
    mixed = dd.from_pandas(runs.sample(frac=1, random_state=1), npartitions=4, sort=False)
    shuffled = mixed.ir.evaluate(qrels, ["ndcg@10", "ap"], by="system", ties="first")
    assert "split_run" in str(shuffled.__dask_graph__().keys())  # split by qid hash
    got, got_kept, got_shuffled = dask.compute(lazy, kept, shuffled)
    want = flat.ir.evaluate(qrels, ["ndcg@10", "ap"], by="system", ties="first")
    same(got, want)
    same(got_kept, want)
    same(got_shuffled, mixed.compute().ir.evaluate(qrels, ["ndcg@10", "ap"], by="system",
                                                   ties="first"))


def test_null_by_key_is_a_system(client, cranfield):
    runs, qrels = cranfield
    runs = runs.astype({"system": object})
    runs.loc[runs["system"] == "bm25", "system"] = None
    drun = dd.from_pandas(runs, npartitions=4, sort=False)
    got, want = both(drun, drun.compute(),
                     lambda r: r.ir.evaluate(qrels, ["ap", "rr"], by="system"))
    same(got, want)
    assert want.index.get_level_values("system").isna().sum() == qrels["qid"].nunique()


def test_queries_and_dropped_qids(example):
    drun, run, qrels = example
    queries = ["301", "999", "303", "888"]
    got, want = both(drun, run, lambda r: r.ir.evaluate(qrels, ["ap", "rbp"], queries=queries))
    same(got, want)
    assert list(want.index) == ["301", "302", "303", "888", "999"]
    fewer = qrels[qrels["qid"] != "302"]
    with pytest.warns(ta.DroppedQueriesWarning, match=r"1 run qid\(s\).*500 rows"):
        got = drun.ir.ap(fewer).compute()
    with pytest.warns(ta.DroppedQueriesWarning):
        want = run.ir.ap(fewer)
    same(got, want)


def test_graded_err_uses_the_largest_grade_of_the_whole_qrels(client):
    """Two queries in two partitions (known divisions on qid); only q1 is judged with
    grade 4, so q2's partition alone would take 1 as the largest grade."""
    run = pd.DataFrame({"qid": ["q1"] * 3 + ["q2"] * 3,
                        "docid": ["a", "b", "c", "d", "e", "f"],
                        "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["a", "c", "e", "f"],
                          "rel": [4, 1, 1, 1]})
    drun = dd.from_pandas(run.set_index("qid"), npartitions=2)
    assert drun.npartitions == 2 and drun.divisions == ("q1", "q2", "q2")
    metrics = ["err@20", "err", "rbp(p=0.8)", "ndcg@3"]
    got = drun.ir.evaluate(qrels, metrics).compute()
    want = run.ir.evaluate(qrels, metrics)
    same(got, want)
    alone = run[run.qid == "q2"].ir.err(qrels[qrels.qid == "q2"], k=20)  # largest grade 1
    assert alone["q2"] != want.loc["q2", "err@20"]


def test_qrels_partitionwise_and_in_every_frame_library(cranfield_small, monkeypatch):
    drun, run, qrels = cranfield_small
    metrics = ["ndcg@10", "ap", "err@20"]
    want = run.ir.evaluate(qrels, metrics, by="system")
    wanted_q = run.ir.evaluate(qrels, metrics, by="system", queries=["1", "2", "9999"])
    monkeypatch.setattr(dask_accessor, "BROADCAST_QRELS_ROWS", 0)  # pandas/Polars: shuffled
    several = dd.from_pandas(qrels, npartitions=3)
    lazy = [drun.ir.evaluate(q, metrics, by="system")
            for q in (qrels, pl.from_pandas(qrels), several, dd.from_pandas(qrels, npartitions=1))]
    lazy.append(drun.ir.evaluate(several, metrics, by="system", queries=["1", "2", "9999"]))
    *got, got_q = dask.compute(*lazy)
    for g in got:
        same(g, want)
    same(got_q, wanted_q)


# --------------------------------------------------------------------------- truncation, CRP
def test_cutoff_curve_and_optimal_cutoff(cranfield_small):
    drun, run, qrels = cranfield_small
    calls = [lambda r: r.ir.cutoff_curve(qrels, "rbp_prime", p=0.8, by="system", max_depth=30),
             lambda r: r.ir.cutoff_curve(qrels, "ap", by="system", ties="first", max_depth=20),
             lambda r: r.ir.optimal_cutoff(qrels, "rbp_prime", p=0.8, by="system"),
             lambda r: r.ir.optimal_cutoff(qrels, "ndcg@10", by="system", ties="trec_eval")]
    got = dask.compute(*(c(drun) for c in calls))
    for g, c in zip(got, calls):
        same(g, c(run))


def test_truncate_and_truncate_at(cranfield_small):
    drun, run, qrels = cranfield_small
    best = run.ir.optimal_cutoff(qrels, "rbp_prime", p=0.8, by="system")
    dbest = drun.ir.optimal_cutoff(qrels, "rbp_prime", p=0.8, by="system")
    nil = run.copy()
    nil.loc[nil.sample(300, random_state=2).index, "docid"] = "NIL"
    nil = nil.drop_duplicates(["system", "qid", "docid"])
    dnil = dd.from_pandas(nil, npartitions=3, sort=False)
    lazy = [drun.ir.truncate(10, by="system"), drun.ir.truncate(best["depth"], by="system"),
            drun.ir.truncate(dbest["depth"], by="system"), dnil.ir.truncate_at("NIL", by="system")]
    assert all(isinstance(x, dd.DataFrame) and x.npartitions == y
               for x, y in zip(lazy, [4, 4, 4, 3]))
    got = dask.compute(*lazy)
    want = [run.ir.truncate(10, by="system"), run.ir.truncate(best["depth"], by="system"),
            run.ir.truncate(best["depth"], by="system"), nil.ir.truncate_at("NIL", by="system")]
    for g, w in zip(got, want):
        same(g, w)


def test_crp_and_archetypes(example):
    drun, run, qrels = example
    calls = [lambda r: r.ir.crp(qrels, ties="first"),
             lambda r: r.ir.crp(qrels, ties="trec_eval", depth=600),
             lambda r: r.ir.crp_archetype(qrels, ties="trec_eval"),
             lambda r: r.ir.crp_archetype(qrels, ties="first", depth=100),
             lambda r: r.ir.crp(qrels)]
    got = dask.compute(*(c(drun) for c in calls))
    for g, c in zip(got, calls):
        same(g, c(run))


# --------------------------------------------------------------------------- errors, edges
@pytest.mark.parametrize("bad, when", [
    (lambda r: r.drop(columns="score"), "call"),
    (lambda r: pd.concat([r, r.head(1)], ignore_index=True), "compute"),
    (lambda r: r.assign(qid=r["qid"].where(r.index != 5, None)), "compute"),
])
def test_errors_are_the_pandas_accessors(client, bad, when):
    run, qrels = ta.load_example()
    run = bad(run)
    with pytest.raises(ValueError) as pandas_error:
        run.ir.ap(qrels)
    drun = dd.from_pandas(run, npartitions=3, sort=False)
    with pytest.raises(type(pandas_error.value),
                       match="^" + re.escape(str(pandas_error.value)[:40])):
        lazy = drun.ir.ap(qrels)
        assert when == "compute", "should have raised at the call"
        lazy.compute()


@pytest.mark.parametrize("call", [
    lambda r, q: r.ir.ap(q, ties="nope"), lambda r, q: r.ir.ap(q, by="nope"),
    lambda r, q: r.ir.evaluate(q, ["nope@3"]), lambda r, q: r.ir.truncate(-1),
    lambda r, q: r.ir.ap(q, queries="301"), lambda r, q: r.ir.ap(q.drop(columns="rel")),
    lambda r, q: r.ir.crp(q, depth=0), lambda r, q: r.ir.cutoff_curve(q, "ap", max_depth=-2),
])
def test_bad_arguments_raise_at_the_call(example, call):
    drun, run, qrels = example
    with pytest.raises(ValueError) as pandas_error:
        call(run, qrels)
    with pytest.raises(type(pandas_error.value),
                       match="^" + re.escape(str(pandas_error.value)[:30])):
        call(drun, qrels)  # no compute: raised when the graph is built


def test_nothing_to_score_and_empty_runs(example):
    drun, run, qrels = example
    with pytest.warns(ta.EmptyResultWarning):
        got = drun.ir.ap(qrels.head(0)).compute()
    same(got, run.ir.ap(qrels.head(0)))
    empty = dd.from_pandas(run.head(0), npartitions=1)
    got = empty.ir.evaluate(qrels, ["ap", "rr"]).compute()
    same(got, run.head(0).ir.evaluate(qrels, ["ap", "rr"]))


def test_ids_of_other_types_and_blind_docids(example):
    drun, _, qrels = example
    as_int = drun.assign(qid=drun["qid"].astype("int64"))
    with pytest.warns(ta.IdentifierWarning, match="compared as strings"):
        got = as_int.ir.ap(qrels).compute()
    same(got, as_int.compute().ir.ap(qrels))
    blind = qrels.assign(docid=" " + qrels["docid"])
    with pytest.warns(ta.IdentifierWarning, match="not one of them is in the qrels"):
        drun.ir.ap(blind).compute()


@pytest.mark.parametrize("layout", ["category", "object", "string[python]"])
def test_category_and_python_string_ids_equal_pandas(cranfield_small, monkeypatch, layout):
    """Partitions whose ids are ``category`` (read by their codes) or Python strings give
    the pandas accessor's values, with the qrels broadcast and with them routed."""
    _, run, qrels = cranfield_small
    ids = {"qid": layout, "docid": layout}
    run, qrels = run.astype(ids), qrels.astype(ids)
    want = run.ir.evaluate(qrels, ["ndcg@10", "ap"], by="system")
    drun = dd.from_pandas(run, npartitions=3, sort=False)
    same(drun.ir.evaluate(qrels, ["ndcg@10", "ap"], by="system").compute(), want)
    monkeypatch.setattr(dask_accessor, "BROADCAST_QRELS_ROWS", 0)
    routed = drun.ir.evaluate(dd.from_pandas(qrels, npartitions=2), ["ndcg@10", "ap"],
                              by="system")
    same(routed.compute(), want)


def test_unavailable_methods_say_so(example):
    drun, _, _ = example
    for method in (drun.ir.rbo, drun.ir.overlap):
        with pytest.raises(NotImplementedError, match="compute both runs first"):
            method(drun, 10)


# --------------------------------------------------------------------------- random runs
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(queries=random_queries(max_queries=4, max_len=6), ties=st.sampled_from(TIES),
       parts=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_random_runs_equal_pandas(client, queries, ties, parts, seed):
    run, qrels = frames_of(queries, np.random.default_rng(seed))
    drun = dd.from_pandas(run, npartitions=parts, sort=False)
    metrics = ["ap", "ndcg@3", "err@5", "rr", "P@2", "bpref"]
    outcome = []
    for call in (lambda: drun.ir.evaluate(qrels, metrics, ties=ties).compute(),
                 lambda: drun.compute().ir.evaluate(qrels, metrics, ties=ties)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                outcome.append(call())
            except ValueError as e:  # e.g. no qid of the run is judged
                outcome.append(type(e))
    if isinstance(outcome[1], type):
        assert outcome[0] is outcome[1]
    else:
        same(*outcome)


# --------------------------------------------------------------------------- registration
@pytest.mark.parametrize("first", ["trunc_accessor.frontends._dask_layout",
                                   "trunc_accessor.frontends._dask_parts",
                                   "trunc_accessor.frontends.dask"])
def test_registers_when_dask_is_first_imported_by_a_dask_module_of_the_package(first):
    """Dask first imported from inside one of the package's Dask modules: the import hook
    registers .ir while that module is half-run (it used to fail there, with a warning, on a
    name the half-run module had not yet defined)."""
    code = ("import warnings; warnings.simplefilter('error'); import trunc_accessor; "
            f"import {first}; import dask.dataframe as dd; "
            "print(type(dd.from_dict({'a': [1]}, 1).ir).__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.stdout.strip() == "DaskIR", done.stderr[-2000:]


def test_import_does_not_load_dask_and_registers_when_it_is_imported():
    code = ("import sys, trunc_accessor; assert 'dask' not in sys.modules; "
            "import dask.dataframe as dd; assert type(dd.from_dict({'a': [1]}, 1).ir).__name__ "
            "== 'DaskIR'; import dask.dataframe as dd2; print('ok')")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "ok"
    code = ("import sys; sys.modules['dask'] = None; import trunc_accessor; "  # Dask unusable
            "print(not any(getattr(f, 'target', '') == 'dask.dataframe' for f in sys.meta_path))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "True"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Dask loaded already: registered at once, not twice
        ta._register_when_imported("dask.dataframe", ta._register_dask_now)
    assert isinstance(dd.from_dict({"a": [1]}, 1).ir, dask_accessor.DaskIR)
