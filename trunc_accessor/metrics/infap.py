"""Inferred AP (infAP, Yilmaz & Aslam, CIKM 2006) exactly as trec_eval computes it
(m_infap.c).

The qrels divide the retrieved documents into four kinds: not in the pool (no qrels entry),
pooled but unjudged (a negative grade, e.g. -1: the judged sample left it out), judged
non-relevant (0 ≤ grade < relevance_level) and judged relevant. For the relevant document at
position j + 1 (j documents above it), with r relevant, m judged non-relevant and u pooled
but unjudged documents above it, trec_eval adds

    1/(j + 1) + (j/(j + 1)) · ((r + m + u)/j) · ((r + ε)/(r + m + 2ε)),   ε = 0.00001

(1 for the document at rank 1): the document itself, then the fraction of the documents
above it that are in the pool, times the precision estimated on the judged ones. The sum is
divided by R, the relevant judged documents of the query.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics._combinatorics import log_factorials
from trunc_accessor.metrics._kernels import safe_div
from trunc_accessor.metrics._order import TREC_EVAL
from trunc_accessor.metrics.registry import register

INFAP_EPSILON = 0.00001  # trec_eval.h
MAX_WORK = 5 * 10 ** 7  # (offset, composition) cases of one tie group under ties="average"


def before_row(prep: Prepared, x: np.ndarray) -> np.ndarray:
    """For each row, the sum of ``x`` over the earlier rows of its ranking."""
    c = np.cumsum(x) - x
    nonempty = prep.length > 0
    start = np.zeros(prep.n_segments)
    start[nonempty] = c[prep.offsets[:-1][nonempty]]
    return c - start[prep.seg]


@register("infap", aliases=("inf_ap",),
          citation="Yilmaz & Aslam, 'Estimating average precision with incomplete and imperfect "
                   "judgments', CIKM 2006; " + TREC_EVAL + ", m_infap.c.",
          undefined="Undefined when R = 0. An empty ranking with R > 0 scores 0.",
          ties=("Exact: a relevant document of a tie group sits at a uniform offset o in "
                "it, with the o documents above it a uniform sample of the group's others, so "
                "the counts above it inside the group are multivariate hypergeometric; its "
                "term is averaged over that distribution (tie groups beyond 5·10^7 cases are "
                "refused with their size)."),
          ir_measures="infAP", trec_eval="infAP")
def infap(prep: Prepared, level: float) -> np.ndarray:
    """Inferred average precision, trec_eval's ``infAP``: AP estimated from a judged sample
    of the pool, where a negative grade marks a pooled but unjudged document.

    For the relevant document at position j + 1 with r relevant, m judged non-relevant and u
    pooled-but-unjudged documents above it, the term is 1/(j + 1) + (j/(j + 1)) ·
    ((r + m + u)/j) · ((r + ε)/(r + m + 2ε)), ε = 10⁻⁵ (1 at rank 1); infAP is their sum
    over R. Documents absent from the qrels are outside the pool: they count in j only.
    With complete judgments (no negative grade) it is close to AP but not equal (the ε).

    Ties: under ties='average' the exact mean over the orders of tied documents: the
    counts above a relevant document inside its tie group are multivariate hypergeometric
    given its offset, and its term is averaged over them.

    >>> from trunc_accessor.frontends.single import infap
    >>> round(infap([1, 0, 1], R=2), 4)  # (1 + 1/3 + (2/3)(1 + ε)/(2 + 2ε)) / 2
    0.8333
    >>> round(infap([1, -1, 1], R=2), 4)  # the pooled, unjudged document is skipped
    1.0
    """
    g = prep.grade
    with np.errstate(invalid="ignore"):
        rel = g >= level
        nonrel = (g >= 0) & (g < level)
        pooled_unjudged = g < 0
    r = before_row(prep, rel.astype(np.float64))[rel]
    m = before_row(prep, nonrel.astype(np.float64))[rel]
    u = before_row(prep, pooled_unjudged.astype(np.float64))[rel]
    fj = (prep.pos[rel] - 1).astype(np.float64)
    term = _term(fj, r, m, u)
    if prep.ties == "average" and not prep.singleton_groups:
        term = _exact_over_ties(prep, rel, nonrel, pooled_unjudged, term)
    total = np.bincount(prep.seg[rel], weights=term, minlength=prep.n_segments)
    return safe_div(total, prep.num_relevant(level))


def _term(j, r, m, u):
    """trec_eval's term of a relevant document with j documents above it, r of them
    relevant, m judged non-relevant and u pooled but unjudged (1 at rank 1)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r + m + u) / j)
             * ((r + INFAP_EPSILON) / (r + m + 2 * INFAP_EPSILON)))
    return np.where(j == 0, 1.0, t)


def _log_comb(lf, n, k):
    """log C(n, k) from a table of log factorials, −∞ outside 0 ≤ k ≤ n."""
    k = np.asarray(k)
    ok = (k >= 0) & (k <= n)
    kk = np.where(ok, k, 0)
    return np.where(ok, lf[n] - lf[kk] - lf[np.where(ok, n - k, 0)], -np.inf)


def _exact_over_ties(prep, rel, nonrel, pooled, term):
    """Under ties="average": the relevant documents of a tie group that also holds other
    documents get the exact mean of their terms over the group's orders. A relevant document
    of such a group sits at offset o (uniform on 0…m − 1) with the o documents before it a
    uniform sample of the group's other ones, so (r', m', u') above it inside the group are
    multivariate hypergeometric; the counts before the group are fixed."""
    rows_rel = np.flatnonzero(rel)
    r_g = prep.group_sum(rel.astype(np.float64))
    mixed = (r_g > 0) & (r_g < prep.g_size)
    if not mixed.any():
        return term
    term = term.copy()
    n_before = {}
    for name, mask in (("r", rel), ("m", nonrel), ("u", pooled)):
        n_before[name] = prep.before_group(prep.group_sum(mask.astype(np.float64)))
    in_g = {name: prep.group_sum(mask.astype(np.float64))
            for name, mask in (("r", rel), ("m", nonrel), ("u", pooled))}
    # every group's cases counted before any group is computed (in floats: no overflow)
    cases = prep.g_size * in_g["r"] * (in_g["m"] + 1.0) * (in_g["u"] + 1.0)
    too_big = np.flatnonzero(mixed & (cases > MAX_WORK))
    if len(too_big):
        gi = int(too_big[0])
        where = ", ".join(f"{k}={v!r}" for k, v in
                          prep.keys.row(int(prep.g_seg[gi]), named=True).items())
        raise ParameterError(
            f"infap with ties='average': a tie group of {int(prep.g_size[gi]):,} documents in "
            f"the ranking of {where} is too large for the exact mean over its orders; pass "
            "ties='first' or ties='trec_eval'")
    row_of_rel = {int(row): k for k, row in enumerate(rows_rel)}
    for gi in np.flatnonzero(mixed):
        size = int(prep.g_size[gi])
        t = float(prep.g_start[gi])
        R0, M0, U0 = (n_before[k][gi] for k in ("r", "m", "u"))
        a, b, c = int(in_g["r"][gi]) - 1, int(in_g["m"][gi]), int(in_g["u"][gi])
        d = size - 1 - a - b - c
        o, rr, mm, uu = np.meshgrid(np.arange(size), np.arange(a + 1), np.arange(b + 1),
                                    np.arange(c + 1), indexing="ij")
        nn = o - rr - mm - uu
        lf = log_factorials(size)
        logp = (_log_comb(lf, a, rr) + _log_comb(lf, b, mm) + _log_comb(lf, c, uu)
                + _log_comb(lf, d, nn) - _log_comb(lf, size - 1, o))
        prob = np.where(np.isfinite(logp), np.exp(logp), 0.0) / size
        values = _term(t + o, R0 + rr, M0 + mm, U0 + uu)
        mean = float(np.sum(prob * np.where(prob > 0, values, 0.0)))
        first = prep.group_first_row[gi]
        for row in range(first, first + size):
            if rel[row]:
                term[row_of_rel[row]] = mean
    return term
