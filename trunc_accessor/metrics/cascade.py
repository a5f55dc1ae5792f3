"""Cascade metrics: ERR and ERR' (here), RBU and ERRU (their utility forms,
``trunc_accessor.metrics.cascade_utility``).

A cascade user reads the ranking top down and stops at document i with probability x_i,
having read past the earlier ones, so the chance of stopping at position i is

    P(stop at i) = x_i Π_{j<i} (1 − x_j),          x = (2^g − 1) / 2^g_max    (Chapelle et al.)

g the document's grade (unjudged and negative grades count as 0, a grade above g_max as
g_max) and g_max the largest grade in the whole qrels (the top of the scale, the same for every
query), or ``max_grade=``. Binary qrels give x = 1/2 for a relevant document. The stopping
probability depends on the grade only, not on ``relevance_level`` (as nDCG's gains); only ERR''s
terminal gain r_t uses it.

* ERR    = Σ_i P(stop at i) / i                                   (Chapelle et al. 2009)
* ERR'   = ERR + r_t Π_{j≤n} (1 − x_j) / (n + 1)  (terminal document, Liu et al. eq. 1)
* RBU    = (1 − p) Σ_i p^(i−1) (P(stop at i) − e)                 (Amigó et al. 2022, §3.3)
* ERRU   = Σ_i (1/i) (P(stop at i) − e)                           (Amigó et al. 2022, §3.3)

Ties (``ties="average"``): the exact mean over every order of each tie group. Earlier
groups are read whole whatever their order, so they contribute their full product
Π (1 − x). Inside a group of m documents with y = 1 − x, the document at within-group
offset s (s documents of the group before it) stops the user with mean probability

    D_s = Σ_d x_d e_s(y_{−d}) / (m · C(m − 1, s)) = ē_s − ē_{s+1},

e_s the elementary symmetric polynomial and ē_s = e_s / C(m, s) the mean of Π(1 − x) over a
uniformly random s-subset of the group: the probability of reading past the group's first s
documents, averaged over its orders.

How the means over tie orders are computed, and the error their truncation can make:
``trunc_accessor.metrics.cascade_ties``.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics.cascade_ties import _group_stop_terms
from trunc_accessor.metrics.dialects import Spelling
from trunc_accessor.metrics.params import (
    K,
    Param,
    check_bool,
    check_positive_or_none,
)
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.terminal import DEPTH, LIU, gains_and_pool, not_truncated, terminal_gain

CHAPELLE = ("Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded "
            "relevance', CIKM 2009")
TIES_NOTE = ("tie-aware form: exact mean over tie orders through elementary symmetric "
             "polynomials of 1 − x (derived here)")


STOP_MAX_GRADE = Param("max_grade", None, check_positive_or_none,
                       "g_max of the stopping probability (2^g − 1)/2^g_max (and of the "
                       "graded=True gains); default: the largest grade in the qrels")
ERR_GRADED = Param("graded", False, check_bool,
                   "gains for the terminal document's r_t: False: binary (grade ≥ "
                   "relevance_level); True: grade / max_grade")


# --------------------------------------------------------------------------- machinery
def stopping_probability(prep: Prepared, max_grade=None) -> np.ndarray:
    """x = (2^g − 1) / 2^g_max for each retrieved row; unjudged/negative → 0,
    grades above g_max count as g_max, g_max ≤ 0 makes every x = 0."""
    top = max(float(max_grade if max_grade is not None else prep.max_grade), 0.0)
    g = np.minimum(prep.gain(), top)
    # 2^(g − top) − 2^(−top): no overflow for a large g_max; exactly 0 for g = 0
    return np.exp2(g - top) - np.exp2(-top)


def _segment_scan_product(values: np.ndarray, seg: np.ndarray, n_segments: int):
    """Per element of a segment-sorted array: the product of the earlier elements of its
    segment (exclusive scan) and of those and itself (inclusive scan); and per segment: the
    product of all its elements (1 if none).

    Hillis–Steele doubling inside segments, so each value is a product of its own
    segment's factors only (no global cumulative sums or divisions), and the inclusive
    product of an element is computed the same way whatever follows it in its segment."""
    n = len(values)
    total = np.ones(n_segments)
    if n == 0:
        return np.ones(0), total, np.ones(0)
    first = np.ones(n, dtype=bool)
    first[1:] = seg[1:] != seg[:-1]
    idx = np.arange(n)
    k = idx - np.maximum.accumulate(np.where(first, idx, 0))
    inc = values.astype(np.float64, copy=True)
    d, kmax = 1, int(k.max())
    while d <= kmax:
        at = np.flatnonzero(k >= d)
        inc[at] = inc[at] * inc[at - d]
        d *= 2
    excl = np.ones(n)
    excl[~first] = inc[np.flatnonzero(~first) - 1]
    last = np.ones(n, dtype=bool)
    last[:-1] = first[1:]
    total[seg[last]] = inc[last]
    return excl, total, inc


def cascade(prep: Prepared, max_grade=None) -> tuple[np.ndarray, np.ndarray]:
    """The cascade of every ranking, averaged over tie orders.

    Returns, per row, the mean probability that the user stops at that position
    (x_i Π_{j<i}(1 − x_j) for an untied ranking), and per segment the probability of reading
    past the whole ranking, Π_{j≤n}(1 − x_j) (1 for the empty ranking)."""
    key = ("cascade", max_grade)
    if key in prep._cache:
        return prep._cache[key]
    stop, through, _ = _cascade(prep, max_grade)
    return stop, through


def passed_groups(prep: Prepared, max_grade=None) -> np.ndarray:
    """Per tie group, the mean probability that the user reads past it and every earlier
    group of its ranking (the ``through`` of ``cascade`` for the ranking cut after that
    group)."""
    if ("passed", max_grade) not in prep._cache:
        _cascade(prep, max_grade)
    return prep._cache[("passed", max_grade)]


def _cascade(prep: Prepared, max_grade):
    """``cascade`` and ``passed_groups``, computed together and cached."""
    key = ("cascade", max_grade)
    x = stopping_probability(prep, max_grade)
    y = 1.0 - x
    if prep.singleton_groups:
        within, g_prod = x, y
    else:
        row_start = prep.group_first_row
        g_prod = np.multiply.reduceat(y, row_start) if len(y) else np.ones(0)
        within = x.copy()
        # groups of ≥ 2 documents, one of them with x > 0 (otherwise D = 0 = x)
        big = np.flatnonzero((prep.g_size > 1) & (prep.group_sum(x) > 0))
        if big.size:
            rows, terms = _group_stop_terms(x, row_start[big], prep.g_size[big])
            within[rows] = terms
    before, through, passed = _segment_scan_product(g_prod, prep.g_seg, prep.n_segments)
    stop = within * before[prep.gid]
    prep._cache[key] = (stop, through)
    prep._cache[("passed", max_grade)] = passed
    return stop, through, passed


def _err(prep: Prepared, max_grade, k=None) -> np.ndarray:
    # an unjudged document never stops the user (x = 0) and is never stopped at: only the
    # tie groups that hold a judged document change ERR (their products are the same)
    prep = prep.judged_part()
    stop, _ = cascade(prep, max_grade)
    w = 1.0 / prep.pos
    if k is not None:
        w = np.where(prep.pos <= k, w, 0.0)
    return prep.seg_sum(stop * w)


# --------------------------------------------------------------------------- metrics
def _err_prefix(c: Cuts, max_grade, k=None) -> np.ndarray:
    """ERR at every cut-off of ``c`` (the prefix kernels of err and err_prime)."""
    part = c.prep.judged_part()  # as the kernel: unjudged documents never stop the user
    stop, _ = cascade(part, max_grade)
    w = 1.0 / part.pos
    if k is not None:
        w = np.where(part.pos <= k, w, 0.0)
    return c.running(part, stop * w)


def err_prefix(c: Cuts, level, k=None, max_grade=None):
    """err at every cut-off of ``c`` (its prefix kernel)."""
    return _err_prefix(c, max_grade, k)


@register("err", params=(K, STOP_MAX_GRADE), aliases=("expected_reciprocal_rank",),
          citation=CHAPELLE + " (ERR with R(g) = (2^g − 1)/2^g_max); " + TIES_NOTE + ".",
          undefined="Never undefined: 0 for an empty ranking and for a ranking with no "
                    "positive grade (e.g. R = 0 with the default relevance_level).",
          ties=("Exact: the mean over a group's orders depends only on its multiset of stopping "
                "probabilities x; the group stops at offset s with probability ē_s − ē_{s+1}, ē_s "
                "= e_s(1 − x)/C(m, s) (the mean elementary symmetric polynomials of 1 − x over its"
                " m documents), times the probability of passing the earlier groups: a stable "
                "O(m·r) recurrence, never an enumeration."),
          # ir_measures' ERR is gdeval's, whose stopping probability tops the grades at 4
          ir_measures=Spelling("ERR", {"max_grade": 4}), prefix=err_prefix)
def err(prep: Prepared, level: float, k=None, max_grade=None) -> np.ndarray:
    """Expected reciprocal rank: ERR@k = Σ_{i≤k} (1/i) x_i Π_{j<i} (1 − x_j).

    Stopping probability x = (2^g − 1)/2^g_max (Chapelle et al. 2009), g_max the largest
    grade in the whole qrels unless ``max_grade=`` is given; unjudged and negative grades
    give 0, binary qrels 1/2 for a relevant document. The grade alone sets x:
    ``relevance_level`` plays no part. Tie-aware: the exact mean over the orders of each tie
    group (module docstring).

    >>> from trunc_accessor.frontends.single import err
    >>> err([2, 1, 0])  # x = 3/4, 1/4, 0: 3/4 + (1/2)(1/4)(1/4)
    0.78125
    >>> err([1, 0], scores=[1, 1])  # (1/2 + 1/4) / 2 over the two orders
    0.375
    """
    return _err(prep, max_grade, k)


def err_prime_prefix(c: Cuts, level, graded=False, max_grade=None, depth=None):
    """err_prime at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    through = c.at(part, passed_groups(part, max_grade), groups=True, empty=1.0)
    g, pool = gains_and_pool(part, level, graded, max_grade)
    r_t = terminal_gain(c.running(part, g), c.ranking(pool))
    tail = r_t * through / (c.n + 1.0)
    return _err_prefix(c, max_grade) + np.where(c.reached(depth), 0.0, tail)


@register("err_prime", params=(ERR_GRADED, STOP_MAX_GRADE, DEPTH), aliases=("err'", "errt"),
          citation=LIU + ", eq. (1) (the terminal document, applied to ERR as its (n + 1)-th "
          "stopping probability); " + CHAPELLE + "; " + TIES_NOTE + ".",
          undefined="Never undefined: the empty ranking scores r_t (1 if R = 0, else 0); "
                    "a nil-answer query (R = 0) gives r_t = 1.",
          ties=("Exact: the mean over a group's orders depends only on its multiset of stopping "
                "probabilities x; the group stops at offset s with probability ē_s − ē_{s+1}, ē_s "
                "= e_s(1 − x)/C(m, s) (the mean elementary symmetric polynomials of 1 − x over its"
                " m documents), times the probability of passing the earlier groups: a stable "
                "O(m·r) recurrence, never an enumeration. The terminal term is order-free."),
          prefix=err_prime_prefix)
def err_prime(prep: Prepared, level: float, graded=False, max_grade=None, depth=None) -> np.ndarray:
    """ERR': ERR of the ranking extended by a terminal document at position n + 1 whose
    stopping probability is r_t (Liu et al. eq. 1):

        ERR' = Σ_{i≤n} (1/i) x_i Π_{j<i}(1 − x_j) + r_t Π_{j≤n}(1 − x_j) / (n + 1),

    r_t = 1 if R = 0, else the gain retrieved over the gain pool R (binary gains by default,
    ``graded=True``: grade / max_grade). ``depth=D``: a ranking with n ≥ D is not truncated
    and scores plain ERR (Liu et al. Table 2). x as in ``err``. Tie-aware: the terminal term does
    not depend on the order.

    >>> from trunc_accessor.frontends.single import err_prime
    >>> round(err_prime([0, 0], R=0), 4)  # the terminal document at rank 3, r_t = 1
    0.3333
    >>> round(err_prime([1, 1], R=3), 4)  # 1/2 + (1/2)(1/4) + (1/3)(2/3)(1/4)
    0.6806
    """
    base = _err(prep, max_grade)
    # as ERR: only the tie groups holding a judged document change the product Π(1 − x)
    # and the gain retrieved
    part = prep.judged_part()
    _, through = cascade(part, max_grade)
    g, pool = gains_and_pool(part, level, graded, max_grade)
    r_t = terminal_gain(part.seg_sum(g), pool)
    tail = r_t * through / (prep.length + 1.0)
    return base + np.where(not_truncated(prep, depth), 0.0, tail)
