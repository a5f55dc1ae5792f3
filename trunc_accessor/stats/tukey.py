"""Tukey's HSD over all systems at once: the classical test (SciPy) and Carterette's
randomised version (TOIS 2012)."""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence

import numpy as np

from trunc_accessor._typing import Frame, Result
from trunc_accessor.errors import InputError
from trunc_accessor.stats._common import (
    _BATCH_ELEMENTS,
    _EPS_TIES,
    _check_choice,
    _check_prob,
    _check_resampling,
    _normalise,
    _output,
    _say_lacking,
    _scipy_stats,
)

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


def tukey_hsd(per_query: Frame, undefined: str = "skip", alpha: float = 0.05,
              confidence: float = 0.95, by: str | Sequence[str] | None = None) -> Result:
    """Tukey's honestly significant difference test over all pairs of systems, one-way (queries
    not treated as blocks), as ``scipy.stats.tukey_hsd(*values_per_system)`` computes it — what
    ranx reports. Only the queries with a value for every system are used ("skip" drops a query
    undefined in any system; "zero" counts undefined values as 0; a query some system has
    no row for is dropped with a ``DroppedQueriesWarning`` naming the system). Returns metric,
    system, other, n, mean_system, mean_other, delta, ci_low, ci_high (Tukey's simultaneous interval
    at ``confidence``), p_value (already family-wise adjusted) and significant."""
    _check_common(undefined, alpha)
    _check_prob("confidence", confidence)
    stats = _scipy_stats()
    data = _normalise(per_query, by)
    if len(data.systems) < 2:
        raise InputError(f"tukey_hsd needs at least two systems, got {data.systems}")
    _say_lacking(data, "tukey_hsd", "only the queries every system has are used")
    cols: dict[str, list] = {k: [] for k in ("metric", "system", "other", "n", "mean_system",
                                             "mean_other", "delta", "ci_low", "ci_high",
                                             "p_value", "significant")}
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


def randomized_tukey_hsd(per_query: Frame, n_resamples: int = 10000, seed: int | None = 0,
                         undefined: str = "skip", alpha: float = 0.05,
                         by: str | Sequence[str] | None = None) -> Result:
    """Randomised Tukey HSD test (Carterette, *Multiple testing in statistical analysis of
    systems-based information retrieval experiments*, TOIS 2012): queries are blocks; each
    resample permutes every query's values across the systems, and the null distribution is
    that of the largest difference between two system means. The p-value of a pair is the
    share of resamples whose largest difference is ≥ the pair's observed absolute mean
    difference (ties within 100 eps × max(difference, mean |value|) counted), as (1 + count)
    / (B + 1) so that the observed assignment counts as one resample and no p-value is 0
    (Davison & Hinkley 1997, eq. 4.11); it is family-wise adjusted by construction.
    Only queries with a value for every system are used (``undefined`` as in
    ``tukey_hsd``); ``numpy.random.default_rng(seed)`` restarts for each metric.
    Returns metric, system, other, n, mean_system, mean_other, delta, p_value, significant."""
    _check_common(undefined, alpha)
    _check_resampling(n_resamples, seed)
    data = _normalise(per_query, by)
    if len(data.systems) < 2:
        raise InputError(f"randomized_tukey_hsd needs at least two systems, got {data.systems}")
    _say_lacking(data, "randomized_tukey_hsd", "only the queries every system has are used")
    cols: dict[str, list] = {k: [] for k in ("metric", "system", "other", "n", "mean_system",
                                             "mean_other", "delta", "p_value", "significant")}
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
            # (1 + count) / (B + 1), as compare's resampling tests: the observed statistic
            # is one of the resamples, so no p-value is 0
            p = ((at_least + 1) / (n_resamples + 1)).reshape(thresh.shape)
        _tukey_output(data, metric, x, p, None, None, alpha, cols)
    return _output(cols, data.polars)
