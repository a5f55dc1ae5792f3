"""Curves of runs against their judgments: effort plots for the Twist measure (Ferro et al.):
CRP curves per query (the paper's Figure 2) and effort/gain scatter plots (Figures 7–10),
interpolated precision–recall curves and a cut-off metric against its cut-off.

matplotlib is an optional extra (``plots``: ``pip install -e ".[plots]"``), imported when a
plot is drawn. Every function returns the matplotlib Figure or Axes it drew on and never
calls ``show()``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from trunc_accessor._typing import Axes, Frame
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine import options as _options
from trunc_accessor.engine.options import Options
from trunc_accessor.errors import InputError
from trunc_accessor.plot._common import (
    _check_ax,
    _check_frame,
    _check_name,
    _check_systems,
    _frame_pandas,
    _new_axes,
    _pyplot,
    _systems,
    _whole,
)

#: Twist bounds of the archetypes (Figure 6): below 1/4 the worst and full-scale runs, below
#: 1/2 the runs whose CRP never turns positive (typical B); above, typical A (medium effort)
#: and excellent runs (low effort). The columns of the effort/gain grid.
EFFORT_BOUNDS = (0.25, 0.5, 0.75)
EFFORT_LABELS = ("huge effort", "high effort", "medium effort", "low effort")


MAX_LEVELS = 10_001  # precision_recall's recall levels (a level every 0.0001)


def plot_crp(run: Frame, qrels: Frame, qids: Sequence[Any] | None = None, *,
             depth: int | None = None, ties: str = "average",
             by: str | Sequence[str] | None = None, relevance_level: float = 1,
             ncols: int = 3, figsize: tuple[float, float] | None = None) -> Any:
    """CRP curves, one panel per query, as the paper's Figure 2: the run's curve (one per
    system with ``by=``), the ideal run (CRP = 0), the full-scale run of the same length
    (dashed) and the recall base RB (vertical). Also the worst run (dotted), the lower bound
    of every CRP curve: for a ranking shorter than 2·RB the full-scale run is not (it holds
    relevant documents before RB). References are those of the longest ranking in a panel.

    ``qids``: the queries to draw, in that order (default: every scored query). ``depth``,
    ``ties``, ``by``, ``relevance_level`` as ``run.ir.crp``. Returns the Figure; its
    ``axes`` hold one panel per query (R = 0: an empty panel saying so).
    """
    options = _options.options(ties=ties, relevance_level=relevance_level)
    return _crp_figure(run, qrels, qids, options, depth=_options.check_depth(depth), by=by,
                       ncols=ncols, figsize=figsize)


def _crp_figure(run: Frame, qrels: Frame, qids: Sequence[Any] | None, options: Options, *,
                depth: int | None, by: str | Sequence[str] | None, ncols: int,
                figsize: tuple[float, float] | None) -> Any:
    """``plot_crp`` with the call's options and depth checked
    (``trunc_accessor.engine.options``)."""
    label = "plot_crp"
    ncols = _whole(ncols, "ncols", label, 1)
    if qids is not None and not isinstance(qids, (str, int)) and (
            not isinstance(qids, (Sequence, np.ndarray)) or isinstance(qids, bytes)):
        raise InputError(f"{label}: qids must be a qid or a list of qids (or None for all), "
                         f"not {qids!r}")
    if figsize is not None:
        from trunc_accessor.metrics.params import is_real

        if not isinstance(figsize, (tuple, list)) or len(figsize) != 2 or not all(
                is_real(v) and math.isfinite(v) and v > 0 for v in figsize):
            raise InputError(f"{label}: figsize must be (width, height) in inches, two "
                             f"numbers > 0, or None, not {figsize!r}")
        dpi = float(_pyplot().rcParams["figure.dpi"])
        if max(figsize) * dpi >= 2 ** 23:
            raise InputError(f"{label}: figsize {figsize!r} is too large to draw: Matplotlib "
                             f"draws fewer than 2**23 pixels a side, {2 ** 23 / dpi:,.0f} "
                             f"inches at the figure's {dpi:g} dpi")
    plt = _pyplot()
    frame, cols = engine.crp(run, qrels, "references", options, depth=depth, by=by)
    qid = cols.run_qid
    names = frame[qid].cast(pl.String)
    if qids is None:
        wanted = names.unique(maintain_order=True).to_list()
    else:
        wanted = [str(q) for q in ([qids] if isinstance(qids, (str, int)) else qids)]
        missing = sorted(set(wanted) - set(names.to_list()))
        if missing:
            raise InputError(f"plot_crp: no ranking to draw for qid(s) {missing}")
    ncols = max(1, min(ncols, len(wanted)))
    nrows = math.ceil(len(wanted) / ncols)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=figsize or (4.2 * ncols, 3.2 * nrows))
    for ax in axes.flat[len(wanted):]:
        ax.remove()
    for ax, q in zip(axes.flat, wanted):
        _crp_panel(ax, frame.filter(names == q), list(cols.by))
        ax.set_title(f"{qid} {q}")
    fig.tight_layout()
    return fig


def _crp_panel(ax, panel: pl.DataFrame, by: list[str]) -> None:
    rb = int(panel["recall_base"][0])
    ax.set_xlabel("rank")
    ax.set_ylabel("CRP")
    if rb == 0:
        ax.text(0.5, 0.5, "R = 0: CRP undefined", ha="center", va="center",
                transform=ax.transAxes)
        return
    systems = panel.partition_by(by, maintain_order=True, as_dict=True) if by else {(): panel}
    longest = max(systems.values(), key=lambda s: s.height)
    # the y-axis follows the runs' curves: the full-scale and worst references can be five
    # times larger and would flatten them, so they run off the panel (said in the legend)
    runs = np.concatenate([s["crp"].to_numpy() for s in systems.values()] + [np.zeros(1)])
    low, high = float(np.nanmin(runs)), float(np.nanmax(runs))
    pad = 0.15 * max(high - low, 1.0)
    refs = np.concatenate([longest["crp_full_scale"].to_numpy(), longest["crp_worst"].to_numpy()])
    clipped = bool(np.nanmin(refs) < low - pad or np.nanmax(refs) > high + pad)
    more = " (off the panel)" if clipped else ""
    ax.axhline(0.0, color="black", linewidth=0.8, label="ideal")
    ax.plot(longest["position"], longest["crp_full_scale"], color="grey", linestyle="--",
            linewidth=1.0, label="full scale" + more)
    ax.plot(longest["position"], longest["crp_worst"], color="grey", linestyle=":",
            linewidth=1.0, label="worst" + more)
    for key, s in systems.items():
        ax.plot(s["position"], s["crp"], linewidth=1.4,
                label=" ".join(map(str, key)) if by else "run")
    ax.axvline(rb, color="black", linestyle="-.", linewidth=0.8, label=f"RB = {rb}")
    if clipped:
        ax.set_ylim(low - pad, high + pad)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))


def effort_gain(frame: Frame, gain: str = "ap", effort: str = "twist", *,
                hue: str | None = None, ax: Axes = None, annotate: bool = True) -> Axes:
    """Effort/gain scatter plot (Ferro et al. Figures 7–10): Twist (effort; to the right,
    less effort) on x against a gain metric on y, one point per row of ``frame``: per query
    (``run.ir.evaluate(qrels, ["ap", "twist"], ...)``) or per system (its means,
    ``trunc_accessor.aggregate(values, by="system")``).

    The grid is the paper's: columns at τ = 1/4, 1/2, 3/4 (Figure 6: below 1/4 worst and
    full-scale runs, huge effort; below 1/2 typical B runs, high effort; then medium and
    low effort), rows at the quartiles of the gain values (low, medium, high, huge gain).
    ``annotate``: write in each of the 16 cells the share of the points it holds. ``hue``:
    a column or index level (e.g. "system") whose values get their own colour. Rows with a
    missing gain or effort (R = 0) are left out. ``frame``: pandas or Polars. Returns the
    Axes (a new figure's unless ``ax`` is given).
    """
    label = "effort_gain"
    _check_name(gain, "gain", label)
    _check_name(effort, "effort", label)
    _check_name(hue, "hue", label, optional=True)
    _check_ax(ax, label)
    plt = _pyplot()
    data = _as_pandas(frame)
    for col in (gain, effort) + ((hue,) if hue is not None else ()):
        if col not in data.columns:
            raise InputError(f"effort_gain: no column {col!r}; found {list(data.columns)}")
    data = data.dropna(subset=[gain, effort])
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 4.8))
    groups = data.groupby(hue, sort=True) if hue is not None else [(None, data)]
    for key, part in groups:
        ax.scatter(part[effort], part[gain], s=14, alpha=0.7,
                   label=None if hue is None else str(key))
    y = data[gain].to_numpy(dtype=np.float64)
    x = data[effort].to_numpy(dtype=np.float64)
    rows = np.quantile(y, [0.25, 0.5, 0.75]) if len(y) else np.array([])
    for b in EFFORT_BOUNDS:
        ax.axvline(b, color="grey", linewidth=0.8)
    for b in rows:
        ax.axhline(b, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(f"{effort} (effort: more to the left, less to the right)")
    ax.set_ylabel(f"{gain} (gain)")
    for lo, hi, label in zip((0.0,) + EFFORT_BOUNDS, EFFORT_BOUNDS + (1.0,), EFFORT_LABELS):
        ax.text((lo + hi) / 2, 1.01, label, ha="center", va="bottom", fontsize="x-small",
                transform=ax.get_xaxis_transform())
    if annotate and len(y):
        _annotate_cells(ax, x, y, rows)
    if hue is not None:
        ax.legend(fontsize="small")
    return ax


def _as_pandas(frame):
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame.to_pandas()
    if hasattr(frame, "reset_index") and hasattr(frame, "columns"):
        return frame.reset_index() if any(n is not None for n in frame.index.names) else frame
    raise InputError("effort_gain: frame must be a pandas or Polars DataFrame with the gain "
                     f"and effort columns, not {type(frame).__name__}")


def _annotate_cells(ax, x, y, rows) -> None:
    """The share of points in each cell of the 4 × 4 effort/gain grid."""
    col = np.searchsorted(np.asarray(EFFORT_BOUNDS), x, side="right")
    row = np.searchsorted(rows, y, side="right")
    counts = np.zeros((4, 4))
    np.add.at(counts, (row, col), 1.0)
    y_edges = np.concatenate([[np.min(y)], rows, [np.max(y)]])
    x_edges = (0.0,) + EFFORT_BOUNDS + (1.0,)
    for r in range(4):
        for c in range(4):
            if counts[r, c]:
                share = 100 * counts[r, c] / len(x)
                text = f"{share:.0f}%" if share >= 1 else f"{share:.1g}%"
                ax.text((x_edges[c] + x_edges[c + 1]) / 2, (y_edges[r] + y_edges[r + 1]) / 2,
                        text, ha="center", va="center", fontsize="x-small", color="black",
                        bbox={"boxstyle": "round,pad=0.15", "facecolor": "white",
                              "edgecolor": "none", "alpha": 0.8}, zorder=4)


def _system_means(runs, qrels, labels, by, systems, ties, label, **evaluate_kw):
    """Mean over queries of each metric label, one row per system (rows in ``systems``
    order), evaluated with ``runs.ir.evaluate``."""
    values = runs.ir.evaluate(qrels, list(labels), by=by, ties=ties, **evaluate_kw)
    data = _frame_pandas(values, label)
    names = _systems(data, by, systems, label)
    means = data.groupby(by, sort=False)[list(labels)].mean()
    return means.loc[names]


_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">")
_DASHES = ("-", "--", "-.", ":")


def _line_style(i: int) -> dict:
    """Markers and dashes that tell apart systems whose curves lie on top of each other."""
    return {"marker": _MARKERS[i % len(_MARKERS)], "markersize": 4.0, "linewidth": 1.3,
            "linestyle": _DASHES[(i // len(_MARKERS) + i) % len(_DASHES)], "alpha": 0.9}


def precision_recall(runs: Frame, qrels: Frame, systems: Sequence[Any] | None = None,
                     levels: int | Sequence[float] = 11, ties: str = "average",
                     ax: Axes = None,
                     by: str = "system", **evaluate_kw: Any) -> Axes:
    """Interpolated precision–recall curves (the TREC 11-point curves of trec_eval's
    ``iprec_at_recall``; Manning et al., IR book §8.4): for each system the mean over queries
    of the interpolated precision at recall 0, 0.1, …, 1, one line per system.

    ``runs``: one run frame (pandas or Polars) with a ``by`` column; ``systems``: which to
    draw, in order (default: all). ``levels``: a number of evenly spaced recall levels from 0
    to 1 (default 11) or the levels themselves, at most 10,001. ``ties``: as ``evaluate``: "average"
    (default) is the exact mean over every order of tied documents of each query's
    interpolated precision (McSherry & Najork 2008's tie-aware evaluation), "trec_eval"
    trec_eval's order (score, then docid descending) and its numbers.
    ``**evaluate_kw``: ``queries``, ``relevance_level``… as ``evaluate``. Returns the Axes.
    """
    label = "precision_recall"
    _check_frame(runs, "runs", label)
    _check_name(by, "by", label)
    _check_systems(systems, label)
    _check_ax(ax, label)
    from trunc_accessor.metrics.params import is_real

    given: Any = levels
    if isinstance(given, (str, bytes)) or not (
            is_real(given) or isinstance(given, (Sequence, np.ndarray))):
        raise InputError(f"{label}: levels must be a number of levels (a whole number ≥ 1) "
                         f"or a list of recall levels in [0, 1], not {levels!r}")
    if is_real(given):
        given = _whole(given, "levels", label, 1)
        if given > MAX_LEVELS:
            raise InputError(f"{label}: levels must be at most {MAX_LEVELS:,} (a recall "
                             f"level every 0.0001; each is a measure evaluated on every "
                             f"query), not {levels!r}")
        given = np.linspace(0.0, 1.0, given)
    if len(given) > MAX_LEVELS:
        raise InputError(f"{label}: levels gives {len(given):,} recall levels, more than "
                         f"{MAX_LEVELS:,} (a level every 0.0001; each is a measure "
                         f"evaluated on every query)")
    if not all(is_real(r) for r in given):
        raise InputError(f"{label}: levels must be recall levels, numbers in [0, 1], "
                         f"not {levels!r}")
    points = [float(r) for r in given]
    if not points or any(not 0.0 <= r <= 1.0 for r in points):
        raise InputError(f"{label}: recall levels must lie in [0, 1], got {points}")
    labels = [f"iprec_at_recall(recall={r:g})" for r in points]
    means = _system_means(runs, qrels, labels, by, systems, ties, label, **evaluate_kw)
    ax = _lines(_new_axes(ax, (6.4, 4.6)), points, means)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(bottom=0.0)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision (mean over queries)")
    ax.set_title("interpolated precision–recall")
    ax.grid(True, linewidth=0.4, alpha=0.5)
    ax.legend(fontsize="small")
    return ax


def _lines(ax, xs, means):
    """One line per system (a row of ``means``) over ``xs``, each with its own style."""
    for i, (s, row) in enumerate(means.iterrows()):
        ax.plot(xs, row.to_numpy(dtype=np.float64), label=str(s), **_line_style(i))
    return ax


def cutoff_curves(runs: Frame, qrels: Frame, metric: str = "precision",
                  cutoffs: Sequence[int] = (1, 2, 3, 5, 10, 20, 50, 100), ax: Axes = None,
                  by: str = "system", ties: str = "average", *,
                  systems: Sequence[Any] | None = None, **evaluate_kw: Any) -> Axes:
    """A cut-off metric against its cut-off: for each system the mean over queries of
    ``metric@k`` (``"precision"``, ``"ndcg"``, ``"recall"``… any name taking ``@k``) at each
    k of ``cutoffs``, one line per system, k on a log scale. ``ties``: as ``evaluate``
    (tie-aware expected values by default). Returns the Axes.
    """
    label = "cutoff_curves"
    _check_frame(runs, "runs", label)
    _check_name(metric, "metric", label)
    _check_name(by, "by", label)
    _check_systems(systems, label)
    _check_ax(ax, label)
    base = metric.split("@", 1)[0]
    if isinstance(cutoffs, (str, bytes)) or not isinstance(cutoffs, (Sequence, np.ndarray)):
        raise InputError(f"{label}: cutoffs must be a list of cut-offs (whole numbers ≥ 1), "
                         f"not {cutoffs!r}")
    cutoffs = sorted({_whole(k, "cutoffs", label, 1) for k in cutoffs})
    if not cutoffs:
        raise InputError(f"{label}: cutoffs names no cut-off")
    labels = [f"{base}@{k}" for k in cutoffs]
    means = _system_means(runs, qrels, labels, by, systems, ties, label, **evaluate_kw)
    ax = _lines(_new_axes(ax, (6.0, 4.6)), cutoffs, means)
    if cutoffs[-1] / cutoffs[0] >= 10:
        ax.set_xscale("log")
    ax.set_xticks(cutoffs)
    ax.set_xticklabels([str(k) for k in cutoffs])
    ax.minorticks_off()
    ax.set_xlabel("cut-off k")
    ax.set_ylabel(f"{base}@k (mean over queries)")
    ax.set_title(f"{base}@k by cut-off")
    ax.grid(True, linewidth=0.4, alpha=0.5)
    ax.legend(fontsize="small")
    return ax
