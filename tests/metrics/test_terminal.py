"""Terminal-document metrics (Liu et al. 2016): Table 1, ties, depth=, nil-answer queries,
empty rankings and the orderings the paper states."""
from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference as ref
from tests.strategies import frames_of, in_library, random_queries
from trunc_accessor import single

TERMINAL_GRADES = st.sampled_from([None, 0, 1, 2])

# Liu, Moffat, Baldwin & Zhang, SIGIR 2016, Table 1 (p = 0.5), to the table's 3 decimals
TABLE_1 = """
00    0 1.000 0.333 0.250 0.500 0.333
000   0 1.000 0.250 0.125 0.431 0.250
111   3 1.000 1.000 1.000 1.000 1.000
11    3 0.667 1.000 0.917 0.922 0.648
11100 3 1.000 1.000 0.906 0.971 0.917
101   3 0.667 1.000 0.708 0.698 0.528
1     3 0.333 1.000 0.667 0.742 0.306
10100 3 0.667 1.000 0.646 0.678 0.491
011   3 0.667 0.500 0.458 0.554 0.403
01001 3 0.667 0.500 0.302 0.490 0.299
"""
METRICS = ["rr_prime", "rbp_prime(p=0.5)", "ndcg_prime", "ap_prime"]


def _table_frames():
    run, qrels, expected = [], [], {}
    for i, line in enumerate(TABLE_1.strip().splitlines()):
        ranking, R, _rt, *values = line.split()
        qid = f"t{i}"
        for pos, c in enumerate(ranking):
            run.append((qid, f"d{pos}", float(len(ranking) - pos)))
            qrels.append((qid, f"d{pos}", int(c)))
        # the relevant documents the ranking did not retrieve
        for extra in range(int(R) - ranking.count("1")):
            qrels.append((qid, f"x{extra}", 1))
        if int(R) == 0 and not ranking.count("1"):
            qrels.append((qid, "judged-nonrel", 0))
        expected[qid] = [float(v) for v in values]
    return (pd.DataFrame(run, columns=["qid", "docid", "score"]),
            pd.DataFrame(qrels, columns=["qid", "docid", "rel"]), expected)


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_liu_table_1_all_40_values(library):
    run, qrels, expected = _table_frames()
    run, qrels = in_library(library, run, qrels)
    res = run.ir.evaluate(qrels, METRICS)
    if library != "pandas":
        res = (res.collect() if library == "lazy" else res).to_pandas().set_index("qid")
    checked = 0
    for qid, values in expected.items():
        for col, want in zip(res.columns, values):
            assert res.loc[qid, col] == pytest.approx(want, abs=5e-4), (qid, col)
            checked += 1
    assert checked == 40


# --------------------------------------------------------------------------- references
def _r_t(r, judged, level):
    R = ref.num_rel(judged, level)
    return 1.0 if R == 0 else sum(ref.is_rel(g, level) for g in r) / R


def rr_prime(r, judged, level):
    ext = [1 if ref.is_rel(g, level) else 0 for g in r] + [_r_t(r, judged, level)]
    for i, x in enumerate(ext, 1):
        if x > 0:
            return x / i
    return 0.0


def rbp_prime(r, judged, level, p=0.8):
    return ref.rbp(r, judged, level, p) + _r_t(r, judged, level) * p ** len(r)


def ndcg_prime(r, judged, level):
    ext = [1.0 if ref.is_rel(g, level) else 0.0 for g in r] + [_r_t(r, judged, level)]
    dcg = sum(x / math.log2(i + 1) for i, x in enumerate(ext, 1))
    R = ref.num_rel(judged, level)
    ideal = [1.0] * min(R, len(ext)) + [0.0] * (len(ext) - min(R, len(ext)))
    if R < len(ext):
        ideal[R] = 1.0
    return dcg / sum(x / math.log2(i + 1) for i, x in enumerate(ideal, 1))


def ap_prime(r, judged, level):
    ext = [1.0 if ref.is_rel(g, level) else 0.0 for g in r] + [_r_t(r, judged, level)]
    total, cum = 0.0, 0.0
    for i, x in enumerate(ext, 1):
        cum += x
        total += x * cum / i
    return total / (ref.num_rel(judged, level) + 1)


REFS = {"rr_prime": rr_prime, "rbp_prime(p=0.6)": rbp_prime, "ndcg_prime": ndcg_prime,
        "ap_prime": ap_prime}
REF_PARAMS = {"rbp_prime(p=0.6)": {"p": 0.6}}


@settings(max_examples=100, deadline=None)
@given(queries=random_queries(grades=TERMINAL_GRADES, max_score=2, max_extra_grade=2,
                               sort_scores=True), level=st.sampled_from([1, 2]))
def test_tie_aware_terminal_metrics_equal_brute_force(queries, level):
    run, qrels = frames_of(queries)
    res = run.ir.evaluate(qrels, list(REFS), queries=[q[0] for q in queries], relevance_level=level)
    for qid, grades, scores, extra in queries:
        judged = [g for g in grades if g is not None] + extra
        for spec, fn in REFS.items():
            want = ref.brute_force_mean(fn, grades, scores, judged, level,
                                        **REF_PARAMS.get(spec, {}))
            assert res.loc[qid, ta.parse(spec).label] == pytest.approx(want, abs=1e-12), (qid, spec)


# --------------------------------------------------------------------------- semantics
def test_empty_ranking_and_nil_queries():
    # "" with R = 0: r_t = 1 at position 1 -> every metric is 1 (the best answer)
    for fn in (single.rr_prime, single.rbp_prime, single.ndcg_prime, single.ap_prime):
        assert fn([], R=0) == pytest.approx(1.0)
        assert fn([], R=2) == 0.0          # answered nothing, though answers exist
        assert fn([0, 0], R=0) < fn([0], R=0) < fn([], R=0)  # "" > "0" > "00" (Liu §2)


def test_empty_ranking_through_the_accessor():
    run = pd.DataFrame({"qid": ["a"], "docid": ["d1"], "score": [1.0]})
    qrels = pd.DataFrame({"qid": ["a", "nil"], "docid": ["d1", "d9"], "rel": [1, 0]})
    res = run.ir.evaluate(qrels, METRICS)
    assert res.loc["nil"].tolist() == pytest.approx([1.0, 1.0, 1.0, 1.0])
    assert res.loc["a"].tolist() == pytest.approx([1.0, 1.0, 1.0, 1.0])  # "1" with R = 1


def test_depth_scores_full_rankings_as_the_plain_metric():
    g = [1, 0, 1, 0, 0]
    judged = g + [1]  # R = 3: one relevant document was not retrieved
    # the unmodified metrics, from the naive definitions in tests/reference.py
    assert single.rbp_prime(g, R=3, p=0.5, depth=5) == pytest.approx(ref.rbp(g, judged, 1, p=0.5))
    assert single.ap_prime(g, R=3, depth=5) == pytest.approx(ref.ap(g, judged, 1))
    assert single.ndcg_prime(g, R=3, depth=5) == pytest.approx(ref.ndcg(g, judged, 1, k=5))
    assert ref.ap(g, judged, 1) == pytest.approx((1 + 2 / 3) / 3)   # by hand
    assert single.rr_prime([0, 0], R=0, depth=2) == 0.0
    # shorter than depth: truncated by choice, terminal document added
    assert single.rbp_prime(g[:4], R=3, p=0.5, depth=5) == pytest.approx(
        0.5 * (1 + 0.25) + (2 / 3) * 0.5 ** 4)
    # R = 0 at full depth: the unmodified metric, with undefined AP/NDCG taken as 0
    assert single.ap_prime([0, 0], R=0, depth=2) == 0.0
    assert single.ndcg_prime([0, 0], R=0, depth=2) == 0.0


def test_liu_table_2_rows_two_and_three_by_depth():
    """Liu Table 2 with depth 5: a 5-document ranking is scored unmodified, a shorter one
    gets the terminal document."""
    run = pd.DataFrame({"qid": ["a"] * 5 + ["b"] * 3, "docid": list("vwxyz") + list("vwx"),
                        "score": [5.0, 4, 3, 2, 1, 5, 4, 3]})
    qrels = pd.DataFrame({"qid": ["a", "b"], "docid": ["w", "w"], "rel": [1, 1]})
    res = run.ir.rbp_prime(qrels, p=0.5, depth=5)
    assert res["a"] == pytest.approx(0.5 * 0.5)                 # plain RBP
    assert res["b"] == pytest.approx(0.5 * 0.5 + 1.0 * 0.5 ** 3)  # r_t = 1 (R = 1 found)


@settings(max_examples=150, deadline=None)
@given(grades=st.lists(st.sampled_from([0, 1]), max_size=7), R_extra=st.integers(0, 3))
def test_confidence_appending_a_non_relevant_document(grades, R_extra):
    """Appending a non-relevant document lowers RBP', NDCG', AP' whenever r_t > 0 and leaves
    them equal when r_t = 0; RR' drops only when nothing relevant was retrieved and R = 0."""
    R = sum(grades) + R_extra
    r_t = 1.0 if R == 0 else sum(grades) / R
    for fn in (single.rbp_prime, single.ndcg_prime, single.ap_prime):
        before, after = fn(grades, R=R), fn(grades + [0], R=R)
        if r_t > 0:
            assert after < before, fn.__name__
        else:
            assert after == pytest.approx(before)
    before, after = single.rr_prime(grades, R=R), single.rr_prime(grades + [0], R=R)
    assert (after < before) == (R == 0)
    assert after <= before


def test_110_scores_below_11():
    """Liu §4: "110" < "11" for every terminal metric (R = 3)."""
    for fn in (single.rbp_prime, single.ndcg_prime, single.ap_prime):
        assert fn([1, 1, 0], R=3) < fn([1, 1], R=3)


def test_graded_terminal_gains():
    """graded=True: gains grade / g_max, R = the total gain pool of the query's judged
    documents (Liu et al.'s "total gain pool", SIGIR 2016 §2)."""
    # grades 2, 0 with judged {2, 1}, g_max = 2: gains 1, 0; pool 1.5; r_t = 1/1.5
    got = single.rbp_prime([2, 0], qrels_grades=[2, 1, 0], p=0.5, graded=True)
    assert got == pytest.approx(0.5 * 1.0 + (1 / 1.5) * 0.25)


def test_by_and_polars_give_the_same_terminal_values():
    run, qrels, _ = _table_frames()
    both = pd.concat([run.assign(s="A"), run.assign(s="B")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = both.ir.evaluate(qrels, METRICS, by="s")
    assert (res.loc["A"].to_numpy() == res.loc["B"].to_numpy()).all()
