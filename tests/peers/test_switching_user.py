"""The numbers a user switching from trec_eval, pytrec_eval, ir_measures or ranx expects:
judged-only scoring as trec_eval -J, undefined values scored 0 as every peer does (so that
``.mean()`` is the peers' mean), one rule for a grade scale's top, and the small things of
frames (a hint for several systems in one frame, natural qid order, empty frames)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, need, pytrec_dicts
from trunc_accessor import single
from trunc_accessor.metrics.registry import REGISTRY

TE = DATA / "trec_eval"


# --------------------------------------------------------------------------- trec_eval -J
@pytest.mark.parametrize("level", [1, 2])
def test_judged_only_drops_negative_grades_as_pytrec_eval(level):
    """qrels.rel_level holds grade −1 ("in the pool, not judged"): trec_eval -J (and
    pytrec_eval's judged_docs_only_flag) removes those documents as well as the unjudged."""
    import pytrec_eval

    run_d, qrels_d = pytrec_dicts(TE / "results.test", TE / "qrels.rel_level")
    measures = {"num_ret", "num_rel_ret", "map", "P_10", "ndcg_cut_10", "recip_rank", "bpref",
                "Rprec", "recall_100", "set_P"}
    want = pytrec_eval.RelevanceEvaluator(qrels_d, measures, relevance_level=level,
                                          judged_docs_only_flag=True).evaluate(run_d)
    run = ta.read_run(need(TE / "results.test"))
    qrels = ta.read_qrels(need(TE / "qrels.rel_level"))
    res = run.ir.evaluate(qrels, sorted(measures), ties="trec_eval9", judged_only=True,
                          relevance_level=level)
    for qid, row in res.iterrows():
        for m in measures:
            assert row[m] == pytest.approx(want[qid][m], abs=1e-9), (qid, m)


def test_judged_only_topic_303_as_trec_eval_10():
    """`trec_eval -q -J -m num_ret -m map qrels.rel_level results.test` (trec_eval 10.0)
    prints num_ret 146 and map 0.1361 for topic 303 (215 documents, 0.0823 when the
    documents graded −1 were kept)."""
    run = ta.read_run(need(TE / "results.test"))
    qrels = ta.read_qrels(need(TE / "qrels.rel_level"))
    res = run.ir.evaluate(qrels, ["num_ret", "map"], ties="trec_eval", judged_only=True)
    assert res.loc["303", "num_ret"] == 146
    assert round(res.loc["303", "map"], 4) == 0.1361


# --------------------------------------------------------------------------- undefined = 0
IRM = ["AP", "AP(rel=2)@100", "nDCG@10", "nDCG", "P@10", "P(rel=2)@5", "R@100", "R(rel=3)@50",
       "RR", "Rprec", "Bpref", "Judged@10", "Success@10", "SetP", "SetR", "infAP"]


@pytest.fixture(scope="module")
def bm25_and_tfidf(cranfield):
    runs, qrels = cranfield
    return runs[runs["system"].isin(["bm25", "tfidf"])], qrels


def test_default_mean_equals_ir_measures(bm25_and_tfidf):
    """ir_measures scores a query with no relevant document (at the measure's level) 0 and
    counts it; so does the default ``.mean()`` here (Cranfield: 225 queries, AP(rel=2)@100
    has 0.2331, not 0.2440 over the queries that have a grade-2 document)."""
    irm = pytest.importorskip("ir_measures")
    runs, qrels = bm25_and_tfidf
    irq = qrels.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance"})
    for system, run in runs.groupby("system"):
        irr = run.rename(columns={"qid": "query_id", "docid": "doc_id"})[
            ["query_id", "doc_id", "score"]]
        want = irm.calc_aggregate([irm.parse_measure(m) for m in IRM], irq, irr)
        got = run.ir.evaluate(qrels, IRM, ties="trec_eval9").mean()
        for m in IRM:
            assert got[m] == pytest.approx(want[irm.parse_measure(m)], abs=1e-12), (system, m)
    run = runs[runs["system"] == "bm25"]
    skipped = run.ir.evaluate(qrels, ["AP(rel=2)@100"], ties="trec_eval9",
                              undefined="nan").mean().iloc[0]
    assert round(skipped, 4) == 0.2440  # the mean over the queries where AP is defined


def _nested(frame, kind) -> dict:
    """{qid: {docid: value}} of a (qid, docid, value) frame, as ranx's Qrels and Run take."""
    out: dict = {}
    for q, d, v in frame.itertuples(index=False):
        out.setdefault(str(q), {})[str(d)] = kind(v)
    return out


def test_default_mean_equals_ranx(bm25_and_tfidf):
    """ranx likewise: recall@100-l2 of a top-100 run (order-free at its length) has mean
    0.6751 on bm25, not 0.7065."""
    ranx = pytest.importorskip("ranx")
    runs, qrels = bm25_and_tfidf
    qd = _nested(qrels[["qid", "docid", "rel"]], int)
    for system, run in runs.groupby("system"):
        rd = _nested(run[["qid", "docid", "score"]], float)
        metrics = ["recall@100-l2", "recall@100", "hits@100", "precision@100-l3"]
        want = ranx.evaluate(ranx.Qrels(qd), ranx.Run(rd), metrics, make_comparable=True)
        got = run.ir.evaluate(qrels, metrics).mean()  # order-free at the runs' length 100
        for m in metrics:
            assert got[m] == pytest.approx(want[m], abs=1e-12), (system, m)
        if system == "bm25":
            assert round(got["recall@100-l2"], 4) == 0.6751


RANX_BASES = ["ndcg@10", "ndcg", "dcg@10", "ndcg_burges@10", "dcg_burges@10", "map@100", "map",
              "mrr", "mrr@10", "precision@10", "recall@100", "f1@10", "hits@10", "hit_rate@10",
              "r-precision", "bpref"]


def test_every_ranx_name_and_level_equals_ranx(bm25_and_tfidf):
    """Every ranx metric name, with and without its -lN relevance level, equals ranx.evaluate
    on the Cranfield runs (ties as pytrec_eval: ranx breaks them the same way here). -lN
    gives grades below N no gain in nDCG/DCG (ranx's rule; trec_eval's ndcg ignores -l).
    ranx's bpref-lN is left out: it differs from trec_eval's bpref at -l N (which the
    library follows and which pytrec_eval checks in test_judged_only_* and elsewhere)."""
    import warnings

    ranx = pytest.importorskip("ranx")
    runs, qrels = bm25_and_tfidf
    metrics = [b + lv for b in RANX_BASES for lv in ("", "-l2", "-l3", "-l4")
               if not (b == "bpref" and lv)]
    qd = _nested(qrels[["qid", "docid", "rel"]], int)
    for system, run in runs.groupby("system"):
        rd = _nested(run[["qid", "docid", "score"]], float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba's casting notes
            want = ranx.evaluate(ranx.Qrels(qd), ranx.Run(rd), metrics, make_comparable=True)
        got = run.ir.evaluate(qrels, metrics, ties="trec_eval9").mean()
        for m in metrics:
            assert got[m] == pytest.approx(want[m], abs=1e-9), (system, m)
    ndcg = runs[runs["system"] == "bm25"].ir.evaluate(qrels, ["ndcg@10-l3", "ndcg@10"]).mean()
    assert round(ndcg["ndcg@10-l3"], 4) == 0.2341 and round(ndcg["ndcg@10"], 4) == 0.3103


def test_ir_measures_objects_mean_what_they_say(bm25_and_tfidf):
    """ir_measures writes NumRelRet as NumRet(rel=1) and SetRelP as SetP(relative=True)."""
    irm = pytest.importorskip("ir_measures")
    runs, qrels = bm25_and_tfidf
    run = runs[runs["system"] == "bm25"]
    ms = [irm.NumRelRet, irm.NumRet, irm.NumRet(rel=2), irm.NumRel, irm.MAP, irm.BPref,
          irm.SetRelP, irm.NDCG @ 10, irm.RPrec, irm.MRR, irm.Precision @ 5, irm.Recall @ 100]
    irr = run.rename(columns={"qid": "query_id", "docid": "doc_id"})[
        ["query_id", "doc_id", "score"]]
    irq = qrels.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance"})
    want = irm.calc_aggregate(ms, irq, irr)
    got = ta.aggregate(run.ir.evaluate(qrels, ms, ties="trec_eval9"))
    for m in ms:
        assert got[str(m)] == pytest.approx(want[m], abs=1e-9), str(m)
    assert round(run.ir.evaluate(qrels, [irm.NumRelRet]).mean().iloc[0], 2) == 4.72


def test_undefined_rule_in_every_channel():
    run, qrels = ta.load_example()
    # topic 303 at relevance level 5: no document qualifies, R = 0
    zero = run.ir.evaluate(qrels, ["ap", "set_recall", "recall@10", "rbp'"], relevance_level=5)
    nan = run.ir.evaluate(qrels, ["ap", "set_recall", "recall@10", "rbp'"], relevance_level=5,
                          undefined="nan")
    assert (zero[["ap", "set_recall", "recall@10"]] == 0).all().all()
    assert nan[["ap", "set_recall", "recall@10"]].isna().all().all()
    # the terminal metric is defined at R = 0: the same either way
    assert (zero["rbp'"] == nan["rbp'"]).all()
    assert run.ir.ap(qrels, relevance_level=5).eq(0).all()
    assert run.ir.ap(qrels, relevance_level=5, undefined="nan").isna().all()
    prun = pl.from_pandas(run)
    assert prun.ir.ap(qrels, relevance_level=5)["ap"].to_list() == [0.0] * 3
    assert prun.ir.ap(qrels, relevance_level=5, undefined="nan")["ap"].null_count() == 3
    lazy = prun.lazy().ir.ap(qrels, relevance_level=5, undefined="nan").collect()
    assert lazy["ap"].null_count() == 3
    assert single.ap([0, 0]) == 0.0 and math.isnan(single.ap([0, 0], undefined="nan"))
    curve = run.ir.cutoff_curve(qrels, "ap", relevance_level=5, max_depth=3)
    assert (curve["value"] == 0).all()
    best = run.ir.optimal_cutoff(qrels, "ap", relevance_level=5, undefined="nan")
    assert best["depth"].isna().all()
    with pytest.raises(ta.ParameterError, match="undefined= must be 'zero'"):
        run.ir.ap(qrels, undefined="skip")


# --------------------------------------------------------------------------- grade scale
GRADED = [name for name, m in REGISTRY.items() if any(p.name == "max_grade" for p in m.params)]


@pytest.mark.parametrize("name", GRADED)
def test_max_grade_below_the_grades_is_refused_by_every_metric(name):
    """max_grade declares the top of the grade scale: below the qrels' largest grade (4
    here) it would give gains above 1 (RBP 1.464, AP' 2.95): refused, naming the grade."""
    run, _ = ta.load_example()
    qrels = ta.read_qrels(need(TE / "qrels.rel_level"))
    extra = {"graded": True} if any(p.name == "graded" for p in REGISTRY[name].params) else {}
    if REGISTRY[name].ties.startswith("Refused"):  # no mean over the example's mixed ties
        extra["ties"] = "first"
    with pytest.raises(ta.ParameterError, match="largest grade in the qrels, 4"):
        getattr(run.ir, name)(qrels, max_grade=2, **extra)
    with pytest.raises(ta.ParameterError, match="max_grade=2"):
        getattr(single, name)([4, 0, 2], max_grade=2, **extra)
    assert (getattr(run.ir, name)(qrels, max_grade=4, **extra)
            == getattr(run.ir, name)(qrels, **extra)).all()


def test_probabilities_are_normal_floats():
    run, qrels = ta.load_example()
    with pytest.raises(ta.ParameterError, match="p must be a number in the open interval"):
        run.ir.rbp(qrels, p=1e-310)


# --------------------------------------------------------------------------- frames
def test_duplicate_document_hints_at_a_system_column(cranfield):
    runs, qrels = cranfield
    with pytest.raises(ta.InputError, match="several systems in one frame\\? pass by='system'"):
        runs.ir.ap(qrels)
    with pytest.raises(ta.InputError, match="pass by='system'"):
        pl.from_pandas(runs).lazy().ir.ap(qrels).collect()
    # without such a column, no hint
    one = runs[runs["system"] == "bm25"].drop(columns="system")
    twice = pd.concat([one, one.head(1)])
    with pytest.raises(ta.InputError, match="appears twice") as err:
        twice.ir.ap(qrels)
    assert "several systems" not in str(err.value)


def test_digit_qids_sort_naturally(cranfield):
    runs, qrels = cranfield
    run = runs[runs["system"] == "bm25"]
    want = sorted(qrels["qid"].unique(), key=int)
    assert run.ir.ap(qrels).index.tolist() == want
    by = runs.ir.ap(qrels, by="system")
    assert by.loc["tfidf"].index.tolist() == want
    polars = pl.from_pandas(run).ir.ap(qrels)["qid"].to_list()
    lazy = pl.from_pandas(run).lazy().ir.ap(qrels).collect()["qid"].to_list()
    assert polars == lazy == want
    # not all digits: string order
    named = run.assign(qid="q" + run["qid"])
    assert named.ir.ap(qrels.assign(qid="q" + qrels["qid"])).index.tolist() == sorted(
        "q" + q for q in want)


def test_empty_pandas_run_from_empty_lists():
    """``pd.DataFrame({"qid": [], ...})`` has float64 columns: an empty run, not a float id."""
    run, qrels = ta.load_example()
    empty = pd.DataFrame({"qid": [], "docid": [], "score": []})
    res = empty.ir.evaluate(qrels, ["ap", "P@10"])
    assert res.index.tolist() == ["301", "302", "303"] and (res == 0).all().all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.EmptyResultWarning)
        assert run.ir.ap(pd.DataFrame({"qid": [], "docid": [], "rel": []})).empty


def test_crp_depth_that_cannot_fit_is_refused():
    run, qrels = ta.load_example()
    with pytest.raises(ta.ParameterError, match="3,000,000,000 rows"):
        run.ir.crp(qrels, depth=10 ** 9)
    assert len(run.ir.crp(qrels, depth=600)) == 1800
    assert not np.isnan(run.ir.twist(qrels, depth=10 ** 9, ties="first")).all()
