"""Inferred AP (infAP, Yilmaz & Aslam, CIKM 2006) exactly as trec_eval computes it
(m_infap.c).

The qrels divide the retrieved documents into four kinds: not in the pool (no qrels entry),
pooled but unjudged (a negative grade, e.g. -1: the judged sample left it out), judged
non-relevant (0 ≤ grade < relevance_level) and judged relevant. For the relevant document at
position j + 1 (j documents above it), with r relevant, m judged non-relevant and u pooled
but unjudged documents above it, trec_eval adds

    1/(j + 1) + (j/(j + 1)) · ((r + m + u)/j) · ((r + ε)/(r + m + 2ε)),   ε = 0.00001

(1 for the document at rank 1): the document itself, then the fraction of the documents
above it that are in the pool, times the precision estimated on the judged ones. The sum is
divided by R, the relevant judged documents of the query.
"""
from __future__ import annotations

import numpy as np

from ..prepare import Prepared
from ..registry import register
from ._order import TREC_EVAL, binary_ties_check
from .standard import _safe_div

INFAP_EPSILON = 0.00001  # trec_eval.h


def before_row(prep: Prepared, x: np.ndarray) -> np.ndarray:
    """For each row, the sum of ``x`` over the earlier rows of its ranking."""
    c = np.cumsum(x) - x
    nonempty = prep.length > 0
    start = np.zeros(prep.n_segments)
    start[nonempty] = c[prep.offsets[:-1][nonempty]]
    return c - start[prep.seg]


@register("infap", aliases=("inf_ap",),
          citation="Yilmaz & Aslam, 'Estimating average precision with incomplete and imperfect "
                   "judgments', CIKM 2006; " + TREC_EVAL + ", m_infap.c.",
          undefined="NaN (pandas) / null (Polars) when R = 0; left out of means (trec_eval "
                    "prints 0). An empty ranking with R > 0 scores 0.")
def infap(prep: Prepared, level: float) -> np.ndarray:
    """Inferred average precision, trec_eval's ``infAP``: AP estimated from a judged sample
    of the pool, where a negative grade marks a pooled but unjudged document.

    For the relevant document at position j + 1 with r relevant, m judged non-relevant and u
    pooled-but-unjudged documents above it, the term is 1/(j + 1) + (j/(j + 1)) ·
    ((r + m + u)/j) · ((r + ε)/(r + m + 2ε)), ε = 10⁻⁵ (1 at rank 1); infAP is their sum
    over R. Documents absent from the qrels are outside the pool: they count in j only.
    With complete judgments (no negative grade) it is close to AP but not equal (the ε).

    Ties: under ties='average' a query whose ranking ties a relevant document with any
    other raises a ValueError (the precision estimate is a ratio of counts above the
    document, with no closed-form mean over tie orders); pass ties='first' or
    ties='trec_eval'. Ties among relevant documents only, or without relevant ones, are
    accepted.

    >>> from trunc_accessor.single import infap
    >>> round(infap([1, 0, 1], R=2), 4)  # (1 + 1/3 + (2/3)(1 + ε)/(2 + 2ε)) / 2
    0.8333
    >>> round(infap([1, -1, 1], R=2), 4)  # the pooled, unjudged document is skipped
    1.0
    """
    binary_ties_check(prep, level, "infap", "its terms are ratios of counts above each "
                      "relevant document")
    g = prep.grade
    with np.errstate(invalid="ignore"):
        rel = g >= level
        nonrel = (g >= 0) & (g < level)
        pooled_unjudged = g < 0
    r = before_row(prep, rel.astype(np.float64))[rel]
    m = before_row(prep, nonrel.astype(np.float64))[rel]
    u = before_row(prep, pooled_unjudged.astype(np.float64))[rel]
    fj = (prep.pos[rel] - 1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        term = (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r + m + u) / fj)
                * ((r + INFAP_EPSILON) / (r + m + 2 * INFAP_EPSILON)))
    term = np.where(fj == 0, 1.0, term)
    total = np.bincount(prep.seg[rel], weights=term, minlength=prep.n_segments)
    return _safe_div(total, prep.num_relevant(level))
