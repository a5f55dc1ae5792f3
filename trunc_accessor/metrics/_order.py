"""Shared helpers for trec_eval's order-dependent measures: parameter checks, trec_eval's
rounding, per-group class mixing (for measures with no closed-form mean over tie orders),
and the ranks of the relevant documents of every ranking."""
from __future__ import annotations

import numpy as np

from ..prepare import Prepared

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


def require_order_free(prep: Prepared, mixed: np.ndarray, name: str, why: str) -> None:
    """Under ties="average", raise naming the first ranking with a group flagged in
    ``mixed`` (per group): the measure has no closed-form mean over the orders of such a
    tie (``why`` says what makes it non-linear)."""
    if not mixed.any():
        return
    where = ", ".join(f"{k}={v!r}" for k, v in
                      prep.keys.row(int(prep.g_seg[np.argmax(mixed)]), named=True).items())
    raise ValueError(
        f"{name} with ties='average': the ranking of {where} ties relevant and non-relevant "
        f"documents, and {why}, so its mean over the orders of the tie has no closed form "
        f"here. {NO_CLOSED_FORM[0].upper()}{NO_CLOSED_FORM[1:]}.")


def binary_ties_check(prep: Prepared, level: float, name: str, why: str,
                      relevant_from: np.ndarray | None = None) -> None:
    """Raise under ties="average" when a tie group of a query with R > 0 mixes relevant and
    non-relevant documents. ``relevant_from`` (per segment, optional): only groups whose
    last relevant document is at least the ``relevant_from``-th relevant one of the ranking
    matter (segments with +∞ are exempt)."""
    if prep.ties != "average" or prep.singleton_groups:
        return
    rel = prep.relevant(level)
    mixed = mixed_groups(prep, rel) & (prep.num_relevant(level)[prep.g_seg] > 0)
    if relevant_from is not None and mixed.any():
        r_end = prep.before_group(prep.group_sum(rel)) + prep.group_sum(rel)
        mixed &= r_end >= relevant_from[prep.g_seg]
    require_order_free(prep, mixed, name, why)


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
