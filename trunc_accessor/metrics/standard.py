"""Standard metrics: P, R, F1, AP, RR, DCG/nDCG, R-prec, bpref, success, RBP (+ residual).

Every kernel works on all rankings at once (see ``Prepared``)
and on tie groups: with ``ties="first"``/``"trec_eval"`` every group is a single position
and the formulas reduce to the usual ones; with ``ties="average"`` they give the exact mean
over every order of each tie group (McSherry & Najork, ECIR 2008), in closed form.

Notation (per ranking): position j (1-based), tie group i with t_i positions before it,
n_i documents and r_i relevant ones; R = number of judged documents with grade ≥
relevance_level; n = ranking length.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._combinatorics import comb_ratio, log_factorials
from trunc_accessor.metrics._kernels import discount, in_cut, rbp_tail, rbp_weights, safe_div
from trunc_accessor.metrics.dialects import CUTS, Spelling, TrecName
from trunc_accessor.metrics.params import (
    K,
    P,
    Param,
    check_bool,
    check_gains,
    check_positive_or_none,
    is_real,
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


def gain_values(grades: np.ndarray, gains, min_grade=None) -> np.ndarray:
    """Gain of each grade: the grade itself (trec_eval), 2^g − 1 for
    ``"exponential"``, or a mapping grade → gain (grades it does not name keep gain =
    grade, as trec_eval's ``ndcg.1=3,2=9``). Negative grades count as 0; unjudged
    documents (NaN) gain 0; so do grades below ``min_grade`` when it is given."""
    g = np.where(np.isnan(grades), -1.0, grades)
    base = np.maximum(g, 0.0)
    if gains is None:
        out = base
    elif gains == "exponential":
        out = np.exp2(base) - 1.0
    else:
        out = base.copy()
        for grade, gain in gains:
            out[g == grade] = gain
    if min_grade is not None:
        out[g < min_grade] = 0.0
    return np.where(np.isnan(grades), 0.0, out)


def dcg_values(prep: Prepared, k, gains, log_base: float = 2.0, min_grade=None) -> np.ndarray:
    """DCG@k = Σ_{j≤k} gain_j / log_b(1 + j), gains replaced by tie-group means."""
    part = prep.judged_part()
    g = part.group_mean(gain_values(part.grade, gains, min_grade))
    return part.seg_sum(g * discount(part.pos, log_base) * in_cut(part, k))


def ideal_dcg(prep: Prepared, k, gains, log_base: float = 2.0, min_grade=None) -> np.ndarray:
    """DCG@k of the ideal ranking: the qid's judged positive gains sorted descending."""
    qg = gain_values(prep.q_grades, gains, min_grade)
    q_seg = prep.q_seg
    order = np.lexsort((-qg, q_seg))
    sorted_g = qg[order]
    i = np.arange(len(qg)) - prep.q_offsets[q_seg] + 1
    w = discount(i, log_base) * (sorted_g > 0)
    if k is not None:
        w = w * (i <= k)
    per_qid = np.bincount(q_seg, weights=sorted_g * w, minlength=len(prep.q_offsets) - 1)
    return per_qid[prep.seg_q]


def check_dcg_gains(g):
    """nDCG/DCG gains: None or "linear" (gain = grade), "exponential" or its synonym "exp"
    (2^g − 1, Burges et al.), or a mapping grade → gain of finite numbers."""
    if isinstance(g, str) and g == "exp":
        return "exponential"
    if g is None or isinstance(g, (str, Mapping)):
        try:
            return check_gains(g)
        except ValueError as e:
            if isinstance(g, Mapping):
                raise
            raise ValueError(f"must be None or 'linear' (gain = grade), 'exponential' or 'exp' "
                             f"(2^g − 1), or a mapping grade → gain, not {g!r}") from e
    raise ValueError(f"must be None or 'linear' (gain = grade), 'exponential' or 'exp' "
                     f"(2^g − 1), or a mapping grade → gain, not {g!r}")


def check_log_base(b):
    """The base of the logarithm of the rank discount: a finite number > 1."""
    if not is_real(b) or not math.isfinite(b) or not b > 1:
        raise ValueError(f"must be a finite number > 1 (the discount is 1/log_b(1 + i)), "
                         f"not {b!r}")
    return float(b)


GAINS = Param("gains", None, check_dcg_gains,
              "None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 "
              "(Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain")
LOG_BASE = Param("log_base", 2.0, check_log_base,
                 "base b of the discount 1/log_b(1 + i) (scikit-learn's log_base); it cancels "
                 "in nDCG")
MIN_GRADE = Param("min_grade", None, check_positive_or_none,
                  "grades below it gain 0 (ranx's relevance level: ndcg@10-l2); None: every "
                  "positive grade gains, whatever relevance_level is (trec_eval)")
DCG_SOURCES = ("Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', "
               "ACM TOIS 20(4), 2002 (graded gains, log-based discount); Burges et al., "
               "'Learning to rank using gradient descent', ICML 2005 (gains 2^g − 1)")


def _dcg_prefix(c: Cuts, k, gains, log_base=2.0, min_grade=None) -> np.ndarray:
    """DCG at every cut-off of ``c`` (the prefix kernels of dcg and ndcg)."""
    part = c.prep.judged_part()
    g = part.group_mean(gain_values(part.grade, gains, min_grade))
    return c.running(part, g * discount(part.pos, log_base) * in_cut(part, k))


def dcg_prefix(c: Cuts, level, k=None, gains=None, log_base=2.0, min_grade=None):
    """dcg at every cut-off of ``c`` (its prefix kernel)."""
    return _dcg_prefix(c, k, gains, log_base, min_grade)


@register("dcg", params=(K, GAINS, LOG_BASE, MIN_GRADE),
          citation=MCSHERRY + ", §2.6 (tie-aware DCG); " + DCG_SOURCES + ".",
          undefined="Never undefined: 0 for an empty ranking, and 0 when no judged document "
                    "has a positive gain (e.g. R = 0).",
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it. (= "
                "scikit-learn's tie-averaged dcg_score)"),
          ranx=(Spelling("dcg_burges", {"gains": "exponential"}), "dcg"),
          trec_eval=TrecName("dcg", "gains", "gains"), prefix=dcg_prefix)
def dcg(prep: Prepared, level: float, k=None, gains=None, log_base=2.0,
        min_grade=None) -> np.ndarray:
    """Discounted cumulative gain, Σ_{j≤k} gain_j / log_b(1 + j) (b = ``log_base``, 2).

    Gains: by default the grade (trec_eval's convention; negative and unjudged: 0);
    ``gains="exponential"`` (or ``"exp"``) is 2^g − 1 (Burges et al. 2005; ranx's ``dcg_burges``).
    The discount 1/log_b(1 + j) is scikit-learn's ``dcg_score(log_base=b)``; a base b multiplies DCG
    by log2(b) (Järvelin & Kekäläinen's original form instead leaves ranks below b
    undiscounted and divides by log_b(j) from rank b on). Tie-aware: each position of a tie
    group gets the group's mean gain (McSherry & Najork §2.6), which is scikit-learn's
    ``dcg_score(ignore_ties=False)``.

    >>> from trunc_accessor.frontends.single import dcg
    >>> round(dcg([3, 2, 0, 1]), 4), round(dcg([3, 2, 0, 1], gains="exp", log_base=10), 4)
    (4.6925, 30.9719)
    """
    return dcg_values(prep, k, gains, log_base, min_grade)


def ndcg_prefix(c: Cuts, level, k=None, gains=None, log_base=2.0, min_grade=None):
    """ndcg at every cut-off of ``c`` (its prefix kernel)."""
    ideal = ideal_dcg(c.prep, k, gains, log_base, min_grade)
    return safe_div(_dcg_prefix(c, k, gains, log_base, min_grade), c.ranking(ideal))


@register("ndcg", params=(K, GAINS, LOG_BASE, MIN_GRADE), aliases=("ndcg_cut",),
          citation=MCSHERRY + ", §2.6; " + DCG_SOURCES + ".",
          undefined="Undefined when the ideal DCG is 0 (no judged document with positive "
                    "gain, e.g. R = 0). "
                    "An empty ranking with R > 0 scores 0.",
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it."),
          ir_measures=("nDCG", "NDCG"),
          ranx=(Spelling("ndcg_burges", {"gains": "exponential"}), "ndcg"),
          trec_eval=(TrecName("ndcg", "gains", "gains"),
                     TrecName("ndcg_cut", "cutoffs", "k", CUTS)), prefix=ndcg_prefix)
def ndcg(prep: Prepared, level: float, k=None, gains=None, log_base=2.0,
         min_grade=None) -> np.ndarray:
    """Normalised DCG: DCG@k divided by the DCG@k of the ideal ranking of the qid's judged
    documents (trec_eval ``ndcg``, ``ndcg_cut_k``; gains default to the grade and do not
    depend on relevance_level, as in trec_eval; ``min_grade=N`` gives grades below N no
    gain, as ranx's ``ndcg@k-lN``).

    ``gains="exponential"`` (or ``"exp"``): 2^g − 1, ranx's ``ndcg_burges`` (Burges et al.
    2005). ``log_base`` scales the DCG of the ranking and of the ideal ranking alike, so it
    cancels (values equal to rounding); it is accepted for scikit-learn's ``ndcg_score``
    spelling.

    >>> from trunc_accessor.frontends.single import ndcg
    >>> round(ndcg([3, 2, 0, 1]), 4), round(ndcg([3, 2, 0, 1], gains="exp"), 4)
    (0.9854, 0.9926)
    """
    return safe_div(dcg_values(prep, k, gains, log_base, min_grade),
                     ideal_dcg(prep, k, gains, log_base, min_grade))


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


RBP_GRADED = Param("graded", False, check_bool,
                   "False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade")
MAX_GRADE = Param("max_grade", None, check_positive_or_none,
                  "the top of the grade scale for graded=True; default: the largest grade in "
                  "the qrels")
RBP_CITE = ("Moffat & Zobel, 'Rank-biased precision for measurement of retrieval "
            "effectiveness', ACM TOIS 27(1), 2008; tie-aware by group-mean gains "
            "(McSherry & Najork 2008).")


def rbp_gain(prep: Prepared, level: float, graded: bool, max_grade) -> np.ndarray:
    if not graded:
        return prep.relevant(level)
    top = max_grade if max_grade is not None else prep.max_grade
    return prep.gain() / top if top > 0 else np.zeros_like(prep.gain())


def rbp_prefix(c: Cuts, level, p=0.8, graded=False, max_grade=None):
    """rbp at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    gain = part.group_mean(rbp_gain(part, level, graded, max_grade))
    return (1.0 - p) * c.running(part, gain * rbp_weights(part, p))


@register("rbp", params=(P, RBP_GRADED, MAX_GRADE), citation=RBP_CITE,
          undefined="Never undefined: 0 for an empty ranking and when R = 0.",
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it."),
          ir_measures="RBP", prefix=rbp_prefix)
def rbp(prep: Prepared, level: float, p=0.8, graded=False, max_grade=None) -> np.ndarray:
    """Rank-biased precision, (1 − p) Σ_j gain_j · p^(j−1).

    Binary gain by default; ``graded=True``: grade / max_grade. trec_eval's
    ``rbp`` uses p = 0.9 and, for graded qrels, min–max-normalised grades. The weight of
    what is not known is ``rbp_residual``.

    >>> from trunc_accessor.frontends.single import rbp
    >>> rbp([1, 0, 1], p=0.5)  # 0.5 · (1 + 0.25)
    0.625
    """
    part = prep.judged_part()
    gain = part.group_mean(rbp_gain(part, level, graded, max_grade))
    return (1.0 - p) * part.seg_sum(gain * rbp_weights(part, p))


@register("trectools_rbp", params=(P,), citation=RBP_CITE + " trectools' TrecEval.get_rbp.",
          undefined="Never undefined: 0 for an empty ranking, when R = 0 and when no "
                    "retrieved document has a grade above 0.",
          ties=("Exact: every weight p^(j−1) is replaced by its tie group's mean weight, as "
                "trectools' average_ties does (the same as group-mean gains)."))
def trectools_rbp(prep: Prepared, level: float, p=0.8) -> np.ndarray:
    """RBP with the grades themselves as gains, (1 − p) Σ_j max(grade_j, 0) · p^(j−1): the
    reading of trectools (``TrecEval.get_rbp(binary_topical_relevance=False)``), which is
    ir_measures' ``RBP`` without ``rel=`` (its only provider of it is trectools). Not
    bounded by 1: a grade of 4 gains 4. ``relevance_level`` plays no part. The library's
    ``rbp(graded=True)`` divides each grade by the largest grade of the qrels instead.

    >>> from trunc_accessor.frontends.single import trectools_rbp
    >>> trectools_rbp([2, 0, 1], p=0.5)  # 0.5 · (2 + 0.25 · 1)
    1.125
    """
    part = prep.judged_part()
    gain = part.group_mean(part.gain())
    return (1.0 - p) * part.seg_sum(gain * rbp_weights(part, p))


def rbp_residual_prefix(c: Cuts, level, p=0.8):
    """rbp_residual at every cut-off of ``c`` (its prefix kernel)."""
    part, weight, end = residual_parts(c.prep, p)
    known = c.running_groups(part, weight)
    last = c.at(part, end, groups=True, empty=0).astype(np.int64)
    return np.power(p, c.n) + (known + rbp_band(p, last, c.depth - last))


@register("rbp_residual", params=(P,), aliases=("rbp_resid",), citation=RBP_CITE,
          undefined="Never undefined: 1 for an empty ranking (all weight unknown); R = 0 "
                    "changes nothing (only unjudged documents count).",
          ties=("Exact: the unjudged indicator is replaced by its group's mean."),
          prefix=rbp_residual_prefix)
def rbp_residual(prep: Prepared, level: float, p=0.8) -> np.ndarray:
    """RBP residual: the largest amount RBP could still rise, p^n + (1 − p) Σ_{unjudged j}
    p^(j−1), i.e. the weight of the unjudged documents (not in the qrels, or a negative
    grade: "judged, unknown") and of the unseen tail beyond rank n (Moffat & Zobel §4).

    trec_eval's ``rbp_resid`` uses p = 0.9 and reports 0 for a ranking without unjudged
    documents (the tail p^n is then left out); we always include it. Tie-aware by the
    group-mean of the unjudged indicator. Computed from the tie groups that hold a judged
    document only: the positions between them are all unjudged, and a band of positions
    i + 1 … i + L weighs p^i (1 − p^L) in closed form.

    >>> from trunc_accessor.frontends.single import rbp_residual
    >>> rbp_residual([1, None, 0], p=0.5)  # 0.5^3 + 0.5 · 0.5
    0.375
    """
    part, weight, end = residual_parts(prep, p)
    known = np.bincount(part.g_seg, weights=weight, minlength=prep.n_segments)
    last = np.zeros(prep.n_segments, dtype=np.int64)  # the end of the last judged group
    if part.n_groups:
        final = np.flatnonzero(np.r_[part.g_seg[1:] != part.g_seg[:-1], True])
        last[part.g_seg[final]] = end[final]
    return rbp_tail(prep, p) + (known + rbp_band(p, last, prep.length - last))


def rbp_band(p: float, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """(1 − p) Σ_{start < j ≤ start + length} p^(j−1) = p^start (1 − p^length): RBP's weight
    of a band of positions, in closed form (no cancellation: 1 − p^length by expm1)."""
    start = np.asarray(start, dtype=np.float64)
    length = np.asarray(length, dtype=np.float64)
    return np.power(p, start) * -np.expm1(length * math.log(p))


def residual_parts(prep: Prepared, p: float) -> tuple[Prepared, np.ndarray, np.ndarray]:
    """The residual's weight, tie group by tie group, visiting only the groups that hold a
    judged document (the judged part of ``prep``): for each such group g, the weight of
    the positions after the previous one of its ranking up to g's start (their documents
    are all unjudged) plus g's own mean unjudged weight, (u/m)·p^t(1 − p^m) (u of its m
    documents unjudged, t positions before it). Returns (the part, that weight, g's end
    t + m); the positions after a ranking's last judged group add
    ``rbp_band`` from its end to n."""
    part = prep.judged_part()
    with np.errstate(invalid="ignore"):
        unknown = (~(part.grade >= 0)).astype(np.float64)  # unjudged or a negative grade
    size = part.g_size
    u = unknown if part.singleton_groups else part.group_sum(unknown)
    start = part.g_start
    end = start + size
    prev = np.zeros(part.n_groups, dtype=np.int64)
    if part.n_groups:
        prev[1:] = end[:-1]
        prev[np.flatnonzero(part.g_seg[1:] != part.g_seg[:-1]) + 1] = 0
    own = u / size * rbp_band(p, start, size)
    return part, rbp_band(p, prev, start - prev) + own, end
