"""Interpolated precision at recall levels (trec_eval's iprec_at_recall_x, 11pt_avg) and
precision at multiples of R (Rprec_mult_x), exactly as trec_eval 10.0 computes them.

Interpolated precision at recall level x (trec_eval m_iprec_at_recall.c): with R relevant
documents, the level is the cut c = lround(x·R) relevant documents (trec_eval 10.0; 9.0.8
and pytrec_eval used (long)(x·R + 0.9), which is why their values differ). If c exceeds
the relevant documents retrieved a, the value is 0; otherwise it is the largest precision
j / rank_j over the j-th relevant retrieved documents with j ≥ max(c, 1) ("Int_Prec(rankX) =
MAX(Prec(rankY)) for all Y >= X"). With none retrieved (a = 0, so c = 0) it is 0.

Ties (``ties="average"``): the maximum of precisions is not linear in the order, so its
mean over tie orders has no closed form; a query whose ranking ties relevant with
non-relevant documents where it matters (at or after its c-th relevant document) raises a
ValueError. Ties among relevant documents only, or among non-relevant ones only, change
nothing and are accepted.

Rprec_mult (m_Rprec_mult.c) is precision at the cut-off k = (long)(x·R + 0.9), P@k padded
with non-relevant documents as P_k, and tie-aware like P@k.
"""
from __future__ import annotations

import numpy as np

from ..prepare import Prepared
from ..registry import Param, check_positive, check_unit, register
from ._order import (
    TREC_EVAL,
    binary_ties_check,
    lround,
    relevant_ranks,
    segmented_suffix_max,
)
from .standard import _safe_div

RECALL = Param("recall", 0.0, check_unit, "the recall level x in [0, 1]; the cut is "
               "lround(x·R) relevant documents, as trec_eval 10")
LEVELS_11 = tuple(i / 10 for i in range(11))  # trec_eval's defaults, 0.0, 0.1, …, 1.0
UNDEF = ("NaN (pandas) / null (Polars) when R = 0 (no recall level exists; trec_eval prints "
         "0); left out of means. An empty ranking with R > 0 scores 0.")
WHY = "it is a maximum of precisions over ranks"


def interpolated_at(prep: Prepared, level: float, recalls, name: str) -> list[np.ndarray]:
    """Interpolated precision of every ranking at each recall level in ``recalls``."""
    R = prep.num_relevant(level)
    seg, j, pos, first = relevant_ranks(prep, level)
    a = np.diff(first)
    cuts = [lround(x * R) for x in recalls]
    # the relevant documents from which on a tie matters: the smallest reachable cut
    reachable = [np.where(c <= a, np.maximum(c, 1), np.inf) for c in cuts]
    binary_ties_check(prep, level, name, WHY, np.minimum.reduce(reachable))
    best = segmented_suffix_max(j / pos, seg)  # max precision at the j-th relevant and later
    out = []
    for c in cuts:
        take = (c <= a) & (a > 0)
        value = np.zeros(prep.n_segments)
        idx = first[:-1][take] + np.maximum(c[take], 1).astype(np.int64) - 1
        value[take] = best[idx]
        out.append(np.where(R > 0, value, np.nan))
    return out


@register("iprec_at_recall", params=(RECALL,), aliases=("iprec", "interpolated_precision"),
          citation=TREC_EVAL + ", m_iprec_at_recall.c (lround cut of version 10).",
          undefined=UNDEF)
def iprec_at_recall(prep: Prepared, level: float, recall=0.0) -> np.ndarray:
    """Interpolated precision at a recall level: the best precision at any rank where recall
    is at least the level (trec_eval ``iprec_at_recall_x``, ir_measures ``IPrec@x``).

    The level x is the cut c = lround(x·R) relevant documents (trec_eval 10.0; 9.0.8 and
    pytrec_eval round with (long)(x·R + 0.9)): the value is the largest j / rank_j over the
    j-th relevant retrieved documents with j ≥ max(c, 1), and 0 when fewer than c relevant
    documents are retrieved (or none). ``recall=0`` (the default) is the best precision
    anywhere in the ranking.

    Ties: under ties='average' a query whose ranking ties relevant with non-relevant
    documents (at or after its c-th relevant one) raises a ValueError: a maximum has no
    closed-form mean over tie orders. Pass ties='first' or ties='trec_eval'.

    >>> from trunc_accessor.single import iprec_at_recall
    >>> iprec_at_recall([0, 1, 0, 1, 1], R=4)  # the best precision: 3/5
    0.6
    >>> iprec_at_recall([0, 1, 0, 1, 1], R=4, recall=0.5), iprec_at_recall([1, 0], R=4, recall=0.5)
    (0.6, 0.0)
    """
    return interpolated_at(prep, level, [recall], "iprec_at_recall")[0]


@register("interpolated_precision_11pt", aliases=("iprec_11pt", "eleven_point_avg"),
          citation=TREC_EVAL + ", m_11pt_avg.c (lround cut of version 10).", undefined=UNDEF)
def interpolated_precision_11pt(prep: Prepared, level: float) -> np.ndarray:
    """11-point interpolated average precision: the mean of ``iprec_at_recall`` at recall
    0.0, 0.1, …, 1.0 (trec_eval ``11pt_avg``).

    Ties: as ``iprec_at_recall`` at recall 0 — under ties='average' any tie of relevant with
    non-relevant documents raises a ValueError; pass ties='first' or ties='trec_eval'.

    >>> from trunc_accessor.single import interpolated_precision_11pt
    >>> interpolated_precision_11pt([1, 0, 1], R=2)  # cut c = lround(2x): 1 for x ≤ 0.7, 2/3 after
    0.909090909090909
    """
    values = interpolated_at(prep, level, LEVELS_11, "interpolated_precision_11pt")
    return np.sum(values, axis=0) / len(LEVELS_11)


MULT = Param("mult", 1.0, check_positive, "the multiple x of R; the cut-off is (long)(x·R + 0.9)")


@register("rprec_mult", params=(MULT,), aliases=("r_prec_mult",),
          citation=TREC_EVAL + ", m_Rprec_mult.c; tie-aware as P@k (McSherry & Najork, ECIR "
          "2008, §2.1).",
          undefined="NaN (pandas) / null (Polars) when R = 0, and when the cut-off rounds to 0 "
                    "(x·R < 0.1); trec_eval prints 0. An empty ranking with R > 0 scores 0.")
def rprec_mult(prep: Prepared, level: float, mult=1.0) -> np.ndarray:
    """Precision at a multiple of R: P@k with k = (long)(x·R + 0.9), trec_eval's
    ``Rprec_mult_x`` (x = ``mult``; ``mult=1`` is R-precision).

    The cut-off rounds x·R up unless its fraction is below 0.1 (trec_eval's +0.9 and
    truncation: 0.2·474 = 94.8 → 95, 0.2·12 = 2.4 → 3, 0.2·5 = 1.0 → 1). A ranking shorter
    than k counts as padded with non-relevant documents, as P_k. Tie-aware as P@k: the group
    cut at k contributes its mean.

    >>> from trunc_accessor.single import rprec_mult
    >>> rprec_mult([1, 0, 1, 1, 0], R=4, mult=0.5), rprec_mult([1, 0, 1, 1, 0], R=4, mult=2.0)
    (0.5, 0.375)
    """
    R = prep.num_relevant(level)
    k = np.floor(mult * R + 0.9)
    in_cut = (prep.pos <= k[prep.seg]).astype(np.float64)
    num = prep.seg_sum(prep.group_mean(prep.relevant(level)) * in_cut)
    return np.where(R > 0, _safe_div(num, k), np.nan)

