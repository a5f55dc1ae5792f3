"""Cascade metrics: ERR, ERR', RBU, ERRU.

* RBU against the values of the RBU authors' reference jar (shared/data/rbu/toy);
* ERR, ERR', ERRU against values worked out by hand from the definitions (in comments);
* tie-aware values against the brute-force mean over every order of the tied documents of
  the naive references in tests/reference_cascade.py;
* one tie group of 1000 documents against exact rational arithmetic;
* truncated large groups (offsets past W, merged runs with truncated j, the draw fallback)
  against exact rationals, against the full recurrence (hypothesis, with the error bound
  checked at a loose ε), and 10^6 tied documents against an independent formula (the
  first of Binomial(r, 1/2) "stoppers" at uniformly random positions).
"""
from __future__ import annotations

import csv
import functools
import math
import random
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference as ref
from tests import reference_cascade as rc
from tests.conftest import DATA, need
from tests.strategies import assert_matches_brute_force, frames_of, in_library, random_queries
from trunc_accessor import single

# --------------------------------------------------------------------------- RBU jar
RBU_TOY = DATA / "rbu" / "toy"


def _tsv(path):
    with need(path).open(newline="") as f:
        return [row for row in csv.reader(f, delimiter="\t") if row]


def _rbu_toy():
    """Single-aspect qrels and the run restricted to them, and every comparable jar value
    as (p, e, qid, value). A query is comparable when all its judgments name one aspect
    (the jar then computes single-aspect RBU) and the jar printed a number."""
    gold = _tsv(RBU_TOY / "gold.tsv")
    aspects: dict[str, set] = {}
    for qid, _doc, _grade, aspect, _w in gold:
        aspects.setdefault(qid, set()).add(aspect)
    single_aspect = {q for q, a in aspects.items() if len(a) == 1}
    qrels = pd.DataFrame([(q, d, int(g)) for q, d, g, _a, _w in gold if q in single_aspect],
                         columns=["qid", "docid", "rel"])
    rows, pos = [], {}
    for qid, doc in _tsv(RBU_TOY / "out.tsv"):
        pos[qid] = pos.get(qid, 0) + 1
        if qid in single_aspect:
            rows.append((qid, doc, -float(pos[qid])))  # file order = rank order
    run = pd.DataFrame(rows, columns=["qid", "docid", "score"])
    expected = []
    for path in sorted(RBU_TOY.glob("results_p*_e*.tsv")):
        p, e = map(float, re.fullmatch(r"results_p([\d.]+)_e([\d.]+)\.tsv", path.name).groups())
        for qid, value in _tsv(path)[1:]:
            if qid in single_aspect and value != "-":
                expected.append((p, e, qid, float(value)))
    return run, qrels, expected


def test_rbu_toy_data_is_what_we_think():
    _run, qrels, expected = _rbu_toy()
    assert set(qrels.qid) == {"q2", "q3"}  # q1 has two aspects, q4 no judgments
    assert qrels.rel.max() == 2            # g_max = 2, as in the whole gold file
    assert len(expected) == 6              # q2, q3 × three parameter files


@pytest.mark.parametrize("library", ["pandas", "polars", "polars-lazy"])
def test_rbu_equals_reference_jar(library):
    run, qrels, expected = _rbu_toy()
    run, qrels = in_library(library, run, qrels)
    for p, e, qid, want in expected:
        res = run.ir.rbu(qrels, p=p, e=e)
        if library != "pandas":
            if library == "polars-lazy":
                res = res.collect()
            res = res.to_pandas().set_index("qid").iloc[:, 0]
        # the jar prints 4 decimals
        assert res.loc[qid] == pytest.approx(want, abs=5e-5 + 1e-12), (p, e, qid)


def test_rbu_golden_values_of_the_authors_code_exactly():
    """The RBU authors' reference implementation (single aspect; Amigó, Mizzaro & Spina,
    SIGIR 2022 §3.3): d1 = 2, d2 = 1, d3 = 0; ranking d2, d1, d4; x = 1/4, 3/4, 0.
    p = 0.5, e = 0: 0.5·(1/4 + 0.5·(3/4)(3/4)) = 0.265625.
    p = 0.8, e = 0.03: 0.2·((0.25 − 0.03) + 0.8·(0.5625 − 0.03) + 0.64·(0 − 0.03))
    = 0.12536."""
    run, qrels, _ = _rbu_toy()
    assert run.ir.rbu(qrels, p=0.5, e=0.0).loc["q2"] == pytest.approx(0.265625, abs=1e-15)
    assert run.ir.rbu(qrels, p=0.8, e=0.03).loc["q2"] == pytest.approx(0.12536, abs=1e-15)
    # the empty ranking (q3 is judged, not answered) scores 0
    assert run.ir.rbu(qrels).loc["q3"] == 0.0
    assert run.ir.erru(qrels).loc["q3"] == 0.0
    r = [1, 2, None]
    assert single.rbu(r, qrels_grades=[2, 1, 0], p=0.5, e=0.0) == pytest.approx(0.265625)
    assert single.rbu(r, qrels_grades=[2, 1, 0], p=0.8, e=0.03) == pytest.approx(0.12536)


# --------------------------------------------------------------------------- hand values
def test_err_hand_checked():
    # Chapelle: grades 3, 2, 0, 1 with g_max = 3 → x = 7/8, 3/8, 0, 1/8.
    # ERR = 7/8 + (1/2)(1/8)(3/8) + 0 + (1/4)(1/8)(5/8)(1)(1/8)
    #     = 0.875 + 0.0234375 + 0.00244140625 = 0.90087890625
    assert single.err([3, 2, 0, 1]) == pytest.approx(0.90087890625, abs=1e-15)
    assert single.err([3, 2, 0, 1], k=2) == pytest.approx(0.8984375, abs=1e-15)
    assert single.err([3, 2, 0, 1], k=1) == pytest.approx(0.875, abs=1e-15)
    # max_grade=4: x = 7/16, 3/16, 0, 1/16:
    # 7/16 + (1/2)(9/16)(3/16) + (1/4)(9/16)(13/16)(1/16)
    #     = 0.4375 + 0.052734375 + 0.00714111328125 = 0.49737548828125
    assert single.err([3, 2, 0, 1], max_grade=4) == pytest.approx(
        7 / 16 + 0.5 * 9 / 16 * 3 / 16 + 0.25 * 9 / 16 * 13 / 16 / 16, abs=1e-15)
    assert single.err([3, 2, 0, 1], max_grade=4) == pytest.approx(0.49737548828125, abs=1e-15)
    # binary qrels: x = 1/2; ranking 0 1 1: 0 + (1/2)(1/2) + (1/3)(1/2)(1/2) = 1/3
    assert single.err([0, 1, 1]) == pytest.approx(1 / 3, abs=1e-15)
    # unjudged and negative grades stop nobody: None, -1, 1 → (1/3)(1/2)
    assert single.err([None, -1, 1]) == pytest.approx(1 / 6, abs=1e-15)
    # nothing relevant, the empty ranking: 0
    assert single.err([0, None, 0]) == 0.0
    assert single.err([], R=2) == 0.0
    # ties: two tied documents, one relevant: orders 1 0 (1/2) and 0 1 (1/4) → 3/8
    assert single.err([1, 0], scores=[1, 1]) == pytest.approx(0.375, abs=1e-15)
    assert single.err([1, 0], scores=[1, 1], ties="first") == pytest.approx(0.5, abs=1e-15)


def test_err_accessor_binary_qrels_and_relevance_level():
    run = pd.DataFrame({"qid": ["a"] * 3 + ["b"] * 2, "docid": ["x", "y", "z", "x", "w"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["a", "a", "b"], "docid": ["y", "z", "w"], "rel": [1, 1, 0]})
    got = run.ir.err(qrels)
    # a: 0 1 1 → 1/3 (as above); b: nothing relevant → 0
    assert got.loc["a"] == pytest.approx(1 / 3) and got.loc["b"] == 0.0
    # x depends on the grade only, not on relevance_level (as nDCG's gains)
    assert run.ir.err(qrels, relevance_level=2).loc["a"] == pytest.approx(1 / 3)
    pl_got = pl.from_pandas(run).ir.err(pl.from_pandas(qrels), k=2)
    assert pl_got.columns == ["qid", "err@2"]
    assert pl_got.filter(pl.col("qid") == "a")["err@2"][0] == pytest.approx(0.25)


def test_g_max_is_taken_from_the_whole_qrels():
    """g_max = the largest grade of any query (the scale's top), not of this query."""
    run = pd.DataFrame({"qid": ["a", "b"], "docid": ["x", "y"], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["a", "b"], "docid": ["x", "y"], "rel": [1, 3]})
    got = run.ir.err(qrels)
    assert got.loc["a"] == pytest.approx(1 / 8) and got.loc["b"] == pytest.approx(7 / 8)
    assert run.ir.err(qrels, max_grade=4).loc["a"] == pytest.approx(1 / 16)
    # a max_grade below a grade of the qrels is refused (x would exceed 1 for that grade)
    with pytest.raises(ta.ParameterError, match="largest grade in the qrels, 3"):
        run.ir.err(qrels, max_grade=1)


def test_err_prime_hand_checked():
    # R = 0, ranking 0 0: ERR = 0, terminal at rank 3 with r_t = 1 → 1/3 (= RR' of Liu Table 1)
    assert single.err_prime([0, 0], R=0) == pytest.approx(1 / 3)
    # R = 0, empty ranking: the terminal document at rank 1, r_t = 1 → 1
    assert single.err_prime([], R=0) == 1.0
    # empty ranking with R > 0: r_t = 0 → 0
    assert single.err_prime([], R=2) == 0.0
    # binary, R = 3, ranking 1 1: 1/2 + (1/2)(1/4) + r_t (1/4) / 3 with r_t = 2/3
    assert single.err_prime([1, 1], R=3) == pytest.approx(0.625 + (2 / 3) * 0.25 / 3)
    # depth: a ranking of length ≥ depth is not truncated and scores plain ERR = 0.625
    assert single.err_prime([1, 1], R=3, depth=2) == pytest.approx(0.625)
    assert single.err_prime([1, 1], R=3, depth=3) == pytest.approx(0.625 + (2 / 3) * 0.25 / 3)
    # graded: qrels 2, 1, 0 (g_max = 2), ranking 2 0: ERR = 3/4;
    # binary r_t = 1/2 → + (1/2)(1/4)/3 = 1/24; graded r_t = (2/2) / (3/2) = 2/3 → + 1/18
    assert single.err_prime([2, 0], qrels_grades=[2, 1, 0]) == pytest.approx(0.75 + 1 / 24)
    assert single.err_prime([2, 0], qrels_grades=[2, 1, 0], graded=True) == pytest.approx(
        0.75 + 1 / 18)


def test_err_prime_accessor_r0_empty_and_depth():
    run = pd.DataFrame({"qid": ["a", "a", "b", "b", "b"], "docid": ["x", "y", "x", "y", "z"],
                        "score": [2.0, 1.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["a", "b", "c", "d"], "docid": ["x", "y", "z", "z"],
                          "rel": [0, 1, 0, 1]})
    got = run.ir.err_prime(qrels)
    assert got.loc["a"] == pytest.approx(1 / 3)   # R = 0, 0 0
    assert got.loc["c"] == 1.0                     # R = 0, empty ranking
    assert got.loc["d"] == 0.0                     # R = 1, empty ranking
    # b: 0 1 0, R = 1, all found: (1/2)(1/2) + r_t = 1 · (1/2) / 4
    assert got.loc["b"] == pytest.approx(0.25 + 0.125)
    deep = run.ir.err_prime(qrels, depth=3)
    assert deep.loc["b"] == pytest.approx(run.ir.err(qrels).loc["b"])  # full depth: ERR
    assert deep.loc["a"] == pytest.approx(1 / 3)                        # n = 2 < 3: truncated
    assert not got.isna().any()


def test_erru_hand_checked():
    # the RBU authors' example (qrels d1 = 2, d2 = 1, d3 = 0), ranking d2, d1, d4:
    # stops 1/4, (3/4)(3/4) = 9/16, 0; e = 0.05
    # ERRU = (0.25 − 0.05) + (0.5625 − 0.05)/2 + (0 − 0.05)/3 = 0.2 + 0.25625 − 0.0166667
    assert single.erru([1, 2, None], qrels_grades=[2, 1, 0]) == pytest.approx(
        0.2 + 0.25625 - 0.05 / 3, abs=1e-15)
    # nothing relevant: −e·H_n; RBU: −e(1 − p^n)
    assert single.erru([0, 0, 0], R=0, e=0.1) == pytest.approx(-0.1 * (1 + 1 / 2 + 1 / 3))
    assert single.rbu([0, 0, 0], R=0, e=0.1, p=0.5) == pytest.approx(-0.1 * (1 - 0.125))
    assert single.erru([], R=1) == 0.0 and single.rbu([], R=1) == 0.0
    # e = 0: ERRU = ERR
    assert single.erru([3, 2, 0, 1], e=0) == pytest.approx(single.err([3, 2, 0, 1]))


def test_labels_and_parameter_checks():
    assert ta.parse("ERR@10").label == "err@10"
    assert ta.parse("rbu(p=0.5, e=0)").label == "rbu(p=0.5,e=0)"
    assert ta.parse("rbu(p=0.8, e=0.05)").label == "rbu"
    assert ta.parse("err_prime(depth=100)").label == "err_prime(depth=100)"
    assert ta.parse("erru(e=0.1)").label == "erru(e=0.1)"
    for bad in ("rbu(e=-0.1)", "erru(e=True)", "err(max_grade=0)", "rbu(p=1)", "err@0"):
        with pytest.raises(ValueError):
            ta.parse(bad)


# --------------------------------------------------------------------------- brute force
GRADES = st.sampled_from([None, None, -1, 0, 0, 1, 1, 2, 3])


def _cases(k, p, e, depth, graded, max_grade, g_max):
    """(accessor spec, reference function, reference params). The accessor's default
    max_grade is the whole qrels' largest grade, g_max, which the reference gets explicitly."""
    top = g_max if max_grade is None else max_grade
    mg = {} if max_grade is None else {"max_grade": max_grade}
    return [
        (("err", {**mg}), rc.err, {"max_grade": top}),
        (("err", {"k": k, **mg}), rc.err, {"k": k, "max_grade": top}),
        (("err_prime", {"graded": graded, **mg}), rc.err_prime,
         {"graded": graded, "max_grade": top}),
        (("err_prime", {"graded": graded, "depth": depth, **mg}), rc.err_prime,
         {"graded": graded, "depth": depth, "max_grade": top}),
        (("rbu", {"p": p, "e": e, **mg}), rc.rbu, {"p": p, "e": e, "max_grade": top}),
        (("erru", {"e": e, **mg}), rc.erru, {"e": e, "max_grade": top}),
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=random_queries(grades=GRADES, max_score=2), k=st.integers(1, 7),
       p=st.sampled_from([0.3, 0.8]), e=st.sampled_from([0.0, 0.05, 0.3]), depth=st.integers(1, 7),
       graded=st.booleans(),
       max_grade=st.sampled_from([None, None, 3, 4]), level=st.sampled_from([1, 2]),
       seed=st.integers(0, 10**6))
def test_tie_aware_equals_brute_force_mean(queries, k, p, e, depth, graded, max_grade, level,
                                           seed):
    run, qrels = frames_of(queries, random.Random(seed))
    g_max = float(qrels.rel.max()) if len(qrels) else 0.0
    cases = _cases(k, p, e, depth, graded, max_grade, g_max)
    assert_matches_brute_force(run, qrels, queries, cases, level)


@settings(max_examples=60, deadline=None)
@given(grades=st.lists(GRADES, min_size=0, max_size=7),
       scores=st.lists(st.integers(0, 1), min_size=7, max_size=7),
       p=st.sampled_from([0.5, 0.9]))
def test_single_ranking_functions_equal_brute_force(grades, scores, p):
    s = sorted((float(x) for x in scores[: len(grades)]), reverse=True)
    judged = [g for g in grades if g is not None] + [1, 2]
    top = max(judged)
    for name, params in (("err", {}), ("err_prime", {}), ("rbu", {"p": p}), ("erru", {})):
        want = ref.brute_force_mean(getattr(rc, name), grades, s, judged, 1, max_grade=top,
                                    **params)
        got = getattr(single, name)(grades, scores=s, qrels_grades=judged, **params)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-14), name


# --------------------------------------------------------------------------- large groups
def _exact_group_terms(grades, g_max):
    """D_s = ((m − s) e_s(y) − (s + 1) e_{s+1}(y)) / ((m − s) C(m, s)) for s = 0..m−1, in
    exact rational arithmetic (the identity of the brief, evaluated with integers: with
    Y = 2^g_max · y, e_s(y) = e_s(Y) / 2^(g_max·s))."""
    scale = 2 ** g_max
    Y = [scale - (2 ** max(g, 0) - 1) for g in grades]
    m = len(Y)
    e = [1] + [0] * m
    for i, yv in enumerate(Y, 1):
        for s in range(i, 0, -1):
            e[s] += yv * e[s - 1]
    return [Fraction((m - s) * e[s] * scale - (s + 1) * e[s + 1],
                     (m - s) * math.comb(m, s) * scale ** (s + 1)) for s in range(m)]


@pytest.mark.parametrize("kind", ["few_relevant", "mixed"])
def test_one_tie_group_of_1000_documents_is_exact(kind):
    rng = random.Random(11)
    m = 1000
    if kind == "few_relevant":
        group = [0] * m
        for i, g in zip(rng.sample(range(m), 5), [3, 2, 1, 1, 3]):
            group[i] = g
    else:
        group = [rng.choice([0, 0, 1, 2, 3]) for _ in range(m)]
    prefix = [1, 0]                      # two untied documents ahead of the group
    grades = prefix + group
    scores = [3.0, 2.0] + [1.0] * m
    D = _exact_group_terms(group, 3)
    assert sum(D) == 1 - math.prod(Fraction(8 - (2 ** g - 1), 8) for g in group)
    # prefix 1 0 with g_max = 3: x = 1/8, 0; the group starts at rank 3 after Π = 7/8
    ahead = Fraction(7, 8)
    err_exact = Fraction(1, 8) + ahead * sum(d / (s + 3) for s, d in enumerate(D))
    err_k = Fraction(1, 8) + ahead * sum(d / (s + 3) for s, d in enumerate(D) if s + 3 <= 500)
    p, e = Fraction(9, 10), Fraction(1, 20)
    rbu_exact = (1 - p) * (Fraction(1, 8) + ahead * sum(p ** (s + 2) * d for s, d in enumerate(D)))
    rbu_exact -= e * (1 - p ** (m + 2))
    harmonic = sum(Fraction(1, i) for i in range(1, m + 3))
    got = {"err": single.err(grades, scores=scores),
           "err_k": single.err(grades, scores=scores, k=500),
           "rbu": single.rbu(grades, scores=scores, p=0.9, e=0.05),
           "erru": single.erru(grades, scores=scores, e=0.05)}
    assert got["err"] == pytest.approx(float(err_exact), rel=1e-12)
    assert got["err_k"] == pytest.approx(float(err_k), rel=1e-12)
    assert got["erru"] == pytest.approx(float(err_exact - e * harmonic), rel=1e-12)
    assert got["rbu"] == pytest.approx(float(rbu_exact), rel=1e-12, abs=1e-15)


def _exact_err(groups, g_max, k=None):
    """ERR@k of a ranking given as tie groups (lists of grades), mean over the orders of
    every group, in exact arithmetic from :func:`_exact_group_terms`."""
    total, ahead, t = Fraction(0), Fraction(1), 0
    for group in groups:
        D = _exact_group_terms(group, g_max)
        total += ahead * sum(d / (t + s + 1) for s, d in enumerate(D) if k is None or t + s < k)
        ahead *= math.prod(Fraction(2 ** g_max - (2 ** max(g, 0) - 1), 2 ** g_max) for g in group)
        t += len(group)
    return total


@pytest.mark.parametrize("chunk_cells", [None, 200])
def test_many_groups_of_many_sizes_are_exact(chunk_cells, monkeypatch):
    """Groups across size buckets (1 … 130 documents), with few, many or no documents of
    positive grade, in several queries; with chunk_cells=200 the groups of one size bucket
    are advanced in several chunks."""
    from trunc_accessor.metrics import cascade_ties
    if chunk_cells is not None:
        monkeypatch.setattr(cascade_ties, "_CHUNK_CELLS", chunk_cells)
    rng = random.Random(3)
    queries = {}
    for q in range(4):
        groups = []
        for size in rng.sample([1, 2, 3, 4, 5, 7, 16, 17, 33, 64, 65, 130], 7):
            p_pos = rng.choice([0.0, 0.05, 0.3, 1.0])
            groups.append([rng.choice([1, 2, 3]) if rng.random() < p_pos else
                           rng.choice([0, -1, None]) for _ in range(size)])
        queries[f"q{q}"] = groups
    run_rows, qrels_rows = [], [("q0", "top", 3)]  # g_max = 3
    for qid, groups in queries.items():
        i = 0
        for gi, group in enumerate(groups):
            for g in group:
                run_rows.append((qid, f"d{i}", float(len(groups) - gi)))
                if g is not None:
                    qrels_rows.append((qid, f"d{i}", g))
                i += 1
    run = pd.DataFrame(run_rows, columns=["qid", "docid", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docid", "rel"])
    res = run.ir.evaluate(qrels, ["err", "err@50"])
    for qid, groups in queries.items():
        clean = [[0 if g is None else g for g in group] for group in groups]
        assert res.loc[qid, "err"] == pytest.approx(float(_exact_err(clean, 3)), rel=1e-12)
        assert res.loc[qid, "err@50"] == pytest.approx(float(_exact_err(clean, 3, k=50)),
                                                       rel=1e-12)


def test_large_group_without_stopping_probability_is_exactly_zero():
    """No cancellation noise: a group of 5000 non-relevant documents gives exactly 0."""
    n = 5000
    assert single.err([0] * n, scores=[1.0] * n, R=3) == 0.0
    grades = [0] * n + [1]
    v = single.err(grades, scores=[1.0] * n + [0.0])  # the relevant doc at rank n + 1
    assert v == pytest.approx(0.5 / (n + 1), rel=1e-15)


def test_many_groups_of_mixed_sizes_equal_a_monte_carlo_mean():
    """Groups of sizes 1..40 in one ranking (several size buckets): the exact tie-aware
    value equals a Monte-Carlo mean over random orders within a few standard errors."""
    rng = np.random.default_rng(5)
    sizes = [1, 2, 3, 5, 8, 17, 40, 1, 4]
    grades, scores = [], []
    for i, size in enumerate(sizes):
        grades += list(rng.choice([0, 0, 0, 1, 2, 3], size))
        scores += [float(len(sizes) - i)] * size
    judged = grades + [3]
    exact = single.err(grades, scores=scores, qrels_grades=judged)
    samples = []
    for _ in range(4000):
        order, start = [], 0
        for size in sizes:
            grp = grades[start:start + size]
            rng.shuffle(grp)
            order += grp
            start += size
        samples.append(rc.err(order, judged, 1, max_grade=3))
    assert abs(np.mean(samples) - exact) < 4 * np.std(samples) / math.sqrt(len(samples))


def test_tie_modes_agree_without_ties_and_trec_eval_order():
    run = pd.DataFrame({"qid": ["a"] * 4, "docid": ["w", "x", "y", "z"],
                        "score": [1.0, 1.0, 0.5, 0.2]})
    qrels = pd.DataFrame({"qid": ["a", "a"], "docid": ["w", "y"], "rel": [2, 1]})
    # trec_eval order: score desc, docid desc → x w y z: grades 0 2 1 0 (g_max = 2)
    # ERR = (1/2)(3/4) + (1/3)(1/4)(1/4) = 0.375 + 1/48
    got = run.ir.err(qrels, ties="trec_eval").loc["a"]
    assert got == pytest.approx(0.375 + 1 / 48)
    # average over w/x orders: (w first: 3/4 + (1/3)(1/4)(1/4)) and the trec_eval order
    avg = run.ir.err(qrels).loc["a"]
    assert avg == pytest.approx(((0.75 + 1 / 48) + (0.375 + 1 / 48)) / 2)


def test_by_equals_separate_evaluations():
    """Two systems in one frame (by=) give each system's own values, empty rankings too."""
    rng = random.Random(8)
    rows = [(sys, f"q{q}", f"d{i}", float(rng.randint(0, 3)))
            for sys in ("A", "B") for q in range(3) for i in range(rng.randint(0, 9))
            if not (sys == "B" and q == 1)]
    run = pd.DataFrame(rows, columns=["system", "qid", "docid", "score"])
    qrels = pd.DataFrame([(f"q{q}", f"d{i}", rng.randint(0, 3)) for q in range(3)
                          for i in range(9)], columns=["qid", "docid", "rel"])
    metrics = ["err", "err@3", "err_prime(depth=5)", "rbu(p=0.6)", "erru"]
    both = run.ir.evaluate(qrels, metrics, by="system")
    for name in ("A", "B"):
        alone = run[run.system == name].drop(columns="system").ir.evaluate(qrels, metrics)
        assert np.allclose(both.loc[name].to_numpy(), alone.to_numpy(), rtol=0, atol=1e-15)
    assert both.loc[("B", "q1"), "err_prime(depth=5)"] == 0.0  # empty ranking, R > 0


# --------------------------------------------------------------------------- truncation
def _exact_stops(group, g_max):
    """D_s, s = 0..m−1, of one tie group (grades, None = 0), each the correctly rounded float
    of an exact rational. The z documents with x = 0 have y = 1, so the elementary symmetric
    polynomials of the whole group follow from those of its other documents:
    e_s = Σ_i C(z, s − i) e_i(positives), in integers with Y = 2^g_max · y; then
    D_s = ((m − s) e_s − (s + 1) e_{s+1}) / ((m − s) C(m, s)) as in _exact_group_terms."""
    scale = 2 ** g_max
    pos = [scale - (2 ** g - 1) for g in group if g is not None and g > 0]
    m, z = len(group), len(group) - len(pos)
    e_pos = [1]
    for Y in pos:  # multiply out Π (1 + Y t)
        e_pos = [u + Y * v for u, v in zip(e_pos + [0], [0] + e_pos)]
    binz = [math.comb(z, k) * scale ** k for k in range(z + 1)]
    E = [sum(binz[s - i] * e_pos[i] for i in range(max(0, s - z), min(s, len(pos)) + 1))
         for s in range(m + 1)] + [0]  # E_s = e_s · 2^(g_max·s)
    return [((m - s) * E[s] * scale - (s + 1) * E[s + 1])
            / ((m - s) * math.comb(m, s) * scale ** (s + 1)) for s in range(m)]


def _exact_values(groups, g_max, p, e):
    """ERR, ERR@100, RBU(p, e), ERRU(e) and ERR' (R = all relevant retrieved: r_t = 1) of a
    ranking given as tie groups, from :func:`_exact_stops` (math.fsum of correctly rounded
    terms)."""
    x = [(2 ** max(g or 0, 0) - 1) / 2 ** g_max for grp in groups for g in grp]
    stops, ahead, t = [], 1.0, 0
    for grp in groups:
        stops += [ahead * d for d in _exact_stops(grp, g_max)]
        ahead *= math.prod(Fraction(2 ** g_max - (2 ** max(g or 0, 0) - 1), 2 ** g_max)
                           for g in grp)
        t += len(grp)
    n = len(x)
    err = math.fsum(d / i for i, d in enumerate(stops, 1))
    return {"err": err,
            "err@100": math.fsum(d / i for i, d in enumerate(stops[:100], 1)),
            "rbu": (1 - p) * math.fsum(d * p ** (i - 1) for i, d in enumerate(stops, 1))
            - e * (1 - p ** n),
            "erru": err - e * math.fsum(1 / i for i in range(1, n + 1)),
            "err_prime": err + float(ahead) / (n + 1)}


def _library_values(groups, g_max, p, e):
    grades = [g for grp in groups for g in grp]
    scores = [float(len(groups) - k) for k, grp in enumerate(groups) for _ in grp]
    judged = [g for g in grades if g is not None] + [g_max]
    kw = {"scores": scores, "qrels_grades": judged}
    return {"err": single.err(grades, **kw), "err@100": single.err(grades, k=100, **kw),
            "rbu": single.rbu(grades, p=p, e=e, **kw), "erru": single.erru(grades, e=e, **kw),
            "err_prime": single.err_prime(grades, **kw)}


@functools.cache
def _truncation_cases():
    """Two rankings of large tie groups, and their exact values (see the test below)."""
    rng = random.Random(21)
    big = [3] * 40 + [2] * 100 + [1] * 30 + [0] * 1200 + [None] * 130
    rng.shuffle(big)
    few_zeros = [1] * 150 + [2] * 100 + [3] * 30 + [0] * 20
    rng.shuffle(few_zeros)
    return [(groups, _exact_values(groups, 3, 0.9, 0.05))
            for groups in ([[1], [0], big], [few_zeros])]


@pytest.mark.parametrize("path", ["ratio", "draw", "blocks"])
def test_truncated_large_groups_equal_exact_rationals(path, monkeypatch):
    """A group of 1500 documents (170 of grades 1-3, g_max = 3) after two untied documents:
    the offsets past W ≈ 720 are left out, and the runs of grade 3 (40 > J = 20) and grade 2
    (100 > J = 80) are merged with truncated j; a group of 300 with only 20 documents with
    x = 0 (merges into fewer documents than offsets). path="draw": every merge advances H
    one drawn document at a time (the fallback for underflowing anchors); path="blocks":
    every step works in column blocks of 61 offsets (4096 or more on real data)."""
    from trunc_accessor.metrics import cascade_ties
    if path == "draw":
        monkeypatch.setattr(cascade_ties, "_TINY", 2.0)  # no anchor passes: always the fallback
    if path == "blocks":
        monkeypatch.setattr(cascade_ties, "_BLOCK", 61)
        monkeypatch.setattr(cascade_ties, "_BLOCK_COLUMNS", 61)
    for groups, want in _truncation_cases():
        got = _library_values(groups, 3, 0.9, 0.05)
        for name in want:
            assert got[name] == pytest.approx(want[name], rel=1e-12, abs=1e-14), name
    # the truncation did happen: W < m, and merged runs exist
    big = _truncation_cases()[0][0][2]
    x = np.array([(2.0 ** g - 1) / 8 if g else 0.0 for g in big])
    assert cascade_ties._depth(np.array([x.mean()]))[0] < len(big)
    assert cascade_ties._merged(np.array([40, 100]), np.array([7 / 8, 3 / 8]),
                                np.array([len(big), len(big)])).all()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups=st.lists(st.tuples(st.integers(2, 600), st.integers(0, 3), st.floats(0.0, 1.0),
                                 st.integers(0, 10**6)), min_size=1, max_size=3),
       p=st.sampled_from([0.5, 0.95]))
def test_early_termination_agrees_with_the_full_recurrence(groups, p):
    """Rankings of large tie groups (size, least grade of the boosted documents, share of
    boosted documents, seed: the truncation happens when size · mean x > ~37) with untied
    documents between them: the default (ε = 1e-16) equals the full recurrence (ε = 0:
    every offset, every document one by one) to 1e-13; with ε = 1e-6 the values are lower
    by at most (1 + number of runs merged) · ε (the bound of the module docstring; 3 grades
    here), and never higher."""
    from trunc_accessor.metrics import cascade_ties
    grades, scores = [], []
    for k, (size, boost, share, seed) in enumerate(groups):
        rng = random.Random(seed)
        group = [rng.choice([0, 0, 0, 1, 2, 3, None]) for _ in range(size)]
        group = [max(g or 0, boost) if rng.random() < share else g for g in group]
        grades += group + [0]
        scores += [2.0 * (len(groups) - k)] * size + [2.0 * (len(groups) - k) - 1]
    kw = {"scores": scores, "qrels_grades": [3]}

    def values():
        return np.array([single.err(grades, **kw), single.rbu(grades, p=p, e=0.0, **kw),
                         single.err(grades, k=50, **kw)])

    default = values()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cascade_ties, "_EPS", 0.0)
        full = values()
        mp.setattr(cascade_ties, "_EPS", 1e-6)
        loose = values()
    assert np.allclose(default, full, rtol=0, atol=1e-13)
    assert (loose <= full + 1e-13).all()
    assert (full - loose <= 4 * 1e-6 + 1e-13).all()


def _binary_all_tied(m, r, p):
    """ERR and the gain part of RBU(p) of m tied documents, r of them relevant (x = 1/2),
    computed another way: give every relevant document a coin that makes it a stopper
    (probability 1/2); the user stops at the first stopper. The number t of stoppers is
    Binomial(r, 1/2) and, over the orders, their positions are a uniform t-subset of 1..m,
    whose smallest element i has P_t(i) = C(m − i, t − 1) / C(m, t). So
    ERR = Σ_t Bin(t) E[1/i] and RBU's gain = (1 − p) Σ_t Bin(t) E[p^(i − 1)]."""
    # Bin(t; r, 1/2) for t within 10 standard deviations of r/2 (the rest weighs < 1e-22),
    # by its ratio (r − t)/(t + 1) from the mode, normalised to sum 1
    mode, half = r // 2, int(5 * math.sqrt(r)) + 10
    lo, hi = max(0, mode - half), min(r, mode + half)
    up = np.cumprod((r - np.arange(mode, hi)) / (np.arange(mode, hi) + 1.0))
    down = np.cumprod(np.arange(mode, lo, -1) / (r - np.arange(mode, lo, -1) + 1.0))
    weights = np.concatenate([down[::-1], [1.0], up])
    weights /= math.fsum(weights)
    ts = np.arange(lo, hi + 1)
    weights, ts = weights[ts > 0], ts[ts > 0]  # no stopper: no stop, no gain
    # P_t(i > n) ≤ e^(−nt/m): i ≤ n_t = 40 m/t leaves out < e^−40 (of E[1/i], E[p^(i−1)])
    n_t = np.minimum(m - ts + 1, 40 * m // ts + 10)
    err, gain, at = [], [], 0
    while at < len(ts):  # blocks of t (ascending, so n_t descending) of ≤ 4M cells
        n = int(n_t[at])
        t = ts[at:at + max(1, 4_000_000 // n), None].astype(np.float64)
        i = np.arange(1, n + 1, dtype=np.float64)
        P = np.empty((len(t), n))  # P_t(1) = t/m, P_t(i + 1)/P_t(i) = (m − i − t + 1)/(m − i)
        P[:, 0] = 1.0
        np.cumprod(np.maximum(m - i[:-1] - t + 1, 0) / (m - i[:-1]), axis=1, out=P[:, 1:])
        P *= t / m
        wt = weights[at:at + len(t)]
        err += list(wt * (P / i).sum(axis=1))
        gain += list(wt * (P * p ** (i - 1)).sum(axis=1))
        at += len(t)
    return math.fsum(err), (1 - p) * math.fsum(gain)


@pytest.mark.parametrize("r", [1, 1000, 100_000, 1_000_000])
def test_a_million_tied_documents_against_the_stopper_formula(r):
    """One ranking of 10^6 tied documents, r relevant (binary qrels): ERR and RBU equal the
    stopper-set formula of :func:`_binary_all_tied` (r = 10^6: ERR = Σ 2^−i / i = ln 2)."""
    m = 1_000_000
    grades = np.zeros(m)
    grades[np.random.default_rng(r).choice(m, r, replace=False)] = 1
    scores = np.ones(m)
    err, gain = _binary_all_tied(m, r, 0.8)
    assert single.err(grades, scores=scores) == pytest.approx(err, rel=1e-9, abs=1e-12)
    assert single.rbu(grades, scores=scores, p=0.8, e=0.05) == pytest.approx(
        gain - 0.05 * (1 - 0.8 ** m), rel=1e-9, abs=1e-12)
    if r == m:
        assert err == pytest.approx(math.log(2), abs=1e-12)
