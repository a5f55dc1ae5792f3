"""Pieces every metric family shares: a safe division, the DCG discount, the cut-off
indicator and RBP's geometric weights. One definition each, used by all the families."""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN (undefined) where den ≤ 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def discount(pos: np.ndarray, log_base: float = 2.0) -> np.ndarray:
    """The DCG discount 1 / log_b(1 + i) of position i (Järvelin & Kekäläinen 2002); base 2
    computed as 1 / log2(1 + i), as trec_eval does."""
    if log_base == 2.0:
        return 1.0 / np.log2(pos + 1.0)
    return np.log(log_base) / np.log(pos + 1.0)


def in_cut(prep: Prepared, k) -> np.ndarray | float:
    """1 for the positions within the cut-off k (all of them for k=None), else 0."""
    return 1.0 if k is None else (prep.pos <= k).astype(np.float64)


def rbp_weights(prep: Prepared, p: float) -> np.ndarray:
    """RBP's weight p^(i−1) of each position i (Moffat & Zobel 2008, eq. 6, before the
    (1 − p) factor)."""
    return np.power(p, prep.pos - 1.0)


def rbp_tail(prep: Prepared, p: float) -> np.ndarray:
    """p^n, the weight RBP leaves beyond a ranking of length n (its residual's base)."""
    return np.power(p, prep.length.astype(np.float64))
