"""Naive reference definitions of the trec_eval counts, set measures, interpolated precision,
Rprec_mult, infAP (ported line for line from trec_eval 10.0's C sources), ir_measures'
Judged and Compat, one ranking at a time, independent of the library's kernels.

A ranking is a list of grades (None = unjudged, i.e. not in the qrels; a negative grade is
trec_eval's "pooled but unjudged"); ``judged`` lists every judged grade of the query. Where
trec_eval prints 0 for a 0/0 the library returns NaN (a mathematically undefined value is
missing); these references do the same
and say where.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from tests.reference import NAN, is_rel
from tests.reference import num_rel as _num_rel

EPS = 0.00001  # trec_eval.h INFAP_EPSILON


def c_lround(x: float) -> int:
    """C's lround: halves away from zero (x ≥ 0 here)."""
    return int(Decimal(x).quantize(Decimal(0), rounding=ROUND_HALF_UP))


def _a(r, level):
    return sum(is_rel(g, level) for g in r)


# --------------------------------------------------------------------------- counts
def num_ret(r, judged, level):
    return float(len(r))


def num_rel(r, judged, level):
    return float(_num_rel(judged, level))


def num_rel_ret(r, judged, level, k=None):
    return float(_a(r if k is None else r[:k], level))


def num_nonrel_judged_ret(r, judged, level):
    """m_num_nonrel_judged_ret.c: num_ret − nonpool − unjudged_in_pool − num_rel_ret."""
    return float(sum(1 for g in r if g is not None and 0 <= g < level))


def judged(r, judged_grades, level, k=None):
    """ir_measures judged_provider.py; an empty ranking divides by zero there: NaN."""
    cutoff = len(r) if k is None else k
    cut = r[:cutoff]
    count = sum(g is not None for g in cut)
    cutoff = min(cutoff, len(cut))
    return NAN if cutoff == 0 else count / cutoff


def unjudged(r, judged, level, k=None):
    """m_unjudged.c (k=None: divided by n, NaN for n = 0)."""
    unj = sum(1 for g in (r if k is None else r[:k]) if g is None or g < 0)
    if k is None:
        return NAN if not r else unj / len(r)
    return unj / k


# --------------------------------------------------------------------------- sets
def set_precision(r, judged, level):
    return NAN if not r else _a(r, level) / len(r)


def set_recall(r, judged, level):
    R = _num_rel(judged, level)
    return NAN if R == 0 else _a(r, level) / R


def set_f(r, judged, level, beta=1.0):
    """m_set_F.c; NaN only where P and R are both 0/0."""
    a, R, n = _a(r, level), _num_rel(judged, level), len(r)
    if a == 0:
        return NAN if n == 0 and R == 0 else 0.0
    P, Rc = a / n, a / R
    return (beta + 1.0) * P * Rc / (beta * P + Rc)


def set_ap(r, judged, level):
    R, n = _num_rel(judged, level), len(r)
    if R == 0:
        return NAN
    return 0.0 if n == 0 else _a(r, level) ** 2 / (n * R)


def set_relative_precision(r, judged, level):
    R, n = _num_rel(judged, level), len(r)
    return NAN if R == 0 or n == 0 else _a(r, level) / min(n, R)


def relative_precision(r, judged, level, k=None):
    """m_rel_P.c (one cut-off); k=None: set_relative_precision."""
    R = _num_rel(judged, level)
    if R == 0:
        return NAN
    if k is None:
        return set_relative_precision(r, judged, level)
    rel_so_far = 0
    for i in range(len(r)):
        if i == k:
            return rel_so_far / min(i, R)
        if is_rel(r[i], level):
            rel_so_far += 1
    return rel_so_far / min(k, R)


# --------------------------------------------------------------------------- interpolation
def _iprec_values(r, judged, level, percents):
    """m_iprec_at_recall.c, line for line (trec_eval 10: lround)."""
    R, n = _num_rel(judged, level), len(r)
    a = _a(r, level)
    values = [0.0] * len(percents)
    cutoffs = [c_lround(x * R) for x in percents]
    cur = len(percents) - 1
    while cur >= 0 and cutoffs[cur] > a:
        cur -= 1
    precis = a / n if n else 0.0  # trec_eval divides 0/0 here; -c prints 0 for an empty run
    int_precis = precis
    rel_so_far = a
    i = n
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        int_precis = max(int_precis, precis)
        if is_rel(r[i - 1], level):
            while cur >= 0 and rel_so_far == cutoffs[cur]:
                values[cur] = int_precis
                cur -= 1
            rel_so_far -= 1
        i -= 1
    while cur >= 0:
        values[cur] = int_precis
        cur -= 1
    return values


def iprec_at_recall(r, judged, level, recall=0.0):
    if _num_rel(judged, level) == 0:
        return NAN
    return _iprec_values(r, judged, level, [recall])[0]


def interpolated_precision_11pt(r, judged, level):
    if _num_rel(judged, level) == 0:
        return NAN
    return sum(_iprec_values(r, judged, level, [i / 10 for i in range(11)])) / 11


def rprec_mult(r, judged, level, mult=1.0):
    """m_Rprec_mult.c, line for line; NaN for R = 0 and for a cut-off of 0."""
    R, n = _num_rel(judged, level), len(r)
    cutoff = int(mult * R + 0.9)
    if R == 0 or cutoff == 0:
        return NAN
    a = _a(r, level)
    if cutoff > n:
        return a / cutoff
    value, rel_so_far, i = 0.0, a, n
    while i > 0 and rel_so_far > 0:
        if i == cutoff:
            value = rel_so_far / i
        if is_rel(r[i - 1], level):
            rel_so_far -= 1
        i -= 1
    return value


# --------------------------------------------------------------------------- infAP
def infap(r, judged, level):
    """m_infap.c, line for line; NaN for R = 0."""
    R = _num_rel(judged, level)
    nonrel = rel = unj = 0
    inf_ap = 0.0
    for j, g in enumerate(r):
        if g is None:
            continue
        if g < 0:
            unj += 1
            continue
        if g < level:
            nonrel += 1
        else:
            rel += 1
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unj) / fj)
                           * ((rel - 1 + EPS) / (rel - 1 + nonrel + 2 * EPS)))
    return NAN if R == 0 else inf_ap / R


# --------------------------------------------------------------------------- compat
def _rbo(ranking, ideal, p, depth):
    """ir_measures compat_provider.rbo."""
    ranking_set, ideal_set = set(), set()
    score = normalizer = 0.0
    weight = 1.0
    for i in range(depth):
        if i < len(ranking):
            ranking_set.add(ranking[i])
        if i < len(ideal):
            ideal_set.add(ideal[i])
        score += weight * len(ideal_set & ranking_set) / (i + 1)
        normalizer += weight
        weight *= p
    return score / normalizer


def compat(r, judged, level, p=0.95, normalize=True):
    """ir_measures' compatibility with the ideal ranking ordered, among equal grades, by the
    ranking (Clarke's ``idealize``); NaN for R = 0."""
    relevant = sorted((g for g in judged if g >= level), reverse=True)
    if not relevant:
        return NAN
    ranking = list(range(len(r)))
    ideal = []
    for grade in sorted(set(relevant), reverse=True):
        retrieved = [i for i, g in enumerate(r) if g is not None and g >= level and g == grade]
        ideal += retrieved + [f"missing-{grade}-{j}"
                              for j in range(relevant.count(grade) - len(retrieved))]
    depth = max(len(ranking), len(ideal))
    score = _rbo(ranking, ideal, p, depth)
    if normalize:
        score /= _rbo(ideal, ideal, p, depth)
    return score
