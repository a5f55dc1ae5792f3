"""trec_eval's remaining ``all_trec`` measures: set utility, binG, G, ndcg_rel, Rndcg, and
(in ``trunc_accessor.metrics.trec_rbp``) trec_eval's own rbp and rbp_resid, exactly as
trec_eval 10.0 computes them (m_utility.c, m_binG.c, m_G.c, m_ndcg_rel.c, m_Rndcg.c, m_rbp.c,
m_rbp_resid.c, gain_init.c).

Gains (G, ndcg_rel, Rndcg, rbp; gain_init.c): each grade's gain is the grade itself unless
``gains`` maps it to another value; unjudged documents and negative grades gain 0. The
*ideal* list of a query is the positive gains of its judged documents, largest first: it
ends at the first gain that is not positive. The measures are trec_eval's experimental ones
(binG, G, ndcg_rel, Rndcg are marked "experimental measure" in its help): we implement what
its code does, quirks included, so that the values are trec_eval's, and say so where a quirk
decides a value.

Ties (``ties="average"``): utility is order-free; rbp, rbp_resid and Rndcg are linear in
the gain at each position (Rndcg is a mean of nDCG at fixed cut-offs), so each gain is
replaced by its tie group's mean (McSherry & Najork 2008); binG has a closed form (one
relevant document of a tie group with u non-relevant documents has a uniform number 0…u of
them before it). G and ndcg_rel divide by running sums that depend on the order inside a tie
group; they refuse a tie group that mixes gains under ``ties="average"``.
"""
from __future__ import annotations

import math

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import safe_div
from trunc_accessor.metrics._order import (
    TREC_EVAL,
    descending_within,
    mixed_groups,
    require_order_free,
    restarting_cumsum,
)
from trunc_accessor.metrics.dcg import GAINS, gain_values
from trunc_accessor.metrics.dialects import TrecName
from trunc_accessor.metrics.infap import before_row
from trunc_accessor.metrics.params import Param, is_real
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register

CITE = TREC_EVAL + ", "


def _check_real(x):
    if not is_real(x) or not math.isfinite(x):
        raise ValueError(f"must be a finite number, not {x!r}")
    return float(x)


def _check_count(x):
    if not is_real(x) or not math.isfinite(x) or x != int(x) or x < 0:
        raise ValueError(f"must be a whole number ≥ 0, not {x!r}")
    return int(x)


# --------------------------------------------------------------------------- shared pieces
def seg_cumsum(prep: Prepared, values: np.ndarray) -> np.ndarray:
    """Running sum of a row array within each ranking (restarting at each ranking)."""
    return restarting_cumsum(values, prep.offsets)


def trec_gains(grades: np.ndarray, gains) -> np.ndarray:
    """trec_eval's gain of each grade: the grade, or what ``gains`` maps it to; unjudged
    documents and negative grades 0."""
    return gain_values(grades, gains)


def ideal(prep: Prepared, gains):
    """The ideal list of every qid (its judged documents' positive gains, largest first):
    (values, offsets per qid)."""
    judged = prep.q_grades >= 0
    g = np.where(judged, trec_gains(prep.q_grades, gains), 0.0)
    q = prep.q_seg
    keep = g > 0
    g, q = g[keep], q[keep]
    values = descending_within(g, q, len(prep.q_offsets) - 1)
    counts = np.bincount(q, minlength=len(prep.q_offsets) - 1)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return values, offsets


def _ideal_cumsum(values: np.ndarray, offsets: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Running sum of values·weights within each qid's ideal list, with a 0 in front of each
    qid: entry offsets[q] + q + j is the sum over its first j entries."""
    n_q = len(offsets) - 1
    out = np.zeros(len(values) + n_q)
    c = restarting_cumsum(values * weights, offsets)
    q_of = np.repeat(np.arange(n_q), np.diff(offsets))
    out[np.arange(len(values)) + q_of + 1] = c
    return out


def _refuse_mixed_gains(prep: Prepared, g: np.ndarray, name: str, why: str) -> None:
    if prep.ties == "average" and not prep.singleton_groups:
        require_order_free(prep, mixed_groups(prep, g), name, why)


# --------------------------------------------------------------------------- utility
A = Param("a", 1.0, _check_real, "worth of a relevant retrieved document")
B = Param("b", -1.0, _check_real, "worth of a non-relevant retrieved document")
C = Param("c", 0.0, _check_real, "worth of a relevant document not retrieved")
D = Param("d", 0.0, _check_real, "worth of a non-relevant document not retrieved")
COLLECTION = Param("collection_size", 0, _check_count,
                   "documents in the collection, for d (trec_eval's -N; 0 by default)")


def utility_prefix(cuts: Cuts, level, a=1.0, b=-1.0, c=0.0, d=0.0, collection_size=0):
    """utility at every cut-off of ``c`` (its prefix kernel)."""
    part = cuts.prep.judged_part()
    rel = cuts.running(part, part.relevant(level))
    n = cuts.n
    R = cuts.ranking(cuts.prep.num_relevant(level))
    return a * rel + b * (n - rel) + c * (R - rel) + d * (collection_size + rel - n - R)


@register("utility", params=(A, B, C, D, COLLECTION), citation=CITE + "m_utility.c.",
          undefined="Never undefined: the contingency counts always exist. R = 0 gives "
                    "b·n + d·(N − n) (every retrieved document is non-relevant); an empty "
                    "ranking scores c·R + d·(N − R).",
          ties="Order-free: no order of tied documents changes the value.",
          trec_eval=TrecName("utility", "floats", ("a", "b", "c", "d"), (1.0, -1.0, 0.0, 0.0)),
          prefix=utility_prefix)
def utility(prep: Prepared, level: float, a=1.0, b=-1.0, c=0.0, d=0.0,
            collection_size=0) -> np.ndarray:
    """Set utility, trec_eval's ``utility``: a·(relevant retrieved) + b·(non-relevant
    retrieved) + c·(relevant not retrieved) + d·(non-relevant not retrieved), with N =
    ``collection_size`` documents in the collection (trec_eval's -N).

    >>> from trunc_accessor.frontends.single import utility
    >>> utility([1, 0, 1, 0], R=3)  # 2 relevant, 2 not: 2 − 2
    0.0
    >>> utility([1, 0, 1, 0], R=3, a=2, b=-1, c=-0.5)
    1.5
    """
    rel = prep.seg_sum(prep.relevant(level))
    n = prep.length.astype(np.float64)
    R = prep.num_relevant(level)
    return a * rel + b * (n - rel) + c * (R - rel) + d * (collection_size + rel - n - R)


# --------------------------------------------------------------------------- binG
def _f_prefix(top: int) -> np.ndarray:
    """F[x] = Σ_{y<x} 1/log2(2 + y)."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.log2(2.0 + np.arange(top + 1)))])


def binary_g_prefix(c: Cuts, level):
    """binary_g at every cut-off of ``c`` (its prefix kernel)."""
    prep = c.prep
    rel = prep.relevant(level)
    if prep.singleton_groups:
        nonrel_above = before_row(prep, 1.0 - rel)
        term = np.where(rel > 0, 1.0 / np.log2(2.0 + nonrel_above), 0.0)
        total = c.running(prep, term)
    else:
        r_g = prep.group_sum(rel)
        u_g = prep.g_size - r_g
        nonrel_before = prep.before_group(u_g)
        F = _f_prefix(int(prep.length.max()) if prep.n_segments and len(prep.seg)
                                else 0)
        lo = nonrel_before.astype(np.int64)
        hi = (nonrel_before + u_g).astype(np.int64)
        total = c.running_groups(prep, r_g * ((F[hi + 1] - F[lo]) / (u_g + 1.0)))
    return safe_div(total, c.ranking(prep.num_relevant(level)))


@register("binary_g", aliases=("bing",), citation=CITE + "m_binG.c (experimental measure, "
          "2008).",
          undefined="Undefined when R = 0. An empty ranking with R > 0 scores 0.",
          ties=("Exact: a relevant document of a tie group with u non-relevant documents has "
                "0…u of them before it with equal probability, so its term is the mean of "
                "1/log2(2 + N + U) over U = 0…u (N the non-relevant documents before the "
                "group)."),
          trec_eval="binG", prefix=binary_g_prefix)
def binary_g(prep: Prepared, level: float) -> np.ndarray:
    """Binary G, trec_eval's ``binG``: (1/R) Σ over the relevant retrieved documents of
    1 / log2(2 + the non-relevant documents ranked above it).

    >>> from trunc_accessor.frontends.single import binary_g
    >>> round(binary_g([1, 0, 1], R=2), 6)  # (1/log2(2) + 1/log2(3)) / 2
    0.815465
    """
    rel = prep.relevant(level)
    if prep.singleton_groups:  # every position its own group: trec_eval's sum, in its order
        nonrel_above = before_row(prep, 1.0 - rel)
        keep = rel > 0
        total = np.bincount(prep.seg[keep], weights=1.0 / np.log2(2.0 + nonrel_above[keep]),
                            minlength=prep.n_segments)
        return safe_div(total, prep.num_relevant(level))
    r_g = prep.group_sum(rel)
    u_g = prep.g_size - r_g
    nonrel_before = prep.before_group(u_g)
    F = _f_prefix(int(prep.length.max()) if prep.n_segments and len(prep.seg) else 0)
    lo = nonrel_before.astype(np.int64)
    hi = (nonrel_before + u_g).astype(np.int64)
    mean_term = (F[hi + 1] - F[lo]) / (u_g + 1.0)
    total = np.bincount(prep.g_seg, weights=r_g * mean_term, minlength=prep.n_segments)
    return safe_div(total, prep.num_relevant(level))


# --------------------------------------------------------------------------- G
@register("normalized_g", params=(GAINS,), aliases=("g",), citation=CITE + "m_G.c "
          "(experimental measure, 2008).",
          undefined="Undefined when the query has no judged document with a positive gain "
                    "(no positive grade; the gains are the grades, whatever the relevance "
                    "level, so R = 0 at a level is defined while a positive grade exists). "
                    "An empty ranking of a query with a positive gain scores 0.",
          ties=("Refused when a tie group mixes gains: each term divides by a running sum of "
                "the gains before it, which has no closed-form mean over the orders of the "
                "tie; pass ties='first' or 'trec_eval'. Ties among documents of equal gain "
                "are accepted."),
          trec_eval=TrecName("G", "gains", "gains"))
def normalized_g(prep: Prepared, level: float, gains=None) -> np.ndarray:
    """Normalised gain, trec_eval's ``G``: Σ_i g_i / log2(2 + C_i − S_i), normalised by the
    ideal list's total gain, where S_i is the gain retrieved in the first i positions and
    C_i Σ_{j≤i} max(I_j, 1) the cost of the ideal list there (I_j its j-th gain, 0 past its
    end): the contribution of a document depends on how far the ranking lags the ideal.

    >>> from trunc_accessor.frontends.single import normalized_g
    >>> round(normalized_g([2, 0, 1]), 6)  # (2/log2(2) + 1/log2(2 + 4 − 3)) / 3
    0.876977
    """
    g = trec_gains(prep.grade, gains)
    _refuse_mixed_gains(prep, g, "normalized_g", "each term divides by a running sum")
    values, offsets = ideal(prep, gains)
    L = np.diff(offsets)[prep.seg_q]
    q_start = offsets[:-1][prep.seg_q]
    row_L = L[prep.seg]
    inside = prep.pos <= row_L
    I_j = np.zeros(len(prep.seg))
    I_j[inside] = values[(q_start[prep.seg] + prep.pos - 1)[inside]]
    cost = np.where(I_j >= 1.0, I_j, 1.0)
    S = seg_cumsum(prep, g)
    Ccum = seg_cumsum(prep, cost)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(g != 0, g / np.log2(2.0 + Ccum - S), 0.0)
    total_ideal = np.bincount(np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)),
                              weights=values, minlength=len(offsets) - 1)[prep.seg_q]
    return safe_div(prep.seg_sum(term), total_ideal)


# --------------------------------------------------------------------------- ndcg_rel
def _ideal_dcg_at(prep: Prepared, gains):
    """(cumulative ideal DCG per qid with a leading 0, offsets with one extra per qid, L)."""
    values, offsets = ideal(prep, gains)
    n_q = len(offsets) - 1
    q_of = np.repeat(np.arange(n_q), np.diff(offsets))
    j = np.arange(len(values)) - offsets[:-1][q_of] + 1
    cum = _ideal_cumsum(values, offsets, 1.0 / np.log2(j + 1.0))
    return cum, offsets[:-1] + np.arange(n_q), np.diff(offsets)


@register("ndcg_rel", params=(GAINS,), citation=CITE + "m_ndcg_rel.c (experimental measure).",
          undefined="Undefined when the query has no judged document with a positive gain "
                    "(the gains are the grades, so R = 0 at a level is defined while a "
                    "positive grade exists). An empty ranking of a query with a positive gain "
                    "scores 0.",
          ties=("Refused when a tie group mixes gains: the measure averages DCG/ideal DCG at "
                "the positions of the relevant documents, a product of the order inside the "
                "tie; pass ties='first' or 'trec_eval'. Ties among documents of equal gain "
                "are accepted."),
          trec_eval=TrecName("ndcg_rel", "gains", "gains"))
def ndcg_rel(prep: Prepared, level: float, gains=None) -> np.ndarray:
    """nDCG averaged over the relevant documents, trec_eval's ``ndcg_rel``: the mean, over
    the L documents of the ideal list, of DCG@i / ideal DCG@min(i, L) at the position i of
    each retrieved document with positive gain; each of those not retrieved counts
    DCG@n / ideal DCG@L (n the ranking's length).

    >>> from trunc_accessor.frontends.single import ndcg_rel
    >>> round(ndcg_rel([2, 0, 1]), 6)
    0.975117
    """
    g = trec_gains(prep.grade, gains)
    _refuse_mixed_gains(prep, g, "ndcg_rel", "it averages at the positions of relevant documents")
    cum, start, L_q = _ideal_dcg_at(prep, gains)
    L = L_q[prep.seg_q]
    dcg = seg_cumsum(prep, g / np.log2(prep.pos + 1.0))
    row_L = L[prep.seg]
    idcg = cum[start[prep.seg_q][prep.seg] + np.minimum(prep.pos, row_L)]
    pos_gain = (g > 0) & (row_L > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        at_rel = np.where(pos_gain, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
    total_dcg = prep.seg_sum(g / np.log2(prep.pos + 1.0))
    full = cum[start[prep.seg_q] + L]
    found = prep.seg_sum(pos_gain.astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = np.where(L > 0, (L - found) * total_dcg / np.where(full > 0, full, 1.0), 0.0)
    return safe_div(prep.seg_sum(at_rel) + rest, L.astype(np.float64))


# --------------------------------------------------------------------------- Rndcg
@register("rndcg", params=(GAINS,), citation=CITE + "m_Rndcg.c (experimental measure).",
          undefined="Undefined when R = 0 (no relevant document at the relevance level). "
                    "An empty ranking with R > 0 scores 0.",
          ties=("Exact: a mean of nDCG at cut-offs fixed by the qrels, linear in the gain at "
                "each position, so every gain is replaced by its tie group's mean (McSherry & "
                "Najork 2008)."),
          trec_eval=TrecName("Rndcg", "gains", "gains"))
def rndcg(prep: Prepared, level: float, gains=None) -> np.ndarray:
    """nDCG averaged at the R levels, trec_eval's ``Rndcg``: the mean of DCG@min(b − 1, n) /
    ideal DCG@(b − 1) over the positions b where the ideal list's gain changes (the end of
    each gain level, the end of the list included), plus DCG@n / ideal DCG@L when the
    ranking is at least two documents longer than the ideal list L (trec_eval's loop
    structure; n the ranking's length).

    >>> from trunc_accessor.frontends.single import rndcg
    >>> round(rndcg([2, 0, 1]), 6)
    0.880094
    """
    g = prep.group_mean(trec_gains(prep.grade, gains))
    dcg = seg_cumsum(prep, g / np.log2(prep.pos + 1.0))
    cum, start, L_q = _ideal_dcg_at(prep, gains)
    values, offsets = ideal(prep, gains)
    n_q = len(L_q)
    # boundaries b (1-based positions in the ideal list) where the gain changes: after the
    # last entry of every run of equal gains
    q_of = np.repeat(np.arange(n_q), L_q)
    last = np.ones(len(values), dtype=bool)
    last[:-1] = (values[1:] != values[:-1]) | (q_of[1:] != q_of[:-1])
    ends = np.flatnonzero(last)
    b_q = q_of[ends]
    b_minus_1 = ends - offsets[:-1][b_q] + 1  # the ideal length up to the change
    # per segment: evaluate at each boundary of its qid
    n = prep.length
    segs = np.arange(prep.n_segments)
    counts = np.bincount(b_q, minlength=n_q)[prep.seg_q]  # boundaries per segment
    s_idx = np.repeat(segs, counts)
    firsts = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(np.bincount(b_q, minlength=n_q), out=firsts[1:])
    within = np.arange(len(s_idx)) - np.repeat(np.cumsum(counts) - counts, counts)
    bi = firsts[prep.seg_q[s_idx]] + within
    cut = np.minimum(b_minus_1[bi], n[s_idx])
    dcg_at = _dcg_at(prep, dcg, s_idx, cut)
    idcg_at = cum[start[prep.seg_q[s_idx]] + b_minus_1[bi]]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(idcg_at > 0, dcg_at / np.where(idcg_at > 0, idcg_at, 1.0), 0.0)
    total = np.bincount(s_idx, weights=ratio, minlength=prep.n_segments)
    points = np.bincount(s_idx, weights=idcg_at > 0, minlength=prep.n_segments)
    L = L_q[prep.seg_q]
    extra = (n >= L + 2) & (L > 0)
    full = cum[start[prep.seg_q] + L]
    dcg_n = _dcg_at(prep, dcg, segs, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = total + np.where(extra, dcg_n / np.where(full > 0, full, 1.0), 0.0)
    points = points + extra
    value = safe_div(total, points)
    return np.where(prep.num_relevant(level) > 0, value, np.nan)


def _dcg_at(prep: Prepared, dcg_cum: np.ndarray, segs: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """DCG of rankings ``segs`` over their first ``cut`` positions (0: nothing)."""
    idx = prep.offsets[segs] + cut - 1
    return np.where(cut > 0, dcg_cum[np.maximum(idx, 0)] if len(dcg_cum) else 0.0, 0.0)
