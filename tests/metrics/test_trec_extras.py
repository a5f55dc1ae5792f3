"""trec_eval's counts, set measures, relative_P, unj, interpolated precision (iprec_at_recall,
11pt_avg), Rprec_mult and infAP; ir_measures' Judged and Compat; the dcg/ndcg gain and log
base variants.

* Per query against trec_eval 10.0's stored outputs (../shared/data, 4 decimals: -q, -l2,
  -c, the comment test with its ties, the trectools and ir_measures runs), against
  pytrec_eval run here (1e-6) and against ir_measures run here (Judged, Compat; 1e-9).
* Tie-aware values against the brute-force mean over every order of tied documents; the
  measures without a closed form raise under ties="average" exactly when a tie mixes
  relevant and non-relevant documents where it matters.
* The values at R = 0 and for an empty ranking.
"""
from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference as ref
from tests import reference_trec_extra as rx
from tests.conftest import DATA, need, pytrec_dicts, read_trec_eval_output
from tests.strategies import assert_matches_brute_force, frames_of, random_queries
from trunc_accessor import single
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics import _combinatorics
from trunc_accessor.metrics.registry import REGISTRY

TE = DATA / "trec_eval"
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
NEW = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "judged", "unjudged",
       "set_precision", "set_recall", "set_f", "set_ap", "set_relative_precision",
       "relative_precision", "iprec_at_recall", "interpolated_precision_11pt", "rprec_mult",
       "infap", "compat")

# (trec_eval name, our metric, written as its canonical label)
TREC = ([("num_ret", "num_ret"), ("num_rel", "num_rel"), ("num_rel_ret", "num_rel_ret"),
         ("num_nonrel_judged_ret", "num_nonrel_judged_ret"), ("set_P", "set_precision"),
         ("set_recall", "set_recall"), ("set_F", "set_f"), ("set_map", "set_ap"),
         ("set_relative_P", "set_relative_precision"),
         ("11pt_avg", "interpolated_precision_11pt"), ("infAP", "infap")]
        + [(f"relative_P_{k}", f"relative_precision@{k}") for k in CUTS]
        + [(f"unj_{k}", f"unjudged@{k}") for k in (5, 10, 20)]
        + [(f"iprec_at_recall_{x / 10:.2f}", ta.parse(f"iprec_at_recall(recall={x / 10})").label)
           for x in range(11)]
        + [(f"Rprec_mult_{x / 10:.2f}", ta.parse(f"rprec_mult(mult={x / 10})").label)
           for x in range(2, 21, 2)])
# measures whose 0/0 we leave undefined (NaN) where trec_eval prints 0
UNDEFINED_OK = {"set_precision", "set_recall", "set_ap", "set_relative_precision",
                "relative_precision", "iprec_at_recall", "interpolated_precision_11pt",
                "rprec_mult", "infap", "unjudged"}

# name: (run, qrels, trec_eval 10.0 output, relevance level)
DATASETS = {
    "trec_eval -q": (TE / "results.test", TE / "qrels.test", TE / "out.test.aq", 1),
    "trec_eval -q -l2 graded, -1 grades": (TE / "results.test", TE / "qrels.rel_level",
                                          TE / "out.test.aql", 2),
    "trec_eval -q -c, topic 302 missing": (TE / "results.trunc", TE / "qrels.test",
                                          TE / "out.test.aqc", 1),
    "comment test, 78 tied rows": (TE / "results.comment.test", TE / "qrels.comment.test",
                                   TE / "generated" / "out.comment.test.aq.v10.0", 1),
    "trectools robust03": (DATA / "trectools" / "input.uic0301",
                           DATA / "trectools" / "robust03_cs_qrels.txt",
                           DATA / "trectools" / "trec_eval_outputs"
                           / "uic0301.v10.0.q.all_trec.txt", 1),
    "ir_measures cwl": (DATA / "ir_measures" / "cwl.run", DATA / "ir_measures" / "cwl.qrels",
                        DATA / "ir_measures" / "trec_eval_outputs" / "cwl.v10.0.q.all_trec.txt",
                        1),
    "ir_measures compat": (DATA / "ir_measures" / "compat.run",
                           DATA / "ir_measures" / "compat.qrels",
                           DATA / "ir_measures" / "trec_eval_outputs"
                           / "compat.v10.0.q.all_trec.txt", 1),
    "ranx": (DATA / "ranx" / "run.trec", DATA / "ranx" / "qrels.trec",
             DATA / "ranx" / "trec_eval_outputs" / "ranx.v10.0.q.all_trec.txt", 1),
}
for _r in ("r1", "r2", "r3", "r4"):
    for _flag in ("q", "qc"):
        DATASETS[f"trectools {_r} -{_flag}"] = (
            DATA / "trectools" / f"{_r}.run", DATA / "trectools" / "qrel1.txt",
            DATA / "trectools" / "trec_eval_outputs" / f"{_r}.v10.0.{_flag}.all_trec.txt", 1)


def _evaluate(run, qrels, metrics, level=1, ties="trec_eval", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # run-only qids dropped (comment test)
        res = run.ir.evaluate(qrels, metrics, ties=ties, relevance_level=level,
                              **{"undefined": "nan", **kw})
    if isinstance(res, pl.DataFrame):
        res = res.to_pandas().set_index("qid")
    return res


def _check(ours: float, theirs: float, tol: float, where: str, metric: str):
    if math.isnan(ours):
        assert REGISTRY[ta.parse(metric).metric.name].name in UNDEFINED_OK and theirs == 0, \
            f"{where}: NaN, reference {theirs}"
    else:
        assert abs(ours - theirs) <= tol, f"{where}: {ours} != reference {theirs}"


# --------------------------------------------------------------------------- trec_eval
@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("name", list(DATASETS))
def test_per_query_equals_trec_eval_10_output(name, library):
    run_path, qrels_path, out_path, level = DATASETS[name]
    run = ta.read_run(need(run_path), library)
    qrels = ta.read_qrels(need(qrels_path), library)
    expected = read_trec_eval_output(need(out_path))
    res = _evaluate(run, qrels, [m for _, m in TREC], level)
    checked = 0
    for te_name, ours in TREC:
        for (measure, qid), value in expected.items():
            if measure == te_name:
                _check(res.loc[qid, ours], value, 5e-5 + 1e-9, f"{name} {te_name} {qid}", ours)
                checked += 1
    assert checked >= len(TREC)


def test_empty_ranking_and_r0_where_trec_eval_prints_zero():
    """results.trunc lacks topic 302 (an empty ranking, scored like trec_eval -c); the
    comment test has a topic with only non-relevant judgments (R = 0)."""
    res = _evaluate(ta.read_run(need(TE / "results.trunc")), ta.read_qrels(need(TE / "qrels.test")),
                    [m for _, m in TREC])
    empty = res.loc["302"]
    assert empty["num_ret"] == 0 and empty["num_rel"] == 77 and empty["num_rel_ret"] == 0
    for label in ("set_recall", "set_f", "set_ap", "iprec_at_recall", "infap",
                  "interpolated_precision_11pt", "rprec_mult", "relative_precision@10",
                  "unjudged@10"):
        assert empty[label] == 0.0, label
    assert math.isnan(empty["set_precision"]) and math.isnan(empty["set_relative_precision"])

    res = _evaluate(ta.read_run(need(TE / "results.comment.test")),
                    ta.read_qrels(need(TE / "qrels.comment.test")), [m for _, m in TREC])
    r0 = res.loc["2024-36302"]
    assert r0["num_rel"] == 0 and r0["num_ret"] == 100 and r0["set_precision"] == 0
    assert r0["set_f"] == 0 and r0["unjudged@10"] >= 0
    for label in UNDEFINED_OK - {"set_precision", "unjudged"}:
        col = next(c for c in res.columns if ta.parse(c).metric.name == label)
        assert math.isnan(r0[col]), label


def test_v10_lround_differs_from_v9_where_the_stored_outputs_do():
    """trec_eval 10 cuts recall levels with lround(x·R), 9.0.8 with (long)(x·R + 0.9):
    topic 301 (R = 474) at 0.10: 47 vs 48 relevant documents. We follow 10.0."""
    run, qrels = ta.read_run(need(TE / "results.test")), ta.read_qrels(need(TE / "qrels.test"))
    v10 = read_trec_eval_output(TE / "out.test.aq")
    v9 = read_trec_eval_output(need(TE / "v9.0.8" / "out.test.aq"))
    res = _evaluate(run, qrels, ["iprec_at_recall(recall=0.1)", "interpolated_precision_11pt"])
    differ = [(m, q) for (m, q) in v10
              if m.startswith(("iprec", "11pt")) and v10[(m, q)] != v9[(m, q)]]
    assert ("iprec_at_recall_0.10", "301") in differ
    assert res.loc["301", "iprec_at_recall(recall=0.1)"] == pytest.approx(
        v10[("iprec_at_recall_0.10", "301")], abs=5e-5)
    assert abs(res.loc["301", "iprec_at_recall(recall=0.1)"]
               - v9[("iprec_at_recall_0.10", "301")]) > 1e-4


# --------------------------------------------------------------------------- pytrec_eval
PYTREC = {"num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
          "num_nonrel_judged_ret": "num_nonrel_judged_ret", "set_P": "set_precision",
          "set_recall": "set_recall", "set_F": "set_f", "set_map": "set_ap",
          "set_relative_P": "set_relative_precision", "infAP": "infap",
          **{f"relative_P_{k}": f"relative_precision@{k}" for k in CUTS},
          **{f"Rprec_mult_{x / 10:.2f}": ta.parse(f"rprec_mult(mult={x / 10})").label
             for x in range(2, 21, 2)}}
PYTREC_SET = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall",
              "set_F", "set_map", "set_relative_P", "infAP", "relative_P", "Rprec_mult",
              "iprec_at_recall"}


@pytest.mark.parametrize("name", ["trec_eval -q", "trec_eval -q -l2 graded, -1 grades",
                                  "comment test, 78 tied rows", "trectools robust03",
                                  "ir_measures cwl", "ranx"])
def test_every_pytrec_eval_measure_per_query_under_trec_eval9(name):
    """pytrec_eval is trec_eval 9.0.8 (scores as float32, its (long)(x·R + 0.9) recall cut):
    ties="trec_eval9" gives its value for every measure it offers, every query (num_rel
    under a relevance level excepted: pytrec_eval's ignores it, as ir_measures notes)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from trunc_accessor.metrics.names import parse_named

    run_path, qrels_path, _, level = DATASETS[name]
    run_d, qrels_d = pytrec_dicts(run_path, qrels_path)
    offered = set(pytrec_eval.supported_measures) - {"runid", "relstring", "num_q"}
    expected = pytrec_eval.RelevanceEvaluator(qrels_d, offered,
                                              relevance_level=level).evaluate(run_d)
    named = {}
    for measure in sorted(offered):
        for n in parse_named(measure, trec=True):
            named[n.label] = n.measure
    res = _evaluate(ta.read_run(need(run_path)), ta.read_qrels(need(qrels_path)),
                    sorted({m.label for m in named.values()}), level, ties="trec_eval9")
    compared, labels = 0, set()
    for qid, values in expected.items():
        assert set(values) == set(named)  # every pytrec_eval output has its measure here
        for te_name, value in values.items():
            if te_name == "num_rel" and level != 1:
                continue
            ours = res.loc[qid, named[te_name].label]
            ours = 0.0 if math.isnan(ours) else ours  # pytrec_eval prints 0 for 0/0
            if te_name.startswith("gm_"):  # per query, pytrec_eval gives log(max(v, 1e-5))
                ours, value = max(ours, 1e-5), math.exp(value)
            assert abs(ours - value) <= 1e-6, f"{name} {te_name} {qid}: {ours} != {value}"
            compared += 1
            labels.add(te_name)
    assert len(labels) >= 91 and compared >= 91 * len(expected)


# --------------------------------------------------------------------------- ir_measures
IRM_SETS = ["trec_eval -q", "trec_eval -q -l2 graded, -1 grades", "comment test, 78 tied rows",
            "trectools robust03", "ir_measures compat", "ir_measures cwl", "ranx"]


def _ir_measures_order(run: pd.DataFrame) -> pd.DataFrame:
    """ir_measures' order: score descending, docid ascending (not trec_eval's)."""
    run = run.assign(_neg=-run["score"]).sort_values(["qid", "_neg", "docid"], kind="stable")
    return run.drop(columns=["_neg"] + (["rank"] if "rank" in run.columns else []))


@pytest.mark.parametrize("name", IRM_SETS)
def test_judged_and_compat_equal_ir_measures(name):
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import Compat, Judged

    run_path, qrels_path, _, _ = DATASETS[name]
    measures = {Judged @ 5: "judged@5", Judged @ 10: "judged@10", Judged @ 1000: "judged@1000",
                Judged: "judged", Compat(p=0.95): "compat", Compat(p=0.8): "compat(p=0.8)",
                Compat(p=0.95, normalize=False): "compat(normalize=False)"}
    qrels_i = list(ir_measures.read_trec_qrels(str(need(qrels_path))))
    run_i = list(ir_measures.read_trec_run(str(need(run_path))))
    run = _ir_measures_order(ta.read_run(need(run_path)))
    res = _evaluate(run, ta.read_qrels(need(qrels_path)), [*measures.values(), "num_rel"],
                    ties="first")
    n = 0
    for metric in ir_measures.iter_calc(list(measures), qrels_i, run_i):
        ours = res.loc[metric.query_id, measures[metric.measure]]
        if math.isnan(ours):  # R = 0: no ideal ranking (ir_measures reports 0)
            assert measures[metric.measure].startswith("compat") and metric.value == 0
            assert res.loc[metric.query_id, "num_rel"] == 0
            continue
        assert ours == pytest.approx(metric.value, abs=1e-9), (name, metric)
        n += 1
    assert n >= 2 * len(measures)


def test_compat_expected_values_of_ir_measures_tests():
    """ir_measures' tests/test_compat.py (values from the authors' Compatibility script)."""
    rows = [line.split("\t") for line in need(DATA / "ir_measures" / "expected_from_tests.tsv")
            .read_text().splitlines() if line.startswith("compat\t")]
    run = ta.read_run(need(DATA / "ir_measures" / "compat.run"))
    qrels = ta.read_qrels(need(DATA / "ir_measures" / "compat.qrels"))
    specs = {"Compat(p=0.95)": "compat", "Compat(p=0.9)": "compat(p=0.9)",
             "Compat(p=0.8)": "compat(p=0.8)"}
    for ties in ("average", "first", "trec_eval"):  # the run has no tie
        res = _evaluate(run, qrels, list(specs.values()), ties=ties)
        for _, measure, qid, value in rows:
            if qid == "MEAN":
                assert res[specs[measure]].mean() == pytest.approx(float(value), abs=1e-9)
            else:
                assert res.loc[qid, specs[measure]] == pytest.approx(float(value), abs=1e-9)
    assert len(rows) == 7


def test_compat_of_the_ideal_ranking_is_exactly_one():
    assert single.compat([3, 3, 2, 1, 0, None]) == 1.0
    assert single.compat([3, 3, 2, 1], scores=[5, 5, 4, 3]) == pytest.approx(1.0, abs=1e-15)
    assert single.compat([3, 3, 2, 1], R=6) < 1.0  # two relevant documents missing
    assert single.compat([2, 1], qrels_grades=[2, 1, 1, 1], normalize=False) < 1.0


# --------------------------------------------------------------------------- ties
def _exact_cases(k, p, beta, mult, normalize):
    return [
        ("num_ret", rx.num_ret, {}), ("num_rel", rx.num_rel, {}),
        ("num_rel_ret", rx.num_rel_ret, {}), (f"num_rel_ret@{k}", rx.num_rel_ret, {"k": k}),
        ("num_nonrel_judged_ret", rx.num_nonrel_judged_ret, {}),
        ("judged", rx.judged, {}), (f"judged@{k}", rx.judged, {"k": k}),
        ("unjudged", rx.unjudged, {}), (f"unjudged@{k}", rx.unjudged, {"k": k}),
        ("set_precision", rx.set_precision, {}), ("set_recall", rx.set_recall, {}),
        (ta.parse(f"set_f(beta={beta})").label, rx.set_f, {"beta": beta}),
        ("set_ap", rx.set_ap, {}), ("set_relative_precision", rx.set_relative_precision, {}),
        ("relative_precision", rx.relative_precision, {}),
        (f"relative_precision@{k}", rx.relative_precision, {"k": k}),
        (ta.parse(f"rprec_mult(mult={mult})").label, rx.rprec_mult, {"mult": mult}),
        (ta.parse(f"compat(p={p},normalize={normalize})").label, rx.compat,
         {"p": p, "normalize": normalize}),
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=random_queries(), k=st.integers(1, 7), p=st.sampled_from([0.5, 0.95]),
       beta=st.sampled_from([1.0, 0.25, 4.0]), mult=st.sampled_from([0.2, 0.5, 1.0, 1.4, 2.0]),
       normalize=st.booleans(), level=st.sampled_from([1, 2]), seed=st.integers(0, 10 ** 6))
def test_tie_aware_equals_brute_force_mean(queries, k, p, beta, mult, normalize, level, seed):
    """Counts, set measures, judged/unjudged@k, relative_P@k and Rprec_mult are linear in the
    relevance at each position; compat is not (its ideal ranking follows the ranking's own
    order among equal grades) and has its exact negative-hypergeometric mean."""
    run, qrels = frames_of(queries, random.Random(seed))
    assert_matches_brute_force(run, qrels, queries, _exact_cases(k, p, beta, mult, normalize),
                               level)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grades=st.lists(st.sampled_from([None, 0, 1, 1, 2, 2, 3, -1]), min_size=1, max_size=8),
       n_scores=st.integers(1, 3), extra=st.lists(st.integers(0, 3), max_size=4),
       p=st.sampled_from([0.5, 0.9]), level=st.sampled_from([1, 2]), data=st.data())
def test_compat_with_large_and_graded_ties(grades, n_scores, extra, p, level, data):
    """Few distinct scores, so tie groups are large and mix grades (every branch of the
    closed form: groups before and after their grade's ideal place)."""
    scores = sorted(data.draw(st.lists(st.integers(0, n_scores - 1), min_size=len(grades),
                                       max_size=len(grades))), reverse=True)
    judged = [g for g in grades if g is not None] + extra
    want = ref.brute_force_mean(rx.compat, grades, scores, judged, level, p=p)
    got = single.compat(grades, scores=scores, qrels_grades=judged, relevance_level=level, p=p,
                        undefined="nan")
    assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, abs=1e-12)


ORDER_BOUND = {  # metric label: (reference, params, the cut c of the relevant documents)
    "iprec_at_recall": (rx.iprec_at_recall, {}, lambda R: [0.0]),
    "iprec_at_recall(recall=0.5)": (rx.iprec_at_recall, {"recall": 0.5}, lambda R: [0.5]),
    "iprec_at_recall(recall=1)": (rx.iprec_at_recall, {"recall": 1.0}, lambda R: [1.0]),
    "interpolated_precision_11pt": (rx.interpolated_precision_11pt, {},
                                    lambda R: [i / 10 for i in range(11)]),
    "infap": (rx.infap, {}, lambda R: [0.0]),
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=random_queries(grades=st.sampled_from([None, -1, 0, 0, 1, 1, 2]), max_len=7,
                             sort_scores=True),
       level=st.sampled_from([1, 2]))
def test_order_bound_measures_are_the_exact_mean_over_tie_orders(queries, level):
    """Interpolated precision (a maximum) and infAP (ratios of counts) under ties="average":
    the brute-force mean over every order of the tied documents, never an error."""
    run, qrels = frames_of(queries)
    qids = [q[0] for q in queries]
    res = run.ir.evaluate(qrels, list(ORDER_BOUND), queries=qids, relevance_level=level,
                          undefined="nan")
    for label, (fn, params, _) in ORDER_BOUND.items():
        for qid, grades, scores, extra in queries:
            judged = [x for x in grades if x is not None] + extra
            want = ref.brute_force_mean(fn, grades, scores, judged, level, **params)
            got = res.loc[qid, label]
            assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(
                want, abs=1e-12), (label, qid)
    for mode in ("first", "trec_eval"):  # the order as given is always scored
        cases = [(label, fn, params) for label, (fn, params, _) in ORDER_BOUND.items()]
        if mode == "first":
            assert_matches_brute_force(run, qrels, queries, cases, level, modes=("first",))
        else:
            run.ir.evaluate(qrels, list(ORDER_BOUND), queries=qids, ties=mode,
                            relevance_level=level)


def test_a_tie_of_relevant_and_non_relevant_documents_by_hand():
    """b (relevant) ties with c at ranks 2–3, after a at rank 1: each order has probability
    1/2, so the values are the means of the two orders' values."""
    run = pd.DataFrame({"qid": "q7", "docid": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"qid": "q7", "docid": ["a", "b", "c"], "rel": [0, 1, 0]})
    assert run.ir.iprec_at_recall(qrels)["q7"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    eps = 1e-5
    at2 = 1 / 2 + (1 / 2) * 1 * (eps / (1 + 2 * eps))
    at3 = 1 / 3 + (2 / 3) * 1 * (eps / (2 + 2 * eps))
    assert run.ir.infap(qrels)["q7"] == pytest.approx((at2 + at3) / 2, rel=1e-14)
    assert run.ir.interpolated_precision_11pt(qrels)["q7"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    # the order as given, and trec_eval's
    assert run.ir.iprec_at_recall(qrels, ties="first")["q7"] == 0.5
    assert run.ir.iprec_at_recall(qrels, ties="trec_eval")["q7"] == 1 / 3  # c before b
    res = run.ir.evaluate(qrels, ["compat", "judged@2", "rprec_mult(mult=2)", "set_f",
                                  "num_rel_ret@2"])
    # b is at rank 2 or 3: half of it within the first 2 (k = (long)(2·1 + 0.9) = 2)
    assert res.loc["q7", "num_rel_ret@2"] == 0.5 and res.loc["q7", "rprec_mult(mult=2)"] == 0.25
    qrels2 = pd.DataFrame({"qid": "q7", "docid": ["a", "b", "c"], "rel": [0, 1, 1]})
    assert run.ir.infap(qrels2)["q7"] == pytest.approx(single.infap([0, 1, 1]))


# --------------------------------------------------------------------------- R = 0, n = 0
NAN = float("nan")
# metric label: (R = 0 with a ranking [0, None], empty ranking with R = 2)
EDGE = {
    "num_ret": (2.0, 0.0), "num_rel": (0.0, 2.0), "num_rel_ret": (0.0, 0.0),
    "num_nonrel_judged_ret": (1.0, 0.0), "judged": (0.5, NAN), "judged@10": (0.5, NAN),
    "unjudged": (0.5, NAN), "unjudged@10": (0.1, 0.0),
    "set_precision": (0.0, NAN), "set_recall": (NAN, 0.0), "set_f": (0.0, 0.0),
    "set_ap": (NAN, 0.0), "set_relative_precision": (NAN, NAN),
    "relative_precision@5": (NAN, 0.0), "relative_precision": (NAN, NAN),
    "iprec_at_recall": (NAN, 0.0), "interpolated_precision_11pt": (NAN, 0.0),
    "rprec_mult": (NAN, 0.0), "infap": (NAN, 0.0), "compat": (NAN, 0.0),
    "compat(normalize=False)": (NAN, 0.0),
}


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_values_at_r0_and_for_an_empty_ranking(library):
    run = pd.DataFrame({"qid": ["r0", "r0"], "docid": ["a", "x"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["r0", "empty", "empty"], "docid": ["a", "b", "c"],
                          "rel": [0, 1, 2]})
    if library == "polars":
        run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
    res = _evaluate(run, qrels, list(EDGE), ties="average")
    for label, (at_r0, at_empty) in EDGE.items():
        for qid, want in (("r0", at_r0), ("empty", at_empty)):
            got = res.loc[qid, label]
            assert (math.isnan(want) and math.isnan(got)) or got == want, (label, qid, got)
    # set_f is undefined only when both the ranking and R are empty
    assert math.isnan(single.set_f([], qrels_grades=[0], undefined="nan"))
    assert single.set_f([], qrels_grades=[0]) == 0.0


def test_every_new_metric_documents_r0_empty_source_and_example():
    for name in NEW:
        metric = REGISTRY[name]
        text = metric.undefined + metric.doc
        assert "R = 0" in text and ("empty" in text.lower()), name
        assert ">>>" in metric.doc
        assert f"trunc_accessor.frontends.single import {name}" in metric.doc
        assert metric.citation, name


# --------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("spec,label", [
    ("iprec_at_recall(recall=0.0)", "iprec_at_recall"),
    ("iprec(recall=0.1)", "iprec_at_recall(recall=0.1)"),
    ("rprec_mult(mult=1)", "rprec_mult"), ("rprec_mult(mult=0.2)", "rprec_mult(mult=0.2)"),
    ("set_f(beta=1)", "set_f"), ("set_F(beta=0.5)", "set_f(beta=0.5)"),
    ("set_map", "set_ap"), ("judged@10", "judged@10"), ("unj@5", "unjudged@5"),
    ("compat(p=0.95,normalize=True)", "compat"),
    ("compat(normalize=False)", "compat(normalize=False)"),
    ("num_rel_ret@10", "num_rel_ret@10"), ("relative_p@5", "relative_precision@5"),
    ("ndcg@10(gains=exp)", "ndcg@10(gains=exponential)"),
    ("ndcg(gains='exp')", "ndcg(gains=exponential)"),
    ("ndcg(gains=linear, log_base=2)", "ndcg"), ("dcg(log_base=10)", "dcg(log_base=10)"),
    ("ndcg@5(log_base=2.0, gains=exponential)", "ndcg@5(gains=exponential)"),
])
def test_labels(spec, label):
    assert ta.parse(spec).label == label
    assert ta.parse(label) == ta.parse(spec)


@pytest.mark.parametrize("spec,param", [
    ("iprec_at_recall(recall=1.5)", "recall"), ("iprec_at_recall(recall=-0.1)", "recall"),
    ("rprec_mult(mult=0)", "mult"), ("rprec_mult(mult=-1)", "mult"), ("set_f(beta=0)", "beta"),
    ("set_f(beta=-2)", "beta"), ("compat(p=1)", "p"), ("compat(normalize=1)", "normalize"),
    ("ndcg(log_base=1)", "log_base"), ("dcg(log_base=0.5)", "log_base"),
    ("ndcg(gains=expo)", "gains"), ("ndcg(gains=3)", "gains"), ("judged@0", "k"),
])
def test_parameters_outside_their_domain(spec, param):
    with pytest.raises(ParameterError, match=param):
        ta.parse(spec)


# --------------------------------------------------------------------------- dcg / ndcg
def _dcg(r, judged, level, k=None, gains=None, log_base=2.0):
    return sum(ref._gain(g, gains) / (math.log(i + 1) / math.log(log_base))
               for i, g in enumerate(r[:k] if k else r, 1))


def _ndcg(r, judged, level, k=None, gains=None, log_base=2.0):
    ideal = [x for x in sorted((ref._gain(g, gains) for g in judged), reverse=True) if x > 0]
    idcg = sum(x / (math.log(i + 1) / math.log(log_base))
               for i, x in enumerate(ideal[:k] if k else ideal, 1))
    return NAN if idcg == 0 else _dcg(r, judged, level, k, gains, log_base) / idcg


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=random_queries(), k=st.integers(1, 7), base=st.sampled_from([2, 10, math.e, 1.5]),
       gains=st.sampled_from(["exp", None]), seed=st.integers(0, 10 ** 6))
def test_dcg_log_base_and_exp_gains_equal_brute_force(queries, k, base, gains, seed):
    run, qrels = frames_of(queries, random.Random(seed))
    params = {"k": k, "gains": gains, "log_base": base}
    ref_params = {**params, "gains": "exponential" if gains == "exp" else None}
    cases = [(ta.parse(("dcg", params)).label, _dcg, ref_params),
             (ta.parse(("ndcg", params)).label, _ndcg, ref_params)]
    assert_matches_brute_force(run, qrels, queries, cases, 1)


def test_dcg_gain_and_base_variants():
    grades = [3, 2, 0, 1]
    # Burges et al. gains 2^g − 1 (ranx ndcg_burges): 7 + 3/log2(3) + 1/log2(5)
    burges = 7 + 3 / math.log2(3) + 1 / math.log2(5)
    assert single.dcg(grades, gains="exp") == pytest.approx(burges, rel=1e-15)
    assert single.dcg(grades, gains="exp") == single.dcg(grades, gains="exponential")
    assert single.dcg(grades, gains="linear") == single.dcg(grades)
    # base b: 1/log_b(1 + i) = log2(b)/log2(1 + i), DCG times log2(b); nDCG unchanged
    assert single.dcg(grades, log_base=10) == pytest.approx(single.dcg(grades) * math.log2(10))
    assert single.dcg(grades, log_base=10) == pytest.approx(3 / math.log10(2) + 2 / math.log10(3)
                                                            + 1 / math.log10(5))
    assert single.ndcg(grades, log_base=10) == pytest.approx(single.ndcg(grades), rel=1e-14)
    # the defaults are the unchanged computation, bit for bit
    assert (single.ndcg(grades, log_base=2) == single.ndcg(grades)
            == pytest.approx(0.98544, abs=1e-5))


def test_exponential_gains_on_ranx_data():
    """ranx's ndcg_burges@k on its own test data, written out by hand from 2^g − 1 gains."""
    run = ta.read_run(need(DATA / "ranx" / "run.trec"))
    qrels = ta.read_qrels(need(DATA / "ranx" / "qrels.trec"))
    res = _evaluate(run, qrels, ["ndcg@5(gains=exp)", "ndcg@5"], ties="trec_eval")
    for qid, ranking in run.sort_values(["qid", "score", "docid"], ascending=[True, False, False]) \
            .groupby("qid"):
        q = qrels[qrels.qid == qid].set_index("docid")["rel"]
        grades = [q.get(d) for d in ranking.docid]
        want = _ndcg([None if g is None or (isinstance(g, float) and math.isnan(g)) else int(g)
                      for g in grades], list(q), 1, k=5, gains="exponential")
        assert res.loc[qid, "ndcg@5(gains=exp)"] == pytest.approx(want, abs=1e-12)


def test_new_metrics_by_systems_and_polars_agree():
    run, qrels = ta.load_example()
    metrics = ["num_rel_ret@10", "judged@10", "set_f(beta=4)", "set_ap", "rprec_mult(mult=0.4)",
               "compat", "relative_precision@100", "unjudged@20"]
    both = pd.concat([run.assign(system="A"), run.assign(system="B")])
    res = both.ir.evaluate(qrels, metrics, by="system")
    pd.testing.assert_frame_equal(res.loc["A"], res.loc["B"])
    pol = pl.from_pandas(both).ir.evaluate(pl.from_pandas(qrels), metrics, by="system")
    assert np.allclose(pol.filter(pl.col("system") == "A").select(metrics).to_numpy(),
                       res.loc["A"][metrics].to_numpy(), equal_nan=True)
    # order-bound metrics agree across libraries under trec_eval's order
    a = _evaluate(run, qrels, ["infap", "interpolated_precision_11pt"])
    b = _evaluate(pl.from_pandas(run), pl.from_pandas(qrels),
                  ["infap", "interpolated_precision_11pt"])
    assert np.allclose(a.to_numpy(), b.to_numpy(), equal_nan=True)


def test_large_tie_groups_are_exact_and_bounded():
    """One tie group of 3000 documents: compat's exact mean (O(1) terms when the group lies at
    or after its grades' ideal places, K·(n − K − d) otherwise) and the linear measures."""
    n = 3000
    grades = [0] * n
    for i in (5, 700, 1999):
        grades[i] = 1
    scores = [1.0] * n
    # all tied at the top (t = 0): every grade's document lies at or after its ideal place
    v = single.compat(grades, scores=scores)
    assert 0 < v < 1 and math.isfinite(v)
    # a graded ranking whose tie group starts before its grade's ideal place (d > 0)
    graded = [2] * 20 + [1, 0] * 40
    tie_scores = [2.0] * 20 + [1.0] * 80
    got = single.compat(graded, scores=tie_scores, qrels_grades=graded + [2] * 10)
    assert 0 < got < 1
    assert single.judged(grades, scores=scores, k=10) == 1.0
    assert single.num_rel_ret(grades, scores=scores, k=300) == pytest.approx(0.3)


def test_compat_refuses_a_tie_too_large_for_its_exact_mean(monkeypatch):
    import trunc_accessor.metrics.compat as compat_module

    graded = [2] * 5 + [1, 0] * 20
    scores = [2.0] * 5 + [1.0] * 40
    judged = graded + [2] * 10  # grade-1 documents belong after 15 grade-2 ones: d = 10
    exact = single.compat(graded, scores=scores, qrels_grades=judged)
    monkeypatch.setattr(compat_module, "MAX_TERMS", 10)
    with pytest.raises(ValueError, match="ties='first'"):
        single.compat(graded, scores=scores, qrels_grades=judged)
    monkeypatch.setattr(compat_module, "CHUNK", 7)  # chunking changes nothing
    monkeypatch.setattr(compat_module, "MAX_TERMS", 10 ** 6)
    assert (single.compat(graded, scores=scores, qrels_grades=judged)
            == pytest.approx(exact, abs=1e-14))


def test_interpolated_precision_refuses_a_huge_tie_before_enumerating_it():
    """A tie group of 10^9 documents, half relevant, would take C(10^9, 5·10^8) orders; the
    exact mean is refused at once (a lower bound of the work in constant time per group),
    not after listing the s·(m − s + 1) ≈ 2.5·10^17 candidate precisions."""
    import time

    from trunc_accessor.metrics._max_ties import mean_interpolated

    start = time.perf_counter()
    with pytest.raises(ParameterError, match="for qid='q' would take at least"):
        mean_interpolated(np.array([], dtype=np.int64), np.array([], dtype=np.int64),
                          [(0, 0, 10 ** 9, 5 * 10 ** 8)], 1, "qid='q'")
    assert time.perf_counter() - start < 1.0
    # through a call: 40,000 tied documents, 20,000 relevant (4·10^8 candidates before)
    n = 40_000
    run = pd.DataFrame({"qid": "q", "docid": [f"d{i}" for i in range(n)], "score": 1.0})
    qrels = pd.DataFrame({"qid": "q", "docid": run.docid[::2], "rel": 1})
    start = time.perf_counter()
    with pytest.raises(ParameterError, match="interpolated precision for qid='q'"):
        run.ir.evaluate(qrels, ["iprec_at_recall", "interpolated_precision_11pt"])
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize("budget", [10, 200, 2_000])
def test_interpolated_precision_budget_is_exact(monkeypatch, budget):
    """The refusal depends on the work as before (Σ s·m over the mixed groups, times one
    plus the distinct candidate values): a ranking within the budget gets the brute-force
    mean; one beyond it is refused, whether the lower bound or the count finds it."""
    import trunc_accessor.metrics._max_ties as mt

    grades = [0, 1, 0, 1, 1, 0, 0, 1]
    scores = [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0]
    want = ref.brute_force_mean(rx.iprec_at_recall, grades, scores, grades, 1)
    # the work the exact mean takes: groups (m, s) = (3, 2), (4, 2); its distinct candidate
    # values above D (none: D = (0, 1)) are counted by brute force here
    cands = {(i) / (t + p) for t, m, s, b in ((1, 3, 2, 0), (4, 4, 2, 2))
             for i in range(b + 1, b + s + 1) for p in range(i - b, m - s + i - b + 1)}
    work = (3 * 2 + 4 * 2) * (1 + len(cands))
    monkeypatch.setattr(mt, "MAX_WORK", budget)
    if work > budget:
        with pytest.raises(ParameterError, match="ties='first'"):
            single.iprec_at_recall(grades, scores=scores)
    else:
        assert single.iprec_at_recall(grades, scores=scores) == pytest.approx(want, abs=1e-12)
    monkeypatch.setattr(mt, "CHUNK", 2)  # enumerating in chunks changes nothing
    monkeypatch.setattr(mt, "MAX_WORK", work)
    assert single.iprec_at_recall(grades, scores=scores) == pytest.approx(want, abs=1e-12)
    monkeypatch.setattr(mt, "MAX_WORK", work - 1)
    with pytest.raises(ParameterError, match="ties='first'"):
        single.iprec_at_recall(grades, scores=scores)


def test_infap_refuses_a_huge_tie_before_computing_any_group(monkeypatch):
    """infAP under ties="average": every tie group's cases are counted before the first
    group's exact mean is computed, so a too-large group late in the run is refused without
    the work on the groups before it."""
    import trunc_accessor.metrics.infap as infap_module

    computed = []  # the tie groups whose exact mean was computed
    real = _combinatorics.log_factorials

    def counting(n):
        computed.append(n)
        return real(n)

    monkeypatch.setattr(infap_module, "log_factorials", counting)
    n = 3_000
    run = pd.DataFrame({"qid": ["a"] * 4 + ["b"] * n,
                        "docid": [f"d{i}" for i in range(4 + n)],
                        "score": [1.0] * 4 + [1.0] * n})
    qrels = pd.DataFrame({"qid": ["a", "a"] + ["b"] * (2 * n // 3), "docid":
                          ["d0", "d1"] + [f"d{i}" for i in range(4, 4 + n) if i % 3],
                          "rel": [1, 0] + [i % 3 - 1 for i in range(4, 4 + n) if i % 3]})
    with pytest.raises(ParameterError, match="infap .* qid='b' is too large"):
        run.ir.infap(qrels)
    assert not computed
    assert 0 < run[run.qid == "a"].ir.infap(qrels[qrels.qid == "a"]).iloc[0] < 1
    assert computed
