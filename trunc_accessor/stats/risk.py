"""Risk-sensitive evaluation: how much a system loses against a baseline, topic by topic.

``urisk`` compares each system with one baseline system. Per query i the difference
δᵢ = xᵢ − bᵢ of the system's value and the baseline's is weighted by the risk-reward
trade-off of Wang, Bennett & Collins-Thompson ("Robust ranking models via risk-sensitive
optimization", SIGIR 2012, eq. 2): δ'ᵢ = δᵢ for a win or a tie, (1 + α)·δᵢ for a loss, so a
loss costs 1 + α times what a win of the same size brings. Their mean is

    URisk = (1/c) · Σᵢ δ'ᵢ     (c: the queries compared)

the measure of the TREC 2013–14 Web track's risk-sensitive task: gdeval.pl 1.3 with
``-baseline`` and ``-riskAlpha α`` prints δ'ᵢ per topic and URisk as its ``amean``.
Dinçer, Macdonald & Ounis ("Hypothesis testing for the risk-sensitive evaluation of
retrieval systems", SIGIR 2014) standardise it:

    TRisk = URisk / SE,   SE = s / √c,   s² = Σᵢ (δ'ᵢ − URisk)² / (c − 1)

a Student t statistic with c − 1 degrees of freedom (at α = 0 the paired t-test's), with
the sample variance s² as the authors' implementation in jforests computes it; its
two-sided p-value tests URisk = 0. Per query, tᵢ = δ'ᵢ / s puts each topic's weighted
difference in units of their standard deviation: |tᵢ| > 2 (about the two-sided 5% point of
Student's t) marks a topic whose win (tᵢ > 0) or loss (tᵢ < 0) stands out.

``georisk`` compares each system with several baselines at once (Dinçer, Macdonald & Ounis,
"Risk-sensitive evaluation and learning to rank using multiple baselines", SIGIR 2016). The
values form a topics × systems matrix x; with row totals Tᵢ, column totals Sⱼ and grand
total N, the value expected of system j on topic i is eᵢⱼ = Tᵢ·Sⱼ/N (as in a χ² test of
independence), and zᵢⱼ = (xᵢⱼ − eᵢⱼ)/√eᵢⱼ. Then

    ZRisk(j) = Σ_{i: xᵢⱼ ≥ eᵢⱼ} zᵢⱼ + (1 + α)·Σ_{i: xᵢⱼ < eᵢⱼ} zᵢⱼ
    GeoRisk(j) = √( Sⱼ/c · Φ(ZRisk(j)/c) )

with Φ the standard normal distribution function: the geometric mean of the system's mean
effectiveness and of its risk. A cell whose expected value is 0 (its topic, or its system,
scores 0 everywhere) contributes z = 0.

Input is what ``run.ir.evaluate(qrels, metrics, by="system")`` returns (pandas or Polars)
or a mapping ``{system: per-query frame}``; output is a tidy frame of the same library.
The accessor methods ``run.ir.urisk`` and ``run.ir.georisk`` evaluate the runs first.

These measures are not metric names that ``evaluate`` accepts: a metric is a function of
one ranking and its judgments, while a risk measure needs the baseline's value on the same
query, a second ranking. No peer evaluator names them either: trec_eval, ir_measures and
ranx have no risk-sensitive measure; gdeval.pl computes URisk of its nDCG and ERR.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from trunc_accessor._typing import Frame, Result
from trunc_accessor.errors import InputError
from trunc_accessor.stats._common import (
    _check_choice,
    _normalise,
    _output,
    _say_lacking,
    _scipy_stats,
)

__all__ = ["georisk", "urisk"]


# ---------------------------------------------------------------------------- checks

def check_alpha(alpha: Any) -> list[float]:
    """``alpha=``: a number ≥ 0 or a non-empty sequence of them (one block of rows each)."""
    values = list(alpha) if isinstance(alpha, (list, tuple)) else [alpha]
    if not values:
        raise InputError("alpha= is an empty list: give at least one risk weight α ≥ 0")
    for a in values:
        if (isinstance(a, bool) or not isinstance(a, (int, float, np.integer, np.floating))
                or not math.isfinite(a) or a < 0):
            raise InputError(f"alpha= must be a finite number ≥ 0 (a loss weighs 1 + α), or a "
                             f"list of them, not {a!r}")
    return [float(a) for a in values]


def _system_index(data, name: Any, what: str) -> int:
    try:
        if name in data.systems:
            return data.systems.index(name)
    except (TypeError, ValueError):
        pass
    raise InputError(f"{what}={name!r} is not a system of per_query (systems: {data.systems})")


# ---------------------------------------------------------------------------- URisk, TRisk

def urisk(per_query: Frame, baseline: Any, alpha: float | Sequence[float] = 0.0, *,
         by: str | None = None, undefined: str = "skip", by_query: bool = False) -> Result:
    """URisk and TRisk of every system against ``baseline`` (see the module doc).

    Parameters
    ----------
    per_query : DataFrame or mapping
        Per-query values, one column per metric, of several systems: a frame indexed or
        keyed by (system, qid) as ``evaluate(..., by="system")`` returns, or a mapping
        ``{system: per-query frame}``.
    baseline : str or any system name
        The system every other one is compared with.
    alpha : float or list of float, default 0.0
        The risk weight α ≥ 0 (a loss weighs 1 + α; gdeval.pl's ``-riskAlpha``, whose
        default is 0 too); a list gives one block of rows per value.
    by : str, optional
        The system column or index level (found alone when there is one).
    undefined : {"skip", "zero"}, default "skip"
        A query whose value is undefined (NaN) or absent for the system or the baseline:
        left out of that comparison ("skip"), or, when undefined, counted as 0 ("zero").
    by_query : bool, default False
        Return the per-query table instead of the summary.

    Returns
    -------
    Summary (one row per metric, system other than the baseline, and α): ``metric``,
    ``system``, ``baseline``, ``alpha``, ``n`` (queries compared), ``mean`` and
    ``mean_baseline``, ``urisk``, ``se``, ``trisk``, ``p_value`` (two-sided, Student t
    with n − 1 degrees of freedom), ``wins``, ``ties``, ``losses``. TRisk, SE and the
    p-value are NaN with fewer than 2 queries, and TRisk and the p-value also when the
    weighted differences do not vary (s = 0). With ``by_query=True``: one row per query
    compared, with ``qid``, ``value``, ``baseline_value``, ``delta`` (δᵢ), ``urisk``
    (δ'ᵢ, gdeval.pl's per-topic value) and ``trisk`` (tᵢ = δ'ᵢ/s).

    Examples
    --------
    >>> import pandas as pd
    >>> import trunc_accessor as ta
    >>> per = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "qid": ["1", "2", "3"] * 2,
    ...                     "ap": [0.5, 0.2, 0.4, 0.3, 0.4, 0.4]}).set_index(["system", "qid"])
    >>> row = ta.stats.urisk(per, baseline="b", alpha=1).iloc[0]
    >>> round(float(row["urisk"]), 4), round(float(row["trisk"]), 4)   # (0.2 − 2·0.2)/3
    (-0.0667, -0.378)
    """
    alphas = check_alpha(alpha)
    _check_choice("undefined", undefined, ("skip", "zero"))
    if not isinstance(by_query, bool):
        raise InputError(f"by_query= must be True or False, not {by_query!r}")
    data = _normalise(per_query, by)
    j = _system_index(data, baseline, "baseline")
    if len(data.systems) < 2:
        raise InputError(f"urisk: per_query holds only the baseline {baseline!r}: no system "
                         "to compare with it")
    _say_lacking(data, "urisk", "each comparison pairs the queries both systems have")
    parts = [_risk_block(data, m, j, a, undefined, by_query) for m in data.metrics
             for a in alphas]
    rows = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    return _output(rows, data.polars)


def _risk_block(data, metric: str, j: int, alpha: float, undefined: str,
                by_query: bool) -> dict:
    """The rows of one (metric, α): every system against system ``j``."""
    v = data.matrix(metric, undefined)
    others = [s for s in range(len(data.systems)) if s != j]
    x, b = v[:, others], v[:, [j]]
    delta = x - b  # NaN where either is absent or undefined
    keep = ~np.isnan(delta)
    weighted = np.where(delta < 0, (1 + alpha) * delta, delta)
    n = keep.sum(axis=0)
    with np.errstate(all="ignore"):
        urisk = np.where(keep, weighted, 0.0).sum(axis=0) / n
        dev = np.where(keep, weighted - urisk, 0.0)
        sd = np.sqrt((dev**2).sum(axis=0) / (n - 1))
        sd = np.where(n > 1, sd, np.nan)
        se = sd / np.sqrt(n)
        trisk = np.where(sd > 0, urisk / se, np.nan)
    names = np.array(data.systems, dtype=object)
    common = {"metric": metric, "baseline": data.systems[j], "alpha": alpha}
    if by_query:
        return _by_query_rows(data, names[others], common, x, b, delta, weighted, keep, sd)
    p = 2 * _scipy_stats().t.sf(np.abs(trisk), n - 1)
    rows = {"metric": np.full(len(others), metric, dtype=object),
            "system": names[others],
            "baseline": np.full(len(others), common["baseline"], dtype=object),
            "alpha": np.full(len(others), alpha)}
    with np.errstate(all="ignore"):
        rows.update({"n": n,
                     "mean": np.where(keep, x, 0.0).sum(axis=0) / n,
                     "mean_baseline": np.where(keep, b, 0.0).sum(axis=0) / n,
                     "urisk": urisk, "se": se, "trisk": trisk,
                     "p_value": np.where(np.isnan(trisk), np.nan, p),
                     "wins": (keep & (delta > 0)).sum(axis=0),
                     "ties": (keep & (delta == 0)).sum(axis=0),
                     "losses": (keep & (delta < 0)).sum(axis=0)})
    return rows


def _by_query_rows(data, systems, common, x, b, delta, weighted, keep, sd) -> dict:
    """One row per (system, query) compared, systems in order, queries sorted."""
    col, row = np.nonzero(keep.T)  # system-major: each system's queries together
    qids = np.array(data.qids, dtype=object)
    with np.errstate(all="ignore"):
        t = np.where(sd[col] > 0, weighted.T[col, row] / sd[col], np.nan)
    size = len(col)
    return {"metric": np.full(size, common["metric"], dtype=object),
            "system": systems[col],
            "baseline": np.full(size, common["baseline"], dtype=object),
            "alpha": np.full(size, common["alpha"]),
            "qid": qids[row], "value": x.T[col, row], "baseline_value": b[row, 0],
            "delta": delta.T[col, row], "urisk": weighted.T[col, row], "trisk": t}


# ---------------------------------------------------------------------------- ZRisk, GeoRisk

def georisk(per_query: Frame, alpha: float | Sequence[float] = 0.0, *,
            baselines: Sequence[Any] | None = None, by: str | None = None,
            undefined: str = "skip") -> Result:
    """ZRisk and GeoRisk of every system against several baselines (see the module doc).

    Parameters
    ----------
    per_query : DataFrame or mapping
        Per-query values of several systems, as for ``urisk``; every value must be ≥ 0.
    alpha : float or list of float, default 0.0
        The risk weight α ≥ 0 of the topics a system does worse on than expected.
    baselines : list of system names, optional
        None: the matrix is every system of ``per_query``, and each system's ZRisk is
        computed on it. A list: each other system is scored on the matrix of itself and
        these baselines (the baselines get no row).
    by : str, optional
        The system column or index level (found alone when there is one).
    undefined : {"skip", "zero"}, default "skip"
        A topic where a system's value is undefined or absent: left out of the matrix
        ("skip"), or, when undefined, counted as 0 ("zero"; an absent value is always
        left out, with its topic).

    Returns
    -------
    One row per metric, system and α: ``metric``, ``system``, ``alpha``, ``n`` (topics,
    c), ``mean`` (Sⱼ/c), ``zrisk`` and ``georisk``.

    Examples
    --------
    >>> import pandas as pd
    >>> import trunc_accessor as ta
    >>> per = pd.DataFrame({"system": ["a"] * 2 + ["b"] * 2, "qid": ["1", "2"] * 2,
    ...                     "ap": [0.6, 0.2, 0.2, 0.2]}).set_index(["system", "qid"])
    >>> ta.stats.georisk(per, alpha=1)[["system", "zrisk", "georisk"]].round(4)
      system   zrisk  georisk
    0      a -0.1669   0.4321
    1      b -0.0756   0.3114
    """
    alphas = check_alpha(alpha)
    _check_choice("undefined", undefined, ("skip", "zero"))
    data = _normalise(per_query, by)
    base = _baseline_columns(data, baselines)
    scored = [s for s in range(len(data.systems)) if base is None or s not in base]
    if len(data.systems) < 2 or not scored:
        raise InputError("georisk needs at least two systems, and a system besides the "
                         f"baselines (systems: {data.systems}, baselines: {baselines})")
    _say_lacking(data, "georisk", "their topics are left out of the matrix")
    parts = [_georisk_block(data, m, base, scored, alphas, undefined)
             for m in data.metrics]
    rows = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    return _output(rows, data.polars)


def _baseline_columns(data, baselines) -> list[int] | None:
    if baselines is None:
        return None
    if isinstance(baselines, (str, bytes)) or not isinstance(baselines, Sequence):
        raise InputError(f"baselines= must be a list of system names or None, not "
                         f"{baselines!r}")
    if not baselines:
        raise InputError("baselines= is an empty list: name at least one baseline system")
    return sorted({_system_index(data, b, "baselines") for b in baselines})


def _check_non_negative(data, metric: str, x: np.ndarray, qids: np.ndarray) -> None:
    """ZRisk reads the values as counts of a contingency table: none may be negative."""
    bad = np.argwhere(x < 0)
    if bad.size:
        i, s = bad[0]
        raise InputError(f"georisk: system {data.systems[s]!r} has a negative value "
                         f"({x[i, s]!r}) on {metric!r} for qid {qids[i]!r}; ZRisk's expected "
                         "values need effectiveness values ≥ 0")


def _georisk_block(data, metric: str, base, scored: list[int], alphas: list[float],
                   undefined: str) -> dict:
    """ZRisk and GeoRisk of the ``scored`` systems on one metric, for every α."""
    v = data.matrix(metric, undefined)
    involved = list(range(len(data.systems))) if base is None else sorted({*base, *scored})
    rows_kept = ~np.isnan(v[:, involved]).any(axis=1)
    x = v[rows_kept]
    _check_non_negative(data, metric, x, np.array(data.qids, dtype=object)[rows_kept])
    c = x.shape[0]
    if c == 0:
        raise InputError(f"georisk: no topic has a value of every system on {metric!r}")
    if base is None:
        totals = x.sum(axis=1, keepdims=True)  # Tᵢ (c × 1)
        own = x[:, scored]
    else:  # each scored system with the baselines: Tᵢ = Σ_b x_ib + x_is
        own = x[:, scored]
        totals = x[:, base].sum(axis=1, keepdims=True) + own
    col = own.sum(axis=0)  # Sⱼ
    grand = totals.sum(axis=0)  # N (one per scored system, or the same for all)
    with np.errstate(all="ignore"):
        expected = totals * col / grand
        z = np.where(expected > 0, (own - expected) / np.sqrt(expected), 0.0)
    phi = _scipy_stats().norm.cdf
    out: dict = {k: [] for k in ("metric", "system", "alpha", "n", "mean", "zrisk",
                                 "georisk")}
    names = np.array(data.systems, dtype=object)[scored]
    for a in alphas:
        zrisk = np.where(z < 0, (1 + a) * z, z).sum(axis=0)
        mean = col / c
        for key, val in (("metric", np.full(len(scored), metric, dtype=object)),
                         ("system", names), ("alpha", np.full(len(scored), a)),
                         ("n", np.full(len(scored), c)), ("mean", mean), ("zrisk", zrisk),
                         ("georisk", np.sqrt(mean * phi(zrisk / c)))):
            out[key].append(val)
    return {k: np.concatenate(vals) for k, vals in out.items()}
