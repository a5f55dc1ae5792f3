"""Fusion: ranx 0.3.21's own unit tests (tests/unit/ranx/fusion/ and normalization/ of
github:AmenRa/ranx), translated with their expected values; brute force over every order
of tied documents for ``ties="average"``; the choices ranx leaves open."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from trunc_accessor import InputError, ParameterError


def long(*runs: dict, names=None) -> pl.DataFrame:
    """ranx-style runs ({qid: {docid: score}}) as one long Polars frame."""
    rows = []
    for i, run in enumerate(runs):
        for q, docs in run.items():
            for d, s in docs.items():
                rows.append(((names or [f"run_{j + 1}" for j in range(len(runs))])[i], q, d,
                             float(s)))
    return pl.DataFrame(rows, schema=["system", "qid", "docid", "score"], orient="row")


def as_dict(fused) -> dict:
    if isinstance(fused, pd.DataFrame):
        fused = pl.from_pandas(fused)
    out: dict = {}
    for q, d, s in fused.select("qid", "docid", "score").iter_rows():
        out.setdefault(q, {})[d] = s
    return out


# ranx's fixtures: run_1, run_2, run_3 of tests/unit/ranx/fusion/*_test.py
RUN_1 = {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}}
RUN_2 = {"q1": {"d1": 3, "d2": 2}, "q2": {"d1": 1, "d3": 3}}
RUN_3 = {"q1": {"d3": 1}, "q2": {"d2": 2, "d3": 3}}
RUNS = long(RUN_1, RUN_2, RUN_3)
# the same runs as ranx takes them, in a given order (a list of weights follows it)
RUN_MAP = {f"run_{i + 1}": long(r).drop("system") for i, r in enumerate([RUN_1, RUN_2, RUN_3])}


def fused(method, norm=None, **params) -> dict:
    ordered = any(isinstance(v, list) for v in params.values())
    return as_dict(ta.fuse(RUN_MAP if ordered else RUNS, method, norm, **params))


def test_comb_methods_ranx_fixtures():
    assert fused("comb_sum") == {"q1": {"d1": 4, "d2": 4, "d3": 4},
                                 "q2": {"d1": 2, "d2": 4, "d3": 6}}
    assert fused("mnz") == {"q1": {"d1": 8, "d2": 8, "d3": 8}, "q2": {"d1": 4, "d2": 8, "d3": 12}}
    assert fused("anz") == {"q1": {"d1": 2, "d2": 2, "d3": 2}, "q2": {"d1": 1, "d2": 2, "d3": 3}}
    assert fused("max") == {"q1": {"d1": 3, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2, "d3": 3}}
    assert fused("min") == {"q1": {"d1": 1, "d2": 2, "d3": 1}, "q2": {"d1": 1, "d2": 2, "d3": 3}}
    assert fused("med") == {"q1": {"d1": 2, "d2": 2, "d3": 2}, "q2": {"d1": 1, "d2": 2, "d3": 3}}
    # comb_gmnz_test: γ = 1 is CombMNZ, γ = 0 CombSUM
    assert fused("gmnz", gamma=1.0) == fused("mnz")
    assert fused("gmnz", gamma=0.0) == fused("sum")


def test_weighted_ranx_fixtures():
    w = [0.3, 0.2, 0.5]
    got = fused("wsum", weights=w)
    assert got["q1"] == {"d1": w[0] * 1 + w[1] * 3, "d2": w[0] * 2 + w[1] * 2,
                         "d3": w[0] * 3 + w[2] * 1}
    assert got["q2"] == {"d1": w[0] * 1 + w[1] * 1, "d2": w[0] * 2 + w[2] * 2,
                         "d3": w[1] * 3 + w[2] * 3}
    assert fused("wmnz", weights=[1, 1, 1]) == fused("mnz")
    got = fused("wmnz", weights=w)
    assert got["q1"]["d1"] == (1 + 3) * (w[0] + w[1])
    assert got["q2"]["d3"] == (3 + 3) * (w[1] + w[2])
    got = fused("mixed", weights=[1, 1, 1])
    assert got["q1"]["d3"] == (3 + 1) * np.sqrt(2) and got["q2"]["d2"] == (2 + 2) * np.sqrt(2)
    got = fused("mixed", weights=w)
    assert got["q1"]["d1"] == (w[0] * 1 + w[1] * 3) * np.sqrt(2)
    assert got["q2"]["d3"] == (w[1] * 3 + w[2] * 3) * np.sqrt(2)
    # a mapping of weights names the runs; a list follows the order of a mapping of runs
    assert as_dict(ta.fuse(RUNS, "wsum", None, weights={"run_3": 0.5, "run_1": 0.3,
                                                        "run_2": 0.2})) == fused("wsum", weights=w)


def test_rank_methods_ranx_fixtures():
    got = fused("rrf")
    assert got["q1"] == {"d1": 1 / 63 + 1 / 61, "d2": 1 / 62 + 1 / 62, "d3": 1 / 61 + 1 / 61}
    assert got["q2"] == {"d1": 1 / 62 + 1 / 62, "d2": 1 / 61 + 1 / 62, "d3": 1 / 61 + 1 / 61}
    got = fused("isr")
    assert got["q1"] == {"d1": (1 / 9 + 1) * 2, "d2": (1 / 4 + 1 / 4) * 2, "d3": (1 + 1) * 2}
    assert got["q2"] == {"d1": (1 / 4 + 1 / 4) * 2, "d2": (1 + 1 / 4) * 2, "d3": (1 + 1) * 2}
    got = fused("log_isr")
    assert got["q1"]["d1"] == (1 / 9 + 1) * np.log(2) and got["q2"]["d2"] == (1 + 1 / 4) * np.log(2)
    got = fused("logn_isr", sigma=0.1)
    assert got["q1"]["d1"] == (1 / 9 + 1) * np.log(2.1) and got["q2"]["d3"] == 2 * np.log(2.1)
    got = fused("bordafuse")
    assert got == {"q1": {"d1": 1 + 3 + 1.5, "d2": 2 + 2 + 1.5, "d3": 3 + 1 + 3},
                   "q2": {"d1": 2 + 2 + 1, "d2": 3 + 1 + 2, "d3": 1 + 3 + 3}}
    assert fused("w_bordafuse", weights=[1, 1, 1]) == got
    got = fused("w_bordafuse", weights=[3, 2, 1])
    assert got == {"q1": {"d1": 3 * 1 + 2 * 3 + 1.5, "d2": 3 * 2 + 2 * 2 + 1.5,
                          "d3": 3 * 3 + 2 * 1 + 3},
                   "q2": {"d1": 3 * 2 + 2 * 2 + 1, "d2": 3 * 3 + 2 * 1 + 2,
                          "d3": 3 * 1 + 2 * 3 + 3}}


def test_borda_no_result_query():
    """bordafuse_test's runs 4–6: q2 has no document in any run, so no fused ranking."""
    runs = long({"q1": {"d1": 1, "d2": 2, "d3": 3}}, {"q1": {"d1": 3, "d2": 2}}, {"q1": {"d3": 1}})
    assert as_dict(ta.fuse(runs, "bordafuse", None)) == {
        "q1": {"d1": 1 + 3 + 1.5, "d2": 2 + 2 + 1.5, "d3": 3 + 1 + 3}}


def test_condorcet_ranx_fixtures():
    runs = long(RUN_1, {"q1": {"d1": 2, "d2": 3}, "q2": {"d1": 1, "d3": 3}},
                {"q1": {"d3": 3}, "q2": {"d2": 2, "d3": 3}})
    expected = {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2, "d3": 3}}
    assert as_dict(ta.fuse(runs, "condorcet", None)) == expected
    names = ["run_1", "run_2", "run_3"]
    assert as_dict(ta.fuse(runs, "w_condorcet", None,
                           weights=dict(zip(names, [1, 1, 1])))) == expected
    assert as_dict(ta.fuse(runs, "w_condorcet", None, weights=dict(zip(names, [1, 5, 2])))) == {
        "q1": {"d1": 2, "d2": 3, "d3": 1}, "q2": {"d1": 2, "d2": 1, "d3": 3}}


def test_rbc_ranx_fixture():
    runs = long({"q1": {"A": 7, "D": 6, "B": 5, "C": 4, "G": 3, "F": 2}},
                {"q1": {"B": 7, "D": 6, "E": 5, "C": 4}},
                {"q1": {"A": 7, "B": 6, "D": 5, "C": 4, "G": 3, "F": 2, "E": 1}},
                {"q1": {"G": 7, "D": 6, "E": 5, "A": 4, "F": 3, "C": 2}})
    for phi, order, values in ((0.6, "ADBGECF", [.89, .86, .78, .50, .31, .29, .11]),
                               (0.8, "DABCGEF", [.61, .50, .49, .37, .36, .31, .21]),
                               (0.9, "DCABGEF", [.35, .28, .27, .27, .23, .22, .18])):
        got = as_dict(ta.fuse(runs, "rbc", None, phi=phi))["q1"]
        assert {d: round(s, 2) for d, s in got.items()} == dict(zip(order, values))


QRELS_D1 = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["d1", "d1"], "rel": [1, 1]})


def test_trained_ranx_fixtures():
    probs = ta.fit_fusion(RUNS, QRELS_D1, "posfuse", None).params["probs"]
    assert [probs[r].tolist() for r in ("run_1", "run_2", "run_3")] == [[0, 1 / 2, 1],
                                                                         [1 / 2, 1 / 2], [0, 0]]
    model = ta.fit_fusion(RUNS, QRELS_D1, "posfuse", None)
    p = [probs[r] for r in ("run_1", "run_2", "run_3")]
    assert as_dict(model.apply(RUNS)) == {
        "q1": {"d1": p[0][2] + p[1][0], "d2": p[0][1] + p[1][1], "d3": p[0][0] + p[2][0]},
        "q2": {"d1": p[0][1] + p[1][1], "d2": p[0][0] + p[2][1], "d3": p[1][0] + p[2][0]}}
    model = ta.fit_fusion(RUNS, QRELS_D1, "probfuse", None, n_segments=2)
    p = [model.params["probs"][r] for r in ("run_1", "run_2", "run_3")]
    assert [x.tolist() for x in p] == [[0.0, 1.0], [0.5, 0.5], [0, 0]]
    assert as_dict(model.apply(RUNS)) == {
        "q1": {"d1": p[0][1] / 2 + p[1][0], "d2": p[0][0] + p[1][1] / 2, "d3": p[0][0] + p[2][0]},
        "q2": {"d1": p[0][1] / 2 + p[1][1] / 2, "d2": p[0][0] + p[2][1] / 2,
               "d3": p[1][0] + p[2][0]}}
    model = ta.fit_fusion(RUNS, QRELS_D1, "segfuse", None)
    p = [model.params["probs"][r] for r in ("run_1", "run_2", "run_3")]
    assert [x.tolist() for x in p] == [[0.2] + [0] * 9, [0.2] + [0] * 9, [0] * 10]
    got = as_dict(model.apply(RUNS))
    assert got["q1"]["d1"] == p[0][0] * (1 + 1) + p[1][0] * (1 + 3)
    assert got["q2"]["d3"] == p[1][0] * (1 + 3) + p[2][0] * (1 + 3)
    model = ta.fit_fusion(RUNS, QRELS_D1, "slidefuse", None, w=1)
    p = [model.params["probs"][r] for r in ("run_1", "run_2", "run_3")]
    assert [x.tolist() for x in p] == [[0, 1 / 2, 1], [1 / 2, 1 / 2], [0, 0]]
    assert as_dict(model.apply(RUNS)) == {
        "q1": {"d1": sum(p[0][1:3]) / 2 + sum(p[1]) / 2, "d2": sum(p[0]) / 3 + sum(p[1]) / 2,
               "d3": sum(p[0][:2]) / 2 + sum(p[2]) / 2},
        "q2": {"d1": sum(p[0][:2]) / 2 + sum(p[1]) / 2, "d2": sum(p[0][:2]) / 2 + sum(p[2]) / 2,
               "d3": sum(p[1]) / 2 + sum(p[2]) / 2}}
    got = as_dict(ta.fuse(RUNS, "slidefuse", None, w=2, probs=model.params["probs"]))
    assert got["q1"]["d1"] == sum(p[0]) / 3 + sum(p[1]) / 2
    # mapfuse_test: MAP of each run (AP by hand: run_1 1/3 and 1/2, run_2 1 and 1/2, run_3 0)
    model = ta.fit_fusion(RUNS, QRELS_D1, "mapfuse", None)
    m = [model.params["map_scores"][r] for r in ("run_1", "run_2", "run_3")]
    assert m == pytest.approx([(1 / 3 + 1 / 2) / 2, (1 + 1 / 2) / 2, 0], abs=1e-15)
    assert as_dict(model.apply(RUNS)) == {
        "q1": {"d1": m[0] / 3 + m[1] / 1, "d2": m[0] / 2 + m[1] / 2, "d3": m[0] / 1 + m[2] / 1},
        "q2": {"d1": m[0] / 2 + m[1] / 2, "d2": m[0] / 1 + m[2] / 2, "d3": m[1] / 1 + m[2] / 1}}


def test_bayesfuse_ranx_fixture():
    order1 = [f"d{i}" for i in range(1, 11)]
    run_1 = {q: {d: 10 - i for i, d in enumerate(order1)} for q in ("q1", "q2", "q3")}
    orders2 = {"q1": ["d1", "d2", "d8", "d9", "d10", "d3", "d4", "d5", "d6", "d7"],
               "q2": ["d2", "d4", "d7", "d1", "d3", "d5", "d6", "d8", "d9", "d10"],
               "q3": order1}
    run_2 = {q: {d: 10 - i for i, d in enumerate(o)} for q, o in orders2.items()}
    qrels = pl.DataFrame(
        [(q, d, 1) for q, ds in (("q1", [1, 2, 8, 9, 10]), ("q2", [2, 4, 7]),
                                 ("q3", [1, 3, 4, 5, 6, 8, 9])) for d in (f"d{i}" for i in ds)],
        schema=["qid", "docid", "rel"], orient="row")
    runs = long(run_1, run_2)
    model = ta.fit_fusion(runs, qrels, "bayesfuse", None)
    lo = [model.params["log_odds"][r] for r in ("run_1", "run_2")]
    for odds, first, second in ((lo[0], 8 / 15, 7 / 15), (lo[1], 12 / 15, 3 / 15)):
        assert odds[:5] == pytest.approx([np.log(first / (1 - first))] * 5, abs=1e-14)
        assert odds[5:10] == pytest.approx([np.log(second / (1 - second))] * 5, abs=1e-14)
        assert (odds[10:] < 0).all() and len(odds) == 1000
    got = as_dict(model.apply(runs))
    pos2 = {q: {d: i for i, d in enumerate(o)} for q, o in orders2.items()}
    for q in ("q1", "q2", "q3"):
        for i, d in enumerate(order1):
            assert got[q][d] == pytest.approx(lo[0][i] + lo[1][pos2[q][d]], abs=1e-14)


NORM_RUN = long({"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}})


def normed(norm):
    return as_dict(ta.fusion.normalize(NORM_RUN, norm))


def test_normalisations_ranx_fixtures():
    before = NORM_RUN.clone()
    assert normed("max") == {"q1": {"d1": 1 / 3, "d2": 2 / 3, "d3": 1},
                             "q2": {"d1": 1 / 2, "d2": 1}}
    assert normed("min-max") == {"q1": {"d1": 0, "d2": 1 / 2, "d3": 1}, "q2": {"d1": 0, "d2": 1}}
    for name in ("min_max_inverted", "min-max-inverted"):
        assert normed(name) == {"q1": {"d1": 1, "d2": 1 / 2, "d3": 0}, "q2": {"d1": 1, "d2": 0}}
    assert normed("rank") == {"q1": {"d1": 1 - 2 / 3, "d2": 1 - 1 / 3, "d3": 1},
                              "q2": {"d1": 1 - 1 / 2, "d2": 1}}
    assert normed("sum") == {"q1": {"d1": 0, "d2": 1 / 3, "d3": 2 / 3}, "q2": {"d1": 0, "d2": 1}}
    z = normed("zmuv")
    assert z["q1"] == {"d1": -1 / 0.816496580927726, "d2": 0, "d3": 1 / 0.816496580927726}
    assert z["q2"] == {"d1": -0.5 / 0.5, "d2": 0.5 / 0.5}
    assert NORM_RUN.equals(before)  # the user's frame is not modified


def test_borda_norm_ranx_fixture():
    got = ta.fusion.normalize(RUNS, "borda")
    by_run = {r: as_dict(got.filter(pl.col("system") == r)) for r in ("run_1", "run_2", "run_3")}
    expected = {"run_1": {"q1": [1, 2, 3], "q2": [2, 3, 1]}, "run_2": {"q1": [3, 2, 1],
                "q2": [2, 1, 3]}, "run_3": {"q1": [1.5, 1.5, 3], "q2": [1, 2, 3]}}
    for r, per_q in expected.items():
        for q, points in per_q.items():
            assert [by_run[r][q][d] for d in ("d1", "d2", "d3")] == pytest.approx(
                [x / 3 for x in points], abs=1e-15)


# --------------------------------------------------------------------------- ties
def _brute(runs: list[list[tuple[str, float]]], value, combine="sum") -> dict:
    """The mean fused score over every order of every run's tied documents: each run's
    ranking is one of the orders of its tie groups (score descending), all equally likely."""
    per_run_orders = []
    for run in runs:
        groups = [list(g) for _, g in itertools.groupby(sorted(run, key=lambda x: -x[1]),
                                                         key=lambda x: x[1])]
        orders = [list(itertools.chain.from_iterable(combo)) for combo in
                  itertools.product(*[itertools.permutations(g) for g in groups])]
        per_run_orders.append(orders)
    total: dict = {}
    n = 0
    for combo in itertools.product(*per_run_orders):
        n += 1
        scores: dict = {}
        count: dict = {}
        for ranking in combo:
            for i, (d, _) in enumerate(ranking, start=1):
                scores[d] = scores.get(d, 0.0) + value(i, len(ranking))
                count[d] = count.get(d, 0) + 1
        for d, s in scores.items():
            total[d] = total.get(d, 0.0) + (s * count[d] if combine == "mnz" else s)
    return {d: s / n for d, s in total.items()}


RUN = st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 2)), min_size=1,
               max_size=4, unique_by=lambda x: x[0])


@settings(max_examples=40, deadline=None)
@given(st.lists(RUN, min_size=2, max_size=3))
def test_tie_averaged_rrf_isr_rbc_equal_brute_force(runs):
    frame = long(*({"q": {d: s for d, s in run}} for run in runs))
    as_lists = [[(d, float(s)) for d, s in run] for run in runs]
    for method, params, value, combine in (
            ("rrf", {"k": 60}, lambda i, n: 1 / (60 + i), "sum"),
            ("rrf", {"k": 1}, lambda i, n: 1 / (1 + i), "sum"),
            ("isr", {}, lambda i, n: 1 / i ** 2, "mnz"),
            ("rbc", {"phi": 0.7}, lambda i, n: 0.3 * 0.7 ** (i - 1), "sum")):
        got = as_dict(ta.fuse(frame, method, None, ties="average", **params))["q"]
        expected = _brute(as_lists, value, combine)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # the rank normalisation then CombSUM: the mean of 1 − (i − 1)/n
    got = as_dict(ta.fuse(frame, "combsum", "rank", ties="average"))["q"]
    assert got == pytest.approx(_brute(as_lists, lambda i, n: 1 - (i - 1) / n), rel=1e-12)


def test_ties_first_and_trec_eval_orders():
    runs = long({"q": {"a": 1, "b": 1, "c": 0}}, {"q": {"c": 2, "b": 1}})
    # first: the input order (a before b); trec_eval: docid descending (b before a)
    first = as_dict(ta.fuse(runs, "rrf", None, ties="first", k=0))["q"]
    assert first == {"a": 1, "b": 1 / 2 + 1 / 2, "c": 1 / 3 + 1}
    trec = as_dict(ta.fuse(runs, "rrf", None, ties="trec_eval", k=0))["q"]
    assert trec == {"a": 1 / 2, "b": 1 + 1 / 2, "c": 1 / 3 + 1}
    average = as_dict(ta.fuse(runs, "rrf", None, k=0))["q"]
    assert average == {"a": 0.75, "b": 0.75 + 0.5, "c": 1 / 3 + 1}
    # a rank column decides "first"
    ranked = runs.with_columns(pl.Series("rank", [2, 1, 3, 1, 2]))
    assert as_dict(ta.fuse(ranked, "rrf", None, ties="first", k=0))["q"] == {
        "a": 1 / 2, "b": 1 + 1 / 2, "c": 1 / 3 + 1}


def test_missing_min_default_minimum():
    """Ma et al. 2021's default minimum: a run's unretrieved document gets its lowest score."""
    runs = long({"q": {"a": 5.0, "b": 3.0}}, {"q": {"b": 4.0, "c": 1.0}})
    got = as_dict(ta.fuse(runs, "combsum", None, missing="min"))["q"]
    assert got == {"a": 5.0 + 1.0, "b": 7.0, "c": 3.0 + 1.0}
    got = as_dict(ta.fuse(runs, "combmnz", None, missing="min"))["q"]
    assert got == {"a": 12.0, "b": 14.0, "c": 8.0}
    got = as_dict(ta.fuse(runs, "rrf", None, missing="min", k=0))["q"]
    assert got == {"a": 1 + 1 / 2, "b": 1 / 2 + 1, "c": 1 / 2 + 1 / 2}
    with pytest.raises(ParameterError, match="missing='min' does not apply to condorcet"):
        ta.fuse(runs, "condorcet", missing="min")


def test_condorcet_copeland_when_majorities_cycle():
    # three runs in a Condorcet cycle a > b > c > a: every document wins once
    runs = long({"q": {"a": 3, "b": 2, "c": 1}}, {"q": {"b": 3, "c": 2, "a": 1}},
                {"q": {"c": 3, "a": 2, "b": 1}})
    assert as_dict(ta.fuse(runs, "condorcet"))["q"] == {"a": 2, "b": 2, "c": 2}
    # a tie inside a run splits that run's vote under ties="average"
    runs = long({"q": {"a": 1, "b": 1}}, {"q": {"a": 2, "b": 1}})
    assert as_dict(ta.fuse(runs, "condorcet"))["q"] == {"a": 2, "b": 1}
    assert as_dict(ta.fuse(runs, "condorcet", ties="trec_eval"))["q"] == {"a": 1.5, "b": 1.5}


# --------------------------------------------------------------------------- frames
def test_libraries_mapping_lazy_and_accessor():
    pandas_runs = RUNS.to_pandas()
    a = ta.fuse(RUNS, "rrf")
    b = ta.fuse(pandas_runs, "rrf")
    c = ta.fuse(RUNS.lazy(), "rrf")
    assert isinstance(b, pd.DataFrame) and isinstance(c, pl.LazyFrame)
    assert c.collect_schema()["rank"] == pl.Int64
    assert a.equals(pl.from_pandas(b)) and a.equals(c.collect())
    split = {n: pandas_runs[pandas_runs["system"] == n].drop(columns="system")
             for n in ("run_1", "run_2", "run_3")}
    assert pl.from_pandas(ta.fuse(split, "rrf")).equals(a)
    assert pl.from_pandas(pandas_runs.ir.fuse("rrf")).equals(a)
    assert RUNS.ir.fuse("rrf").equals(a) and RUNS.lazy().ir.fuse("rrf").collect().equals(a)
    assert a["rank"].to_list() == [1, 2, 3, 1, 2, 3]
    assert ta.fuse(RUNS, "rrf", depth=2).height == 4
    # the fused run evaluates as any run
    qrels = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["d3", "d2"], "rel": [1, 1]})
    assert a.ir.evaluate(qrels, ["rr"])["rr"].to_list() == [1.0, 0.5]


def test_integer_ids_and_mixed_types():
    runs = long({"1": {"10": 1.0, "9": 2.0}}, {"1": {"9": 1.0, "8": 0.5}})
    ints = runs.with_columns(pl.col("qid").cast(pl.Int64), pl.col("docid").cast(pl.Int64))
    got = ta.fuse(ints, "combsum")  # min-max: 9 scores 2, 10 and 8 score 0
    # equal fused scores by docid descending as strings, as trec_eval: "8" > "10"
    assert got.schema["docid"] == pl.Int64 and got["docid"].to_list() == [9, 8, 10]
    mixed = {"a": ints.filter(pl.col("system") == "run_1").drop("system"),
             "b": runs.filter(pl.col("system") == "run_2").drop("system")}
    assert ta.fuse(mixed, "combsum")["docid"].to_list() == ["9", "8", "10"]


def test_bad_input_names_what_is_wrong():
    with pytest.raises(InputError, match="at least two runs"):
        ta.fuse(RUNS.filter(pl.col("system") == "run_1"), "rrf")
    with pytest.raises(InputError, match="method= must be one of"):
        ta.fuse(RUNS, "nope")
    with pytest.raises(InputError, match="norm= must be one of"):
        ta.fuse(RUNS, "rrf", "minmaxx")
    with pytest.raises(ParameterError, match="rbc needs phi="):
        ta.fuse(RUNS, "rbc")
    with pytest.raises(ParameterError, match=r"rrf takes \['k'\], not \['phi'\]"):
        ta.fuse(RUNS, "rrf", phi=0.5)
    with pytest.raises(ParameterError, match="posfuse learns probs"):
        ta.fuse(RUNS, "posfuse")
    with pytest.raises(InputError, match=r"weights gives 2 values for 3 runs"):
        ta.fuse(RUN_MAP, "wsum", weights=[0.5, 0.5])
    with pytest.raises(InputError, match=r"unknown \['x'\]"):
        ta.fuse(RUNS, "wsum", weights={"x": 1, "run_1": 1, "run_2": 1})
    dup = pl.concat([RUNS, RUNS.head(1)])
    with pytest.raises(InputError, match="document 'd1' appears twice .*run_1.*q1"):
        ta.fuse(dup, "rrf")
    nan = RUNS.with_columns(pl.when(pl.col("docid") == "d2").then(float("nan"))
                            .otherwise(pl.col("score")).alias("score"))
    with pytest.raises(InputError, match="'score' is missing or NaN.* for .*'run_1'.*'d2'"):
        ta.fuse(nan, "rrf")
    inf = RUNS.with_columns(pl.when(pl.col("docid") == "d2").then(float("inf"))
                            .otherwise(pl.col("score")).alias("score"))
    with pytest.raises(InputError, match="needs finite scores"):
        ta.fuse(inf, "combsum", "min-max")
    assert ta.fuse(inf, "rrf", None).height == 6  # positions need no finite score
    with pytest.raises(InputError, match="ties= must be one of"):
        ta.fuse(RUNS, "rrf", ties="random")
    with pytest.raises(ta.InputTypeError, match="name them"):
        ta.fuse([RUNS, RUNS], "rrf")


def test_lazy_checks_at_call_time():
    with pytest.raises(ParameterError, match="rbc needs phi="):
        ta.fuse(RUNS.lazy(), "rbc")
    with pytest.raises(InputError, match="no 'score' column"):
        ta.fuse(RUNS.lazy().drop("score"), "rrf")


def test_fused_ranks_break_ties_by_docid_descending():
    runs = long({"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 2.0, "a": 1.0}})
    got = ta.fuse(runs, "rrf")
    assert got["docid"].to_list() == ["b", "a"] and got["rank"].to_list() == [1, 2]
    assert math.isclose(got["score"][0], got["score"][1])


def test_tie_averaged_training_equals_brute_force():
    """PosFuse's and ProbFuse's estimates under ties="average" are the mean of the estimate
    over every order of the runs' ties (they are linear in the hit lists)."""
    runs = long({"q1": {"a": 2, "b": 2, "c": 1, "d": 1}, "q2": {"a": 1, "b": 1, "e": 1}},
                {"q1": {"c": 3, "a": 2}, "q2": {"e": 5, "b": 5}})
    qrels = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["b", "c", "e"], "rel": [1, 2, 1]})
    relevant = {("q1", "b"), ("q1", "c"), ("q2", "e")}
    for method, fit in (("posfuse", {}), ("probfuse", {"n_segments": 2})):
        got = ta.fit_fusion(runs, qrels, method, None, **fit).params["probs"]
        for name in ("run_1", "run_2"):
            rankings = {q: sorted(((d, s) for d, s in docs.items()), key=lambda x: -x[1])
                        for q, docs in as_dict(runs.filter(pl.col("system") == name)).items()}
            per_q = []
            for q, ranking in rankings.items():
                groups = [list(g) for _, g in itertools.groupby(ranking, key=lambda x: x[1])]
                per_q.append([[int((q, d) in relevant) for d, _ in
                               itertools.chain.from_iterable(combo)] for combo in
                              itertools.product(*[itertools.permutations(g) for g in groups])])
            estimates = []
            for hits in itertools.product(*per_q):  # one order per query
                if method == "posfuse":
                    length = max(len(h) for h in hits)
                    estimates.append([np.mean([h[i] for h in hits if len(h) > i])
                                      for i in range(length)])
                else:
                    probs = np.zeros(2)
                    for h in hits:
                        size = math.ceil(len(h) / 2)
                        for k in range(2):
                            seg = h[k * size:(k + 1) * size]
                            probs[k] += np.mean(seg) if seg else 0.0
                    estimates.append(probs / len(hits))
            np.testing.assert_allclose(got[name], np.mean(estimates, axis=0), rtol=1e-12)


def test_shuffled_runs_and_exact_fallbacks(monkeypatch):
    """Rows in any order (systems and queries interleaved) fuse as grouped ones; a collision
    of the 64-bit identifier hashes falls back to joining the values, and keys too wide to
    pack with the row number to Polars' sort, with the same answer."""
    from trunc_accessor.fusion import _stack

    rng = np.random.default_rng(7)
    rows = [(f"r{r}", f"q{q}", f"d{d}", float(s))
            for r in range(3) for q in range(4)
            for d, s in zip(rng.choice(12, 6, replace=False), rng.integers(0, 4, 6))]
    runs = pl.DataFrame(rows, schema=["system", "qid", "docid", "score"], orient="row")
    want = ta.fuse(runs, "rrf")
    shuffled = runs.sample(fraction=1.0, shuffle=True, seed=3)
    assert ta.fuse(shuffled, "rrf").equals(ta.fuse(shuffled.sort("system", maintain_order=True),
                                                   "rrf"))
    ckey = rng.integers(0, 50, 200)
    sys_code = rng.integers(0, 3, 200)
    pairs = ckey * 3 + sys_code
    for bound in (50, 1 << 62):
        key, rows, repeat = _stack._sorted_keys(ckey.copy(), sys_code, 3, bound)
        assert (key == np.sort(ckey)).all() and (ckey[rows] == key).all()
        assert (pairs[rows] == np.sort(pairs)).all() and repeat
        once = np.unique(pairs, return_index=True)[1]
        assert not _stack._sorted_keys(ckey[once], sys_code[once], 3, bound)[2]
    monkeypatch.setattr(pl.Series, "hash",
                        lambda self, seed=0: pl.Series(np.zeros(len(self), dtype=np.uint64)))
    assert ta.fuse(runs, "rrf").equals(want)
    with pytest.raises(InputError, match="document 'd1' appears twice .*run_1.*q1"):
        ta.fuse(pl.concat([RUNS, RUNS.head(1)]), "rrf")


def test_undefined_fused_scores_rank_last():
    """A fused score that is NaN (an infinite score plus a negative infinite one, with no
    normalisation) ranks after every other candidate of its query."""
    runs = long({"q": {"d1": math.inf, "d2": 1.0, "d3": 0.5}},
                {"q": {"d1": -math.inf, "d2": 2.0, "d4": 0.1}})
    with np.errstate(invalid="ignore"):
        got = ta.fuse(runs, "combsum", None)
    assert got["docid"].to_list() == ["d2", "d3", "d4", "d1"] and math.isnan(got["score"][3])


# --------------------------------------------------------------------------- ties, beyond sums
def _brute_per_run(runs: list[list[tuple[str, float]]], value, missing_min: bool) -> dict:
    """The mean over every order of every run's ties of Σ_r value_r(d) (the runs' orders
    are independent and the sum linear, so each run's mean is taken over its own orders);
    ``missing_min``: a run that did not retrieve d gives it its lowest value."""
    candidates = {d for run in runs for d, _ in run}
    total = dict.fromkeys(candidates, 0.0)
    for run in runs:
        groups = [list(g) for _, g in itertools.groupby(sorted(run, key=lambda x: -x[1]),
                                                         key=lambda x: x[1])]
        orders = [list(itertools.chain.from_iterable(c)) for c in
                  itertools.product(*[itertools.permutations(g) for g in groups])]
        for ranking in orders:
            n = len(ranking)
            values = {d: value(i, n) for i, (d, _) in enumerate(ranking, start=1)}
            low = min(values.values())
            for d in candidates:
                if d in values:
                    total[d] += values[d] / len(orders)
                elif missing_min:
                    total[d] += low / len(orders)
    return total


RUN7 = st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers(0, 3)), min_size=1,
                max_size=7, unique_by=lambda x: x[0])
SEG_PROBS = np.array([0.5, 0.2, 0.1, 0, 0, 0, 0, 0, 0, 0])  # segments [0, 5), [5, 15), …


@settings(max_examples=40, deadline=None)
@given(st.lists(RUN7, min_size=2, max_size=3))
def test_tie_averaged_missing_min_and_segfuse_equal_brute_force(runs):
    """missing="min" gives the run's lowest value, the same in every order of its ties (the
    value at its last position, not a tie group's mean); SegFuse after the rank
    normalisation multiplies two values of the position, and is averaged as a product."""
    frame = long(*({"q": {d: s for d, s in run}} for run in runs))
    as_lists = [[(d, float(s)) for d, s in run] for run in runs]
    probs = {f"run_{j + 1}": SEG_PROBS for j in range(len(runs))}

    def segfuse(i, n):
        return SEG_PROBS[0 if i <= 5 else 1] * (1 - (i - 1) / n + 1)

    for method, norm, params, value, missing in (
            ("rrf", None, {"k": 60}, lambda i, n: 1 / (60 + i), "min"),
            ("combsum", "rank", {}, lambda i, n: 1 - (i - 1) / n, "min"),
            ("segfuse", "rank", {"probs": probs}, segfuse, "method"),
            ("segfuse", "rank", {"probs": probs}, segfuse, "min")):
        got = as_dict(ta.fuse(frame, method, norm, ties="average", missing=missing,
                              **params))["q"]
        expected = _brute_per_run(as_lists, value, missing == "min")
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), (method, norm, missing)


def test_max_min_median_of_averaged_positions_are_refused():
    """CombMAX/CombMIN/CombMED of the rank or borda normalisation's values under
    ties="average": max(mean) is not mean(max) over the orders of a tie (here run_1 ties b
    and c: the orders give b max(2/3, ·) or max(1/3, ·)), so the tie is refused, named;
    without ties, or with ties ordered, they are computed."""
    tied = long({"q": {"a": 3, "b": 1, "c": 1}}, {"q": {"b": 2, "d": 1}})
    for method in ("combmax", "combmin", "combmed"):
        for norm in ("rank", "borda"):
            with pytest.raises(ParameterError, match=r"run 'run_1' ties 2 documents of query "
                               r"'q' \('b', 'c'\).*ties='first'"):
                ta.fuse(tied, method, norm)
            first = as_dict(ta.fuse(tied, method, norm, ties="first"))["q"]
            assert first["c"] != first["b"] or method != "combmax"
    # b, c in input order under "first": rank values run_1 a 1, b 2/3, c 1/3; run_2 b 1, d 1/2
    assert as_dict(ta.fuse(tied, "combmax", "rank", ties="first"))["q"] == pytest.approx(
        {"a": 1, "b": 1, "c": 1 / 3, "d": 1 / 2})
    untied = long({"q": {"a": 3, "b": 2, "c": 1}}, {"q": {"b": 2, "d": 1}})
    for method in ("combmax", "combmin", "combmed"):
        assert ta.fuse(untied, method, "rank").equals(
            ta.fuse(untied, method, "rank", ties="first"))
    # score normalisations: tied scores have equal values in every order
    assert ta.fuse(tied, "combmax", "min-max").height == 4


def test_condorcet_tied_vote_is_split_not_averaged_over_orders():
    """A run tying a and b beside one preferring a: split votes give a 1.5 against 0.5, a
    win (score 2); the orders of the tie give a a win or a draw (mean score 1.75). The
    documented rule is the split vote."""
    runs = long({"q": {"a": 1, "b": 1}}, {"q": {"a": 2, "b": 1}})
    assert as_dict(ta.fuse(runs, "condorcet", None))["q"] == {"a": 2.0, "b": 1.0}
    orders = [as_dict(ta.fuse(long({"q": dict(o)}, {"q": {"a": 2, "b": 1}}), "condorcet",
                              None))["q"] for o in ([("a", 2), ("b", 1)], [("b", 2), ("a", 1)])]
    assert {d: sum(o[d] for o in orders) / 2 for d in "ab"} == {"a": 1.75, "b": 1.25}
