"""Interpolated precision at recall levels (trec_eval's iprec_at_recall_x, 11pt_avg) and
precision at multiples of R (Rprec_mult_x), exactly as trec_eval 10.0 computes them.

Interpolated precision at recall level x (trec_eval m_iprec_at_recall.c): with R relevant
documents, the level is the cut c = lround(x·R) relevant documents (trec_eval 10.0; 9.0.8
and pytrec_eval used (long)(x·R + 0.9), which is why their values differ). If c exceeds
the relevant documents retrieved a, the value is 0; otherwise it is the largest precision
j / rank_j over the j-th relevant retrieved documents with j ≥ max(c, 1) ("Int_Prec(rankX) =
MAX(Prec(rankY)) for all Y >= X"). With none retrieved (a = 0, so c = 0) it is 0.

Ties (``ties="average"``): the exact mean over every order of the tied documents. A
maximum of precisions is not linear in the order, but its distribution is computable: the
tie groups are independent, and inside a group the relevant documents take a uniformly
random set of its positions, so P(value ≤ x) is a product of lattice-path counts
(``trunc_accessor.metrics._max_ties``); the mean sums the finitely many values the maximum can take.

Rprec_mult (m_Rprec_mult.c) is precision at the cut-off k = (long)(x·R + 0.9), P@k padded
with non-relevant documents as P_k, and tie-aware like P@k.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import safe_div
from trunc_accessor.metrics._max_ties import MAX_WORK, _refuse, mean_interpolated, work_floor
from trunc_accessor.metrics._order import TREC_EVAL, lround, relevant_ranks, segmented_suffix_max
from trunc_accessor.metrics.dialects import LEVELS, Spelling, TrecName
from trunc_accessor.metrics.params import Param, check_positive, check_unit
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register

RECALL = Param("recall", 0.0, check_unit, "the recall level x in [0, 1]; the cut is "
               "lround(x·R) relevant documents, as trec_eval 10")
LEVELS_11 = tuple(i / 10 for i in range(11))  # trec_eval's defaults, 0.0, 0.1, …, 1.0
UNDEF = "Undefined when R = 0 (no recall level exists). An empty ranking with R > 0 scores 0."
TIES_TEXT = ("Exact: interpolated precision is a maximum of precisions; tie groups are "
             "independent and a group's relevant documents take a uniformly random set of its "
             "positions, so P(value ≤ x) is a product of lattice-path counts over the groups "
             "(a small dynamic programme per candidate value), and the mean is the sum over "
             "the finitely many values the maximum can take. Tie groups whose work would pass "
             "2·10^8 steps are refused with their size.")


def check_recalls(levels):
    """Recall levels for the 11-point average: a non-empty sequence of numbers in [0, 1]."""
    if not isinstance(levels, (list, tuple, np.ndarray)):
        raise ValueError(f"must be a list or tuple of recall levels in [0, 1], not {levels!r}")
    out = tuple(check_unit(x) for x in levels)
    if not out:
        raise ValueError("must name at least one recall level")
    return tuple(sorted(out))


RECALLS = Param("recalls", LEVELS_11, check_recalls, "the recall levels averaged (trec_eval's "
                "11pt_avg..25,.5,.75); default 0.0, 0.1, …, 1.0")


def recall_cut(prep: Prepared, x: float, R: np.ndarray) -> np.ndarray:
    """The relevant documents a recall level x asks for: lround(x·R) (trec_eval 10), or
    (long)(x·R + 0.9) under ties="trec_eval9" (trec_eval 9.0.8 and pytrec_eval)."""
    if prep.ties == "trec_eval9":
        return np.floor(x * R + 0.9)
    return lround(x * R)


def interpolated_at(prep: Prepared, level: float, recalls, name: str) -> list[np.ndarray]:
    """Interpolated precision of every ranking at each recall level in ``recalls``; under
    ties="average" the exact mean over tie orders (``_max_ties``) for the rankings
    whose tie groups mix relevant and non-relevant documents."""
    R = prep.num_relevant(level)
    seg, j, pos, first = relevant_ranks(prep, level)
    a = np.diff(first)
    cuts = [recall_cut(prep, x, R) for x in recalls]
    best = segmented_suffix_max(j / pos, seg)  # max precision at the j-th relevant and later
    out = []
    for c in cuts:
        take = (c <= a) & (a > 0)
        value = np.zeros(prep.n_segments)
        idx = first[:-1][take] + np.maximum(c[take], 1).astype(np.int64) - 1
        value[take] = best[idx]
        out.append(np.where(R > 0, value, np.nan))
    if prep.ties == "average" and not prep.singleton_groups:
        _exact_over_ties(prep, level, cuts, out, a)
    return out


def _exact_over_ties(prep: Prepared, level: float, cuts, out, a) -> None:
    """Replace the values of rankings with mixed tie groups by their exact means."""
    rel = prep.relevant(level)
    r_g = prep.group_sum(rel)
    mixed = (r_g > 0) & (r_g < prep.g_size)
    if not mixed.any():
        return
    before = prep.before_group(r_g)
    tasks = []
    for s in np.unique(prep.g_seg[mixed]):
        lo, hi = prep.offsets[s], prep.offsets[s + 1]
        rows = np.arange(lo, hi)
        g_rows = prep.gid[rows]
        is_rel = rel[rows] > 0
        j = np.cumsum(is_rel)
        fixed = is_rel & ~mixed[g_rows]
        groups = [(int(before[g]), int(prep.g_start[g]), int(prep.g_size[g]), int(r_g[g]))
                  for g in np.unique(g_rows[mixed[g_rows]])]
        for c, values in zip(cuts, out):
            if values[s] != values[s] or c[s] > a[s]:  # undefined (R = 0), or cut unreached
                continue
            task = (j[fixed], prep.pos[rows][fixed], groups, int(c[s]))
            floor = work_floor(*task)
            if floor > MAX_WORK:  # refused before any ranking's work
                _refuse(floor, _where(prep, s), groups, exact=False)
            tasks.append((values, s, task))
    for values, s, task in tasks:
        values[s] = mean_interpolated(*task, _where(prep, s))


def _where(prep: Prepared, s) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in prep.keys.row(int(s), named=True).items())


@register("iprec_at_recall", params=(RECALL,), aliases=("iprec", "interpolated_precision"),
          citation=TREC_EVAL + ", m_iprec_at_recall.c (lround cut of version 10).",
          undefined=UNDEF, ties=TIES_TEXT,
          ir_measures=Spelling("IPrec", at="recall"),
          trec_eval=TrecName("iprec_at_recall", "levels", "recall", LEVELS))
def iprec_at_recall(prep: Prepared, level: float, recall=0.0) -> np.ndarray:
    """Interpolated precision at a recall level: the best precision at any rank where recall
    is at least the level (trec_eval ``iprec_at_recall_x``, ir_measures ``IPrec@x``).

    The level x is the cut c = lround(x·R) relevant documents (trec_eval 10.0; 9.0.8 and
    pytrec_eval round with (long)(x·R + 0.9)): the value is the largest j / rank_j over the
    j-th relevant retrieved documents with j ≥ max(c, 1), and 0 when fewer than c relevant
    documents are retrieved (or none). ``recall=0`` (the default) is the best precision
    anywhere in the ranking.

    Ties: under ties='average' the exact mean over the orders of tied documents (module
    docstring). Under ties='trec_eval9' the cut is 9.0.8's (long)(x·R + 0.9).

    >>> from trunc_accessor.frontends.single import iprec_at_recall
    >>> iprec_at_recall([0, 1, 0, 1, 1], R=4)  # the best precision: 3/5
    0.6
    >>> iprec_at_recall([0, 1, 0, 1, 1], R=4, recall=0.5), iprec_at_recall([1, 0], R=4, recall=0.5)
    (0.6, 0.0)
    """
    return interpolated_at(prep, level, [recall], "iprec_at_recall")[0]


@register("interpolated_precision_11pt", params=(RECALLS,),
          aliases=("iprec_11pt", "eleven_point_avg"),
          citation=TREC_EVAL + ", m_11pt_avg.c (lround cut of version 10).", undefined=UNDEF,
          ties="Exact: the mean of iprec_at_recall's exact tie-aware values at each level.",
          trec_eval=TrecName("11pt_avg", "recalls", "recalls", LEVELS))
def interpolated_precision_11pt(prep: Prepared, level: float, recalls=LEVELS_11) -> np.ndarray:
    """11-point interpolated average precision: the mean of ``iprec_at_recall`` at recall
    0.0, 0.1, …, 1.0 (trec_eval ``11pt_avg``), or at the levels ``recalls`` (trec_eval's
    ``11pt_avg..25,.5,.75``).

    Ties: the mean of the exact tie-aware values of ``iprec_at_recall``.

    >>> from trunc_accessor.frontends.single import interpolated_precision_11pt
    >>> interpolated_precision_11pt([1, 0, 1], R=2)  # cut c = lround(2x): 1 for x ≤ 0.7, 2/3 after
    0.909090909090909
    """
    values = interpolated_at(prep, level, recalls, "interpolated_precision_11pt")
    return np.sum(values, axis=0) / len(recalls)


MULT = Param("mult", 1.0, check_positive, "the multiple x of R; the cut-off is (long)(x·R + 0.9)")


def rprec_mult_prefix(c: Cuts, level, mult=1.0):
    """rprec_mult at every cut-off of ``c`` (its prefix kernel)."""
    R = c.prep.num_relevant(level)
    k = np.floor(mult * R + 0.9)
    part = c.prep.judged_part()
    inside = (part.pos <= k[part.seg]).astype(np.float64)
    num = c.running(part, part.group_mean(part.relevant(level)) * inside)
    return np.where(c.ranking(R) > 0, safe_div(num, c.ranking(k)), np.nan)


@register("rprec_mult", params=(MULT,), aliases=("r_prec_mult",),
          citation=TREC_EVAL + ", m_Rprec_mult.c; tie-aware as P@k (McSherry & Najork, ECIR "
          "2008, §2.1).",
          undefined="Undefined when R = 0, and when the cut-off rounds to 0 (x·R < 0.1). An "
                    "empty ranking with R > 0 scores 0.",
          ties=("Exact, as precision@k: a tie group cut by the cut-off counts the share "
                "(k − t)/n of its documents (t positions before the group, n documents in it)."),
          trec_eval=TrecName("Rprec_mult", "levels", "mult",
                             tuple(m / 10 for m in range(2, 21, 2))), prefix=rprec_mult_prefix)
def rprec_mult(prep: Prepared, level: float, mult=1.0) -> np.ndarray:
    """Precision at a multiple of R: P@k with k = (long)(x·R + 0.9), trec_eval's
    ``Rprec_mult_x`` (x = ``mult``; ``mult=1`` is R-precision).

    The cut-off rounds x·R up unless its fraction is below 0.1 (trec_eval's +0.9 and
    truncation: 0.2·474 = 94.8 → 95, 0.2·12 = 2.4 → 3, 0.2·5 = 1.0 → 1). A ranking shorter
    than k counts as padded with non-relevant documents, as P_k. Tie-aware as P@k: the group
    cut at k contributes its mean.

    >>> from trunc_accessor.frontends.single import rprec_mult
    >>> rprec_mult([1, 0, 1, 1, 0], R=4, mult=0.5), rprec_mult([1, 0, 1, 1, 0], R=4, mult=2.0)
    (0.5, 0.375)
    """
    R = prep.num_relevant(level)
    k = np.floor(mult * R + 0.9)
    in_cut = (prep.pos <= k[prep.seg]).astype(np.float64)
    num = prep.seg_sum(prep.group_mean(prep.relevant(level)) * in_cut)
    return np.where(R > 0, safe_div(num, k), np.nan)

