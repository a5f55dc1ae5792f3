"""The shared machinery of the diversity measures (``diversity``): the relevant
(row, subtopic) pairs of a call, the novelty-discounted gain sums and their exact means over
tie orders, ndeval's greedy ideal ranking, and the ideal-ideal bound. The formulas are
written out in ``trunc_accessor.metrics.diversity``'s docstring."""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.aspects import Aspects
from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics._combinatorics import log_factorials


def _pairs(prep: Prepared, level: float, name: str) -> _Pairs:
    """The call's ``_Pairs`` at a level, built once for every diversity measure."""
    key = ("diversity_pairs", level)
    if key not in prep._cache:
        prep._cache[key] = _Pairs(prep, level, name)
    return prep._cache[key]


class _Pairs:
    """The (row, subtopic) pairs relevant at a level, sorted by (segment, subtopic, row),
    with what every diversity kernel needs (see the module docstring)."""

    def __init__(self, prep: Prepared, level: float, name: str):
        a = prep.aspects
        if not isinstance(a, Aspects):
            raise ParameterError(
                f"{name} needs diversity qrels: a qrels frame with a subtopic column (named "
                "subtopic, iteration, intent or aspect; read_qrels(path, subtopics=True) reads "
                "TREC diversity files, whose second field holds the subtopic)")
        keep = a.rel >= level
        row, code = a.row[keep], a.code[keep]
        seg = prep.seg[row]
        order = np.lexsort((row, code, seg))
        self.row, self.code, self.seg = row[order], code[order], seg[order]
        self.pos = prep.pos[self.row].astype(np.float64)
        n_q = len(prep.q_offsets) - 1
        judged = a.j_rel >= level
        self.nrel = np.bincount(a.j_code[judged], minlength=a.n_codes).astype(np.float64)
        active = (self.nrel > 0).astype(np.float64)
        per_q = np.bincount(a.code_q, weights=active, minlength=n_q)
        # each subtopic's weight, scaled to sum to S over the query's active subtopics
        # (1 each without a weight column, as ndeval's uniform weights)
        self.code_wt = np.ones(a.n_codes)
        if a.code_w is not None:
            self.code_wt, per_q = _scaled_weights(a.code_w, active > 0, a.code_q, per_q, n_q)
        self.S = per_q[prep.seg_q]  # the subtopics with a relevant document, per segment
        # blocks of equal (segment, subtopic): the index of each pair inside its block
        key = self.seg * np.int64(max(a.n_codes, 1)) + self.code
        new = np.ones(len(key), dtype=bool)
        new[1:] = key[1:] != key[:-1]
        self.block_start = np.flatnonzero(new)
        self.block = np.cumsum(new) - 1
        self.index = np.arange(len(key)) - self.block_start[self.block]
        self.key = key
        self.wt = self.code_wt[self.code]


def _scaled_weights(w: np.ndarray, active: np.ndarray, code_q: np.ndarray, per_q: np.ndarray,
                    n_q: int) -> tuple[np.ndarray, np.ndarray]:
    """Subtopic weights ``w`` (finite, ≥ 0; one per code) scaled to sum to S over the
    active subtopics of each query, and S per query. Each query's weights are first divided
    by their largest active weight, so that their sum cannot overflow (weights near the
    largest float) and equal weights become exactly 1 (as tiny or subnormal ones do). A
    query whose active subtopics all weigh 0 has nothing to weigh: S = 0 (undefined)."""
    wa = np.where(active, w, 0.0)
    top = np.zeros(n_q)
    np.maximum.at(top, code_q, wa)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(top[code_q] > 0, wa / np.where(top[code_q] > 0, top[code_q], 1.0), 0.0)
    total = np.bincount(code_q, weights=rel, minlength=n_q)
    per_q = np.where(top > 0, per_q, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = np.where(total[code_q] > 0,
                          rel * per_q[code_q] / np.where(total[code_q] > 0, total[code_q], 1.0),
                          0.0)
    return scaled, per_q


def _decay(alpha: float, n: int) -> np.ndarray:
    """(1 − α)^c for c = 0..n, by repeated multiplication (as ndeval computes it)."""
    out = np.empty(n + 1)
    out[0] = 1.0
    if n:
        out[1:] = 1.0 - alpha
        np.cumprod(out[1:], out=out[1:])
    return out


def _gain_sum(prep: Prepared, p: _Pairs, kind: str, param, alpha: float) -> np.ndarray:
    """``_expected_sum`` with the weights of ``kind`` ("dcg" and "rr" with cut-off
    ``param``, "rbp" with patience ``param``), computed once per call and shared (α-DCG and
    α-nDCG, ERR-IA and nERR-IA, NRBP and nNRBP have the same numerator)."""
    key = ("diversity_sum", id(p), kind, param, alpha)
    if key not in prep._cache:
        weight = {"dcg": _dcg_weight, "rr": _rr_weight, "rbp": _rbp_weight}[kind](param)
        prep._cache[key] = _expected_sum(prep, p, weight, alpha)
    return prep._cache[key]


def _expected_sum(prep: Prepared, p: _Pairs, weight, alpha: float) -> np.ndarray:
    """Per segment, Σ over the relevant pairs of (1 − α)^{c_s(i)} · weight(i), its exact mean
    over tie orders (module docstring). ``weight`` maps 1-based positions to weights (0
    beyond a cut-off)."""
    if len(p.row) == 0:
        return np.zeros(prep.n_segments)
    terms = _position_terms(prep, p, alpha)
    return np.bincount(terms[0], weights=weight(terms[1]) * terms[2], minlength=prep.n_segments)


def _position_terms(prep: Prepared, p: _Pairs, alpha: float):
    """(segment, position, coefficient) of every position a relevant pair can occupy, such
    that Σ coefficient · weight(position) per segment is the mean over tie orders of
    Σ (1 − α)^{c_s(i)} · weight(i) for any weights: a pair alone in its tie group has its
    own position and coefficient (1 − α)^{c_s}·w_s; the k pairs of one subtopic in a group
    of n positions (t before it, c before the group) give each position t + j the
    coefficient (k/n)·E[(1 − α)^{c + X}]·w_s, X hypergeometric (module docstring). Weight-free,
    so computed once per call and α."""
    key = ("diversity_terms", id(p), alpha)
    if key in prep._cache:
        return prep._cache[key]
    decay = _decay(alpha, max(len(p.row), 1))
    gid = prep.gid[p.row]
    plain = prep.g_size[gid] == 1
    seg = [p.seg[plain]]
    pos = [p.pos[plain]]
    coef = [decay[p.index[plain]] * p.wt[plain]]
    if not plain.all():
        # blocks of equal (segment, subtopic, tie group) with more than one position
        tied = np.flatnonzero(~plain)
        bkey = p.key[tied] * np.int64(prep.n_groups + 1) + gid[tied]
        first = np.ones(len(tied), dtype=bool)
        first[1:] = bkey[1:] != bkey[:-1]
        heads = tied[first]
        k = np.diff(np.append(np.flatnonzero(first), len(tied)))  # relevant docs in the block
        c0 = p.index[heads]  # relevant docs of the subtopic in earlier groups
        g = gid[heads]
        n, t = prep.g_size[g], prep.g_start[g]
        # cells: the block's positions j = 1..n
        cell = np.repeat(np.arange(len(heads)), n)
        j = np.arange(len(cell)) - np.repeat(np.cumsum(n) - n, n) + 1
        nc, kc = n[cell], k[cell]
        lf = log_factorials(int(n.max()))
        inner = np.zeros(len(cell))
        for x in range(int(k.max())):
            live = (x <= j - 1) & (x <= kc - 1)
            if not live.any():
                break
            # P(x of the other k − 1 lie in the j − 1 positions before j): hypergeometric
            prob = _hypergeom(kc - 1, nc - kc, j - 1, x, lf)
            inner += np.where(live, decay[np.minimum(c0[cell] + x, len(decay) - 1)] * prob, 0.0)
        seg.append(p.seg[heads][cell])
        pos.append((t[cell] + j).astype(np.float64))
        coef.append((kc / nc) * inner * p.wt[heads][cell])
    out = np.concatenate(seg), np.concatenate(pos), np.concatenate(coef)
    prep._cache[key] = out
    return out


def _hypergeom(good: np.ndarray, bad: np.ndarray, draws: np.ndarray, x: int,
               lf: np.ndarray) -> np.ndarray:
    """P(x good items in ``draws`` drawn without replacement from good + bad), elementwise:
    C(good, x)·C(bad, draws − x)/C(good + bad, draws), 0 where impossible."""
    y = draws - x
    ok = (x <= good) & (y >= 0) & (y <= bad)
    gx = np.where(ok, good, 0)
    by = np.where(ok, bad, 0)
    yy = np.where(ok, y, 0)
    xx = np.where(ok, x, 0)
    dd = np.where(ok, draws, 0)
    log = ((lf[gx] - lf[xx] - lf[gx - xx]) + (lf[by] - lf[yy] - lf[by - yy])
           - (lf[gx + by] - lf[dd] - lf[gx + by - dd]))
    return np.where(ok, np.exp(log), 0.0)


def _ideal_blocks(n_docs: np.ndarray, n_subs: np.ndarray) -> list[tuple[np.ndarray, int, int]]:
    """The queries whose greedy ideal is built together, as (query indices, D, S): queries
    of similar size (their relevant documents and subtopics in the same power-of-two
    range) share dense D × S arrays, D and S the largest of the block, so that each query
    pays at most 2·D_q × 2·S_q cells and 8·D_q²·S_q steps (ndeval's own cost is D_q²·S_q),
    whatever the size of the other queries. Queries with no relevant document are left out."""
    live = np.flatnonzero(n_docs > 0)
    if not len(live):
        return []
    d_key = np.ceil(np.log2(n_docs[live])).astype(np.int64)
    s_key = np.ceil(np.log2(np.maximum(n_subs[live], 1))).astype(np.int64)
    key = d_key * 64 + s_key
    order = np.argsort(key, kind="stable")
    key, live = key[order], live[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    out = []
    for lo, hi in zip(starts, np.r_[starts[1:], len(live)]):
        qs = live[lo:hi]
        out.append((qs, int(n_docs[qs].max()), int(max(n_subs[qs].max(), 1))))
    return out


def _ideal_gains(prep: Prepared, level: float, alpha: float, wt: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The novelty-discounted gains of ndeval's greedy ideal ranking, as (scored qid index,
    position, gain) of every position: at each position the judged document with the
    largest gain, ties to the largest docid. Computed one position at a time for every
    query of a block of similar size at once (`_ideal_blocks`)."""
    cache_key = ("diversity_ideal", level, alpha)
    if cache_key in prep._cache:
        return prep._cache[cache_key]
    a: Aspects = prep.aspects  # type: ignore[assignment]
    n_q = len(prep.q_offsets) - 1
    keep = a.j_rel >= level
    q = a.code_q[a.j_code[keep]]
    doc, code = a.j_doc[keep], a.j_code[keep]
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0))
    if len(q) == 0:
        prep._cache[cache_key] = empty
        return empty
    # documents renumbered per qid among the relevant ones (order kept: largest docid first)
    dkey = q * np.int64(doc.max() + 1) + doc
    udoc, dpos = np.unique(dkey, return_inverse=True)
    uq = udoc // (doc.max() + 1)
    d_first = np.searchsorted(uq, np.arange(n_q))
    d_local = dpos - d_first[q]
    s_first = np.searchsorted(a.code_q, np.arange(n_q))
    s_local = code - s_first[q]
    n_docs = np.bincount(uq, minlength=n_q)
    n_subs = np.zeros(n_q, dtype=np.int64)  # the subtopics of each qid's pairs
    np.maximum.at(n_subs, q, s_local + 1)
    block_of = np.full(n_q, -1, dtype=np.int64)
    local = np.zeros(n_q, dtype=np.int64)
    parts_q, parts_pos, parts_gain = [], [], []
    for b, (qs, D, S) in enumerate(_ideal_blocks(n_docs, n_subs)):
        block_of[qs] = b
        local[qs] = np.arange(len(qs))
        mine = block_of[q] == b
        nb = len(qs)
        rel = np.zeros((nb, D, S))
        rel[local[q[mine]], d_local[mine], s_local[mine]] = wt[code[mine]]  # 1, or the weight
        nd = n_docs[qs]
        gain = np.ones((nb, S))
        taken = np.arange(D)[None, :] >= nd[:, None]  # padding counts as taken
        out = np.zeros((nb, D))
        rows = np.arange(nb)
        for step in range(D):
            score = np.zeros((nb, D))
            for s in range(S):  # in subtopic order, as ndeval adds them
                score += rel[:, :, s] * gain[:, s][:, None]
            score[taken] = -1.0
            pick = np.argmax(score, axis=1)  # the first maximum: the largest docid
            live = step < nd
            out[live, step] = score[rows, pick][live]
            taken[rows[live], pick[live]] = True
            hit = rel[rows, pick] > 0
            gain = np.where(hit & live[:, None], gain * (1.0 - alpha), gain)
        r, c = np.nonzero(np.arange(D)[None, :] < nd[:, None])
        parts_q.append(qs[r])
        parts_pos.append(c + 1.0)
        parts_gain.append(out[r, c])
    result = (np.concatenate(parts_q), np.concatenate(parts_pos), np.concatenate(parts_gain))
    prep._cache[cache_key] = result
    return result


def _ideal_sum(prep: Prepared, level: float, alpha: float, weight) -> np.ndarray:
    """Σ_i g*(i)·weight(i) of the greedy ideal ranking, per segment."""
    q, pos, gain = _ideal_gains(prep, level, alpha, _pairs(prep, level, "").code_wt)
    n_q = len(prep.q_offsets) - 1
    return np.bincount(q, weights=gain * weight(pos), minlength=n_q)[prep.seg_q]


EXACT_BOUND = 1 << 20  # positions of the ideal-ideal bound summed term by term


def _ideal_ideal(S: np.ndarray, alpha: float, kind: str, depth: np.ndarray) -> np.ndarray:
    """Σ_{i≤depth} S(1 − α)^{i−1}·w(i), w(i) = 1/log2(1 + i) ("dcg") or 1/i ("rr"): a ranking
    relevant to every subtopic at every position, per segment. The first 2^20 positions are
    summed term by term; a deeper bound (a cut-off such as k = 10^9) adds the tail by the
    Euler–Maclaurin formula, whose integral is taken by Gauss–Legendre quadrature in log x
    (the terms are smooth and slowly varying there: the error is far below a float's)."""
    if not len(depth):
        return np.zeros(0)
    top = int(min(depth.max(), EXACT_BOUND))
    pos = np.arange(1, top + 1, dtype=np.float64)
    w = (np.log(2.0) / np.log(pos + 1.0)) if kind == "dcg" else 1.0 / pos
    cum = np.concatenate([[0.0], np.cumsum(_decay(alpha, max(top - 1, 0))[:top] * w)])
    out = cum[np.minimum(depth, top).astype(np.int64)]
    deep = depth > EXACT_BOUND
    if deep.any():
        out = out.copy()
        out[deep] += _tail(alpha, kind, float(EXACT_BOUND), depth[deep].astype(np.float64))
    return S * out


def _tail(alpha: float, kind: str, m: float, b: np.ndarray) -> np.ndarray:
    """Σ_{m < i ≤ b} (1 − α)^{i−1}·w(i) for m ≥ 2^20 by Euler–Maclaurin: ∫_m^b f +
    (f(b) − f(m))/2 + (f'(b) − f'(m))/12 (the next term is below 10^-30 of the sum here)."""
    log_keep = np.log1p(-alpha) if alpha < 1 else -np.inf

    def f(x):
        w = np.log(2.0) / np.log(x + 1.0) if kind == "dcg" else 1.0 / x
        with np.errstate(invalid="ignore"):
            return np.where(np.isneginf(log_keep), 0.0, np.exp((x - 1.0) * log_keep) * w)

    def df(x):
        if kind == "dcg":
            dw = -np.log(2.0) / ((x + 1.0) * np.log(x + 1.0) ** 2)
            w = np.log(2.0) / np.log(x + 1.0)
        else:
            dw, w = -1.0 / x ** 2, 1.0 / x
        decay = np.where(np.isneginf(log_keep), 0.0, np.exp((x - 1.0) * log_keep))
        return decay * (dw + (0.0 if np.isneginf(log_keep) else log_keep) * w)

    if f(np.array(m)) == 0:  # the terms have underflowed: nothing beyond
        return np.zeros(len(b))
    nodes, weights = np.polynomial.legendre.leggauss(96)
    lo, hi = np.log(m), np.log(b)
    half, mid = (hi - lo) / 2, (hi + lo) / 2
    u = mid[:, None] + half[:, None] * nodes[None, :]
    x = np.exp(u)
    integral = (half[:, None] * weights[None, :] * f(x) * x).sum(axis=1)
    return integral + (f(b) - f(np.array(m))) / 2 + (df(b) - df(np.array(m))) / 12
def _dcg_weight(k):
    def w(pos):
        return np.where(pos <= (k if k is not None else np.inf),
                        np.log(2.0) / np.log(pos + 1.0), 0.0)
    return w


def _rr_weight(k):
    def w(pos):
        return np.where(pos <= (k if k is not None else np.inf), 1.0 / pos, 0.0)
    return w


def _rbp_weight(beta):
    def w(pos):
        return np.power(beta, pos - 1.0)
    return w


def _depth(prep: Prepared, k) -> np.ndarray:
    """The depth of the ideal-ideal bound: k, or each ranking's length for k=None."""
    return prep.length.astype(np.float64) if k is None else np.full(prep.n_segments, float(k))
