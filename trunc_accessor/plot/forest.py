"""Forest plot of a meta-analysis across collections (Soboroff, CIKM 2018): each
collection's effect with its interval, the marker's area proportional to its weight, and
the combined effects as diamonds, from the frame of ``ta.stats.meta_analysis``.

matplotlib is an optional extra (``plots``), imported when a plot is drawn. The function
returns the matplotlib Axes it drew on and never calls ``show()``.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor._typing import Axes, Frame
from trunc_accessor.errors import InputError
from trunc_accessor.plot._common import (
    _check_ax,
    _check_name,
    _frame_pandas,
    _need_columns,
    _new_axes,
)

_MODEL_NAMES = {"fixed": "fixed effect", "random": "random effects"}


def forest_plot(meta: Frame, metric: str | None = None, ax: Axes = None,
                xlabel: str | None = None) -> Axes:
    """One row per collection (its effect as a square whose area is proportional to its
    random-effects weight — the fixed-effect weight when there is no random-effects row —
    and its interval as a line) and one diamond per combined model (its interval as the
    diamond's width), with a vertical line at 0.

    ``meta``: what ``ta.stats.meta_analysis`` returns (pandas or Polars); ``metric``: the
    metric to draw when it holds several; ``xlabel``: the x axis' label (default "<metric>:
    effect"). Returns the Axes; its y tick labels name the rows,
    top to bottom: the collections, then "fixed effect" and "random effects" (with τ² and
    I² in the random-effects label).
    """
    label = "forest_plot"
    _check_name(metric, "metric", label, optional=True)
    if xlabel is not None and not isinstance(xlabel, str):
        raise InputError(f"{label}: xlabel must be a string or None, not {xlabel!r}")
    _check_ax(ax, label)
    data = _frame_pandas(meta, f"{label}: meta")
    _need_columns(data, ["collection", "kind", "effect", "ci_low", "ci_high"], label)
    if "metric" in data.columns:
        metrics = list(dict.fromkeys(data["metric"]))
        if metric is None and len(metrics) > 1:
            raise InputError(f"{label}: meta holds metrics {metrics}: choose one with metric=")
        metric = metrics[0] if metric is None else metric
        if metric not in metrics:
            raise InputError(f"{label}: no metric {metric!r} in meta; found {metrics}")
        data = data[data["metric"] == metric]
    studies = data[data["kind"] == "collection"]
    models = data[data["kind"] != "collection"]
    rows = len(studies) + len(models)
    ax = _new_axes(ax, (6.0, 0.4 * rows + 1.4), layout="constrained")
    pos = np.arange(rows)[::-1].astype(float)
    weights = studies["weight_random"] if "weight_random" in studies \
        and studies["weight_random"].notna().all() else studies.get("weight_fixed")
    size = 20 + 300 * np.asarray(weights, float) if weights is not None \
        else np.full(len(studies), 40.0)
    sp = pos[:len(studies)]
    ax.hlines(sp, studies["ci_low"], studies["ci_high"], color="black", linewidth=1)
    ax.scatter(studies["effect"], sp, s=size, marker="s", color="steelblue", zorder=3)
    names = [str(c) for c in studies["collection"]]
    for y, row in zip(pos[len(studies):], models.itertuples(index=False)):
        lo, mid, hi = float(row.ci_low), float(row.effect), float(row.ci_high)
        ax.fill([lo, mid, hi, mid], [y, y + 0.3, y, y - 0.3],
                color="darkred" if row.kind == "random" else "grey", zorder=3)
        name = _MODEL_NAMES.get(row.kind, str(row.kind))
        if row.kind == "random" and "tau2" in models:
            name += f" (τ² = {row.tau2:.3g}, I² = {100 * row.I2:.0f}%)"
        names.append(name)
    ax.axvline(0.0, color="black", linewidth=0.8, linestyle=":")
    ax.set_yticks(pos)
    ax.set_yticklabels(names)
    ax.set_ylim(-0.8, rows - 0.2)
    ax.set_xlabel(xlabel if xlabel is not None else f"{metric}: effect" if metric else "effect")
    ax.grid(True, axis="x", linewidth=0.4, alpha=0.5)
    return ax
