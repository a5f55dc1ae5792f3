"""The utility metrics of Amigó, Mizzaro & Spina (SIGIR 2022, §3.3) on ERR's cascade: RBU
and ERRU, the probability of stopping at each position (x as in ERR,
``trunc_accessor.metrics.cascade``, tie-aware the same way) less the effort e of each document
inspected, discounted like the gain:

* RBU    = (1 − p) Σ_i p^(i−1) (P(stop at i) − e)
* ERRU   = Σ_i (1/i) (P(stop at i) − e)
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import rbp_tail, rbp_weights
from trunc_accessor.metrics.cascade import (
    CHAPELLE,
    STOP_MAX_GRADE,
    TIES_NOTE,
    _err,
    _err_prefix,
    cascade,
)
from trunc_accessor.metrics.params import P, Param, check_nonnegative
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register

AMIGO = ("Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better "
         "and How to Measure That', SIGIR 2022")


EFFORT = Param("e", 0.05, check_nonnegative,
               "effort: the cost of inspecting one document, in units of the gain of a "
               "document that surely satisfies the user (Amigó et al. use 1/20)")


def _harmonic(n: np.ndarray) -> np.ndarray:
    """H_n = Σ_{i≤n} 1/i for each n (0 for n = 0)."""
    top = int(n.max()) if len(n) else 0
    h = np.zeros(top + 1)
    np.cumsum(1.0 / np.arange(1, top + 1), out=h[1:])
    return h[n]


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
