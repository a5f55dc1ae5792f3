"""The exact mean over tie orders of interpolated precision, a maximum of precisions.

Interpolated precision at cut c is X = max over j ≥ max(c, 1) of j / rank_j (rank_j the
position of the j-th relevant retrieved document). Under a uniform order of every tie group:

* the relevant documents of groups that are all relevant or hold none (*fixed* groups) have
  fixed positions; their largest precision is D;
* a *mixed* group (m documents, s of them relevant, t positions and B relevant documents
  before it) puts its relevant documents on a uniformly random s-subset p_1 < … < p_s of its
  m positions, independently of the other groups. Its part of X is at most x exactly when
  every constrained relevant document (B + i ≥ max(c, 1)) satisfies (B + i)/(t + p_i) ≤ x,
  i.e. p_i ≥ ⌈(B + i)/x⌉ − t: the number of such subsets is a lattice-path count, found by
  a dynamic programme over i (cost O(s·m) per x, vectorised over the x values).

So P(X ≤ x) = [D ≤ x] · Π_g F_g(x), and X takes its values in {D} and the finitely many
(B + i)/(t + p) of the mixed groups; E[X] = Σ_v v · (P(X ≤ v) − P(X < v)). Values are kept
as integer ratios, so every comparison is exact. The work is Σ_g s_g · m_g · (number of
candidate values above D) per ranking and cut: small for real runs, whose mixed tie groups
are small; a ranking whose mixed groups would cost more than ``MAX_WORK`` elementary steps
is refused with its size (pass ties="first" or "trec_eval").
"""
from __future__ import annotations

import math

import numpy as np

from trunc_accessor.errors import ParameterError

MAX_WORK = 2 * 10 ** 8  # elementary DP steps for one ranking and cut


def _subset_fraction(m: int, s: int, lower: np.ndarray) -> np.ndarray:
    """For each row of ``lower`` (shape (nx, s): the least allowed position 1…m of the i-th
    of s chosen positions), the fraction of the C(m, s) s-subsets of {1..m} that respect
    it."""
    nx = lower.shape[0]
    pos = np.arange(1, m + 1)
    # ways[x, p]: subsets of the first i chosen with the i-th at position p
    ways = np.zeros((nx, m + 1))
    ways[:, 0] = 1.0  # the empty prefix "ends" at position 0
    scale = 0.0  # log of the factor taken out, to stay in floating range
    for i in range(s):
        below = np.cumsum(ways, axis=1)  # ways with the previous one at ≤ p
        nxt = np.zeros_like(ways)
        nxt[:, 1:] = below[:, :-1]  # the i-th at p needs the previous at < p
        ok = (pos[None, :] >= lower[:, i:i + 1]) & (pos[None, :] <= m - s + i + 1)
        nxt[:, 1:] *= ok
        top = nxt.max()
        if top > 1e200:
            nxt /= top
            scale += math.log(top)
        ways = nxt
    total = ways.sum(axis=1)
    log_all = math.lgamma(m + 1) - math.lgamma(s + 1) - math.lgamma(m - s + 1)
    return np.exp(np.log(np.maximum(total, 1e-320)) + scale - log_all) * (total > 0)


def _best_fixed(fixed_j, fixed_pos, c: int) -> tuple[int, int]:
    """D = the largest j / rank_j of the fixed relevant documents with j ≥ c, as (j, rank)
    ((0, 1) when there is none)."""
    keep = fixed_j >= c
    if not keep.any():
        return (0, 1)
    vals = fixed_j[keep] / fixed_pos[keep]
    k = int(np.argmax(vals))
    return (int(fixed_j[keep][k]), int(fixed_pos[keep][k]))


def _above(B: int, t: int, m: int, s: int, c: int, D: tuple[int, int]):
    """The constrained relevant documents i (B + i ≥ c) of a mixed group and, for each, how
    many of its positions p (i ≤ p ≤ m − s + i) give a precision (B + i)/(t + p) above D:
    those p are i … i + count − 1 (the precision falls with p)."""
    i = np.arange(max(1, c - B), s + 1, dtype=np.int64)
    last = m - s + i
    if D[0] > 0:  # (B + i)·D1 > D0·(t + p)  ⟺  p ≤ ⌊((B + i)·D1 − 1)/D0⌋ − t
        last = np.minimum(last, ((B + i) * D[1] - 1) // D[0] - t)
    return i, np.maximum(last - i + 1, 0)


def work_floor(fixed_j, fixed_pos, mixed, cut: int) -> int:
    """A lower bound of the steps `mean_interpolated` takes (0 when it takes none),
    found in constant time per mixed group, without enumerating the candidate values: the
    candidates of one constrained document are distinct values, so the most any document
    has is a lower bound of their number."""
    c = max(int(cut), 1)
    D = _best_fixed(fixed_j, fixed_pos, c)
    base, most = 0, 0
    for B, t, m, s in mixed:
        if B + s < c:
            continue
        base += s * m
        # the count of _above does not fall with i (D ≤ 1): the last document has the most
        count = m - s + 1
        if D[0] > 0:
            count = min(count, ((B + s) * D[1] - 1) // D[0] - t - s + 1)
        most = max(most, count)
    return base * (1 + most) if most > 0 else 0


def _refuse(work: int, where: str, groups, exact: bool) -> None:
    raise ParameterError(
        f"the exact mean over tie orders of interpolated precision for {where} would take "
        f"{'' if exact else 'at least '}{work:,} steps (its tie groups mixing relevant and "
        f"non-relevant documents are too large: {[(m, s) for _, _, m, s in groups][:5]} "
        "(size, relevant)); pass ties='first' (the order as given) or ties='trec_eval'")


CHUNK = 1 << 20  # candidate values enumerated at a time


def mean_interpolated(fixed_j, fixed_pos, mixed, cut: int, where: str) -> float:
    """E[max_{j ≥ max(cut, 1)} j / rank_j] over the orders of the mixed groups.

    ``fixed_j``/``fixed_pos``: the relevant documents of fixed groups (global index j and
    position); ``mixed``: (B, t, m, s) of every mixed group, in ranking order. Refused with
    a `ParameterError` when the work would pass ``MAX_WORK``: first by a lower bound
    found without enumerating the candidate values, then by their exact number, counted
    as they are enumerated (stopping as soon as it is too large)."""
    c = max(int(cut), 1)
    D = _best_fixed(fixed_j, fixed_pos, c)
    d_val = D[0] / D[1]
    groups = [(B, t, m, s) for B, t, m, s in mixed if B + s >= c]
    floor = work_floor(fixed_j, fixed_pos, groups, c)
    if floor == 0:  # no candidate above D: the maximum is D in every order
        return d_val
    if floor > MAX_WORK:
        _refuse(floor, where, groups, exact=False)
    base = sum(s * m for _, _, m, s in groups)
    limit = MAX_WORK // base - 1  # the most distinct candidates the budget allows
    found = np.zeros((0, 2), dtype=np.int64)
    for B, t, m, s in groups:
        i, count = _above(B, t, m, s, c, D)
        keep = count > 0
        i, count = i[keep], count[keep]
        bounds = np.concatenate([[0], np.cumsum(count)])
        # chunks of the constrained documents holding about CHUNK candidates each
        cuts = np.searchsorted(bounds, np.arange(0, bounds[-1], CHUNK), side="right") - 1
        for lo, hi in zip(cuts, np.append(cuts[1:], len(i))):
            if lo >= hi:
                continue
            ii = np.repeat(i[lo:hi], count[lo:hi])
            off = np.arange(len(ii)) - np.repeat(bounds[lo:hi] - bounds[lo], count[lo:hi])
            num, den = B + ii, t + ii + off
            g = np.gcd(num, den)
            pairs = np.stack([num // g, den // g], axis=1)
            found = np.unique(np.concatenate([found, pairs]), axis=0)
            if len(found) > limit:
                _refuse(base * (1 + len(found)), where, groups, exact=False)
    order = np.lexsort((found[:, 1], found[:, 0], found[:, 0] / found[:, 1]))
    nums = np.concatenate([[D[0]], found[order, 0]]).astype(np.int64)
    dens = np.concatenate([[D[1]], found[order, 1]]).astype(np.int64)
    prob = np.ones(len(nums))
    for B, t, m, s in groups:
        i = np.arange(1, s + 1)
        constrained = B + i >= c
        # least position of the i-th relevant: ⌈(B + i)·den / num⌉ − t where constrained
        need = -((-(B + i)[None, :] * dens[:, None]) // np.maximum(nums, 1)[:, None]) - t
        need = np.where(constrained[None, :], need, 1)
        need = np.where(nums[:, None] > 0, need, m + 1)  # x = 0: impossible
        prob *= _subset_fraction(m, s, np.maximum(need, 1))
    values = nums / dens
    p_le = prob  # P(X ≤ points[k])
    mean = values[0] * p_le[0] + float(np.sum(values[1:] * np.diff(p_le)))
    return mean
