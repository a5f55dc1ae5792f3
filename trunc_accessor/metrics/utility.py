"""Utility metrics of Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated
Rankings Are Better and How to Measure That', SIGIR 2022, §3.3, and the set-based F-measure
they compare them with (§3.1, §4).

A utility metric adds the gain of each document the user inspects and subtracts the effort
e of inspecting it, both weighted by the position discount f(i) of the metric it extends:

    M(d_1..d_n) = Σ_{i=1..n} (Gain(d_i) − e) · f(i)                  (§3.3, RBU scheme)

n being the length the system chose, so retrieving a non-relevant document costs e·f(i)
and an empty ranking scores 0 (nothing gained, nothing inspected). Gains:
binary (grade ≥ relevance_level) by default, ``graded=True``: grade / max_grade. The gains
do not depend on R, so a nil-answer query (R = 0) is scored like any other: every document
retrieved costs effort, and the empty ranking's 0 is the best value it can get.

Ties: the metrics are linear in the gains and the effort term does not depend on the order,
so the exact mean over every order of each tie group replaces each gain by its group's mean
gain (McSherry & Najork, ECIR 2008).
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import discount, rbp_weights
from trunc_accessor.metrics.params import P, Param, check_nonnegative
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.rbp import MAX_GRADE, RBP_GRADED
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.terminal import gains_and_pool

AMIGO = ("Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better "
         "and How to Measure That', SIGIR 2022")
TIES = "; tie-aware by group-mean gains (McSherry & Najork, ECIR 2008)."
DEFINED = ("Never undefined: 0 for an empty ranking; R = 0 is scored like any other query "
           "(no gain, so every retrieved document only costs effort and 0 is the best value).")


EFFORT = Param("e", 0.05, check_nonnegative,
               "effort of inspecting one document, in gain units (the paper's 1/20: a relevant "
               "document at rank 1 is worth inspecting 20 documents)")


def discounted_utility(prep: Prepared, level: float, weight: np.ndarray, e: float,
                       graded: bool, max_grade) -> np.ndarray:
    """Σ_i (Gain(d_i) − e) · weight(i) per ranking, gains replaced by tie-group means."""
    return prep.seg_sum(utility_terms(prep, level, weight, e, graded, max_grade))


def utility_terms(prep: Prepared, level: float, weight: np.ndarray, e: float,
                  graded: bool, max_grade) -> np.ndarray:
    """Per row, (Gain(d_i) − e) · weight(i), the gain replaced by its tie group's mean."""
    gain, _pool = gains_and_pool(prep, level, graded, max_grade)
    return (prep.group_mean(gain) - e) * weight


def _utility_prefix(c: Cuts, level, weight, e, graded, max_grade) -> np.ndarray:
    """The utility sum at every cut-off of ``c`` (the prefix kernels of the utility metrics)."""
    return c.running(c.prep, utility_terms(c.prep, level, weight, e, graded, max_grade))


def flat_utility_prefix(c: Cuts, level, e=0.05, graded=False, max_grade=None):
    """flat_utility at every cut-off of ``c`` (its prefix kernel)."""
    return _utility_prefix(c, level, np.ones(len(c.prep.seg)), e, graded, max_grade)


@register("flat_utility", params=(EFFORT, RBP_GRADED, MAX_GRADE),
          citation=AMIGO + ", §3.3 (Flat Utility)" + TIES, undefined=DEFINED,
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it."),
          prefix=flat_utility_prefix)
def flat_utility(prep: Prepared, level: float, e=0.05, graded=False, max_grade=None) -> np.ndarray:
    """Flat utility: U = Σ_{i=1..n} (Gain(d_i) − e), the gain retrieved minus e per document
    inspected, with no position discount (Amigó et al. §3.3; printed there with a typo in
    the summation index).

    Parameters: ``e=0.05`` (the paper's 1/20), ``graded=False`` (binary gain, grade ≥
    relevance_level; True: grade / max_grade), ``max_grade=None`` (the largest grade of the
    qrels). Unbounded; R = 0 gives −e·n, the empty ranking 0. Order-free, so ties change
    nothing.

    >>> from trunc_accessor.frontends.single import flat_utility
    >>> round(flat_utility([1, 0, 1]), 4)  # (1 − .05) + (0 − .05) + (1 − .05)
    1.85
    >>> flat_utility([])
    0.0
    """
    return discounted_utility(prep, level, np.ones(len(prep.seg)), e, graded, max_grade)


def dcgu_prefix(c: Cuts, level, e=0.05, graded=False, max_grade=None):
    """dcgu at every cut-off of ``c`` (its prefix kernel)."""
    return _utility_prefix(c, level, discount(c.prep.pos), e, graded, max_grade)


@register("dcgu", params=(EFFORT, RBP_GRADED, MAX_GRADE),
          citation=AMIGO + ", §3.3 (DCGU)" + TIES, undefined=DEFINED,
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it."),
          prefix=dcgu_prefix)
def dcgu(prep: Prepared, level: float, e=0.05, graded=False, max_grade=None) -> np.ndarray:
    """DCGU = Σ_{i=1..n} (Gain(d_i) − e) / log2(i + 1): DCG with an effort e per document
    inspected, discounted like the gain (Amigó et al. §3.3).

    Parameters: ``e=0.05`` (the paper's 1/20), ``graded=False`` (binary gain; True: grade /
    max_grade), ``max_grade=None`` (the largest grade of the qrels). Not normalised
    (it can be negative, so no ideal ranking bounds it; §3.3). R = 0 gives
    −e·Σ_{i≤n} 1/log2(i + 1); the empty ranking 0. Tie-aware by group-mean gains.

    >>> from trunc_accessor.frontends.single import dcgu
    >>> round(dcgu([1, 0, 1]), 6)  # .95/1 − .05/log2(3) + .95/log2(4)
    1.393454
    """
    return discounted_utility(prep, level, discount(prep.pos), e, graded, max_grade)


def rbpu_prefix(c: Cuts, level, p=0.8, e=0.05, graded=False, max_grade=None):
    """rbpu at every cut-off of ``c`` (its prefix kernel)."""
    return (1.0 - p) * _utility_prefix(c, level, rbp_weights(c.prep, p), e, graded, max_grade)


@register("rbpu", params=(P, EFFORT, RBP_GRADED, MAX_GRADE),
          citation=AMIGO + ", §3.3 (RBPU)" + TIES, undefined=DEFINED,
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it."),
          prefix=rbpu_prefix)
def rbpu(prep: Prepared, level: float, p=0.8, e=0.05, graded=False, max_grade=None) -> np.ndarray:
    """RBPU = (1 − p) Σ_{k=1..n} (Gain(d_k) − e) · p^(k−1): rank-biased precision with an
    effort e per document inspected (Amigó et al. §3.3; the paper uses p = 0.8, 0.9, 0.98).

    Parameters: ``p=0.8`` (persistence), ``e=0.05`` (the paper's 1/20), ``graded=False``
    (binary gain; True: grade / max_grade), ``max_grade=None`` (the largest grade of
    the qrels). With e = 0 it is RBP. R = 0 gives −e·(1 − p^n); the empty ranking 0.
    Tie-aware by group-mean gains.

    >>> from trunc_accessor.frontends.single import rbpu
    >>> round(rbpu([1, 0, 1]), 4)  # .2 · (.95 − .05 · .8 + .95 · .64)
    0.3036
    """
    return (1.0 - p) * discounted_utility(prep, level, rbp_weights(prep, p), e,
                                          graded, max_grade)


def f_measure_prefix(c: Cuts, level):
    """f_measure at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    got = c.running(part, part.relevant(level))
    den = c.depth + c.ranking(c.prep.num_relevant(level))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 2.0 * got / np.where(den > 0, den, 1), 1.0)


@register("f_measure",
          citation=AMIGO + ", §3.1 and §4 (F-measure of the truncated ranking); "
                   "tie-invariant.",
          undefined="Never undefined: 1 when the ranking is empty and R = 0, else 0 for "
                    "R = 0 or an empty ranking.",
          ties=("Order-free: no order of tied documents changes the value."),
          prefix=f_measure_prefix)
def f_measure(prep: Prepared, level: float) -> np.ndarray:
    """F-measure of the truncated ranking taken as a set: the harmonic mean of its precision
    and recall, F = 2·rel_ret / (n + R) (β = 1; Amigó et al. §3.1, Table 1 and §4, where
    it is one of the truncation metrics compared). No parameters.

    Binary relevance (grade ≥ relevance_level). The order inside the ranking does not matter,
    so ties do not either. n = R = 0 gives 1: for a nil-answer query the system returned
    nothing, which is exactly right (precision and recall are both vacuously perfect), and
    the paper's use of F as a truncation metric needs it to rank that answer above any
    non-empty one. This is where it differs from ``f1`` (``k=None``), which leaves 0/0
    undefined as trec_eval's ``set_F``. R = 0 with n > 0 gives 0; an empty ranking with
    R > 0 gives 0.

    >>> from trunc_accessor.frontends.single import f_measure
    >>> round(f_measure([1, 0, 1], R=4), 4)  # 2·2 / (3 + 4)
    0.5714
    >>> f_measure([], R=0)
    1.0
    """
    got = prep.seg_sum(prep.relevant(level))
    den = prep.length + prep.num_relevant(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 2.0 * got / np.where(den > 0, den, 1), 1.0)
