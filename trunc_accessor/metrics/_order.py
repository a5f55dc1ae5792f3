"""Shared helpers for order-dependent measures: trec_eval's rounding, the tie groups that
mix classes of documents and the refusal of measures with no closed-form mean over the
orders of such a tie, and the ranks of the relevant documents of every ranking."""
from __future__ import annotations

import numpy as np
import polars as pl

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError

TREC_EVAL = "trec_eval 10.0 (github.com/usnistgov/trec_eval)"
NO_CLOSED_FORM = ("pass ties='first' (the order as given) or ties='trec_eval' (trec_eval's "
                  "order: docid descending among equal scores)")


def lround(x: np.ndarray) -> np.ndarray:
    """C's lround for x ≥ 0: halves away from zero (numpy's round goes to even). Exact:
    the fractional part of a double is exact."""
    x = np.asarray(x, dtype=np.float64)
    whole = np.floor(x)
    return whole + (x - whole >= 0.5)


def mixed_groups(prep: Prepared, classes: np.ndarray) -> np.ndarray:
    """Per tie group: does it hold rows of different ``classes`` (a float per row)?"""
    starts = np.cumsum(prep.g_size) - prep.g_size
    return np.minimum.reduceat(classes, starts) != np.maximum.reduceat(classes, starts)


def require_order_free(prep: Prepared, mixed: np.ndarray, name: str, why: str,
                       also: str = "") -> None:
    """Under ties="average", raise naming the first ranking with a tie group flagged in
    ``mixed`` (per group): the measure has no closed-form mean over the orders of such a
    tie (``why`` says what makes it non-linear; ``also`` adds a hint)."""
    if prep.ties != "average" or prep.singleton_groups or not mixed.any():
        return
    where = ", ".join(f"{k}={v!r}" for k, v in
                      prep.keys.row(int(prep.g_seg[np.argmax(mixed)]), named=True).items())
    raise ParameterError(
        f"{name} with ties='average': the ranking of {where} ties documents of different "
        f"grades, and {why}, so its mean over the orders of the tie has no closed form. "
        f"{NO_CLOSED_FORM[0].upper()}{NO_CLOSED_FORM[1:]}.{' ' + also if also else ''}")


def relevant_ranks(prep: Prepared, level: float):
    """The relevant retrieved rows of every ranking, in ranking order: (segment, j, position)
    with j = 1, 2, … counting them within the ranking, and the index of each segment's first
    one in those arrays (``first[s]``; equal to ``first[s + 1]`` when there is none)."""
    rows = np.flatnonzero(prep.relevant(level) > 0)
    seg = prep.seg[rows]
    counts = np.bincount(seg, minlength=prep.n_segments)
    first = np.zeros(prep.n_segments + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    j = np.arange(len(rows)) - first[seg] + 1
    return seg, j, prep.pos[rows], first


def segmented_suffix_max(values: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """For each entry, the maximum of ``values`` over it and the later entries of its
    segment (``seg`` non-decreasing). Exact: values are replaced by their ranks, offset by
    segment as integers, so that one running maximum serves every segment."""
    if len(values) == 0:
        return values.astype(np.float64)
    uniq, code = np.unique(values, return_inverse=True)
    u = len(uniq)
    rev_seg = seg[::-1]
    offset = (int(seg.max()) - rev_seg).astype(np.int64) * u  # grows along the reversed walk
    running = np.maximum.accumulate(code[::-1].astype(np.int64) + offset)
    return uniq[running - offset][::-1]


DISTINCT_GAINS = 256  # counting beyond this many distinct values sorts


def _counted(values: np.ndarray, seg: np.ndarray,
             n_seg: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct ``values``, largest first, and how many times each occurs in each
    segment (an ``n_seg`` × distinct matrix); None when there are too many distinct values
    (or a NaN) for counting to pay."""
    distinct = np.sort(pl.Series(values).unique().to_numpy())
    v = len(distinct)
    if v > DISTINCT_GAINS or np.isnan(distinct).any():
        return None
    lo, hi = distinct[0], distinct[-1]
    if (-2**31 < lo and hi < 2**31 and hi - lo < DISTINCT_GAINS
            and (distinct == np.floor(distinct)).all()):
        # whole numbers (grades): each one's place among them is its distance to the largest
        v = int(hi - lo) + 1
        code = (hi - values).astype(np.int64)
        distinct = lo + np.arange(v, dtype=np.float64)
    else:
        code = (v - 1) - np.searchsorted(distinct, values)  # 0 for the largest value
    if n_seg * v > 4 * len(values) + 4096:
        return None
    counts = np.bincount(seg * v + code, minlength=n_seg * v).reshape(n_seg, v)
    return distinct[::-1], counts


def descending_within(values: np.ndarray, seg: np.ndarray, n_seg: int) -> np.ndarray:
    """``values`` sorted largest first within each segment (``seg`` non-decreasing, one
    entry per value): each query's ideal order of its judged gains. With few distinct
    values (grades, their gains) they are counted per segment and laid out again,
    without a sort of all the judgments (1M judgments: a few ms against ~60 ms for
    ``np.lexsort``); the result is the same array either way."""
    values = np.asarray(values, dtype=np.float64)
    counted = _counted(values, seg, n_seg) if len(values) else None
    if counted is None:
        return values[np.lexsort((-values, seg))]
    distinct, counts = counted
    return np.repeat(np.tile(distinct, n_seg), counts.ravel())


def best_first(values: np.ndarray, seg: np.ndarray, n_seg: int,
               depth: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positive ``values`` of each segment largest first, within its first ``depth``
    places (None: all), as (values, segment, place 1, 2, …): the entries of
    ``descending_within`` that an ideal ranking's DCG@depth adds, in its order (what it
    leaves out adds nothing). Counted as ``descending_within`` when few values are
    distinct: only the kept entries are laid out (10 per query for nDCG@10, not every
    judgment)."""
    values = np.asarray(values, dtype=np.float64)
    counted = _counted(values, seg, n_seg) if len(values) else None
    if counted is None:
        ordered = values[np.lexsort((-values, seg))]
        place = np.arange(len(values)) - np.searchsorted(seg, seg) + 1
        keep = ordered > 0
        if depth is not None:
            keep &= place <= depth
        return ordered[keep], seg[keep], place[keep]
    distinct, counts = counted
    positive = int(np.count_nonzero(distinct > 0))  # the first columns: largest first
    distinct, counts = distinct[:positive], counts[:, :positive]
    if depth is not None:
        reach = np.minimum(np.cumsum(counts, axis=1), depth)
        counts = np.diff(reach, axis=1, prepend=0)
    per_seg = counts.sum(axis=1)
    kept = np.repeat(np.tile(distinct, n_seg), counts.ravel())
    seg_of = np.repeat(np.arange(n_seg), per_seg)
    first = np.cumsum(per_seg) - per_seg
    return kept, seg_of, np.arange(len(kept)) - first[seg_of] + 1


CUMSUM_CELLS = 1 << 22  # restarting_cumsum: cells of one padded block


def restarting_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sums of ``values`` that restart at each segment ``offsets[i]:offsets[i+1]``,
    each summed from the segment's own first value, so a segment's sums do not depend on the
    segments around it (a difference of one global cumulative sum does, in its last bits:
    eager calls, lazy batches and Dask partitions would disagree), and the sum over a
    segment's first j values is the one ``np.bincount`` gives for them (the same additions
    in the same order).

    Vectorised: segments are bucketed by length (2^(b−1) < length ≤ 2^b), each bucket laid
    out as rows of a zero-padded matrix of width 2^b (at most twice its values, in blocks
    of about ``CUMSUM_CELLS`` cells) and summed along the rows by ``np.cumsum``."""
    values = np.asarray(values, dtype=np.float64)
    out = np.empty_like(values)
    lengths = np.diff(offsets).astype(np.int64)
    live = np.flatnonzero(lengths > 0)
    if not live.size:
        return out
    bucket = np.frexp((lengths[live] - 1).astype(np.float64))[1]  # ⌈log2 length⌉
    for b in np.unique(bucket):
        segs = live[bucket == b]
        width = 1 << int(b)
        per = max(1, CUMSUM_CELLS // width)
        for lo in range(0, len(segs), per):
            chunk = segs[lo:lo + per]
            starts, lens = offsets[chunk].astype(np.int64), lengths[chunk]
            before = np.cumsum(lens) - lens
            rows = np.repeat(starts - before, lens) + np.arange(int(lens.sum()))
            cells = rows + np.repeat(np.arange(len(chunk)) * width - starts, lens)
            block = np.zeros((len(chunk), width))
            block.ravel()[cells] = values[rows]
            np.cumsum(block, axis=1, out=block)
            out[rows] = block.ravel()[cells]
    return out

