"""The measures of NIST's ``sample_eval.pl`` (Yilmaz, Kanoulas & Aslam, SIGIR 2008) on a
sampled pool: xinfAP, infNDCG, iP@k, the interpolated precision at the 11 recall levels,
and the estimated numbers of relevant documents retrieved and in all (the estimators are
written out in ``trunc_accessor.metrics._sampled``).

The qrels carry a ``stratum`` column (the fourth field of the script's qrels); a negative
grade marks a pooled document that was not sampled; without a stratum column every pooled
document is in one stratum. Rankings are read down to rank 1000, in the order of
``ties=`` (the script's order is ``ties="trec_eval"``: score descending, then docid
descending); under ``ties="average"`` a tie group whose documents differ (pooled or not,
stratum, grade) is refused: the estimators are not linear in the order.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics import _sampled
from trunc_accessor.metrics._order import mixed_groups, require_order_free
from trunc_accessor.metrics.params import Param, check_k
from trunc_accessor.metrics.registry import register

CITATION = ("E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method "
            "for estimating AP and NDCG. SIGIR 2008; NIST's sample_eval.pl (version of 10 "
            "Oct 2011, as the TREC Clinical Decision Support track distributed it).")
TIES = ("Refused when a tie group holds documents that differ in pool membership, stratum "
        "or grade (the estimators are not linear in the order); other ties change nothing.")
UNDEFINED = ("Undefined when the estimated number of relevant documents R̂ is 0 (so when "
             "R = 0 sampled documents are relevant; the script prints 0). An empty ranking "
             "scores 0. Only the first 1000 documents of a ranking count.")


def _check_recall(x):
    if not isinstance(x, (int, float)) or isinstance(x, bool) or not 0 <= x <= 1 \
            or abs(x * 10 - round(x * 10)) > 1e-9:
        raise ValueError(f"must be one of 0, 0.1, …, 1 (the script's 11 levels), not {x!r}")
    return _sampled.RECALL_LEVELS[round(x * 10)]


K10 = Param("k", 10, check_k, "rank cut-off (the script prints 10, 50 and 1000); None: the "
            "ranks read")
RECALL = Param("recall", 0.0, _check_recall, "recall level: 0, 0.1, …, 1")


def _order_free(prep: Prepared, name: str) -> None:
    """Under ties='average': refuse tie groups whose documents differ (module doc)."""
    if prep.ties != "average" or prep.singleton_groups:
        return
    code = _sampled.strata(prep)[0]
    g = prep.grade
    cls = np.where(np.isnan(g), -1.0, 1.0 + code) * 1e6 + np.where(np.isnan(g), 0.0, g)
    mixed = mixed_groups(prep, np.nan_to_num(cls, nan=-2.0))
    require_order_free(prep, mixed, name, "its estimates depend on the order of documents of "
                       "different strata, grades or pool membership")


@register("xinfap", aliases=("sample_infap",), citation=CITATION, undefined=UNDEFINED,
          ties=TIES)
def xinfap(prep: Prepared, level: float) -> np.ndarray:
    """Extended inferred AP over a stratified sample of the pool, as sample_eval.pl
    computes it (its ``infAP``).

    For the relevant document at rank k of stratum c: its estimated precision
    1/k + n̂/k, with n̂ = Σ_c' d_c'·(t_c' + ε)/(s_c' + 3ε) over the ranks above it (d_c'
    pooled documents of stratum c' above it, s_c' sampled, t_c' relevant; ε = 0.00001);
    xinfAP = Σ (that precision)·D_c/S_c over R̂ = Σ_c T_c·D_c/S_c (D_c pooled documents of
    stratum c, S_c sampled, T_c relevant). A negative grade is a pooled document left out of
    the sample; a document absent from the qrels is outside the pool.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
    ...                       "rel": [1, -1, 0, 1, -1]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> round(float(run.ir.xinfap(qrels, ties="trec_eval").iloc[0]), 4)  # R̂ = 1.5 + 2
    0.7857
    """
    _order_free(prep, "xinfap")
    return _sampled.estimates(prep, level)["ap"]


@register("infndcg", aliases=("inf_ndcg",), citation=CITATION, undefined=UNDEFINED, ties=TIES)
def infndcg(prep: Prepared, level: float) -> np.ndarray:
    """Inferred nDCG over a stratified sample of the pool, as sample_eval.pl computes it
    (its ``infNDCG``): Σ over the retrieved relevant documents of grade/log2(k + 1) times
    d_c/s_c of the document's stratum in the ranking (its pooled over its sampled
    documents), over the ideal DCG of the estimated number of documents of each grade,
    Σ_c (sampled documents of that grade in c)·D_c/S_c rounded to a whole number, grades
    taken in descending order of their text and the ideal ranking cut at rank 1000.
    Grades are the gains.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
    ...                       "rel": [1, -1, 0, 1, -1]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> round(float(run.ir.infndcg(qrels, ties="trec_eval").iloc[0]), 4)
    0.7537
    """
    _order_free(prep, "infndcg")
    return _sampled.estimates(prep, level)["ndcg"]


@register("ip", params=(K10,), aliases=("inf_precision",), citation=CITATION,
          undefined=("Defined even when R = 0 (n̂ counts a third of the pooled documents of "
                     "a stratum with none sampled); an empty ranking scores 0, except with "
                     "k=None (0/0: undefined). Only the first 1000 documents of a ranking "
                     "count."),
          ties=TIES)
def ip(prep: Prepared, level: float, k=10) -> np.ndarray:
    """Inferred precision at k, as sample_eval.pl computes it (its ``iPk``): the estimated
    number of relevant documents down to rank k, n̂ = Σ_c d_c·(t_c + ε)/(s_c + 3ε) (module
    doc), over k; a ranking shorter than k gives n̂ at its last rank over k; k=None gives n̂
    at the last rank read over the ranks read.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
    ...                       "rel": [1, -1, 0, 1, -1]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> round(float(run.ir.ip(qrels, k=3, ties="trec_eval").iloc[0]), 4)  # (3·(1 + ε)/(2 + 3ε))/3
    0.5
    """
    _order_free(prep, "ip")
    return _sampled.precision_at(prep, level, k)


@register("inf_iprec_at_recall", params=(RECALL,), citation=CITATION,
          undefined=("Never undefined: with R = 0 (R̂ = 0) every level takes the best estimated "
                     "precision of the ranking; an empty ranking scores 0."), ties=TIES)
def inf_iprec_at_recall(prep: Prepared, level: float, recall=0.0) -> np.ndarray:
    """Inferred interpolated precision at a recall level, as sample_eval.pl computes its
    ``iprec@recX`` (printed for all topics only: the mean of these per-query values).
    Ranks are read from the last up, keeping the best estimated precision n̂/k so far;
    level j/10 takes that best at the first rank (below the rank level j/10 + 0.1 took)
    whose n̂ is under j/10·R̂; levels above n̂ at the last rank take 0, a level never
    reached the best precision of the whole ranking.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
    ...                       "rel": [1, -1, 0, 1, -1]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> round(float(run.ir.inf_iprec_at_recall(qrels, recall=0.5, ties="trec_eval").iloc[0]), 4)
    1.0
    """
    _order_free(prep, "inf_iprec_at_recall")
    return _sampled.interpolated(prep, level)[round(recall * 10)]


@register("inum_rel_ret", citation=CITATION, aggregate="sum",
          undefined=("Never undefined, even when R = 0 (unsampled pooled documents count a "
                     "third); an empty ranking scores 0."), ties=TIES)
def inum_rel_ret(prep: Prepared, level: float) -> np.ndarray:
    """The estimated number of relevant documents retrieved, as sample_eval.pl computes it
    (its ``inum_rel_ret``): n̂ at the last rank read (at most 1000). A stratum with pooled
    documents none of which is sampled counts a third of them, so it can exceed
    ``inum_rel`` (a warning says so).

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
    ...                       "rel": [1, -1, 0, 1, -1]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> round(float(run.ir.inum_rel_ret(qrels, ties="trec_eval").iloc[0]), 4)  # strata: 1.5 + 1
    2.5
    """
    _order_free(prep, "inum_rel_ret")
    return _sampled.estimates(prep, level)["num_rel_ret"]


@register("inum_rel", citation=CITATION, aggregate="sum",
          undefined=("Never undefined: R = 0 (no sampled relevant document) gives 0; an empty "
                     "ranking has its query's estimate."))
def inum_rel(prep: Prepared, level: float) -> np.ndarray:
    """The estimated number of relevant documents of the query, as sample_eval.pl computes
    it (its ``inum_rel``): R̂ = Σ_c T_c·D_c/S_c over the strata with a sampled document.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
    ...                       "rel": [1, -1, 0, 1, -1]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> round(float(run.ir.inum_rel(qrels, ties="trec_eval").iloc[0]), 4)  # 1·3/2 + 1·2/1
    3.5
    """
    return _sampled.qrels_side(prep, level)["num_rels"][prep.seg_q]
