"""Compatibility (Clarke, Vtyurina & Smucker, 'Assessing top-k preferences', ACM TOIS 39(3),
2021; Clarke, Smucker & Vtyurina, 'Offline evaluation by maximum similarity to an ideal
ranking', CIKM 2020): the rank-biased overlap (RBO, Webber, Moffat & Zobel, ACM TOIS 28(4),
2010) of a ranking S with the ideal ranking I of the query's qrels that is most like it.

I holds the relevant documents (grade ≥ relevance_level), by grade descending; among equal
grades, the retrieved ones in the ranking's order, then the others (the authors'
``idealize``: of all ideal rankings, the one closest to S). With D = max(n, |I|) and
O_i = |S[:i] ∩ I[:i]|,

    RBO(S, I) = Σ_{i ≤ D} p^(i−1) · O_i / i  /  Σ_{i ≤ D} p^(i−1)

and, normalised (the default, Clarke et al. 2021, for short ideal rankings), compat =
RBO(S, I) / RBO(I, I). This is ir_measures' ``Compat(p, normalize)``, whose depth D we use;
the authors' script sums to a fixed depth of 1000, which differs only by the weight beyond
rank max(n, |I|) (negligible for p ≤ 0.95 and rankings near 1000 documents).

Computation. A relevant retrieved document x at ideal rank rI(x) and position rS(x) is in
O_i for every i ≥ max(rI(x), rS(x)), so the numerator is Σ_x W(max(rI, rS)) with W(m) =
Σ_{i=m}^{D} p^(i−1)/i, a difference of one prefix-sum table: O(n + judged) per query.

Ties (``ties="average"``): exact mean over the orders of every tie group. The ideal rank of
a document depends on the ranking's order among equal grades, so the mean is not that of
group-mean gains; but the i-th document of grade g of a tie group (of n documents, K of
grade g, t positions before it) always has ideal rank b + i (b: the judged documents of
higher grades plus those of grade g in earlier groups) and sits at offset v with the
negative-hypergeometric probability C(v − 1, i − 1)·C(n − v, K − i) / C(n, K). When the
group starts at or after b (t ≥ b: no document of it can come before its ideal place) or ends
by the last of them (t + n ≤ b + K: none can come after it), the mean is a difference of one
prefix-sum table; otherwise it takes K·(n − K − d) terms (d = b − t), evaluated in bounded chunks.
Beyond 3·10^8 such terms (a tie group of tens of thousands of documents ranked ahead of its grade's
ideal place) a ValueError asks for ties="first" or "trec_eval".
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics._combinatorics import log_factorials
from trunc_accessor.metrics.params import Param, check_bool, check_p
from trunc_accessor.metrics.registry import register

CLARKE = ("Clarke, Vtyurina & Smucker, 'Assessing top-k preferences', ACM TOIS 39(3), 2021 "
          "(normalisation); Clarke, Smucker & Vtyurina, 'Offline evaluation by maximum "
          "similarity to an ideal ranking', CIKM 2020; ir_measures' Compat (compat_provider.py)")
COMPAT_P = Param("p", 0.95, check_p, "RBO persistence (0.95, the authors' default, is "
                 "roughly NSCG@20)")
NORMALIZE = Param("normalize", True, check_bool,
                  "divide by the ideal ranking's own RBO (Clarke et al. 2021)")
CHUNK = 1 << 20         # (i, y) terms evaluated at once
MAX_TERMS = 3 * 10 ** 8  # beyond this an exact tie-aware value is refused (~20 s of work)


def _higher_grades(prep: Prepared, level: float, q: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """For each (qid index, relevant grade): the qid's judged documents with grade ≥ level and
    > grade, i.e. the ideal positions above that grade."""
    with np.errstate(invalid="ignore"):
        q_rel = prep.q_grades >= level
    values = np.unique(prep.q_grades[q_rel])
    n_values = max(len(values), 1)
    judged = np.sort(prep.q_seg[q_rel] * n_values + np.searchsorted(values, prep.q_grades[q_rel]))
    key = q * n_values + np.searchsorted(values, grades)
    end = np.searchsorted(judged, (q + 1) * n_values)
    return (end - np.searchsorted(judged, key, side="right")).astype(np.float64)


def _entries(prep: Prepared, level: float):
    """One entry per (tie group, relevant grade) present: its segment, group size n, K
    documents of that grade, t positions before the group, and base = the ideal rank before
    the group's first document of that grade."""
    rows = np.flatnonzero(prep.relevant(level) > 0)
    gid, grade = prep.gid[rows], prep.grade[rows]
    order = np.lexsort((grade, gid))
    gid, grade = gid[order], grade[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = (gid[1:] != gid[:-1]) | (grade[1:] != grade[:-1])
    starts = np.flatnonzero(new)
    e_gid, e_grade = gid[starts], grade[starts]
    e_k = np.diff(np.append(starts, len(rows)))
    e_seg = prep.g_seg[e_gid]
    # A: documents of the same grade in earlier groups of the same ranking
    o = np.lexsort((e_gid, e_grade, e_seg))
    k_o = e_k[o]
    before = np.cumsum(k_o) - k_o
    first = np.ones(len(o), dtype=bool)
    first[1:] = (e_seg[o][1:] != e_seg[o][:-1]) | (e_grade[o][1:] != e_grade[o][:-1])
    run_start = np.maximum.accumulate(np.where(first, np.arange(len(o)), 0))
    a = np.empty(len(o))
    a[o] = before - before[run_start]
    base = _higher_grades(prep, level, prep.seg_q[e_seg], e_grade) + a
    return e_seg, prep.g_size[e_gid], e_k, prep.g_start[e_gid], base


class Weights:
    """RBO weight tables up to the deepest ranking, D_max: ``tail[x]`` = Σ_{i=x}^{D_max}
    p^(i−1)/i (x = 1 … D_max + 1, tail[D_max + 1] = 0) and ``cum[a]`` = Σ_{x=1}^{a} tail[x].
    A document counted in O_i from i = m on, to depth D, weighs tail[m] − tail[D + 1]; tails
    are small where they are many, so sums of them stay accurate (cum ≤ 1/(1 − p))."""

    def __init__(self, p: float, d_max: int):
        i = np.arange(1, d_max + 1, dtype=np.float64)
        w = np.power(p, i - 1.0) / i
        self.tail = np.zeros(d_max + 2)
        self.tail[1:d_max + 1] = np.cumsum(w[::-1])[::-1]
        self.cum = np.concatenate([[0.0], np.cumsum(self.tail[1:])])

    def run(self, start, count):
        """Σ_{x=start+1}^{start+count} tail[x]."""
        return self.cum[start + count] - self.cum[start]


def overlap_sum(prep: Prepared, level: float, wt: Weights, depth: np.ndarray) -> np.ndarray:
    """Σ_{i ≤ D} p^(i−1)·O_i/i per ranking, as its mean over tie orders; ``depth`` = D per
    segment.

    Per (tie group, grade) entry — n documents, K of the grade, t positions before the
    group, base b = the ideal rank before its first document of the grade, d = b − t — the
    i-th document of the grade at offset v counts from max(b + i, t + v) = b + i + (y − d)⁺
    on (y = v − i, the other documents before it in the group):

    * a single document (no tie): tail[max(b, t) + 1], summed in ranking order, so that the
      ideal ranking's sum is bit for bit its normaliser's (compat exactly 1);
    * d ≤ 0: always t + v, and v is uniform on 1 … n: (K/n)·Σ_{v ≤ n} tail[t + v];
    * d ≥ n − K: always b + i: Σ_{i ≤ K} tail[b + i];
    * otherwise that, plus Σ_i Σ_{y > d} P(y | i)·(tail[b + i + y − d] − tail[b + i]),
      P(y | i) = C(i − 1 + y, i − 1)·C(n − i − y, K − i) / C(n, K): K·(n − K − d) terms,
      evaluated in bounded chunks.

    Every document also subtracts tail[D + 1] (its weight beyond the depth)."""
    seg, n, k, t, base = _entries(prep, level)
    total = np.zeros(prep.n_segments)
    if len(seg) == 0:
        return total
    single = n == 1
    total += np.bincount(seg[single],
                         weights=wt.tail[np.maximum(base, t)[single].astype(np.int64) + 1],
                         minlength=prep.n_segments)
    b = base.astype(np.int64)
    d = b - t
    late = ~single & (d <= 0)
    early = ~single & ~late
    extra = np.zeros(len(seg))
    extra[late] = k[late] / n[late] * wt.run(t[late], n[late])
    extra[early] = wt.run(b[early], k[early])
    total += np.bincount(seg, weights=extra, minlength=prep.n_segments)
    mixed = np.flatnonzero(early & (d < n - k))
    if mixed.size:
        total += _spread(prep, wt, seg[mixed], n[mixed], k[mixed], b[mixed], d[mixed])
    mass = np.bincount(seg, weights=k, minlength=prep.n_segments)
    return total - mass * wt.tail[depth + 1]


def _spread(prep: Prepared, wt: Weights, seg, n, k, b, d) -> np.ndarray:
    """Σ_i Σ_{y > d} P(y | i)·(tail[b + i + y − d] − tail[b + i]) per segment (see
    ``overlap_sum``)."""
    out = np.zeros(prep.n_segments)
    ys = n - k - d                          # y = d + 1 … n − K
    count = k * ys
    if int(count.sum()) > MAX_TERMS:
        raise ParameterError(
            f"compat with ties='average': a tie group of {int(n.max())} documents needs "
            f"{int(count.sum()):,} terms for its exact mean over tie orders (more than "
            f"{MAX_TERMS:,}); pass ties='first' or ties='trec_eval'")
    lf = log_factorials(int(n.max()))
    ends = np.cumsum(count)
    for lo in range(0, int(ends[-1]), CHUNK):  # bounded memory, whatever the ties
        idx = np.arange(lo, min(lo + CHUNK, int(ends[-1])), dtype=np.int64)
        e = np.searchsorted(ends, idx, side="right")
        local = idx - (ends[e] - count[e])
        i = local // ys[e] + 1
        y = d[e] + 1 + local % ys[e]
        ne, ke = n[e], k[e]
        log_p = (lf[i - 1 + y] - lf[i - 1] - lf[y] + lf[ne - i - y] - lf[ke - i]
                 - lf[ne - ke - y] - (lf[ne] - lf[ke] - lf[ne - ke]))
        first = b[e] + i
        gain = wt.tail[first + y - d[e]] - wt.tail[first]
        out += np.bincount(seg[e], weights=np.exp(log_p) * gain, minlength=prep.n_segments)
    return out


@register("compat", params=(COMPAT_P, NORMALIZE), aliases=("compatibility",),
          citation=CLARKE + ".",
          undefined="Undefined when R = 0: there is no ideal ranking (the authors' script "
                    "skips such queries; ir_measures reports 0). An empty "
                    "ranking with R > 0 scores 0.",
          ties=("Exact mean over the orders of tied documents (the docstring states how)."),
          ir_measures="Compat")
def compat(prep: Prepared, level: float, p=0.95, normalize=True) -> np.ndarray:
    """Compatibility: rank-biased overlap of the ranking with the ideal ranking most like it,
    normalised by the ideal ranking's own (ir_measures ``Compat(p, normalize)``).

    The ideal ranking holds the relevant documents (grade ≥ relevance_level) by grade
    descending, equal grades in the ranking's order and unretrieved ones last. RBO sums
    p^(i−1)·|S[:i] ∩ I[:i]|/i to depth max(n, R); ``normalize=True`` divides it by RBO(I, I),
    so that the ideal ranking scores 1 however short it is; ``normalize=False`` is RBO
    itself (Σ weights = 1 over the depth). Tie-aware: the exact mean over the orders of tied
    documents (module doc). ir_measures counts grade > 0 as relevant: the same with the
    default relevance_level on integer grades.

    >>> from trunc_accessor.frontends.single import compat
    >>> compat([2, 1, 0]), round(compat([1, 2, 0]), 4)  # O = 0, 2, 2 against 1, 2, 2
    (1.0, 0.6081)
    >>> round(compat([0, 1], R=1, p=0.5, normalize=False), 4)  # (0 + 0.5·1/2) / 1.5
    0.1667
    """
    R = prep.num_relevant(level)
    depth = np.maximum(prep.length, R).astype(np.int64)
    d_max = int(depth.max()) if len(depth) else 0
    wt = Weights(p, d_max)
    num = overlap_sum(prep, level, wt, depth)
    if normalize:
        # RBO(I, I)'s numerator: the j-th ideal document counts from rank j on
        den = wt.cum[R.astype(np.int64)] - R * wt.tail[depth + 1]
    else:
        den = (1.0 - np.power(p, depth.astype(np.float64))) / (1.0 - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, num / np.where(R > 0, den, 1.0), np.nan)
