"""Utility metrics (Amigó, Mizzaro & Spina, SIGIR 2022, §3.3) and the set-based F-measure:
hand-checked values, brute-force tie averages, empty rankings and nil-answer queries, and
the paper's formal properties (§2) with the exact conditions under which they hold."""
from __future__ import annotations

import math
import random
import warnings

import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference_utility as refu
from tests.strategies import assert_matches_brute_force, frames_of, random_queries
from trunc_accessor import single

L2 = math.log2
E = 0.05


# --------------------------------------------------------------------------- hand-checked
def test_hand_checked_binary():
    r = [1, 0, 1, None]  # None: unjudged (gain 0)
    # U = (1 − .05) + (0 − .05) + (1 − .05) + (0 − .05) = 1.8
    assert single.flat_utility(r, R=3) == pytest.approx(1.8, abs=1e-12)
    # DCGU = .95/log2 2 − .05/log2 3 + .95/log2 4 − .05/log2 5
    #      = .95 − .0315465 + .475 − .0215338 = 1.3719197
    assert single.dcgu(r, R=3) == pytest.approx(1.3719197, abs=1e-7)
    # RBPU(p=.8) = .2 · (.95 − .05·.8 + .95·.64 − .05·.512) = .2 · 1.4924 = .29848
    assert single.rbpu(r, R=3) == pytest.approx(0.29848, abs=1e-12)
    # RBPU(p=.5, e=.1) = .5 · (.9 − .1·.5 + .9·.25 − .1·.125) = .5 · 1.0625 = .53125
    assert single.rbpu(r, R=3, p=0.5, e=0.1) == pytest.approx(0.53125, abs=1e-12)
    # e = 0: RBPU is RBP, .2 · (1 + .64) = .328
    assert single.rbpu(r, R=3, e=0) == pytest.approx(0.328, abs=1e-12)
    # relevance_level=2 on grades 3 1 0 2: binary gains 1 0 0 1, U = 2 − 4·.05
    assert single.flat_utility([3, 1, 0, 2], relevance_level=2) == pytest.approx(1.8, abs=1e-12)


def test_hand_checked_graded():
    r = [3, 1, 0, 2]  # top of the scale 3: gains 1, 1/3, 0, 2/3
    # U = (1 + 1/3 + 0 + 2/3) − 4·.05 = 1.8
    assert single.flat_utility(r, graded=True) == pytest.approx(1.8, abs=1e-12)
    # DCGU = .95 + (1/3 − .05)/log2 3 − .05/log2 4 + (2/3 − .05)/log2 5
    #      = .95 + .1787662 − .025 + .2655811 = 1.3693473
    assert single.dcgu(r, graded=True) == pytest.approx(1.3693473, abs=1e-7)
    # RBPU = .2 · (.95 + .283333·.8 − .05·.64 + .616667·.512) = .2 · 1.4604 = .29208
    assert single.rbpu(r, graded=True) == pytest.approx(0.29208, abs=1e-12)
    # max_grade=4: gains .75 .25 0 .5, U = 1.5 − .2
    assert single.flat_utility(r, graded=True, max_grade=4) == pytest.approx(1.3, abs=1e-12)


def test_hand_checked_f_measure():
    # 2 of 4 retrieved relevant, R = 3: P = 1/2, R = 2/3, F = 2PR/(P+R) = 4/7
    assert single.f_measure([1, 0, 1, None], R=3) == pytest.approx(4 / 7, abs=1e-12)
    assert single.f_measure([], R=0) == 1.0          # nil query answered with nothing
    assert single.f_measure([0, None], R=0) == 0.0   # nil query answered with something
    assert single.f_measure([], R=2) == 0.0          # nothing retrieved, something to find
    assert single.f_measure([1], R=1) == 1.0
    assert single.f_measure([3, 1, 0], relevance_level=2) == pytest.approx(2 / 4, abs=1e-12)


def test_hand_checked_ties():
    # one tie group {1, 0}: orders (1, 0) and (0, 1)
    # DCGU: (.95 − .05/log2 3 + −.05 + .95/log2 3) / 2 = .45 + .45/log2 3 = .7339184
    assert single.dcgu([1, 0], scores=[1, 1]) == pytest.approx(0.7339184, abs=1e-7)
    # RBPU(p=.5): (.5·(.95 − .025) + .5·(−.05 + .475)) / 2 = (.4625 + .2125)/2 = .3375
    assert single.rbpu([1, 0], scores=[1, 1], p=0.5) == pytest.approx(0.3375, abs=1e-12)
    # ties="first" keeps the order given
    assert single.rbpu([0, 1], scores=[1, 1], p=0.5, ties="first") == pytest.approx(0.2125)


def test_parameters_are_checked_and_labelled():
    with pytest.raises(ValueError, match="e must be"):
        single.dcgu([1], e=-0.1)
    with pytest.raises(ValueError, match="p must be"):
        single.rbpu([1], p=1.0)
    assert ta.parse("rbpu(p=0.9, e=0.05)").label == "rbpu(p=0.9)"
    assert ta.parse(("dcgu", {"e": 0.1})).label == "dcgu(e=0.1)"
    assert ta.parse("f_measure").label == "f_measure"


# --------------------------------------------------------------------------- ties
def _cases(p, e):
    return [
        (("flat_utility", {"e": e}), refu.flat_utility, {"e": e}),
        (("dcgu", {"e": e}), refu.dcgu, {"e": e}),
        (("rbpu", {"p": p, "e": e}), refu.rbpu, {"p": p, "e": e}),
        ("f_measure", refu.f_measure, {}),
    ]


def _graded_cases(p, e, max_grade, scale):
    kw = {"graded": True, "max_grade": max_grade}
    ref_kw = {"graded": True, "max_grade": max_grade if max_grade is not None else scale}
    return [
        (("flat_utility", {"e": e, **kw}), refu.flat_utility, {"e": e, **ref_kw}),
        (("dcgu", {"e": e, **kw}), refu.dcgu, {"e": e, **ref_kw}),
        (("rbpu", {"p": p, "e": e, **kw}), refu.rbpu, {"p": p, "e": e, **ref_kw}),
    ]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=random_queries(), p=st.sampled_from([0.3, 0.8, 0.98]),
       e=st.sampled_from([0.0, 0.05, 0.3]), level=st.sampled_from([1, 2]),
       max_grade=st.sampled_from([None, 3.0, 5.0]), seed=st.integers(0, 10**6))
def test_tie_aware_equals_brute_force_mean(queries, p, e, level, max_grade, seed):
    """Random multi-query runs, scores from four values (heavy ties), through the pandas
    accessor: each query's value is the mean over every order of its tie groups of the
    naive definition (tests/reference_utility.py)."""
    run, qrels = frames_of(queries, random.Random(seed))
    scale = float(qrels["rel"].max()) if len(qrels) else 0.0  # the qrels' top grade
    cases = _cases(p, e) + _graded_cases(p, e, max_grade, scale)
    assert_matches_brute_force(run, qrels, queries, cases, level)


@settings(max_examples=60, deadline=None)
@given(grades=st.lists(st.sampled_from([None, 0, 1, 2, 3]), max_size=7),
       scores=st.lists(st.integers(0, 2), min_size=7, max_size=7))
def test_f_measure_is_tie_invariant(grades, scores):
    s = sorted((float(x) for x in scores[: len(grades)]), reverse=True)
    judged = [g for g in grades if g is not None] + [1]
    a = single.f_measure(grades, scores=s, qrels_grades=judged)
    b = single.f_measure(list(reversed(grades)), qrels_grades=judged, ties="first")
    assert a == b == pytest.approx(refu.f_measure(grades, judged, 1), abs=1e-12)


# --------------------------------------------------------------------------- empty / nil
def _nil_and_empty_frames():
    # q1: ordinary; q2: nil query (judged, nothing relevant) with 3 documents retrieved;
    # q3: judged relevant documents but no rows in the run (empty ranking, R = 2);
    # q4: in queries= only (empty ranking, R = 0)
    run = pd.DataFrame({"qid": ["q1", "q1", "q2", "q2", "q2"],
                        "docid": ["a", "b", "c", "d", "e"],
                        "score": [2.0, 1.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q1", "q2", "q3", "q3"], "docid": ["a", "c", "x", "y"],
                          "rel": [1, 0, 1, 2]})
    return run, qrels


NIL_EMPTY = {
    # q1 = [1, 0], R = 1
    "flat_utility": {"q1": 0.95 - 0.05, "q2": -3 * E, "q3": 0.0, "q4": 0.0},
    "dcgu": {"q1": 0.95 - 0.05 / L2(3), "q2": -E * (1 + 1 / L2(3) + 1 / L2(4)),
             "q3": 0.0, "q4": 0.0},
    "rbpu": {"q1": 0.2 * (0.95 - 0.05 * 0.8), "q2": -E * (1 - 0.8 ** 3), "q3": 0.0, "q4": 0.0},
    "f_measure": {"q1": 2 / 3, "q2": 0.0, "q3": 0.0, "q4": 1.0},
}


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_empty_rankings_and_nil_queries(library):
    run, qrels = _nil_and_empty_frames()
    if library != "pandas":
        run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
    if library == "lazy":
        run = run.lazy()
    res = run.ir.evaluate(qrels, list(NIL_EMPTY), queries=["q4"])
    if library != "pandas":
        res = (res.collect() if library == "lazy" else res).to_pandas().set_index("qid")
    for metric, values in NIL_EMPTY.items():
        for qid, want in values.items():
            assert res.loc[qid, metric] == pytest.approx(want, abs=1e-12), (metric, qid)


def test_empty_ranking_single():
    for name in ("flat_utility", "dcgu", "rbpu"):
        fn = getattr(single, name)
        assert fn([], R=0) == 0.0 and fn([], R=3) == 0.0 and fn([], graded=True) == 0.0


def test_method_on_pandas_accessor():
    run, qrels = _nil_and_empty_frames()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = run.ir.rbpu(qrels, p=0.5, e=0.1)
    # q1 = [1, 0]: .5 · (.9 − .1·.5) = .425
    assert got.name == "rbpu(p=0.5,e=0.1)"
    assert got.loc["q1"] == pytest.approx(0.425, abs=1e-12)


# --------------------------------------------------------------------------- properties
# The paper's properties (§2) for Rel ∈ [0, 1]; gains here are the metrics' own gains, so a
# "relevant" document has gain 1 and a non-relevant one gain 0. ties="first" throughout.
UTILITY = {"flat_utility": lambda i, p: 1.0,                  # f(i) of each metric
           "dcgu": lambda i, p: 1.0 / L2(i + 1),
           "rbpu": lambda i, p: (1 - p) * p ** (i - 1)}
P_VALUES = st.sampled_from([0.5, 0.8, 0.9, 0.98])
BINARY = st.lists(st.sampled_from([0, 1, None]), max_size=12)
GRADED = st.lists(st.sampled_from([0, 1, 2, 3, None]), max_size=12)


def _u(name, r, p, e, **kw):
    extra = {"p": p} if name == "rbpu" else {}
    return getattr(single, name)(r, ties="first", e=e, qrels_grades=[3], **extra, **kw)


@settings(max_examples=80, deadline=None)
@given(r=GRADED, p=P_VALUES, e=st.floats(1e-3, 1.0), graded=st.booleans())
def test_confidence_utility(r, p, e, graded):
    """P5 (eq. 2): appending a non-relevant document lowers the score by exactly e·f(n+1),
    so CONFIDENCE holds for every e > 0 (§3.3)."""
    n = len(r)
    for name, f in UTILITY.items():
        before = _u(name, r, p, e, graded=graded)
        after = _u(name, r + [0], p, e, graded=graded)
        assert after - before == pytest.approx(-e * f(n + 1, p), rel=1e-9, abs=1e-15)
        assert after < before
        # e = 0: the metric without effort, appending changes nothing
        assert _u(name, r + [0], p, 0.0, graded=graded) == pytest.approx(
            _u(name, r, p, 0.0, graded=graded), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(r=BINARY, R_extra=st.integers(0, 4))
def test_confidence_f_measure(r, R_extra):
    """P5 for F: strict exactly when something relevant is retrieved, or for the empty answer
    to a nil query (1 → 0); otherwise F is 0 before and after."""
    R = sum(1 for g in r if g == 1) + R_extra
    before, after = single.f_measure(r, R=R), single.f_measure(r + [0], R=R)
    hits = sum(1 for g in r if g == 1)
    if hits > 0 or (not r and R == 0):
        assert after < before
    else:
        assert after == before == 0.0


@st.composite
def swap_cases(draw):
    r = draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=2, max_size=12))
    i, j = sorted(draw(st.lists(st.integers(0, len(r) - 1), min_size=2, max_size=2,
                                unique=True)))
    lo = draw(st.integers(0, 2))
    r[i], r[j] = lo, draw(st.integers(lo + 1, 3))
    return r, i, j


@settings(max_examples=100, deadline=None)
@given(case=swap_cases(), p=P_VALUES, e=st.floats(0.0, 1.0))
def test_priority(case, p, e):
    """P1: swapping d_i and d_{i+k} with Rel(d_{i+k}) > Rel(d_i) raises DCGU and RBPU (their
    discounts strictly decrease); flat utility and F, which ignore the order, do not change
    (Table 1: neither satisfies PRIORITY)."""
    r, i, j = case
    s = list(r)
    s[i], s[j] = s[j], s[i]
    for name in ("dcgu", "rbpu"):
        assert _u(name, s, p, e, graded=True) > _u(name, r, p, e, graded=True)
    assert _u("flat_utility", s, p, e, graded=True) == pytest.approx(
        _u("flat_utility", r, p, e, graded=True), abs=1e-12)
    judged = r + [1]
    assert single.f_measure(s, qrels_grades=judged) == single.f_measure(r, qrels_grades=judged)


@st.composite
def top_weighted_cases(draw):
    n = draw(st.integers(4, 12))
    r = draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=n, max_size=n))
    i = draw(st.integers(0, n - 4))
    j = draw(st.integers(i + 2, n - 2))  # j ≥ i + 2: d_{i+1} and d_j are different documents
    lo = draw(st.integers(0, 2))
    hi = draw(st.integers(lo + 1, 3))
    r[i], r[i + 1], r[j], r[j + 1] = lo, hi, lo, hi
    return r, i, j


def _swap(r, i):
    s = list(r)
    s[i], s[i + 1] = s[i + 1], s[i]
    return s


@settings(max_examples=100, deadline=None)
@given(case=top_weighted_cases(), p=P_VALUES, e=st.floats(0.0, 1.0))
def test_top_weightedness(case, p, e):
    """P2 (with the swap at j on the right-hand side; the printed formula repeats i):
    Rel(d_i) = Rel(d_j) < Rel(d_{i+1}) = Rel(d_{j+1}), i < j ⇒ M(d_{i↔i+1}) > M(d_{j↔j+1}).
    Holds for DCGU and RBPU (f(i) − f(i+1) decreases in i); flat utility gives equality."""
    r, i, j = case
    for name in ("dcgu", "rbpu"):
        assert _u(name, _swap(r, i), p, e, graded=True) > _u(name, _swap(r, j), p, e, graded=True)
    assert _u("flat_utility", _swap(r, i), p, e, graded=True) == pytest.approx(
        _u("flat_utility", _swap(r, j), p, e, graded=True), abs=1e-12)


@pytest.mark.parametrize("p", [0.8, 0.9, 0.98])
def test_deepness_threshold_rbpu(p):
    """P3 for RBPU, e = 1/20: RBPU(0^n 1^n) = (1 − e)(p^n − p^2n) − e(1 − p^n) ≤ p^n − e,
    so it is below RBPU(1) = (1 − p)(1 − e) for every n with p^n < (1 − p)(1 − e) + e:
    n ≥ 7, 19, 133 for p = .8, .9, .98."""
    n0 = {0.8: 7, 0.9: 19, 0.98: 133}[p]
    assert p ** n0 < (1 - p) * (1 - E) + E <= p ** (n0 - 1)
    top = single.rbpu([1], p=p)
    assert top == pytest.approx((1 - p) * (1 - E))
    for n in range(n0, n0 + 300):
        assert single.rbpu([0] * n + [1] * n, p=p) < top, n


def test_deepness_threshold_fails_for_flat_and_dcgu():
    """Table 1: flat utility and DCGU do not satisfy DEEPNESS THRESHOLD: for every n ≥ 3,
    n relevant documents after n non-relevant ones beat a single relevant one at rank 1
    (flat: n(1 − 2e) vs 1 − e; DCGU grows like n / log n)."""
    for n in range(3, 300):
        for name in ("flat_utility", "dcgu"):
            fn = getattr(single, name)
            assert fn([0] * n + [1] * n) > fn([1]), (name, n)


def test_shallowness_threshold():
    """P4 (eq. 1), with a witness m for each metric (e = 1/20):
    flat, m = 2: 2(1 − e) − 2e = 1.8 > 1 − e = .95;
    DCGU, m = 3: −.05(1 + 1/log2 3 + 1/log2 4) + .95(1/log2 5 + 1/log2 6 + 1/log2 7)
                 = 1.0085 > .95;
    RBPU p = .8, m = 3: .95(.8^3 − .8^6) − .05(1 − .8^3) = .21296 > .2 · .95 = .19."""
    assert single.flat_utility([0, 0, 1, 1]) == pytest.approx(1.8)
    assert single.flat_utility([0, 0, 1, 1]) > single.flat_utility([1])
    assert single.dcgu([0, 0, 0, 1, 1, 1]) == pytest.approx(1.0085032, abs=1e-7)
    assert single.dcgu([0, 0, 0, 1, 1, 1]) > single.dcgu([1])
    assert single.rbpu([0, 0, 0, 1, 1, 1]) == pytest.approx(0.2129632, abs=1e-9)
    assert single.rbpu([0, 0, 0, 1, 1, 1]) > single.rbpu([1])
    for p in (0.9, 0.98):  # the paper's other p values: some m ≤ 100 works
        assert any(single.rbpu([0] * m + [1] * m, p=p) > single.rbpu([1], p=p)
                   for m in range(1, 101))


@settings(max_examples=60, deadline=None)
@given(r=BINARY, missing=st.integers(0, 4), p=P_VALUES)
def test_recall(r, missing, p):
    """P6: an extra relevant document in the collection, not retrieved, lowers F whenever the
    ranking holds a relevant document; the utility metrics do not see it (Table 1: they do
    not satisfy RECALL; §3.3: DCGU cannot be normalised)."""
    hits = sum(1 for g in r if g == 1)
    R = hits + missing
    if hits:
        assert single.f_measure(r, R=R + 1) < single.f_measure(r, R=R)
    for name in UTILITY:
        extra = {"p": p} if name == "rbpu" else {}
        fn = getattr(single, name)
        assert fn(r, R=R + 1, **extra) == fn(r, R=R, **extra)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), R=st.integers(2, 10), p=P_VALUES, e=st.floats(0.0, 1.0))
def test_redundancy_not_satisfied(n, R, p, e):
    """P7: M(0^n 1) − M(0^n 0) vs M(0^(n−1) 1 1) − M(0^(n−1) 1 0). The utility metrics are
    linear in the gains, so both differences are f(n+1) exactly (Table 1: flat utility, DCGU
    and RBPU do not satisfy REDUNDANCY). F gives 2/(n + 1 + R) on both sides, so the printed
    P7 is not satisfied by F either, though §3.1 says F captures REDUNDANCY."""
    def diff(fn, head, **kw):
        return fn(head + [1], R=R, **kw) - fn(head + [0], R=R, **kw)

    for name, f in UTILITY.items():
        kw = {"e": e, **({"p": p} if name == "rbpu" else {})}
        fn = getattr(single, name)
        first = diff(fn, [0] * n, **kw)
        second = diff(fn, [0] * (n - 1) + [1], **kw)
        assert first == pytest.approx(f(n + 1, p), rel=1e-9)
        assert second == pytest.approx(f(n + 1, p), rel=1e-9)
    first = diff(single.f_measure, [0] * n)
    second = diff(single.f_measure, [0] * (n - 1) + [1])
    assert first == pytest.approx(2 / (n + 1 + R)) and second == pytest.approx(2 / (n + 1 + R))
