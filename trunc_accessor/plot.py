"""Effort plots for the Twist measure (Ferro et al.): CRP curves per query (the paper's
Figure 2) and effort/gain scatter plots (Figures 7–10).

matplotlib is an optional extra (``pip install "trunc_accessor[plots]"``), imported when a
plot is drawn. Every function returns the matplotlib Figure or Axes it drew on and never
calls ``show()``.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from . import engine

#: Twist bounds of the archetypes (Figure 6): below 1/4 the worst and full-scale runs, below
#: 1/2 the runs whose CRP never turns positive (typical B); above, typical A (medium effort)
#: and excellent runs (low effort). The columns of the effort/gain grid.
EFFORT_BOUNDS = (0.25, 0.5, 0.75)
EFFORT_LABELS = ("huge effort", "high effort", "medium effort", "low effort")


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("trunc_accessor.plot needs matplotlib: pip install "
                          "'trunc_accessor[plots]' (or pip install matplotlib)") from None
    return plt


def plot_crp(run, qrels, qids=None, *, depth=None, ties="average", by=None, relevance_level=1,
             ncols=3, figsize=None):
    """CRP curves, one panel per query, as the paper's Figure 2: the run's curve (one per
    system with ``by=``), the ideal run (CRP = 0), the full-scale run of the same length
    (dashed) and the recall base RB (vertical). Also the worst run (dotted), the lower bound
    of every CRP curve: for a ranking shorter than 2·RB the full-scale run is not (it holds
    relevant documents before RB). References are those of the longest ranking in a panel.

    ``qids``: the queries to draw, in that order (default: every scored query). ``depth``,
    ``ties``, ``by``, ``relevance_level`` as ``run.ir.crp``. Returns the Figure; its
    ``axes`` hold one panel per query (R = 0: an empty panel saying so).
    """
    plt = _pyplot()
    frame, cols = engine.crp(run, qrels, "references", depth=depth, by=by, ties=ties,
                             relevance_level=relevance_level)
    qid = cols.run_qid
    names = frame[qid].cast(pl.String)
    if qids is None:
        wanted = names.unique(maintain_order=True).to_list()
    else:
        wanted = [str(q) for q in ([qids] if isinstance(qids, (str, int)) else qids)]
        missing = sorted(set(wanted) - set(names.to_list()))
        if missing:
            raise ValueError(f"plot_crp: no ranking to draw for qid(s) {missing}")
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
    ax.axhline(0.0, color="black", linewidth=0.8, label="ideal")
    ax.plot(longest["position"], longest["crp_full_scale"], color="grey", linestyle="--",
            linewidth=1.0, label="full scale")
    ax.plot(longest["position"], longest["crp_worst"], color="grey", linestyle=":",
            linewidth=1.0, label="worst")
    for key, s in systems.items():
        ax.plot(s["position"], s["crp"], linewidth=1.4,
                label=" ".join(map(str, key)) if by else "run")
    ax.axvline(rb, color="black", linestyle="-.", linewidth=0.8, label=f"RB = {rb}")
    ax.legend(fontsize="small")


def effort_gain(frame, gain="ap", effort="twist", *, hue=None, ax=None, annotate=True):
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
    plt = _pyplot()
    data = _as_pandas(frame)
    for col in (gain, effort) + ((hue,) if hue is not None else ()):
        if col not in data.columns:
            raise ValueError(f"effort_gain: no column {col!r}; found {list(data.columns)}")
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
    raise ValueError("effort_gain: frame must be a pandas or Polars DataFrame with the gain "
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
                ax.text((x_edges[c] + x_edges[c + 1]) / 2, (y_edges[r] + y_edges[r + 1]) / 2,
                        f"{100 * counts[r, c] / len(x):.0f}%", ha="center", va="center",
                        fontsize="x-small", color="dimgrey")
