"""What the figures share: matplotlib on first use, the argument checks every ``ta.plot``
function makes before anything is computed or drawn (an ``InputError``, a ValueError, naming
the parameter), reading result frames, new Axes and labels placed beside points."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from trunc_accessor.errors import InputError


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


def _whole(value, param: str, label: str, minimum: int) -> int:
    """A whole number ≥ ``minimum`` (not a bool)."""
    from trunc_accessor.metrics.params import is_real

    if not is_real(value) or not math.isfinite(value) or value != int(value) \
            or value < minimum:
        raise InputError(f"{label}: {param} must be a whole number ≥ {minimum}, not {value!r}")
    return int(value)


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
