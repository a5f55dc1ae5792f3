"""ir_measures' Accuracy (MacAvaney, Macdonald & Ounis, 'Streamlining evaluation with
ir-measures', ECIR 2022): the pairwise accuracy of the top k on its relevant and non-relevant
documents, exact under ties (a cut tie group averaged over its hypergeometric splits).
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics._combinatorics import log_factorials
from trunc_accessor.metrics.params import K
from trunc_accessor.metrics.registry import register


# --------------------------------------------------------------------------- Accuracy
@register("accuracy", params=(K,),
          citation="ir_measures' Accuracy (MacAvaney, Macdonald & Ounis, 'Streamlining "
                   "evaluation with ir-measures', ECIR 2022): the pairwise accuracy of the "
                   "ranking on its relevant and non-relevant documents.",
          undefined=("Undefined when the top k holds no relevant document (so whenever R = 0) "
                     "or no non-relevant one (so for an empty ranking): there is no pair to "
                     "order. ir_measures leaves out "
                     "the first case and fails with a division by zero in the second."),
          ties=("Exact: a pair inside a tie group is in order with probability 1/2; when k "
                "cuts a tie group that mixes relevant and non-relevant documents, the number "
                "of its relevant documents above k is hypergeometric and the value is averaged "
                "over it (refused, naming the query, when some of those cases are undefined "
                "and others are not)."),
          ir_measures="Accuracy")
def accuracy(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Pairwise accuracy of the top k: the share of (relevant, non-relevant) pairs among the
    retrieved documents in which the relevant one is ranked first,

        Accuracy@k = 1 − D / (r·u),

    r and u the relevant and non-relevant (unjudged included) documents in the top k and D
    the pairs with the non-relevant one above (ir_measures' Accuracy, a diagnostic of
    learning to rank; it ignores the relevant documents not retrieved). Relevant: grade ≥
    relevance_level (ir_measures' rel).

    >>> from trunc_accessor.frontends.single import accuracy
    >>> accuracy([0, 1, 1, 0])  # pairs (r, u): 2 of 4 in order
    0.5
    >>> accuracy([1, 0], scores=[1, 1])  # one tied pair: in order half the time
    0.5
    """
    rel = prep.relevant(level)
    inside = np.ones(len(rel), dtype=bool) if k is None else prep.pos <= k
    non = (1.0 - rel) * inside
    rel = rel * inside
    r = prep.seg_sum(rel)
    u = prep.seg_sum(non)
    # D: for each relevant document, the non-relevant ones above it; a tie group's own pairs
    # are in order half the time
    g_rel, g_non = prep.group_sum(rel), prep.group_sum(non)
    D_groups = g_rel * prep.before_group(g_non) + g_rel * g_non / 2.0
    cut = np.zeros(prep.n_groups, dtype=bool)
    if k is not None and not prep.singleton_groups:
        cut = (prep.g_start < k) & (prep.g_start + prep.g_size > k)
        full_rel = prep.group_sum(prep.relevant(level))
        cut &= (full_rel > 0) & (full_rel < prep.g_size)
    D = np.bincount(prep.g_seg, weights=np.where(cut, 0.0, D_groups),
                    minlength=prep.n_segments)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(r * u > 0, 1.0 - D / np.where(r * u > 0, r * u, 1.0), np.nan)
    if cut.any():
        value = _accuracy_cut(prep, level, k, cut, value, r, u, D, g_non)
    return value


def _accuracy_cut(prep: Prepared, level, k, cut, value, r, u, D, g_non):
    """Accuracy of the rankings whose k-th position splits a tie group of a relevant and b
    non-relevant documents: j of its relevant documents above k (t = k − s positions) has
    probability C(a, j) C(b, t − j)/C(a + b, t); given j, the value is 1 − (D₀ + u₀ j +
    j(t − j)/2)/((r₀ + j)(u₀ + t − j)), (r₀, u₀, D₀) what lies above the group."""
    groups = np.flatnonzero(cut)
    seg = prep.g_seg[groups]
    full_rel = prep.group_sum(prep.relevant(level))[groups]
    m = prep.g_size[groups].astype(np.int64)
    a = full_rel.astype(np.int64)
    b = m - a
    t = (k - prep.g_start[groups]).astype(np.int64)
    # what lies above the group, within the cut: r, u and D less the group's own share
    inside_rel = prep.group_sum(prep.relevant(level) * (prep.pos <= k))[groups]
    r0 = r[seg] - inside_rel
    u0 = u[seg] - g_non[groups]
    D0 = D[seg]
    lo = np.maximum(0, t - b)
    hi = np.minimum(a, t)
    count = hi - lo + 1
    owner = np.repeat(np.arange(len(groups)), count)
    j = lo[owner] + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    lf = log_factorials(int(m.max()))
    aa, bb, mm, tt = a[owner], b[owner], m[owner], t[owner]
    logp = (lf[aa] - lf[j] - lf[aa - j] + lf[bb] - lf[tt - j] - lf[bb - tt + j]
            - lf[mm] + lf[tt] + lf[mm - tt])
    prob = np.exp(logp)
    rr = r0[owner] + j
    uu = u0[owner] + tt - j
    DD = D0[owner] + u0[owner] * j + j * (tt - j) / 2.0
    defined = rr * uu > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(defined, 1.0 - DD / np.where(defined, rr * uu, 1.0), 0.0)
    n_def = np.bincount(owner, weights=defined.astype(np.float64), minlength=len(groups))
    partly = (n_def > 0) & (n_def < count)
    if partly.any():
        where = ", ".join(f"{key}={val!r}" for key, val in
                          prep.keys.row(int(seg[np.argmax(partly)]), named=True).items())
        raise ParameterError(
            f"accuracy@{k} with ties='average': the ranking of {where} ties, across the "
            "cut-off, documents whose order decides whether the top k holds both a relevant "
            "and a non-relevant document, so the value is undefined in some orders of the tie "
            "and not in others. Pass ties='first' (the order as given) or ties='trec_eval'.")
    mean = np.bincount(owner, weights=prob * v, minlength=len(groups))
    out = value.copy()
    out[seg] = np.where(n_def > 0, mean, np.nan)
    return out
