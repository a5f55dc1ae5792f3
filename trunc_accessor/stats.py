"""Significance tests between systems on per-query values (the statistical core of experiments).

:func:`compare` runs paired tests (t, Wilcoxon, sign, randomisation, bootstrap) between systems,
corrects the p-values for multiple comparisons and adds confidence intervals, wins/ties/losses
and effect sizes; :func:`tukey_hsd` and :func:`randomized_tukey_hsd` compare all systems at once.
Input is what ``run.ir.evaluate(qrels, metrics, by="system")`` returns (pandas or Polars) or a
mapping ``{system: per-query frame}``; output is a tidy frame of the same library.

For practice see Sakai, *Statistical reform in information retrieval?* (SIGIR Forum 2014) and
Smucker, Allan & Carterette, *A comparison of statistical significance tests for information
retrieval evaluation* (CIKM 2007). scipy (and, for the tests only, statsmodels) are optional:
``pip install "trunc_accessor[stats]"``.
"""
from __future__ import annotations

import itertools
import sys
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
import polars as pl

from . import results
from .frames import InputError

__all__ = ["compare", "multipletests", "randomized_tukey_hsd", "tukey_hsd"]

TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
CORRECTIONS = ("none", "bonferroni", "holm", "fdr_bh", "fdr_by")
CIS = ("t", "bootstrap", "bootstrap-percentile", "bootstrap-bca")
_EPS_TIES = np.finfo(float).eps * 100  # scipy.stats.permutation_test's relative tolerance
_BATCH_ELEMENTS = 4_000_000  # resampling works in chunks of about this many numbers


def _scipy_stats():
    try:
        import scipy.stats
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError('trunc_accessor.stats needs scipy: pip install "trunc_accessor[stats]"'
                          ) from exc
    return scipy.stats


# ---------------------------------------------------------------------------- input handling

class _Data:
    """Per-query values as matrices: ``values[metric]`` is (queries × systems), NaN = absent
    or undefined; ``present`` marks which (query, system) rows the input had."""

    def __init__(self, systems, qids, metrics, values, present, polars):
        self.systems, self.qids, self.metrics = systems, qids, metrics
        self.values, self.present, self.polars = values, present, polars

    def matrix(self, metric, undefined):
        v = self.values[metric].copy()
        if undefined == "zero":  # trec_eval: an undefined value of a returned query counts as 0
            v[self.present & np.isnan(v)] = 0.0
        return v


def _normalise(per_query, by) -> _Data:
    if by is not None and not isinstance(by, str):
        raise InputError(f"by= must be the name of the system column/level, not {by!r}")
    if isinstance(per_query, (pl.LazyFrame, pl.DataFrame, pd.DataFrame, Mapping)):
        index_names = [] if not isinstance(per_query, pd.DataFrame) \
            else [n for n in per_query.index.names if n is not None]
        long, polars, mapping = results.long_frame(per_query, "per_query")
    else:
        raise InputError("per_query must be a pandas/Polars DataFrame of per-query values or a "
                         f"mapping {{system: frame}}, not {type(per_query).__name__}")
    if mapping:
        by = results.MAPPING_SYSTEM
    elif by is None and len(index_names) > 1:
        by = index_names[0]  # evaluate's pandas answer: indexed by (system, qid)
    elif by is None:
        keys = [c for c in long.columns if c != "qid"
                and not pd.api.types.is_numeric_dtype(long[c])]
        if len(keys) != 1:
            if not keys and len(index_names) == 1:
                raise InputError("per_query has no system level: pass a frame indexed by "
                                 "(system, qid)")
            raise InputError("by= is needed: per_query has system key columns "
                             f"{keys} (expected exactly one non-numeric column besides qid)")
        by = keys[0]
    elif index_names and by not in long.columns:
        raise InputError(f"by={by!r} is not an index level of per_query (levels: "
                         f"{index_names})")
    for col in (by, "qid"):
        if col not in long.columns:
            raise InputError(f"per_query has no {col!r} column/level (columns: "
                             f"{[c for c in long.columns if c != results.MAPPING_SYSTEM]})")
    metrics = [c for c in long.columns if c not in (by, "qid")]
    bad = [c for c in metrics if not (pd.api.types.is_numeric_dtype(long[c])
                                      and not pd.api.types.is_bool_dtype(long[c]))]
    if bad:
        raise InputError(f"per_query columns {bad} are not numeric metric values")
    if not metrics:
        raise InputError("per_query has no metric columns")
    if long.duplicated([by, "qid"]).any():
        dup = long.loc[long.duplicated([by, "qid"]), [by, "qid"]].iloc[0].tolist()
        raise InputError(f"per_query has several rows for (system, qid) = {tuple(dup)}")
    systems = list(pd.unique(long[by]))
    qids = pd.Index(pd.unique(long["qid"]))
    try:  # a fixed query order (resamples depend on it), whatever the order of the input
        qids = qids.sort_values()
    except TypeError:  # mixed types: keep the order of first appearance
        pass
    qids = list(qids)
    s_pos = pd.Index(systems).get_indexer(long[by])
    q_pos = pd.Index(qids).get_indexer(long["qid"])
    present = np.zeros((len(qids), len(systems)), dtype=bool)
    present[q_pos, s_pos] = True
    values = {}
    for m in metrics:
        v = np.full((len(qids), len(systems)), np.nan)
        v[q_pos, s_pos] = long[m].to_numpy(dtype=float, na_value=np.nan)
        values[m] = v
    return _Data(systems, qids, metrics, values, present, polars)


def _output(rows: dict, polars: bool):
    df = pd.DataFrame(rows)
    if polars:
        return pl.from_pandas(df)
    return df


def _check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{name}= must be one of {list(choices)}, not {value!r}")


def _check_prob(name, value):
    if (isinstance(value, bool) or not isinstance(value, (int, float, np.floating))
            or not sys.float_info.min <= value < 1):
        raise InputError(f"{name}= must be a number strictly between 0 and 1 (a normal float), "
                         f"not {value!r}")


def _check_resampling(n_resamples, seed):
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer))
            or n_resamples < 1):
        raise InputError(f"n_resamples= must be a positive integer, not {n_resamples!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise InputError(f"seed= must be an integer ≥ 0 or None, not {seed!r}")


# ---------------------------------------------------------------------------- corrections

def multipletests(pvalues, method: str = "holm"):
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
        raise InputError(f"multipletests: p-value {float(p.ravel()[where])!r} (position {where}) is "
                         f"not a probability in [0, 1]")
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    if method == "none":
        adj = q.copy()
    elif method == "bonferroni":
        adj = np.minimum(q * m, 1.0)
    else:
        order = np.argsort(q)
        s = q[order]
        if method == "holm":
            adj_s = np.maximum.accumulate(s * np.arange(m, 0, -1))
        else:
            factor = np.arange(1, m + 1) / m
            if method == "fdr_by":
                factor = factor / np.sum(1.0 / np.arange(1, m + 1))
            adj_s = np.minimum.accumulate((s / factor)[::-1])[::-1]
        adj_s = np.minimum(adj_s, 1.0)
        adj = np.empty(m)
        adj[order] = adj_s
    out[ok] = adj
    return out


# ---------------------------------------------------------------------------- resampling tests

def _tolerance(observed, d):
    """Differences smaller than this count as ties with the observed statistic: scipy's
    ``100 * eps * |observed|``, widened to ``100 * eps * mean(|d|)`` so that resampled means
    equal to the observed one in exact arithmetic (common with values on a grid such as
    P@10) are counted even when the observed mean is about 0."""
    scale = np.abs(d).mean(axis=-1) if d.shape[-1] else 0.0
    return _EPS_TIES * np.maximum(np.abs(observed), scale)


def _count_pvalue(null, observed, gamma, adjustment):
    """Two-sided p-value of ``scipy.stats.permutation_test``: ``2 * min(P(T <= t), P(T >= t))``
    with counts ``(#{...} + adj) / (B + adj)`` (adj = 1 for random resamples, which counts the
    observed statistic as one of them; 0 for the exact distribution) and null values within
    ``gamma`` of t counted, clipped to 1. ``null`` is (B, P), ``observed`` (P,)."""
    b = null.shape[0]
    less = (np.count_nonzero(null <= observed + gamma, axis=0) + adjustment) / (b + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma, axis=0) + adjustment) / (b + adjustment)
    return np.clip(np.minimum(less, greater) * 2, 0.0, 1.0)


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
    1997, eq. 4.11; ties within :func:`_tolerance` counted). Fewer than 4 queries: NaN (at
    most 10 distinct resamples, so no p-value below 0.1 means anything)."""
    p_count, n = d.shape
    if n < MIN_BOOTSTRAP_QUERIES:
        # n ≤ 3 queries have at most C(2n − 1, n) ≤ 10 distinct resamples: no p-value
        return np.full(p_count, np.nan)
    observed = d.mean(axis=-1)
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_ELEMENTS // n)
    count = np.zeros(p_count, dtype=np.int64)
    thresh = np.abs(observed) - _tolerance(observed, d)
    done = 0
    while done < n_resamples:
        k = min(batch, n_resamples - done)
        idx = rng.integers(0, n, (k, n))
        weights = np.bincount((idx + n * np.arange(k)[:, None]).ravel(),
                              minlength=k * n).reshape(k, n)
        means = (weights @ d.T) / n  # (k, P) resampled means, all pairs at once
        count += np.count_nonzero(np.abs(means - observed) >= thresh, axis=0)
        done += k
    return (count + 1) / (n_resamples + 1)


# ---------------------------------------------------------------------------- compare

def compare(per_query, baseline=None, test: str = "t", correction: str = "holm",
            alpha: float = 0.05, n_resamples: int = 10000, seed: int | None = 0,
            undefined: str = "skip", confidence: float = 0.95, ci: str = "t", by=None,
            family: str = "metric"):
    """Paired significance tests between systems, one row per (metric, system, other).

    Parameters
    ----------
    per_query : pandas DataFrame indexed by (system, qid) (``run.ir.evaluate(..., by=...)``),
        Polars DataFrame with columns system, qid and metrics, or a mapping ``{system: frame
        indexed by / with a column qid}``. The result has the same library.
    baseline : a system name; every other system is compared with it (column ``baseline``).
        None (default): all pairs ``system`` < ``other`` in input order (column ``other``).
    test : "t" (``scipy.stats.ttest_rel``), "wilcoxon" (``scipy.stats.wilcoxon`` of the
        differences with scipy's defaults: ``zero_method="wilcox"`` drops zero differences,
        ``method="auto"``, no continuity correction), "sign" (``scipy.stats.binomtest`` of wins
        among wins + losses, ties dropped), "randomization" (Fisher's paired randomisation
        test of the mean difference by random sign flips, Smucker, Allan & Carterette 2007;
        p-value as ``scipy.stats.permutation_test(..., permutation_type="samples")`` with
        ``rng=np.random.default_rng(seed)``: the same sign flips, ``(count + 1) / (B + 1)``
        (the observed statistic counts as a resample), ``2 * min(lower, upper)``, exact
        enumeration without the +1 when ``2**n <= n_resamples``; only the tie tolerance is
        wider, ``100 eps * max(|mean d|, mean |d|)``, so exact ties on grid values count) or
        "bootstrap" (paired bootstrap test of the mean difference shifted to the null, Efron &
        Tibshirani 1993 §16.4, Sakai 2006: ``p = (1 + #{|m*_b - m| >= |m|}) / (B + 1)``).
        All are two-sided.
    correction : "holm" (default), "bonferroni", "fdr_bh", "fdr_by" or "none", applied over
        ``family``: "metric" (the tests of one metric) or "all" (every row). Same values as
        statsmodels' ``multipletests``; an undefined (NaN) p-value is left out of the family.
    alpha : ``significant`` is ``p_adjusted <= alpha``.
    n_resamples, seed : for the resampling tests and bootstrap intervals; each metric (and
        each set of paired queries) restarts ``numpy.random.default_rng(seed)``.
    undefined : "skip" (default): a query whose value is NaN (undefined) in either system is
        left out of that pair. "zero": an undefined value counts as 0 (trec_eval's
        convention). Either way only queries present in both systems are paired.
    confidence, ci : interval of the mean difference: "t" (Student t on the paired
        differences, ``ttest_rel(...).confidence_interval(confidence)``) or "bootstrap-bca" /
        "bootstrap-percentile" (``scipy.stats.bootstrap`` of the mean difference with that
        method, ``n_resamples`` and ``rng=default_rng(seed)``; "bootstrap" = BCa).
    by : name of the system column/level (default: the first index level, or the only
        non-numeric column besides qid).

    Returns columns metric, system, baseline|other, n (paired queries), mean_system,
    mean_other (over the paired queries), delta (mean of system − other), ci_low, ci_high,
    p_value, p_adjusted, significant, wins, ties, losses (queries where system is above,
    equal to, below other) and effect_size (Cohen's d_z = mean(d) / sd(d), ddof=1; NaN when
    n < 2 or sd = 0). Statistics that are undefined (too few queries, all differences 0 for
    t/Wilcoxon, no wins or losses for the sign test) are NaN and never significant.
    """
    _check_choice("test", test, TESTS)
    _check_choice("correction", correction, CORRECTIONS)
    _check_choice("undefined", undefined, ("skip", "zero"))
    _check_choice("ci", ci, CIS)
    _check_choice("family", family, ("metric", "all"))
    _check_prob("alpha", alpha)
    _check_prob("confidence", confidence)
    _check_resampling(n_resamples, seed)
    stats = _scipy_stats()
    data = _normalise(per_query, by)
    systems = data.systems
    if baseline is not None:
        if baseline not in systems:
            raise InputError(f"baseline={baseline!r} is not one of the systems {systems}")
        b = systems.index(baseline)
        pairs = [(i, b) for i in range(len(systems)) if i != b]
        other_col = "baseline"
    else:
        pairs = list(itertools.combinations(range(len(systems)), 2))
        other_col = "other"
    ci_method = {"t": "t", "bootstrap": "BCa", "bootstrap-bca": "BCa",
                 "bootstrap-percentile": "percentile"}[ci]

    cols = {k: [] for k in ("metric", "system", other_col, "n", "mean_system", "mean_other",
                            "delta", "ci_low", "ci_high", "p_value", "p_adjusted",
                            "significant", "wins", "ties", "losses", "effect_size")}
    for metric in data.metrics:
        v = data.matrix(metric, undefined)
        diffs, masks = [], []
        for i, j in pairs:
            mask = ~np.isnan(v[:, i]) & ~np.isnan(v[:, j])
            masks.append(mask)
            diffs.append(v[mask, i] - v[mask, j])
        p_values = np.full(len(pairs), np.nan)
        lows = np.full(len(pairs), np.nan)
        highs = np.full(len(pairs), np.nan)
        # pairs with the same paired queries are tested together (one array operation)
        groups: dict[bytes, list[int]] = {}
        for k, mask in enumerate(masks):
            groups.setdefault(np.packbits(mask).tobytes() + bytes([mask.size % 8]), []).append(k)
        for members in groups.values():
            d = np.array([diffs[k] for k in members]).reshape(len(members), -1)
            if test == "randomization":
                p_values[members] = _randomization(d, n_resamples, seed)
            elif test == "bootstrap":
                p_values[members] = _bootstrap_test(d, n_resamples, seed)
            if ci_method != "t" and d.shape[1] >= 2:
                # one scipy call per pair: batching rows changes float rounding of the
                # resampled means, and so (with tied values) BCa's bias correction
                for row, k in zip(d, members):
                    with warnings.catch_warnings(), np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        # batch= bounds memory for large n_resamples (scipy draws the same
                        # resamples only without it, so the default size keeps one call)
                        big = n_resamples * row.size > _BATCH_ELEMENTS
                        res = stats.bootstrap((row,), np.mean, n_resamples=n_resamples,
                                              confidence_level=confidence, method=ci_method,
                                              vectorized=True, rng=np.random.default_rng(seed),
                                              batch=max(1, _BATCH_ELEMENTS // row.size)
                                              if big else None)
                    lows[k] = res.confidence_interval.low
                    highs[k] = res.confidence_interval.high
        for k, (i, j) in enumerate(pairs):
            d = diffs[k]
            n = d.size
            x, y = v[masks[k], i], v[masks[k], j]
            wins, ties = int(np.sum(d > 0)), int(np.sum(d == 0))
            losses = n - wins - ties
            # differences equal up to rounding (x − y of values on a grid) are a constant:
            # the t statistic of their noise would be huge and meaningless
            constant = n >= 2 and np.ptp(d) <= 64 * np.finfo(float).eps * np.abs(d).max()
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                if ci_method == "t" or test == "t":
                    tres = stats.ttest_rel(x, y) if n >= 2 and not constant else None
                if ci_method == "t" and tres is not None:
                    interval = tres.confidence_interval(confidence)
                    lows[k], highs[k] = interval.low, interval.high
                if test == "t" and tres is not None:
                    p_values[k] = tres.pvalue
                elif test == "wilcoxon" and np.any(d != 0):
                    p_values[k] = stats.wilcoxon(d).pvalue
                elif test == "sign" and wins + losses > 0:
                    p_values[k] = stats.binomtest(wins, wins + losses, 0.5).pvalue
            sd = np.std(d, ddof=1) if n >= 2 and not constant else np.nan
            cols["metric"].append(metric)
            cols["system"].append(systems[i])
            cols[other_col].append(systems[j])
            cols["n"].append(n)
            cols["mean_system"].append(float(x.mean()) if n else np.nan)
            cols["mean_other"].append(float(y.mean()) if n else np.nan)
            cols["delta"].append(float(d.mean()) if n else np.nan)
            cols["wins"].append(wins)
            cols["ties"].append(ties)
            cols["losses"].append(losses)
            cols["effect_size"].append(float(d.mean() / sd) if n >= 2 and sd > 0 else np.nan)
        cols["ci_low"].extend(lows.tolist())
        cols["ci_high"].extend(highs.tolist())
        cols["p_value"].extend(p_values.tolist())
    p = np.array(cols["p_value"], dtype=float)
    if family == "all":
        adjusted = multipletests(p, correction)
    else:
        adjusted = np.full(p.size, np.nan)
        metric_col = np.array(cols["metric"], dtype=object)
        for metric in data.metrics:
            sel = metric_col == metric
            adjusted[sel] = multipletests(p[sel], correction)
    cols["p_adjusted"] = adjusted.tolist()
    cols["significant"] = [bool(a <= alpha) for a in adjusted]  # NaN -> False
    return _output(cols, data.polars)


# ---------------------------------------------------------------------------- Tukey HSD

def _complete_block(data, metric, undefined):
    """(queries × systems) matrix of the queries with a value for every system."""
    v = data.matrix(metric, undefined)
    return v[~np.isnan(v).any(axis=1)]


def _tukey_output(data, metric, x, p, lows, highs, alpha, cols):
    means = x.mean(axis=0) if x.shape[0] else np.full(x.shape[1], np.nan)
    for i, j in itertools.combinations(range(len(data.systems)), 2):
        cols["metric"].append(metric)
        cols["system"].append(data.systems[i])
        cols["other"].append(data.systems[j])
        cols["n"].append(x.shape[0])
        cols["mean_system"].append(float(means[i]))
        cols["mean_other"].append(float(means[j]))
        cols["delta"].append(float(means[i] - means[j]))
        if lows is not None:
            cols["ci_low"].append(float(lows[i, j]))
            cols["ci_high"].append(float(highs[i, j]))
        cols["p_value"].append(float(p[i, j]))
        cols["significant"].append(bool(p[i, j] <= alpha))


def _check_common(undefined, alpha):
    _check_choice("undefined", undefined, ("skip", "zero"))
    _check_prob("alpha", alpha)


def tukey_hsd(per_query, undefined: str = "skip", alpha: float = 0.05,
              confidence: float = 0.95, by=None):
    """Tukey's honestly significant difference test over all pairs of systems, one-way (queries
    not treated as blocks), as ``scipy.stats.tukey_hsd(*values_per_system)`` computes it — what
    ranx reports. Only the queries with a value for every system are used ("skip" drops a query
    undefined in any system; "zero" counts undefined values as 0). Returns metric, system,
    other, n, mean_system, mean_other, delta, ci_low, ci_high (Tukey's simultaneous interval
    at ``confidence``), p_value (already family-wise adjusted) and significant."""
    _check_common(undefined, alpha)
    _check_prob("confidence", confidence)
    stats = _scipy_stats()
    data = _normalise(per_query, by)
    if len(data.systems) < 2:
        raise InputError(f"tukey_hsd needs at least two systems, got {data.systems}")
    cols = {k: [] for k in ("metric", "system", "other", "n", "mean_system", "mean_other",
                            "delta", "ci_low", "ci_high", "p_value", "significant")}
    for metric in data.metrics:
        x = _complete_block(data, metric, undefined)
        s = x.shape[1]
        if x.shape[0] >= 2:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                res = stats.tukey_hsd(*[x[:, k] for k in range(s)])
                interval = res.confidence_interval(confidence)
            p, lows, highs = res.pvalue, interval.low, interval.high
        else:
            p = lows = highs = np.full((s, s), np.nan)
        _tukey_output(data, metric, x, p, lows, highs, alpha, cols)
    return _output(cols, data.polars)


def randomized_tukey_hsd(per_query, n_resamples: int = 10000, seed: int | None = 0,
                         undefined: str = "skip", alpha: float = 0.05, by=None):
    """Randomised Tukey HSD test (Carterette, *Multiple testing in statistical analysis of
    systems-based information retrieval experiments*, TOIS 2012): queries are blocks; each
    resample permutes every query's values across the systems, and the null distribution is
    that of the largest difference between two system means. The p-value of a pair is the
    fraction of resamples whose largest difference is ≥ the pair's observed absolute mean
    difference (ties within 100 eps × max(difference, mean |value|) counted); it is family-wise adjusted by construction.
    Only queries with a value for every system are used (``undefined`` as in
    :func:`tukey_hsd`); ``numpy.random.default_rng(seed)`` restarts for each metric.
    Returns metric, system, other, n, mean_system, mean_other, delta, p_value, significant."""
    _check_common(undefined, alpha)
    _check_resampling(n_resamples, seed)
    data = _normalise(per_query, by)
    if len(data.systems) < 2:
        raise InputError(f"randomized_tukey_hsd needs at least two systems, got {data.systems}")
    cols = {k: [] for k in ("metric", "system", "other", "n", "mean_system", "mean_other",
                            "delta", "p_value", "significant")}
    for metric in data.metrics:
        x = _complete_block(data, metric, undefined)
        q, s = x.shape
        if q == 0:
            p = np.full((s, s), np.nan)
        else:
            means = x.mean(axis=0)
            observed = np.abs(means[:, None] - means[None, :])
            rng = np.random.default_rng(seed)
            batch = max(1, _BATCH_ELEMENTS // (q * s))
            template = np.tile(np.arange(s), (min(batch, n_resamples), q, 1))
            rows = np.arange(q)[None, :, None]
            thresh = observed - _EPS_TIES * np.maximum(observed, np.abs(x).mean())
            at_least = np.zeros(thresh.size, dtype=np.int64)  # resamples ≥ each threshold
            done = 0
            while done < n_resamples:  # memory bounded by a batch, whatever n_resamples
                k = min(batch, n_resamples - done)
                perm = rng.permuted(template[:k], axis=-1)  # (k, q, s) per-query permutations
                m = x[rows, perm].mean(axis=1)  # (k, s) system means of each resample
                maxima = np.sort(m.max(axis=1) - m.min(axis=1))
                at_least += k - np.searchsorted(maxima, thresh.ravel(), side="left")
                done += k
            p = (at_least / n_resamples).reshape(thresh.shape)
        _tukey_output(data, metric, x, p, None, None, alpha, cols)
    return _output(cols, data.polars)

