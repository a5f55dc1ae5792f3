"""statAP and its companions (Aslam, Pavlu & Yilmaz, "A statistical method for system
evaluation using incomplete judgments", SIGIR 2006; the TREC Million Query track's
statAP): Horvitz–Thompson estimates from a sample of the pool drawn with known inclusion
probabilities.

The qrels carry an ``inclusion`` column: π_d, the probability that document d was in the
judged sample (without one, every π_d is 1: complete judgments). The sample S is the
documents judged with a grade ≥ 0 (a negative grade is a pooled document left out of the
sample); x_d = 1 when d is relevant (grade ≥ the relevance level). Every sampled document
is weighted by 1/π_d:

* R̂ = Σ_{d∈S} x_d/π_d estimates R, the relevant documents of the pool (``stat_num_rel``);
* statP@k = (1/k) Σ_{d∈S, r(d) ≤ k} x_d/π_d estimates P@k;
* AP·R = Σ_{d relevant, retrieved} prec@r(d) = Σ over the pairs (d, d') of relevant
  documents with r(d') ≤ r(d) of 1/r(d); each pair is estimated by its indicator over its
  inclusion probability, π_d for d' = d and π_d·π_d' for d' ≠ d (documents included
  independently: Poisson sampling, the design whose pairs the first-order probabilities
  determine), so the numerator is
  Σ_{d∈S} (x_d/(π_d·r(d)))·(1 + Σ_{d'∈S, r(d') < r(d)} x_d'/π_d')
  and statAP is that over R̂;
* statR-prec is statP@k at k = R̂ rounded to the nearest whole number (halves up).

Under the sampling design the paper assumes, R̂, statP@k and the numerator of statAP are
unbiased (their mean over all samples is the value with complete judgments); statAP, a
ratio of two unbiased estimates, and statR-prec, cut at an estimated rank, are only
approximately unbiased. With every π_d = 1 (complete judgments) they are AP, P@k, R-prec.
Under a design whose pairs have other inclusion probabilities than π_d·π_d' (a fixed number
of documents drawn with or without replacement), R̂ and statP@k stay unbiased (they read
first-order probabilities only) and statAP's pair terms are approximations.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._kernels import safe_div
from trunc_accessor.metrics._order import mixed_groups, require_order_free, restarting_cumsum
from trunc_accessor.metrics.params import K
from trunc_accessor.metrics.registry import register

CITATION = ("J. A. Aslam, V. Pavlu and E. Yilmaz. A statistical method for system evaluation "
            "using incomplete judgments. SIGIR 2006 (statAP of the TREC Million Query track).")
UNDEFINED = ("Undefined when R̂ = 0 (R = 0: no sampled relevant document). An empty ranking "
             "scores 0.")


def _weights(prep: Prepared, level: float, name: str) -> tuple[np.ndarray, np.ndarray]:
    """x_d/π_d per row (0 for a document outside the sample) and per judgment."""
    if "inclusion" in prep.extra:
        pi_row, pi_q = prep.extra["inclusion"]
    else:  # no sampling design given: every judged document was judged for certain
        pi_row, pi_q = np.ones(len(prep.grade)), np.ones(len(prep.q_grades))
    with np.errstate(invalid="ignore", divide="ignore"):
        row = np.where((prep.grade >= level) & (prep.grade >= 0), 1.0 / pi_row, 0.0)
        judged = np.where((prep.q_grades >= level) & (prep.q_grades >= 0), 1.0 / pi_q, 0.0)
    return row, judged


def estimated_relevant(prep: Prepared, level: float, name: str = "stat_num_rel") -> np.ndarray:
    """R̂ of each ranking's query."""
    return prep.qid_sum(_weights(prep, level, name)[1])


def _within(prep: Prepared, k: np.ndarray) -> np.ndarray:
    """Per row: the probability that it lies in the first k positions of its ranking (its
    share of a tie group cut by k under ties='average'; k per segment)."""
    kk = k[prep.seg]
    if prep.ties == "average" and not prep.singleton_groups:
        start = prep.g_start[prep.gid].astype(np.float64)
        size = prep.g_size[prep.gid].astype(np.float64)
        return np.clip((kk - start) / size, 0.0, 1.0)
    return (prep.pos <= kk).astype(np.float64)


def _stat_p(prep: Prepared, level: float, k: np.ndarray, name: str) -> np.ndarray:
    w = _weights(prep, level, name)[0]
    total = np.bincount(prep.seg, weights=w * _within(prep, k), minlength=prep.n_segments)
    return safe_div(total, k.astype(np.float64))


@register("stat_num_rel", citation=CITATION, aggregate="sum",
          undefined=("Never undefined: R = 0 (no sampled relevant document) gives 0; an empty "
                     "ranking has its query's estimate."),
          ties="Order-free: no order of tied documents changes the value.")
def stat_num_rel(prep: Prepared, level: float) -> np.ndarray:
    """The estimated number of relevant documents, R̂ = Σ_{d∈S} x_d/π_d over the sampled
    documents (grade ≥ 0) with their inclusion probabilities π_d (the qrels' ``inclusion``
    column): unbiased for R (Horvitz–Thompson).

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 0, 1],
    ...                       "inclusion": [1.0, 0.5, 0.25]})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["a"], "score": [1]})
    >>> float(run.ir.stat_num_rel(qrels).iloc[0])  # 1/1 + 1/0.25
    5.0
    """
    return estimated_relevant(prep, level)


@register("stat_p", params=(K,), aliases=("statp",), citation=CITATION,
          undefined="Undefined with k=None for an empty ranking (0/0); R = 0 gives 0.",
          ties=("Exact: a document of a tie group cut by k counts with its probability of "
                "lying above the cut, (k − t)/n (t positions before the group of n)."))
def stat_p(prep: Prepared, level: float, k=None) -> np.ndarray:
    """statP@k: (1/k) Σ_{d∈S, r(d) ≤ k} x_d/π_d, the sampled relevant documents of the first
    k positions each weighted by one over its inclusion probability π_d (the qrels'
    ``inclusion`` column; S: the documents judged with a grade ≥ 0); unbiased for P@k. A
    ranking shorter than k still divides by k; k=None: its length.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 0, 1],
    ...                       "inclusion": [1.0, 0.5, 0.25]})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c", "d"], "score": [4, 3, 2, 1]})
    >>> float(run.ir.stat_p(qrels, k=4).iloc[0])  # (1/1 + 1/0.25)/4
    1.25
    """
    length = (prep.offsets[1:] - prep.offsets[:-1]).astype(np.float64)
    kk = length if k is None else np.full(prep.n_segments, float(k))
    return _stat_p(prep, level, kk, "stat_p")


@register("stat_rprec", aliases=("statrprec",), citation=CITATION, undefined=UNDEFINED,
          ties=("Exact: as stat_p at the cut-off k = R̂ rounded."))
def stat_rprec(prep: Prepared, level: float) -> np.ndarray:
    """statR-prec: statP@k at k = R̂ rounded to the nearest whole number (halves up), R̂ =
    Σ_{d∈S} x_d/π_d; undefined when that is 0. Only approximately unbiased for R-prec:
    the cut-off is itself estimated.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 0, 1],
    ...                       "inclusion": [1.0, 0.5, 0.25]})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c", "d"], "score": [4, 3, 2, 1]})
    >>> float(run.ir.stat_rprec(qrels).iloc[0])  # k = R̂ = 5: (1/1 + 1/0.25)/5
    1.0
    """
    k = np.floor(estimated_relevant(prep, level, "stat_rprec") + 0.5)
    with np.errstate(invalid="ignore"):
        return np.where(k > 0, _stat_p(prep, level, np.maximum(k, 1.0), "stat_rprec"), np.nan)


@register("stat_ap", aliases=("statap",), citation=CITATION, undefined=UNDEFINED,
          ties=("Refused when a tie group holds documents of different weights x_d/π_d (the "
                "pair terms are not linear in the order); other ties change nothing."))
def stat_ap(prep: Prepared, level: float) -> np.ndarray:
    """statAP: Σ_{d∈S} (x_d/(π_d·r(d)))·(1 + Σ_{d'∈S, r(d') < r(d)} x_d'/π_d') over
    R̂ = Σ_{d∈S} x_d/π_d. The numerator estimates Σ over the pairs of relevant documents
    d' at or above d of 1/r(d) (that is AP·R) by each pair's indicator over its inclusion
    probability, π_d for a document with itself and π_d·π_d' for two (independent
    inclusions); it is unbiased, the ratio only approximately. With every π = 1, AP.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 0, 1],
    ...                       "inclusion": [1.0, 0.5, 0.25]})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "score": [3, 2, 1]})
    >>> float(run.ir.stat_ap(qrels).iloc[0])  # (1/1 + (4/3)(1 + 1)) / (1 + 4)
    0.7333333333333333
    """
    w = _weights(prep, level, "stat_ap")[0]
    if prep.ties == "average" and not prep.singleton_groups:
        require_order_free(prep, mixed_groups(prep, w), "stat_ap",
                           "its pair terms depend on which of them comes first")
    above = restarting_cumsum(w, prep.offsets) - w
    term = w / prep.pos * (1.0 + above)
    num = np.bincount(prep.seg, weights=term, minlength=prep.n_segments)
    return safe_div(num, estimated_relevant(prep, level, "stat_ap"))
