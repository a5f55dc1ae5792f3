"""The C/W/L measures ir_measures computes with cwl_eval (INST, INSQ, BPM, NERR8–NERR11, SDCG)
and ir_measures' Accuracy.

Oracles: ``ir_measures.iter_calc`` per query on Cranfield (two systems) and on two TREC 2012
Web track runs (~1,200 and ~3,700 rows tied on score); cwl_eval's own test values stored in
ir_measures' tests (cwl.run/cwl.qrels, 4 decimals); cwl_eval's ``Ranking`` and metric classes
on random small rankings at several list depths; brute force over tie orders (cwl_eval per
order; ir_measures' Accuracy per order); SciPy's polygamma and a direct sum for the closed
forms of the endless list.

ir_measures sorts each query's documents by score, descending, keeping the run's order among
equal scores (Python's stable sort), and hands them to cwl_eval: ``ties="first"`` on the run
read in file order is that order.
"""
from __future__ import annotations

import itertools
import logging
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests.conftest import DATA, need
from trunc_accessor import single
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics import cwl_tails
from trunc_accessor.metrics.names import parse_named

irm = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")
logging.getLogger("ir_measures.cwl_eval").disabled = True

from cwl.ruler.cwl_ruler import (  # noqa: E402 - after the importorskip calls above
    BPMCWLMetric,
    INSQCWLMetric,
    INSTCWLMetric,
    NDCGCWLMetric,
    NERReq8CWLMetric,
    NERReq9CWLMetric,
    NERReq10CWLMetric,
    NERReq11CWLMetric,
)
from cwl.ruler.ranking import Ranking  # noqa: E402

logging.getLogger("cwl").disabled = True

# every measure, with parameters that reach their corners (T < 1/2 makes INST's C_i
# non-monotone; min_rel > 0; a cut-off beyond cwl_eval's 1,000 positions)
CWL = ["INST(T=1.0,max_rel=4)", "INST(T=0.3,max_rel=4)", "INSQ(T=2.0,max_rel=4)",
       "INSQ(T=1.0,min_rel=2,max_rel=4)", "BPM(T=1.0,max_rel=4)@20", "BPM(T=2.5,max_rel=4)@1000",
       "SDCG(max_rel=4)@10", "SDCG(max_rel=4)@2000", "NERR8(max_rel=4)@10",
       "NERR8(min_rel=1,max_rel=4)@1000", "NERR9(max_rel=4)@20", "NERR10(p=0.8,max_rel=4)",
       "NERR11(T=2.0,max_rel=4)"]
# one of each (cwl_eval costs ~1 ms a query and measure)
CWL_EACH = ["INST(T=0.3,max_rel=4)", "INSQ(T=2.0,max_rel=4)", "BPM(T=1.0,max_rel=4)@20",
            "SDCG(max_rel=4)@10", "NERR8(min_rel=1,max_rel=4)@1000", "NERR9(max_rel=4)@20",
            "NERR10(p=0.8,max_rel=4)", "NERR11(T=2.0,max_rel=4)"]
ACCURACY = [("Accuracy", None, 1), ("Accuracy@10", 10, 1), ("Accuracy(rel=2)@20", 20, 2)]


def _ir_frames(run: pd.DataFrame, qrels: pd.DataFrame):
    return (run.rename(columns={"qid": "query_id", "docid": "doc_id"})[
                ["query_id", "doc_id", "score"]],
            qrels.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance"}))


def _all_relevant_top(run: pd.DataFrame, qrels: pd.DataFrame, k, level) -> set:
    """Queries whose top k (score descending, stable) are all relevant: ir_measures' Accuracy
    divides by zero there (it has no non-relevant document to pair)."""
    grade = run.merge(qrels, on=["qid", "docid"], how="left")
    grade = grade.sort_values("score", ascending=False, kind="stable")
    top = grade.groupby("qid", sort=False).head(k) if k else grade
    return set(top.groupby("qid")["rel"].apply(lambda r: bool((r.fillna(0) >= level).all())
                                               ).loc[lambda s: s].index)


def _check_against_ir_measures(run: pd.DataFrame, qrels: pd.DataFrame, specs, where: str):
    irr, irq = _ir_frames(run, qrels)
    want = {(str(m.measure), m.query_id): m.value
            for m in irm.iter_calc([irm.parse_measure(s) for s in specs], irq, irr)}
    got = run.ir.evaluate(qrels, specs, ties="first", undefined="nan")
    assert len(want) == len(specs) * run["qid"].nunique()
    for spec in specs:
        name = str(irm.parse_measure(spec))
        for qid, value in got[spec].items():
            assert value == pytest.approx(want[(name, str(qid))], abs=1e-9, rel=0), (where, spec,
                                                                                    qid)
    for spec, k, level in ACCURACY:
        crash = _all_relevant_top(run, qrels, k, level)
        ok = irr[~irr["query_id"].isin(crash)]
        want = {m.query_id: m.value for m in irm.iter_calc([irm.parse_measure(spec)], irq, ok)}
        got = run.ir.evaluate(qrels, [spec], ties="first", undefined="nan")[spec]
        for qid, value in got.items():
            if str(qid) in want:
                assert value == pytest.approx(want[str(qid)], abs=1e-12), (where, spec, qid)
            else:  # no relevant document in the top k, or no non-relevant one
                assert np.isnan(value), (where, spec, qid)


# --------------------------------------------------------------------------- real runs
def test_cranfield_equals_ir_measures(cranfield):
    """The title-only BM25 run: 225 queries, 8,618 of its 22,500 rows share a score with the
    row before (one system, each measure once: cwl_eval's time)."""
    runs, qrels = cranfield
    run = runs[runs["system"] == "bm25_title"][["qid", "docid", "score"]]
    assert run.duplicated(["qid", "score"]).sum() > 8000
    _check_against_ir_measures(run, qrels, CWL_EACH, "bm25_title")


WEB = DATA / "trec_web_2012"


@pytest.fixture(scope="module")
def web_qrels():
    return ta.read_qrels(need(WEB / "qrels.adhoc.txt.gz"))  # grades −2 … 4


@pytest.mark.parametrize("name", ["ql-cata", "rm-catb"])
def test_web_track_equals_ir_measures(web_qrels, name):
    """50 topics × 1,000 ClueWeb09 documents; 3,741 (ql-cata) and 1,220 (rm-catb) rows share
    a score with the row before: the run's own order breaks those ties, as ir_measures'.
    Every measure and variant on ql-cata; on rm-catb (whose top 10 is all relevant for some
    topics, where ir_measures' Accuracy@10 divides by zero) Accuracy and a few."""
    run = ta.read_run(need(WEB / f"{name}.run.gz"))
    assert run.duplicated(["qid", "score"]).sum() > 1000
    specs = CWL if name == "ql-cata" else CWL_EACH[::3]
    _check_against_ir_measures(run, web_qrels, specs, name)


def test_web_track_polars_and_lazy_equal_pandas(web_qrels):
    run = ta.read_run(need(WEB / "rm-catb.run.gz"))
    specs = ["INST(T=1.0,max_rel=4)", "BPM(T=2.5,max_rel=4)@1000", "NERR9(max_rel=4)@20",
             "Accuracy@10"]
    want = run.ir.evaluate(web_qrels, specs, ties="first", undefined="nan")
    prun, pqrels = pl.from_pandas(run), pl.from_pandas(web_qrels)
    for frame in (prun, prun.lazy()):
        got = frame.ir.evaluate(pqrels, specs, ties="first", undefined="nan")
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        got = got.to_pandas().set_index("qid")
        for spec in specs:
            np.testing.assert_array_equal(got[spec].to_numpy(), want[spec].to_numpy())


def test_ir_measures_test_files_expected_values():
    """cwl_eval's values that ir_measures' own tests assert (4 decimals), on its graded
    three-query files."""
    run = ta.read_run(need(DATA / "ir_measures" / "cwl.run"))
    qrels = ta.read_qrels(need(DATA / "ir_measures" / "cwl.qrels"))
    rows = [line.rstrip("\n").split("\t") for line in
            need(DATA / "ir_measures" / "expected_from_tests.tsv").read_text().splitlines()
            if line.startswith("cwl\t")]
    specs = sorted({m for _, m, _, _ in rows if m.split("(")[0].split("@")[0] in
                    ("BPM", "INSQ", "INST", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11")})
    assert len(specs) == 11
    got = run.ir.evaluate(qrels, specs, ties="first")
    for _, spec, qid, value in rows:
        if spec in specs:
            assert got.loc[qid, spec] == pytest.approx(float(value), abs=5e-5), (spec, qid)


def test_command_line_takes_parameter_lists_in_parentheses(capsys):
    """-m splits at commas, but not inside parentheses (nor in trec_eval's P.5,10): cwl_eval's
    values that ir_measures' tests assert (4 decimals), per query."""
    from trunc_accessor.frontends.cli.trec_eval import main

    files = [str(need(DATA / "ir_measures" / f)) for f in ("cwl.qrels", "cwl.run")]
    assert main(["-q", "--ties", "first", "-m", "INST(T=2.0, max_rel=1),NERR9(max_rel=1)@10",
                 "-m", "map,P.5,10", *files]) == 0
    printed = {}
    for line in capsys.readouterr().out.splitlines():
        label, qid, value = line.split("\t")
        printed[(label.strip(), qid)] = value
    want = {("INST(T=2.0, max_rel=1)", q): v for q, v in
            (("T1", "0.5994"), ("T2", "0.6924"), ("T3", "0.1397"))}
    want |= {("NERR9(max_rel=1)@10", q): v for q, v in
             (("T1", "1.0000"), ("T2", "1.0000"), ("T3", "0.0680"))}
    want |= {("map", "T1"): "0.7087", ("P_5", "T3"): "0.0000", ("P_10", "T2"): "0.6000"}
    for key, value in want.items():
        assert printed[key] == value, key


# --------------------------------------------------------------------------- names
def test_ir_measures_names_and_objects_parse_to_ours():
    cases = {"INST(T=1.0, max_rel=1)": "inst(max_grade=1)",
             "INSQ(T=2.0,max_rel=3)": "insq(T=2,max_grade=3)",
             "BPM(T=1.0, max_rel=1)@20": "bpm@20(max_grade=1)",
             "SDCG(dcg='log2',max_rel=4)@10": "sdcg@10(max_grade=4)",
             "NERR8(min_rel=1,max_rel=3)@5": "nerr8@5(min_grade=1,max_grade=3)",
             "NERR9(max_rel=1)@10": "nerr9@10(max_grade=1)",
             "NERR10(p=0.8, max_rel=1)": "nerr10(p=0.8,max_grade=1)",
             "NERR11(T=2.0, max_rel=1)": "nerr11(T=2,max_grade=1)",
             "Accuracy(rel=2)@20": "accuracy@20(rel=2)", "Accuracy": "accuracy",
             irm.INST(T=2.0, max_rel=3): "inst(T=2,max_grade=3)",
             irm.NERR8(max_rel=1) @ 10: "nerr8@10(max_grade=1)",
             "inst(T=2)": "inst(T=2)", "bpm(T=2)@10": "bpm@10(T=2)"}
    for spec, label in cases.items():
        (named,) = parse_named(spec)
        assert named.measure.label == label, spec
    with pytest.raises(ParameterError, match="NERR10 takes no @ cut-off"):
        parse_named("NERR10@10")  # NERR10 takes no cut-off in ir_measures
    # a grade above max_rel: ir_measures clips it (with a logged warning); here, as for every
    # metric with a grade scale, the scale's top must hold every grade
    qrels = pd.DataFrame({"qid": ["q"], "docid": ["a"], "rel": [3]})
    run = pd.DataFrame({"qid": ["q"], "docid": ["a"], "score": [1.0]})
    with pytest.raises(ParameterError, match="max_grade=1 is below the largest grade"):
        run.ir.evaluate(qrels, ["INST(T=1.0,max_rel=1)"])


# --------------------------------------------------------------------------- cwl_eval directly
def _cwl(metric, gains, depth):
    return metric.measure(Ranking("q", [float(g) for g in gains], [math.nan] * len(gains),
                                  max_n=depth))


def _gains(grades, lo, hi):
    """ir_measures' gains for cwl_eval: negative → 0, clipped to [lo, hi], scaled; unjudged 0."""
    return [0.0 if g is None else (min(max(max(g, 0), lo), hi) - lo) / (hi - lo)
            for g in grades]


def _pairs(T, k, p):
    """(our function, its parameters, the cwl_eval metric) for every measure."""
    return [(single.inst, {"T": T}, INSTCWLMetric(T)), (single.insq, {"T": T}, INSQCWLMetric(T)),
            (single.bpm, {"T": T, "k": k}, BPMCWLMetric(T, k)),
            (single.sdcg, {"k": k}, NDCGCWLMetric(k)),
            (single.nerr8, {"k": k}, NERReq8CWLMetric(k)),
            (single.nerr9, {"k": k}, NERReq9CWLMetric(k)),
            (single.nerr10, {"p": p}, NERReq10CWLMetric(p)),
            (single.nerr11, {"T": T}, NERReq11CWLMetric(T))]


GRADES = st.lists(st.sampled_from([None, -2, 0, 0, 1, 2, 3, 4]), max_size=14)


@settings(max_examples=40, deadline=None)
@given(grades=GRADES, T=st.sampled_from([0.25, 0.5, 1.0, 2.5]), k=st.integers(1, 16),
       p=st.sampled_from([0.3, 0.8, 0.95]), depth=st.sampled_from([1, 2, 5, 12, 1000]),
       lo=st.sampled_from([0, 1]), hi=st.sampled_from([4, 6]))
def test_random_rankings_equal_cwl_eval(grades, T, k, p, depth, lo, hi):
    """Every measure on a ranking with every kind of grade, at list depths shorter and
    longer than the ranking, equals cwl_eval's metric class on ir_measures' gains."""
    gains = _gains(grades, lo, hi)
    for fn, params, metric in _pairs(T, k, p):
        got = fn(grades, ties="first", min_grade=lo, max_grade=hi, depth=depth, **params)
        assert got == pytest.approx(_cwl(metric, gains, depth), abs=1e-12), (fn.__name__,
                                                                             params)


@pytest.mark.parametrize("grades", [[], [0, 3, 1], [4, 4, 4], [1, 0, 0, 2, None, 3] * 7])
def test_long_lists_equal_cwl_eval(grades):
    """Depth 3,000 (past the default 1,000, the closed-form tails over 3,000 − n positions)."""
    for fn, params, metric in _pairs(0.7, 2500, 0.99):
        got = fn(grades, ties="first", max_grade=4, depth=3000, **params)
        assert got == pytest.approx(_cwl(metric, _gains(grades, 0, 4), 3000), abs=1e-11)


def test_special_functions_equal_scipy():
    special = pytest.importorskip("scipy.special")
    x = np.concatenate([np.geomspace(1e-3, 1e9, 200), [0.5, 1, 2, 9.999, 10, 10.001]])
    np.testing.assert_allclose(cwl_tails.trigamma(x), special.polygamma(1, x), rtol=1e-14)
    np.testing.assert_allclose(cwl_tails.digamma(x), special.digamma(x), rtol=1e-14,
                               atol=1e-14)


def test_padding_sum_equals_direct_sums_and_scipy():
    """P(a, L) = Σ_{m<L} (a/(a + m))²: a direct sum for L ≤ 5,000 and a²(ψ'(a) − ψ'(a + L))
    by SciPy where that difference does not cancel; for a huge a it tends to L."""
    special = pytest.importorskip("scipy.special")
    for a in (1e-3, 0.4, 1.0, 7.5, 15.9, 16.0, 40.0, 2e3, 1e6):
        for L in (0, 1, 2, 17, 999, 5000):
            direct = float(np.sum((a / (a + np.arange(L))) ** 2))
            assert cwl_tails.padding_sum([a], L)[0] == pytest.approx(direct, rel=1e-13), (a, L)
        want = a * a * special.polygamma(1, a)
        assert cwl_tails.padding_sum([a], np.inf)[0] == pytest.approx(want, rel=1e-12), a
    assert cwl_tails.padding_sum([2e300], 1000)[0] == pytest.approx(1000.0)
    assert single.insq([4, 0], T=1e300, max_grade=4) == pytest.approx(1e-3)


def test_endless_list_limits():
    """depth=None is the limit of the finite lists: INSQ's normaliser is (2T)² ψ'(2T), NERR10's
    tail the geometric series, SDCG's normaliser past 2^22 terms (Euler–Maclaurin) the
    direct sum."""
    special = pytest.importorskip("scipy.special")
    T = 0.8
    w1 = 1.0 / ((2 * T) ** 2 * special.polygamma(1, 2 * T))  # the weight of position 1
    assert single.insq([4], T=T, max_grade=4, depth=None) == pytest.approx(w1, rel=1e-13)
    # NERR10 on [0.5]: E = 1, p/2, p²/2, … : 0.5 / (1 + (p/2)/(1 − p))
    assert single.nerr10([2], p=0.9, max_grade=4, depth=None) == pytest.approx(
        0.5 / (1 + 0.45 / 0.1), rel=1e-13)
    # INST without end: the finite values approach it
    ranking = [1, 0, 4, 2]
    limit = single.inst(ranking, max_grade=4, depth=None)
    far = [single.inst(ranking, max_grade=4, depth=d) for d in (10 ** 4, 10 ** 6, 10 ** 8)]
    assert all(a > b for a, b in itertools.pairwise(far + [limit]))
    assert far[-1] - limit < 1e-7
    # NERR8/NERR9/SDCG/BPM without k nor depth: the limit 0, unless a gain of 1 stops the user
    assert single.nerr8([1, 2], max_grade=4, depth=None) == 0.0
    assert single.nerr8([1, 4, 2], max_grade=4, depth=None) == pytest.approx(
        (0.25 + 0.75) / (1 + 0.75))  # g = 1/4, 1, 1/2: E = 1, 3/4, then 0
    m = (1 << 22) + 654321
    direct = float(np.sum(1.0 / np.log2(np.arange(2, m + 2, dtype=np.float64))))
    assert cwl_tails.sdcg_normaliser(m) == pytest.approx(direct, rel=1e-13)


# --------------------------------------------------------------------------- ties
def _orders(scores):
    """Every order of the positions that keeps score groups in place (scores descending)."""
    groups = [list(g) for _, g in itertools.groupby(range(len(scores)), key=lambda i: scores[i])]
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in combo for i in part]


TIED = st.lists(st.tuples(st.sampled_from([None, 0, 0, 1, 2, 3]), st.integers(0, 2)),
                max_size=6).map(lambda rows: sorted(rows, key=lambda r: -r[1]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=TIED, T=st.sampled_from([0.4, 1.0, 2.0]), k=st.integers(1, 8),
       depth=st.sampled_from([2, 4, 9]))
@example(rows=[(1, 0), (2, 0), (3, 0)], T=2.0, k=4, depth=4)  # gains sum to T exactly
def test_tie_average_equals_brute_force(rows, T, k, depth):
    """ties="average" equals the mean of cwl_eval's values over every order of the tied
    documents wherever it gives a value; INSQ and SDCG always do (fixed weights); the others
    refuse only a tie that mixes gains. Where some order's running gain lands within 1e-9 of
    BPM's T (e.g. gains 1/3, 2/3, 1 and T = 2), cwl_eval's float sums reach T in some orders
    and not in others, so its mean over the orders is one of rounding: BPM is not compared
    there (the exact sums reach T in every order, which is our value)."""
    grades = [g for g, _ in rows]
    scores = [float(s) for _, s in rows]
    gains = _gains(grades, 0, 3)
    orders = list(_orders(scores))
    assume(len(orders) <= 24)  # cwl_eval's time: groups of up to four documents
    at_T = any(abs(total - T) < 1e-9 for o in orders
               for total in itertools.accumulate(max(gains[i], 0.0) for i in o))
    for fn, params, metric in _pairs(T, k, 0.7):
        if fn.__name__ == "bpm" and at_T:
            continue
        want = np.mean([_cwl(metric, [gains[i] for i in o], depth) for o in orders])
        try:
            got = fn(grades, scores=scores, max_grade=3, depth=depth, **params)
        except ParameterError as e:
            assert fn.__name__ not in ("insq", "sdcg"), e
            assert "ties documents of different grades" in str(e)
            continue
        assert got == pytest.approx(want, abs=1e-12), (fn.__name__, params)


def test_tie_refusal_names_the_query_and_spares_harmless_ties():
    run = pd.DataFrame({"qid": ["q7"] * 4 + ["q8"] * 3, "docid": list("abcdefg"),
                        "score": [3.0, 2.0, 2.0, 1.0, 5.0, 5.0, 5.0]})
    qrels = pd.DataFrame({"qid": ["q7", "q7", "q8", "q8"], "docid": ["b", "c", "e", "g"],
                          "rel": [2, 0, 1, 1]})
    for spec in ["INST(T=1.0,max_rel=2)", "NERR10(p=0.8,max_rel=2)", "nerr8@3", "bpm(T=1)@3"]:
        with pytest.raises(ValueError, match="qid='q7'.*ties='first'"):
            run.ir.evaluate(qrels, [spec])
    # q8 alone: its tie holds e, g (gain 1/2) and the unjudged f (gain 0): mixed, refused;
    # with f judged 1 as well the tie is harmless and scores as cwl_eval
    q8 = run[run.qid == "q8"]
    with pytest.raises(ValueError, match="qid='q8'"):
        q8.ir.inst(qrels, max_grade=2)
    full = pd.concat([qrels, pd.DataFrame({"qid": ["q8"], "docid": ["f"], "rel": [1]})])
    got = q8.ir.inst(full, max_grade=2).loc["q8"]
    assert got == pytest.approx(_cwl(INSTCWLMetric(1.0), [0.5] * 3, 1000), abs=1e-12)
    # a tie beyond the stopping position cannot matter: with a graded 2 (gain 1 = T) BPM
    # stops at a, NERR8 never reads on
    stop = pd.concat([qrels, pd.DataFrame({"qid": ["q7"], "docid": ["a"], "rel": [2]})])
    q7 = run[run.qid == "q7"]
    assert q7.ir.bpm(stop, T=1.0, k=3).iloc[0] == 1.0
    assert q7.ir.nerr8(stop, k=3).iloc[0] == 1.0


@settings(max_examples=40, deadline=None)
@given(rows=TIED, k=st.one_of(st.none(), st.integers(1, 7)), level=st.sampled_from([1, 2]))
def test_accuracy_tie_average_equals_brute_force_over_ir_measures(rows, k, level):
    """Accuracy@k under ties="average" is the mean of ir_measures' Accuracy over the orders
    of the tie groups (each order given to it as distinct scores); the orders in which it is
    undefined leave the value undefined when all are, and are refused when only some are."""
    grades = [g for g, _ in rows]
    scores = [float(s) for _, s in rows]
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades) if g is not None}}
    if not qrels["q"]:
        return  # ir_measures scores no query without judgments
    measure = irm.parse_measure(f"Accuracy(rel={level})" + (f"@{k}" if k else ""))
    values = []
    for o in _orders(scores):
        run = {"q": {f"d{i}": float(len(o) - j) for j, i in enumerate(o)}}
        try:
            found = [m.value for m in irm.iter_calc([measure], qrels, run)]
        except ZeroDivisionError:  # no non-relevant document in the top k
            found = []
        values.append(found[0] if found else math.nan)
    try:
        got = single.accuracy(grades, scores=scores, k=k, relevance_level=level,
                              qrels_grades=list(qrels["q"].values()), undefined="nan")
    except ParameterError as e:
        assert any(np.isnan(values)) and not all(np.isnan(values)), e
        return
    if all(np.isnan(values)):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(np.mean(values), abs=1e-12)
    first = single.accuracy(grades, scores=scores, k=k, relevance_level=level,
                            qrels_grades=list(qrels["q"].values()), undefined="nan",
                            ties="first")
    assert first == pytest.approx(values[0], abs=1e-12, nan_ok=True)


def test_gains_scale_and_empty_ranking():
    """min_grade/max_grade set the scale; negative grades and unjudged gain 0; an empty
    ranking scores 0; max_grade ≤ min_grade is refused."""
    assert single.sdcg([3, -2, None], k=1, min_grade=1, max_grade=5) == pytest.approx(0.5)
    assert single.inst([], max_grade=3) == 0.0
    assert single.accuracy([], undefined="nan") != single.accuracy([], undefined="nan")
    with pytest.raises(ParameterError, match="max_grade=1 must exceed min_grade=2"):
        single.insq([1], min_grade=2, max_grade=1)
    # INST's T below 1/4 lets C_i = ((a − 1)/a)² exceed 1 (a = 2T after a full gain at 1)
    with pytest.raises(ParameterError, match="T must be a finite number ≥ 1/4"):
        single.inst([1], T=0.2)
    assert single.insq([1], T=0.2) > 0  # INSQ's C_i stay below 1 for every T > 0
