"""Paired significance tests, multiple-testing corrections and interval methods, each
declared once (name, caption label, citation, how it computes): ``TESTS``,
``CORRECTIONS``, ``CIS``; ``multipletests``; the resampling tests
(randomisation, bootstrap) vectorised over every pair of systems sharing the same queries."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from trunc_accessor.errors import InputError
from trunc_accessor.stats._common import _BATCH_ELEMENTS, _EPS_TIES, _check_choice


@dataclass(frozen=True)
class PairedTest:
    """A paired significance test of the mean difference, declared once: its ``name`` (the
    ``test=`` value), the ``label`` captions use, its ``citation``, and how it computes:
    ``per_pair(x, y, d, scipy_stats)`` → p for one pair of systems, or ``batched(d,
    n_resamples, seed)`` → p for every pair sharing the same queries (rows of ``d``)."""

    name: str
    label: str
    citation: str
    per_pair: Callable | None = None
    batched: Callable | None = None


@dataclass(frozen=True)
class Correction:
    """A multiple-testing correction: ``name`` (``correction=``), caption ``label``,
    ``citation`` and ``adjust(sorted p-values)`` → adjusted, sorted p-values."""

    name: str
    label: str
    citation: str
    adjust: Callable


@dataclass(frozen=True)
class Interval:
    """A confidence-interval method (``ci=``): caption ``label`` and the method name of
    ``scipy.stats.bootstrap`` (None: Student's t interval of the paired differences)."""

    name: str
    label: str
    scipy_method: str | None


TESTS: dict[str, PairedTest] = {}
CORRECTIONS: dict[str, Correction] = {}
CIS: dict[str, Interval] = {
    "t": Interval("t", "Student t", None),
    "bootstrap": Interval("bootstrap", "BCa bootstrap", "BCa"),
    "bootstrap-bca": Interval("bootstrap-bca", "BCa bootstrap", "BCa"),
    "bootstrap-percentile": Interval("bootstrap-percentile", "percentile bootstrap",
                                     "percentile"),
}


# ---------------------------------------------------------------------------- corrections

def multipletests(pvalues: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values, as ``statsmodels.stats.multitest.multipletests(p, method=...)[1]``.

    ``method``: "none", "bonferroni", "holm" (Holm 1979), "fdr_bh" (Benjamini & Hochberg 1995)
    or "fdr_by" (Benjamini & Yekutieli 2001). NaN p-values are left out of the family and stay
    NaN.
    """
    _check_choice("correction", method, CORRECTIONS)
    try:
        p = np.asarray(pvalues, dtype=float)
    except (TypeError, ValueError):
        raise InputError("multipletests: p-values must be numbers") from None
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    outside = ok & ~((p >= 0) & (p <= 1))
    if outside.any():
        where = int(np.flatnonzero(outside.ravel())[0])
        raise InputError(f"multipletests: p-value {float(p.ravel()[where])!r} "
                         f"(position {where}) is not a probability in [0, 1]")
    q = p[ok]
    if q.size == 0:
        return out
    order = np.argsort(q, kind="stable")
    adj = np.empty(q.size)
    adj[order] = np.minimum(CORRECTIONS[method].adjust(q[order]), 1.0)
    out[ok] = adj
    return out


def _correction(name: str, label: str, citation: str):
    def deco(adjust):
        CORRECTIONS[name] = Correction(name, label, citation, adjust)
        return adjust
    return deco


@_correction("none", "no", "")
def _none(s):
    return s.copy()


@_correction("bonferroni", "Bonferroni", "Bonferroni (1936)")
def _bonferroni(s):
    return s * s.size


@_correction("holm", "Holm", "Holm, Scand. J. Statistics 6(2), 1979")
def _holm(s):
    return np.maximum.accumulate(s * np.arange(s.size, 0, -1))


def _step_up(s, factor):
    return np.minimum.accumulate((s / factor)[::-1])[::-1]


@_correction("fdr_bh", "Benjamini–Hochberg", "Benjamini & Hochberg, JRSS B 57(1), 1995")
def _fdr_bh(s):
    return _step_up(s, np.arange(1, s.size + 1) / s.size)


@_correction("fdr_by", "Benjamini–Yekutieli", "Benjamini & Yekutieli, Ann. Statist. 29(4), "
             "2001")
def _fdr_by(s):
    m = s.size
    return _step_up(s, np.arange(1, m + 1) / m / np.sum(1.0 / np.arange(1, m + 1)))


# ---------------------------------------------------------------------------- resampling tests

def _tolerance(observed, d):
    """Differences smaller than this count as ties with the observed statistic: scipy's
    ``100 * eps * |observed|``, widened to ``100 * eps * mean(|d|)`` so that resampled means
    equal to the observed one in exact arithmetic (common with values on a grid such as
    P@10) are counted even when the observed mean is about 0."""
    scale = np.abs(d).mean(axis=-1) if d.shape[-1] else 0.0
    return _EPS_TIES * np.maximum(np.abs(observed), scale)


def _randomization(d, n_resamples, seed):
    """Fisher's paired randomisation test of the mean difference for the rows of ``d`` (P × n,
    all pairs with the same queries). Random sign flips drawn exactly as
    ``scipy.stats.permutation_test((d,), np.mean, permutation_type="samples",
    n_resamples=n_resamples, rng=np.random.default_rng(seed))`` draws them (all 2**n flips when
    ``2**n <= n_resamples``: the exact test); one sign matrix is shared by all rows."""
    p_count, n = d.shape
    observed = d.mean(axis=-1)
    if n == 0:
        return np.full(p_count, np.nan)
    if n < 63 and 2 ** n <= n_resamples:  # exact: every sign vector (scipy's "exact_test")
        gamma = _tolerance(observed, d)
        le = np.zeros(p_count, dtype=np.int64)
        ge = np.zeros(p_count, dtype=np.int64)
        step = max(1, _BATCH_ELEMENTS // n)  # sign vectors per chunk: memory stays bounded
        for start in range(0, 2 ** n, step):
            codes = np.arange(start, min(start + step, 2 ** n), dtype=np.int64)
            signs = 1.0 - 2.0 * ((codes[:, None] >> np.arange(n)[None, :]) & 1)
            null = (signs @ d.T) / n
            le += np.count_nonzero(null <= observed + gamma, axis=0)
            ge += np.count_nonzero(null >= observed - gamma, axis=0)
        return np.clip(np.minimum(le, ge) / 2 ** n * 2, 0.0, 1.0)
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_ELEMENTS // (2 * n))
    template = np.tile(np.arange(2), (min(batch, n_resamples), n, 1))
    counts_le = np.zeros(p_count, dtype=np.int64)
    counts_ge = np.zeros(p_count, dtype=np.int64)
    gamma = _tolerance(observed, d)
    done = 0
    while done < n_resamples:
        k = min(batch, n_resamples - done)
        idx = rng.permuted(template[:k], axis=-1)  # same stream as scipy's single call
        signs = 1.0 - 2.0 * idx[:, :, 0]
        null = (signs @ d.T) / n  # (k, P): all resamples of all pairs in one product
        counts_le += np.count_nonzero(null <= observed + gamma, axis=0)
        counts_ge += np.count_nonzero(null >= observed - gamma, axis=0)
        done += k
    less = (counts_le + 1) / (n_resamples + 1)
    greater = (counts_ge + 1) / (n_resamples + 1)
    return np.clip(np.minimum(less, greater) * 2, 0.0, 1.0)


MIN_BOOTSTRAP_QUERIES = 4


def _bootstrap_test(d, n_resamples, seed):
    """Paired bootstrap test of the mean difference (Efron & Tibshirani 1993, §16.4; Sakai
    2006 for IR, with the mean instead of the studentised statistic) for the rows of ``d``
    (P × n): shift the differences to the null (``d - mean(d)``), resample the n queries with
    replacement B times (indices ``default_rng(seed).integers(0, n, (B, n))``, as
    scipy.stats.bootstrap draws them) and count the resampled means at least as far from 0 as
    the observed one: ``p = (1 + #{|mean*_b - mean| >= |mean|}) / (B + 1)`` (Davison & Hinkley
    1997, eq. 4.11; ties within ``_tolerance`` counted). Fewer than 4 queries: NaN (at
    most 10 distinct resamples, so no p-value below 0.1 means anything)."""
    p_count, n = d.shape
    if n < MIN_BOOTSTRAP_QUERIES:
        # n ≤ 3 queries have at most C(2n − 1, n) ≤ 10 distinct resamples: no p-value
        return np.full(p_count, np.nan)
    observed = d.mean(axis=-1)
    count = np.zeros(p_count, dtype=np.int64)
    thresh = np.abs(observed) - _tolerance(observed, d)
    for weights in _bootstrap_counts(n, n_resamples, seed):
        means = (weights @ d.T) / n  # (k, P) resampled means, all pairs at once
        count += np.count_nonzero(np.abs(means - observed) >= thresh, axis=0)
    return (count + 1) / (n_resamples + 1)


def _bootstrap_counts(n: int, n_resamples: int, seed):
    """Bootstrap resamples of n items (queries) as count matrices, in chunks: yields (k, n)
    int arrays whose row b counts how often each item is drawn in resample b; in all
    ``n_resamples`` rows. The indices are ``default_rng(seed).integers(0, n, (k, n))``,
    drawn chunk after chunk (one chunk, as ``scipy.stats.bootstrap`` draws them, while
    k·n stays under about four million), so any statistic that is a sum over items is
    resampled by one matrix product per chunk."""
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_ELEMENTS // max(n, 1))
    done = 0
    while done < n_resamples:
        k = min(batch, n_resamples - done)
        idx = rng.integers(0, n, (k, n))
        yield np.bincount((idx + n * np.arange(k)[:, None]).ravel(),
                          minlength=k * n).reshape(k, n)
        done += k


# ---------------------------------------------------------------------------- the tests
def _paired(name: str, label: str, citation: str, batched: bool = False):
    def deco(function):
        TESTS[name] = PairedTest(name, label, citation,
                                 per_pair=None if batched else function,
                                 batched=function if batched else None)
        return function
    return deco


@_paired("t", "paired t", "Student (1908); scipy.stats.ttest_rel")
def _t(x, y, d, stats):
    if d.size < 2 or _near_constant(d):
        return np.nan
    return stats.ttest_rel(x, y).pvalue


def _near_constant(d) -> bool:
    """Differences equal up to rounding (x − y of values on a grid): a constant, whose t
    statistic would be huge and meaningless (the exact constant gives NaN)."""
    return d.size >= 2 and np.ptp(d) <= 64 * np.finfo(float).eps * np.abs(d).max()


@_paired("wilcoxon", "Wilcoxon signed-rank", "Wilcoxon (1945); scipy.stats.wilcoxon")
def _wilcoxon(x, y, d, stats):
    return stats.wilcoxon(d).pvalue if np.any(d != 0) else np.nan


@_paired("sign", "sign", "scipy.stats.binomtest of wins among wins + losses")
def _sign(x, y, d, stats):
    wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
    return stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else np.nan


TESTS["randomization"] = PairedTest(
    "randomization", "Fisher randomisation", "Fisher (1935); Smucker, Allan & Carterette, "
    "CIKM 2007", batched=_randomization)
TESTS["bootstrap"] = PairedTest(
    "bootstrap", "paired bootstrap", "Efron & Tibshirani (1993) §16.4; Sakai, SIGIR 2006",
    batched=_bootstrap_test)
