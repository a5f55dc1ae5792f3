"""Cascade metrics: ERR, ERR', RBU, ERRU.

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

Computation. For a set A of a documents, let ē^A_s be that mean and D^A_s the mean of
x_d Π_S (1 − x) over an s-subset S of A and a document d of A outside S. Add to A a run B of c
documents sharing one x (v = 1 − x; N = a + c). A uniform s-subset of A ∪ B holds j documents
of B with the hypergeometric probability H(j; s) = C(c, j) C(a, s − j) / C(N, s); given j, its
part in A is a uniform (s − j)-subset of A, its part in B contributes v^j, and d lies in A or
in B in proportion to the a − s + j and c − j documents left. Hence, exactly,

    ē_s = Σ_j H(j; s) v^j ē^A_{s−j}
    D_s = Σ_j H(j; s) v^j ((a − s + j) D^A_{s−j} + (c − j) x ē^A_{s−j}) / (N − s)

with every term ≥ 0: nothing cancels, nothing overflows. H(·; s) is built from its first
non-zero term (H(0; s) = [a]_s / [N]_s while s ≤ a, H(s − a; s) = C(s, a) / C(N, a) beyond, both
running products in s) by H(j; s) / H(j − 1; s) = (c − j + 1)(s − j + 1) / (j (a − s + j)),
a loop over j vectorised over s; should such a start underflow, H(·; s + 1) is advanced from
H(·; s) one drawn document at a time instead. A group starts from its documents with x = 0
(ē_s = 1, D_s = 0: they cost nothing) and adds its runs of equal x > 0, one per grade, the
largest first: a run in one merge when the truncation below makes that cheaper, otherwise
document by document (the merge with c = 1).

Truncation, and the error it can make (ε = 1e-16). Every D_s is a probability of stopping,
so each term left out can only lower a value, and the terms left out are bounded:

* offsets s ≥ W, W = 1 + the least s with ȳ^s ≤ ε (ȳ the group's mean 1 − x), or m. By
  Maclaurin's inequality ē_s ≤ ȳ^s, so the user reads past offset W with probability ≤ ε,
  and the D_s with s ≥ W, which are stops after that, add up to at most ε;
* inside a merge, the j > J with v^(J+1) ≤ ε: stops after reading past J + 1 documents of
  the run, at most ε in all.

So a tie group that the user reaches with probability P loses at most (1 + k)·ε·P of stopping
probability, k the number of its runs that were merged (at most its number of distinct
x > 0); and a truncated group is read through with probability ≤ ε, so all the groups after
it lose at most ε² more. Every stop weighs at most 1 in ERR and ERRU (1/i) and at most 1 − p
in RBU, so ERR and ERRU are low by at most (1 + k)·ε + ε², RBU by at most (1 − p) times that:
below 1e-15 with up to 9 positive grades. The effort parts and ERR''s terminal term (the
product Π(1 − x) of the whole ranking) are exact. Rounding adds a relative error of a few
units of 1e-16 per sequential step (running products over s, steps over j or over
documents): ~1e-13 on a million tied documents in practice.

Cost: about W cells per document added one by one and W·J per merged run, the loops running
over those steps, vectorised across groups (W ≈ 37/x̄, J ≈ 37/x). A million tied documents
with binary grades (x = 1/2, J ≤ 55) cost W·min(r, 66) ≤ ~74·m cells whatever the number r of
relevant ones, against m·r for the plain recurrence. Groups of one document (always so with
``ties="first"``/``"trec_eval"``) and groups without a positive grade skip all this (D = x).
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import rbp_tail, rbp_weights
from trunc_accessor.metrics.dialects import Spelling
from trunc_accessor.metrics.params import (
    K,
    P,
    Param,
    check_bool,
    check_nonnegative,
    check_positive_or_none,
)
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.terminal import DEPTH, LIU, gains_and_pool, not_truncated, terminal_gain

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


_EPS = 1e-16  # the probability each truncation may leave out (module docstring)
_TINY = 1e-280  # the anchors of a ratio-form merge must stay above this (no underflow)
_CHUNK_CELLS = 1 << 21  # groups advanced together: at most this many (group, s) cells
_BLOCK = 1 << 16  # cells per column block of one step (see _blocks)
_BLOCK_COLUMNS = 4096  # and at least this many columns


def _depth(x: np.ndarray) -> np.ndarray:
    """1 + the smallest d with (1 − x)^d ≤ ε, as floats (inf if ε = 0; 1 for x = 1): how
    many offsets, or documents of one run, are worth following (module docstring)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.ceil(np.log(_EPS) / np.log1p(-x)) + 1.0
    return np.where(x >= 1.0, 1.0, d)


def _merged(c: np.ndarray, x: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Whether a run of c documents of stopping probability x is added by one merge (cost
    about 20 + 14 J passes over the offsets, J = min(c, W − 1, depth)) rather than document
    by document (12 c passes): only when the truncation makes J much smaller than c."""
    J = np.minimum(np.minimum(c, width - 1.0), _depth(x))
    return 14.0 * J + 20.0 < 12.0 * c


def _group_stop_terms(x: np.ndarray, row_start: np.ndarray, size: np.ndarray):
    """(row indices, D_s) for every row of the given tie groups: the mean over the group's
    orders of x at within-group offset s times Π(1 − x) of the s group documents before it.
    ``x`` per row in ranking order; ``row_start`` the row of each group's first document;
    ``size`` its m ≥ 2 documents (at least one with x > 0).

    A group is built up as in the module docstring: its documents with x = 0 first
    (ē_s = 1, D_s = 0), then its runs of equal x > 0, the largest first, each added in one
    merge (``_merge_ratio``) or, when that saves nothing, document by document
    (``_add_one``). Only the offsets s < W are followed, W = min(m, 1 + ⌈ln ε / ln(1 − x̄)⌉)
    (x̄ the group's mean x); D_s = 0 beyond. Groups are bucketed by W (2^(b−1) < W ≤ 2^b) and
    advanced together, in chunks of bounded memory: the Python loops run over the steps of a
    group and, inside a merge, over j (or s, see ``_merge_draw``), never over groups."""
    n_groups = len(size)
    grp = np.repeat(np.arange(n_groups), size)
    first = np.cumsum(size) - size  # each group's first entry in the flat layout
    rows = row_start[grp] + (np.arange(len(grp)) - first[grp])
    xs = x[rows]
    width = np.minimum(_depth(np.bincount(grp, xs, n_groups) / size), size).astype(np.int64)
    # runs of equal x > 0 inside each group: (group, x, count), the largest run first
    positive = xs > 0
    pg, px = grp[positive], xs[positive]
    zeros = size - np.bincount(pg, minlength=n_groups)
    order = np.lexsort((px, pg))
    pg, px = pg[order], px[order]
    new = np.ones(len(pg), dtype=bool)
    new[1:] = (pg[1:] != pg[:-1]) | (px[1:] != px[:-1])
    at = np.flatnonzero(new)
    run_g, run_x, run_c = pg[at], px[at], np.diff(np.append(at, len(pg)))
    order = np.lexsort((-run_c, run_g))
    run_g, run_x, run_c = run_g[order], run_x[order], run_c[order]
    # steps: one per merged run, one per document of the other runs
    merged = _merged(run_c, run_x, width[run_g])
    n_steps = np.where(merged, 1, run_c)
    step_x = np.repeat(run_x, n_steps)
    step_c = np.repeat(np.where(merged, run_c, 1), n_steps)
    steps = np.bincount(run_g, n_steps, n_groups).astype(np.int64)
    step_first = np.cumsum(steps) - steps

    terms = np.zeros(len(grp))
    bucket = np.frexp((width - 1).astype(np.float64))[1]  # ⌈log2 W⌉
    for b in np.unique(bucket):
        sel = np.flatnonzero(bucket == b)
        sel = sel[np.argsort(-width[sel], kind="stable")]
        per = max(1, _CHUNK_CELLS // int(width[sel[0]]))
        for c in range(0, len(sel), per):
            chunk = sel[c:c + per]
            chunk = chunk[np.argsort(-steps[chunk], kind="stable")]  # active groups: a prefix
            w = int(width[chunk].max())
            D = _advance(w, zeros[chunk], step_first[chunk], steps[chunk], step_x, step_c)
            col = np.arange(w)
            keep = col[None, :] < np.minimum(size[chunk], w)[:, None]
            terms[(first[chunk][:, None] + col[None, :])[keep]] = D[keep]
    return rows, terms


def _advance(w: int, zeros, first, steps, step_x, step_c) -> np.ndarray:
    """D_s, s < w, of groups of ``zeros`` documents with x = 0 and the runs
    (step_x[first + t], step_c[first + t]), t < steps (groups sorted by steps, descending)."""
    s = np.arange(w)
    E = (s[None, :] <= zeros[:, None]).astype(np.float64)  # E[:, s] = ē_s
    D = np.zeros((len(zeros), w))                           # D[:, s] = D_s
    have = zeros.astype(np.float64)                         # documents added so far
    for t in range(int(steps[0]) if len(steps) else 0):
        act = int(np.count_nonzero(steps > t))
        step = first[:act] + t
        c = step_c[step]
        one = np.flatnonzero(c == 1)
        if one.size:
            if one.size == act:
                _add_one(E[:act], D[:act], have[:act], step_x[step])
            else:
                Ei, Di = E[one], D[one]
                _add_one(Ei, Di, have[one], step_x[step[one]])
                E[one], D[one] = Ei, Di
        many = np.flatnonzero(c > 1)
        if many.size:
            cm, xm = c[many].astype(np.float64), step_x[step[many]]
            J = np.minimum(np.minimum(cm, w - 1.0), _depth(xm)).astype(np.int64)
            order = np.argsort(-J, kind="stable")
            many, cm, xm, J = many[order], cm[order], xm[order], J[order]
            En, Dn, ok = _merge_ratio(E[many], D[many], have[many], cm, xm, J)
            E[many[ok]], D[many[ok]] = En[ok], Dn[ok]
            if not ok.all():
                bad = many[~ok]
                E[bad], D[bad] = _merge_draw(E[bad], D[bad], have[bad], cm[~ok], xm[~ok],
                                             J[~ok])
        have[:act] += c
    return D


def _blocks(rows: int, w: int, reverse: bool = False):
    """Column ranges [lo, hi) of about _BLOCK cells (at least _BLOCK_COLUMNS columns), so
    that a step over a wide group works on data that stays in the CPU cache."""
    width = max(_BLOCK_COLUMNS, _BLOCK // max(rows, 1))
    starts = range(0, w, width)
    for lo in (reversed(starts) if reverse else starts):
        yield lo, min(w, lo + width)


def _add_one(E, D, a, x) -> None:
    """Add, in place, one document of stopping probability x to sets of a documents:
    ē_s ← ((a + 1 − s) ē_s + s (1 − x) ē_{s−1}) / (a + 1) and
    D_s ← ((a − s) D_s + s (1 − x) D_{s−1} + x ē_s) / (a + 1) (the merge with c = 1: split
    the subsets by whether they hold the new document, the pairs by whether d is it). Past
    the set's size, ē and D are 0 and stay 0. Column blocks right to left, so that column
    s − 1 is still the old one when s is updated."""
    rows, w = E.shape
    a, x = a[:, None], x[:, None]
    inv = 1.0 / (a + 1.0)
    y_inv, x_inv = (1.0 - x) * inv, x * inv
    for lo, hi in _blocks(rows, w, reverse=True):
        s = np.arange(lo, hi, dtype=np.float64)
        b = max(lo, 1)                   # the first column with an s − 1
        keep = (a - s) * inv             # (a − s) / (a + 1)
        grow = s[b - lo:] * y_inv        # s (1 − x) / (a + 1)
        old_D = grow * D[:, b - 1:hi - 1]
        old_E = grow * E[:, b - 1:hi - 1]
        Db, Eb = D[:, lo:hi], E[:, lo:hi]
        Db *= keep
        Db[:, b - lo:] += old_D
        Db += x_inv * Eb
        keep += inv                      # (a + 1 − s) / (a + 1)
        Eb *= keep
        Eb[:, b - lo:] += old_E


def _merge_ratio(E, D, a, c, x, J):
    """Merge into sets A (ē^A_s and D^A_s over offsets s < w, a documents) c documents of
    stopping probability x, with H(j; s) for j ≤ J (rows sorted by J, descending) from the
    smallest possible j by the ratio in j (module docstring), in column blocks. Also returns
    whether the anchors H(max(0, s − a); s) stay above _TINY; where they do not, the result
    is not used (``_merge_draw`` does that merge)."""
    rows, w = E.shape
    a, c, x = a[:, None], c[:, None], x[:, None]
    N = a + c
    s = np.arange(w, dtype=np.float64)
    # anchors H(max(0, s − a); s): [a]_s / [N]_s up to s = a, then C(s, a) / C(N, a)
    ratio = np.where(s[1:] <= a, (a - s[1:] + 1.0) / np.maximum(N - s[1:] + 1.0, 1.0),
                     np.where(s[1:] <= N, s[1:] / np.maximum(s[1:] - a, 1.0), 1.0))
    anchor = np.empty((rows, w))
    anchor[:, 0] = 1.0
    np.cumprod(ratio, axis=1, out=anchor[:, 1:])
    del ratio
    anchor[s > N] = 0.0                  # no s-subsets in a set of N < s documents
    low = np.minimum(a[:, 0], w - 1).astype(np.int64)
    ok = anchor[np.arange(rows), low] > _TINY  # the smallest anchor
    top = int(J.max())
    count = np.searchsorted(-J, -np.arange(top + 1), side="right")  # rows with J ≥ j
    vpow = (1.0 - x) ** np.arange(top + 1)
    at = a[:, 0].astype(np.int64)        # s = a + j: the column whose H(j; s) is an anchor
    En, Dn = np.empty((rows, w)), np.empty((rows, w))
    for lo, hi in _blocks(rows, w):
        sb = s[lo:hi]
        left = a - sb                    # documents of A not among the s (where ≥ 0)
        inv = 1.0 / np.maximum(N - sb, 1.0)  # 1 / (N − s); D_s = 0 for s ≥ N anyway
        H = np.where(sb <= a, anchor[:, lo:hi], 0.0)  # H(0; s)
        Eb, Db = E[:, lo:hi], D[:, lo:hi]
        En[:, lo:hi] = H * Eb
        Dn[:, lo:hi] = H * (np.maximum(left, 0.0) * Db + (c * x) * Eb) * inv
        for j in range(1, min(top, hi - 1) + 1):
            k, b = count[j], max(lo, j)  # rows with J ≥ j; columns s ≥ j
            q = left[:k, b - lo:] + j    # a − s + j, ≥ 1 wherever H(j − 1; s) may be > 0
            H[:k, b - lo:] *= ((c[:k] - (j - 1)) / j) * ((sb[b - lo:] - (j - 1))
                                                         / np.maximum(q, 1.0))
            col = at[:k] + j
            new = np.flatnonzero((col >= lo) & (col < hi))
            H[new, col[new] - lo] = anchor[new, col[new]]
            h = H[:k, b - lo:] * vpow[:k, j, None]
            Eo = E[:k, b - j:hi - j]
            En[:k, b:hi] += h * Eo
            Dn[:k, b:hi] += h * (np.maximum(q, 0.0) * D[:k, b - j:hi - j]
                                 + ((c[:k] - j) * x[:k]) * Eo) * inv[:k, b - lo:]
    return En, Dn, ok


def _merge_draw(E, D, a, c, x, J):
    """The merge of ``_merge_ratio`` with H(·; s), j ≤ J, advanced one drawn document at
    a time, H(j; s + 1) = (H(j; s)(a − s + j) + H(j − 1; s)(c − j + 1)) / (N − s): a loop
    over the w offsets, for the rare merges whose ratio-form anchors would underflow
    (below 1e-280: thousands of offsets followed in a set of a ≪ N documents)."""
    rows, w = E.shape
    top = int(J.max())
    j = np.arange(top + 1)
    jf = j.astype(np.float64)
    a, c, x = a[:, None], c[:, None], x[:, None]
    N = a + c
    vpow = (1.0 - x) ** jf
    cx = (c - jf) * x
    grow = c - jf[1:] + 1.0
    H = np.zeros((rows, top + 1))
    H[:, 0] = 1.0
    En, Dn = np.zeros((rows, w)), np.zeros((rows, w))
    last = int(N.max())
    for s in range(min(w, last + 1)):
        back = np.maximum(s - j, 0)  # H(j; s) = 0 for j > s
        Eo, Do = E[:, back], D[:, back]
        hv = H * vpow
        left = a - s + jf
        den = np.maximum(N - s, 1.0)  # past N, H = 0 (a group not complete yet)
        En[:, s] = (hv * Eo).sum(axis=1)
        Dn[:, s] = (hv * (left * Do + cx * Eo)).sum(axis=1) / den[:, 0]
        nxt = H * left
        nxt[:, 1:] += H[:, :-1] * grow
        H = nxt / den
    return En, Dn


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


def _harmonic(n: np.ndarray) -> np.ndarray:
    """H_n = Σ_{i≤n} 1/i for each n (0 for n = 0)."""
    top = int(n.max()) if len(n) else 0
    h = np.zeros(top + 1)
    np.cumsum(1.0 / np.arange(1, top + 1), out=h[1:])
    return h[n]


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


def rbu_prefix(c: Cuts, level, p=0.8, e=0.05, max_grade=None):
    """rbu at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    stop, _ = cascade(part, max_grade)
    gain = (1.0 - p) * c.running(part, stop * rbp_weights(part, p))
    return gain - e * (1.0 - np.power(p, c.n))


@register("rbu", params=(P, EFFORT, STOP_MAX_GRADE), aliases=("rank_biased_utility",),
          citation=AMIGO + ", §3.3 (RBU); the effort per inspected document as there; "
          + TIES_NOTE + ".",
          undefined="Never undefined: 0 for an empty ranking; −e(1 − p^n) when nothing "
                    "retrieved has a positive grade (e.g. R = 0 with the default relevance_level).",
          ties=("Exact: the mean over a group's orders depends only on its multiset of stopping "
                "probabilities x; the group stops at offset s with probability ē_s − ē_{s+1}, ē_s "
                "= e_s(1 − x)/C(m, s) (the mean elementary symmetric polynomials of 1 − x over its"
                " m documents), times the probability of passing the earlier groups: a stable "
                "O(m·r) recurrence, never an enumeration."), prefix=rbu_prefix)
def rbu(prep: Prepared, level: float, p=0.8, e=0.05, max_grade=None) -> np.ndarray:
    """Rank-biased utility: RBU = (1 − p) Σ_{i≤n} p^(i−1) (x_i Π_{j<i}(1 − x_j) − e).

    Amigó, Mizzaro & Spina 2022, §3.3: an ERR-like gain under RBP's patience p, minus the
    effort e of every document inspected, discounted like the gain; the effort part is
    −e(1 − p^n). x as in ``err``. Equals the single-aspect RBU of the RBU authors'
    reference implementation (jCarrilloDeAlbornoz/RBU; unjudged documents cost effort too).

    >>> from trunc_accessor.frontends.single import rbu
    >>> rbu([1, 2, None], qrels_grades=[2, 1, 0], p=0.5, e=0.0)  # the RBU authors' value
    0.265625
    >>> round(rbu([1, 2, None], qrels_grades=[2, 1, 0], p=0.8, e=0.03), 5)
    0.12536
    """
    part = prep.judged_part()  # as ERR: an unjudged document never stops the user
    stop, _ = cascade(part, max_grade)
    gain = (1.0 - p) * part.seg_sum(stop * rbp_weights(part, p))
    return gain - e * (1.0 - rbp_tail(prep, p))


def erru_prefix(c: Cuts, level, e=0.05, max_grade=None):
    """erru at every cut-off of ``c`` (its prefix kernel)."""
    return _err_prefix(c, max_grade) - e * _harmonic(c.depth)


@register("erru", params=(EFFORT, STOP_MAX_GRADE),
          citation=AMIGO + ", §3.3 (ERRU); " + CHAPELLE + "; " + TIES_NOTE + ".",
          undefined="Never undefined: 0 for an empty ranking; −e·H_n (H_n = Σ_{i≤n} 1/i) "
                    "when nothing retrieved has a positive grade (e.g. R = 0 with the default "
                    "relevance_level).",
          ties=("Exact: the mean over a group's orders depends only on its multiset of stopping "
                "probabilities x; the group stops at offset s with probability ē_s − ē_{s+1}, ē_s "
                "= e_s(1 − x)/C(m, s) (the mean elementary symmetric polynomials of 1 − x over its"
                " m documents), times the probability of passing the earlier groups: a stable "
                "O(m·r) recurrence, never an enumeration."), prefix=erru_prefix)
def erru(prep: Prepared, level: float, e=0.05, max_grade=None) -> np.ndarray:
    """ERR with effort: ERRU = Σ_{i≤n} (1/i) (x_i Π_{j<i}(1 − x_j) − e) = ERR − e·H_n.

    Amigó, Mizzaro & Spina 2022, §3.3: every inspected document costs e, discounted by 1/i
    like the gain. x as in ``err``.

    >>> from trunc_accessor.frontends.single import erru
    >>> round(erru([1, 2, None], qrels_grades=[2, 1, 0]), 6)  # 0.2 + 0.25625 − 0.05/3
    0.439583
    """
    return _err(prep, max_grade) - e * _harmonic(prep.length)
