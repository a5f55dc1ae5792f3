"""The arithmetic of expected exposure (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020),
as the authors' reference implementation (diazf/expeval) computes it, vectorised over every
query of a call: the target exposure of each judged document, the exposure of each position
of a sampled ranking, the three measures and the bounds that normalise them.

Inputs are flat arrays: judged documents with their query index (``jq``), their level key
(the grade; every relevant grade one key when relevance is binarised) and whether they are
relevant; ranked rows with their ranking (a sample of a segment), their 0-based position,
whether they are relevant and their tie group. Nothing here loops over queries.

User models (exposure of 0-based position i):

* RBP (Moffat & Zobel 2008): e_i = p^i;
* GERR (Chapelle et al. 2009, §7.2): e_i = p^i·(1 − u)^(relevant documents above i).

Target exposure: the judged documents sorted by level, best first; the m documents of a
level with b documents above it share its positions equally:
RBP (p^b − p^(b+m))/(m(1 − p)); GERR, relevant level, with p' = p(1 − u):
(p'^b − p'^(b+m))/(m(1 − p')); GERR, other levels: (1 − u)^b (p^b − p^(b+m))/(m(1 − p)).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MODELS = ("gerr", "rbp")


@dataclass(frozen=True)
class Model:
    """A user model and expeval's options: ``kind`` ("rbp" or "gerr"), patience ``p``,
    utility ``u`` (GERR), ``complete`` judgments (expeval -C: every judged document is a
    candidate; else only the relevant ones are, out of an unbounded collection)."""

    kind: str
    p: float
    u: float
    complete: bool

    @property
    def bound_discount(self) -> float:
        """The discount expeval's bounds use: p (RBP), p·u (GERR; sic, not p·(1 − u))."""
        return self.p if self.kind == "rbp" else self.p * self.u


def geometric(x: float | np.ndarray, n) -> np.ndarray:
    """Σ_{i<n} x^i (n = inf: 1/(1 − x)), elementwise in ``n``."""
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = (1.0 - np.power(x, np.where(np.isinf(n), 0.0, n))) / (1.0 - x)
    return np.where(np.isinf(n), 1.0 / (1.0 - x), finite)


@dataclass
class Targets:
    """The target exposure of each judged document (``t``, input order) and per query: the
    number of candidates ``n`` (inf with incomplete judgments), of levels, of relevant
    documents, ‖target‖² and the two sums over the ascending target that expeval's
    complete-judgment bounds read (Σ d^i·t_(i) and Σ (d^i − t_(i))², d the bound
    discount)."""

    t: np.ndarray
    n: np.ndarray
    levels: np.ndarray
    relevant: np.ndarray
    norm2: np.ndarray
    low_dot: np.ndarray
    low_gap: np.ndarray


def _level_exposure(b: np.ndarray, m: np.ndarray, rel: np.ndarray, model: Model) -> np.ndarray:
    """Each level's per-document target (module doc)."""
    p, u = model.p, model.u
    plain = (np.power(p, b) - np.power(p, b + m)) / (m * (1.0 - p))
    if model.kind == "rbp":
        return plain
    pp = p * (1.0 - u)
    top = (np.power(pp, b) - np.power(pp, b + m)) / (m * (1.0 - pp))
    return np.where(rel, top, np.power(1.0 - u, b) * plain)


def targets(jq: np.ndarray, key: np.ndarray, rel: np.ndarray, n_q: int,
            model: Model) -> Targets:
    """Target exposures of the candidates ``jq`` (query index), ``key`` (level, higher is
    better) and ``rel`` (relevant), for ``n_q`` queries."""
    order = np.lexsort((-key, jq))
    sq, sk = jq[order], key[order]
    new = np.ones(len(sq), dtype=bool)
    new[1:] = (sq[1:] != sq[:-1]) | (sk[1:] != sk[:-1])
    level = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    m = np.diff(np.append(first, len(sq))).astype(np.float64)
    q_start = np.searchsorted(sq, sq[first], side="left")
    b = (first - q_start).astype(np.float64)
    te = _level_exposure(b, m, rel[order][first], model)
    t = np.empty(len(jq))
    t[order] = te[level]
    count = np.bincount(jq, minlength=n_q).astype(np.float64)
    n = count if model.complete else np.full(n_q, np.inf)
    # ascending target within each query: the reverse of the level order
    asc = np.lexsort((t, jq))
    i = np.arange(len(jq)) - np.searchsorted(jq[asc], jq[asc], side="left")
    d = np.power(model.bound_discount, i)
    ta = t[asc]
    return Targets(t=t, n=n, levels=np.bincount(sq[first], minlength=n_q).astype(np.float64),
                   relevant=np.bincount(jq, weights=rel.astype(np.float64), minlength=n_q),
                   norm2=np.bincount(jq, weights=t * t, minlength=n_q),
                   low_dot=np.bincount(jq[asc], weights=d * ta, minlength=n_q),
                   low_gap=np.bincount(jq[asc], weights=(d - ta) ** 2, minlength=n_q))


def position_exposure(ranking: np.ndarray, pos0: np.ndarray, rel: np.ndarray,
                      model: Model) -> np.ndarray:
    """The exposure of each row (rows grouped by ranking, in ranking order): p^i, times
    (1 − u)^(relevant rows above) under GERR."""
    e = np.power(model.p, pos0.astype(np.float64))
    if model.kind == "gerr" and len(rel):
        c = np.cumsum(rel, dtype=np.float64)
        start = np.ones(len(rel), dtype=bool)
        start[1:] = ranking[1:] != ranking[:-1]
        base = (c - rel)[start]  # relevant rows before each ranking
        above = c - rel - base[np.cumsum(start) - 1]
        e = e * np.power(1.0 - model.u, above)
    return e


@dataclass
class Measures:
    """Per segment: the values of EE-D, EE-R and EE-L and their bounds (lower, upper) and
    the value a normalisation with equal bounds gives (expeval's defaults)."""

    values: dict
    lower: dict
    upper: dict

    DEFAULT = {"ee_d": 0.0, "ee_r": 1.0, "ee_l": 0.0}
    # bounds this close are equal: their difference is rounding (expeval's group EE-D under
    # RBP has bounds k·G(p, r)² computed in two orders), and dividing by it gives noise
    EQUAL_BOUNDS = 1e-12

    def get(self, name: str, normalize: bool) -> np.ndarray:
        v = self.values[name]
        if not normalize:
            return v
        lo, hi = self.lower[name], self.upper[name]
        with np.errstate(invalid="ignore", divide="ignore"):
            scaled = (v - lo) / (hi - lo)
        equal = np.abs(hi - lo) <= self.EQUAL_BOUNDS * np.maximum(np.abs(hi), np.abs(lo))
        return np.where(equal, self.DEFAULT[name], scaled)


def _values(owner: np.ndarray, target: np.ndarray, exposure: np.ndarray, n_seg: int,
            norm2: np.ndarray) -> dict:
    """EE-D, EE-R, EE-L per segment from the items (documents or groups) of each segment:
    ‖ε‖², ε·ε*, ‖ε − ε*‖² (the items not exposed count ε* each in ``norm2``)."""
    d = np.bincount(owner, weights=exposure * exposure, minlength=n_seg)
    r = np.bincount(owner, weights=target * exposure, minlength=n_seg)
    gap = np.bincount(owner, weights=(target - exposure) ** 2 - target * target,
                      minlength=n_seg)
    return {"ee_d": d, "ee_r": r, "ee_l": norm2 + gap}


def documents(tg: Targets, seg_q: np.ndarray, owner: np.ndarray, target: np.ndarray,
              exposure: np.ndarray, answered: np.ndarray, model: Model) -> Measures:
    """The document measures of each segment (``seg_q``: its query) from its exposed
    documents (``owner`` segment, ``target`` and ``exposure``); ``answered``: the segment
    has a ranking. Bounds as expeval sets them; a segment without ranking takes EE-D at its
    upper bound, EE-R at its lower, EE-L = ‖ε*‖² (the loss of no exposure)."""
    n, norm2 = tg.n[seg_q], tg.norm2[seg_q]
    vals = _values(owner, target, exposure, len(seg_q), norm2)
    d = model.bound_discount
    one_level = tg.levels[seg_q] <= 1
    r_hi = np.where(one_level, 0.0, np.where(norm2 > 0, norm2, np.inf))
    r_lo = np.where(one_level | np.isinf(n), 0.0, tg.low_dot[seg_q])
    d_hi = geometric(model.p * model.p, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        d_lo = np.where(np.isinf(n), 0.0, geometric(d, n) ** 2 / n)
    l_hi = np.where(np.isinf(n), norm2 + 1.0 / (1.0 - d), tg.low_gap[seg_q])
    vals["ee_d"] = np.where(answered, vals["ee_d"], d_hi)
    vals["ee_r"] = np.where(answered, vals["ee_r"], r_lo)
    lower = {"ee_d": d_lo, "ee_r": r_lo, "ee_l": np.zeros(len(seg_q))}
    upper = {"ee_d": d_hi, "ee_r": r_hi, "ee_l": l_hi}
    return _undefined(Measures(vals, lower, upper), tg.levels[seg_q] == 0)


def groups(tg: Targets, seg_q: np.ndarray, owner: np.ndarray, target: np.ndarray,
           exposure: np.ndarray, answered: np.ndarray, model: Model) -> Measures:
    """The group measures of each segment from its groups (``owner`` segment, summed
    ``target`` and ``exposure`` of their candidates). Bounds as expeval sets them, with r
    relevant documents and k groups: EE-D in [k·G(d, r)², k·G(p, r)²] (G(x, r) = Σ_{i<r} x^i,
    d the bound discount; both 0 for one group), EE-R in [0, 0], EE-L in
    [0, max(‖ε*‖², ‖G(p, r) − ε*‖²)]."""
    n_seg = len(seg_q)
    norm2 = np.bincount(owner, weights=target * target, minlength=n_seg)
    vals = _values(owner, target, exposure, n_seg, norm2)
    k = np.bincount(owner, minlength=n_seg).astype(np.float64)
    r = tg.relevant[seg_q]
    mass = geometric(model.p, r)
    one = k == 1
    low = geometric(model.bound_discount, r)
    # expeval's order of operations: with RBP the bounds are equal but for rounding (taken
    # as equal: Measures.EQUAL_BOUNDS)
    d_hi = np.where(one, 0.0, mass * mass * k)
    d_lo = np.where(one, 0.0, k * low * low)
    spread = np.bincount(owner, weights=(mass[owner] - target) ** 2, minlength=n_seg)
    zero = np.zeros(n_seg)
    vals["ee_d"] = np.where(answered, vals["ee_d"], d_hi)
    vals["ee_r"] = np.where(answered, vals["ee_r"], 0.0)
    lower = {"ee_d": d_lo, "ee_r": zero, "ee_l": zero}
    upper = {"ee_d": d_hi, "ee_r": zero, "ee_l": np.maximum(norm2, spread)}
    return _undefined(Measures(vals, lower, upper), k == 0)


def _undefined(m: Measures, none: np.ndarray) -> Measures:
    """NaN for the segments of a query without a candidate (expeval skips such queries)."""
    if none.any():
        for part in (m.values, m.lower, m.upper):
            for name in part:
                part[name] = np.where(none, math.nan, part[name])
    return m
