"""trec_eval's set measures (set_P, set_recall, set_F, set_map, set_relative_P) and
relative precision at k (relative_P_k).

The set measures see the ranking as a set: n retrieved documents, a = num_rel_ret of them
relevant, R relevant in the qrels. No order enters, so ties change nothing. relative_P_k
depends only on the number of relevant documents in the first k, whose mean over tie
orders is P@k's (McSherry & Najork §2.1).

A 0/0 (R = 0; an empty ranking) is undefined: the kernels return NaN and a call gives 0, as
trec_eval prints, unless ``undefined="nan"`` is asked for.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import safe_div
from trunc_accessor.metrics._order import TREC_EVAL
from trunc_accessor.metrics.dialects import CUTS, TrecName
from trunc_accessor.metrics.params import K, Param, check_positive
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.standard import (
    precision,
    precision_prefix,
    recall,
    recall_prefix,
    relevant_retrieved,
)

SETS = TREC_EVAL + ", "


def set_precision_prefix(c: Cuts, level):
    """set_precision at every cut-off of ``c`` (its prefix kernel)."""
    return precision_prefix(c, level)


@register("set_precision", citation=SETS + "m_set_P.c.",
          undefined="Undefined for an empty ranking (0/0). R = 0 gives 0.",
          ties=("Order-free: no order of tied documents changes the value."),
          ir_measures="SetP", trec_eval="set_P", prefix=set_precision_prefix)
def set_precision(prep: Prepared, level: float) -> np.ndarray:
    """Set precision: relevant retrieved / retrieved, a / n (trec_eval ``set_P``; the same
    as ``precision`` with k=None).

    >>> from trunc_accessor.frontends.single import set_precision
    >>> set_precision([1, 0, 1, 0])
    0.5
    """
    return precision(prep, level)


def set_recall_prefix(c: Cuts, level):
    """set_recall at every cut-off of ``c`` (its prefix kernel)."""
    return recall_prefix(c, level)


@register("set_recall", citation=SETS + "m_set_recall.c.",
          undefined="Undefined when R = 0. An empty ranking with R > 0 scores 0.",
          ties=("Order-free: no order of tied documents changes the value."),
          ir_measures="SetR", trec_eval="set_recall", prefix=set_recall_prefix)
def set_recall(prep: Prepared, level: float) -> np.ndarray:
    """Set recall: relevant retrieved / relevant, a / R (trec_eval ``set_recall``; the same
    as ``recall`` with k=None).

    >>> from trunc_accessor.frontends.single import set_recall
    >>> set_recall([1, 0, 1, 0], R=4)
    0.5
    """
    return recall(prep, level)


BETA = Param("beta", 1.0, check_positive,
             "trec_eval's x: F = (1 + x)·P·R / (x·P + R); van Rijsbergen's F_β is x = β²")


def set_f_prefix(c: Cuts, level, beta=1.0):
    """set_f at every cut-off of ``c`` (its prefix kernel)."""
    return f_of_counts(c.relevant_retrieved(level),
                            c.ranking(c.prep.num_relevant(level)).astype(np.float64), c.n, beta)


@register("set_f", params=(BETA,), citation=SETS + "m_set_F.c (van Rijsbergen, 'Information "
          "Retrieval', Butterworths, 1979, the E measure).",
          undefined="Undefined only for an empty ranking of a query with "
                    "R = 0 (0/0); otherwise 0 when nothing relevant is retrieved (also R = 0, "
                    "and the empty ranking), as trec_eval.",
          ties=("Order-free: no order of tied documents changes the value."),
          ir_measures="SetF", trec_eval=TrecName("set_F", "float", "beta", (1.0,)),
          prefix=set_f_prefix)
def set_f(prep: Prepared, level: float, beta=1.0) -> np.ndarray:
    """Set F measure, trec_eval's ``set_F``: (1 + β)·P·R / (β·P + R) = (1 + β)·a / (β·R + n).

    ``beta`` is trec_eval's parameter as trec_eval (``set_F.2``), pytrec_eval and ir_measures
    (``SetF(beta=2)``) use it: it multiplies P, so it is the *square* of van Rijsbergen's
    β — ``beta=4`` is the textbook F₂, ``beta=0.25`` F₀.₅. ``beta=1`` is F1 (``f1`` with
    k=None).

    >>> from trunc_accessor.frontends.single import set_f
    >>> set_f([1, 0, 1, 0], R=4)  # P = R = 1/2
    0.5
    >>> round(set_f([1, 0, 0, 0], R=2, beta=4), 4)  # P = 1/4, R = 1/2: 5·(1/8)/(1 + 1/2)
    0.4167
    """
    return f_of_counts(relevant_retrieved(prep, level).astype(np.float64),
                       prep.num_relevant(level).astype(np.float64),
                       prep.length.astype(np.float64), beta)


def f_of_counts(a: np.ndarray, R: np.ndarray, n: np.ndarray, beta: float) -> np.ndarray:
    """trec_eval's set_F from the counts: a relevant retrieved of n, R relevant; 0 when
    nothing relevant is retrieved, undefined (NaN) when n = R = 0."""
    out = np.where((n == 0) & (R == 0), np.nan, 0.0)
    found = a > 0
    # trec_eval's own floating-point order ((1 + x)·P·R / (x·P + R)), so the 4th decimal
    # rounds as trec_eval's does (2·59 / (100 + 220) = 0.36875 prints 0.3687 there).
    P = a[found] / n[found]
    rec = a[found] / R[found]
    out[found] = (1.0 + beta) * P * rec / (beta * P + rec)
    return out


def set_ap_prefix(c: Cuts, level):
    """set_ap at every cut-off of ``c`` (its prefix kernel)."""
    a = c.relevant_retrieved(level)
    R = c.ranking(c.prep.num_relevant(level))
    den = (c.depth * R).astype(np.float64)
    empty = (c.depth == 0) & (R > 0)
    return np.where(empty, 0.0, safe_div(a * a, den))


@register("set_ap", aliases=("set_map",), citation=SETS + "m_set_map.c (formerly "
          "exact_unranked_avg_prec).",
          undefined="Undefined when R = 0. An empty ranking with R > 0 scores 0 (nothing "
                    "found).",
          ties=("Order-free: no order of tied documents changes the value."),
          ir_measures="SetAP", trec_eval="set_map", prefix=set_ap_prefix)
def set_ap(prep: Prepared, level: float) -> np.ndarray:
    """Set (unranked) average precision, trec_eval's ``set_map``: a² / (n·R), the set
    precision times the set recall.

    Every relevant retrieved document gets the set precision a / n, every relevant document
    not retrieved 0, averaged over the R relevant documents.

    >>> from trunc_accessor.frontends.single import set_ap
    >>> set_ap([1, 0, 1, 0], R=4)  # (2/4)·(2/4)
    0.25
    """
    a = relevant_retrieved(prep, level)
    R = prep.num_relevant(level)
    den = (prep.length * R).astype(np.float64)
    empty = (prep.length == 0) & (R > 0)
    return np.where(empty, 0.0, safe_div(a * a, den))


def set_relative_precision_prefix(c: Cuts, level):
    """set_relative_precision at every cut-off of ``c`` (its prefix kernel)."""
    den = np.minimum(c.depth, c.ranking(c.prep.num_relevant(level))).astype(np.float64)
    return safe_div(c.relevant_retrieved(level), den)


@register("set_relative_precision", aliases=("set_relative_p",),
          citation=SETS + "m_set_rel_P.c (formerly exact_relative_prec).",
          undefined="Undefined when R = 0 and for an empty ranking (0/0).",
          ties=("Order-free: no order of tied documents changes the value."),
          ir_measures="SetRelP", trec_eval="set_relative_P", prefix=set_relative_precision_prefix)
def set_relative_precision(prep: Prepared, level: float) -> np.ndarray:
    """Relative set precision, trec_eval's ``set_relative_P``: a / min(n, R), the set
    precision divided by the largest precision a set of n documents could have (set recall
    once n ≥ R).

    >>> from trunc_accessor.frontends.single import set_relative_precision
    >>> set_relative_precision([1, 0, 1, 0], R=2)  # 2 / min(4, 2)
    1.0
    """
    den = np.minimum(prep.length, prep.num_relevant(level)).astype(np.float64)
    return safe_div(relevant_retrieved(prep, level), den)


def relative_precision_prefix(c: Cuts, level, k=None):
    """relative_precision at every cut-off of ``c`` (its prefix kernel)."""
    R = c.ranking(c.prep.num_relevant(level))
    cap = c.depth if k is None else np.full(len(c), k)
    out = safe_div(c.relevant_retrieved(level, k), np.minimum(cap, R).astype(np.float64))
    return np.where(R > 0, out, np.nan)


@register("relative_precision", params=(K,), aliases=("relative_p",),
          citation=SETS + "m_rel_P.c (relative_P_k); tie-aware as P@k (McSherry & Najork, "
          "ECIR 2008, §2.1).",
          undefined="Undefined when R = 0. With k: an empty ranking with R > 0 scores 0; "
                    "with k=None it is 0/0, undefined.",
          ties=("Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n "
                "of its documents (t positions before the group, n documents in it)."),
          trec_eval=TrecName("relative_P", "cutoffs", "k", CUTS), prefix=relative_precision_prefix)
def relative_precision(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Relative precision at k, trec_eval's ``relative_P_k``: the relevant documents in the
    first k divided by min(k, R), the most that k documents can hold: P@k up to k = R, R@k
    beyond. ``k=None``: the whole ranking, min(n, R) (``set_relative_precision``).

    A ranking shorter than k counts as padded with non-relevant documents (as P@k).
    Tie-aware: the group cut at k contributes its mean.

    >>> from trunc_accessor.frontends.single import relative_precision
    >>> relative_precision([1, 0, 1, 1], k=2, R=3), relative_precision([1, 0, 1, 1], k=4, R=3)
    (0.5, 1.0)
    """
    cap = prep.length if k is None else np.full(prep.n_segments, k)
    den = np.minimum(cap, prep.num_relevant(level)).astype(np.float64)
    out = safe_div(relevant_retrieved(prep, level, k), den)
    return np.where(prep.num_relevant(level) > 0, out, np.nan)
