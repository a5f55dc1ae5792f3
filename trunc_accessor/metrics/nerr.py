"""NERR8–NERR11 (Azzopardi, Mackenzie & Moffat, 'ERR is not C/W/L: Exploring the
relationship between expected reciprocal rank and other metrics', ICTIR 2021, eqs. (8)–(11)):
ERR's cascade as C/W/L measures, as cwl_eval computes them. The framework, the list the user
model runs over (``depth``), the gains and the refusal of ties whose order matters are those of
the other C/W/L measures (``trunc_accessor.metrics.user_models``).
"""
from __future__ import annotations

import math

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics.cwl import (
    ADAPTIVE_TIES,
    CWL,
    DEPTH,
    MAX_GRADE,
    MIN_GRADE,
    T_PARAM,
    UNDEFINED,
    _cascade_value,
    _m,
    _window,
    cwl_gains,
)
from trunc_accessor.metrics.cwl_tails import _harmonic_sum, padding_sum
from trunc_accessor.metrics.params import K, Param, check_p
from trunc_accessor.metrics.registry import register

NERR_PAPER = ("Azzopardi, Mackenzie & Moffat, 'ERR is not C/W/L: Exploring the relationship "
              "between expected reciprocal rank and other metrics', ICTIR 2021")
NERR_P = Param("p", 0.9, check_p,
               "the patience of NERR10's C_i = p(1 − g_i) (ir_measures' default 0.9)")


# --------------------------------------------------------------------------- NERR
def _nerr(prep: Prepared, name: str, min_grade, max_grade, M, discount, tail) -> np.ndarray:
    rows, n = _window(prep, M)
    raw = cwl_gains(prep, min_grade, max_grade, name)
    g = prep.group_mean(raw)[rows]
    i = prep.pos[rows].astype(np.float64)
    return _cascade_value(prep, name, raw, g, rows, discount(i), tail(n), M)


def _nerr_ties(eq: str) -> str:
    return ADAPTIVE_TIES.format(what=f" (eq. ({eq}) is normalised by Σ E_i, which the order "
                                     "of a tie changes)")


@register("nerr8", params=(K, MIN_GRADE, MAX_GRADE, DEPTH),
          citation=NERR_PAPER + ", eq. (8); " + CWL + ".", undefined=UNDEFINED,
          ties=_nerr_ties("8"),
          ir_measures="NERR8")
def nerr8(prep: Prepared, level: float, k=None, min_grade=0.0, max_grade=None,
          depth=1000) -> np.ndarray:
    """NERR, eq. (8) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): the C/W/L measure closest
    to ERR@k with C_i = 1 − g_i for i < k and 0 at k, so E_i = Π_{j<i}(1 − g_j) for i ≤ k and

        NERR8@k = Σ_{i≤k} g_i Π_{j<i}(1 − g_j) / Σ_{i≤k} Π_{j<i}(1 − g_j),

    ERR's stopping probabilities without its 1/i, rescaled by the expected number of
    documents read (gains in [0, 1], ``trunc_accessor.metrics.user_models``; k cut at ``depth``).

    >>> from trunc_accessor.frontends.single import nerr8
    >>> round(nerr8([0, 1, 0], k=3, max_grade=2), 6)  # g = 0, 1/2, 0; E = 1, 1, 1/2
    0.2
    >>> round(nerr8([0, 1, 0], k=10, max_grade=2), 6)  # padded to 10: E_4..E_10 = 1/2
    0.083333
    """
    M = _m(k, depth)

    def tail(n):
        return np.full(n.shape, np.inf) if M is None else np.maximum(M - n, 0.0)

    return _nerr(prep, "nerr8", min_grade, max_grade, M, np.ones_like, tail)


@register("nerr9", params=(K, MIN_GRADE, MAX_GRADE, DEPTH),
          citation=NERR_PAPER + ", eq. (9); " + CWL + ".", undefined=UNDEFINED,
          ties=_nerr_ties("9"),
          ir_measures="NERR9")
def nerr9(prep: Prepared, level: float, k=None, min_grade=0.0, max_grade=None,
          depth=1000) -> np.ndarray:
    """NERR, eq. (9) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): C_i = (i/(i + 1))(1 −
    g_i) for i < k, 0 at k, so E_i = (1/i) Π_{j<i}(1 − g_j) (ERR's 1/i discount inside the
    weights) and NERR9@k = Σ_{i≤k} E_i g_i / Σ_{i≤k} E_i (k cut at ``depth``; the padding's
    E_i sum to Π_{j≤n}(1 − g_j)(H_k − H_n), H the harmonic numbers).

    >>> from trunc_accessor.frontends.single import nerr9
    >>> round(nerr9([0, 1, 0], k=3, max_grade=2), 6)  # E = 1, 1/2, 1/6: (1/4)/(5/3)
    0.15
    """
    M = _m(k, depth)
    return _nerr(prep, "nerr9", min_grade, max_grade, M, lambda i: 1.0 / i,
                 lambda n: _harmonic_sum(n, M))


@register("nerr10", params=(NERR_P, MIN_GRADE, MAX_GRADE, DEPTH),
          citation=NERR_PAPER + ", eq. (10); " + CWL + ".", undefined=UNDEFINED,
          ties=_nerr_ties("10"),
          ir_measures="NERR10")
def nerr10(prep: Prepared, level: float, p=0.9, min_grade=0.0, max_grade=None,
           depth=1000) -> np.ndarray:
    """NERR, eq. (10) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): RBP's patience inside
    ERR's cascade, C_i = p(1 − g_i), E_i = p^(i−1) Π_{j<i}(1 − g_j), NERR10 = Σ E_i g_i /
    Σ E_i over the ``depth`` positions (the padding: Π_{j≤n}(1 − g_j) p^n (1 − p^(depth −
    n))/(1 − p)).

    >>> from trunc_accessor.frontends.single import nerr10
    >>> round(nerr10([0, 1], p=0.5, max_grade=1), 6)  # E = 1, 1/2, then 0: (1/2)/(3/2)
    0.333333
    """
    def tail(n):
        head = np.power(p, n)
        return head / (1 - p) if depth is None else head * -np.expm1(
            (depth - np.minimum(n, depth)) * math.log(p)) / (1 - p)

    return _nerr(prep, "nerr10", min_grade, max_grade, depth,
                 lambda i: np.power(p, i - 1.0), tail)


@register("nerr11", params=(T_PARAM, MIN_GRADE, MAX_GRADE, DEPTH),
          citation=NERR_PAPER + ", eq. (11); " + CWL + ".", undefined=UNDEFINED,
          ties=_nerr_ties("11"),
          ir_measures="NERR11")
def nerr11(prep: Prepared, level: float, T=1.0, min_grade=0.0, max_grade=None,
           depth=1000) -> np.ndarray:
    """NERR, eq. (11) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): INSQ's patience inside
    ERR's cascade, C_i = ((i + 2T − 1)/(i + 2T))² (1 − g_i), E_i = (2T/(i − 1 + 2T))²
    Π_{j<i}(1 − g_j), NERR11 = Σ E_i g_i / Σ E_i over the ``depth`` positions (the padding:
    Π_{j≤n}(1 − g_j)(2T)² (ψ'(n + 2T) − ψ'(depth + 2T)), ψ' the trigamma function).

    >>> from trunc_accessor.frontends.single import nerr11
    >>> round(nerr11([0, 1, 0], T=2.0, max_grade=1), 6)  # E = 1, 16/25, then 0: 16/41
    0.390244
    """
    def tail(n):  # (2T)² Σ_{m=n}^{depth−1} 1/(m + 2T)²
        a = 2 * T
        return (a / (a + n)) ** 2 * padding_sum(
            a + n, np.inf if depth is None else np.maximum(depth - n, 0.0))

    return _nerr(prep, "nerr11", min_grade, max_grade, depth,
                 lambda i: (2 * T / (i - 1 + 2 * T)) ** 2, tail)
