"""Novelty and diversity: α-nDCG, ERR-IA, NRBP, intent-aware precision and AP, subtopic
recall, on diversity qrels (``qid, subtopic, docid, rel``).

A document d is relevant to subtopic s when its judgment for s is ≥ the relevance level
(grades are binary here, as in ndeval: a grade of 3 counts as a grade of 1). With c_s(i) the
number of documents relevant to s ranked above position i, the novelty-discounted gain of
position i is (Clarke et al., SIGIR 2008, eq. 5)

    g(i) = Σ_s J(d_i, s) · (1 − α)^{c_s(i)},

and the measures weight it by position: 1/log2(1 + i) (α-DCG), 1/i (ERR-IA, Chapelle et
al., CIKM 2009, §5), β^{i−1} (NRBP, Clarke et al., ICTIR 2009). Normalisations are
ndeval's (the TREC Web track's evaluation program, version 4.5):

* α-DCG@k and ERR-IA@k divide by their "ideal ideal" bound, a ranking whose document at
  every position is relevant to every one of the query's S subtopics: Σ_{i≤k} S(1 − α)^{i−1}
  times the weight (collection-independent);
* α-nDCG@k, nERR-IA@k and nNRBP divide by the same measure of a greedy ideal ranking of the
  judged documents (collection-dependent): at every position the document with the largest
  g(i), ties to the largest docid (as strings), as ndeval builds it (finding the true ideal
  is NP-hard);
* NRBP is multiplied by (1 − (1 − α)β)/S (its value for the ideal ideal ranking is 1).

S counts the subtopics of the query with at least one relevant document. A query with none
leaves every measure undefined. Subtopics weigh the same, as in ndeval, unless the qrels
have a ``weight`` column (one finite weight ≥ 0 per qid and subtopic, e.g. NTCIR's intent
probabilities; not all 0 over a query's subtopics with a relevant document): each
subtopic's terms are then multiplied by its weight, scaled so that the weights of the
query's S subtopics sum to S (the intent-aware forms of Agrawal et al., WSDM 2009:
Σ_s P(s|q)·measure_s, and a weighted greedy ideal). Only the ratios of a query's weights
matter: equal weights of any size (10^308 or 10^-308 alike) change nothing. At a relevance
level above 1, a query whose subtopics relevant at that level all weigh 0 is undefined.

Ties (``ties="average"``): every measure is the exact mean over the orders of tied
documents. The documents relevant to s in a tie group of n documents (t before it) occupy
a uniformly random subset of its positions, so the i-th of them (i = 0, 1, …) lies at
position t + j with probability C(j−1, i)·C(n−j, k−1−i)/C(n, k) (k of them, c_s before the
group) and contributes (1 − α)^{c_s + i} times the weight of that position: a sum over the
group's positions and the k documents, per tie group and subtopic.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._combinatorics import comb_ratio, log_factorials
from trunc_accessor.metrics._kernels import safe_div
from trunc_accessor.metrics._novelty import (
    _dcg_weight,
    _depth,
    _gain_sum,
    _ideal_ideal,
    _ideal_sum,
    _Pairs,
    _pairs,
    _rbp_weight,
    _rr_weight,
)
from trunc_accessor.metrics.params import K, Param, check_unit
from trunc_accessor.metrics.registry import register

CLARKE_2008 = ("C. L. A. Clarke, M. Kolla, G. V. Cormack, O. Vechtomova, A. Ashkan, S. Büttcher "
               "and I. MacKinnon. Novelty and diversity in information retrieval evaluation. "
               "SIGIR 2008")
CLARKE_2009 = ("C. L. A. Clarke, M. Kolla and O. Vechtomova. An effectiveness measure for "
               "ambiguous and underspecified queries. ICTIR 2009")
CHAPELLE_2009 = ("O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan. Expected reciprocal rank for "
                 "graded relevance. CIKM 2009")
AGRAWAL_2009 = ("R. Agrawal, S. Gollapudi, A. Halverson and S. Ieong. Diversifying search "
                "results. WSDM 2009")
ZHAI_2003 = ("C. Zhai, W. W. Cohen and J. Lafferty. Beyond independent relevance: methods and "
             "evaluation metrics for subtopic retrieval. SIGIR 2003")
NDEVAL = "ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)"

ALPHA = Param("alpha", 0.5, check_unit, "redundancy penalty α in [0, 1]: each earlier document "
              "relevant to a subtopic multiplies its gain by (1 − α) (ndeval's default 0.5)")
BETA = Param("beta", 0.5, check_unit, "patience β in [0, 1] of NRBP: the weight of position i "
             "is β^(i−1) (ndeval's default 0.5)")
UNDEF = ("Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, "
         "as for R = 0: no document relevant to any subtopic); an empty ranking scores 0.")
UNDEF_IDEAL = ("Undefined (NaN) when the query has no subtopic with a relevant document "
               "(S = 0, as for R = 0; the ideal ranking gains nothing); an empty ranking "
               "scores 0.")
TIES = ("Exact mean over tie orders: per tie group and subtopic, a sum over the group's "
        "positions and its documents relevant to the subtopic (hypergeometric order "
        "statistics); no refusal.")


# --------------------------------------------------------------------------- measures
def _over_bound(value: np.ndarray, bound: np.ndarray, S: np.ndarray) -> np.ndarray:
    """value / its ideal-ideal bound; 0 for an empty ranking without a cut-off (a bound of
    depth 0, and nothing gained) when the query has a relevant subtopic (S > 0), as ndeval
    scores a topic the run does not answer; undefined (NaN) when S = 0."""
    return np.where((bound == 0) & (S > 0), 0.0, safe_div(value, bound))


@register("alpha_ndcg", subtopics=True, params=(K, ALPHA),
          aliases=("alpha-nDCG", "alpha_nDCG", "a-ndcg"),
          citation=CLARKE_2008 + ", eq. 5-6; normalisation by " + NDEVAL + "'s greedy ideal.",
          undefined=UNDEF_IDEAL, ties=TIES,
          ir_measures="alpha_nDCG")
def alpha_ndcg(prep: Prepared, level: float, k=None, alpha=0.5) -> np.ndarray:
    """α-nDCG@k: α-DCG of the ranking over α-DCG of the greedy ideal ranking of the judged
    documents (Clarke et al., SIGIR 2008, §4; ndeval's normalisation).

    α-DCG@k = Σ_{i≤k} g(i)/log2(1 + i), g(i) = Σ_s J(d_i, s)(1 − α)^{c_s(i)} (c_s(i): documents
    relevant to subtopic s above i). The ideal is built greedily, largest g first, ties to the
    largest docid, as ndeval does. ``k=None``: the whole ranking.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
    >>> round(float(run.ir.alpha_ndcg(qrels, k=2).iloc[0]), 4)
    0.8406
    """
    p = _pairs(prep, level, "alpha_ndcg")
    dcg = _gain_sum(prep, p, "dcg", k, alpha)
    return safe_div(dcg, _ideal_sum(prep, level, alpha, _dcg_weight(k)))


@register("alpha_dcg", subtopics=True, params=(K, ALPHA), aliases=("alpha-DCG", "alpha_DCG"),
          citation=CLARKE_2008 + ", eq. 5; normalisation by the ideal-ideal bound of " + NDEVAL,
          undefined=UNDEF, ties=TIES,
          ir_measures="alpha_DCG")
def alpha_dcg(prep: Prepared, level: float, k=None, alpha=0.5) -> np.ndarray:
    """α-DCG@k divided by its ideal-ideal bound Σ_{i≤k} S(1 − α)^{i−1}/log2(1 + i), the value
    of a ranking relevant to all S subtopics at every position (ndeval's α-DCG column;
    collection-independent). ``k=None``: the bound at the ranking's length.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
    >>> round(float(run.ir.alpha_dcg(qrels, k=2).iloc[0]), 4)
    0.8801
    """
    p = _pairs(prep, level, "alpha_dcg")
    dcg = _gain_sum(prep, p, "dcg", k, alpha)
    return _over_bound(dcg, _ideal_ideal(p.S, alpha, "dcg", _depth(prep, k)), p.S)


@register("err_ia", subtopics=True, params=(K, ALPHA), aliases=("ERR-IA", "ERR_IA"),
          citation=CHAPELLE_2009 + ", §5 (intent-aware ERR); " + NDEVAL + "'s form and "
          "ideal-ideal normalisation.", undefined=UNDEF, ties=TIES,
          ir_measures="ERR_IA")
def err_ia(prep: Prepared, level: float, k=None, alpha=0.5) -> np.ndarray:
    """ERR-IA@k as ndeval computes it: Σ_{i≤k} g(i)/i over its ideal-ideal bound
    Σ_{i≤k} S(1 − α)^{i−1}/i, with g(i) the novelty-discounted gain (module docstring): the
    intent-aware ERR of Chapelle et al. with binary grades, stopping probability α, uniform
    subtopic weights. (ndeval leaves ERR-IA@1 and α-DCG@1 undivided by the bound; here every
    k is divided.)

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
    >>> round(float(run.ir.err_ia(qrels, k=2).iloc[0]), 4)
    0.9
    """
    p = _pairs(prep, level, "err_ia")
    err = _gain_sum(prep, p, "rr", k, alpha)
    return _over_bound(err, _ideal_ideal(p.S, alpha, "rr", _depth(prep, k)), p.S)


@register("nerr_ia", subtopics=True, params=(K, ALPHA), aliases=("nERR-IA", "nERR_IA"),
          citation=CHAPELLE_2009 + ", §5; " + NDEVAL + "'s greedy-ideal normalisation.",
          undefined=UNDEF_IDEAL, ties=TIES,
          ir_measures="nERR_IA")
def nerr_ia(prep: Prepared, level: float, k=None, alpha=0.5) -> np.ndarray:
    """nERR-IA@k: ERR-IA of the ranking over ERR-IA of ndeval's greedy ideal ranking (the
    α-nDCG ideal; collection-dependent).

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
    >>> round(float(run.ir.nerr_ia(qrels, k=2).iloc[0]), 4)
    0.7778
    """
    p = _pairs(prep, level, "nerr_ia")
    err = _gain_sum(prep, p, "rr", k, alpha)
    return safe_div(err, _ideal_sum(prep, level, alpha, _rr_weight(k)))


@register("nrbp", subtopics=True, params=(ALPHA, BETA), aliases=("NRBP",),
          citation=CLARKE_2009 + ", eq. 6; " + NDEVAL + ".", undefined=UNDEF, ties=TIES,
          ir_measures="NRBP")
def nrbp(prep: Prepared, level: float, alpha=0.5, beta=0.5) -> np.ndarray:
    """Novelty- and rank-biased precision: (1 − (1 − α)β)/S · Σ_i β^{i−1} g(i) over the whole
    ranking (Clarke, Kolla & Vechtomova, ICTIR 2009); 1 for a ranking relevant to every
    subtopic at every position, forever.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
    >>> float(run.ir.nrbp(qrels).iloc[0])
    0.84375
    """
    p = _pairs(prep, level, "nrbp")
    total = _gain_sum(prep, p, "rbp", beta, alpha)
    return safe_div(total * (1.0 - (1.0 - alpha) * beta), p.S)


@register("nnrbp", subtopics=True, params=(ALPHA, BETA), aliases=("nNRBP",),
          citation=CLARKE_2009 + "; " + NDEVAL + "'s greedy-ideal normalisation.",
          undefined=UNDEF_IDEAL, ties=TIES,
          ir_measures="nNRBP")
def nnrbp(prep: Prepared, level: float, alpha=0.5, beta=0.5) -> np.ndarray:
    """NRBP of the ranking over NRBP of ndeval's greedy ideal ranking.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
    >>> round(float(run.ir.nnrbp(qrels).iloc[0]), 4)
    0.7778
    """
    p = _pairs(prep, level, "nnrbp")
    total = _gain_sum(prep, p, "rbp", beta, alpha)
    return safe_div(total, _ideal_sum(prep, level, alpha, _rbp_weight(beta)))


def _in_top(prep: Prepared, p: _Pairs, k) -> np.ndarray:
    """Each pair's probability of lying within the first k positions (its tie group's share
    when the group straddles k)."""
    if k is None:
        return np.ones(len(p.row))
    gid = prep.gid[p.row]
    t, n = prep.g_start[gid], prep.g_size[gid]
    return np.clip((k - t) / n, 0.0, 1.0)


@register("p_ia", subtopics=True, params=(K,), aliases=("P-IA", "P_IA"),
          citation=AGRAWAL_2009 + ", §6 (intent-aware precision, uniform subtopic weights); "
          + NDEVAL + ".",
          undefined=UNDEF + " With k=None also for an empty ranking (0/0).",
          ties="Exact, as precision@k: a tie group cut by k counts the share (k − t)/n of it.",
          ir_measures="P_IA")
def p_ia(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Intent-aware precision@k: (1/S) Σ_s P@k for subtopic s = the relevant (document,
    subtopic) pairs in the first k positions over k·S (a ranking shorter than k still
    divides by k; ``k=None``: by its length).

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "c"], "score": [2.0, 1.0]})
    >>> float(run.ir.p_ia(qrels, k=2).iloc[0])
    0.5
    """
    p = _pairs(prep, level, "p_ia")
    hits = np.bincount(p.seg, weights=_in_top(prep, p, k) * p.wt, minlength=prep.n_segments)
    per = prep.length.astype(np.float64) if k is None else np.full(prep.n_segments, float(k))
    return safe_div(hits, per * p.S)


@register("s_recall", subtopics=True, params=(K,),
          aliases=("strec", "StRecall", "S-recall", "subtopic_recall"),
          citation=ZHAI_2003 + ", §3 (S-recall); " + NDEVAL + ".", undefined=UNDEF,
          ties=("Exact: a subtopic first met in a tie group cut by k (n documents, t before "
                "it, m of them relevant to it) is covered with probability "
                "1 − C(n − m, k − t)/C(n, k − t)."),
          ir_measures="StRecall")
def s_recall(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Subtopic recall@k: the share of the query's S subtopics with a relevant document in
    the first k positions (Zhai, Cohen & Lafferty, SIGIR 2003; ndeval's ``strec``).

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
    >>> float(run.ir.s_recall(qrels, k=1).iloc[0])
    0.5
    """
    p = _pairs(prep, level, "s_recall")
    if len(p.row) == 0:
        return safe_div(np.zeros(prep.n_segments), p.S)
    heads = p.block_start  # the first relevant pair of each (segment, subtopic)
    if k is None:
        covered = np.ones(len(heads))
    else:
        gid = prep.gid[p.row]
        g = gid[heads]
        t, n = prep.g_start[g], prep.g_size[g]
        # relevant pairs of the block inside the head's tie group
        same = (gid == gid[heads][p.block]).astype(np.int64)
        m = np.bincount(p.block, weights=same, minlength=len(heads)).astype(np.int64)
        take = np.clip(k - t, 0, n).astype(np.int64)
        lf = log_factorials(int(n.max()))
        covered = 1.0 - comb_ratio(n - m, take, n, take, lf)
    return safe_div(np.bincount(p.seg[heads], weights=covered * p.wt[heads],
                                minlength=prep.n_segments), p.S)


@register("map_ia", subtopics=True, params=(), aliases=("MAP-IA", "AP_IA", "AP-IA", "ap_ia"),
          citation=AGRAWAL_2009 + ", §6 (intent-aware MAP, uniform subtopic weights); "
          + NDEVAL + ".",
          undefined=UNDEF,
          ties=("Exact (McSherry & Najork, ECIR 2008, §2.4, per subtopic): a tie group of n "
                "documents, t before it, k relevant to s and c earlier ones, adds "
                "(k/n) Σ_{j=t+1}^{t+n} (c + 1 + (j − t − 1)(k − 1)/(n − 1))/j."),
          ir_measures="AP_IA")
def map_ia(prep: Prepared, level: float) -> np.ndarray:
    """Intent-aware average precision: the mean over the query's S subtopics of the AP of
    the ranking with relevance to that subtopic (R_s = the judged documents relevant to s).

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
    ...                       "rel": 1})
    >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
    >>> float(run.ir.map_ia(qrels).iloc[0])
    0.75
    """
    p = _pairs(prep, level, "map_ia")
    if len(p.row) == 0:
        return safe_div(np.zeros(prep.n_segments), p.S)
    gid = prep.gid[p.row]
    # blocks of equal (segment, subtopic, tie group)
    bkey = p.key * np.int64(prep.n_groups + 1) + gid
    first = np.ones(len(bkey), dtype=bool)
    first[1:] = bkey[1:] != bkey[:-1]
    heads = np.flatnonzero(first)
    k = np.diff(np.append(heads, len(bkey))).astype(np.float64)
    c = p.index[heads].astype(np.float64)
    g = gid[heads]
    n, t = prep.g_size[g].astype(np.float64), prep.g_start[g].astype(np.float64)
    top = int((t + n).max())
    H = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, top + 1))])
    B = np.where(n > 1, (k - 1) / np.maximum(n - 1, 1), 0.0)
    A = c + 1
    harm = H[(t + n).astype(np.int64)] - H[t.astype(np.int64)]
    block_sum = (k / n) * ((A - B * (t + 1)) * harm + B * n)
    ap = block_sum / p.nrel[p.code[heads]] * p.wt[heads]
    return safe_div(np.bincount(p.seg[heads], weights=ap, minlength=prep.n_segments), p.S)
