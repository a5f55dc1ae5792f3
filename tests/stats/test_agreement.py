"""trunc_accessor.agreement: Kendall's τ-b against scipy, τ_AP against a loop over the
paper's formula (and the brute-force mean over tie-breakings), RBO against the paper's
definitions (eq. 7 evaluated on explicit extensions of the rankings) and the `rbo` PyPI
package (changyaochen/rbo)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from trunc_accessor.errors import InputError
from trunc_accessor.stats.agreement import kendall_tau, metric_agreement, tau_ap
from trunc_accessor.stats.rbo import overlap, rbo


def reference_package():
    """The reference package (changyaochen/rbo), or None: it is not a declared dependency,
    since it pins numpy < 2; the comparisons with it run where it is installed."""
    try:
        import rbo
    except ImportError:
        return None
    return rbo

SETTINGS = settings(max_examples=150, deadline=None)


# --------------------------------------------------------------------------- references
def tau_ap_loop(truth, est):
    """τ_AP straight from Yilmaz et al. 2008 (strict orders only)."""
    order = sorted(range(len(est)), key=lambda i: -est[i])
    n = len(order)
    total = 0.0
    for pos in range(1, n):
        i = order[pos]
        c = sum(1 for j in order[:pos] if truth[j] > truth[i])
        total += c / pos
    return 2 * total / (n - 1) - 1


def tie_broken(values, priority):
    """A strict version of ``values``: equal values ordered by ``priority`` (higher first)."""
    ranks = sorted(range(len(values)), key=lambda i: (values[i], priority[i]))
    out = [0.0] * len(values)
    for r, i in enumerate(ranks):
        out[i] = float(r)
    return out


def rbo_prefix(S, T, p, depth):
    """Eq. 7 summed to ``depth``: (1−p) Σ p^{d−1} |S_{:d} ∩ T_{:d}| / d."""
    total, seen_s, seen_t, x = 0.0, set(), set(), 0
    for d in range(1, depth + 1):
        a, b = S[d - 1], T[d - 1]
        if a == b:
            x += 1
        else:
            x += (a in seen_t) + (b in seen_s)
        seen_s.add(a)
        seen_t.add(b)
        total += (1 - p) * p ** (d - 1) * x / d
    return total


def extend_min(S, T, depth):
    """Both rankings continued with documents nobody else ever ranks."""
    return (S + [f"s{i}" for i in range(depth - len(S))],
            T + [f"t{i}" for i in range(depth - len(T))])


def extend_max(S, T, depth):
    """Both rankings continued to agree as early as possible (the residual's assumption)."""
    S2 = S + [d for d in T if d not in set(S)]
    T2 = T + [d for d in S if d not in set(T)]
    assert len(S2) == len(T2)
    fresh = [f"c{i}" for i in range(depth - len(S2))]
    return S2 + fresh, T2 + fresh


def extend_random(S, T, depth, rng):
    pool = [f"r{i}" for i in range(depth)] + list(S) + list(T)
    S2 = S + [d for d in rng.permutation(pool) if d not in set(S)]
    T2 = T + [d for d in rng.permutation(pool) if d not in set(T)]
    return S2[:depth], T2[:depth]


def frame(S, qid="q", library="pandas"):
    df = pd.DataFrame({"qid": qid, "docid": list(S), "score": np.arange(len(S), 0, -1.0)})
    return df if library == "pandas" else pl.from_pandas(df)


def one(result):
    return result.iloc[0] if isinstance(result, pd.DataFrame) else result.row(0, named=True)


rankings = st.integers(1, 12).flatmap(
    lambda n: st.tuples(st.permutations(range(n)), st.integers(1, n), st.integers(1, n)))


def two_rankings(data):
    """Two rankings drawn from a common pool (shared and unshared documents), lengths may
    differ."""
    pool, ls, lt = data
    pool = [f"d{i}" for i in pool]
    S = pool[:ls]
    T = list(np.random.default_rng(ls * 31 + lt).permutation(pool))[:lt]
    return S, T


# --------------------------------------------------------------------------- Kendall's τ
@SETTINGS
@given(st.integers(2, 25).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n))))
def test_kendall_tau_equals_scipy(xy):
    x, y = xy
    ours = kendall_tau(x, y)
    ref = scipy.stats.kendalltau(x, y).statistic
    if np.isnan(ref):
        assert np.isnan(ours)
    else:
        assert abs(ours - ref) <= 1e-12


def test_kendall_tau_edges_and_series():
    assert np.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    assert np.isnan(kendall_tau([1], [1]))
    assert np.isnan(kendall_tau([1, np.nan, 2], [1, 2, 3]))
    a = pd.Series([3.0, 2.0, 1.0], index=["x", "y", "z"])
    b = pd.Series([1.0, 2.0, 3.0], index=["z", "y", "x"])  # same order, other index order
    assert kendall_tau(a, b) == pytest.approx(1.0)
    with pytest.raises(InputError):
        kendall_tau(a, pd.Series([1.0, 2.0], index=["x", "y"]))
    with pytest.raises(InputError):
        kendall_tau([1, 2], [1, 2, 3])


# --------------------------------------------------------------------------- τ_AP
@SETTINGS
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(st.permutations(range(n)),
                                                      st.permutations(range(n)))))
def test_tau_ap_equals_paper_formula_without_ties(xy):
    x, y = xy
    assert abs(tau_ap(x, y) - tau_ap_loop(x, y)) <= 1e-12
    assert abs(tau_ap(x, y, ties="nan") - tau_ap_loop(x, y)) <= 1e-12
    sym = (tau_ap_loop(x, y) + tau_ap_loop(y, x)) / 2
    assert abs(tau_ap(x, y, symmetric=True) - sym) <= 1e-12


@pytest.mark.parametrize("n", [3, 4, 7, 20])
def test_tau_ap_paper_properties(n):
    truth = list(range(n, 0, -1))
    assert tau_ap(truth, truth) == pytest.approx(1.0, abs=1e-12)
    assert tau_ap(truth, truth[::-1]) == pytest.approx(-1.0, abs=1e-12)
    top = [truth[1], truth[0]] + truth[2:]
    bottom = truth[:-2] + [truth[-1], truth[-2]]
    # one swap: C(2) = 0 at the top, C(n) = n − 2 at the bottom
    assert tau_ap(truth, top) == pytest.approx((n - 3) / (n - 1), abs=1e-12)
    expect_bottom = 2 / (n - 1) * ((n - 2) + (n - 2) / (n - 1)) - 1
    assert tau_ap(truth, bottom) == pytest.approx(expect_bottom, abs=1e-12)
    # Kendall's τ cannot tell the two swaps apart; τ_AP penalises the top one more
    assert kendall_tau(truth, top) == pytest.approx(kendall_tau(truth, bottom))
    if n > 3:
        assert tau_ap(truth, top) < tau_ap(truth, bottom)


def test_tau_ap_is_asymmetric():
    a, b = [5, 4, 3, 2, 1], [4, 5, 1, 3, 2]
    assert tau_ap(a, b) != pytest.approx(tau_ap(b, a))
    assert tau_ap(a, b, symmetric=True) == pytest.approx((tau_ap(a, b) + tau_ap(b, a)) / 2)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 2), min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n))))
def test_tau_ap_ties_average_is_the_mean_over_tie_breakings(xy):
    x, y = xy
    n = len(x)
    values = [tau_ap_loop(tie_broken(x, px), tie_broken(y, py))
              for px in itertools.permutations(range(n))
              for py in itertools.permutations(range(n))]
    assert abs(tau_ap(x, y) - np.mean(values)) <= 1e-12
    has_ties = len(set(x)) < n or len(set(y)) < n
    assert np.isnan(tau_ap(x, y, ties="nan")) == has_ties


def test_tau_ap_arguments():
    with pytest.raises(InputError):
        tau_ap([1, 2], [1, 2], ties="drop")
    assert np.isnan(tau_ap([1.0], [1.0]))
    assert np.isnan(tau_ap([1.0, np.nan], [1.0, 2.0]))


# --------------------------------------------------------------------------- metric_agreement
def test_metric_agreement_pandas_and_polars():
    rng = np.random.default_rng(0)
    means = pd.DataFrame(rng.random((9, 3)), columns=["ap", "ndcg", "p10"],
                         index=[f"s{i}" for i in range(9)])
    means.iloc[2, 1] = np.nan                       # one undefined mean
    out = metric_agreement(means)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["metric_a", "metric_b", "kendall_tau", "tau_ap",
                                 "tau_ap_symmetric"]
    assert len(out) == 6
    for row in out.itertuples():
        x, y = means[row.metric_a], means[row.metric_b]
        ok = x.notna() & y.notna()
        assert row.kendall_tau == pytest.approx(scipy.stats.kendalltau(x[ok], y[ok]).statistic,
                                                abs=1e-12)
        assert row.tau_ap == pytest.approx(tau_ap_loop(list(x[ok]), list(y[ok])), abs=1e-12)
        assert row.tau_ap_symmetric == pytest.approx(tau_ap(x[ok], y[ok], symmetric=True))
    polars_in = pl.from_pandas(means.reset_index(names="system"))
    out_pl = metric_agreement(polars_in)
    assert isinstance(out_pl, pl.DataFrame)
    pd.testing.assert_frame_equal(out_pl.to_pandas(), out, check_dtype=False)


# --------------------------------------------------------------------------- RBO
@SETTINGS
@given(rankings, st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_rbo_ext_equals_rbo_package(data, p):
    rbo_pkg = reference_package()
    if rbo_pkg is None:
        pytest.skip("the reference package rbo is not installed")
    S, T = two_rankings(data)
    got = one(rbo(frame(S), frame(T), p=p))
    ref = rbo_pkg.RankingSimilarity(S, T).rbo_ext(p=p)
    assert abs(got["rbo_ext"] - ref) <= 1e-12
    # and symmetric in its two arguments
    assert abs(one(rbo(frame(T), frame(S), p=p))["rbo_ext"] - got["rbo_ext"]) <= 1e-12


@SETTINGS
@given(rankings, st.sampled_from([0.5, 0.8, 0.9]))
def test_rbo_bounds_from_the_definition(data, p):
    """rbo_min and rbo_min + residual are eq. 7 on the worst and best continuations; any
    continuation lies between them."""
    rbo_pkg = reference_package()
    S, T = two_rankings(data)
    got = one(rbo(frame(S), frame(T), p=p))
    depth = 400                                   # p^400 < 1e-18
    assert abs(rbo_prefix(*extend_min(S, T, depth), p, depth) - got["rbo_min"]) <= 1e-12
    best = rbo_prefix(*extend_max(S, T, depth), p, depth)
    assert abs(best - (got["rbo_min"] + got["residual"])) <= 1e-12
    rng = np.random.default_rng(len(S) * 100 + len(T))
    for _ in range(3):
        value = rbo_prefix(*extend_random(S, T, depth, rng), p, depth)
        assert got["rbo_min"] - 1e-12 <= value <= got["rbo_min"] + got["residual"] + 1e-12
    assert got["rbo_min"] - 1e-12 <= got["rbo_ext"] <= got["rbo_min"] + got["residual"] + 1e-12
    if rbo_pkg is None:
        return
    # the package's rbo() is eq. 7 to the shorter length, never above our lower bound
    assert rbo_pkg.RankingSimilarity(S, T).rbo(p=p) <= got["rbo_min"] + 1e-12
    if len(S) == len(T):   # even lengths: eq. 11 = prefix sum + X_k Σ_{d>k} (1−p)p^{d−1}/d
        k = len(S)
        x_k = len(set(S) & set(T))
        tail = sum((1 - p) * p ** (d - 1) / d for d in range(k + 1, 2000))
        ref = rbo_pkg.RankingSimilarity(S, T).rbo(p=p) + x_k * tail
        assert abs(got["rbo_min"] - ref) <= 1e-12


def test_rbo_paper_properties():
    p = 0.9
    S = list("abcdefgh")
    same = one(rbo(frame(S), frame(S), p=p))
    assert same["rbo_ext"] == pytest.approx(1.0, abs=1e-12)
    assert same["rbo_min"] + same["residual"] == pytest.approx(1.0, abs=1e-12)
    disjoint = one(rbo(frame(S), frame(list("ijklmnop")), p=p))
    assert disjoint["rbo_min"] == 0 and disjoint["rbo_ext"] == 0
    # eq. 13 for disjoint prefixes of length k: f = 2k, residual = 2p^k − p^{2k}
    #   − (1−p)/p · 2k Σ_{k<d≤2k} p^d/d
    k = 8
    ref = 2 * p ** k - p ** (2 * k) - (1 - p) / p * 2 * k * sum(
        p ** d / d for d in range(k + 1, 2 * k + 1))
    assert disjoint["residual"] == pytest.approx(ref, abs=1e-12)
    # the weight of the first d ranks (eq. 21): W(1:10) ≈ 0.86 at p = 0.9, so agreeing on
    # the top ten and nothing else gives rbo_min above 0.86
    top = list("abcdefghij")
    got = one(rbo(frame(top), frame(top), p=p))
    w = 1 - p ** 9 + (1 - p) / p * 10 * (math.log(1 / (1 - p)) - sum(p ** i / i
                                                                    for i in range(1, 10)))
    assert w == pytest.approx(0.8556, abs=1e-4)
    assert got["rbo_min"] > w


def test_rbo_many_queries_match_one_at_a_time():
    rbo_pkg = reference_package()
    rng = np.random.default_rng(7)
    rows_a, rows_b, singles = [], [], {}
    for q in range(25):
        pool = [f"d{i}" for i in rng.permutation(15)]
        S = pool[:rng.integers(1, 12)]
        T = list(rng.permutation(pool))[:rng.integers(1, 12)]
        rows_a += [(q, d, -i) for i, d in enumerate(S)]
        rows_b += [(q, d, -i) for i, d in enumerate(T)]
        singles[q] = (S, T)
    a = pd.DataFrame(rows_a, columns=["qid", "docid", "score"]).sample(frac=1, random_state=1)
    b = pd.DataFrame(rows_b, columns=["qid", "docid", "score"]).sample(frac=1, random_state=2)
    b.loc[len(b)] = (99, "z", 1.0)                   # a query only `other` has
    out = rbo(a, b, p=0.8)
    assert list(out.columns) == ["rbo_min", "rbo_ext", "residual"]
    assert out.index.name == "qid" and list(out.index) == [*range(25), 99]
    for q, (S, T) in singles.items():
        ref = rbo(frame(S), frame(T), p=0.8).iloc[0]
        np.testing.assert_allclose(out.loc[q].to_numpy(), ref.to_numpy(), atol=1e-12)
        if rbo_pkg is not None:
            assert out.loc[q, "rbo_ext"] == pytest.approx(
                rbo_pkg.RankingSimilarity(S, T).rbo_ext(p=0.8), abs=1e-12)
    assert out.loc[99, "rbo_min"] == 0 and out.loc[99, "residual"] == 1
    assert np.isnan(out.loc[99, "rbo_ext"])
    # Polars in, Polars out, same numbers (a missing value is null)
    out_pl = rbo(pl.from_pandas(a), pl.from_pandas(b), p=0.8)
    assert isinstance(out_pl, pl.DataFrame) and out_pl.columns == ["qid", *out.columns]
    np.testing.assert_allclose(out_pl.drop("qid").fill_null(np.nan).to_numpy(),
                               out.to_numpy(), atol=0)


def test_rbo_ordering_rank_ties_and_depth():
    rbo_pkg = reference_package()
    # ties in score keep input order: b before a
    tied = pd.DataFrame({"qid": "q", "docid": ["b", "a", "c"], "score": [1.0, 1.0, 0.5]})
    ref = rbo(frame(["b", "a", "c"]), frame(["a", "b", "c"]))
    pd.testing.assert_frame_equal(rbo(tied, frame(["a", "b", "c"])), ref)
    # a rank column wins over the scores
    ranked = pd.DataFrame({"qid": "q", "docid": ["c", "a", "b"], "score": [9.0, 8.0, 7.0],
                           "rank": [3, 2, 1]})
    pd.testing.assert_frame_equal(rbo(ranked, frame(["a", "b", "c"])),
                                  rbo(frame(["b", "a", "c"]), frame(["a", "b", "c"])))
    # depth keeps the top of each ranking
    S, T = list("abcdefg"), list("gfedcba")
    pd.testing.assert_frame_equal(rbo(frame(S), frame(T), depth=3),
                                  rbo(frame(S[:3]), frame(T[:3])))
    # other column aliases, and ids of different types joined as strings
    a = pd.DataFrame({"query_id": [1, 1], "docno": [10, 11], "score": [2.0, 1.0]})
    b = pd.DataFrame({"query_id": ["1", "1"], "docno": ["11", "10"], "score": [2.0, 1.0]})
    out = rbo(a, b)
    assert out.index.name == "query_id"
    assert out.iloc[0, 1] == pytest.approx(rbo(frame(["10", "11"]), frame(["11", "10"]))
                                           .iloc[0, 1])
    if rbo_pkg is not None:
        assert out.iloc[0, 1] == pytest.approx(rbo_pkg.RankingSimilarity([10, 11], [11, 10])
                                               .rbo_ext(p=0.9))


def test_rbo_errors():
    a = frame(list("abc"))
    for p in (0, 1, 1.5, True):
        with pytest.raises(InputError):
            rbo(a, a, p=p)
    with pytest.raises(InputError):
        rbo(a, a, depth=0)
    dup = pd.DataFrame({"qid": "q", "docid": ["a", "a"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="twice"):
        rbo(dup, a)


@SETTINGS
@given(rankings, st.integers(1, 14))
def test_overlap_is_set_intersection(data, k):
    S, T = two_rankings(data)
    got = overlap(frame(S), frame(T), k)
    assert list(got.columns) == [f"overlap@{k}"]
    assert got.iloc[0, 0] == pytest.approx(len(set(S[:k]) & set(T[:k])) / k, abs=0)
    got_pl = overlap(frame(S, library="polars"), frame(T, library="polars"), k)
    assert got_pl[f"overlap@{k}"][0] == got.iloc[0, 0]


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_accessor_methods(library, cranfield):
    """run.ir.rbo(other) and run.ir.overlap(other, k) are the module's functions."""
    runs, _ = cranfield
    a = runs[runs.system == "bm25"].drop(columns="system")
    b = runs[runs.system == "tfidf"].drop(columns="system")
    want_rbo, want_overlap = rbo(a, b, p=0.8), overlap(a, b, 10)
    frame = a if library == "pandas" else pl.from_pandas(a)
    frame = frame.lazy() if library == "lazy" else frame
    got_rbo, got_overlap = frame.ir.rbo(b, p=0.8), frame.ir.overlap(b, 10)
    if library != "pandas":
        got_rbo = got_rbo.to_pandas().set_index("qid")
        got_overlap = got_overlap.to_pandas().set_index("qid")
    np.testing.assert_allclose(got_rbo.to_numpy(), want_rbo.to_numpy(), atol=0)
    np.testing.assert_allclose(got_overlap.to_numpy(), want_overlap.to_numpy(), atol=0)
