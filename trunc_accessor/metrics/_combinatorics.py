"""Exact hypergeometric probabilities for tie groups, vectorised.

Under a uniform random order of a tie group of n documents, r of them relevant, the
probabilities McSherry & Najork (ECIR 2008, §2.5) build by recursion have closed forms in
binomial coefficients; we evaluate them through a table of log-factorials so that every
group of every query is handled in one NumPy expression.
"""
from __future__ import annotations

import numpy as np


def log_factorials(n_max: int) -> np.ndarray:
    """log(i!) for i = 0..n_max."""
    out = np.zeros(int(n_max) + 1)
    if n_max > 0:
        np.cumsum(np.log(np.arange(1, int(n_max) + 1, dtype=np.float64)), out=out[1:])
    return out


def comb_ratio(a_top, a_bot, b_top, b_bot, lf: np.ndarray) -> np.ndarray:
    """C(a_top, a_bot) / C(b_top, b_bot), elementwise; 0 where C(a_top, a_bot) = 0.

    Requires 0 ≤ b_bot ≤ b_top (the denominator is a positive count)."""
    a_top = np.asarray(a_top, dtype=np.int64)
    a_bot = np.asarray(a_bot, dtype=np.int64)
    b_top = np.asarray(b_top, dtype=np.int64)
    b_bot = np.asarray(b_bot, dtype=np.int64)
    valid = (a_bot >= 0) & (a_bot <= a_top)
    at = np.where(valid, a_top, 0)
    ab = np.where(valid, a_bot, 0)
    log = (lf[at] - lf[ab] - lf[at - ab]) - (lf[b_top] - lf[b_bot] - lf[b_top - b_bot])
    return np.where(valid, np.exp(log), 0.0)
