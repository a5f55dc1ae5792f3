"""Cascade metrics: ERR, ERR', RBU, ERRU.

A cascade user reads the ranking top down and stops at document i with probability x_i,
having read past the earlier ones, so the chance of stopping at position i is

    P(stop at i) = x_i Π_{j<i} (1 − x_j),          x = (2^g − 1) / 2^g_max    (Chapelle et al.)

g the document's grade (unjudged and negative grades count as 0, a grade above g_max as
g_max) and g_max the largest grade in the whole qrels (SPEC §3), or ``max_grade=``. Binary
qrels give x = 1/2 for a relevant document. The stopping probability depends on the grade
only, not on ``relevance_level`` (as nDCG's gains); only ERR''s terminal gain r_t uses it.

* ERR    = Σ_i P(stop at i) / i                                   (Chapelle et al. 2009)
* ERR'   = ERR + r_t Π_{j≤n} (1 − x_j) / (n + 1)  (terminal document, Liu et al. eq. 1)
* RBU    = (1 − p) Σ_i p^(i−1) (P(stop at i) − e)                 (Amigó et al. 2022, §3.3)
* ERRU   = Σ_i (1/i) (P(stop at i) − e)                           (Amigó et al. 2022, §3.3)

Ties (``ties="average"``): the exact mean over every order of each tie group. Earlier
groups are read whole whatever their order, so they contribute their full product
Π (1 − x). Inside a group of m documents with y = 1 − x, the document at within-group
offset s (s documents of the group before it) stops the user with mean probability

    D_s = Σ_d x_d e_s(y_{−d}) / (m · C(m − 1, s))
        = ((m − s) e_s(y) − (s + 1) e_{s+1}(y)) / ((m − s) C(m, s)) = ē_s − ē_{s+1},

e_s the elementary symmetric polynomial and ē_s = e_s / C(m, s) the mean of Π(1 − x) over a
uniformly random s-subset of the group. Both ē and D are computed by subtraction-free
recurrences over the documents of the group (see :func:`_group_stop_terms`), normalised as
they go, so there is no C(m, s) overflow, no cancellation and an all-non-relevant group gives
exactly 0. The recurrence is vectorised across groups and costs O(m·r) for a group with r
documents of positive grade; groups of one document (always the case with
``ties="first"``/``"trec_eval"``) and groups without a positive grade skip it (D = x).
"""
from __future__ import annotations

import numpy as np

from ..prepare import Prepared
from ..registry import K, P, Param, check_bool, check_nonnegative, check_positive_or_none, register
from .terminal import DEPTH, LIU, gains_and_pool, not_truncated, terminal_gain

CHAPELLE = ("Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded "
            "relevance', CIKM 2009")
AMIGO = ("Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better "
         "and How to Measure That', SIGIR 2022")
TIES_NOTE = ("tie-aware form: exact mean over tie orders through elementary symmetric "
             "polynomials of 1 − x (derived here)")


EFFORT = Param("e", 0.05, check_nonnegative,
               "effort: the cost of inspecting one document, in units of the gain of a "
               "document that surely satisfies the user (Amigó et al. use 1/20)")
STOP_MAX_GRADE = Param("max_grade", None, check_positive_or_none,
                       "g_max of the stopping probability (2^g − 1)/2^g_max (and of the "
                       "graded=True gains); default: the largest grade in the qrels")
ERR_GRADED = Param("graded", False, check_bool,
                   "gains for the terminal document's r_t: False: binary (grade ≥ "
                   "relevance_level); True: grade / max_grade")


# --------------------------------------------------------------------------- machinery
def stopping_probability(prep: Prepared, max_grade=None) -> np.ndarray:
    """x = (2^g − 1) / 2^g_max for each retrieved row (SPEC §3); unjudged/negative → 0,
    grades above g_max count as g_max, g_max ≤ 0 makes every x = 0."""
    top = max(float(max_grade if max_grade is not None else prep.max_grade), 0.0)
    g = np.minimum(prep.gain(), top)
    # 2^(g − top) − 2^(−top): no overflow for a large g_max; exactly 0 for g = 0
    return np.exp2(g - top) - np.exp2(-top)


def _segment_scan_product(values: np.ndarray, seg: np.ndarray, n_segments: int):
    """Per element of a segment-sorted array: the product of the earlier elements of its
    segment (exclusive scan); and per segment: the product of all its elements (1 if none).

    Hillis–Steele doubling inside segments, so each value is a product of its own
    segment's factors only (no global cumulative sums or divisions)."""
    n = len(values)
    total = np.ones(n_segments)
    if n == 0:
        return np.ones(0), total
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
    return excl, total


_CHUNK_CELLS = 1 << 21  # groups advanced together: at most this many (group, s) cells


def _group_stop_terms(x: np.ndarray, row_start: np.ndarray, size: np.ndarray):
    """(row indices, D_s) for every row of the given tie groups: the mean over the group's
    orders of x at within-group offset s times Π(1 − x) of the s group documents before it.
    ``x`` per row in ranking order; ``row_start`` the row of each group's first document;
    ``size`` its m ≥ 2 documents.

    Adding the group's documents one at a time (k = 1..m), with ē^(k)_s the mean product of
    y = 1 − x over s-subsets of the first k documents and D^(k)_s the mean of x_d·Π_S y over
    pairs (s-subset S, document d ∉ S) of them:

        ē^(k)_s = ((k − s) ē^(k−1)_s + s·y_k ē^(k−1)_{s−1}) / k
        D^(k)_s = ((k − 1 − s) D^(k−1)_s + s·y_k D^(k−1)_{s−1} + x_k ē^(k−1)_s) / k

    (split the subsets by whether they hold document k, or whether d = k). Every term is ≥ 0
    and the weights sum to 1, so nothing cancels or overflows; D^(m)_s = ē_s − ē_{s+1}, the
    identity Σ_d x_d e_s(y_{−d}) = (m − s) e_s − (s + 1) e_{s+1} over (m − s) C(m, s).
    Groups are bucketed by size (2^(b−1) < m ≤ 2^b), sorted by size inside a bucket and
    advanced together, in chunks of bounded memory: the Python loop runs over k only, at most
    about twice the largest group size in all. Documents with x = 0 cost nothing (see
    :func:`_advance`): the cost is Σ m·r over the groups, r the documents with x > 0."""
    rows_out, terms_out = [], []
    bucket = np.frexp((size - 1).astype(np.float64))[1]  # ceil(log2 m) for m ≥ 2
    for b in np.unique(bucket):
        sel = np.flatnonzero(bucket == b)
        sel = sel[np.argsort(-size[sel], kind="stable")]
        per = max(1, _CHUNK_CELLS // (int(size[sel[0]]) + 1))
        for c in range(0, len(sel), per):
            chunk = sel[c:c + per]
            rows, terms = _advance(x, row_start[chunk], size[chunk])
            rows_out.append(rows)
            terms_out.append(terms)
    return np.concatenate(rows_out), np.concatenate(terms_out)


def _advance(x: np.ndarray, start: np.ndarray, m: np.ndarray):
    """The recurrences of :func:`_group_stop_terms` for groups sorted by size, descending.

    The documents of a group are added in any order (ē and D are symmetric functions), so
    its z documents with x = 0 go first: after them ē_s = 1 (s ≤ z) and D = 0 exactly, and
    only the r documents with x > 0 are iterated, at a cost of O(r·m) per group."""
    width = int(m[0])
    col = np.arange(width)
    valid = col[None, :] < m[:, None]
    rows = start[:, None] + col[None, :]
    X = np.sort(np.where(valid, x[np.where(valid, rows, 0)], np.inf), axis=1)  # zeros first
    z = np.count_nonzero(X == 0.0, axis=1)
    active = np.searchsorted(-m, -np.arange(1, width + 1), side="right")  # groups with m ≥ k
    E = (col[None, :] <= z[:, None]).astype(np.float64)  # E[:, s] = ē_s
    E = np.concatenate([E, (z >= width)[:, None].astype(np.float64)], axis=1)
    D = np.zeros((len(m), width + 1))  # D[:, s + 1] = D_s; column 0 stays 0
    for k in range(int(z.min()) + 1, width + 1):
        a = active[k - 1]
        g = np.flatnonzero(z[:a] < k)  # groups adding a document with x > 0 at step k
        if len(g) == a:
            g = slice(0, a)
        xk = X[g, k - 1, None]
        yk = 1.0 - xk
        s = np.arange(k, dtype=np.float64)
        D[g, 1:k + 1] = ((k - 1 - s) * D[g, 1:k + 1] + s * yk * D[g, 0:k]
                         + xk * E[g, 0:k]) / k
        s += 1.0
        E[g, 1:k + 1] = ((k - s) * E[g, 1:k + 1] + s * yk * E[g, 0:k]) / k
    return rows[valid], D[:, 1:][valid]


def cascade(prep: Prepared, max_grade=None) -> tuple[np.ndarray, np.ndarray]:
    """The cascade of every ranking, averaged over tie orders.

    Returns, per row, the mean probability that the user stops at that position
    (x_i Π_{j<i}(1 − x_j) for an untied ranking), and per segment the probability of reading
    past the whole ranking, Π_{j≤n}(1 − x_j) (1 for the empty ranking)."""
    key = ("cascade", max_grade)
    if key in prep._cache:
        return prep._cache[key]
    x = stopping_probability(prep, max_grade)
    y = 1.0 - x
    if prep.singleton_groups:
        within, g_prod = x, y
    else:
        row_start = prep.offsets[prep.g_seg] + prep.g_start
        g_prod = np.multiply.reduceat(y, row_start) if len(y) else np.ones(0)
        within = x.copy()
        # groups of ≥ 2 documents, one of them with x > 0 (otherwise D = 0 = x)
        big = np.flatnonzero((prep.g_size > 1) & (prep.group_sum(x) > 0))
        if big.size:
            rows, terms = _group_stop_terms(x, row_start[big], prep.g_size[big])
            within[rows] = terms
    before, through = _segment_scan_product(g_prod, prep.g_seg, prep.n_segments)
    stop = within * before[prep.gid]
    prep._cache[key] = (stop, through)
    return stop, through


def _err(prep: Prepared, max_grade, k=None) -> np.ndarray:
    stop, _ = cascade(prep, max_grade)
    w = 1.0 / prep.pos
    if k is not None:
        w = np.where(prep.pos <= k, w, 0.0)
    return prep.seg_sum(stop * w)


def _harmonic(n: np.ndarray) -> np.ndarray:
    """H_n = Σ_{i≤n} 1/i for each n (0 for n = 0)."""
    top = int(n.max()) if len(n) else 0
    h = np.zeros(top + 1)
    np.cumsum(1.0 / np.arange(1, top + 1), out=h[1:])
    return h[n]


# --------------------------------------------------------------------------- metrics
@register("err", params=(K, STOP_MAX_GRADE), aliases=("expected_reciprocal_rank",),
          citation=CHAPELLE + " (ERR with R(g) = (2^g − 1)/2^g_max); " + TIES_NOTE + ".",
          undefined="Never undefined: 0 for an empty ranking and for a ranking with no "
                    "positive grade (e.g. R = 0 with the default relevance_level).")
def err(prep: Prepared, level: float, k=None, max_grade=None) -> np.ndarray:
    """Expected reciprocal rank: ERR@k = Σ_{i≤k} (1/i) x_i Π_{j<i} (1 − x_j).

    Stopping probability x = (2^g − 1)/2^g_max (Chapelle et al. 2009), g_max the largest
    grade in the whole qrels unless ``max_grade=`` is given; unjudged and negative grades
    give 0, binary qrels 1/2 for a relevant document. The grade alone sets x:
    ``relevance_level`` plays no part. Tie-aware: the exact mean over the orders of each tie
    group (module docstring).

    >>> from trunc_accessor.single import err
    >>> err([2, 1, 0])  # x = 3/4, 1/4, 0: 3/4 + (1/2)(1/4)(1/4)
    0.78125
    >>> err([1, 0], scores=[1, 1])  # (1/2 + 1/4) / 2 over the two orders
    0.375
    """
    return _err(prep, max_grade, k)


@register("err_prime", params=(ERR_GRADED, STOP_MAX_GRADE, DEPTH), aliases=("err'", "errt"),
          citation=LIU + ", eq. (1) (terminal document, applied to ERR as SPEC §6); "
          + CHAPELLE + "; " + TIES_NOTE + ".",
          undefined="Never undefined: the empty ranking scores r_t (1 if R = 0, else 0); "
                    "a nil-answer query (R = 0) gives r_t = 1.")
def err_prime(prep: Prepared, level: float, graded=False, max_grade=None, depth=None) -> np.ndarray:
    """ERR': ERR of the ranking extended by a terminal document at position n + 1 whose
    stopping probability is r_t (Liu et al. eq. 1):

        ERR' = Σ_{i≤n} (1/i) x_i Π_{j<i}(1 − x_j) + r_t Π_{j≤n}(1 − x_j) / (n + 1),

    r_t = 1 if R = 0, else the gain retrieved over the gain pool R (binary gains by default,
    ``graded=True``: grade / max_grade). ``depth=D``: a ranking with n ≥ D is not truncated
    and scores plain ERR (SPEC §5). x as in :func:`err`. Tie-aware: the terminal term does not
    depend on the order.

    >>> from trunc_accessor.single import err_prime
    >>> round(err_prime([0, 0], R=0), 4)  # the terminal document at rank 3, r_t = 1
    0.3333
    >>> round(err_prime([1, 1], R=3), 4)  # 1/2 + (1/2)(1/4) + (1/3)(2/3)(1/4)
    0.6806
    """
    base = _err(prep, max_grade)
    _, through = cascade(prep, max_grade)
    g, pool = gains_and_pool(prep, level, graded, max_grade)
    r_t = terminal_gain(prep.seg_sum(g), pool)
    tail = r_t * through / (prep.length + 1.0)
    return base + np.where(not_truncated(prep, depth), 0.0, tail)


@register("rbu", params=(P, EFFORT, STOP_MAX_GRADE), aliases=("rank_biased_utility",),
          citation=AMIGO + ", §3.3 (RBU); the effort per inspected document as there; "
          + TIES_NOTE + ".",
          undefined="Never undefined: 0 for an empty ranking; −e(1 − p^n) when nothing "
                    "retrieved has a positive grade (e.g. R = 0 with the default relevance_level).")
def rbu(prep: Prepared, level: float, p=0.8, e=0.05, max_grade=None) -> np.ndarray:
    """Rank-biased utility: RBU = (1 − p) Σ_{i≤n} p^(i−1) (x_i Π_{j<i}(1 − x_j) − e).

    Amigó, Mizzaro & Spina 2022, §3.3: an ERR-like gain under RBP's patience p, minus the
    effort e of every document inspected, discounted like the gain; the effort part is
    −e(1 − p^n). x as in :func:`err`. Equals the single-aspect RBU of the RBU authors'
    reference implementation (SPEC §7; unjudged documents cost effort too).

    >>> from trunc_accessor.single import rbu
    >>> rbu([1, 2, None], qrels_grades=[2, 1, 0], p=0.5, e=0.0)  # SPEC §7
    0.265625
    >>> round(rbu([1, 2, None], qrels_grades=[2, 1, 0], p=0.8, e=0.03), 5)
    0.12536
    """
    stop, _ = cascade(prep, max_grade)
    gain = (1.0 - p) * prep.seg_sum(stop * np.power(p, prep.pos - 1.0))
    return gain - e * (1.0 - np.power(p, prep.length.astype(np.float64)))


@register("erru", params=(EFFORT, STOP_MAX_GRADE),
          citation=AMIGO + ", §3.3 (ERRU); " + CHAPELLE + "; " + TIES_NOTE + ".",
          undefined="Never undefined: 0 for an empty ranking; −e·H_n (H_n = Σ_{i≤n} 1/i) "
                    "when nothing retrieved has a positive grade (e.g. R = 0 with the default "
                    "relevance_level).")
def erru(prep: Prepared, level: float, e=0.05, max_grade=None) -> np.ndarray:
    """ERR with effort: ERRU = Σ_{i≤n} (1/i) (x_i Π_{j<i}(1 − x_j) − e) = ERR − e·H_n.

    Amigó, Mizzaro & Spina 2022, §3.3: every inspected document costs e, discounted by 1/i
    like the gain. x as in :func:`err`.

    >>> from trunc_accessor.single import erru
    >>> round(erru([1, 2, None], qrels_grades=[2, 1, 0]), 6)  # 0.2 + 0.25625 − 0.05/3
    0.439583
    """
    return _err(prep, max_grade) - e * _harmonic(prep.length)
