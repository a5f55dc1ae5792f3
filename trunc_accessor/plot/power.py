"""Power curves of topic set size design (Sakai, "Topic set size design", IRJ 2016): the
power of a paired t-test or one-way ANOVA against the number of topics or against the
difference to detect, one line per value of the other, as ``ta.stats.power_curve``
computes them.

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

_AXIS_LABELS = {"n": "topics (n)", "min_diff": "minimum detectable difference"}


def power_curve(curve: Frame, x: str = "n", metric: str | None = None,
                target: float | None = 0.8, ax: Axes = None) -> Axes:
    """Power against ``x`` ("n": the number of topics, or "min_diff": the difference or range
    to detect) from the frame of ``ta.stats.power_curve``, one line per value of the other
    variable (and per system pair when the curve was computed pair by pair), with a dashed
    line at the ``target`` power (None for none).

    ``metric``: the metric to draw (needed when the frame holds several). Returns the Axes;
    its lines are ``ax.get_lines()`` (the target line last), its legend names each line.
    """
    label = "power_curve"
    if x not in _AXIS_LABELS:
        raise InputError(f"{label}: x must be 'n' or 'min_diff', not {x!r}")
    _check_name(metric, "metric", label, optional=True)
    if target is not None and not (isinstance(target, (int, float)) and 0 < target < 1):
        raise InputError(f"{label}: target must be a power in (0, 1) or None, not {target!r}")
    _check_ax(ax, label)
    data = _frame_pandas(curve, f"{label}: curve")
    _need_columns(data, ["metric", "n", "min_diff", "power"], label)
    metrics = list(dict.fromkeys(data["metric"]))
    if metric is None and len(metrics) > 1:
        raise InputError(f"{label}: the curve holds metrics {metrics}: choose one with metric=")
    metric = metrics[0] if metric is None else metric
    if metric not in metrics:
        raise InputError(f"{label}: no metric {metric!r} in the curve; found {metrics}")
    rows = data[data["metric"] == metric]
    other = "min_diff" if x == "n" else "n"
    keys = [other] + [c for c in ("system", "other") if c in rows.columns]
    ax = _new_axes(ax, (6.0, 4.0), layout="constrained")
    for key, part in rows.groupby(keys, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        name = f"{other} = {key[0]:g}" + (f" ({key[1]} vs {key[2]})" if len(key) == 3 else "")
        part = part.sort_values(x)
        ax.plot(np.asarray(part[x], float), np.asarray(part["power"], float), marker=".",
                label=name)
    if target is not None:
        ax.axhline(target, color="grey", linestyle="--", linewidth=0.8,
                   label=f"power {target:g}")
    ax.set_xlabel(_AXIS_LABELS[x])
    ax.set_ylabel("power")
    ax.set_ylim(0, 1.02)
    design = rows["design"].iloc[0] if "design" in rows else "ttest"
    ax.set_title(f"{metric}: power of the {'paired t-test' if design == 'ttest' else 'ANOVA'}",
                 fontsize="medium")
    ax.grid(True, linewidth=0.4, alpha=0.5)
    ax.legend(fontsize="small", loc="lower left", bbox_to_anchor=(1.01, 0.0))
    return ax
