"""trec_eval's own rbp and rbp_resid (m_rbp.c, m_rbp_resid.c): RBP (Moffat & Zobel, TOIS
2008) over gains normalised by the largest gain of the query's judgments, as trec_eval 10.0
computes them; the gains as in ``trunc_accessor.metrics.trec_only`` (gain_init.c).

Ties (``ties="average"``): both are linear in the gain at each position, so each gain is
replaced by its tie group's mean (McSherry & Najork 2008).
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import rbp_tail, rbp_weights
from trunc_accessor.metrics.dcg import GAINS
from trunc_accessor.metrics.dialects import TrecName
from trunc_accessor.metrics.params import P, Param, check_p
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.trec_only import CITE, trec_gains

# --------------------------------------------------------------------------- rbp, rbp_resid
TREC_P = Param("p", 0.9, check_p, P.doc + " (trec_eval's default 0.9)")


def _normalised_gains(prep: Prepared, gains) -> np.ndarray:
    """trec_eval's rbp gains: min–max normalised to [0, 1] when a gain of the query's grade
    scale lies outside it (m_rbp.c). The scale is every level 0…m (m the query's largest
    grade ≥ 0) with its gain, and every grade ``gains`` names; min and max start from 0
    (trec_eval reads them uninitialised; 0 reproduces its shipped outputs)."""
    g = trec_gains(prep.grade, gains)
    n_q = len(prep.q_offsets) - 1
    top = np.full(n_q, -1.0)
    judged = prep.q_grades >= 0
    np.maximum.at(top, prep.q_seg[judged], np.floor(prep.q_grades[judged]))
    named = [v for _, v in gains] if isinstance(gains, tuple) else []
    lo, hi = np.zeros(n_q), np.zeros(n_q)
    for m in np.unique(top):
        scale = np.concatenate([trec_gains(np.arange(m + 1.0), gains), named, [0.0]])
        lo[top == m], hi[top == m] = scale.min(), scale.max()
    lo, hi = lo[prep.seg_q][prep.seg], hi[prep.seg_q][prep.seg]
    rescale = ((lo < 0) | (hi > 1)) & (prep.grade >= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rescale, (g - lo) / np.where(hi > lo, hi - lo, 1.0), g)


def trec_rbp_prefix(c: Cuts, level, p=0.9, gains=None):
    """trec_rbp at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()  # unjudged documents gain nothing
    g = part.group_mean(_normalised_gains(part, gains))
    return (1.0 - p) * c.running(part, g * rbp_weights(part, p))


@register("trec_rbp", params=(TREC_P, GAINS), citation=CITE + "m_rbp.c (Moffat & Zobel, "
          "'Rank-biased precision for measurement of retrieval effectiveness', ACM TOIS 27(1), "
          "2008).",
          undefined="Never undefined: 0 for an empty ranking, and 0 when R = 0 and no "
                    "retrieved document has a positive gain.",
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008)."),
          trec_eval=TrecName("rbp", "pairs", "p"), prefix=trec_rbp_prefix)
def trec_rbp(prep: Prepared, level: float, p=0.9, gains=None) -> np.ndarray:
    """trec_eval's ``rbp``: (1 − p) Σ_i gain_i p^(i−1) with graded gains (the grade, or
    ``gains``), min–max normalised to [0, 1] over the query's grade levels when a gain lies
    outside [0, 1]. For binary qrels it is ``rbp(p=0.9)``.

    >>> from trunc_accessor.frontends.single import trec_rbp
    >>> round(trec_rbp([2, 0, 1], qrels_grades=[2, 0, 1]), 6)  # 0.1·(1 + 0.5·0.81)
    0.1405
    """
    g = prep.group_mean(_normalised_gains(prep, gains))
    return (1.0 - p) * prep.seg_sum(g * rbp_weights(prep, p))


def trec_rbp_residual_prefix(c: Cuts, level, p=0.9, gains=None):
    """trec_rbp_residual at every cut-off of ``c`` (its prefix kernel)."""
    prep = c.prep
    unjudged_ = (~(prep.grade >= 0)).astype(np.float64)
    value = np.power(p, c.n) + (1.0 - p) * c.running(
        prep, prep.group_mean(unjudged_) * rbp_weights(prep, p))
    return np.where(c.running(prep, unjudged_) > 0, value, 0.0)


@register("trec_rbp_residual", params=(TREC_P, GAINS), citation=CITE + "m_rbp_resid.c.",
          undefined="Never undefined: 0 when the ranking holds no unjudged document "
                    "(trec_eval's rule; the empty ranking included); R = 0 changes nothing "
                    "(the residual counts unjudged documents).",
          ties=("Exact: the unjudged indicator is replaced by its tie group's mean (the "
                "trec_eval rule that a ranking without unjudged documents scores 0 is "
                "order-free)."),
          trec_eval=TrecName("rbp_resid", "pairs", "p"), prefix=trec_rbp_residual_prefix)
def trec_rbp_residual(prep: Prepared, level: float, p=0.9, gains=None) -> np.ndarray:
    """trec_eval's ``rbp_resid``: p^n + (1 − p) Σ_{unjudged i} p^(i−1), the weight RBP
    leaves undecided, but 0 when the ranking holds no unjudged document (trec_eval's rule;
    ``rbp_residual`` gives p^n there). ``gains`` is accepted as trec_eval accepts it and
    changes nothing.

    >>> from trunc_accessor.frontends.single import trec_rbp_residual
    >>> round(trec_rbp_residual([1, None, 0], qrels_grades=[1, 0]), 6)  # 0.729 + 0.1·0.9
    0.819
    """
    unjudged = ~(prep.grade >= 0)
    u = prep.group_mean(unjudged.astype(np.float64))
    tail = rbp_tail(prep, p)
    value = tail + (1.0 - p) * prep.seg_sum(u * rbp_weights(prep, p))
    return np.where(prep.seg_sum(unjudged.astype(np.float64)) > 0, value, 0.0)
