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

from ..core.registry import ParameterError

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


def mean_interpolated(fixed_j, fixed_pos, mixed, cut: int, where: str) -> float:
    """E[max_{j ≥ max(cut, 1)} j / rank_j] over the orders of the mixed groups.

    ``fixed_j``/``fixed_pos``: the relevant documents of fixed groups (global index j and
    position); ``mixed``: (B, t, m, s) of every mixed group, in ranking order."""
    c = max(int(cut), 1)
    keep = fixed_j >= c
    if keep.any():
        vals = fixed_j[keep] / fixed_pos[keep]
        k = int(np.argmax(vals))
        D = (int(fixed_j[keep][k]), int(fixed_pos[keep][k]))
    else:
        D = (0, 1)
    d_val = D[0] / D[1]
    groups = []
    candidates: dict = {}
    for B, t, m, s in mixed:
        i = np.arange(1, s + 1)
        constrained = B + i >= c
        if not constrained.any():
            continue
        groups.append((B, t, m, s, constrained))
        for ii in i[constrained]:
            for p in range(ii, m - s + ii + 1):
                num, den = B + ii, t + p
                if num * D[1] > D[0] * den:  # above D
                    candidates[(num // math.gcd(num, den), den // math.gcd(num, den))] = None
    if not groups or not candidates:
        return d_val
    xs = sorted(candidates, key=lambda f: f[0] / f[1])
    points = [D, *xs]  # P(X ≤ D) first, then each candidate value
    work = sum(s * m for _, _, m, s, _ in groups) * len(points)
    if work > MAX_WORK:
        raise ParameterError(
            f"the exact mean over tie orders of interpolated precision for {where} would take "
            f"{work:,} steps (its tie groups mixing relevant and non-relevant documents are "
            f"too large: {[(m, s) for _, _, m, s, _ in groups][:5]} (size, relevant)); pass "
            "ties='first' (the order as given) or ties='trec_eval'")
    nums = np.array([p[0] for p in points], dtype=np.int64)
    dens = np.array([p[1] for p in points], dtype=np.int64)
    prob = np.ones(len(points))
    for B, t, m, s, constrained in groups:
        i = np.arange(1, s + 1)
        # least position of the i-th relevant: ⌈(B + i)·den / num⌉ − t where constrained
        need = -((-(B + i)[None, :] * dens[:, None]) // np.maximum(nums, 1)[:, None]) - t
        need = np.where(constrained[None, :], need, 1)
        need = np.where(nums[:, None] > 0, need, m + 1)  # x = 0: impossible
        prob *= _subset_fraction(m, s, np.maximum(need, 1))
    values = nums / dens
    p_le = prob  # P(X ≤ points[k])
    mean = values[0] * p_le[0] + float(np.sum(values[1:] * np.diff(p_le)))
    return mean
