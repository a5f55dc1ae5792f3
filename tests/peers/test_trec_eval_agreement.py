"""ties="trec_eval" agrees per query with trec_eval's own outputs (../shared/data, printed to
4 decimals) and with pytrec_eval run here (to 1e-6), for pandas and Polars.

Where a value is mathematically undefined (AP, nDCG, R-prec, bpref, recall with R = 0; set
precision of an empty ranking) we return NaN/null and trec_eval prints 0: the test checks
that this is the only kind of disagreement.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, need, pytrec_dicts, read_trec_eval_output

TE = DATA / "trec_eval"
# (trec_eval measure, our metric string)
MEASURES = [
    ("map", "ap"), ("map_cut_10", "ap@10"), ("map_cut_100", "ap@100"),
    ("ndcg", "ndcg"), ("ndcg_cut_5", "ndcg@5"), ("ndcg_cut_10", "ndcg@10"),
    ("ndcg_cut_100", "ndcg@100"), ("P_5", "precision@5"), ("P_10", "precision@10"),
    ("P_100", "precision@100"), ("recall_10", "recall@10"), ("recall_100", "recall@100"),
    ("recip_rank", "rr"), ("Rprec", "rprec"), ("bpref", "bpref"), ("success_1", "success@1"),
    ("success_5", "success@5"), ("success_10", "success@10"), ("set_F", "f1"),
    ("set_P", "precision"), ("set_recall", "recall"),
]
BINARY_ONLY = [("rbp", "rbp(p=0.9)")]  # trec_eval min-max normalises graded gains

# name: (run, qrels, trec_eval -q output, relevance level, binary qrels?)
DATASETS = {
    "trec_eval-binary": (TE / "results.test", TE / "qrels.test", TE / "out.test.aq", 1, True),
    "trec_eval-graded-l2": (TE / "results.test", TE / "qrels.rel_level", TE / "out.test.aql", 2,
                            False),
    "trec_eval-comment-ties": (TE / "results.comment.test", TE / "qrels.comment.test",
                               TE / "generated" / "out.comment.test.aq.v10.0", 1, False),
    "trectools-robust03": (DATA / "trectools" / "input.uic0301",
                           DATA / "trectools" / "robust03_cs_qrels.txt",
                           DATA / "trectools" / "trec_eval_outputs"
                           / "uic0301.v10.0.q.all_trec.txt",
                           1, False),
    "ir_measures-cwl": (DATA / "ir_measures" / "cwl.run", DATA / "ir_measures" / "cwl.qrels",
                        DATA / "ir_measures" / "trec_eval_outputs" / "cwl.v10.0.q.all_trec.txt",
                        1, False),
    "ranx": (DATA / "ranx" / "run.trec", DATA / "ranx" / "qrels.trec",
             DATA / "ranx" / "trec_eval_outputs" / "ranx.v10.0.q.all_trec.txt", 1, False),
}

UNDEFINED_OK = {"ap", "ap@10", "ap@100", "ndcg", "ndcg@5", "ndcg@10", "ndcg@100", "rprec",
                "bpref", "recall@10", "recall@100", "recall", "precision"}


def _load(name, library):
    run_path, qrels_path, out_path, level, binary = DATASETS[name]
    run = ta.read_run(need(run_path), library)
    qrels = ta.read_qrels(need(qrels_path), library)
    return run, qrels, out_path, level, binary


def _evaluate(run, qrels, metrics, level, ties="trec_eval"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # run-only qids dropped (comment test)
        res = run.ir.evaluate(qrels, metrics, ties=ties, relevance_level=level)
    if isinstance(res, pl.DataFrame):
        res = res.to_pandas().set_index("qid")
    return res


def _check(ours: float, theirs: float, tol: float, where: str, metric: str):
    if math.isnan(ours):
        assert metric in UNDEFINED_OK and theirs == 0, f"{where}: NaN, reference {theirs}"
    else:
        assert abs(ours - theirs) <= tol, f"{where}: {ours} != reference {theirs}"


@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("name", list(DATASETS))
def test_per_query_equals_trec_eval_output(name, library):
    run, qrels, out_path, level, binary = _load(name, library)
    expected = read_trec_eval_output(out_path)
    measures = MEASURES + (BINARY_ONLY if binary else [])
    res = _evaluate(run, qrels, [m for _, m in measures], level)
    checked = 0
    for te_name, ours in measures:
        col = ta.parse(ours).label
        for (measure, qid), value in expected.items():
            if measure != te_name:
                continue
            _check(res.loc[qid, col], value, 5e-5 + 1e-9, f"{name} {te_name} qid {qid}", col)
            checked += 1
    assert checked >= len(measures) * 2


def test_rbp_residual_equals_trec_eval_where_it_reports_one():
    """trec_eval's rbp_resid (p = 0.9) is set only for rankings holding unjudged documents."""
    run, qrels, out_path, _, _ = _load("trec_eval-binary", "pandas")
    expected = {q: v for (m, q), v in read_trec_eval_output(out_path).items() if m == "rbp_resid"}
    ours = run.ir.rbp_residual(qrels, p=0.9, ties="trec_eval")
    assert sum(v > 0 for v in expected.values()) >= 2
    for qid, value in expected.items():
        # where trec_eval prints 0 the ranking has no unjudged document; our value is the
        # tail 0.9^500, far below the printed precision
        assert abs(ours[qid] - value) <= 5e-5, qid


def test_empty_ranking_scores_like_trec_eval_c():
    """results.trunc lacks topic 302: an empty ranking, scored like trec_eval -c (v10)."""
    run = ta.read_run(need(TE / "results.trunc"))
    qrels = ta.read_qrels(need(TE / "qrels.test"))
    expected = read_trec_eval_output(TE / "out.test.aqc")
    res = _evaluate(run, qrels, [m for _, m in MEASURES], 1)
    assert "302" in res.index and "302" not in set(run["qid"])
    for te_name, ours in MEASURES:
        for qid in ("301", "302", "303"):
            _check(res.loc[qid, ta.parse(ours).label], expected[(te_name, qid)], 5e-5 + 1e-9,
                   f"{te_name} qid {qid}", ta.parse(ours).label)
    assert res.loc["302", "precision"] == 0.0  # set precision of nothing: 0/0, undefined
    nan = run.ir.evaluate(qrels, ["precision"], undefined="nan")
    assert math.isnan(nan.loc["302", "precision"])


# ----------------------------------------------------------------------- pytrec_eval, live
PYTREC = {
    "map": "ap", "map_cut_10": "ap@10", "map_cut_100": "ap@100", "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg@10", "ndcg_cut_100": "ndcg@100", "P_10": "precision@10",
    "P_100": "precision@100", "recall_10": "recall@10", "recall_100": "recall@100",
    "recip_rank": "rr", "Rprec": "rprec", "bpref": "bpref", "success_5": "success@5",
    "success_10": "success@10", "set_F": "f1", "set_P": "precision", "set_recall": "recall",
}
PYTREC_SET = {"map", "map_cut.10,100", "ndcg", "ndcg_cut.10,100", "P.10,100", "recall.10,100",
              "recip_rank", "Rprec", "bpref", "success.5,10", "set_F", "set_P", "set_recall"}


@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("name", ["trec_eval-binary", "trec_eval-graded-l2",
                                  "trec_eval-comment-ties", "trectools-robust03",
                                  "ir_measures-cwl"])
def test_per_query_equals_pytrec_eval(name, library):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run_path, qrels_path, _, level, _ = DATASETS[name]
    run_d, qrels_d = pytrec_dicts(run_path, qrels_path)
    expected = pytrec_eval.RelevanceEvaluator(qrels_d, PYTREC_SET,
                                              relevance_level=level).evaluate(run_d)
    run, qrels, *_ = _load(name, library)
    res = _evaluate(run, qrels, list(PYTREC.values()), level, ties="trec_eval9")
    assert expected
    for qid, values in expected.items():
        for te_name, ours in PYTREC.items():
            col = ta.parse(ours).label
            _check(res.loc[qid, col], values[te_name], 1e-6, f"{name} {te_name} qid {qid}", col)


def test_tie_rows_exist_in_the_comment_run():
    """The comment test is the tie test: make sure the data still has its tied rows."""
    run = ta.read_run(need(TE / "results.comment.test"), "polars")
    tied = run.filter(pl.struct("qid", "score").is_duplicated()).height
    assert tied >= 78


def test_average_differs_from_trec_eval_only_on_tied_queries():
    run = ta.read_run(need(TE / "results.comment.test"), "polars")
    qrels = ta.read_qrels(need(TE / "qrels.comment.test"), "polars")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        avg = run.ir.evaluate(qrels, ["ap", "ndcg@10", "rr"]).to_pandas().set_index("qid")
        te = (run.ir.evaluate(qrels, ["ap", "ndcg@10", "rr"], ties="trec_eval").to_pandas()
              .set_index("qid"))
    tied_q = set(run.filter(pl.struct("qid", "score").is_duplicated())["qid"].to_list())
    diff = (avg - te).abs().max(axis=1)
    changed = set(diff[diff > 1e-12].index)
    assert changed and changed <= tied_q
    assert np.allclose(avg.drop(index=list(tied_q & set(avg.index))),
                       te.drop(index=list(tied_q & set(te.index))), equal_nan=True)
    assert isinstance(avg, pd.DataFrame)


def test_trec_eval9_compares_scores_as_float32_like_pytrec_eval():
    """Scores distinct in float64 but equal in float32: trec_eval 10 orders them by score,
    trec_eval 9.0.8 / pytrec_eval tie them and break the tie by docid descending."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    hi, lo = 1.0000000002, 1.0000000001          # one float32 value
    run = pd.DataFrame({"qid": ["q"] * 3, "docid": ["a", "b", "c"], "score": [hi, lo, 0.5]})
    qrels = pd.DataFrame({"qid": ["q"], "docid": ["a"], "rel": [1]})
    expected = pytrec_eval.RelevanceEvaluator(
        {"q": {"a": 1}}, {"recip_rank", "map"}).evaluate(
        {"q": dict(zip(run.docid, run.score))})["q"]
    assert expected["recip_rank"] == 0.5           # b (docid desc) ahead of a
    assert run.ir.rr(qrels, ties="trec_eval9")["q"] == expected["recip_rank"]
    assert run.ir.ap(qrels, ties="trec_eval9")["q"] == pytest.approx(expected["map"])
    assert run.ir.rr(qrels, ties="trec_eval")["q"] == 1.0   # float64: a is strictly higher
