"""The arithmetic of label agreement, vectorised with NumPy (no frames here; the frames are
``trunc_accessor.judges.interrater``' business).

Every statistic is a function of sums over queries. A query contributes its confusion
matrix (Cohen's κ, per-grade precision and recall), its coincidence matrix (Krippendorff's
α), its Fleiss sums or its sums of differences (Bland–Altman), all made with ``bincount``
over the (query, grade, grade) codes of the judged pairs. So the pooled value is
``finish(S.sum(0))``, the per-query values are ``finish(S)`` and the bootstrap over queries is
``finish(W @ S)`` with W the resample counts of ``paired._bootstrap_counts``: one matrix
product per chunk of resamples, no loop over queries or pairs.

Labels arrive as ``codes``: an (N, m) int array, row = judged pair, column = judge, the
grade's position among the sorted categories, −1 where the judge gave no label; ``q`` holds
each pair's query code (0 … Q−1).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from trunc_accessor.stats._common import _BATCH_ELEMENTS
from trunc_accessor.stats.paired import _bootstrap_counts


# --------------------------------------------------------------------------- sums per query
def confusion(q: np.ndarray, a: np.ndarray, b: np.ndarray, n_q: int, c: int) -> np.ndarray:
    """(Q, C, C) counts: [query, a's category, b's category], over pairs both labelled."""
    both = (a >= 0) & (b >= 0)
    flat = (q[both] * c + a[both]) * c + b[both]
    return np.bincount(flat, minlength=n_q * c * c).reshape(n_q, c, c).astype(np.float64)


def coincidences(q: np.ndarray, codes: np.ndarray, n_q: int, c: int) -> np.ndarray:
    """(Q, C, C) coincidence matrices of Krippendorff (2011, "Computing Krippendorff's
    alpha-reliability", §C): every ordered pair of labels of one unit (judged pair) adds
    1 / (m_u − 1), m_u its number of labels; units with one label add nothing."""
    m_u = (codes >= 0).sum(axis=1)
    weight = np.where(m_u >= 2, 1.0 / np.maximum(m_u - 1, 1), 0.0)
    out = np.zeros(n_q * c * c)
    m = codes.shape[1]
    for j in range(m):  # pairs of judges (m is small), never queries or units
        for k in range(j + 1, m):
            both = (codes[:, j] >= 0) & (codes[:, k] >= 0)
            qq, a, b, w = q[both], codes[both, j], codes[both, k], weight[both]
            out += np.bincount((qq * c + a) * c + b, weights=w, minlength=n_q * c * c)
            out += np.bincount((qq * c + b) * c + a, weights=w, minlength=n_q * c * c)
    return out.reshape(n_q, c, c)


def fleiss_sums(q: np.ndarray, codes: np.ndarray, n_q: int, c: int) -> np.ndarray:
    """(Q, 2 + C): Σ P_i, the number of units N and the category totals Σ_i n_ij, over the
    units every judge labelled (Fleiss 1971: P_i = (Σ_j n_ij² − m) / (m(m − 1)), the share of
    agreeing ordered pairs of judges on unit i)."""
    m = codes.shape[1]
    full = (codes >= 0).all(axis=1)
    codes, q = codes[full], q[full]
    agree = np.zeros(len(q))
    for j in range(m):
        for k in range(j + 1, m):
            agree += 2.0 * (codes[:, j] == codes[:, k])
    p_unit = agree / (m * (m - 1)) if m > 1 else np.full(len(q), np.nan)
    out = np.empty((n_q, 2 + c))
    out[:, 0] = np.bincount(q, weights=p_unit, minlength=n_q)
    out[:, 1] = np.bincount(q, minlength=n_q)
    totals = np.zeros(n_q * c)
    for j in range(m):
        totals += np.bincount(q * c + codes[:, j], minlength=n_q * c)
    out[:, 2:] = totals.reshape(n_q, c)
    return out


def difference_sums(q: np.ndarray, a: np.ndarray, b: np.ndarray, n_q: int) -> np.ndarray:
    """(Q, 3): n, Σ d and Σ d² of the differences d = b − a (grades as numbers; NaN = no
    label, such pairs left out)."""
    both = ~np.isnan(a) & ~np.isnan(b)
    d = (b - a)[both]
    qq = q[both]
    return np.stack([np.bincount(qq, minlength=n_q).astype(np.float64),
                     np.bincount(qq, weights=d, minlength=n_q),
                     np.bincount(qq, weights=d * d, minlength=n_q)], axis=1)


# --------------------------------------------------------------------------- finishing
def _divide(num, den):
    """num / den, NaN where den is 0 (or NaN)."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    ok = den != 0
    np.divide(num, den, out=out, where=np.broadcast_to(ok, out.shape))
    return out


def weight_matrix(c: int, weights: str | None) -> np.ndarray:
    """Cohen's disagreement weights over category positions: 1 − I (unweighted), |i − j|
    (linear) or (i − j)² (quadratic), as ``sklearn.metrics.cohen_kappa_score``."""
    i = np.arange(c, dtype=np.float64)
    if weights is None:
        return 1.0 - np.eye(c)
    diff = i[:, None] - i[None, :]
    return np.abs(diff) if weights == "linear" else diff ** 2


def observed_agreement(conf: np.ndarray) -> np.ndarray:
    """p_o: the share of pairs with the same category (trace / total), over leading axes."""
    return _divide(np.trace(conf, axis1=-2, axis2=-1), conf.sum(axis=(-2, -1)))


def cohen_kappa(conf: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's κ (1960; weighted, 1968) of confusion matrices (..., C, C):
    κ = 1 − Σ w·O / Σ w·E with E_ij = row_i · col_j / n; NaN when Σ w·E = 0 (chance
    agreement 1: one grade only) or there is no pair."""
    w = weight_matrix(conf.shape[-1], weights)
    total = conf.sum(axis=(-2, -1))
    rows, cols = conf.sum(axis=-1), conf.sum(axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = rows[..., :, None] * cols[..., None, :] / total[..., None, None]
    den = np.where(total > 0, (w * expected).sum(axis=(-2, -1)), 0.0)
    return 1.0 - _divide((w * conf).sum(axis=(-2, -1)), den)


def fleiss_kappa(sums: np.ndarray, m: int) -> np.ndarray:
    """Fleiss' κ (1971) from ``fleiss_sums`` (..., 2 + C): (P̄ − P_e) / (1 − P_e) with
    P̄ = Σ P_i / N, p_j = Σ_i n_ij / (N m), P_e = Σ p_j²; NaN when P_e = 1 or N = 0."""
    p_mean = _divide(sums[..., 0], sums[..., 1])
    p_cat = _divide(sums[..., 2:], (sums[..., 1] * m)[..., None])
    p_e = (p_cat ** 2).sum(axis=-1)
    return _divide(p_mean - p_e, 1.0 - p_e)


def _distances(values: np.ndarray, n_v: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's δ² between categories (Krippendorff 2011, §F): nominal 1 − I, ordinal
    (Σ_{g=c..k} n_g − (n_c + n_k)/2)², interval (c − k)², ratio ((c − k)/(c + k))²."""
    c = len(values)
    if level == "nominal":
        return 1.0 - np.eye(c)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ratio":
        total = values[:, None] + values[None, :]
        return np.where(total != 0, _divide(values[:, None] - values[None, :], total), 0.0) ** 2
    i = np.arange(c)
    lo, hi = np.minimum(i[:, None], i[None, :]), np.maximum(i[:, None], i[None, :])
    cum = np.cumsum(n_v, axis=-1)
    between = cum[..., hi] - cum[..., lo] + n_v[..., lo]  # Σ_{g=lo..hi} n_g
    return (between - (n_v[..., i[:, None]] + n_v[..., i[None, :]]) / 2.0) ** 2


def krippendorff_alpha(o: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's α = 1 − Σ o·δ² / Σ e·δ² of coincidence matrices o (..., C, C), with
    n_c = Σ_k o_ck and e_ck = (n_c n_k − [c = k] n_c) / (n − 1); NaN when fewer than two
    values are pairable or every pairable value is the same (Σ e·δ² = 0)."""
    n_v = o.sum(axis=-2)
    n = n_v.sum(axis=-1)
    diag = n_v[..., :, None] * np.eye(o.shape[-1])
    e = _divide(n_v[..., :, None] * n_v[..., None, :] - diag, (n - 1.0)[..., None, None])
    e = np.where((n > 1)[..., None, None], e, 0.0)
    d = _distances(np.asarray(values, dtype=np.float64), n_v, level)
    return 1.0 - _divide((o * d).sum(axis=(-2, -1)), (e * d).sum(axis=(-2, -1)))


def grade_scores(conf: np.ndarray) -> np.ndarray:
    """(..., 5, C): precision, recall, F1, support and predicted count of each category of
    the second judge against the first (rows of ``conf``: the reference). Precision =
    tp / predicted, recall = tp / support, F1 = 2 tp / (support + predicted); NaN where the
    denominator is 0 (``sklearn.metrics.precision_recall_fscore_support`` with
    ``zero_division=np.nan``)."""
    tp = np.diagonal(conf, axis1=-2, axis2=-1)
    support, predicted = conf.sum(axis=-1), conf.sum(axis=-2)
    return np.stack([_divide(tp, predicted), _divide(tp, support),
                     _divide(2.0 * tp, support + predicted), support, predicted], axis=-2)


def bland_altman(sums: np.ndarray, z: float = 1.96, ddof: int = 1) -> np.ndarray:
    """(..., 5): n, bias (mean of d), its sd (``ddof``) and the limits of agreement
    bias ∓ z·sd (Bland & Altman, Lancet 1986) from ``difference_sums``; NaN where
    n ≤ ddof."""
    n, s1, s2 = sums[..., 0], sums[..., 1], sums[..., 2]
    bias = _divide(s1, n)
    var = _divide(s2 - s1 * np.nan_to_num(bias), n - ddof)
    var = np.where(n > ddof, np.maximum(var, 0.0), np.nan)
    sd = np.sqrt(var)
    return np.stack([n, bias, sd, bias - z * sd, bias + z * sd], axis=-1)


# --------------------------------------------------------------------------- bootstrap
def bootstrap_interval(sums: np.ndarray, finish: Callable[[np.ndarray], np.ndarray],
                       confidence: float, n_resamples: int, seed) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """Percentile bootstrap interval over queries (Efron & Tibshirani 1993, §13.3) of
    ``finish(sums.sum(0))``: the queries (rows of ``sums``) are resampled with replacement
    ``n_resamples`` times with ``default_rng(seed)`` (the draws of ``scipy.stats.bootstrap``),
    the statistic recomputed from each resample's sums, and the (1 ± confidence)/2
    percentiles taken (linear interpolation, as ``numpy.percentile``). Resamples where the
    statistic is undefined (NaN) are left out; all undefined: NaN. Memory is bounded: the
    resamples go through the matrix product in chunks of about four million numbers."""
    n_q = sums.shape[0]
    shape = finish(sums.sum(axis=0)).shape
    if n_q == 0:
        return np.full(shape, np.nan), np.full(shape, np.nan)
    flat = sums.reshape(n_q, -1)
    # resamples per product: the chunks of _bootstrap_counts bound the count matrix
    # (k × queries); a wide statistic (queries × categories² sums) also bounds the product
    # (k × its width), so that memory stays bounded whatever the number of categories
    step = max(1, _BATCH_ELEMENTS // max(flat.shape[1], 1))
    values = [finish((part @ flat).reshape((len(part),) + sums.shape[1:]))
              for counts in _bootstrap_counts(n_q, n_resamples, seed)
              for part in (counts[i:i + step] for i in range(0, len(counts), step))]
    resampled = np.concatenate(values, axis=0)
    tail = (1.0 - confidence) / 2.0 * 100.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN: NaN is the answer
        low, high = np.nanpercentile(resampled, [tail, 100.0 - tail], axis=0)
    return low, high
