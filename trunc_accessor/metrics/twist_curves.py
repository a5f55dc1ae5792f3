"""Twist's curves (Ferro, Silvello, Keskustalo, Pirkola & Järvelin, JASIST 2016; the
definitions are in ``trunc_accessor.metrics.twist``): the ideal interval of each grade
(Definition 15), the forward and backward misplacement of each rank, RP and CRP (Definitions 1–2)
over the run length, stored without the padding that cannot matter, and the full-scale run
whose forward space normalises σ⁺.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from trunc_accessor.core.prepared import Prepared, build
from trunc_accessor.metrics._order import descending_within


# --------------------------------------------------------------------------- curves
def _intervals(prep: Prepared, level: float, q_index: np.ndarray, grades: np.ndarray):
    """(min, max) rank of each grade in its query's ideal run (Definition 15; MATTERS' twist.m):
    relevant grade g: 1 + #(judged > g) and #(judged ≥ g); non-relevant or unjudged (NaN):
    RB + 1 and +∞. ``q_index``: the qid index of each grade."""
    with np.errstate(invalid="ignore"):
        rel = grades >= level
        q_rel = prep.q_grades >= level
    rb = np.bincount(prep.q_seg, weights=q_rel, minlength=len(prep.q_offsets) - 1)
    lo = rb[q_index] + 1.0
    hi = np.full(len(grades), np.inf)
    if rel.any():
        # (qid, grade code) keys of the judged relevant documents, sorted: counts by search
        values = np.unique(prep.q_grades[q_rel])
        K = len(values)
        judged = np.sort(prep.q_seg[q_rel] * K + np.searchsorted(values, prep.q_grades[q_rel]))
        q = q_index[rel]
        key = q * K + np.searchsorted(values, grades[rel])
        end = np.searchsorted(judged, (q + 1) * K)
        lo[rel] = 1 + end - np.searchsorted(judged, key, side="right")
        hi[rel] = end - np.searchsorted(judged, key)
    return lo, hi


def _expected_hinge(prep: Prepared, t: np.ndarray, above: bool) -> np.ndarray:
    """Per row at rank j, the mean over the documents d of its tie group of (j − t_d)⁺
    (forward misplacement, t = max), or with ``above`` of (t_d − j)⁺ (backward, t = min):
    the expected misplacement at rank j under a uniform order of the group. Thresholds are
    sorted per group with prefix sums (O(N log N), any number of grades)."""
    j = prep.pos.astype(np.float64)
    if prep.singleton_groups:
        return np.maximum(t - j, 0.0) if above else np.maximum(j - t, 0.0)
    cap = float(j.max()) + 1.0  # a threshold beyond every rank compares like any other
    gid = prep.gid.astype(np.float64)
    key = gid * (cap + 1.0) + np.minimum(t, cap)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    cum = np.concatenate([[0.0], np.cumsum(np.where(np.isfinite(t), t, 0.0)[order])])
    size = prep.g_size[prep.gid]
    first = (np.cumsum(prep.g_size) - prep.g_size)[prep.gid]
    last = first + size
    probe = gid * (cap + 1.0) + j
    if above:  # Σ_{t_d > j} (t_d − j)
        k = np.searchsorted(sorted_key, probe, side="right")
        total = cum[last] - cum[k] - j * (last - k)
    else:      # Σ_{t_d < j} (j − t_d)
        k = np.searchsorted(sorted_key, probe, side="left")
        total = j * (k - first) - (cum[k] - cum[first])
    return total / size


@dataclass(frozen=True)
class Curves:
    """RP and CRP of every ranking over its first ``stored`` ranks (after ``depth``): one
    entry per stored rank, segments contiguous, ranks ascending. ``length`` is the run
    length L; ``stored`` is L, or with compression L_eff = min(L, max(n, RB) + 1) (RP is 0
    beyond, CRP constant: the doc of twist). ``src``: the Prepared row at that rank (−1 for a
    padding document)."""

    seg: np.ndarray
    pos: np.ndarray
    src: np.ndarray
    fwd: np.ndarray
    bwd: np.ndarray
    crp: np.ndarray
    length: np.ndarray
    stored: np.ndarray
    rb: np.ndarray

    @property
    def rp(self) -> np.ndarray:
        return self.fwd - self.bwd

    @property
    def compressed(self) -> np.ndarray:
        """Per segment: fewer ranks stored than the run length L."""
        return self.stored < self.length

    def grade(self, prep: Prepared) -> np.ndarray:
        """The grade at each rank (NaN: unjudged or padding)."""
        return np.append(prep.grade, np.nan)[self.src]

    def seg_sum(self, values) -> np.ndarray:
        return np.bincount(self.seg, weights=np.asarray(values, dtype=np.float64),
                           minlength=len(self.length))


def curves(prep: Prepared, level: float, depth=None, compress: bool = True) -> Curves:
    """RP (as its forward and backward parts) and CRP of every ranking (Definitions 1–2),
    tie-aware, padded with non-relevant documents or cut to ``depth``. With ``compress``
    (the metrics) a ranking is stored over its first L_eff = min(L, max(n, RB) + 1) ranks
    only, since RP is 0 beyond (the doc of twist): O(n + RB) entries per ranking whatever
    ``depth``; without (the long CRP frame) over all L ranks."""
    rb = prep.num_relevant(level)
    lo, hi = _intervals(prep, level, prep.seg_q[prep.seg], prep.grade)
    fwd = _expected_hinge(prep, hi, above=False)
    bwd = _expected_hinge(prep, lo, above=True)
    n = prep.length
    length = n if depth is None else np.full_like(n, depth)
    stored = length
    if compress:
        stored = np.minimum(length, np.maximum(n, rb.astype(np.int64)) + 1)
    keep = np.flatnonzero(prep.pos <= stored[prep.seg])
    pad = np.maximum(stored - n, 0)
    pad_seg = np.repeat(np.arange(prep.n_segments), pad)
    pad_pos = n[pad_seg] + 1 + np.arange(len(pad_seg)) - (np.cumsum(pad) - pad)[pad_seg]
    seg = np.concatenate([prep.seg[keep], pad_seg])
    order = np.argsort(seg, kind="stable")  # kept ranks, then padding, per segment
    seg = seg[order]
    pos = np.concatenate([prep.pos[keep], pad_pos])[order]
    src = np.concatenate([keep, np.full(len(pad_seg), -1)])[order]
    fwd = np.concatenate([fwd[keep], np.zeros(len(pad_seg))])[order]
    bwd = np.concatenate([bwd[keep], np.maximum(rb[pad_seg] + 1.0 - pad_pos, 0.0)])[order]
    # a running sum restarting at each ranking (not one sum over all rankings minus each
    # ranking's start: its last bits would depend on which rankings share the call)
    crp = (pl.DataFrame({"seg": seg, "rp": fwd - bwd})
           .select(pl.col("rp").cum_sum().over("seg")).to_series().to_numpy())
    return Curves(seg=seg, pos=pos, src=src, fwd=fwd, bwd=bwd, crp=crp,
                  length=length, stored=stored, rb=rb)


def _best_relevant(prep: Prepared, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Each qid's judged relevant grades, best first (all qids concatenated), and the index
    where each qid's grades start in that array."""
    with np.errstate(invalid="ignore"):
        q_rel = prep.q_grades >= level
    qs, grades = prep.q_seg[q_rel], prep.q_grades[q_rel]
    q_first = np.searchsorted(qs, np.arange(len(prep.q_offsets) - 1))
    return descending_within(grades, qs, len(prep.q_offsets) - 1), q_first


def full_scale(prep: Prepared, level: float, length: np.ndarray) -> Prepared:
    """The full-scale run of each ranking (Definition 14, extended to any length L): its
    query's ideal run reversed, of length L: non-relevant documents, then the best
    min(L, RB) judged relevant ones in increasing grade. Materialises L rows per ranking:
    the metrics use ``full_scale_forward_space`` and build it only where L is small."""
    best, q_first = _best_relevant(prep, level)
    k = np.minimum(length, prep.num_relevant(level)).astype(np.int64)
    seg = np.repeat(np.arange(prep.n_segments), length)
    from_end = (np.cumsum(length) - 1)[seg] - np.arange(len(seg))  # 0 at the last rank
    rel = from_end < k[seg]
    grade = np.full(len(seg), np.nan)
    grade[rel] = best[q_first[prep.seg_q[seg[rel]]] + from_end[rel]]
    return build(prep.keys, prep.seg_q, seg, grade, None, prep.q_offsets, prep.q_grades,
                 prep.max_grade, "first")


def full_scale_forward_space(prep: Prepared, level: float, length: np.ndarray) -> np.ndarray:
    """s⁺max of each ranking: the forward space Σ_j (j − max_j)⁺ of its full-scale run of
    length L (``full_scale``). Only its k = min(L, RB) relevant documents, at ranks
    L − k + 1 … L, have a forward part (a non-relevant document has max = +∞), so this
    costs O(Σ k) whatever L (same terms, same order as summing the materialised run)."""
    best, q_first = _best_relevant(prep, level)
    k = np.minimum(length, prep.num_relevant(level).astype(np.int64))
    seg = np.repeat(np.arange(prep.n_segments), k)
    from_end = (np.cumsum(k) - 1)[seg] - np.arange(len(seg))  # k − 1 … 0: ranks ascending
    q_index = prep.seg_q[seg]
    grade = best[q_first[q_index] + from_end]
    _, hi = _intervals(prep, level, q_index, grade)
    rank = (length[seg] - from_end).astype(np.float64)
    return np.bincount(seg, weights=np.maximum(rank - hi, 0.0), minlength=prep.n_segments)


def with_full_scale(prep: Prepared, level: float, depth=None) -> tuple[Curves, np.ndarray]:
    """The (compressed) curves of every ranking and the forward space s⁺max of its
    full-scale run of the same length (cached on the preparation: ``evaluate`` asking for
    several Twist metrics computes them once). Memory O(rows + Σ RB), whatever ``depth``."""
    key = ("twist", level, depth)
    if key not in prep._cache:
        c = curves(prep, level, depth)
        prep._cache[key] = c, full_scale_forward_space(prep, level, c.length)
    return prep._cache[key]
