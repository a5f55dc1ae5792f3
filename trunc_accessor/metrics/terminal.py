"""Terminal-document metrics: RR', RBP', NDCG', AP' (Liu, Moffat, Baldwin & Zhang,
'Quit while ahead: evaluating truncated rankings', SIGIR 2016).

A ranking of length n is extended by a terminal document at position n + 1 whose gain is

    r_t = 1 if R = 0, else (Σ_{i≤n} r_i) / R                         (Liu eq. 1)

R being the query's total gain pool (Liu et al. 2016, eq. 1). The length of the ranking is the
system's decision, so these metrics are defined for every ranking, the empty one and nil-answer
queries (R = 0) included. ``depth=D``: a ranking with n ≥ D reached the maximum length
allowed and is scored by the unmodified metric (Liu Table 2, third row); for R = 0 that
unmodified value is taken as 0 (nothing relevant could be found, and the system did not
decline to answer), so the family stays defined everywhere.

Ties: r_t does not depend on the order, so each metric is its tie-aware standard part plus
an order-free terminal term (McSherry & Najork 2008).
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import discount, rbp_tail, rbp_weights
from trunc_accessor.metrics._order import descending_within, restarting_cumsum
from trunc_accessor.metrics.params import P, Param, check_k
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.rbp import MAX_GRADE, RBP_GRADED
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.standard import (
    precision_sum,
    precision_terms,
    rr,
    rr_prefix,
)

LIU = ("Liu, Moffat, Baldwin & Zhang, 'Quit while ahead: evaluating truncated rankings', "
       "SIGIR 2016")
DEFINED = ("Never undefined: defined for the empty ranking and for nil-answer queries (R = 0), "
           "where r_t = 1 rewards answering nothing.")
DEPTH = Param("depth", None, check_k,
              "maximum ranking length allowed: a ranking with n ≥ depth is not truncated and "
              "is scored by the unmodified metric (Liu Table 2); None: every ranking is truncated")


def _scale(prep: Prepared, max_grade):
    return max_grade if max_grade is not None else prep.max_grade


def judged_gains(prep: Prepared, level: float, graded: bool, max_grade) -> np.ndarray:
    """Gain of each judged document of each qid (aligned with ``prep.q_grades``)."""
    if not graded:
        return (prep.q_grades >= level).astype(np.float64)
    top = _scale(prep, max_grade)
    return np.maximum(prep.q_grades, 0.0) / top if top > 0 else np.zeros(len(prep.q_grades))


def gains_and_pool(prep: Prepared, level: float, graded: bool = False, max_grade=None):
    """Per-row gains r_i and per-ranking total gain pool R: binary (grade ≥ level)
    by default; ``graded``: grade / max_grade (default: the largest grade in the qrels)."""
    if not graded:
        return prep.relevant(level), prep.num_relevant(level)
    top = _scale(prep, max_grade)
    rows = prep.gain() / top if top > 0 else np.zeros(len(prep.seg))
    return rows, prep.qid_sum(judged_gains(prep, level, graded, max_grade))


def terminal_gain(gain_retrieved: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """r_t of Liu eq. (1) from the gain retrieved and the gain pool of each ranking."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pool > 0, gain_retrieved / np.where(pool > 0, pool, 1.0), 1.0)


def not_truncated(prep: Prepared, depth) -> np.ndarray:
    """Rankings that reached ``depth`` (Liu Table 2, third row)."""
    if depth is None:
        return np.zeros(prep.n_segments, dtype=bool)
    return prep.length >= depth


def rr_prime_prefix(c: Cuts, level, depth=None):
    """rr_prime at every cut-off of ``c`` (its prefix kernel)."""
    hit = c.any_relevant(level)
    r_t = terminal_gain(np.zeros(len(c)), c.ranking(c.prep.num_relevant(level)))
    tail = np.where(hit | c.reached(depth), 0.0, r_t / (c.n + 1.0))
    return rr_prefix(c, level) + tail


@register("rr_prime", params=(DEPTH,), aliases=("rr'",), citation=LIU + ", §2.",
          undefined=DEFINED,
          ties=("Exact: tie-aware RR (McSherry & Najork §2.5) plus the terminal term r_t/(n + 1), "
                "which no order changes."), prefix=rr_prime_prefix)
def rr_prime(prep: Prepared, level: float, depth=None) -> np.ndarray:
    """RR': reciprocal rank of the ranking extended by the terminal document.

    If a relevant document is retrieved, RR' = RR; otherwise the terminal document at rank
    n + 1 has gain r_t (1 if R = 0, else 0), so RR' = r_t / (n + 1). Binary relevance.
    Liu Table 1: "00" with R = 0 gives 1/3.

    >>> from trunc_accessor.frontends.single import rr_prime
    >>> round(rr_prime([0, 0], R=0), 3), rr_prime([0, 1, 1], R=3)
    (0.333, 0.5)
    """
    rel = prep.relevant(level)
    hit = prep.seg_sum(rel) > 0
    r_t = terminal_gain(np.zeros(prep.n_segments), prep.num_relevant(level))
    tail = np.where(hit | not_truncated(prep, depth), 0.0, r_t / (prep.length + 1.0))
    return rr(prep, level) + tail


def rbp_prime_prefix(c: Cuts, level, p=0.8, graded=False, max_grade=None, depth=None):
    """rbp_prime at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()  # unjudged documents gain nothing
    g, pool = gains_and_pool(part, level, graded, max_grade)
    head = (1.0 - p) * c.running(part, part.group_mean(g) * rbp_weights(part, p))
    r_t = terminal_gain(c.running(part, g), c.ranking(pool))
    tail = r_t * np.power(p, c.n)
    return head + np.where(c.reached(depth), 0.0, tail)


@register("rbp_prime", params=(P, RBP_GRADED, MAX_GRADE, DEPTH), aliases=("rbp'",),
          citation=LIU + ", eq. (2).", undefined=DEFINED,
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it. The "
                "terminal term r_t·p^n is order-free."), prefix=rbp_prime_prefix)
def rbp_prime(prep: Prepared, level: float, p=0.8, graded=False, max_grade=None,
              depth=None) -> np.ndarray:
    """RBP' = (1 − p) Σ_{i≤n} r_i p^(i−1) + r_t p^n (Liu eq. 2): the unseen tail beyond the
    ranking is filled with the terminal gain r_t.

    >>> from trunc_accessor.frontends.single import rbp_prime
    >>> round(rbp_prime([1, 1], R=3, p=0.5), 3)  # Liu Table 1
    0.917
    """
    g, pool = gains_and_pool(prep, level, graded, max_grade)
    head = (1.0 - p) * prep.seg_sum(prep.group_mean(g) * rbp_weights(prep, p))
    r_t = terminal_gain(prep.seg_sum(g), pool)
    tail = r_t * rbp_tail(prep, p)
    return head + np.where(not_truncated(prep, depth), 0.0, tail)


def _ideal_with_terminal(prep: Prepared, q_gain: np.ndarray, extra: bool) -> np.ndarray:
    """Ideal DCG over n (+1) positions: the qid's gains sorted descending; with ``extra``
    the (n+1)-th ideal position holds the next gain, or 1.0 if the gains ran out (Liu §2)."""
    n = prep.length + (1 if extra else 0)
    return ideal_at(prep, q_gain, prep.seg_q, n, extra)


def ideal_at(prep: Prepared, q_gain: np.ndarray, q: np.ndarray, n: np.ndarray,
             extra: bool) -> np.ndarray:
    """The ideal DCG over n[i] positions of qid q[i] (with ``extra``, plus the terminal
    document's gain of 1 at its first zero-gain position: ``terminal_ideal``)."""
    terms, positive = ideal_terms(prep, q_gain)
    # each query's own running sum from its first term (restarting_cumsum), not a
    # difference of one cumulative sum over every query: the value of a query must not
    # depend on which other queries share the call (eager, lazy batches, Dask partitions);
    # the running sums also give every prefix's ideal (cutoff_curve) the same value
    cum = restarting_cumsum(terms, prep.q_offsets)
    take = np.minimum(n, prep.q_offsets[q + 1] - prep.q_offsets[q])
    at = np.maximum(prep.q_offsets[q] + take - 1, 0)
    ideal = np.where(take > 0, cum[at] if len(cum) else 0.0, 0.0)
    if extra:
        # fewer than n + 1 positive gains: a gain of 1 at the first zero-gain position
        ideal = ideal + terminal_ideal(positive[q], n)
    return ideal


def ideal_terms(prep: Prepared, q_gain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ideal ranking's DCG terms of every qid (its judged gains sorted descending, each
    positive one over log2(1 + rank); aligned with ``prep.q_grades``' qid blocks) and the
    number of positive gains of each qid."""
    sorted_g = descending_within(q_gain, prep.q_seg, len(prep.q_offsets) - 1)
    rank = np.arange(len(sorted_g)) - prep.q_offsets[prep.q_seg] + 1
    terms = np.where(sorted_g > 0, sorted_g * discount(rank), 0.0)
    positive = np.bincount(prep.q_seg, weights=(sorted_g > 0).astype(float),
                           minlength=len(prep.q_offsets) - 1)
    return terms, positive


def terminal_ideal(positive: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The terminal document's part of the ideal DCG over n positions: a gain of 1 at the
    first zero-gain position, 1 / log2(positive + 2), when fewer than n gains are positive."""
    return np.where(positive < n, 1.0 / np.log2(positive + 2.0), 0.0)


def ndcg_prime_prefix(c: Cuts, level, graded=False, max_grade=None, depth=None):
    """ndcg_prime at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    g, pool = gains_and_pool(part, level, graded, max_grade)
    q_gain = judged_gains(c.prep, level, graded, max_grade)
    dcg_ = c.running(part, part.group_mean(g) * discount(part.pos))
    r_t = terminal_gain(c.running(part, g), c.ranking(pool))
    full = c.reached(depth)
    num = dcg_ + np.where(full, 0.0, r_t / np.log2(c.n + 2.0))
    q = c.ranking(c.prep.seg_q)
    den = np.where(full, ideal_at(c.prep, q_gain, q, c.depth, False),
                   ideal_at(c.prep, q_gain, q, c.depth + 1, True))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


@register("ndcg_prime", params=(RBP_GRADED, MAX_GRADE, DEPTH), aliases=("ndcg'",),
          citation=LIU + ", eq. (3).", undefined=DEFINED,
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it. The "
                "terminal document's gain is order-free."), prefix=ndcg_prime_prefix)
def ndcg_prime(prep: Prepared, level: float, graded=False, max_grade=None,
               depth=None) -> np.ndarray:
    """NDCG' = (DCG@n + r_t / log2(n + 2)) / ideal DCG over n + 1 positions (Liu eq. 3).

    The ideal ranking holds the query's gains sorted descending, and a gain of 1.0 in the
    first zero-gain position when there are fewer than n + 1 positive gains. Binary gains by
    default (Liu's setting); ``graded=True``: grade / max_grade.

    >>> from trunc_accessor.frontends.single import ndcg_prime
    >>> round(ndcg_prime([1, 0, 1], R=3), 3)  # Liu §2 worked example
    0.698
    """
    g, pool = gains_and_pool(prep, level, graded, max_grade)
    q_gain = judged_gains(prep, level, graded, max_grade)
    dcg = prep.seg_sum(prep.group_mean(g) * discount(prep.pos))
    r_t = terminal_gain(prep.seg_sum(g), pool)
    full = not_truncated(prep, depth)
    num = dcg + np.where(full, 0.0, r_t / np.log2(prep.length + 2.0))
    den = np.where(full, _ideal_with_terminal(prep, q_gain, False),
                   _ideal_with_terminal(prep, q_gain, True))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def ap_prime_prefix(c: Cuts, level, graded=False, max_grade=None, depth=None):
    """ap_prime at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    g, pool = gains_and_pool(part, level, graded, max_grade)
    pool = c.ranking(pool)
    head = c.running(part, precision_terms(part, g))
    got = c.running(part, g)
    r_t = terminal_gain(got, pool)
    truncated = head + r_t * (got + r_t) / (c.n + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        plain = np.where(pool > 0, head / np.where(pool > 0, pool, 1.0), 0.0)
    return np.where(c.reached(depth), plain, truncated / (pool + 1.0))


@register("ap_prime", params=(RBP_GRADED, MAX_GRADE, DEPTH), aliases=("ap'",),
          citation=LIU + ", eq. (4).", undefined=DEFINED,
          ties=("Exact: for two positions of a tie group of m documents whose gains sum to G, "
                "E[g_j·g_l] = (G² − Σg²)/(m(m − 1)); the terminal term is order-free."),
          prefix=ap_prime_prefix)
def ap_prime(prep: Prepared, level: float, graded=False, max_grade=None, depth=None) -> np.ndarray:
    """AP' = (1/(R + 1)) Σ_{i≤n+1} r_i (Σ_{j≤i} r_j) / i with r_{n+1} = r_t (Liu eq. 4):
    AP of the ranking extended by the terminal document, against a reference of R relevant
    documents plus the terminal one.

    >>> from trunc_accessor.frontends.single import ap_prime
    >>> round(ap_prime([1, 1], R=3), 3)  # Liu Table 1
    0.648
    """
    g, pool = gains_and_pool(prep, level, graded, max_grade)
    head = precision_sum(prep, g)
    got = prep.seg_sum(g)
    r_t = terminal_gain(got, pool)
    n = prep.length.astype(np.float64)
    truncated = head + r_t * (got + r_t) / (n + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        plain = np.where(pool > 0, head / np.where(pool > 0, pool, 1.0), 0.0)
    return np.where(not_truncated(prep, depth), plain, truncated / (pool + 1.0))
