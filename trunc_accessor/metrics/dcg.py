"""Discounted cumulative gain: DCG and nDCG (Järvelin & Kekäläinen 2002), their gains
(a grade, 2^g − 1, or a mapping grade → gain, as trec_eval's ``ndcg.1=3,2=9``) and the
ideal ranking's DCG.

Tie-aware as every kernel of ``trunc_accessor.metrics.standard``: every gain is replaced by
its tie group's mean gain (McSherry & Najork, ECIR 2008), and a group cut by a cut-off
counts the share of its positions inside it.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import discount, in_cut, safe_div
from trunc_accessor.metrics._order import best_first
from trunc_accessor.metrics.dialects import CUTS, Spelling, TrecName
from trunc_accessor.metrics.params import (
    K,
    Param,
    check_gains,
    check_positive_or_none,
    is_real,
)
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.standard import MCSHERRY


def gain_values(grades: np.ndarray, gains, min_grade=None) -> np.ndarray:
    """Gain of each grade: the grade itself (trec_eval), 2^g − 1 for
    ``"exponential"``, or a mapping grade → gain (grades it does not name keep gain =
    grade, as trec_eval's ``ndcg.1=3,2=9``). Negative grades count as 0; unjudged
    documents (NaN) gain 0; so do grades below ``min_grade`` when it is given."""
    g = np.where(np.isnan(grades), -1.0, grades)
    base = np.maximum(g, 0.0)
    if gains is None:
        out = base
    elif gains == "exponential":
        out = np.exp2(base) - 1.0
    else:
        out = base.copy()
        for grade, gain in gains:
            out[g == grade] = gain
    if min_grade is not None:
        out[g < min_grade] = 0.0
    return np.where(np.isnan(grades), 0.0, out)


def dcg_values(prep: Prepared, k, gains, log_base: float = 2.0, min_grade=None) -> np.ndarray:
    """DCG@k = Σ_{j≤k} gain_j / log_b(1 + j), gains replaced by tie-group means."""
    part = prep.judged_part()
    g = part.group_mean(gain_values(part.grade, gains, min_grade))
    return part.seg_sum(g * discount(part.pos, log_base) * in_cut(part, k))


def ideal_dcg(prep: Prepared, k, gains, log_base: float = 2.0, min_grade=None) -> np.ndarray:
    """DCG@k of the ideal ranking: the qid's judged positive gains sorted descending."""
    qg = gain_values(prep.q_grades, gains, min_grade)
    n_q = len(prep.q_offsets) - 1
    g, q, i = best_first(qg, prep.q_seg, n_q, k)
    per_qid = np.bincount(q, weights=g * discount(i, log_base), minlength=n_q)
    return per_qid[prep.seg_q]


def check_dcg_gains(g):
    """nDCG/DCG gains: None or "linear" (gain = grade), "exponential" or its synonym "exp"
    (2^g − 1, Burges et al.), or a mapping grade → gain of finite numbers."""
    if isinstance(g, str) and g == "exp":
        return "exponential"
    if g is None or isinstance(g, (str, Mapping)):
        try:
            return check_gains(g)
        except ValueError as e:
            if isinstance(g, Mapping):
                raise
            raise ValueError(f"must be None or 'linear' (gain = grade), 'exponential' or 'exp' "
                             f"(2^g − 1), or a mapping grade → gain, not {g!r}") from e
    raise ValueError(f"must be None or 'linear' (gain = grade), 'exponential' or 'exp' "
                     f"(2^g − 1), or a mapping grade → gain, not {g!r}")


def check_log_base(b):
    """The base of the logarithm of the rank discount: a finite number > 1."""
    if not is_real(b) or not math.isfinite(b) or not b > 1:
        raise ValueError(f"must be a finite number > 1 (the discount is 1/log_b(1 + i)), "
                         f"not {b!r}")
    return float(b)


GAINS = Param("gains", None, check_dcg_gains,
              "None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 "
              "(Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain")
LOG_BASE = Param("log_base", 2.0, check_log_base,
                 "base b of the discount 1/log_b(1 + i) (scikit-learn's log_base); it cancels "
                 "in nDCG")
MIN_GRADE = Param("min_grade", None, check_positive_or_none,
                  "grades below it gain 0 (ranx's relevance level: ndcg@10-l2); None: every "
                  "positive grade gains, whatever relevance_level is (trec_eval)")
DCG_SOURCES = ("Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', "
               "ACM TOIS 20(4), 2002 (graded gains, log-based discount); Burges et al., "
               "'Learning to rank using gradient descent', ICML 2005 (gains 2^g − 1)")


def _dcg_prefix(c: Cuts, k, gains, log_base=2.0, min_grade=None) -> np.ndarray:
    """DCG at every cut-off of ``c`` (the prefix kernels of dcg and ndcg)."""
    part = c.prep.judged_part()
    g = part.group_mean(gain_values(part.grade, gains, min_grade))
    return c.running(part, g * discount(part.pos, log_base) * in_cut(part, k))


def dcg_prefix(c: Cuts, level, k=None, gains=None, log_base=2.0, min_grade=None):
    """dcg at every cut-off of ``c`` (its prefix kernel)."""
    return _dcg_prefix(c, k, gains, log_base, min_grade)


@register("dcg", params=(K, GAINS, LOG_BASE, MIN_GRADE),
          citation=MCSHERRY + ", §2.6 (tie-aware DCG); " + DCG_SOURCES + ".",
          undefined="Never undefined: 0 for an empty ranking, and 0 when no judged document "
                    "has a positive gain (e.g. R = 0).",
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it. (= "
                "scikit-learn's tie-averaged dcg_score)"),
          ranx=(Spelling("dcg_burges", {"gains": "exponential"}), "dcg"),
          trec_eval=TrecName("dcg", "gains", "gains"), prefix=dcg_prefix)
def dcg(prep: Prepared, level: float, k=None, gains=None, log_base=2.0,
        min_grade=None) -> np.ndarray:
    """Discounted cumulative gain, Σ_{j≤k} gain_j / log_b(1 + j) (b = ``log_base``, 2).

    Gains: by default the grade (trec_eval's convention; negative and unjudged: 0);
    ``gains="exponential"`` (or ``"exp"``) is 2^g − 1 (Burges et al. 2005; ranx's ``dcg_burges``).
    The discount 1/log_b(1 + j) is scikit-learn's ``dcg_score(log_base=b)``; a base b multiplies DCG
    by log2(b) (Järvelin & Kekäläinen's original form instead leaves ranks below b
    undiscounted and divides by log_b(j) from rank b on). Tie-aware: each position of a tie
    group gets the group's mean gain (McSherry & Najork §2.6), which is scikit-learn's
    ``dcg_score(ignore_ties=False)``.

    >>> from trunc_accessor.frontends.single import dcg
    >>> round(dcg([3, 2, 0, 1]), 4), round(dcg([3, 2, 0, 1], gains="exp", log_base=10), 4)
    (4.6925, 30.9719)
    """
    return dcg_values(prep, k, gains, log_base, min_grade)


def ndcg_prefix(c: Cuts, level, k=None, gains=None, log_base=2.0, min_grade=None):
    """ndcg at every cut-off of ``c`` (its prefix kernel)."""
    ideal = ideal_dcg(c.prep, k, gains, log_base, min_grade)
    return safe_div(_dcg_prefix(c, k, gains, log_base, min_grade), c.ranking(ideal))


@register("ndcg", params=(K, GAINS, LOG_BASE, MIN_GRADE), aliases=("ndcg_cut",),
          citation=MCSHERRY + ", §2.6; " + DCG_SOURCES + ".",
          undefined="Undefined when the ideal DCG is 0 (no judged document with positive "
                    "gain, e.g. R = 0). "
                    "An empty ranking with R > 0 scores 0.",
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it."),
          ir_measures=("nDCG", "NDCG"),
          ranx=(Spelling("ndcg_burges", {"gains": "exponential"}), "ndcg"),
          trec_eval=(TrecName("ndcg", "gains", "gains"),
                     TrecName("ndcg_cut", "cutoffs", "k", CUTS)), prefix=ndcg_prefix)
def ndcg(prep: Prepared, level: float, k=None, gains=None, log_base=2.0,
         min_grade=None) -> np.ndarray:
    """Normalised DCG: DCG@k divided by the DCG@k of the ideal ranking of the qid's judged
    documents (trec_eval ``ndcg``, ``ndcg_cut_k``; gains default to the grade and do not
    depend on relevance_level, as in trec_eval; ``min_grade=N`` gives grades below N no
    gain, as ranx's ``ndcg@k-lN``).

    ``gains="exponential"`` (or ``"exp"``): 2^g − 1, ranx's ``ndcg_burges`` (Burges et al.
    2005). ``log_base`` scales the DCG of the ranking and of the ideal ranking alike, so it
    cancels (values equal to rounding); it is accepted for scikit-learn's ``ndcg_score``
    spelling.

    >>> from trunc_accessor.frontends.single import ndcg
    >>> round(ndcg([3, 2, 0, 1]), 4), round(ndcg([3, 2, 0, 1], gains="exp"), 4)
    (0.9854, 0.9926)
    """
    return safe_div(dcg_values(prep, k, gains, log_base, min_grade),
                     ideal_dcg(prep, k, gains, log_base, min_grade))
