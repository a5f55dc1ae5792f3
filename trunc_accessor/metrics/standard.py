"""Standard metrics: P, R, F1, success, AP, RR, R-prec, bpref (DCG/nDCG: ``dcg``; RBP:
``rbp``).

Every kernel works on all rankings at once (see ``Prepared``)
and on tie groups: with ``ties="first"``/``"trec_eval"`` every group is a single position
and the formulas reduce to the usual ones; with ``ties="average"`` they give the exact mean
over every order of each tie group (McSherry & Najork, ECIR 2008), in closed form.

Notation (per ranking): position j (1-based), tie group i with t_i positions before it,
n_i documents and r_i relevant ones; R = number of judged documents with grade ≥
relevance_level; n = ranking length.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._combinatorics import comb_ratio, log_factorials
from trunc_accessor.metrics._kernels import in_cut, safe_div
from trunc_accessor.metrics.dialects import CUTS, TrecName
from trunc_accessor.metrics.params import (
    K,
)
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register

MCSHERRY = ("McSherry & Najork, 'Computing IR performance measures efficiently in the "
            "presence of tied scores', ECIR 2008")
UNDEF_R0 = "Undefined when R = 0. An empty ranking with R > 0 scores 0."


def relevant_retrieved(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Expected number of relevant documents in the first k positions (McSherry & Najork
    §2.1: R_c + (k − t_c)·r_c/n_c), the numerator shared by P@k, R@k and F1@k."""
    part = prep.judged_part()
    return part.seg_sum(part.group_mean(part.relevant(level)) * in_cut(part, k))


def precision_prefix(c: Cuts, level, k=None):
    """precision at every cut-off of ``c`` (its prefix kernel)."""
    num = c.relevant_retrieved(level, k)
    return safe_div(num, c.n) if k is None else num / k


@register("precision", params=(K,), aliases=("p", "prec"), citation=MCSHERRY + ", §2.1.",
          undefined="With k=None: undefined for an empty ranking (0/0). With k: never undefined "
                    "(0 for an empty ranking). R = 0 gives 0 (nothing can be relevant).",
          ties=("Exact (McSherry & Najork 2008, §2.1): a tie group cut by the cut-off k "
                "contributes (k − t)·r/n relevant documents (t positions before the group, n "
                "documents in it, r relevant)."),
          ir_measures=("P", "Precision"), ranx="precision",
          trec_eval=TrecName("P", "cutoffs", "k", CUTS), prefix=precision_prefix)
def precision(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Precision: relevant documents in the first k positions, divided by k.

    P@k = (1/k) Σ_{j≤k} rel_j (trec_eval ``P_k``: a ranking shorter than k still divides
    by k). ``k=None``: the set precision of the whole ranking, rel_ret / n (``set_P``).
    Tie-aware: the cut group contributes (k − t_c)·r_c/n_c (McSherry & Najork §2.1).

    >>> from trunc_accessor.frontends.single import precision
    >>> precision([1, 0, 1, 0], k=2)
    0.5
    """
    num = relevant_retrieved(prep, level, k)
    if k is None:
        return safe_div(num, prep.length.astype(np.float64))
    return num / k


def recall_prefix(c: Cuts, level, k=None):
    """recall at every cut-off of ``c`` (its prefix kernel)."""
    return safe_div(c.relevant_retrieved(level, k), c.ranking(c.prep.num_relevant(level)))


@register("recall", params=(K,), aliases=("r",), citation=MCSHERRY + ", §2.2.", undefined=UNDEF_R0,
          ties=("Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n "
                "of its documents (t positions before the group, n documents in it)."),
          ir_measures=("R", "Recall"), ranx="recall",
          trec_eval=TrecName("recall", "cutoffs", "k", CUTS), prefix=recall_prefix)
def recall(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Recall: relevant documents in the first k positions, divided by R.

    R@k = (1/R) Σ_{j≤k} rel_j (trec_eval ``recall_k``; ``k=None``: ``set_recall``).
    Tie-aware as precision (McSherry & Najork §2.2).

    >>> from trunc_accessor.frontends.single import recall
    >>> recall([1, 0, 1, 0], k=2, R=4)
    0.25
    """
    return safe_div(relevant_retrieved(prep, level, k), prep.num_relevant(level))


def f1_prefix(c: Cuts, level, k=None):
    """f1 at every cut-off of ``c`` (its prefix kernel)."""
    num = 2.0 * c.relevant_retrieved(level, k)
    den = (c.depth if k is None else np.full(len(c), k)) + c.ranking(c.prep.num_relevant(level))
    return safe_div(num, den.astype(np.float64))


@register("f1", params=(K,), citation=MCSHERRY + ", §2.3.",
          undefined="With k=None: undefined when the ranking is empty and R = 0 (0/0). "
                    "R = 0 otherwise gives 0.",
          ties=("Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n "
                "of its documents (t positions before the group, n documents in it)."),
          ranx="f1", prefix=f1_prefix)
def f1(prep: Prepared, level: float, k=None) -> np.ndarray:
    """F1: harmonic mean of precision and recall, 2·rel_ret / (k + R).

    McSherry & Najork §2.3's form, defined when R = 0. ``k=None``: the whole ranking,
    2·rel_ret / (n + R), which is trec_eval's ``set_F`` (β = 1).

    >>> from trunc_accessor.frontends.single import f1
    >>> round(f1([1, 0, 1, 0], k=2, R=4), 4)
    0.3333
    """
    num = 2.0 * relevant_retrieved(prep, level, k)
    den = (prep.length if k is None else np.full(prep.n_segments, k)) + prep.num_relevant(level)
    return safe_div(num, den.astype(np.float64))


def success_prefix(c: Cuts, level, k=None):
    """success at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    r_g = part.group_sum(part.relevant(level))
    if k is None:
        return (c.running_groups(part, r_g > 0) > 0).astype(float)
    end = part.g_start + part.g_size
    full = end <= k
    hit_full = c.running_groups(part, full & (r_g > 0)) > 0
    cut = np.flatnonzero((part.g_start < k) & ~full)  # at most one group per ranking
    p_hit = np.zeros(part.n_groups)
    if cut.size:
        n, r = part.g_size[cut], r_g[cut].astype(np.int64)
        s = k - part.g_start[cut]
        p_hit[cut] = 1.0 - comb_ratio(n - r, s, n, s, log_factorials(int(n.max())))
    return np.where(hit_full, 1.0, c.running_groups(part, p_hit))


@register("success", params=(K,), aliases=("s", "success_at"),
          citation=MCSHERRY + " (the hypergeometric form is ours, derived as in §2.5).",
          undefined="Never undefined: 0 for an empty ranking and when R = 0.",
          ties=("Exact: a group of n documents holding r relevant ones, s of whose positions lie "
                "within the cut-off, shows one of them with probability 1 − C(n − r, s)/C(n, s)."),
          ir_measures="Success", ranx="hit_rate",
          trec_eval=TrecName("success", "cutoffs", "k", (1, 5, 10)), prefix=success_prefix)
def success(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Success: 1 if a relevant document is in the first k positions, else 0.

    trec_eval ``success_k``; ``k=None``: any relevant document retrieved. Tie-aware: with
    the cut inside tie group c (s = k − t_c slots of n_c, r_c relevant) and no relevant
    document before it, the mean over orders is 1 − C(n_c − r_c, s) / C(n_c, s)
    (hypergeometric: the chance that the s slots hold only non-relevant documents).

    >>> from trunc_accessor.frontends.single import success
    >>> success([0, 1, 1], scores=[2, 1, 1], k=2)  # 1 of the 2 tied docs is at rank 2
    1.0
    >>> success([0, 1, 0], scores=[2, 1, 1], k=2)
    0.5
    """
    prep = prep.judged_part()
    r_g = prep.group_sum(prep.relevant(level))
    if k is None:
        return (np.bincount(prep.g_seg, weights=r_g, minlength=prep.n_segments) > 0).astype(float)
    end = prep.g_start + prep.g_size
    full = end <= k
    hit_full = np.bincount(prep.g_seg, weights=(full & (r_g > 0)).astype(float),
                           minlength=prep.n_segments) > 0
    cut = (prep.g_start < k) & ~full
    p_hit = np.zeros(prep.n_segments)
    if cut.any():
        n, r = prep.g_size[cut], r_g[cut].astype(np.int64)
        s = k - prep.g_start[cut]
        lf = log_factorials(int(n.max()))
        p_hit[prep.g_seg[cut]] = 1.0 - comb_ratio(n - r, s, n, s, lf)
    return np.where(hit_full, 1.0, p_hit)


def ap_prefix(c: Cuts, level, k=None):
    """ap at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    terms = precision_terms(part, part.relevant(level)) * in_cut(part, k)
    return safe_div(c.running(part, terms), c.ranking(c.prep.num_relevant(level)))


@register("ap", params=(K,), aliases=("map", "average_precision", "map_cut"),
          citation=MCSHERRY + ", §2.4.", undefined=UNDEF_R0,
          ties=("Exact, closed form of McSherry & Najork 2008, §2.4: position j of tie group i "
                "contributes (r_i/n_i)·(R_i + (j − t_i − 1)(r_i − 1)/(n_i − 1) + 1)/j, R_i the "
                "relevant documents before the group."),
          ir_measures=("AP", "MAP"), ranx="map",
          trec_eval=("map", TrecName("gm_map", summary="gmean"),
                     TrecName("map_cut", "cutoffs", "k", CUTS)), prefix=ap_prefix)
def ap(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Average precision: the mean over the R relevant documents of the precision at their
    positions, retrieved ones within the first k only (trec_eval ``map``, ``map_cut_k``).

    AP@k = (1/R) Σ_{j≤k} rel_j · P@j. Tie-aware (McSherry & Najork §2.4): position j of
    group i contributes (r_i/n_i)·(R_i + (j − t_i − 1)(r_i − 1)/(n_i − 1) + 1)/j, R_i the
    relevant documents before the group.

    >>> from trunc_accessor.frontends.single import ap
    >>> round(ap([1, 0, 1, 0], R=3), 4)  # (1/1 + 2/3) / 3
    0.5556
    """
    part = prep.judged_part()
    num = precision_sum(part, part.relevant(level), k)
    return safe_div(num, prep.num_relevant(level))


def precision_sum(prep: Prepared, gains: np.ndarray, k=None) -> np.ndarray:
    """Σ_{j≤k} g_j · (Σ_{l≤j} g_l) / j, AP's numerator, as its mean over tie orders: the
    sum of ``precision_terms`` over the first k positions."""
    return prep.seg_sum(precision_terms(prep, gains) * in_cut(prep, k))


def precision_terms(prep: Prepared, gains: np.ndarray) -> np.ndarray:
    """Per row (position j), the mean over tie orders of g_j · (Σ_{l≤j} g_l) / j.

    For position j of a tie group with m documents, t positions before it, gains summing to
    G (Σg² = S2) and B gain in earlier groups, a uniform order gives
    E[g_j] = G/m, E[g_j²] = S2/m and E[g_j g_l] = (G² − S2)/(m(m − 1)) for l ≠ j, so the term
    is (B·G/m + (j − t − 1)(G² − S2)/(m(m − 1)) + S2/m) / j. With binary gains this is
    McSherry & Najork's §2.4 form (G = S2 = r_i). Without ties (every group one position)
    it is g_j · (cumulative gain up to j) / j."""
    j = prep.pos.astype(np.float64)
    if prep.singleton_groups:
        cum = prep.before_group(gains) + gains
        return gains * cum / j
    g_sum = prep.group_sum(gains)
    g_sq = prep.group_sum(gains * gains)
    before = prep.before_group(g_sum)
    gi = prep.gid
    G, S2 = g_sum[gi], g_sq[gi]
    m = prep.g_size[gi].astype(np.float64)
    t = prep.g_start[gi]
    with np.errstate(invalid="ignore", divide="ignore"):
        pairs = np.where(m > 1, (j - t - 1) * (G * G - S2) / (m * np.maximum(m - 1, 1)), 0.0)
    return (before[gi] * G / m + pairs + S2 / m) / j


def rr_prefix(c: Cuts, level, k=None):
    """rr at every cut-off of ``c`` (its prefix kernel)."""
    # a prefix holds the first group with a relevant document whole, or none of it
    return np.where(c.any_relevant(level), c.ranking(rr(c.prep, level, k)), 0.0)


@register("rr", params=(K,), aliases=("mrr", "recip_rank", "reciprocal_rank"),
          citation=MCSHERRY + ", §2.5.",
          undefined="Never undefined: 0 when no relevant document is retrieved (also R = 0 "
                    "and the empty ranking), as trec_eval.",
          ties=("Exact (McSherry & Najork 2008, §2.5): the first relevant document of a group of n"
                " documents holding r relevant ones sits at offset x with probability C(n − x, r −"
                " 1)/C(n, r)."),
          ir_measures=("RR", "MRR"), ranx="mrr", trec_eval="recip_rank", prefix=rr_prefix)
def rr(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Reciprocal rank of the first relevant document within the first k, else 0
    (trec_eval ``recip_rank``).

    Tie-aware (McSherry & Najork §2.5): if the first group holding relevant documents has
    n documents, r relevant, and starts after t positions, the first relevant one is at
    offset x with probability C(n − x, r − 1)/C(n, r); RR = Σ_x that / (t + x), x ≤ k − t.

    >>> from trunc_accessor.frontends.single import rr
    >>> rr([0, 0, 1])
    0.3333333333333333
    >>> rr([0, 1], scores=[1, 1])  # rank 1 or 2, each half the time
    0.75
    """
    prep = prep.judged_part()
    r_g = prep.group_sum(prep.relevant(level))
    has = np.flatnonzero(r_g > 0)
    out = np.zeros(prep.n_segments)
    if has.size == 0:
        return out
    segs = prep.g_seg[has]
    first = has[np.r_[True, segs[1:] != segs[:-1]]]
    is_first = np.zeros(prep.n_groups, dtype=bool)
    is_first[first] = True
    mask = is_first[prep.gid]
    if k is not None:
        mask &= prep.pos <= k
    rows = np.flatnonzero(mask)
    if rows.size == 0:
        return out
    gi = prep.gid[rows]
    n, r = prep.g_size[gi], r_g[gi].astype(np.int64)
    x = prep.pos[rows] - prep.g_start[gi]
    lf = log_factorials(int(n.max()))
    p_first_at_x = comb_ratio(n - x, r - 1, n, r, lf)
    return np.bincount(prep.seg[rows], weights=p_first_at_x / prep.pos[rows],
                       minlength=prep.n_segments)


def rprec_prefix(c: Cuts, level):
    """rprec at every cut-off of ``c`` (its prefix kernel)."""
    R = c.prep.num_relevant(level)
    part = c.prep.judged_part()
    inside = (part.pos <= R[part.seg]).astype(np.float64)
    num = c.running(part, part.group_mean(part.relevant(level)) * inside)
    return safe_div(num, c.ranking(R))


@register("rprec", aliases=("r-prec", "r_prec", "r_precision"),
          citation=MCSHERRY + " (R-prec is P@R; tie-aware through §2.1).", undefined=UNDEF_R0,
          ties=("Exact: precision at k = R, tie-aware as precision@k."),
          ir_measures=("Rprec", "RPrec"), ranx="r-precision", trec_eval="Rprec",
          prefix=rprec_prefix)
def rprec(prep: Prepared, level: float) -> np.ndarray:
    """R-precision: precision at rank R, the qid's number of relevant documents
    (trec_eval ``Rprec``). Tie-aware as P@k with k = R.

    >>> from trunc_accessor.frontends.single import rprec
    >>> rprec([1, 0, 1, 1], R=3)
    0.6666666666666666
    """
    R = prep.num_relevant(level)
    part = prep.judged_part()
    in_cut = (part.pos <= R[part.seg]).astype(np.float64)
    num = part.seg_sum(part.group_mean(part.relevant(level)) * in_cut)
    return safe_div(num, R)


def _sum_min(a: np.ndarray, u: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Σ_{y=0}^{u} min(a + y, c), elementwise, for integers a, u ≥ 0 and c ≥ 0."""
    m = np.clip(c - a, 0, u)
    below = (m + 1) * a + m * (m + 1) / 2.0
    return np.where(a >= c, (u + 1) * c, below + (u - m) * c)


def bpref_prefix(c: Cuts, level):
    """bpref at every cut-off of ``c`` (its prefix kernel)."""
    part, terms = bpref_terms(c.prep, level)
    return safe_div(c.running_groups(part, terms), c.ranking(c.prep.num_relevant(level)))


@register("bpref", citation="Buckley & Voorhees, 'Retrieval evaluation with incomplete "
          "information', SIGIR 2004 (trec_eval's form); tie-aware form derived here.",
          undefined=UNDEF_R0,
          ties=("Exact: the number of judged non-relevant documents of its own group ahead of a "
                "relevant document is uniform on 0..u (u judged non-relevant in the group); the "
                "mean of min(N_d, R) has a closed form."),
          ir_measures=("Bpref", "BPref"), ranx="bpref",
          trec_eval=("bpref", TrecName("gm_bpref", summary="gmean")), prefix=bpref_prefix)
def bpref(prep: Prepared, level: float) -> np.ndarray:
    """Binary preference: (1/R) Σ_{relevant retrieved d} (1 − min(N_d, R) / min(R, N)),
    N_d the judged non-relevant documents ranked above d, N those in the qrels
    (trec_eval ``bpref``; unjudged documents and negative grades are skipped, as there).

    Tie-aware: for a relevant document in a group holding u judged non-relevant ones,
    the number of those ranked above it is uniform on 0..u (its place among them is), so
    its expected term is 1 − (1/(u + 1)) Σ_{y=0}^{u} min(A + y, R) / min(R, N), A the judged
    non-relevant documents of earlier groups.

    >>> from trunc_accessor.frontends.single import bpref
    >>> bpref([1, 0, 1], qrels_grades=[1, 0, 1, 0])  # (1 + (1 − 1/2)) / 2
    0.75
    """
    part, terms = bpref_terms(prep, level)
    total = np.bincount(part.g_seg, weights=terms, minlength=prep.n_segments)
    return safe_div(total, prep.num_relevant(level))


def bpref_terms(prep: Prepared, level: float) -> tuple[Prepared, np.ndarray]:
    """bpref's numerator per tie group of the judged part of ``prep`` (unjudged documents
    are skipped: their groups add nothing): (that part, r_g · the mean term of a relevant
    document of group g)."""
    R = prep.num_relevant(level)
    prep = prep.judged_part()
    rel = prep.relevant(level)
    with np.errstate(invalid="ignore"):
        nonrel = ((prep.grade >= 0) & (prep.grade < level)).astype(np.float64)
        q_nonrel = ((prep.q_grades >= 0) & (prep.q_grades < level)).astype(np.float64)
    N = prep.qid_sum(q_nonrel)
    r_g = prep.group_sum(rel)
    u_g = prep.group_sum(nonrel)
    a_g = prep.before_group(u_g)
    c = np.minimum(R, N)[prep.g_seg]
    cap = R[prep.g_seg]
    mean_min = _sum_min(a_g, u_g, cap) / (u_g + 1)
    term = np.where(c > 0, 1.0 - mean_min / np.where(c > 0, c, 1), 1.0)
    return prep, r_g * term
