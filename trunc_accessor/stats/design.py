"""Topic set size design from a past per-query table (Sakai, "Topic set size design",
*Information Retrieval Journal* 19(3), 2016): the variance of the scores estimated from a
system × topic matrix, the number of topics a new collection needs for a paired t-test, a
one-way ANOVA or a confidence-interval width, and power curves. The arithmetic (numbers in,
numbers out) is in ``sample_size``; this module reads frames and answers with frames, in
the caller's library (pandas or Polars)."""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from trunc_accessor._typing import Frame, Result
from trunc_accessor.errors import InputError
from trunc_accessor.stats._common import (
    _check_choice,
    _check_prob,
    _normalise,
    _output,
    _say_lacking,
)
from trunc_accessor.stats.sample_size import (
    METHODS,
    _check_positive,
    anova_power,
    ci_width,
    topics_for_anova,
    topics_for_ci,
    topics_for_ttest,
    ttest_power,
)

ESTIMATES = ("residual", "pairwise")
DESIGNS = ("ttest", "anova", "ci", "ttest_unpaired", "ci_unpaired")


def _blocks(per_query, undefined, by, function):
    """(data, {metric: (topics × systems) matrix of the topics every system has})."""
    _check_choice("undefined", undefined, ("skip", "zero"))
    data = _normalise(per_query, by)
    if len(data.systems) < 2:
        raise InputError(f"{function} needs at least two systems in per_query, got "
                         f"{data.systems}")
    _say_lacking(data, function, "only the topics every system has are used")
    blocks = {}
    for metric in data.metrics:
        v = data.matrix(metric, undefined)
        v = v[~np.isnan(v).any(axis=1)]
        if v.shape[0] < 2:
            raise InputError(f"{function}: metric {metric!r} has {v.shape[0]} topic(s) with a "
                             "value for every system; the variance needs at least 2")
        blocks[metric] = v
    return data, blocks


def design_variance(per_query: Frame, estimate: str = "residual", undefined: str = "skip",
                    by: str | Sequence[str] | None = None) -> Result:
    """Variance estimates for topic set size design from a past per-query table (topics ×
    systems for each metric; only the topics every system has are used, ``undefined`` as in
    ``tukey_hsd``).

    ``estimate="residual"`` (Sakai 2016, section 6, eq. 28): the residual mean square of the
    two-way ANOVA without replication (system × topic), V_E = Σ(x_ij − x̄_i· − x̄_·j +
    x̄)²/((n − 1)(m − 1)), as the within-system variance σ̂², one row per metric; the
    variance of a paired difference is then σ̂_t² = 2·V_E (the topic effect cancels in a
    difference). This 2·V_E is also the mean, over all pairs of systems, of the sample
    variances of their per-topic differences. ``estimate="pairwise"``: one row per metric
    and pair of systems, σ̂_t² the sample variance (n − 1 denominator) of that pair's
    per-topic differences and σ̂² = σ̂_t²/2 — for designing a comparison like that one pair.

    ``variance_within`` is the variance for the unpaired designs (two samples of topics,
    Sakai ICTIR 2018): each system's sample variance over the topics, averaged over the
    systems (the within-system mean square of a one-way ANOVA, m(n − 1) degrees of freedom;
    the topic effect stays in it) or, with "pairwise", over the two systems of the pair.

    Returns metric, (system, other for "pairwise"), estimate, topics (n of the past table),
    systems (m), df (of the estimate), variance (σ̂²), variance_diff (σ̂_t²) and
    variance_within.
    """
    _check_choice("estimate", estimate, ESTIMATES)
    data, blocks = _blocks(per_query, undefined, by, "design_variance")
    pairwise = estimate == "pairwise"
    keys = ["metric"] + (["system", "other"] if pairwise else [])
    cols: dict[str, list] = {k: [] for k in keys + ["estimate", "topics", "systems", "df",
                                                     "variance", "variance_diff",
                                                     "variance_within"]}
    for metric, x in blocks.items():
        n, m = x.shape
        within = np.var(x, axis=0, ddof=1)
        if pairwise:
            for i, j in itertools.combinations(range(m), 2):
                var_t = float(np.var(x[:, i] - x[:, j], ddof=1))
                cols["system"].append(data.systems[i])
                cols["other"].append(data.systems[j])
                _variance_row(cols, metric, estimate, n, m, n - 1, var_t / 2, var_t,
                              float((within[i] + within[j]) / 2))
        else:
            resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0) + x.mean()
            v_e = float((resid**2).sum() / ((n - 1) * (m - 1)))
            _variance_row(cols, metric, estimate, n, m, (n - 1) * (m - 1), v_e, 2 * v_e,
                          float(within.mean()))
    return _output(cols, data.polars)


def _variance_row(cols, metric, estimate, n, m, df, var, var_t, var_within):
    for key, value in (("metric", metric), ("estimate", estimate), ("topics", n),
                       ("systems", m), ("df", df), ("variance", var), ("variance_diff", var_t),
                       ("variance_within", var_within)):
        cols[key].append(value)


def _check_pairing(design, estimate):
    _check_choice("estimate", estimate, ESTIMATES)
    if design == "anova" and estimate == "pairwise":
        raise InputError("estimate='pairwise' is for design='ttest' or 'ci' (one pair of "
                         "systems); the ANOVA design needs the within-system variance of "
                         "all systems: estimate='residual'")


def _check_design(design, estimate, min_diff, delta, beta) -> float:
    """The checked target: ``delta`` for the CI design, else ``min_diff``."""
    _check_choice("design", design, DESIGNS)
    _check_pairing(design, estimate)
    if design.startswith("ci"):
        if min_diff is not None:
            raise InputError(f"min_diff= is for the t-test and ANOVA designs; design={design!r} "
                             "takes delta= (the cap on the interval's width)")
        return _check_positive("delta", delta)
    if delta is not None:
        raise InputError(f"delta= is for design='ci' or 'ci_unpaired'; design={design!r} takes "
                         "min_diff=")
    _check_prob("beta", beta)
    return _check_positive("min_diff", min_diff)


def topic_set_size(per_query: Frame, design: str = "ttest", min_diff: float | None = None,
                   delta: float | None = None, alpha: float = 0.05, beta: float = 0.20,
                   systems: int | None = None, estimate: str = "residual",
                   method: str = "exact", undefined: str = "skip",
                   by: str | Sequence[str] | None = None) -> Result:
    """Number of topics a new test collection needs, with the variance estimated from a past
    per-query table (Sakai, "Topic set size design", IRJ 2016).

    ``design="ttest"``: a two-sided paired t-test at level ``alpha`` detects a true mean
    difference ``min_diff`` with power ≥ 1 − ``beta`` (section 3; σ̂_t² = ``variance_diff``).
    ``design="anova"``: a one-way ANOVA over ``systems`` systems (default: as many as the
    past table has) detects a range ``min_diff`` of the true means (section 4; σ̂² =
    ``variance``). ``design="ci"``: the expected width of the 100(1 − α)% interval of a
    paired difference is at most ``delta`` (section 5; σ̂_t²). The variance comes from
    ``design_variance`` with ``estimate`` ("residual": Sakai's V_E, σ̂_t² = 2·V_E;
    "pairwise": each pair's own variance of differences, one row per pair).
    ``design="ttest_unpaired"`` and ``"ci_unpaired"``: the same for two independent samples
    of topics (Sakai, "Topic set size design for paired and unpaired data", ICTIR 2018; his
    samplesize2SAMPLET and samplesize2SAMPLECI tools), with ``variance_within`` as σ̂² and n
    the topics of each sample. ``method``:
    "exact" (noncentral t/F) or "sakai" (the normal approximations of his Excel tools), as
    in ``topics_for_ttest``, ``topics_for_anova`` and ``topics_for_ci``.

    Returns the rows of ``design_variance`` with design, alpha, method, beta and min_diff
    or delta, the systems of the design, n (the topics needed) and what n achieves: power
    (t-test, ANOVA) or expected_width (CI). A row whose variance is 0 (two systems with the
    same score on every topic) has no n (a missing value) and a NaN power.
    """
    target = _check_design(design, estimate, min_diff, delta, beta)
    _check_prob("alpha", alpha)
    _check_choice("method", method, METHODS)
    _check_systems(systems)
    table, polars = _pandas(design_variance(per_query, estimate, undefined, by))
    ns, achieved = [], []
    for row in table.itertuples(index=False):
        m = systems if systems is not None else int(row.systems)
        n, got = _design_row(design, target, row, m, alpha, beta, method)
        ns.append(n)
        achieved.append(got)
    ns = pd.array(ns, dtype="Int64")
    table = table.assign(design=design, alpha=alpha, method=method)
    if design.startswith("ci"):
        table = table.assign(delta=delta, n=ns, expected_width=achieved)
    else:
        table = table.assign(beta=beta, min_diff=min_diff, n=ns, power=achieved)
    if design == "anova":
        table["systems"] = systems if systems is not None else table["systems"]
    return _back(table, polars)


def _check_systems(systems):
    if systems is not None and (isinstance(systems, bool)
                                or not isinstance(systems, (int, np.integer)) or systems < 2):
        raise InputError(f"systems= must be an integer ≥ 2 or None, not {systems!r}")


def _design_row(design, target, row, m, alpha, beta, method):
    """(n, its power or expected width) of one row of ``design_variance``; (None, NaN) for
    a variance of 0 (identical scores on every topic: nothing to design)."""
    paired = not design.endswith("_unpaired")
    var = row.variance_diff if paired else row.variance_within
    if not (row.variance if paired else var) > 0:
        return None, math.nan
    if design.startswith("ttest"):
        n = topics_for_ttest(target, var, alpha, beta, method, paired)
        return n, ttest_power(n, target, var, alpha, method, paired)
    if design == "anova":
        n = topics_for_anova(target, row.variance, m, alpha, beta, method)
        return n, anova_power(n, target, row.variance, m, alpha, method)
    n = topics_for_ci(target, var, alpha, method, paired)
    return n, ci_width(n, var, alpha, method, paired)


def power_curve(per_query: Frame, min_diff: float | Iterable[float],
                n: int | Iterable[int] = tuple(range(10, 201, 10)), design: str = "ttest",
                alpha: float = 0.05, systems: int | None = None, estimate: str = "residual",
                method: str = "exact", undefined: str = "skip",
                by: str | Sequence[str] | None = None) -> Result:
    """Power against the number of topics and the difference to detect: for each metric
    (and pair, with ``estimate="pairwise"``), each ``n`` and each ``min_diff``, the power of
    the paired t-test (``design="ttest"``), of the two-sample t-test (``"ttest_unpaired"``,
    n topics per sample, σ̂² = ``variance_within``) or of the one-way ANOVA over ``systems``
    systems
    (``design="anova"``, ``min_diff`` the range) with the variance of ``design_variance``
    (Sakai 2016, sections 3–4; ``method`` as in ``ttest_power``). Draw it with
    ``ta.plot.power_curve``.

    Returns the rows of ``design_variance`` repeated for each (n, min_diff), with design,
    alpha, n, min_diff and power.
    """
    _check_choice("design", design, ("ttest", "anova", "ttest_unpaired"))
    _check_pairing(design, estimate)
    _check_prob("alpha", alpha)
    _check_choice("method", method, METHODS)
    _check_systems(systems)
    diffs = _values(min_diff, "min_diff")
    sizes = _values(n, "n")
    for value in sizes:
        if value != int(value) or value < 2:
            raise InputError(f"n= must hold integers ≥ 2 (numbers of topics), not {value!r}")
    for value in diffs:
        _check_positive("min_diff", value)
    table, polars = _pandas(design_variance(per_query, estimate, undefined, by))
    grid = table.merge(_grid(sizes, diffs), how="cross")
    power = []
    for row in grid.itertuples(index=False):
        if not row.variance > 0:
            power.append(math.nan)
        elif design == "ttest":
            power.append(ttest_power(int(row.n), row.min_diff, row.variance_diff, alpha, method))
        elif design == "ttest_unpaired":
            power.append(ttest_power(int(row.n), row.min_diff, row.variance_within, alpha,
                                     method, paired=False))
        else:
            m = systems if systems is not None else int(row.systems)
            power.append(anova_power(int(row.n), row.min_diff, row.variance, m, alpha, method))
    grid = grid.assign(design=design, alpha=alpha, power=power)
    if design == "anova" and systems is not None:
        grid["systems"] = systems
    return _back(grid, polars)


def _values(value, name) -> list[float]:
    values = [value] if np.ndim(value) == 0 else list(value)
    if not values:
        raise InputError(f"{name}= is empty: give a number or a sequence of numbers")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not math.isfinite(v):
            raise InputError(f"{name}= must hold finite numbers, not {v!r}")
    return [float(v) for v in values]


def _grid(sizes, diffs):
    return pd.DataFrame([(int(s), d) for s in sizes for d in diffs], columns=["n", "min_diff"])


def _pandas(frame):
    """(the frame as pandas, was it Polars)."""
    import polars as pl

    if isinstance(frame, pl.DataFrame):
        return frame.to_pandas(), True
    return frame, False


def _back(table, polars: bool):
    """``table`` (pandas) in the caller's library."""
    import polars as pl

    return pl.from_pandas(table) if polars else table
