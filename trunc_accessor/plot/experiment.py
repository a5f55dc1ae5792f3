"""The figures of an experiment: per-topic differences to a baseline, per-query
distributions, the forest plot of its intervals and the scatter of two metrics' system
means (with Kendall's τ between their orderings).

matplotlib is an optional extra (``plots``: ``pip install -e ".[plots]"``), imported when a
plot is drawn. Every function returns the matplotlib Axes it drew on and never calls
``show()``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from trunc_accessor._typing import Axes, Frame
from trunc_accessor.errors import InputError
from trunc_accessor.plot._common import (
    _check_ax,
    _check_key,
    _check_name,
    _check_systems,
    _frame_pandas,
    _need_columns,
    _new_axes,
    _place_labels,
    _query_keys,
    _systems,
)

#: Bar colours of ``topic_differences``: system above, equal to, below the baseline.
DIFFERENCE_COLOURS = {"better": "tab:green", "tie": "tab:grey", "worse": "tab:red"}


def topic_differences(per_query: Frame, system: Any, baseline: Any, metric: str,
                      ax: Axes = None, by: str = "system") -> Axes:
    """Per-topic difference plot: for each query, ``metric`` of ``system`` minus that of
    ``baseline`` as one bar, the bars sorted from the largest gain to the largest loss and
    coloured by sign (green: better, grey: tie, red: worse), with a line at 0 and a title
    giving the mean difference and the wins/ties/losses counts (the per-topic analysis of
    Anserini's regressions, castorini/anserini#566; Sakai's "per-topic" view).

    ``per_query``: per-query values of several systems, pandas or Polars, as
    ``runs.ir.evaluate(qrels, [...], by="system")`` returns them. Queries missing or
    undefined (NaN) for either system are left out. Returns the Axes (a new figure's unless
    ``ax`` is given); its bars are ``ax.patches``, one per query, in plotted order.
    """
    label = "topic_differences"
    _check_key(system, "system", label)
    _check_key(baseline, "baseline", label)
    _check_name(metric, "metric", label)
    _check_name(by, "by", label)
    _check_ax(ax, label)
    data = _frame_pandas(per_query, f"{label}: per_query")
    _need_columns(data, [by, metric], label)
    keys = _query_keys(per_query, data, by, label)
    _systems(data, by, [system, baseline], label)
    a = data.loc[data[by] == system, keys + [metric]]
    b = data.loc[data[by] == baseline, keys + [metric]]
    for name, part in ((system, a), (baseline, b)):
        if part.duplicated(keys).any():
            raise InputError(f"{label}: {name!r} has several rows for one query")
    both = a.merge(b, on=keys, suffixes=("_system", "_baseline"))
    delta = (both[f"{metric}_system"].to_numpy(dtype=np.float64)
             - both[f"{metric}_baseline"].to_numpy(dtype=np.float64))
    delta = np.sort(delta[~np.isnan(delta)])[::-1]
    ax = _new_axes(ax, (8.0, 4.0))
    x = np.arange(len(delta))
    signs = {"better": delta > 0, "tie": delta == 0, "worse": delta < 0}
    counts = {k: int(m.sum()) for k, m in signs.items()}
    for kind, mask in signs.items():
        if mask.any():
            ax.bar(x[mask], delta[mask], width=0.85, color=DIFFERENCE_COLOURS[kind],
                   label=f"{kind} than {baseline} ({counts[kind]})" if kind != "tie"
                   else f"tie ({counts[kind]})")
    ax.axhline(0.0, color="black", linewidth=0.8)
    mean = float(np.mean(delta)) if len(delta) else float("nan")
    ax.set_title(f"{system} − {baseline}, {metric}: mean Δ = {mean:+.4f}, "
                 f"W/T/L = {counts['better']}/{counts['tie']}/{counts['worse']}")
    ax.set_xlabel(f"queries, sorted by difference (n = {len(delta)})")
    ax.set_ylabel(f"Δ {metric}")
    ax.set_xlim(-0.75, max(len(delta), 1) - 0.25)
    ax.set_xticks([])
    if len(delta):
        ax.legend(fontsize="small", loc="upper right")
    return ax


def query_distributions(per_query: Frame, metric: str, kind: str = "box", ax: Axes = None,
                        by: str = "system", *, systems: Sequence[Any] | None = None) -> Axes:
    """The distribution of a metric's per-query values, one box (``kind="box"``: quartiles,
    whiskers at 1.5 IQR, outliers) or violin (``kind="violin"``) per system, the system's
    mean marked with a white diamond. ``per_query``: pandas or Polars per-query values with
    a ``by`` column or index level; ``systems``: which to draw, in order (default: all, in
    order of appearance). NaN (undefined) values are left out. Returns the Axes; its
    legend sits beside it, inside the figure (as ``interval_plot``'s).
    """
    label = "query_distributions"
    _check_name(metric, "metric", label)
    _check_name(by, "by", label)
    _check_systems(systems, label)
    _check_ax(ax, label)
    if kind not in ("box", "violin"):
        raise InputError(f"{label}: kind must be 'box' or 'violin', not {kind!r}")
    data = _frame_pandas(per_query, f"{label}: per_query")
    _need_columns(data, [by, metric], label)
    names = _systems(data, by, systems, label)
    values = []
    for s in names:
        v = data.loc[data[by] == s, metric].to_numpy(dtype=np.float64)
        values.append(v[~np.isnan(v)])
    empty = [s for s, v in zip(names, values) if not len(v)]
    if empty:
        raise InputError(f"{label}: no defined {metric} value for system(s) {empty}")
    ax = _new_axes(ax, (max(4.0, 1.1 * len(names) + 1.5), 4.2), layout="constrained")
    pos = np.arange(1, len(names) + 1)
    if kind == "box":
        ax.boxplot(values, positions=pos, widths=0.6, patch_artist=True,
                   boxprops={"facecolor": "lightsteelblue"},
                   medianprops={"color": "black"},
                   flierprops={"markersize": 3, "alpha": 0.5})
    else:
        parts = ax.violinplot(values, positions=pos, widths=0.8, showextrema=False,
                              showmedians=True)
        for body in parts["bodies"]:
            body.set_facecolor("lightsteelblue")
            body.set_edgecolor("steelblue")
            body.set_alpha(0.8)
    means = [float(np.mean(v)) for v in values]
    ax.scatter(pos, means, marker="D", s=28, color="white", edgecolor="black", zorder=3,
               label="mean")
    ax.set_xticks(pos)
    # vertical names: long neighbours (bm25l_stem, bm25plus_stem) never run into each other
    ax.set_xticklabels([str(s) for s in names], rotation=90)
    ax.set_ylabel(metric)
    ax.set_title(f"per-query {metric}")
    ax.legend(fontsize="small", loc="lower left", bbox_to_anchor=(1.01, 0.0))
    return ax


def interval_plot(table: Frame, metric: str, ax: Axes = None, *, kind: str = "mean",
                  by: str | None = None) -> Axes:
    """Forest plot of an experiment: one row per system with its mean (``kind="mean"``) or
    its difference to the baseline (``kind="delta"``) and the interval the table holds
    (``ci_low``/``ci_high`` or ``delta_ci_low``/``delta_ci_high``), the baseline marked (its
    mean as a vertical line, or 0 for differences) and significant differences filled.

    ``table``: what ``trunc_accessor.experiment`` returns (pandas or Polars); ``metric``:
    one of its metrics. Returns the Axes. The legend sits beside the Axes, inside the
    figure (a new figure has ``layout="constrained"``, which makes room for it, so a plain
    ``savefig`` keeps it whole); with your own ``ax``, give its figure that layout or save
    with ``bbox_inches="tight"``.
    """
    label = "interval_plot"
    _check_name(metric, "metric", label)
    _check_name(by, "by", label, optional=True)
    _check_ax(ax, label)
    data = _frame_pandas(table, f"{label}: table")
    by = by or (table.attrs.get("by") if hasattr(table, "attrs") else None) or "system"
    _need_columns(data, [by, "metric", "mean", "ci_low", "ci_high"], label)
    if kind not in ("mean", "delta"):
        raise InputError(f"{label}: kind must be 'mean' or 'delta', not {kind!r}")
    rows, baseline = _metric_rows(data, metric, by, kind, label)
    if kind == "delta":
        centre, low, high = rows["delta"], rows["delta_ci_low"], rows["delta_ci_high"]
    else:
        centre, low, high = rows["mean"], rows["ci_low"], rows["ci_high"]
    names = [str(s) for s in rows[by]]
    ax = _new_axes(ax, (5.6, 0.45 * len(names) + 1.4), layout="constrained")
    pos = np.arange(len(names))[::-1]
    c, lo, hi = (np.asarray(v, dtype=np.float64) for v in (centre, low, high))
    significant = rows["significant"].to_numpy(dtype=bool) if "significant" in rows \
        else np.zeros(len(names), dtype=bool)
    ax.hlines(pos, lo, hi, color="steelblue", linewidth=2)
    is_base = np.array([n == str(baseline) for n in names]) if baseline is not None \
        else np.zeros(len(names), dtype=bool)
    _interval_centres(ax, c, pos, significant, is_base)
    if kind == "delta":
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"{metric}: difference to {baseline}")
    else:
        if baseline is not None:
            base = float(rows.loc[rows[by] == baseline, "mean"].iloc[0])
            ax.axvline(base, color="black", linestyle="--", linewidth=0.8,
                       label=f"{baseline} (baseline)")
        ax.set_xlabel(f"{metric}: mean")
    ax.set_yticks(pos)
    ax.set_yticklabels([n + (" (baseline)" if n == str(baseline) and kind == "mean" else "")
                        for n in names])
    confidence = rows["confidence"].iloc[0] if "confidence" in rows else 0.95
    ax.set_title(f"{metric}: {float(confidence) * 100:g}% intervals", fontsize="medium")
    ax.grid(True, axis="x", linewidth=0.4, alpha=0.5)
    ax.legend(fontsize="small", loc="lower left", bbox_to_anchor=(1.01, 0.0))
    return ax


def _metric_rows(data, metric: str, by: str, kind: str, label: str):
    """The table's rows of ``metric`` (without the baseline's for ``kind="delta"``) and the
    one baseline they were compared with (None when the experiment compared all pairs)."""
    known = list(dict.fromkeys(data["metric"]))
    if metric not in known:
        raise InputError(f"{label}: no metric {metric!r} in the table; found {known}")
    rows = data[data["metric"] == metric]
    baseline = None
    if "baseline" in rows.columns:
        present = list(dict.fromkeys(rows["baseline"].dropna()))
        if len(present) > 1:
            raise InputError(f"{label}: the table compares against several baselines "
                             f"{present}: pass table[table.baseline == ...]")
        baseline = present[0] if present else None
    if kind == "delta":
        if baseline is None:
            raise InputError(f"{label}: kind='delta' needs an experiment with a baseline")
        rows = rows[rows[by] != baseline]
    return rows, baseline


def _interval_centres(ax, c, pos, significant, is_base) -> None:
    """The centres of the intervals: the baseline a black square, significant differences
    filled, the others hollow."""
    if is_base.any():
        ax.scatter(c[is_base], pos[is_base], s=40, marker="s", color="black", zorder=3,
                   label="baseline")
    other = ~significant & ~is_base
    ax.scatter(c[other], pos[other], s=36, marker="o", facecolor="white",
               edgecolor="steelblue", zorder=3, label="not significant")
    if significant.any():
        ax.scatter(c[significant], pos[significant], s=36, marker="o", color="steelblue",
                   zorder=3, label="significant")


def metric_scatter(table_or_per_query: Frame, metric_x: str, metric_y: str, ax: Axes = None,
                   by: str = "system") -> Axes:
    """Do two metrics rank the systems alike? One point per system at its means under
    ``metric_x`` and ``metric_y``, labelled with its name, and Kendall's τ between the two
    orderings of the system means in the title (``scipy.stats.kendalltau``, τ-b; Voorhees
    2000, a τ above 0.9 being read as "equivalent" rankings).

    ``table_or_per_query``: the tidy table of ``trunc_accessor.experiment`` (columns
    ``by``, ``metric``, ``mean``) or per-query values (one column per metric; means taken
    over the defined values), pandas or Polars. Returns the Axes.
    """
    label = "metric_scatter"
    _check_name(metric_x, "metric_x", label)
    _check_name(metric_y, "metric_y", label)
    _check_name(by, "by", label)
    _check_ax(ax, label)
    data = _frame_pandas(table_or_per_query, f"{label}: table_or_per_query")
    _need_columns(data, [by], label)
    if {"metric", "mean"} <= set(data.columns) and metric_x not in data.columns:
        known = list(dict.fromkeys(data["metric"]))
        missing = [m for m in (metric_x, metric_y) if m not in known]
        if missing:
            raise InputError(f"{label}: no metric(s) {missing} in the table; found {known}")
        means = data.pivot_table(index=by, columns="metric", values="mean", sort=False)
    else:
        _need_columns(data, [metric_x, metric_y], label)
        means = data.groupby(by, sort=False)[[metric_x, metric_y]].mean()
    x = means[metric_x].to_numpy(dtype=np.float64)
    y = means[metric_y].to_numpy(dtype=np.float64)
    from trunc_accessor.stats._common import _scipy_stats

    kendalltau = _scipy_stats().kendalltau  # scipy, or an error naming the extra

    tau = float(kendalltau(x, y).statistic) if len(x) > 1 else float("nan")
    ax = _new_axes(ax, (5.6, 4.6))
    ax.scatter(x, y, s=30, zorder=3)
    _place_labels(ax, [str(n) for n in means.index], x, y)
    ax.set_xlabel(f"{metric_x} (mean)")
    ax.set_ylabel(f"{metric_y} (mean)")
    ax.set_title(f"{metric_x} vs {metric_y}: Kendall's τ = {tau:.3f} ({len(x)} systems)")
    ax.grid(True, linewidth=0.4, alpha=0.5)
    return ax
