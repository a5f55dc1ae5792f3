"""Power and sample size of the three topic-set-size designs of Sakai ("Topic set size
design", *Information Retrieval Journal* 19(3), 2016; *Laboratory Experiments in Information
Retrieval*, Springer 2018, chapter 6), numbers in and numbers out: the power of a two-sided
paired t-test and of a one-way ANOVA over ``m`` systems, the expected width of the
confidence interval of a paired difference, and the smallest number of topics that reaches a
given power or width; with ``paired=False`` the unpaired (two-sample) t-test and interval of
"Topic set size design for paired and unpaired data" (Sakai, ICTIR 2018).

Two ways of computing are offered (``method``):

* ``"exact"``: the noncentral t and noncentral F distributions (SciPy), and the exact expected
  sample standard deviation (a ratio of gamma functions) for the interval width — what
  ``statsmodels.stats.power.TTestPower`` and ``FTestAnovaPower`` compute;
* ``"sakai"``: the normal approximations of Nagata (2003) that Sakai's Excel tools
  (samplesizeTTEST2, samplesizeANOVA2, samplesizeCI2) use, to reproduce his numbers.

Either way the answer is the smallest ``n ≥ 2`` whose power (width) reaches the requirement;
the closed-form starting values of the tools only decide where the search starts.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from trunc_accessor.errors import InputError
from trunc_accessor.stats._common import _check_choice, _check_prob, _scipy_stats

METHODS = ("exact", "sakai")

#: Nagata's linear approximations λ ≈ x1 + x2·√(m − 1) of the noncentrality that gives a
#: χ² test with m − 1 degrees of freedom the power 1 − β (Sakai 2018, Table 6.4; Nagata
#: 2003): {(α, β): (x1, x2)}. samplesizeANOVA2 starts its search from n = λ / Δ.
LAMBDA_APPROX = {
    (0.01, 0.10): (10.439, 5.213), (0.01, 0.20): (7.736, 4.551),
    (0.01, 0.30): (6.030, 4.077), (0.01, 0.40): (4.733, 3.675),
    (0.01, 0.50): (3.653, 3.302), (0.05, 0.10): (7.049, 4.244),
    (0.05, 0.20): (4.860, 3.584), (0.05, 0.30): (3.522, 3.112),
    (0.05, 0.40): (2.543, 2.712), (0.05, 0.50): (1.765, 2.341),
}
_MAX_N = 10**9


# ---------------------------------------------------------------------------- checks

def _check_positive(name: str, value) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating))
            or not math.isfinite(value) or value <= 0):
        raise InputError(f"{name}= must be a finite number > 0, not {value!r}")
    return float(value)


def _check_n(name: str, value, least: int = 2) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise InputError(f"{name}= must be an integer ≥ {least} (a number of topics), "
                         f"not {value!r}")
    return int(value)


def _check_common(alpha, method) -> None:
    _check_prob("alpha", alpha)
    _check_choice("method", method, METHODS)


# ---------------------------------------------------------------------------- power

def ttest_power(n: int, min_diff: float, variance: float, alpha: float = 0.05,
                method: str = "exact", paired: bool = True) -> float:
    """Power of the two-sided paired t-test over ``n`` topics to detect a true mean
    difference ``min_diff`` when the per-topic differences have variance ``variance``
    (σ_t², Sakai 2016 section 3).

    ``"exact"``: with φ = n − 1, w = t(φ; α/2) and λ = √n·min_diff/σ_t, the noncentral t
    probability P(t' ≥ w) + P(t' ≤ −w), t' ~ t(φ, λ). ``"sakai"``: Nagata's normal
    approximation of the noncentral t (Sakai 2016, eq. 9; samplesizeTTEST2):
    Φ((−w(1 − 1/(4φ)) − λ)/√(1 + w²/(2φ))) + 1 − Φ((w(1 − 1/(4φ)) − λ)/√(1 + w²/(2φ))).

    ``paired=False``: the two-sided two-sample (unpaired, equal variances) t-test with ``n``
    topics in each sample, ``variance`` the common within-sample variance σ² (Sakai, "Topic
    set size design for paired and unpaired data", ICTIR 2018; his samplesize2SAMPLET tool):
    the same formulas with φ = 2n − 2 and λ = √(n/2)·min_diff/σ.
    """
    _check_common(alpha, method)
    n = _check_n("n", n)
    d = _check_positive("min_diff", min_diff) / math.sqrt(_check_positive("variance", variance))
    return _ttest_power(n, d, alpha, method, _check_paired(paired))


def _check_paired(paired) -> bool:
    if not isinstance(paired, (bool, np.bool_)):
        raise InputError(f"paired= must be True or False, not {paired!r}")
    return bool(paired)


def _ttest_power(n, d, alpha, method, paired=True):
    st = _scipy_stats()
    phi = n - 1 if paired else 2 * n - 2
    w = st.t.ppf(1 - alpha / 2, phi)
    lam = math.sqrt(n if paired else n / 2) * d
    if method == "exact":  # the lower tail as P(−t' ≥ w): SciPy's cdf(−w) can be NaN there
        return float(st.nct.sf(w, phi, lam) + st.nct.sf(w, phi, -lam))
    c, s = 1 - 1 / (4 * phi), math.sqrt(1 + w * w / (2 * phi))
    return float(st.norm.cdf((-w * c - lam) / s) + st.norm.sf((w * c - lam) / s))


def anova_power(n: int, min_range: float, variance: float, systems: int,
                alpha: float = 0.05, method: str = "exact") -> float:
    """Power of the one-way ANOVA F-test over ``systems`` (m) systems with ``n`` topics each
    when the largest and smallest true system means differ by ``min_range`` (the minimum
    detectable range, minD) and the within-system variance is ``variance`` (σ², Sakai 2016
    section 4).

    The least favourable means for a range minD (two systems at ±minD/2, the rest at the
    mean) give the noncentrality λ = n·Δ with Δ = minD²/(2σ²); φ_A = m − 1, φ_E = m(n − 1)
    and w = F(φ_A, φ_E; α). ``"exact"``: P(F' ≥ w), F' ~ F(φ_A, φ_E, λ). ``"sakai"``:
    Nagata's normal approximation (samplesizeANOVA2): 1 − Φ(u) with c_A = (φ_A + 2λ)/(φ_A +
    λ), φ_A* = (φ_A + λ)²/(φ_A + 2λ) and u = (√(w/φ_E)·√(2φ_E − 1) − √(c_A/φ_A)·√(2φ_A* −
    1)) / √(c_A/φ_A − w/φ_E); where that root is undefined (very small n) the power is NaN
    and such an n never satisfies a requirement.
    """
    _check_common(alpha, method)
    n = _check_n("n", n)
    m = _check_n("systems", systems)
    delta = _check_positive("min_range", min_range) ** 2 / (2 * _check_positive("variance",
                                                                                 variance))
    return _anova_power(n, delta, m, alpha, method)


def _anova_power(n, delta, m, alpha, method):
    st = _scipy_stats()
    phi_a, phi_e = m - 1, m * (n - 1)
    w = st.f.ppf(1 - alpha, phi_a, phi_e)
    lam = n * delta
    if method == "exact":
        return float(st.ncf.sf(w, phi_a, phi_e, lam))
    c_a = (phi_a + 2 * lam) / (phi_a + lam)
    phi_star = (phi_a + lam) ** 2 / (phi_a + 2 * lam)
    spread = c_a / phi_a - w / phi_e
    if spread <= 0:
        return math.nan
    u = (math.sqrt(w / phi_e) * math.sqrt(2 * phi_e - 1)
         - math.sqrt(c_a / phi_a) * math.sqrt(2 * phi_star - 1)) / math.sqrt(spread)
    return float(st.norm.sf(u))


def ci_width(n: int, variance: float, alpha: float = 0.05, method: str = "exact",
             paired: bool = True) -> float:
    """Expected width (twice the margin of error) of the 100(1 − α)% t confidence interval
    of a paired mean difference over ``n`` topics whose differences have variance
    ``variance`` (σ_t², Sakai 2016 section 5): 2·t(φ; α/2)·E[s]/√n with φ = n − 1.

    ``"exact"``: E[s] = σ_t·√(2/φ)·Γ((φ + 1)/2)/Γ(φ/2). ``"sakai"``: E[s] ≈ σ_t·(1 −
    1/(4φ)), the approximation of samplesizeCI2.

    ``paired=False``: the interval of the difference of two independent means with ``n``
    topics each and common within-sample variance ``variance`` (σ², ICTIR 2018; his
    samplesize2SAMPLECI tool): 2·t(φ; α/2)·E[s]·√(2/n) with φ = 2n − 2 and E[s] as above.
    """
    _check_common(alpha, method)
    n = _check_n("n", n)
    return _ci_width(n, math.sqrt(_check_positive("variance", variance)), alpha, method,
                     _check_paired(paired))


def _ci_width(n, sigma, alpha, method, paired=True):
    st = _scipy_stats()
    phi = n - 1 if paired else 2 * n - 2
    t = st.t.ppf(1 - alpha / 2, phi)
    if method == "exact":
        from scipy.special import gammaln

        factor = math.sqrt(2 / phi) * math.exp(gammaln((phi + 1) / 2) - gammaln(phi / 2))
    else:
        factor = 1 - 1 / (4 * phi)
    return float(2 * t * factor * sigma * math.sqrt((1 if paired else 2) / n))


# ---------------------------------------------------------------------------- sample sizes

def _smallest_n(ok: Callable[[int], bool], start: float, least: int = 2) -> int:
    """The smallest n ≥ ``least`` (≥ 2) with ``ok(n)``, for ``ok`` false below some n and
    true from it on: doubling up from ``start`` (the design's closed-form approximation),
    then bisection."""
    least = max(2, least)
    hi = max(least, math.ceil(start))
    while not ok(hi):
        if hi >= _MAX_N:
            raise InputError(f"more than {_MAX_N} topics would be needed: the requirement "
                             "is too strict for this variance")
        hi = min(2 * hi, _MAX_N)
    lo = least - 1  # below the search: ok(lo) is false or not asked
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def topics_for_ttest(min_diff: float, variance: float, alpha: float = 0.05, beta: float = 0.20,
                     method: str = "exact", paired: bool = True) -> int:
    """Smallest number of topics n for which the two-sided paired t-test at level ``alpha``
    detects a true mean difference ``min_diff`` (minD) with power ≥ 1 − ``beta``, when the
    per-topic differences have variance ``variance`` (σ_t²): Sakai 2016 section 3, his
    samplesizeTTEST2 tool. The search starts from the normal approximation n' = ((z(α/2) +
    z(β))/minΔ_t)² + z(α/2)²/2, minΔ_t = minD/σ_t (Sakai 2016, eq. 12). ``"exact"``: the
    smallest n ≥ 2 whose noncentral-t power is ≥ 1 − β; ``"sakai"``: as the tool, the
    smallest n ≥ ⌈n'⌉ whose approximated power is ≥ 1 − β.

    ``paired=False``: topics per sample of the two-sample t-test (``ttest_power``), σ² the
    within-sample variance, from n' = 2((z(α/2) + z(β))/minΔ)² + z(α/2)²/4 with minΔ =
    minD/σ (ICTIR 2018; samplesize2SAMPLET).
    """
    _check_common(alpha, method)
    _check_prob("beta", beta)
    paired = _check_paired(paired)
    d = _check_positive("min_diff", min_diff) / math.sqrt(_check_positive("variance", variance))
    st = _scipy_stats()
    za, zb = st.norm.ppf(1 - alpha / 2), st.norm.ppf(1 - beta)
    start = (((za + zb) / d) ** 2 + za**2 / 2 if paired
             else 2 * ((za + zb) / d) ** 2 + za**2 / 4)
    least = math.ceil(start) if method == "sakai" else 2
    return _smallest_n(lambda n: _ttest_power(n, d, alpha, method, paired) >= 1 - beta, start,
                       least)


def topics_for_anova(min_range: float, variance: float, systems: int, alpha: float = 0.05,
                     beta: float = 0.20, method: str = "exact") -> int:
    """Smallest number of topics n for which the one-way ANOVA over ``systems`` systems at
    level ``alpha`` detects a minimum range ``min_range`` (minD) of the true system means with
    power ≥ 1 − ``beta``, when the within-system variance is ``variance`` (σ²): Sakai 2016
    section 4, his samplesizeANOVA2 tool. The search starts from n' = λ/Δ with Δ =
    minD²/(2σ²) and λ from Nagata's approximations (``LAMBDA_APPROX``; for other (α, β) it
    starts from n = 2) and returns the smallest n ≥ 2 whose power (``anova_power`` with
    ``method``) is ≥ 1 − β (the tool, too, steps down from n' while the power suffices).
    """
    _check_common(alpha, method)
    _check_prob("beta", beta)
    m = _check_n("systems", systems)
    delta = _check_positive("min_range", min_range) ** 2 / (2 * _check_positive("variance",
                                                                                 variance))
    x = LAMBDA_APPROX.get((round(alpha, 10), round(beta, 10)))
    start = (x[0] + x[1] * math.sqrt(m - 1)) / delta if x is not None else 2
    return _smallest_n(lambda n: _anova_power(n, delta, m, alpha, method) >= 1 - beta, start)


def topics_for_ci(delta: float, variance: float, alpha: float = 0.05,
                  method: str = "exact", paired: bool = True) -> int:
    """Smallest number of topics n for which the expected width of the 100(1 − α)% confidence
    interval of a paired mean difference (twice its margin of error) is at most ``delta``
    when the per-topic differences have variance ``variance`` (σ_t²): Sakai 2016 section 5,
    his samplesizeCI2 tool. ``delta`` caps the whole width, as in Sakai's tools; for a cap
    on the margin of error (the half-width) pass twice that cap. With n' = 4·z(α/2)²·σ_t²/δ²,
    ``"exact"`` returns the smallest n ≥ 2 with ``ci_width`` ≤ δ, ``"sakai"`` (as the tool)
    the smallest n ≥ ⌊n'⌋ with the approximated width ≤ δ.

    ``paired=False``: topics per sample for the interval of the difference of two
    independent means (``ci_width``), σ² the within-sample variance, from n' =
    8·z(α/2)²·σ²/δ² (ICTIR 2018; samplesize2SAMPLECI).
    """
    _check_common(alpha, method)
    paired = _check_paired(paired)
    width = _check_positive("delta", delta)
    var = _check_positive("variance", variance)
    st = _scipy_stats()
    start = (4 if paired else 8) * st.norm.ppf(1 - alpha / 2) ** 2 * var / width**2
    sigma = math.sqrt(var)
    least = math.floor(start) if method == "sakai" else 2
    return _smallest_n(lambda n: _ci_width(n, sigma, alpha, method, paired) <= width, start,
                       least)
