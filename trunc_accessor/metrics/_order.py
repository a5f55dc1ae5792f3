"""Shared helpers for order-dependent measures: trec_eval's rounding, the tie groups that
mix classes of documents and the refusal of measures with no closed-form mean over the
orders of such a tie, and the ranks of the relevant documents of every ranking."""
from __future__ import annotations

import numpy as np

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

