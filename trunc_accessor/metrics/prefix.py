"""Prefix kernels: a metric at every allowed cut-off of every ranking, in one pass.

``cutoff_curve`` and ``optimal_cutoff`` need a metric's value for every prefix a₁…a_d of a
ranking (d = 0 and the end of every tie group; Amigó, Mizzaro & Spina 2022, §4.2). Scoring
each prefix on its own costs Σ d rows, quadratic in the ranking's length. For most metrics a
prefix's value is a function of

* running sums over the ranking: P, R, F, AP, DCG, nDCG, RBP, RR, success, R-prec, bpref,
  the counts and set measures, the utility metrics (Amigó et al. §3.3);
* running products: the cascade metrics, whose stopping terms at a position depend only on
  the documents above it (ERR, ERR′, RBU, ERRU; Chapelle et al. 2009), the probability of
  reading past a prefix being the product over its tie groups;
* the prefix's length n = d and the query's constants: the terminal document of Liu, Moffat,
  Baldwin & Zhang 2016 (RR′, RBP′, NDCG′, AP′, ERR′), whose gain r_t (eq. 1) is the running
  gain over R, and whose ideal ranking over n + 1 positions (eq. 3) is a running sum of the
  query's sorted gains;

so one pass gives every prefix: O(N + cut-offs) per metric.

Ties. A cut-off is the end of a tie group, so a prefix holds whole groups; each group adds
the same expected contribution (McSherry & Najork 2008) to a prefix as to the whole ranking,
and a metric's own cut-off k, when it falls inside a group, cuts the same group in every
prefix that holds it. Running sums restart at each ranking and add the same terms in the same
order as a kernel's per-ranking sum (``np.bincount``), so a prefix's value is the one its own
kernel call gives, to the last bits where a kernel groups a sum differently.

A metric declares its prefix kernel beside its kernel (``register(..., prefix=fn)``,
``fn(cuts, level, **params)`` → one value per cut-off of ``Cuts``); ``for_metric`` finds it.
A metric without one (``FALLBACK`` lists the built-in ones: measures whose value at a prefix
is not a function of running quantities, or whose tie-aware forms are computed per ranking)
is scored by rescoring every prefix.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import in_cut
from trunc_accessor.metrics._order import restarting_cumsum

#: the built-in metrics scored by rescoring every prefix (no prefix form here)
FALLBACK = ("iprec_at_recall", "interpolated_precision_11pt", "infap", "oie", "compat",
            "normalized_g", "ndcg_rel", "rndcg", "twist", "recovery_ratio", "space_ratio",
            "space_ratio_plus", "space_ratio_minus")

def for_metric(metric) -> Callable | None:
    """The prefix kernel of a registered metric (its ``register(..., prefix=)``), or None
    (score every prefix instead)."""
    return metric.prefix


class Cuts:
    """The cut-offs of a preparation: cut i keeps the first ``depth[i]`` positions of
    ranking ``seg[i]`` (0 or the end of a tie group). Running sums over the rows or tie
    groups of the preparation, or of a part of it (``Prepared.judged_part``: the same
    positions, fewer rows), are read at each cut."""

    def __init__(self, prep: Prepared, seg: np.ndarray, depth: np.ndarray):
        self.prep = prep
        self.seg = np.asarray(seg, dtype=np.int64)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.n = self.depth.astype(np.float64)
        self._end = prep.offsets[self.seg] + self.depth  # one past the prefix's last row
        self._last: dict = {}

    def __len__(self) -> int:
        return len(self.seg)

    def last(self, part: Prepared, groups: bool) -> tuple[np.ndarray, np.ndarray]:
        """Per cut, the index of the last row (``groups``: tie group) of ``part`` inside the
        prefix, and whether there is one."""
        key = (id(part), groups)
        if key in self._last and self._last[key][0] is part:
            return self._last[key][1:]
        ok = self.depth > 0
        if part is self.prep:
            row = np.where(ok, self._end - 1, 0)
            idx = part.gid[row] if groups and len(part.gid) else row
        else:
            if groups:
                stop = part.offsets[part.g_seg] + part.g_start + part.g_size
                owner = part.g_seg
            else:
                stop = part.offsets[part.seg] + part.pos
                owner = part.seg
            idx = np.searchsorted(stop, self._end, side="right") - 1
            ok = idx >= 0
            idx = np.where(ok, idx, 0)
            if len(owner):
                ok &= owner[idx] == self.seg
            else:
                ok[:] = False
        self._last[key] = (part, idx, ok)
        return idx, ok

    def at(self, part: Prepared, values: np.ndarray, groups: bool, empty: float = 0.0):
        """Per cut, the entry of ``values`` (per row or per tie group of ``part``) at the last
        one inside the prefix; ``empty`` where the prefix holds none."""
        idx, ok = self.last(part, groups)
        if not len(values):
            return np.full(len(self), empty)
        return np.where(ok, values[idx], empty)

    def running(self, part: Prepared, values) -> np.ndarray:
        """Per cut, the sum of a per-row array of ``part`` over the rows inside the prefix."""
        offsets = np.searchsorted(part.seg, np.arange(part.n_segments + 1))
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), part.seg.shape)
        return self.at(part, restarting_cumsum(values, offsets), groups=False)

    def running_groups(self, part: Prepared, values) -> np.ndarray:
        """Per cut, the sum of a per-group array of ``part`` over the groups of the prefix."""
        offsets = np.searchsorted(part.g_seg, np.arange(part.n_segments + 1))
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), part.g_seg.shape)
        return self.at(part, restarting_cumsum(values, offsets), groups=True)

    def ranking(self, values: np.ndarray) -> np.ndarray:
        """A per-ranking array read at each cut."""
        return np.asarray(values)[self.seg]

    def reached(self, depth) -> np.ndarray:
        """Prefixes of length ≥ ``depth`` (the terminal metrics' depth=; none for None)."""
        if depth is None:
            return np.zeros(len(self), dtype=bool)
        return self.depth >= depth

    def relevant_retrieved(self, level: float, k=None) -> np.ndarray:
        """Per cut, the relevant documents inside the prefix (and the first k positions):
        a tie group's mean relevance for each of its positions."""
        part = self.prep.judged_part()
        return self.running(part, part.group_mean(part.relevant(level)) * in_cut(part, k))

    def any_relevant(self, level: float) -> np.ndarray:
        """Per cut, whether the prefix holds a relevant document."""
        part = self.prep.judged_part()
        return self.running(part, part.relevant(level)) > 0
