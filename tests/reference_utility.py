"""Naive reference definitions of the utility metrics of Amigó, Mizzaro & Spina (SIGIR 2022,
§3.3) and the set-based F-measure, one ranking at a time, written from the paper's formulas
and independent of the library's kernels. Same protocol as tests/reference.py: a ranking is
a list of grades (None = unjudged) and `judged` every judged grade of the query.

Gains (Amigó, Mizzaro & Spina, SIGIR 2022 §3.3): binary, 1 if grade ≥ level; graded: max(grade,
0) / max_grade, max_grade being the top of the scale (the caller passes the largest grade of the
whole qrels).
"""
from __future__ import annotations

import math

from tests.reference import is_rel, num_rel


def gain(g, level, graded=False, max_grade=None):
    if not graded:
        return 1.0 if is_rel(g, level) else 0.0
    if g is None or max_grade is None or max_grade <= 0:
        return 0.0
    return max(g, 0) / max_grade


def flat_utility(r, judged, level, e=0.05, graded=False, max_grade=None):
    """U = Σ_{i=1..n} (Rel(d_i) − e)."""
    return sum(gain(g, level, graded, max_grade) - e for g in r)


def dcgu(r, judged, level, e=0.05, graded=False, max_grade=None):
    """DCGU = Σ_{i=1..n} (Rel(d_i) − e) / log2(i + 1)."""
    return sum((gain(g, level, graded, max_grade) - e) / math.log2(i + 1)
               for i, g in enumerate(r, 1))


def rbpu(r, judged, level, p=0.8, e=0.05, graded=False, max_grade=None):
    """RBPU = (1 − p) Σ_{k=1..n} (Rel(d_k) − e) p^(k−1)."""
    return (1 - p) * sum((gain(g, level, graded, max_grade) - e) * p ** (k - 1)
                         for k, g in enumerate(r, 1))


def f_measure(r, judged, level):
    """2·P·R / (P + R) of the ranking as a set; 1 for an empty answer to a nil query."""
    R = num_rel(judged, level)
    n = len(r)
    if n == 0 and R == 0:
        return 1.0
    hits = sum(is_rel(g, level) for g in r)
    if hits == 0:
        return 0.0
    precision, recall = hits / n, hits / R
    return 2 * precision * recall / (precision + recall)


FUNCTIONS = {f.__name__: f for f in (flat_utility, dcgu, rbpu, f_measure)}
