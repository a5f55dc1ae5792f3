"""The cascade under ties (``ties="average"``): the exact mean, over the orders of each tie
group, of the probability that the user stops at each of its positions, for ERR, ERR', RBU and
ERRU (``trunc_accessor.metrics.cascade``). A group of m documents with stopping probabilities
x stops the user at within-group offset s with mean probability D_s = ē_s − ē_{s+1}, ē_s the
mean of Π(1 − x) over a uniformly random s-subset of the group.

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
