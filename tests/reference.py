"""Naive reference definitions, one ranking at a time, written from trec_eval's C sources
and the papers, independent of the library's kernels. Used for brute-force tie tests.

A ranking is a list of grades (None = unjudged); `judged` is the list of every judged
grade of the query (retrieved or not).
"""
from __future__ import annotations

import itertools
import math

NAN = float("nan")


def is_rel(g, level):
    return g is not None and g >= level


def num_rel(judged, level):
    return sum(1 for g in judged if g >= level)


def precision(r, judged, level, k=None):
    if k is None:
        return NAN if not r else sum(is_rel(g, level) for g in r) / len(r)
    return sum(is_rel(g, level) for g in r[:k]) / k


def recall(r, judged, level, k=None):
    R = num_rel(judged, level)
    top = r if k is None else r[:k]
    return NAN if R == 0 else sum(is_rel(g, level) for g in top) / R


def f1(r, judged, level, k=None):
    R = num_rel(judged, level)
    top = r if k is None else r[:k]
    den = (len(r) if k is None else k) + R
    return NAN if den == 0 else 2 * sum(is_rel(g, level) for g in top) / den


def success(r, judged, level, k=None):
    top = r if k is None else r[:k]
    return float(any(is_rel(g, level) for g in top))


def ap(r, judged, level, k=None):
    R = num_rel(judged, level)
    if R == 0:
        return NAN
    total, hits = 0.0, 0
    for i, g in enumerate(r[:k] if k else r, 1):
        if is_rel(g, level):
            hits += 1
            total += hits / i
    return total / R


def rr(r, judged, level, k=None):
    for i, g in enumerate(r[:k] if k else r, 1):
        if is_rel(g, level):
            return 1.0 / i
    return 0.0


def _gain(g, gains):
    if g is None:
        return 0.0
    g = max(g, 0)
    if gains == "exponential":
        return 2.0 ** g - 1
    if isinstance(gains, dict) and g in gains:
        return float(gains[g])
    return float(g)


def dcg(r, judged, level, k=None, gains=None):
    return sum(_gain(g, gains) / math.log2(i + 1) for i, g in enumerate(r[:k] if k else r, 1))


def ndcg(r, judged, level, k=None, gains=None):
    ideal = sorted((_gain(g, gains) for g in judged), reverse=True)
    ideal = [x for x in ideal if x > 0]
    idcg = sum(x / math.log2(i + 1) for i, x in enumerate(ideal[:k] if k else ideal, 1))
    return NAN if idcg == 0 else dcg(r, judged, level, k, gains) / idcg


def rprec(r, judged, level):
    R = num_rel(judged, level)
    return NAN if R == 0 else sum(is_rel(g, level) for g in r[:R]) / R


def bpref(r, judged, level):
    """trec_eval m_bpref.c, line for line."""
    R = num_rel(judged, level)
    n_nonrel = sum(1 for g in judged if 0 <= g < level)
    nonrel_so_far, total = 0, 0.0
    for g in r:
        if g is None or g < 0:
            continue
        if g < level:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, R) / min(n_nonrel, R)
        else:
            total += 1.0
    return NAN if R == 0 else total / R


def rbp(r, judged, level, p=0.8):
    return (1 - p) * sum(p ** i for i, g in enumerate(r) if is_rel(g, level))


def rbp_residual(r, judged, level, p=0.8):
    return p ** len(r) + (1 - p) * sum(p ** i for i, g in enumerate(r) if g is None or g < 0)


FUNCTIONS = {f.__name__: f for f in (precision, recall, f1, success, ap, rr, dcg, ndcg, rprec,
                                     bpref, rbp, rbp_residual)}


def tie_orders(grades, scores):
    """Every order of the ranking consistent with its scores (ties permuted)."""
    groups, start = [], 0
    for i in range(1, len(grades) + 1):
        if i == len(grades) or scores[i] != scores[start]:
            groups.append(grades[start:i])
            start = i
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [x for grp in combo for x in grp]


def brute_force_mean(fn, grades, scores, judged, level, **params):
    values = [fn(list(o), judged, level, **params) for o in tie_orders(grades, scores)]
    if any(math.isnan(v) for v in values):  # undefined for every order
        assert all(math.isnan(v) for v in values)
        return NAN
    return sum(values) / len(values)
