"""The sums of the C/W/L user models' tails in closed form: the trigamma and digamma
functions, the E_i sum of a gain-0 padding (INSQ, INST, NERR11), the harmonic sums of NERR9
and the normaliser of SDCG (``trunc_accessor.metrics.user_models`` describes the measures).
"""
from __future__ import annotations

import math

import numpy as np


# --------------------------------------------------------------------------- special functions
def trigamma(x: np.ndarray) -> np.ndarray:
    """ψ'(x) = Σ_{m≥0} 1/(x + m)² for x > 0: the recurrence ψ'(x) = ψ'(x + 1) + 1/x² up to
    x ≥ 16, then the asymptotic series (Abramowitz & Stegun 6.4.12) to x^−15 (the next term,
    below 1e-19 there, is left out)."""
    x = np.array(x, dtype=np.float64, copy=True)
    acc = np.zeros_like(x)
    while True:
        low = x < 16.0
        if not low.any():
            break
        acc[low] += 1.0 / (x[low] * x[low])
        x[low] += 1.0
    t = 1.0 / x
    t2 = t * t
    series = t + t2 / 2 + t * t2 * (1 / 6 - t2 * (1 / 30 - t2 * (1 / 42 - t2 * (
        1 / 30 - t2 * (5 / 66 - t2 * (691 / 2730 - t2 * 7 / 6))))))
    return acc + series


def digamma(x: np.ndarray) -> np.ndarray:
    """ψ(x) for x > 0: ψ(x) = ψ(x + 1) − 1/x up to x ≥ 16, then the asymptotic series
    (Abramowitz & Stegun 6.3.18) to x^−12."""
    x = np.array(x, dtype=np.float64, copy=True)
    acc = np.zeros_like(x)
    while True:
        low = x < 16.0
        if not low.any():
            break
        acc[low] -= 1.0 / x[low]
        x[low] += 1.0
    t2 = 1.0 / (x * x)
    series = np.log(x) - 0.5 / x - t2 * (1 / 12 - t2 * (1 / 120 - t2 * (1 / 252 - t2 * (
        1 / 240 - t2 * (1 / 132 - t2 * 691 / 32760)))))
    return acc + series


# ψ'(x) ~ Σ_k c_k x^−k (Abramowitz & Stegun 6.4.12), k = 1 … 15
_TRIGAMMA_SERIES = (1.0, 1 / 2, 1 / 6, 0.0, -1 / 30, 0.0, 1 / 42, 0.0, -1 / 30, 0.0, 5 / 66, 0.0,
                    -691 / 2730, 0.0, 7 / 6)


def padding_sum(a, L) -> np.ndarray:
    """P(a, L) = Σ_{m=0}^{L−1} (a/(a + m))² = a² (ψ'(a) − ψ'(a + L)) for a > 0, L ≥ 0 (inf: no
    end): the sum of the E_i of a gain-0 padding, relative to the first, for the measures
    whose C_i = ((j − 1)/j)² with j growing by 1 a position (INSQ, NERR11, INST past the
    ranking). Never formed as a difference of two trigammas, which cancels for large a:
    P(a, L) = 1 − (a/(a + L))² + (a/(a + 1))² P(a + 1, L) up to a ≥ 16, then the series
    termwise, c_k a^(2−k) (1 − (a/(a + L))^k), the bracket as −expm1(−k log1p(L/a))."""
    a = np.array(a, dtype=np.float64, copy=True)
    L = np.broadcast_to(np.asarray(L, dtype=np.float64), a.shape).copy()
    acc, scale = np.zeros_like(a), np.ones_like(a)
    while True:
        low = (a < 16.0) & (L > 0)
        if not low.any():
            break
        al, Ll = a[low], L[low]
        acc[low] += scale[low] * (1.0 - (al / (al + Ll)) ** 2)
        scale[low] *= (al / (al + 1.0)) ** 2
        a[low] += 1.0
    with np.errstate(invalid="ignore"):
        log_ratio = np.log1p(L / a)  # inf for L = inf
    series = np.zeros_like(a)
    for k, c in enumerate(_TRIGAMMA_SERIES, start=1):
        if c:
            series += c * a ** (2.0 - k) * -np.expm1(-k * log_ratio)
    return acc + scale * np.where(L > 0, series, 0.0)


def _harmonic_sum(lo: np.ndarray, hi) -> np.ndarray:
    """Σ_{i=lo+1}^{hi} 1/i (0 when hi ≤ lo); hi = None diverges (inf)."""
    lo = np.asarray(lo, dtype=np.float64)
    if hi is None:
        return np.full(lo.shape, np.inf)
    hi = np.maximum(float(hi), lo)
    return np.maximum(digamma(hi + 1.0) - digamma(lo + 1.0), 0.0)


_TABLE = 1 << 22  # SDCG's normaliser is summed term by term up to here


def _exponential_integral(t: float) -> float:
    """Ei(t) for t > 0: γ + ln t + Σ_{k≥1} t^k/(k·k!) (all terms positive)."""
    total, term, k = 0.0, 1.0, 0
    while True:
        k += 1
        term *= t / k
        total += term / k
        if term / k < 1e-17 * total:
            break
    return 0.5772156649015329 + math.log(t) + total


def sdcg_normaliser(M) -> float:
    """Σ_{i=1}^{M} 1/log2(i + 1): summed directly up to 2^22, beyond by Euler–Maclaurin with
    ∫ ln 2/ln(x + 1) dx = ln 2 · li(x + 1), li(y) = Ei(ln y) (the next correction, ~f'''/720,
    is below 1e-25 there); None → inf."""
    if M is None:
        return math.inf
    head = min(int(M), _TABLE)
    total = float(np.sum(1.0 / np.log2(np.arange(2, head + 2, dtype=np.float64))))
    if M <= _TABLE:
        return total
    a, b = float(_TABLE + 1), float(M)  # Σ_{i=a}^{b} f(i), f(x) = ln 2/ln(x + 1)
    ln2 = math.log(2.0)

    def f(x):
        return ln2 / math.log(x + 1.0)

    def df(x):
        return -ln2 / ((x + 1.0) * math.log(x + 1.0) ** 2)

    integral = ln2 * (_exponential_integral(math.log(b + 1.0))
                      - _exponential_integral(math.log(a + 1.0)))
    return total + integral + (f(a) + f(b)) / 2 + (df(b) - df(a)) / 12
