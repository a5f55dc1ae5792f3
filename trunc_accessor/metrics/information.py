"""Observational information effectiveness, OIE (Amigó, Mizzaro & Spina, 'Ranking
Interruptus', SIGIR 2022, §3.4; OIE was introduced by Amigó, Giner, Mizzaro & Spina, 'A
formal account of effectiveness evaluation and ranking fusion', ICTIR 2018).

Every document of a collection D of size |D| (``collection_size``) is an observation of two
variables: S, the system's output (its rank), and G, the ground truth (its grade). With the
observational information quantity OIQ(x) = −log P(X ≥ x), estimated by counting documents,
the paper's three observational entropies are (natural logarithms)

    H(S)   = −(1/|D|) Σ_d log(|{d' : rank(d') ≤ rank(d)}| / |D|)
    H(G)   = −(1/|D|) Σ_d log(|{d' : rel(d') ≥ rel(d)}| / |D|)
    H(S,G) = −(1/|D|) Σ_d log(|{d' : rank(d') ≤ rank(d) ∧ rel(d') ≥ rel(d)}| / |D|)

    OIE = H(S) + H(G) − β·H(S, G)                                     (§3.4.2)

The n retrieved documents have ranks 1..n; every other document shares rank +∞ (it is tied
below all retrieved ones); rel = the grade, negative and unjudged = 0.

Cost. A document with count |D| contributes log 1 = 0. That is every document of the +∞
rank with grade 0 in all three sums (all of D has rank ≤ +∞ and grade ≥ 0), so only the n
retrieved documents and the judged documents of positive grade are ever visited:

* retrieved document at rank i: H(S) count i; H(S,G) count i if its grade is 0, else the
  retrieved documents at ranks ≤ i with a grade at least its own (non-retrieved ones are
  ranked after it);
* judged document of grade g > 0: H(G) count C(g) = the query's judged documents with grade
  ≥ g; if it is not retrieved, its H(S,G) count is C(g) too (rank +∞ admits every d').

The "grade at least its own among ranks ≤ i" counts are prefix sums, one pass per distinct
positive grade of the qrels (a handful on any judgment scale), vectorised over every query:
O((n + judged) · grades) work, never O(|D|).

Ties (``ties="average"``): a tie group is one rank. OIE is defined on the observational
relation, not on positions: OIQ(x) = −log P(X ≥ x) (§3.4.1) counts the documents the system
scores at least as high as d. Documents with equal scores are one value of S, exactly as
the non-retrieved documents are one value (+∞) that all of them share, so "rank(d') ≤
rank(d)" holds between tied documents in both directions and every member's count runs to
the end of its group (i above becomes t + m, t positions before a group of m). We use this
rather than the mean over tie orders (McSherry & Najork) because that mean would score
orders the system never produced, and would treat a tie inside the ranking differently from
the tie of the non-retrieved documents at +∞, which is one shared rank. The
value is invariant under any reordering within a group. It is not a mean over orders and
need not lie between the best and the worst order: for a tie group of non-relevant
documents the shared counts exceed those of every order, so H(S) and H(S,G) are both
smaller and, for β > 1, the group scores above every order of it. With ``ties="first"`` or
``"trec_eval"`` every position is its own rank.
"""
from __future__ import annotations

import math

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics.params import Param, check_positive, is_real
from trunc_accessor.metrics.registry import register


def check_collection_size(n):
    if not is_real(n) or not math.isfinite(n) or n != int(n) or n < 1:
        raise ValueError(f"must be a whole number ≥ 1, not {n!r}")
    return int(n)


COLLECTION_SIZE = Param("collection_size", 20000, check_collection_size,
                        "|D|, the number of documents observed (the paper's 20,000)")
BETA = Param("beta", 1.05, check_positive,
             "weight of the joint entropy; β > 1 gives CONFIDENCE (the paper's 1.05)")


def _segment_label(prep: Prepared, i: int) -> str:
    row = prep.keys.row(int(i), named=True)
    if len(row) == 1:
        return f"query {next(iter(row.values()))!r}"
    return ", ".join(f"{k}={v!r}" for k, v in row.items())


def _check_size(prep: Prepared, positive_judged: np.ndarray, positive_retrieved: np.ndarray,
                size: int) -> None:
    need = prep.length + positive_judged - positive_retrieved
    bad = np.flatnonzero(need > size)
    if bad.size:
        i = bad[0]
        raise ValueError(
            f"oie: collection_size={size} is smaller than {_segment_label(prep, i)} needs: "
            f"{prep.length[i]} retrieved + {int(positive_judged[i] - positive_retrieved[i])} "
            f"judged documents of positive grade not retrieved = {int(need[i])} documents"
            + (f" ({bad.size} rankings in all)" if bad.size > 1 else ""))


@register("oie", params=(COLLECTION_SIZE, BETA),
          citation="Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are "
                   "Better and How to Measure That', SIGIR 2022, §3.4 (H(S), H(G), H(S,G) and "
                   "OIE_G(S) = H(S) + H(G) − βH(S,G)); ties as one rank of the observational "
                   "relation (module docstring).",
          undefined="Never undefined: 0 for an empty ranking of a query with no judged "
                    "document of positive grade; for R = 0 every retrieved document lowers it.",
          ties=("A tie group is one rank: OIE's 'unanimously outscored' relation treats tied "
                "documents as equally ranked, which is the measure's own reading of a tie."))
def oie(prep: Prepared, level: float, collection_size=20000, beta=1.05) -> np.ndarray:
    """Observational information effectiveness, OIE = H(S) + H(G) − β·H(S,G) (Amigó et al.
    SIGIR 2022, §3.4): the information the ranking and the judgments give about the
    |D| documents of the collection, less β times what they give jointly.

    Retrieved documents have ranks 1..n, the rest of the collection shares rank +∞;
    relevance is the grade (unjudged and negative: 0; ``relevance_level`` is not used).
    Natural logarithms. ``collection_size`` |D| (default 20,000) and ``beta`` β (default
    1.05, for which the one relevant document of the collection at rank 20 scores the same
    as returning nothing, §3.4.2). Appending a non-relevant document changes OIE by exactly
    (1 − β)·log(|D| / (n + 1)) / |D|, so β > 1 gives CONFIDENCE.

    Empty ranking: OIE = (1 − β)·H(G). A query with no judged document of positive grade
    (R = 0 for relevance_level=1 on integer grades) has H(G) = 0: the empty ranking gives 0,
    the best answer there, as any retrieved document gives (1 − β)·H(S) < 0 for β > 1.
    Ties: a tie group is one rank (module docstring).
    A ``collection_size`` smaller than n plus the judged documents of positive grade not
    retrieved is a ValueError naming the query.

    The calibration: "the unique relevant document at position 20" ties with "nothing" at
    β = 1 + log(|D|/20) / Σ_{i<20} log(|D|/i) = 1.0464 for |D| = 20,000, which the paper
    gives to two decimals as 1.05.

    >>> from trunc_accessor.frontends.single import oie
    >>> # H(S) = H(S,G) = (3·log|D| − log 3!)/|D|, H(G) = log|D|/|D|
    >>> round(oie([1, 0, 0], R=1) * 20000, 4)
    8.5076
    >>> oie([], R=0)
    0.0
    """
    N = float(collection_size)
    rel = prep.gain()                                    # max(grade, 0); unjudged 0
    q_rel = np.maximum(prep.q_grades, 0.0)
    positive_judged = prep.qid_sum((q_rel > 0).astype(np.float64))
    positive_retrieved = prep.seg_sum((rel > 0).astype(np.float64))
    _check_size(prep, positive_judged, positive_retrieved, collection_size)

    # rank(d') ≤ rank(d) ⇔ d' is no later than the end of d's tie group
    end = (prep.g_start + prep.g_size)[prep.gid].astype(np.float64)
    h_s = -prep.seg_sum(np.log(end / N)) / N

    joint = end.copy()                                  # grade 0: every d' ranked up to d
    h_g = np.zeros(prep.n_segments)
    joint_unretrieved = np.zeros(prep.n_segments)
    row_start = prep.offsets[prep.seg]
    for g in np.unique(q_rel[q_rel > 0]):
        at_least = prep.qid_sum((q_rel >= g).astype(np.float64))        # C(g)
        judged_at = prep.qid_sum((q_rel == g).astype(np.float64))
        retrieved_at = prep.seg_sum((rel == g).astype(np.float64))
        with np.errstate(divide="ignore"):
            log_c = np.where(at_least > 0, np.log(np.maximum(at_least, 1.0) / N), 0.0)
        h_g -= judged_at * log_c
        joint_unretrieved -= (judged_at - retrieved_at) * log_c
        rows = rel == g
        if rows.any():
            prefix = np.concatenate([[0.0], np.cumsum(rel >= g)])
            idx = row_start[rows]
            joint[rows] = prefix[idx + end[rows].astype(np.int64)] - prefix[idx]
    h_sg = (joint_unretrieved - prep.seg_sum(np.log(joint / N))) / N
    return h_s + h_g / N - beta * h_sg
