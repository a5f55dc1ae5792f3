"""Rank-biased precision (Moffat & Zobel 2008): RBP with binary or graded gains,
trectools' RBP (the grades as gains) and RBP's residual, with the graded gain scale
(``graded=``, ``max_grade=``) the terminal, cascade and utility metrics share.

Tie-aware as every kernel of ``trunc_accessor.metrics.standard``: every gain is replaced by
its tie group's mean gain (McSherry & Najork, ECIR 2008).
"""
from __future__ import annotations

import math

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import rbp_tail, rbp_weights
from trunc_accessor.metrics.params import (
    P,
    Param,
    check_bool,
    check_positive_or_none,
)
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register

RBP_GRADED = Param("graded", False, check_bool,
                   "False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade")
MAX_GRADE = Param("max_grade", None, check_positive_or_none,
                  "the top of the grade scale for graded=True; default: the largest grade in "
                  "the qrels")
RBP_CITE = ("Moffat & Zobel, 'Rank-biased precision for measurement of retrieval "
            "effectiveness', ACM TOIS 27(1), 2008; tie-aware by group-mean gains "
            "(McSherry & Najork 2008).")


def rbp_gain(prep: Prepared, level: float, graded: bool, max_grade) -> np.ndarray:
    if not graded:
        return prep.relevant(level)
    top = max_grade if max_grade is not None else prep.max_grade
    return prep.gain() / top if top > 0 else np.zeros_like(prep.gain())


def rbp_prefix(c: Cuts, level, p=0.8, graded=False, max_grade=None):
    """rbp at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    gain = part.group_mean(rbp_gain(part, level, graded, max_grade))
    return (1.0 - p) * c.running(part, gain * rbp_weights(part, p))


@register("rbp", params=(P, RBP_GRADED, MAX_GRADE), citation=RBP_CITE,
          undefined="Never undefined: 0 for an empty ranking and when R = 0.",
          ties=("Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork "
                "2008); a group cut by a cut-off counts the share of its positions inside it."),
          ir_measures="RBP", prefix=rbp_prefix)
def rbp(prep: Prepared, level: float, p=0.8, graded=False, max_grade=None) -> np.ndarray:
    """Rank-biased precision, (1 − p) Σ_j gain_j · p^(j−1).

    Binary gain by default; ``graded=True``: grade / max_grade. trec_eval's
    ``rbp`` uses p = 0.9 and, for graded qrels, min–max-normalised grades. The weight of
    what is not known is ``rbp_residual``.

    >>> from trunc_accessor.frontends.single import rbp
    >>> rbp([1, 0, 1], p=0.5)  # 0.5 · (1 + 0.25)
    0.625
    """
    part = prep.judged_part()
    gain = part.group_mean(rbp_gain(part, level, graded, max_grade))
    return (1.0 - p) * part.seg_sum(gain * rbp_weights(part, p))


@register("trectools_rbp", params=(P,), citation=RBP_CITE + " trectools' TrecEval.get_rbp.",
          undefined="Never undefined: 0 for an empty ranking, when R = 0 and when no "
                    "retrieved document has a grade above 0.",
          ties=("Exact: every weight p^(j−1) is replaced by its tie group's mean weight, as "
                "trectools' average_ties does (the same as group-mean gains)."))
def trectools_rbp(prep: Prepared, level: float, p=0.8) -> np.ndarray:
    """RBP with the grades themselves as gains, (1 − p) Σ_j max(grade_j, 0) · p^(j−1): the
    reading of trectools (``TrecEval.get_rbp(binary_topical_relevance=False)``), which is
    ir_measures' ``RBP`` without ``rel=`` (its only provider of it is trectools). Not
    bounded by 1: a grade of 4 gains 4. ``relevance_level`` plays no part. The library's
    ``rbp(graded=True)`` divides each grade by the largest grade of the qrels instead.

    >>> from trunc_accessor.frontends.single import trectools_rbp
    >>> trectools_rbp([2, 0, 1], p=0.5)  # 0.5 · (2 + 0.25 · 1)
    1.125
    """
    part = prep.judged_part()
    gain = part.group_mean(part.gain())
    return (1.0 - p) * part.seg_sum(gain * rbp_weights(part, p))


def rbp_residual_prefix(c: Cuts, level, p=0.8):
    """rbp_residual at every cut-off of ``c`` (its prefix kernel)."""
    part, weight, end = residual_parts(c.prep, p)
    known = c.running_groups(part, weight)
    last = c.at(part, end, groups=True, empty=0).astype(np.int64)
    return np.power(p, c.n) + (known + rbp_band(p, last, c.depth - last))


@register("rbp_residual", params=(P,), aliases=("rbp_resid",), citation=RBP_CITE,
          undefined="Never undefined: 1 for an empty ranking (all weight unknown); R = 0 "
                    "changes nothing (only unjudged documents count).",
          ties=("Exact: the unjudged indicator is replaced by its group's mean."),
          prefix=rbp_residual_prefix)
def rbp_residual(prep: Prepared, level: float, p=0.8) -> np.ndarray:
    """RBP residual: the largest amount RBP could still rise, p^n + (1 − p) Σ_{unjudged j}
    p^(j−1), i.e. the weight of the unjudged documents (not in the qrels, or a negative
    grade: "judged, unknown") and of the unseen tail beyond rank n (Moffat & Zobel §4).

    trec_eval's ``rbp_resid`` uses p = 0.9 and reports 0 for a ranking without unjudged
    documents (the tail p^n is then left out); we always include it. Tie-aware by the
    group-mean of the unjudged indicator. Computed from the tie groups that hold a judged
    document only: the positions between them are all unjudged, and a band of positions
    i + 1 … i + L weighs p^i (1 − p^L) in closed form.

    >>> from trunc_accessor.frontends.single import rbp_residual
    >>> rbp_residual([1, None, 0], p=0.5)  # 0.5^3 + 0.5 · 0.5
    0.375
    """
    part, weight, end = residual_parts(prep, p)
    known = np.bincount(part.g_seg, weights=weight, minlength=prep.n_segments)
    last = np.zeros(prep.n_segments, dtype=np.int64)  # the end of the last judged group
    if part.n_groups:
        final = np.flatnonzero(np.r_[part.g_seg[1:] != part.g_seg[:-1], True])
        last[part.g_seg[final]] = end[final]
    return rbp_tail(prep, p) + (known + rbp_band(p, last, prep.length - last))


def rbp_band(p: float, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """(1 − p) Σ_{start < j ≤ start + length} p^(j−1) = p^start (1 − p^length): RBP's weight
    of a band of positions, in closed form (no cancellation: 1 − p^length by expm1)."""
    start = np.asarray(start, dtype=np.float64)
    length = np.asarray(length, dtype=np.float64)
    return np.power(p, start) * -np.expm1(length * math.log(p))


def residual_parts(prep: Prepared, p: float) -> tuple[Prepared, np.ndarray, np.ndarray]:
    """The residual's weight, tie group by tie group, visiting only the groups that hold a
    judged document (the judged part of ``prep``): for each such group g, the weight of
    the positions after the previous one of its ranking up to g's start (their documents
    are all unjudged) plus g's own mean unjudged weight, (u/m)·p^t(1 − p^m) (u of its m
    documents unjudged, t positions before it). Returns (the part, that weight, g's end
    t + m); the positions after a ranking's last judged group add
    ``rbp_band`` from its end to n."""
    part = prep.judged_part()
    with np.errstate(invalid="ignore"):
        unknown = (~(part.grade >= 0)).astype(np.float64)  # unjudged or a negative grade
    size = part.g_size
    u = unknown if part.singleton_groups else part.group_sum(unknown)
    start = part.g_start
    end = start + size
    prev = np.zeros(part.n_groups, dtype=np.int64)
    if part.n_groups:
        prev[1:] = end[:-1]
        prev[np.flatnonzero(part.g_seg[1:] != part.g_seg[:-1]) + 1] = 0
    own = u / size * rbp_band(p, start, size)
    return part, rbp_band(p, prev, start - prev) + own, end
