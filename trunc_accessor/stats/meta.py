"""Meta-analysis across test collections (Soboroff, "Meta-Analysis for Retrieval Experiments
Involving Multiple Test Collections", CIKM 2018): one effect of a system over a baseline per
collection (``collection_effects``, from a per-query table with a collection column) and
their fixed-effect and random-effects combination with heterogeneity (``meta_analysis``).
Frames in, frames out, in the caller's library (pandas or Polars)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.errors import InputError
from trunc_accessor.stats._common import _check_choice, _check_prob, _normalise, _scipy_stats

EFFECTS = ("md", "smd")
META_METHODS = ("REML", "DL", "PM", "FE")
_TOL, _MAX_ITER = 1e-12, 10_000


# ---------------------------------------------------------------------------- per collection

def _plain(frame, what):
    """(pandas frame with its index as columns, was it Polars)."""
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame.to_pandas(), True
    if isinstance(frame, pd.DataFrame):
        named = [n for n in frame.index.names if n is not None]
        return (frame.reset_index() if named else frame), False
    raise InputError(f"{what} must be a pandas or Polars DataFrame, not {type(frame).__name__}")


def collection_effects(per_query: Frame, system: Any, baseline: Any,
                       collection: str = "collection", effect: str = "md",
                       undefined: str = "skip", by: str | Sequence[str] | None = None) -> Result:
    """The effect of ``system`` over ``baseline`` on each collection, from per-query values
    with a ``collection`` column (a frame as ``evaluate`` returns, with that column added;
    queries are paired within a collection, so the same qid may appear in several).

    ``effect="md"``: the raw mean of the per-query differences d̄ = mean(system − baseline),
    with variance s_d²/n. ``effect="smd"``: the standardised mean difference of paired data
    d_z = d̄/s_d corrected for small samples (Hedges' g = J·d_z, J = 1 − 3/(4(n − 1) − 1)),
    with variance J²·(1/n + d_z²/(2n)) (the large-sample variance of a standardised mean;
    Borenstein et al., *Introduction to Meta-Analysis*, 2009, ch. 4). ``undefined`` as in
    ``compare``: "skip" drops a query undefined for either system, "zero" counts it as 0.

    Returns metric, collection, n, mean_system, mean_baseline, effect (the kind), value, variance
    and se — the input of ``meta_analysis``. A collection with fewer than two paired queries
    has no variance: an ``InputError`` names it.
    """
    _check_choice("effect", effect, EFFECTS)
    _check_choice("undefined", undefined, ("skip", "zero"))
    try:
        same = bool(system == baseline)
    except (TypeError, ValueError):
        same = False
    if same:
        raise InputError(f"system and baseline are the same system ({system!r}): nothing "
                         "to compare")
    frame, polars = _plain(per_query, "per_query")
    if not isinstance(collection, str) or collection not in frame.columns:
        raise InputError(f"collection={collection!r} is not a column of per_query (columns: "
                         f"{list(frame.columns)})")
    cols: dict[str, list] = {k: [] for k in ("metric", "collection", "n", "mean_system",
                                             "mean_baseline", "effect", "value", "variance",
                                             "se")}
    for name, part in frame.groupby(collection, sort=True, dropna=False):
        data = _normalise(part.drop(columns=collection), by)
        for who, label in ((system, "system"), (baseline, "baseline")):
            if who not in data.systems:
                raise InputError(f"{label}={who!r} has no rows in collection {name!r} "
                                 f"(systems there: {data.systems})")
        i, j = data.systems.index(system), data.systems.index(baseline)
        for metric in data.metrics:
            v = data.matrix(metric, undefined)
            x, y = v[:, i], v[:, j]
            keep = ~(np.isnan(x) | np.isnan(y))
            _effect_row(cols, metric, name, x[keep], y[keep], effect)
    out = pd.DataFrame(cols)
    return pl.from_pandas(out) if polars else out


def _effect_row(cols, metric, name, x, y, effect):
    n = len(x)
    if n < 2:
        raise InputError(f"collection {name!r} has {n} query(ies) with a value for both "
                         f"systems on {metric!r}: an effect's variance needs at least 2")
    d = x - y
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if effect == "md":
        value, var = mean, sd**2 / n
    else:
        if sd == 0:
            raise InputError(f"collection {name!r}: the differences on {metric!r} are all "
                             "equal, so their standardised mean is undefined (effect='smd')")
        dz = mean / sd
        j = 1 - 3 / (4 * (n - 1) - 1)
        value, var = j * dz, j**2 * (1 / n + dz**2 / (2 * n))
    for key, val in (("metric", metric), ("collection", name), ("n", n),
                     ("mean_system", float(x.mean())), ("mean_baseline", float(y.mean())),
                     ("effect", effect), ("value", value), ("variance", var),
                     ("se", math.sqrt(var))):
        cols[key].append(val)


# ---------------------------------------------------------------------------- τ² estimators

def _tau2_dl(y, v):
    """DerSimonian & Laird (1986): max(0, (Q − (k − 1)) / (Σw − Σw²/Σw))."""
    w = 1 / v
    mu = (w * y).sum() / w.sum()
    q = (w * (y - mu) ** 2).sum()
    return max(0.0, (q - (len(y) - 1)) / (w.sum() - (w**2).sum() / w.sum()))


def _tau2_reml(y, v):
    """The REML estimating equation iterated from the DL value (Viechtbauer, J. Educ. Behav.
    Stat. 30(3), 2005, eq. 12): τ² ← Σw²((y − μ̂)² − v)/Σw² + 1/Σw, w = 1/(v + τ²),
    truncated at 0."""
    tau2 = _tau2_dl(y, v)
    for _ in range(_MAX_ITER):
        w = 1 / (v + tau2)
        mu = (w * y).sum() / w.sum()
        new = max(0.0, (w**2 * ((y - mu) ** 2 - v)).sum() / (w**2).sum() + 1 / w.sum())
        if abs(new - tau2) <= _TOL * max(1.0, tau2):
            return new
        tau2 = new
    raise InputError("meta_analysis: the REML estimate of tau² did not converge; use "
                     "method='DL' or 'PM'")  # pragma: no cover - not met in practice


def _tau2_pm(y, v):
    """Paule & Mandel (1982): the τ² ≥ 0 at which the generalised Q, Σw(y − μ̂)² with w =
    1/(v + τ²), equals k − 1 (0 when Q at τ² = 0 is already below)."""
    from scipy.optimize import brentq

    def excess(t):
        w = 1 / (v + t)
        mu = (w * y).sum() / w.sum()
        return (w * (y - mu) ** 2).sum() - (len(y) - 1)

    if excess(0.0) <= 0:
        return 0.0
    hi = max(float(np.var(y)), 1e-12)
    while excess(hi) > 0:
        hi *= 2
    return float(brentq(excess, 0.0, hi, xtol=1e-15, rtol=1e-14))


_TAU2 = {"REML": _tau2_reml, "DL": _tau2_dl, "PM": _tau2_pm}


# ---------------------------------------------------------------------------- combination

def meta_analysis(effects: Frame, method: str = "REML", alpha: float = 0.05,
                  value: str = "value", variance: str = "variance",
                  study: str = "collection") -> Result:
    """Fixed-effect and random-effects combination of per-collection effects (Soboroff,
    CIKM 2018; the estimators and statistics as Borenstein et al. 2009 and metafor's ``rma``
    define them), separately for each metric when ``effects`` has a metric column.

    ``effects``: one row per collection (``study``) with its effect (``value``) and the
    effect's sampling ``variance``, as ``collection_effects`` returns or given directly.
    Fixed effect: μ̂ = Σw·y/Σw, w = 1/v, se = 1/√Σw. Random effects: w* = 1/(v + τ̂²) with
    τ̂² by ``method``: "REML" (restricted maximum likelihood), "DL" (DerSimonian & Laird,
    1986) or "PM" (Paule & Mandel, 1982); "FE" gives the fixed-effect model alone.
    Heterogeneity: Q = Σw(y − μ̂_FE)² with its χ²(k − 1) p-value; on the random-effects row
    I² = τ̂²/(τ̂² + s²) and H² = (τ̂² + s²)/s² with s² = (k − 1)Σw/((Σw)² − Σw²) (Higgins &
    Thompson, Stat. Med. 21, 2002; what metafor reports), on the fixed-effect row I² =
    max(0, (Q − (k − 1))/Q) and H² = Q/(k − 1). Intervals and p-values are normal (z).

    Returns, per metric, one row per collection (kind "collection": its effect, se,
    interval, z, p and its share of the weight in each model, weight_fixed and
    weight_random) and one row per model (kind "fixed", "random") with the combined effect,
    se, ci_low, ci_high, z, p_value, tau2, I2, H2, Q, Q_df, Q_p and method.
    """
    _check_choice("method", method, META_METHODS)
    _check_prob("alpha", alpha)
    frame, polars = _plain(effects, "effects")
    for label, col in (("value", value), ("variance", variance), ("study", study)):
        if not isinstance(col, str) or col not in frame.columns:
            raise InputError(f"{label}={col!r} is not a column of effects (columns: "
                             f"{list(frame.columns)})")
    groups = frame.groupby("metric", sort=False) if "metric" in frame.columns \
        else [(None, frame)]
    parts = [_combine(part, metric, method, alpha, value, variance, study)
             for metric, part in groups]
    out = pd.concat(parts, ignore_index=True)
    if "metric" not in frame.columns:
        out = out.drop(columns="metric")
    return pl.from_pandas(out) if polars else out


def _studies(part, value, variance, study):
    y = pd.to_numeric(part[value], errors="coerce").to_numpy(dtype=float)
    v = pd.to_numeric(part[variance], errors="coerce").to_numpy(dtype=float)
    names = part[study].tolist()
    if len(set(names)) != len(names):
        raise InputError(f"effects has several rows for the same {study} (one per "
                         "collection and metric expected)")
    if len(y) < 2:
        raise InputError(f"meta_analysis needs at least 2 collections, got {len(y)}")
    bad = ~np.isfinite(y) | ~np.isfinite(v) | ~(v > 0)
    if bad.any():
        raise InputError(f"{study} {names[int(np.argmax(bad))]!r} has no finite effect "
                         "with a variance > 0")
    return y, v, names


def _combine(part, metric, method, alpha, value, variance, study):
    st = _scipy_stats()
    y, v, names = _studies(part, value, variance, study)
    k, z_crit = len(y), st.norm.ppf(1 - alpha / 2)
    w = 1 / v
    q = float((w * (y - (w * y).sum() / w.sum()) ** 2).sum())
    heter = {"Q": q, "Q_df": k - 1, "Q_p": float(st.chi2.sf(q, k - 1))}
    s2 = (k - 1) * w.sum() / (w.sum() ** 2 - (w**2).sum())
    models = [("fixed", 0.0, {"tau2": math.nan, "I2": max(0.0, (q - (k - 1)) / q) if q else 0.0,
                              "H2": q / (k - 1)})]
    if method != "FE":
        tau2 = float(_TAU2[method](y, v))
        models.append(("random", tau2, {"tau2": tau2, "I2": tau2 / (tau2 + s2),
                                        "H2": (tau2 + s2) / s2}))
    rows = [{"metric": metric, "collection": name, "kind": "collection", "effect": y[i],
             "se": math.sqrt(v[i])} for i, name in enumerate(names)]
    for kind, tau2, stats in models:
        ws = 1 / (v + tau2)
        for i, row in enumerate(rows[:k]):
            row[f"weight_{kind}"] = ws[i] / ws.sum()
        rows.append({"metric": metric, "collection": None, "kind": kind,
                     "effect": (ws * y).sum() / ws.sum(), "se": 1 / math.sqrt(ws.sum()),
                     **stats, **heter, "method": "FE" if kind == "fixed" else method})
    out = pd.DataFrame(rows)
    out["ci_low"] = out["effect"] - z_crit * out["se"]
    out["ci_high"] = out["effect"] + z_crit * out["se"]
    out["z"] = out["effect"] / out["se"]
    out["p_value"] = 2 * st.norm.sf(np.abs(out["z"]))
    columns = ["metric", "collection", "kind", "effect", "se", "ci_low", "ci_high", "z",
               "p_value", "weight_fixed", "weight_random", "tau2", "I2", "H2", "Q", "Q_df",
               "Q_p", "method"]
    return out.reindex(columns=columns)
