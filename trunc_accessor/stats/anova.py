"""Topic × system two-way ANOVA without replication, its effect sizes, Tukey's HSD from its
residual variance and per-system intervals (Sakai, *Laboratory Experiments in Information
Retrieval: Sample Sizes, Effect Sizes, and Statistical Power*, Springer 2018, chs. 3–5).

Each (topic, system) cell holds one value x_ij (n topics, m systems, N = n·m). With the
grand mean x̄, system means x̄_i· and topic means x̄_·j:

* S_A = n Σ_i (x̄_i· − x̄)² (systems, φ_A = m − 1), S_B = m Σ_j (x̄_·j − x̄)² (topics,
  φ_B = n − 1), S_E = Σ_ij (x_ij − x̄_i· − x̄_·j + x̄)² (residual, φ_E = (m − 1)(n − 1)),
  S_T = S_A + S_B + S_E; V = S/φ; F_A = V_A/V_E, F_B = V_B/V_E; p from the F distribution.
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.errors import InputError
from trunc_accessor.stats._common import (
    _check_choice,
    _check_prob,
    _Data,
    _normalise,
    _output,
    _say_lacking,
    _scipy_stats,
)
from trunc_accessor.stats.tukey import _complete_block, _tukey_output

SOURCES = ("system", "topic", "residual", "total")
_RULE = "only the queries every system has are used (the two-way ANOVA needs every cell)"


# ---------------------------------------------------------------------------- input

def _read(per_query, by, wide: bool, function: str, rule: str = _RULE) -> _Data:
    """Per-query values as ``_normalise`` reads them; ``wide=True``: one row per topic (the
    qid a column or the index), one column per system, read as the metric "value"."""
    if not isinstance(wide, bool):
        raise InputError(f"wide= must be True or False, not {wide!r}")
    if wide:
        per_query = _melt(per_query)
    data = _normalise(per_query, by)
    if len(data.systems) < 2:
        raise InputError(f"{function} needs at least two systems, got {data.systems}")
    _say_lacking(data, function, rule)
    return data


def _melt(matrix):
    """A wide topic × system matrix (pandas or Polars) as a long frame system, qid, value."""
    polars = isinstance(matrix, (pl.DataFrame, pl.LazyFrame))
    if isinstance(matrix, pl.LazyFrame):
        matrix = matrix.collect()
    if polars:
        matrix = matrix.to_pandas()
    if not isinstance(matrix, pd.DataFrame):
        raise InputError("wide=True: per_query must be a pandas/Polars DataFrame with one row "
                         f"per topic and one column per system, not {type(matrix).__name__}")
    if "qid" in matrix.columns:
        matrix = matrix.set_index("qid")
    matrix = matrix.rename_axis("qid")
    if matrix.index.duplicated().any():
        raise InputError("wide=True: per_query has several rows for qid "
                         f"{matrix.index[matrix.index.duplicated()][0]!r}")
    bad = [c for c in matrix.columns if not (pd.api.types.is_numeric_dtype(matrix[c])
                                             and not pd.api.types.is_bool_dtype(matrix[c]))]
    if bad:
        raise InputError(f"wide=True: per_query columns {bad} are not numeric values")
    long = matrix.reset_index().melt(id_vars="qid", var_name="system", value_name="value")
    long = long.astype({"system": str})
    return pl.from_pandas(long) if polars else long


# ---------------------------------------------------------------------------- the ANOVA

def _fit(x: np.ndarray) -> dict:
    """The two-way ANOVA of one complete (topics × systems) matrix: sums of squares,
    degrees of freedom, mean squares, F and p of systems and topics, and the residual.
    A residual within rounding of 0 (an exactly additive matrix, constant scores) is 0,
    and the statistics divided by it are NaN."""
    n, m = x.shape
    grand, sys_means, top_means = x.mean(), x.mean(axis=0), x.mean(axis=1)
    s = {"system": n * np.sum((sys_means - grand) ** 2),
         "topic": m * np.sum((top_means - grand) ** 2),
         "residual": np.sum((x - sys_means[None, :] - top_means[:, None] + grand) ** 2),
         "total": np.sum((x - grand) ** 2)}
    if s["residual"] <= (64 * np.finfo(float).eps) ** 2 * x.size * np.max(np.abs(x)) ** 2:
        s["residual"] = np.float64(0.0)  # rounding of an exact 0 (as compare's t test)
    df = {"system": m - 1, "topic": n - 1, "residual": (m - 1) * (n - 1), "total": n * m - 1}
    with np.errstate(all="ignore"):
        v = {k: s[k] / df[k] if df[k] else np.float64(np.nan) for k in SOURCES}
        ve = v["residual"] if v["residual"] > 0 else np.nan
        f = {k: v[k] / ve for k in ("system", "topic")}
    return {"n": n, "m": m, "N": n * m, "sum_sq": s, "df": df, "mean_sq": v, "F": f,
            "means": sys_means, "grand": grand, "ve": ve}


def _effect_sizes(a: dict, source: str) -> dict:
    """η², partial η² and the two ω² of ``source`` ("system" or "topic")."""
    s, df, ve = a["sum_sq"], a["df"], a["mean_sq"]["residual"]  # classical ω²: V_E may be 0
    with np.errstate(all="ignore"):
        excess = df[source] * (a["F"][source] - 1)  # (S − φ V_E) / V_E
        return {"eta2": s[source] / s["total"],
                "eta2_partial": s[source] / (s[source] + s["residual"]),
                "omega2_classical": (s[source] - df[source] * ve) / (s["total"] + ve),
                "omega2_partial": excess / (excess + a["N"])}


def _matrices(data: _Data, undefined: str):
    """(metric, complete topics × systems matrix, its ANOVA or None below two topics)."""
    for metric in data.metrics:
        x = _complete_block(data, metric, undefined)
        yield metric, x, (_fit(x) if x.shape[0] >= 2 else None)


def two_way_anova(per_query: Frame, undefined: str = "skip",
                  by: str | Sequence[str] | None = None, wide: bool = False) -> Result:
    """Two-way ANOVA without replication of topics × systems, with effect sizes.

    The model x_ij = μ + α_i + β_j + ε_ij (system i, topic j, one value per cell), as used
    for IR by Tague-Sutcliffe & Blustein (TREC-3, 1995), Banks et al. (IR 1999) and Sakai
    (*Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 3; the sums of
    squares are those of the module docstring and of ``statsmodels``' ``anova_lm`` on
    ``score ~ C(system) + C(topic)``). V_E, the residual mean square, is what
    ``two_way_tukey_hsd`` and ``two_way_intervals`` use.

    Effect sizes of a source (systems A, or topics B with S_B, φ_B, F_B in their place):

    * ``eta2`` = S_A / S_T and ``eta2_partial`` = S_A / (S_A + S_E);
    * ``omega2_classical`` = (S_A − φ_A V_E) / (S_T + V_E): the classical ω² (Hays 1963;
      Olejnik & Algina, *Generalized eta and omega squared statistics*, Psychological
      Methods 8(4), 2003), the share of the total variance (topics included);
    * ``omega2_partial`` = φ_A (F_A − 1) / (φ_A (F_A − 1) + N), equal to
      (S_A − φ_A V_E) / (S_A + (N − φ_A) V_E): partial ω² (Keppel 1991; Olejnik & Algina
      2003), the share of systems in systems + residual variance, topics left out. It is
      the ω²⟨fact⟩ of Ferro & Silvello (*A general linear mixed models approach to study
      system component effects*, SIGIR 2016; *Toward an anatomy of IR system component
      performances*, JASIST 69(2), 2018), who read > 0.14 as large, > 0.06 as medium and
      > 0.01 as small.

    Both ω² are corrected for the bias of η² and can be negative (an effect smaller than
    the noise); report which one you give. On effect sizes in IR papers see Sakai,
    *Statistical significance, power, and sample sizes: a systematic review of SIGIR and
    TOIS, 2006–2015* (SIGIR 2016) and his book, ch. 5. A residual of 0 (every cell exactly system
    effect + topic effect, constant scores) leaves F, p and partial ω² NaN, as ``compare``'s
    t test of constant differences, and NaN in ``two_way_tukey_hsd`` and
    ``two_way_intervals`` too.

    Parameters
    ----------
    per_query : DataFrame or Mapping
        Per-query values, as ``compare`` reads them: what ``run.ir.evaluate(qrels, metrics,
        by="system")`` returns (pandas or Polars), a frame with columns system, qid and the
        metrics, or a mapping ``{system: frame}``; with ``wide=True`` a topic × system
        matrix (one row per topic, the qid a column or the index, one column per system).
        Only the topics with a value for every system are used: a query some system has
        no row for is dropped with a ``DroppedQueriesWarning`` naming the system.
    undefined : str, default "skip"
        "skip": a topic whose value is undefined (NaN) in any system is left out; "zero":
        an undefined value counts as 0 (trec_eval's convention).
    by : str, optional
        Name of the system column/level (as in ``compare``).
    wide : bool, default False
        Read ``per_query`` as a topic × system matrix (metric "value").

    Returns
    -------
    DataFrame
        One row per (metric, source), source in system, topic, residual, total: metric,
        source, n_topics, n_systems, sum_sq, df, mean_sq (the residual row's is V_E), F,
        p_value, eta2, eta2_partial, omega2_classical, omega2_partial (NaN where they do
        not apply; every statistic NaN below two complete topics).

    A worked example on the Cranfield runs is in the guide "How many topics, how sure, how
    big".
    """
    _check_choice("undefined", undefined, ("skip", "zero"))
    data = _read(per_query, by, wide, "two_way_anova")
    scipy_stats = _scipy_stats()
    names = ("sum_sq", "df", "mean_sq", "F", "p_value", "eta2", "eta2_partial",
             "omega2_classical", "omega2_partial")
    cols: dict[str, list] = {k: [] for k in ("metric", "source", "n_topics", "n_systems",
                                             *names)}
    for metric, x, a in _matrices(data, undefined):
        for source in SOURCES:
            row = dict.fromkeys(names, np.nan)
            if a is not None:
                row.update(sum_sq=a["sum_sq"][source], df=a["df"][source],
                           mean_sq=a["mean_sq"][source])
                if source in a["F"]:
                    row.update(F=a["F"][source], **_effect_sizes(a, source),
                               p_value=float(scipy_stats.f.sf(a["F"][source], a["df"][source],
                                                              a["df"]["residual"])))
            for k, v in (("metric", metric), ("source", source), ("n_topics", x.shape[0]),
                         ("n_systems", x.shape[1])):
                cols[k].append(v)
            for k in names:
                cols[k].append(float(row[k]))
    return _output(cols, data.polars)


# ---------------------------------------------------------------------------- Tukey HSD

def two_way_tukey_hsd(per_query: Frame, undefined: str = "skip", alpha: float = 0.05,
                      confidence: float = 0.95, by: str | Sequence[str] | None = None,
                      wide: bool = False) -> Result:
    """Tukey's HSD test of every pair of systems with topics as blocks: the residual
    variance V_E of the two-way ANOVA without replication (``two_way_anova``) as the error
    term (Sakai, *Laboratory Experiments in Information Retrieval*, 2018, ch. 4, whose
    eq. 4.19 is the interval below).

    For systems i, j over n topics and m systems: q = |x̄_i· − x̄_j·| / √(V_E / n);
    ``p_value`` = P(Q ≥ q) for the studentised range Q with m means and φ_E = (m − 1)(n − 1)
    degrees of freedom (``scipy.stats.studentized_range.sf(q, m, φ_E)``), family-wise
    adjusted by construction; the simultaneous interval of x̄_i· − x̄_j· at ``confidence``
    is delta ± q(confidence; m, φ_E) · √(V_E / n), q(·) the studentised range quantile
    (every pair's interval covers its true difference together, with that probability).
    ``effect_size`` = (x̄_i· − x̄_j·) / √V_E, Sakai's ES_E (ch. 5).

    Compared with ``tukey_hsd`` (one-way: topics not blocks, its error term holds the
    topic variance too) this test is usually much more powerful on IR data; with two
    systems it is the paired t test. ``randomized_tukey_hsd`` is its distribution-free
    counterpart (Carterette, TOIS 2012). Arguments and the input as in ``two_way_anova``.

    Returns
    -------
    DataFrame
        ``tukey_hsd``'s columns (metric, system, other, n, mean_system, mean_other, delta,
        ci_low, ci_high, p_value, significant = p_value ≤ ``alpha``) and effect_size, one
        row per pair in input order.
    """
    _check_choice("undefined", undefined, ("skip", "zero"))
    _check_prob("alpha", alpha)
    _check_prob("confidence", confidence)
    data = _read(per_query, by, wide, "two_way_tukey_hsd")
    scipy_stats = _scipy_stats()
    cols: dict[str, list] = {k: [] for k in ("metric", "system", "other", "n", "mean_system",
                                             "mean_other", "delta", "ci_low", "ci_high",
                                             "p_value", "significant")}
    effect: list[float] = []
    for metric, x, a in _matrices(data, undefined):
        m = x.shape[1]
        p = lows = highs = es = np.full((m, m), np.nan)
        if a is not None:
            ve, phi = a["ve"], a["df"]["residual"]
            diff = a["means"][:, None] - a["means"][None, :]
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                se = np.sqrt(ve / x.shape[0])
                p = scipy_stats.studentized_range.sf(np.abs(diff) / se, m, phi)
                half = scipy_stats.studentized_range.ppf(confidence, m, phi) * se
                es = diff / np.sqrt(ve)
            lows, highs = diff - half, diff + half
        _tukey_output(data, metric, x, p, lows, highs, alpha, cols)
        effect.extend(float(es[i, j]) for i, j in itertools.combinations(range(m), 2))
    cols["effect_size"] = effect
    return _output(cols, data.polars)


# ---------------------------------------------------------------------------- intervals

def two_way_intervals(per_query: Frame, undefined: str = "skip", confidence: float = 0.95,
                      by: str | Sequence[str] | None = None, wide: bool = False) -> Result:
    """Per-system confidence intervals from the two-way ANOVA's residual variance, as elinor
    prints them (its "95% MOE" column): x̄_i· ± t(φ_E; (1 − confidence)/2) · √(V_E / n),
    t(φ; a) the upper-a quantile of Student's t, the same margin of error for every
    system. Each is an interval of one system's mean at ``confidence``: they are
    **not** simultaneous (for all pairs at once see ``two_way_tukey_hsd``), and two systems'
    intervals overlapping says nothing about a test between them.

    ``effect_size`` = (x̄_i· − x̄) / √V_E: the system's standardised effect α̂_i / σ̂, the
    quantity whose squares Sakai's one-way ANOVA power analysis sums (Δ = Σ α_i² / σ²).
    Arguments and the input as in ``two_way_anova``.

    Returns
    -------
    DataFrame
        metric, system, n (topics), mean, margin (the half-width), ci_low, ci_high,
        effect_size.
    """
    _check_choice("undefined", undefined, ("skip", "zero"))
    _check_prob("confidence", confidence)
    data = _read(per_query, by, wide, "two_way_intervals")
    scipy_stats = _scipy_stats()
    cols: dict[str, list] = {k: [] for k in ("metric", "system", "n", "mean", "margin",
                                             "ci_low", "ci_high", "effect_size")}
    for metric, x, a in _matrices(data, undefined):
        means = x.mean(axis=0) if x.shape[0] else np.full(x.shape[1], np.nan)
        margin, es = np.nan, np.full(x.shape[1], np.nan)
        if a is not None:
            ve = a["ve"]
            with np.errstate(all="ignore"):
                margin = float(scipy_stats.t.ppf((1 + confidence) / 2, a["df"]["residual"])
                               * np.sqrt(ve / x.shape[0]))
                es = (means - a["grand"]) / np.sqrt(ve)
        for i, system in enumerate(data.systems):
            cols["metric"].append(metric)
            cols["system"].append(system)
            cols["n"].append(x.shape[0])
            cols["mean"].append(float(means[i]))
            cols["margin"].append(margin)
            cols["ci_low"].append(float(means[i] - margin))
            cols["ci_high"].append(float(means[i] + margin))
            cols["effect_size"].append(float(es[i]))
    return _output(cols, data.polars)
