"""Significance tests between systems on per-query values (the statistical core of experiments).

``compare`` runs paired tests (t, Wilcoxon, sign, randomisation, bootstrap) between systems,
corrects the p-values for multiple comparisons and adds confidence intervals, wins/ties/losses
and effect sizes; ``tukey_hsd`` and ``randomized_tukey_hsd`` compare all systems at once.
Input is what ``run.ir.evaluate(qrels, metrics, by="system")`` returns (pandas or Polars) or a
mapping ``{system: per-query frame}``; output is a tidy frame of the same library.

For practice see Sakai, *Statistical reform in information retrieval?* (SIGIR Forum 2014) and
Smucker, Allan & Carterette, *A comparison of statistical significance tests for information
retrieval evaluation* (CIKM 2007). scipy (and, for the tests only, statsmodels) are optional:
``pip install "trunc_accessor[stats]"``.
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from trunc_accessor._typing import Frame, Result
from trunc_accessor.errors import InputError
from trunc_accessor.stats._common import (
    _BATCH_ELEMENTS,
    _check_choice,
    _check_prob,
    _check_resampling,
    _normalise,
    _output,
    _say_lacking,
    _scipy_stats,
)
from trunc_accessor.stats.paired import (
    CIS,
    CORRECTIONS,
    TESTS,
    Correction,
    Interval,
    PairedTest,
    _near_constant,
    multipletests,
)
from trunc_accessor.stats.tukey import randomized_tukey_hsd, tukey_hsd

__all__ = ["CIS", "CORRECTIONS", "TESTS", "Correction", "Interval", "PairedTest", "compare",
           "multipletests", "randomized_tukey_hsd", "tukey_hsd"]


# ---------------------------------------------------------------------------- compare

def _check_compare(test: str = "t", correction: str = "holm", alpha: float = 0.05,
                   n_resamples: int = 10000, seed: int | None = 0, undefined: str = "skip",
                   confidence: float = 0.95, ci: str = "t", family: str = "metric") -> None:
    """The checks of ``compare``'s arguments, in one place for every caller
    (``compare``, ``experiment``, ``leaderboard_agreement``), made before any work: an
    ``InputError`` naming the argument, never SciPy's or
    NumPy's error from deep inside."""
    _check_choice("test", test, TESTS)
    _check_choice("correction", correction, CORRECTIONS)
    _check_choice("undefined", undefined, ("skip", "zero"))
    _check_choice("ci", ci, CIS)
    _check_choice("family", family, ("metric", "all"))
    _check_prob("alpha", alpha)
    _check_prob("confidence", confidence)
    _check_resampling(n_resamples, seed)


def _bootstrap_mean_interval(values: np.ndarray, confidence: float, method: str,
                             n_resamples: int, seed: int | None, stats) -> tuple[float, float]:
    """``scipy.stats.bootstrap`` interval of the mean of ``values`` (``method`` "BCa" or
    "percentile", ``rng=default_rng(seed)``), its resamples drawn in batches once
    ``n_resamples × len(values)`` passes about four million numbers, so that memory stays
    bounded whatever ``n_resamples`` (SciPy draws the same resamples in one call below that
    size, so the default draws are SciPy's own single call's)."""
    big = n_resamples * values.size > _BATCH_ELEMENTS
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.bootstrap((values,), np.mean, n_resamples=n_resamples,
                              confidence_level=confidence, method=method, vectorized=True,
                              rng=np.random.default_rng(seed),
                              batch=max(1, _BATCH_ELEMENTS // values.size) if big else None)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def compare(per_query: Frame | Mapping[Any, Frame], baseline: Any = None, test: str = "t",
            correction: str = "holm",
            alpha: float = 0.05, n_resamples: int = 10000, seed: int | None = 0,
            undefined: str = "skip", confidence: float = 0.95, ci: str = "t",
            by: str | Sequence[str] | None = None, family: str = "metric") -> Result:
    """Paired significance tests between systems, one row per (metric, system, other).

    Parameters
    ----------
    per_query : DataFrame or Mapping
        Per-query values: a pandas DataFrame indexed by (system, qid) (what
        ``run.ir.evaluate(qrels, metrics, by="system")`` returns), a Polars DataFrame with
        columns system, qid and the metrics, or a mapping ``{system: frame indexed by / with
        a column qid}``. The result has the same library. A system that lacks a query
        another system has is compared on the queries both have, with a
        ``DroppedQueriesWarning`` naming it and how many queries it lacks.
    baseline : object or list, optional
        A system name; every other system is compared with it (column ``baseline``). A list
        of systems: every system is compared with each of them (a block of rows per
        baseline, in the list's order), and the correction runs over all of these tests as
        one family, each test counted once (a baseline compared with another baseline
        appears in both blocks, mirrored, with the same p-values). None (default): all pairs
        ``system`` < ``other`` in input order (column ``other``).
    test : str, default "t"
        "t" (``scipy.stats.ttest_rel``), "wilcoxon" (``scipy.stats.wilcoxon`` of the
        differences with SciPy's defaults: ``zero_method="wilcox"`` drops zero differences,
        ``method="auto"``, no continuity correction), "sign" (``scipy.stats.binomtest`` of
        wins among wins + losses, ties dropped), "randomization" (Fisher's paired
        randomisation test of the mean difference by random sign flips, Smucker, Allan &
        Carterette 2007; p-value as ``scipy.stats.permutation_test(...,
        permutation_type="samples")`` with ``rng=np.random.default_rng(seed)``: the same sign
        flips, ``(count + 1) / (B + 1)`` (the observed statistic counts as a resample),
        ``2 * min(lower, upper)``, exact enumeration without the +1 when
        ``2**n <= n_resamples``; only the tie tolerance is wider, ``100 eps * max(|mean d|,
        mean |d|)``, so exact ties on grid values count) or "bootstrap" (paired bootstrap
        test of the mean difference shifted to the null, Efron & Tibshirani 1993 §16.4,
        Sakai 2006: ``p = (1 + #{|m*_b - m| >= |m|}) / (B + 1)``; NaN below 4 queries). All
        are two-sided.
    correction : str, default "holm"
        "holm", "bonferroni", "fdr_bh", "fdr_by" or "none", applied over ``family``. Same
        values as statsmodels' ``multipletests``; an undefined (NaN) p-value is left out of
        the family.
    alpha : float, default 0.05
        ``significant`` is ``p_adjusted <= alpha``.
    n_resamples : int, default 10000
        Resamples of the resampling tests and of the bootstrap intervals. Memory is bounded
        whatever ``n_resamples`` (resamples are drawn in chunks); time grows linearly with it
        (a hand timing here: 1–2 s per million resamples of 50 queries for one pair).
    seed : int or None, default 0
        Seed of ``numpy.random.default_rng``, restarted for each metric (and each set of
        paired queries).
    undefined : str, default "skip"
        "skip": a query whose value is NaN (undefined) in either system is left out of that
        pair. "zero": an undefined value counts as 0 (trec_eval's convention). Either way
        only queries present in both systems are paired.
    confidence : float, default 0.95
        Confidence level of the interval of the mean difference.
    ci : str, default "t"
        How that interval is made: "t" (Student t on the paired differences,
        ``ttest_rel(...).confidence_interval(confidence)``), "bootstrap-bca" or
        "bootstrap-percentile" (``scipy.stats.bootstrap`` of the mean difference with that
        method, ``n_resamples`` and ``rng=default_rng(seed)``); "bootstrap" is BCa.
    by : str, optional
        Name of the system column/level (default: the first index level, or the only
        non-numeric column besides qid).
    family : str, default "metric"
        The family a correction runs over: "metric" (the tests of one metric) or "all"
        (every row).

    Returns
    -------
    DataFrame
        Columns metric, system, baseline|other, n (paired queries), mean_system, mean_other
        (over the paired queries), delta (mean of system − other), ci_low, ci_high,
        p_value, p_adjusted, significant, wins, ties, losses (queries where system is
        above, equal to, below other) and effect_size (Cohen's d_z = mean(d) / sd(d),
        ddof=1; NaN when n < 2 or sd = 0). Statistics that are undefined (too few queries,
        all differences 0 for t/Wilcoxon, no wins or losses for the sign test) are NaN and
        never significant.
    """
    _check_compare(test, correction, alpha, n_resamples, seed, undefined, confidence, ci,
                   family)
    stats = _scipy_stats()
    data = _normalise(per_query, by)
    _say_lacking(data, "compare", "each comparison pairs only the queries both systems "
                 "have, so those queries are left out of it (as experiment(missing='skip'))")
    systems = data.systems
    pairs, other_col = _pairs(systems, baseline)
    ci_method = CIS[ci].scipy_method or "t"
    paired = TESTS[test]

    cols: dict[str, list] = {k: [] for k in ("metric", "system", other_col, "n", "mean_system",
                                             "mean_other", "delta", "ci_low", "ci_high",
                                             "p_value", "p_adjusted", "significant", "wins",
                                             "ties", "losses", "effect_size")}
    for metric in data.metrics:
        v = data.matrix(metric, undefined)
        masks = [~np.isnan(v[:, i]) & ~np.isnan(v[:, j]) for i, j in pairs]
        diffs = [v[mask, i] - v[mask, j] for mask, (i, j) in zip(masks, pairs)]
        p_values, lows, highs = _grouped_tests(diffs, masks, paired, ci_method, confidence,
                                               n_resamples, seed, stats)
        for k, (i, j) in enumerate(pairs):
            x, y = v[masks[k], i], v[masks[k], j]
            row = _pair_row(x, y, diffs[k], paired, test, ci_method, confidence, stats)
            if row["p_value"] is not None:
                p_values[k] = row["p_value"]
            if row["ci"] is not None:
                lows[k], highs[k] = row["ci"]
            cols["metric"].append(metric)
            cols["system"].append(systems[i])
            cols[other_col].append(systems[j])
            for name in ("n", "mean_system", "mean_other", "delta", "wins", "ties", "losses",
                         "effect_size"):
                cols[name].append(row[name])
        cols["ci_low"].extend(lows.tolist())
        cols["ci_high"].extend(highs.tolist())
        cols["p_value"].extend(p_values.tolist())
    first = _first_of_pair(pairs, len(data.metrics))
    cols["p_value"] = np.array(cols["p_value"], dtype=float)[first].tolist()  # mirrored: same
    adjusted = _adjusted(np.array(cols["p_value"], dtype=float), cols["metric"], data.metrics,
                         correction, family, first)
    cols["p_adjusted"] = adjusted.tolist()
    cols["significant"] = [bool(a <= alpha) for a in adjusted]  # NaN -> False
    return _output(cols, data.polars)


def _pairs(systems: list, baseline: Any) -> tuple[list[tuple[int, int]], str]:
    """The (system, other) index pairs compared and the name of the other's column: every
    system against each baseline ("baseline"), or all pairs in input order ("other")."""
    if baseline is None:
        return list(itertools.combinations(range(len(systems)), 2)), "other"
    chosen = list(baseline) if isinstance(baseline, (list, tuple)) else [baseline]
    if not chosen:
        raise InputError("baseline= is an empty list")
    for b in chosen:
        if b not in systems:
            raise InputError(f"baseline={b!r} is not one of the systems {systems}")
    if len(set(map(str, chosen))) != len(chosen):
        raise InputError(f"baseline= names a system twice ({chosen})")
    return [(i, systems.index(b)) for b in chosen for i in range(len(systems))
            if systems[i] != b], "baseline"


def _first_of_pair(pairs: list[tuple[int, int]], n_metrics: int) -> np.ndarray:
    """For each row (metric-major, then ``pairs``), the first row testing the same two
    systems: the family counts a mirrored pair (two baselines compared both ways) once."""
    first: dict[frozenset, int] = {}
    one = np.array([first.setdefault(frozenset(p), k) for k, p in enumerate(pairs)],
                   dtype=np.int64)
    return np.concatenate([one + m * len(pairs) for m in range(n_metrics)]) if n_metrics \
        else one[:0]


def _grouped_tests(diffs: list[np.ndarray], masks: list[np.ndarray], paired: PairedTest,
                   ci_method: str, confidence: float, n_resamples: int, seed: int | None,
                   stats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The p-values of the batched tests and the bootstrap intervals of each pair (NaN
    where not made here): pairs with the same paired queries are tested together (one
    array operation)."""
    p_values = np.full(len(diffs), np.nan)
    lows = np.full(len(diffs), np.nan)
    highs = np.full(len(diffs), np.nan)
    groups: dict[bytes, list[int]] = {}
    for k, mask in enumerate(masks):
        groups.setdefault(np.packbits(mask).tobytes() + bytes([mask.size % 8]), []).append(k)
    for members in groups.values():
        d = np.array([diffs[k] for k in members]).reshape(len(members), -1)
        if paired.batched is not None:
            p_values[members] = paired.batched(d, n_resamples, seed)
        if ci_method != "t" and d.shape[1] >= 2:
            # one scipy call per pair: batching rows changes float rounding of the
            # resampled means, and so (with tied values) BCa's bias correction
            for row, k in zip(d, members):
                lows[k], highs[k] = _bootstrap_mean_interval(
                    row, confidence, ci_method, n_resamples, seed, stats)
    return p_values, lows, highs


def _pair_row(x, y, d, paired, test, ci_method, confidence, stats) -> dict[str, Any]:
    """One pair's counts, means and effect size, with its per-pair p-value and Student t
    interval (None where the test is batched or the interval is a bootstrap one)."""
    n = d.size
    wins, ties = int(np.sum(d > 0)), int(np.sum(d == 0))
    constant = _near_constant(d)
    p_value = interval = None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if ci_method == "t" or test == "t":
            tres = stats.ttest_rel(x, y) if n >= 2 and not constant else None
        if ci_method == "t" and tres is not None:
            ci = tres.confidence_interval(confidence)
            interval = (ci.low, ci.high)
        if paired.per_pair is not None:
            p_value = paired.per_pair(x, y, d, stats)
    sd = np.std(d, ddof=1) if n >= 2 and not constant else np.nan
    return {"n": n, "mean_system": float(x.mean()) if n else np.nan,
            "mean_other": float(y.mean()) if n else np.nan,
            "delta": float(d.mean()) if n else np.nan,
            "wins": wins, "ties": ties, "losses": n - wins - ties,
            "effect_size": float(d.mean() / sd) if n >= 2 and sd > 0 else np.nan,
            "p_value": p_value, "ci": interval}


def _adjusted(p: np.ndarray, metric_of_row: list, metrics: list, correction: str,
              family: str, first: np.ndarray | None = None) -> np.ndarray:
    """The p-values corrected over the family: every row ("all") or each metric's rows;
    ``first`` (row → the first row of the same test): a mirrored row takes its first's."""
    own = np.ones(p.size, dtype=bool) if first is None else first == np.arange(p.size)
    adjusted = np.full(p.size, np.nan)
    if family == "all":
        adjusted[own] = multipletests(p[own], correction)
    else:
        metric_col = np.array(metric_of_row, dtype=object)
        for metric in metrics:
            sel = (metric_col == metric) & own
            adjusted[sel] = multipletests(p[sel], correction)
    return adjusted if first is None else adjusted[first]
