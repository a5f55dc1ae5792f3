"""Counts (trec_eval's num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret) and judgment
coverage (ir_measures' Judged@k, trec_eval's unj_k).

Counts are floats in the frame (as every metric). None depends on the order within a tie
group, except through a cut-off k, where the cut group contributes its mean, exactly as
P@k does (McSherry & Najork §2.1).

Which documents are "judged": the qrels hold them, whatever their grade. trec_eval reads a
negative grade as "in the pool but unjudged" (infAP's sampling), so its own counts
(num_nonrel_judged_ret, unj_k) treat those as unjudged; ``judged`` follows ir_measures and
counts every qrels entry.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import in_cut, safe_div
from trunc_accessor.metrics._order import TREC_EVAL
from trunc_accessor.metrics.dialects import Spelling, TrecName
from trunc_accessor.metrics.params import K
from trunc_accessor.metrics.prefix import Cuts
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.standard import relevant_retrieved


def num_ret_prefix(c: Cuts, level):
    """num_ret at every cut-off of ``c`` (its prefix kernel)."""
    return c.n.copy()


@register("num_ret", citation=TREC_EVAL + ", m_num_ret.c.",
          undefined="Never undefined: 0 for an empty ranking; R = 0 changes nothing.",
          ties=("Order-free: no order of tied documents changes the value."),
          ir_measures="NumRet", trec_eval="num_ret", aggregate="sum", prefix=num_ret_prefix)
def num_ret(prep: Prepared, level: float) -> np.ndarray:
    """Number of retrieved documents n (trec_eval ``num_ret``; trec_eval sums it over
    queries in its summary line).

    >>> from trunc_accessor.frontends.single import num_ret
    >>> num_ret([1, 0, None])
    3.0
    """
    return prep.length.astype(np.float64)


def num_q_prefix(c: Cuts, level):
    """num_q at every cut-off of ``c`` (its prefix kernel)."""
    return np.ones(len(c))


@register("num_q", citation=TREC_EVAL + ", m_num_q.c.",
          undefined="Never undefined: 1 for every scored query, an empty ranking and R = 0 "
                    "included.",
          ties=("Order-free: no order of tied documents changes the value."),
          ir_measures="NumQ", trec_eval="num_q", aggregate="sum", prefix=num_q_prefix)
def num_q(prep: Prepared, level: float) -> np.ndarray:
    """Number of queries: 1 per scored query, so that its sum over queries (trec_eval's
    ``num_q`` summary, what ``aggregate`` gives for this column) counts them; an empty
    ranking and a query with R = 0 count too.

    >>> from trunc_accessor.frontends.single import num_q
    >>> num_q([1, 0])
    1.0
    """
    return np.ones(prep.n_segments)


def num_rel_prefix(c: Cuts, level):
    """num_rel at every cut-off of ``c`` (its prefix kernel)."""
    return c.ranking(c.prep.num_relevant(level)).astype(np.float64)


@register("num_rel", citation=TREC_EVAL + ", m_num_rel.c.",
          undefined="Never undefined: 0 when R = 0; an empty ranking has the R of its query.",
          ties=("Order-free: no order of tied documents changes the value."),
          ir_measures="NumRel", trec_eval="num_rel", aggregate="sum", prefix=num_rel_prefix)
def num_rel(prep: Prepared, level: float) -> np.ndarray:
    """Number of relevant documents R: the query's judged documents with grade ≥
    relevance_level, retrieved or not (trec_eval ``num_rel``).

    >>> from trunc_accessor.frontends.single import num_rel
    >>> num_rel([1, 0], qrels_grades=[1, 0, 2, 3], relevance_level=2)
    2.0
    """
    return prep.num_relevant(level).astype(np.float64)


def num_rel_ret_prefix(c: Cuts, level, k=None):
    """num_rel_ret at every cut-off of ``c`` (its prefix kernel)."""
    return c.relevant_retrieved(level, k)


@register("num_rel_ret", params=(K,), citation=TREC_EVAL + ", m_num_rel_ret.c; with k, "
          "ranx's hits@k, tie-aware as P@k (McSherry & Najork, ECIR 2008, §2.1).",
          undefined="Never undefined: 0 for an empty ranking and when R = 0.",
          ties=("Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n "
                "of its documents (t positions before the group, n documents in it)."),
          ir_measures=Spelling("NumRelRet", at=None), ranx="hits", trec_eval="num_rel_ret",
          aggregate="sum", prefix=num_rel_ret_prefix)
def num_rel_ret(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Number of relevant documents retrieved, within the first k if given (trec_eval
    ``num_rel_ret``; with k, ranx's ``hits@k``). Tie-aware: the group cut at k contributes
    its expected number of relevant documents.

    >>> from trunc_accessor.frontends.single import num_rel_ret
    >>> num_rel_ret([1, 0, 2, None], R=5), num_rel_ret([1, 0, 2, None], k=2)
    (2.0, 1.0)
    """
    return relevant_retrieved(prep, level, k)


def num_nonrel_judged_ret_prefix(c: Cuts, level):
    """num_nonrel_judged_ret at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    with np.errstate(invalid="ignore"):
        nonrel = ((part.grade >= 0) & (part.grade < level)).astype(np.float64)
    return c.running(part, nonrel)


@register("num_nonrel_judged_ret", citation=TREC_EVAL + ", m_num_nonrel_judged_ret.c.",
          undefined="Never undefined: 0 for an empty ranking; R = 0 changes nothing.",
          ties=("Order-free: no order of tied documents changes the value."),
          trec_eval="num_nonrel_judged_ret", aggregate="sum", prefix=num_nonrel_judged_ret_prefix)
def num_nonrel_judged_ret(prep: Prepared, level: float) -> np.ndarray:
    """Number of judged non-relevant documents retrieved: grade ≥ 0 and < relevance_level
    (trec_eval ``num_nonrel_judged_ret``; unjudged documents and negative grades, trec_eval's
    "pooled but unjudged", are not counted).

    >>> from trunc_accessor.frontends.single import num_nonrel_judged_ret
    >>> num_nonrel_judged_ret([1, 0, None, -1, 0])
    2.0
    """
    with np.errstate(invalid="ignore"):
        nonrel = ((prep.grade >= 0) & (prep.grade < level)).astype(np.float64)
    return prep.seg_sum(nonrel)


def judged_prefix(c: Cuts, level, k=None):
    """judged at every cut-off of ``c`` (its prefix kernel)."""
    part = c.prep.judged_part()
    is_judged = (~np.isnan(part.grade)).astype(np.float64)
    num = c.running(part, part.group_mean(is_judged) * in_cut(part, k))
    den = c.depth if k is None else np.minimum(c.depth, k)
    return safe_div(num, den.astype(np.float64))


@register("judged", params=(K,), citation="ir_measures' Judged@k (MacAvaney et al., "
          "github.com/terrierteam/ir_measures, judged_provider.py, from OpenNIR); tie-aware "
          "as P@k (McSherry & Najork, ECIR 2008, §2.1).",
          undefined="Undefined for an empty ranking (0/0). R = 0 changes nothing.",
          ties=("Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n "
                "of its documents (t positions before the group, n documents in it)."),
          ir_measures="Judged", prefix=judged_prefix)
def judged(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Judgment rate: the fraction of the first k retrieved documents that the qrels judge.

    As ir_measures' ``Judged@k``: the judged documents among the first k, divided by
    min(k, n) (not by k: a ranking shorter than k is judged on the documents it has; trec_eval's
    ``unj_k``, ``unjudged``, divides by k instead). ``k=None``: the whole ranking. A
    document counts as judged if the qrels list it, whatever its grade (a negative grade
    too). Does not depend on relevance_level. Tie-aware: the group cut at k contributes its
    mean.

    >>> from trunc_accessor.frontends.single import judged
    >>> judged([1, None, 0, None], k=2), judged([1, None, 0], k=10)
    (0.5, 0.6666666666666666)
    """
    is_judged = (~np.isnan(prep.grade)).astype(np.float64)
    num = prep.seg_sum(prep.group_mean(is_judged) * in_cut(prep, k))
    den = prep.length if k is None else np.minimum(prep.length, k)
    return safe_div(num, den.astype(np.float64))


def unjudged_prefix(c: Cuts, level, k=None):
    """unjudged at every cut-off of ``c`` (its prefix kernel)."""
    prep = c.prep
    unj = (np.isnan(prep.grade) | (prep.grade < 0)).astype(np.float64)
    num = c.running(prep, prep.group_mean(unj) * in_cut(prep, k))
    return safe_div(num, c.n) if k is None else num / k


@register("unjudged", params=(K,), aliases=("unj",), citation=TREC_EVAL + ", m_unjudged.c "
          "(unj_k); tie-aware as P@k (McSherry & Najork, ECIR 2008, §2.1).",
          undefined="With k: never undefined (0 for an empty ranking). With k=None: undefined "
                    "for an empty ranking (0/0). R = 0 changes nothing.",
          ties=("Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n "
                "of its documents (t positions before the group, n documents in it)."),
          trec_eval=TrecName("unj", "cutoffs", "k", (5, 10, 20)), prefix=unjudged_prefix)
def unjudged(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Unjudged rate at k, trec_eval's ``unj_k``: the retrieved documents among the first k
    that are not in the qrels or have a negative grade (trec_eval's "in the pool but
    unjudged"), divided by k.

    A ranking shorter than k is padded with judged documents (trec_eval: "it is assumed
    irrelevant (not unjudged) docs fill in the rest"), so unjudged@k + judged@k = 1 only when
    n ≥ k and no grade is negative. ``k=None``: divided by n. Tie-aware: the group cut at k
    contributes its mean.

    >>> from trunc_accessor.frontends.single import unjudged
    >>> unjudged([1, None, -1, 0], k=5)
    0.4
    """
    unj = (np.isnan(prep.grade) | (prep.grade < 0)).astype(np.float64)
    num = prep.seg_sum(prep.group_mean(unj) * in_cut(prep, k))
    if k is None:
        return safe_div(num, prep.length.astype(np.float64))
    return num / k
