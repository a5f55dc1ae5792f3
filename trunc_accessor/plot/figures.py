"""Effort plots for the Twist measure (Ferro et al.): CRP curves per query (the paper's
Figure 2) and effort/gain scatter plots (Figures 7–10).

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
from trunc_accessor.errors import InputError

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


# --- argument checks: every ta.plot function refuses a wrong type with an InputError (a
# ValueError) naming the parameter, before anything is computed or drawn

def _check_ax(ax, label: str) -> None:
    """``ax``: None (a new figure) or a matplotlib Axes."""
    if ax is None:
        return
    _pyplot()
    from matplotlib.axes import Axes as MplAxes

    if not isinstance(ax, MplAxes):
        raise InputError(f"{label}: ax must be a matplotlib Axes (or None for a new figure), "
                         f"not {type(ax).__name__}")


def _check_name(value, param: str, label: str, optional: bool = False) -> None:
    """A column, index level or metric name: a string (None too when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise InputError(f"{label}: {param} must be a column name (a string)"
                         f"{' or None' if optional else ''}, not {value!r}")


def _check_key(value, param: str, label: str) -> None:
    """One system's name: a single (hashable) value of the by column."""
    try:
        hash(value)
    except TypeError:
        raise InputError(f"{label}: {param} must be one system's name (a value of the by "
                         f"column), not {value!r}") from None


def _check_systems(systems, label: str) -> None:
    """``systems``: None, one name, or a list of names."""
    if systems is None or isinstance(systems, str):
        return
    if not isinstance(systems, (Sequence, np.ndarray)) or isinstance(systems, bytes):
        raise InputError(f"{label}: systems must be a list of system names (or one name, or "
                         f"None for all), not {systems!r}")
    for s in systems:
        _check_key(s, "systems", label)


def _check_frame(frame, param: str, label: str) -> None:
    """A run or qrels frame: pandas, Polars (eager or lazy) or Dask."""
    from trunc_accessor.core.columns import is_pandas

    if not (is_pandas(frame) or isinstance(frame, (pl.DataFrame, pl.LazyFrame))
            or type(frame).__module__.split(".")[0] == "dask"):
        raise InputError(f"{label}: {param} must be a pandas or Polars DataFrame (a run "
                         f"frame with a by column), not {type(frame).__name__}")


MAX_LEVELS = 10_001  # precision_recall's recall levels (a level every 0.0001)


def _whole(value, param: str, label: str, minimum: int) -> int:
    """A whole number ≥ ``minimum`` (not a bool)."""
    from trunc_accessor.metrics.params import is_real

    if not is_real(value) or not math.isfinite(value) or value != int(value) \
            or value < minimum:
        raise InputError(f"{label}: {param} must be a whole number ≥ {minimum}, not {value!r}")
    return int(value)


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


# --- Comparing systems: per-topic differences, distributions, curves, metric agreement ---

#: Bar colours of ``topic_differences``: system above, equal to, below the baseline.
DIFFERENCE_COLOURS = {"better": "tab:green", "tie": "tab:grey", "worse": "tab:red"}


def _frame_pandas(frame, label: str):
    """A pandas or Polars frame (LazyFrame too, or a pandas Series of one metric) as a pandas
    frame with plain columns (index levels become columns): the reader of result frames
    every analysis function shares (``trunc_accessor.core.results``)."""
    from trunc_accessor.core.results import plain

    return plain(frame, label)[0]


def _need_columns(data, columns, label: str) -> None:
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise InputError(f"{label}: no column(s) {missing}; found {list(data.columns)}")


def _query_keys(per_query, data, by: str, label: str) -> list[str]:
    """The columns naming a query in a per-query frame: the index levels other than ``by``
    of a pandas result of ``evaluate``, else the non-floating columns other than ``by``."""
    index = None if isinstance(per_query, (pl.DataFrame, pl.LazyFrame)) \
        else getattr(per_query, "index", None)
    keys = [n for n in getattr(index, "names", ()) if n is not None and n != by]
    if not keys:
        keys = [c for c in data.columns if c != by
                and not np.issubdtype(np.asarray(data[c]).dtype, np.floating)]
    if not keys:
        raise InputError(f"{label}: cannot tell the query column of the per-query frame "
                         f"(columns {list(data.columns)})")
    return keys


def _systems(data, by: str, systems, label: str) -> list:
    present = list(dict.fromkeys(data[by]))
    if systems is None:
        return present
    systems = [systems] if isinstance(systems, str) else list(systems)
    missing = [s for s in systems if s not in set(present)]
    if missing:
        raise InputError(f"{label}: no system(s) {missing} in column {by!r}; found {present}")
    return systems


def _new_axes(ax, figsize, layout=None):
    """``ax``, or the Axes of a new figure of ``figsize`` (``layout="constrained"`` for a
    plot whose legend sits beside the Axes: the layout then makes room for it, so a plain
    ``savefig`` keeps it whole)."""
    if ax is None:
        _, ax = _pyplot().subplots(figsize=figsize, layout=layout)
    return ax


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


#: Offsets (points) tried for a point's label, nearest first: right, left, above, below…
LABEL_OFFSETS = ((5, 4), (5, -11), (-5, 4), (-5, -11), (0, 9), (0, -15), (12, 14),
                 (12, -20), (-12, 14), (-12, -20), (20, 0), (-20, 0), (0, 22), (0, -28))


def _place_labels(ax, names, x, y, marker: float | None = None) -> None:
    """Label each point with its name at the first offset whose text box overlaps no label
    placed before (measured on the rendered figure) and, with ``marker`` (points), no point's
    marker (a square of that half-width around each point); the last offset if none is free."""
    fig = ax.figure
    ax.autoscale_view()  # the data limits the points will be drawn with (set lazily)
    ax.set_xlim(ax.get_xlim())
    ax.set_ylim(ax.get_ylim())
    renderer = fig.canvas.get_renderer()
    placed: list = []
    if marker is not None and len(x):
        from matplotlib.transforms import Bbox

        pad = marker * fig.dpi / 72.0
        placed = [Bbox.from_extents(cx - pad, cy - pad, cx + pad, cy + pad)
                  for cx, cy in ax.transData.transform(np.column_stack([x, y]))]
    for name, xi, yi in zip(names, x, y):
        for dx, dy in LABEL_OFFSETS:
            text = ax.annotate(name, (xi, yi), textcoords="offset points", xytext=(dx, dy),
                               fontsize="small", ha="left" if dx >= 0 else "right")
            box = text.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed) or (dx, dy) == LABEL_OFFSETS[-1]:
                placed.append(box)
                break
            text.remove()


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
    if is_base.any():
        ax.scatter(c[is_base], pos[is_base], s=40, marker="s", color="black", zorder=3,
                   label="baseline")
    other = ~significant & ~is_base
    ax.scatter(c[other], pos[other], s=36, marker="o", facecolor="white",
               edgecolor="steelblue", zorder=3, label="not significant")
    if significant.any():
        ax.scatter(c[significant], pos[significant], s=36, marker="o", color="steelblue",
                   zorder=3, label="significant")
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
