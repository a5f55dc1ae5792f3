"""Truncation: cut rankings (`truncate`, `truncate_at`), score every cut-off
(`curve`, by the metrics' prefix kernels where they have one), and find the best one
(`optimal`) (Liu et al. 2016 Table 2; Amigó, Mizzaro & Spina 2022 §4.2).

Allowed cut-offs: depth 0 and the end of every tie group. With ``ties="first"`` or
``"trec_eval"`` that is every position; with ``ties="average"`` a system that gave documents
the same score cannot stop between them, so a tie group is kept or dropped whole (and the
value at each cut-off stays the exact mean over the orders of the groups it keeps).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from trunc_accessor.core import keys as _keys
from trunc_accessor.core.prepared import Prepared
from trunc_accessor.engine.options import apply_undefined
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.metrics import prefix
from trunc_accessor.metrics.registry import Measure

CHUNK_ROWS = 1 << 22  # prefix rows scored per kernel call by ``rescored_values``


def curve(prep: Prepared, measure: Measure, level: float, max_depth=None,
          undefined: str = "zero") -> pl.DataFrame:
    """keys (by…, qid), depth, value: the measure of every prefix at an allowed cut-off
    (``undefined``: "zero" gives an undefined value 0, "nan" leaves it null).

    A metric with a prefix kernel (``trunc_accessor.metrics.prefix``) gets every value in
    one pass over the rankings (linear in their length); any other has every prefix scored
    by its own kernel (``rescored_values``: Σ depth over cut-offs, quadratic in the
    ranking length, which ``max_depth`` bounds)."""
    if "sample" in prep.extra:  # a prefix of the rows of several samples is no ranking
        raise ParameterError(
            "cut-off curves cut one ranking per query, and the run has a 'sample' column of "
            "sampled rankings; score each sample with by='sample', or drop the column")
    segs, depths = prep.cut_points(max_depth)
    keys = prep.keys[segs].with_columns(pl.Series("depth", depths, dtype=pl.Int64))
    kernel = prefix.for_metric(measure.metric)
    if kernel is None or not len(segs):
        values = rescored_values(prep, measure, level, segs, depths, keys)
    else:
        lvl, params = measure.resolve(prep, level)
        values = np.asarray(kernel(prefix.Cuts(prep, segs, depths), lvl, **params),
                            dtype=np.float64)
    values = apply_undefined(values, undefined)
    return keys.with_columns(pl.Series("value", values, dtype=pl.Float64).fill_nan(None))


def rescored_values(prep: Prepared, measure: Measure, level: float, segs: np.ndarray,
                    depths: np.ndarray, keys: pl.DataFrame) -> np.ndarray:
    """The measure of every prefix (ranking ``segs[i]`` cut at ``depths[i]``, as
    ``Prepared.cut_points`` gives them) by its own kernel on the prefixes: the work is
    Σ depth (quadratic in the ranking length). Memory stays linear: the prefixes are scored
    in chunks of at most ``CHUNK_ROWS`` rows (a longer single prefix is a chunk of its own).
    Values as the kernel gives them (NaN where undefined)."""
    values = np.empty(len(segs))
    ends = np.cumsum(depths)
    start = 0
    while start < len(segs):
        done = int(ends[start - 1]) if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, done + CHUNK_ROWS, side="right")))
        part = prep.prefixes(segs[start:stop], depths[start:stop], keys[start:stop])
        values[start:stop] = measure.compute(part, level)
        start = stop
    return values


def optimal(curve_frame: pl.DataFrame, keys: Sequence[str], tol: float = 1e-12) -> pl.DataFrame:
    """Per ranking, the depth with the largest value (ties: the shortest) and that value
    (Amigó et al. §4.2). Values within ``tol`` (relative to the value's scale) of the maximum
    count as ties, so that rounding noise never prefers a longer ranking. Undefined values
    are never optimal; a ranking whose values are all undefined gets null depth and value."""
    keys = list(keys)
    top = pl.col("value").max().over(keys)
    near = pl.col("value") >= top - tol * pl.max_horizontal(pl.lit(1.0), top.abs())
    # the curve holds each ranking's rows together, depth ascending (as ``curve`` makes
    # it), in the order of the results: the first near-best row is the shortest
    best = (curve_frame.filter(near | top.is_null())
            .group_by(keys, maintain_order=True).first())
    return best.with_columns(pl.when(pl.col("value").is_null()).then(None)
                             .otherwise(pl.col("depth")).alias("depth"))


def _order_expr(has_rank: bool) -> pl.Expr:
    """1-based position of each row within one ranking (evaluated per group: wrap it in
    ``.over(keys)``)."""
    if has_rank:
        return pl.col("rank").rank("ordinal")
    return pl.col("score").rank("ordinal", descending=True)


def position_expr(qid: str, by: Sequence[str], has_rank: bool) -> pl.Expr:
    """1-based position of each row in its ranking (rank ascending if present, else
    score descending; equal values keep input order)."""
    return _order_expr(has_rank).over([*by, qid])


def keep_before_marker(qid: str, docid: str, by: Sequence[str], has_rank: bool, marker) -> pl.Expr:
    """Boolean expression: the row comes before the first ``marker`` document of its ranking
    (Liu Table 2, first row: a₁…a_{i−1}); rankings without the marker are kept whole.

    One window over the ranking, with the position computed inside it: a window nested in
    the window's aggregation (``pos.over(keys)`` inside ``min().over(keys)``) is rejected by
    some Polars releases ("window expression not allowed in aggregation", e.g. 1.33)."""
    pos = _order_expr(has_rank)
    ids = pl.col(docid).cast(pl.String) if isinstance(marker, str) else pl.col(docid)
    first = pl.when(ids == marker).then(pos).otherwise(None).min()
    return (pos < first.fill_null(np.iinfo(np.int64).max)).over([*by, qid])


def check_marker(marker, dtype: pl.DataType, docid: str):
    """``truncate_at``'s marker: a string for a string docid column, an integer for an integer
    one (the marker is compared with the docids as they are)."""
    string_ids = dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))
    ok = (isinstance(marker, str) if string_ids else
          isinstance(marker, (int, np.integer)) and not isinstance(marker, (bool, np.bool_))
          and dtype.is_integer())
    if not ok:
        raise InputError(f"truncate_at: marker {marker!r} ({type(marker).__name__}) cannot be "
                         f"compared with run column {docid!r} ({dtype}): pass a marker of the "
                         "column's type")
    return marker


def check_order_values(frame: pl.DataFrame, cols) -> pl.DataFrame:
    """The values ``truncate`` orders by: no missing qid, no missing or NaN score (or rank).
    Returns the frame unchanged."""
    def missing(c: str) -> pl.Expr:  # NaN only where the type has it (not decimals, ints)
        return pl.col(c).is_null() | (pl.col(c).is_nan() if frame.schema[c].is_float()
                                      else pl.lit(False))

    checks = [(cols.qid, pl.col(cols.qid).is_null()), ("score", missing("score"))]
    if cols.has_rank:
        checks.append(("rank", missing("rank")))
    for name, bad in checks:
        rows = frame.select(pl.int_range(pl.len()).filter(bad)).to_series()
        if len(rows):
            raise InputError(f"run column {name!r} is missing or NaN in row {rows[0]}: the "
                             "order of that ranking is undefined")
    return frame


def validated(frame, cols):
    """``frame`` checked by ``check_order_values`` (a LazyFrame when it is collected)."""
    if isinstance(frame, pl.LazyFrame):
        return frame.map_batches(lambda df: check_order_values(df, cols),
                                 schema=frame.collect_schema())
    return check_order_values(frame, cols)


def truncate_frame(frame, cols, depth=None, marker=None):
    """The rows of a Polars DataFrame/LazyFrame kept by ``truncate`` (``depth``: int or a
    frame of keys and one depth column from ``numbers.depth_argument``) or
    ``truncate_at`` (``marker``); the frame's columns and row order are kept. A run with a
    ``sample`` column has each sampled ranking cut on its own (a per-query depth applies to
    every sample of the query)."""
    if marker is not None:
        return frame.filter(keep_before_marker(cols.qid, cols.docid, cols.ranking,
                                               cols.has_rank, marker))
    pos = position_expr(cols.qid, cols.ranking, cols.has_rank)
    if isinstance(depth, pl.DataFrame):
        column = depth.columns[-1]
        other = depth.lazy() if isinstance(frame, pl.LazyFrame) else depth
        joined = frame.join(other, on=[*cols.by, cols.qid], how="left", maintain_order="left",
                            **_keys.nulls_equal())
        keep = pos <= pl.col(column).fill_null(np.iinfo(np.int64).max)
        return joined.filter(keep).drop(column)
    return frame.filter(pos <= depth)
