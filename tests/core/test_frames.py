"""Frontends: column aliases, key types, by=, queries=, empty rankings, bad input, frames
left unchanged, and identical numbers from pandas, Polars eager and Polars lazy."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import InputError

RUN = pd.DataFrame({
    "qid": ["1", "1", "1", "2", "2", "9"],
    "docid": ["a", "b", "c", "a", "d", "z"],
    "score": [3.0, 2.0, 2.0, 1.0, 0.5, 1.0],
})
QRELS = pd.DataFrame({
    "qid": ["1", "1", "2", "2", "3"],
    "docid": ["b", "x", "d", "a", "q"],
    "rel": [1, 2, 0, 0, 1],
})
METRICS = ["ap", "ndcg@2", "rr", "precision@2", "recall", "bpref", "rprec", "success@1",
           "rbp(p=0.5)", "f1", "dcg", "rbp_residual"]


def _quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*a, **kw)


def test_scored_queries_empty_rankings_and_undefined_values():
    with pytest.warns(UserWarning, match=r"1 run qid\(s\).*dropped") as rec:
        res = RUN.ir.evaluate(QRELS, METRICS, undefined="nan")
    assert len(rec) == 1
    assert list(res.index) == ["1", "2", "3"]          # 9 dropped; 3 is an empty ranking
    # qid 1: b (rel) tied with c at ranks 2-3 -> AP = mean(1/2, 1/3) / R(=2)
    assert res.loc["1", "ap"] == pytest.approx((1 / 2 + 1 / 3) / 2 / 2)
    assert math.isnan(res.loc["2", "ap"])              # R = 0
    assert math.isnan(res.loc["2", "ndcg@2"])
    assert res.loc["2", "rr"] == 0.0 and res.loc["2", "success@1"] == 0.0
    assert res.loc["3", "ap"] == 0.0                   # empty ranking, R = 1
    assert res.loc["3", "rr"] == 0.0 and res.loc["3", "precision@2"] == 0.0
    assert res.loc["3", "f1"] == 0.0                  # 2·0 / (0 + R)
    assert res.loc["3", "rbp_residual"] == 1.0         # nothing seen: all weight unknown
    assert res["ap"].mean() == pytest.approx((res.loc["1", "ap"] + 0.0) / 2)  # NaN left out
    empty_set = _quiet(RUN.ir.precision, QRELS, undefined="nan")
    assert math.isnan(empty_set["3"])                  # set precision of nothing: 0/0
    assert ta.aggregate(res, undefined="zero")["ap"] == pytest.approx(res.loc["1", "ap"] / 3)
    # by default an undefined value is 0, as the peers score it: the mean counts it
    default = _quiet(RUN.ir.evaluate, QRELS, METRICS)
    assert default.equals(res.fillna(0.0))
    assert default["ap"].mean() == pytest.approx(res.loc["1", "ap"] / 3)


def test_queries_adds_unjudged_topics():
    res = _quiet(RUN.ir.evaluate, QRELS, ["ap", "rr"], queries=["9", "10"], undefined="nan")
    assert list(res.index) == ["1", "2", "3", "9", "10"]  # digit-only qids: natural order
    assert math.isnan(res.loc["9", "ap"]) and res.loc["9", "rr"] == 0.0
    assert math.isnan(res.loc["10", "ap"])


def test_by_gives_every_system_every_scored_qid():
    a = RUN.assign(system="A")
    b = RUN[RUN.qid != "2"].assign(system="B", score=lambda d: -d.score)
    both = pd.concat([a, b], ignore_index=True)
    res = _quiet(both.ir.ap, QRELS, by="system", undefined="nan")
    assert res.index.names == ["system", "qid"]
    assert len(res) == 6
    assert res.loc[("B", "2")] != res.loc[("B", "2")]  # R = 0 -> NaN
    alone = _quiet(b.drop(columns="system").ir.ap, QRELS, undefined="nan")
    assert np.allclose(res.loc["B"].to_numpy(), alone.to_numpy(), equal_nan=True)
    means = ta.aggregate(res, by="system")
    assert list(means.index) == ["A", "B"]
    pl_res = _quiet(pl.from_pandas(both).ir.ap, pl.from_pandas(QRELS), by=["system"],
                    undefined="nan")
    assert pl_res.columns == ["system", "qid", "ap"]
    pl_means = ta.aggregate(pl_res, by="system")
    assert np.allclose(pl_means["ap"].to_numpy(), means.to_numpy())


def test_pandas_polars_eager_and_lazy_identical():
    want = _quiet(RUN.ir.evaluate, QRELS, METRICS, undefined="nan")
    eager = _quiet(pl.from_pandas(RUN).ir.evaluate, pl.from_pandas(QRELS), METRICS,
                   undefined="nan")
    lazy = pl.from_pandas(RUN).lazy().ir.evaluate(pl.from_pandas(QRELS).lazy(), METRICS,
                                                  undefined="nan")
    assert isinstance(lazy, pl.LazyFrame)
    lazy = _quiet(lazy.collect)
    assert eager.equals(lazy)
    assert eager["ap"].null_count() == 1               # undefined is null in Polars
    back = eager.to_pandas().set_index("qid")
    assert np.allclose(back.to_numpy(), want.to_numpy(), equal_nan=True)
    assert list(back.columns) == list(want.columns) == [ta.parse(m).label for m in METRICS]


def test_lazy_checks_columns_at_call_time():
    lf = pl.from_pandas(RUN).lazy().drop("score")
    with pytest.raises(InputError, match="score"):
        lf.ir.ap(QRELS)


def test_single_metric_output_shapes():
    s = _quiet(RUN.ir.ndcg, QRELS, k=2)
    assert isinstance(s, pd.Series) and s.name == "ndcg@2" and s.index.name == "qid"
    p = _quiet(pl.from_pandas(RUN).ir.ndcg, QRELS, k=2)
    assert p.columns == ["qid", "ndcg@2"] and p.schema["ndcg@2"] == pl.Float64
    assert _quiet(RUN.ir.precision, QRELS, 2).name == "precision@2"  # k positionally


def test_pyterrier_columns():
    """PyTerrier: docno is the external id (docid is its internal int), rank 0-based,
    qrels with docno/label."""
    run = pd.DataFrame({"qid": RUN.qid, "docid": range(len(RUN)), "docno": RUN.docid,
                        "score": RUN.score, "rank": [0, 1, 2, 0, 1, 0]})
    qrels = QRELS.rename(columns={"docid": "docno", "rel": "label"})
    got = _quiet(run.ir.evaluate, qrels, METRICS)
    want = _quiet(RUN.assign(rank=[0, 1, 2, 0, 1, 0]).ir.evaluate, QRELS, METRICS)
    assert np.allclose(got.to_numpy(), want.to_numpy(), equal_nan=True)


def test_ir_measures_columns():
    run = RUN.rename(columns={"qid": "query_id", "docid": "doc_id"})
    qrels = QRELS.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance"})
    got = _quiet(run.ir.evaluate, qrels, METRICS)
    want = _quiet(RUN.ir.evaluate, QRELS, METRICS)
    assert got.index.name == "query_id"
    assert np.allclose(got.to_numpy(), want.to_numpy(), equal_nan=True)


@pytest.mark.parametrize("run_int,qrels_int", [(True, False), (False, True), (True, True)])
def test_int_and_str_ids_join(run_int, qrels_int):
    run = RUN[RUN.qid != "9"].copy()
    qrels = QRELS.copy()
    if run_int:
        run["qid"] = run.qid.astype(int)
    if qrels_int:
        qrels["qid"] = qrels.qid.astype(int)
    got = run.ir.ap(qrels)
    want = RUN[RUN.qid != "9"].ir.ap(QRELS)
    assert np.allclose(got.to_numpy(), want.to_numpy(), equal_nan=True)
    docs = run.assign(docid=run.docid.map({"a": 1, "b": 2, "c": 3, "d": 4}))
    qd = qrels.assign(docid=qrels.docid.map({"b": "2", "x": "99", "d": "4", "a": "1", "q": "7"}))
    assert np.allclose(docs.ir.ap(qd).to_numpy(), want.to_numpy(), equal_nan=True)


def test_no_common_qid_is_an_error_not_zero_matches():
    run = RUN.assign(qid=RUN.qid.map(lambda q: f"topic-{q}"))
    with pytest.raises(ValueError, match="no qid of the run"):
        run.ir.ap(QRELS)


def test_frames_are_not_modified():
    run, qrels = RUN.copy(deep=True), QRELS.copy(deep=True)
    _quiet(run.ir.evaluate, qrels, METRICS, ties="trec_eval")
    pd.testing.assert_frame_equal(run, RUN)
    pd.testing.assert_frame_equal(qrels, QRELS)
    prun, pq = pl.from_pandas(RUN), pl.from_pandas(QRELS)
    before = prun.clone(), pq.clone()
    _quiet(prun.ir.evaluate, pq, METRICS)
    assert prun.equals(before[0]) and pq.equals(before[1])


# ----------------------------------------------------------------------- bad input
@pytest.mark.parametrize("drop,frame,pattern", [
    ("score", "run", "score"), ("qid", "run", "qid"), ("docid", "run", "docid"),
    ("rel", "qrels", "relevance"), ("docid", "qrels", "docid"),
])
def test_missing_columns(drop, frame, pattern):
    run = RUN.drop(columns=drop) if frame == "run" else RUN
    qrels = QRELS.drop(columns=drop) if frame == "qrels" else QRELS
    with pytest.raises(InputError, match=f"{frame} has no.*{pattern}|{frame}.*'{pattern}'"):
        run.ir.ap(qrels)


def test_qid_in_index_gets_a_hint():
    with pytest.raises(InputError, match="reset_index"):
        RUN.set_index("qid").ir.ap(QRELS)


def test_duplicate_document_in_a_ranking():
    run = pd.concat([RUN, RUN.iloc[[1]]], ignore_index=True)
    with pytest.raises(InputError, match=r"'b'.*twice.*qid='1'"):
        run.ir.ap(QRELS)
    # the same docid in two systems' rankings is fine
    two = pd.concat([RUN.assign(s="x"), RUN.assign(s="y")])
    _quiet(two.ir.ap, QRELS, by="s")


@pytest.mark.parametrize("bad", [np.nan, None])
def test_missing_scores(bad):
    run = RUN.astype({"score": object}).copy()
    run.loc[4, "score"] = bad
    run["score"] = run.score.astype(float)
    with pytest.raises(InputError, match=r"score.*qid='2'.*docid='d'"):
        run.ir.ap(QRELS)
    with pytest.raises(InputError, match="score"):
        pl.from_pandas(run).ir.ap(QRELS)


def test_non_numeric_grades_and_scores():
    with pytest.raises(InputError, match="'rel' must hold numeric grades"):
        RUN.ir.ap(QRELS.assign(rel=["yes", "no", "no", "no", "yes"]))
    with pytest.raises(InputError, match="'score' must be numeric"):
        RUN.assign(score="high").ir.ap(QRELS)
    with pytest.raises(InputError, match="grade is missing"):
        RUN.ir.ap(QRELS.assign(rel=[1, None, 0, 0, 1]))


def test_conflicting_qrels_rows():
    dup_same = pd.concat([QRELS, QRELS.iloc[[0]]])
    _quiet(RUN.ir.ap, dup_same)  # an identical repeated judgment is harmless
    conflict = pd.concat([QRELS, QRELS.iloc[[0]].assign(rel=0)])
    with pytest.raises(InputError, match=r"'b' of qid '1' conflicting grades \[0.0, 1.0\]"):
        RUN.ir.ap(conflict)


@pytest.mark.parametrize("call,pattern", [
    (lambda r: r.ir.rbp(QRELS, p=1.0), "p must be"),
    (lambda r: r.ir.rbp(QRELS, p=0), "p must be"),
    (lambda r: r.ir.rbp(QRELS, p=-0.2), "p must be"),
    (lambda r: r.ir.ndcg(QRELS, k=0), "k must be ≥ 1"),
    (lambda r: r.ir.precision(QRELS, k=-3), "k must be ≥ 1"),
    (lambda r: r.ir.precision(QRELS, k=2.5), "whole number"),
    (lambda r: r.ir.evaluate(QRELS, ["ndcg@0"]), "k must be ≥ 1"),
    (lambda r: r.ir.evaluate(QRELS, ["rbp(p=2)"]), "p must be"),
    (lambda r: r.ir.evaluate(QRELS, ["nope@3"]), "unknown metric 'nope@3'"),
    (lambda r: r.ir.evaluate(QRELS, ["ap(q=1)"]), "takes no parameter 'q'"),
    (lambda r: r.ir.ap(QRELS, ties="random"), "ties="),
    (lambda r: r.ir.ap(QRELS, by="system"), "by= names column 'system'"),
    (lambda r: r.ir.ndcg(QRELS, gains="square"), "gains must be"),
    (lambda r: r.ir.ap(QRELS, relevance_level="high"), "relevance_level"),
])
def test_bad_parameters(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call(RUN)


def test_float_qids_are_rejected_with_the_column_name():
    with pytest.raises(InputError, match="run column 'qid' must hold integers or strings"):
        RUN.assign(qid=[1.0, 1.0, 1.0, 2.0, 2.0, 9.0]).ir.ap(QRELS)
