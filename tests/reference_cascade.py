"""Naive reference definitions of the cascade metrics, one ranking at a time, written from
the papers (Chapelle et al. CIKM 2009; Liu et al. SIGIR 2016 eq. 1; Amigó et al. SIGIR 2022
§3.3), independent of the library's kernels. Same calling convention as tests/reference.py:
``fn(ranking, judged, level, **params)`` with a ranking given as a list of grades (None =
unjudged) and ``judged`` every judged grade of the query. ``max_grade`` is g_max, which
the caller takes from the whole qrels (the top of the scale, the same for every query).
"""
from __future__ import annotations


def stop_prob(g, max_grade):
    """Chapelle's R(g) = (2^g − 1) / 2^g_max; unjudged/negative → 0; g ≤ g_max."""
    if g is None or max_grade <= 0:
        return 0.0
    g = min(max(g, 0), max_grade)
    return (2.0 ** g - 1.0) / 2.0 ** max_grade


def cascade(r, max_grade):
    """[P(stop at i)] for i = 1..n, and the probability of reading past all n."""
    out, through = [], 1.0
    for g in r:
        x = stop_prob(g, max_grade)
        out.append(x * through)
        through *= 1.0 - x
    return out, through


def err(r, judged, level, k=None, max_grade=1):
    stops, _ = cascade(r, max_grade)
    return sum(s / i for i, s in enumerate(stops, 1) if k is None or i <= k)


def terminal_gain(r, judged, level, graded=False, max_grade=1):
    """Liu eq. (1): r_t = 1 if R = 0, else retrieved gain / total gain pool."""
    if graded:
        def gain(g):
            return 0.0 if g is None or max_grade <= 0 else max(g, 0) / max_grade
    else:
        def gain(g):
            return 1.0 if g is not None and g >= level else 0.0
    pool = sum(gain(g) for g in judged)
    return 1.0 if pool == 0 else sum(gain(g) for g in r) / pool


def err_prime(r, judged, level, graded=False, max_grade=1, depth=None):
    """ERR of r followed by a terminal document with stopping probability r_t at n + 1."""
    if depth is not None and len(r) >= depth:
        return err(r, judged, level, max_grade=max_grade)
    stops, through = cascade(r, max_grade)
    r_t = terminal_gain(r, judged, level, graded, max_grade)
    return sum(s / i for i, s in enumerate(stops, 1)) + r_t * through / (len(r) + 1)


def rbu(r, judged, level, p=0.8, e=0.05, max_grade=1):
    """(1 − p) Σ_{i≤n} p^(i−1) (x_i Π_{j<i}(1 − x_j) − e), Amigó et al. §3.3."""
    stops, _ = cascade(r, max_grade)
    return (1 - p) * sum(p ** (i - 1) * (s - e) for i, s in enumerate(stops, 1))


def erru(r, judged, level, e=0.05, max_grade=1):
    """Σ_{i≤n} (1/i) (x_i Π_{j<i}(1 − x_j) − e), Amigó et al. §3.3."""
    stops, _ = cascade(r, max_grade)
    return sum((s - e) / i for i, s in enumerate(stops, 1))
