"""Truncation: cut rankings (`truncate`, `truncate_at`), score every cut-off
(`curve`), and find the best one (`optimal`) (Liu et al. 2016 Table 2; Amigó, Mizzaro &
Spina 2022 §4.2; SPEC §5).

Allowed cut-offs: depth 0 and the end of every tie group. With ``ties="first"`` or
``"trec_eval"`` that is every position; with ``ties="average"`` a system that gave documents
the same score cannot stop between them, so a tie group is kept or dropped whole (and the
value at each cut-off stays the exact mean over the orders of the groups it keeps).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .prepare import Prepared
from .registry import Measure, check_k, check_level  # noqa: F401  (re-exported checks)


def curve(prep: Prepared, measure: Measure, level: float, max_depth=None) -> pl.DataFrame:
    """keys (by…, qid), depth, value: the measure of every prefix at an allowed cut-off, in one
    kernel call over all prefixes (Σ depth rows: quadratic in the ranking length, so
    ``max_depth`` bounds it for long rankings)."""
    max_depth = check_k(max_depth)
    segs, depths = prep.cut_points(max_depth)
    keys = prep.keys[segs].with_columns(pl.Series("depth", depths, dtype=pl.Int64))
    values = measure.compute(prep.prefixes(segs, depths, keys), level)
    return keys.with_columns(pl.Series("value", values, dtype=pl.Float64).fill_nan(None))


def optimal(curve_frame: pl.DataFrame, keys: Sequence[str], tol: float = 1e-12) -> pl.DataFrame:
    """Per ranking, the depth with the largest value (ties: the shortest) and that value
    (Amigó et al. §4.2). Values within ``tol`` (relative to the value's scale) of the maximum
    count as ties, so that rounding noise never prefers a longer ranking. Undefined values
    are never optimal; a ranking whose values are all undefined gets null depth and value."""
    keys = list(keys)
    top = pl.col("value").max().over(keys)
    near = pl.col("value") >= top - tol * pl.max_horizontal(pl.lit(1.0), top.abs())
    best = (curve_frame.filter(near | top.is_null())
            .sort([*keys, "depth"], maintain_order=True)
            .group_by(keys, maintain_order=True).first())
    return best.with_columns(pl.when(pl.col("value").is_null()).then(None)
                             .otherwise(pl.col("depth")).alias("depth"))


def position_expr(qid: str, by: Sequence[str], has_rank: bool) -> pl.Expr:
    """1-based position of each row in its ranking (SPEC §2: rank ascending if present, else
    score descending; equal values keep input order)."""
    keys = [*by, qid]
    if has_rank:
        return pl.col("rank").rank("ordinal").over(keys)
    return pl.col("score").rank("ordinal", descending=True).over(keys)


def keep_first(frame, qid: str, by: Sequence[str], has_rank: bool, depth) -> pl.Expr:
    """Boolean expression: the row is among the first ``depth`` of its ranking. ``depth`` is
    an int or a Polars frame of keys (by…, qid) and a ``depth`` column; rankings it does not
    name are kept whole."""
    pos = position_expr(qid, by, has_rank)
    if isinstance(depth, pl.DataFrame):
        return pos <= pl.col("__depth").fill_null(np.iinfo(np.int64).max)
    return pos <= depth


def keep_before_marker(qid: str, docid: str, by: Sequence[str], has_rank: bool, marker) -> pl.Expr:
    """Boolean expression: the row comes before the first ``marker`` document of its ranking
    (Liu Table 2, first row: a₁…a_{i−1}); rankings without the marker are kept whole."""
    pos = position_expr(qid, by, has_rank)
    at_marker = pl.when(pl.col(docid) == marker).then(pos).otherwise(None)
    return pos < at_marker.min().over([*by, qid]).fill_null(np.iinfo(np.int64).max)


def truncate_frame(frame, cols, depth=None, marker=None):
    """The rows of a Polars DataFrame/LazyFrame kept by ``truncate`` (``depth``: int or a
    frame from :func:`frames.depth_argument`) or ``truncate_at`` (``marker``); the frame's
    columns and row order are kept."""
    if marker is not None:
        return frame.filter(keep_before_marker(cols.qid, cols.docid, cols.by, cols.has_rank, marker))
    if isinstance(depth, pl.DataFrame):
        other = depth.lazy() if isinstance(frame, pl.LazyFrame) else depth
        joined = frame.join(other, on=[*cols.by, cols.qid], how="left", maintain_order="left")
        return joined.filter(keep_first(joined, cols.qid, cols.by, cols.has_rank, depth)).drop("__depth")
    return frame.filter(keep_first(frame, cols.qid, cols.by, cols.has_rank, depth))
