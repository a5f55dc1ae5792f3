"""Condorcet fusion (Montague & Aslam, CIKM 2002) by Copeland score: every pair of
candidates of a query compared over the runs, in blocks of pairs (one NumPy pass each)."""
from __future__ import annotations

import numpy as np

from trunc_accessor.fusion.normalization import Table

PAIR_BLOCK = 1 << 21  # candidate pairs compared per NumPy pass


def condorcet(tab: Table, weights: np.ndarray) -> np.ndarray:
    """Condorcet fusion by Copeland score (Montague & Aslam, "Condorcet fusion for improved
    retrieval", CIKM 2002): run r votes (weight w_r) for document x over y when it ranks x
    above y; a run that retrieved neither, or tied them, splits its vote (with
    ``ties="average"``: the mean vote over the orders of its tie, half to each). x beats y
    when its votes exceed y's. The majority is a threshold, so with ties averaged the
    Copeland score below is that of the mean votes, not the mean of the Copeland score over
    the orders of the ties (a run tying x and y beside one preferring x: x wins outright
    here, and wins or draws in the two orders). The fused score of x is 1 + (the
    documents it beats) + ½ (the documents it draws with): when the majority relation is a
    strict total order (no cycle, no drawn pair) this orders the documents as Montague & Aslam's
    majority sort, with scores C, C−1, …, 1 as ranx gives them; otherwise their sort's order depends
    on the sorting algorithm and on the order the documents are visited in (in ranx, on Python's
    hash seed), while Copeland's count is defined in every case. O(Σ C_q² · R) pair comparisons."""
    st = tab.st
    C, R, Q = st.n_cand, st.n_runs, st.n_q
    P = np.full((C, R), np.inf)
    P[tab.cand, tab.system] = tab.group_first_pos()
    score = np.ones(C)
    counts = st.q_counts()
    first = np.zeros(Q + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    pairs = counts.astype(np.int64) ** 2
    ends = np.cumsum(pairs)
    total = int(ends[-1]) if Q else 0
    starts = ends - pairs
    for lo in range(0, total, PAIR_BLOCK):
        flat = np.arange(lo, min(lo + PAIR_BLOCK, total), dtype=np.int64)
        q = np.searchsorted(ends, flat, side="right")
        local = flat - starts[q]
        m = counts[q]
        x = first[q] + local // m
        y = first[q] + local % m
        keep = x != y
        x, y = x[keep], y[keep]
        a = np.zeros(len(x))
        b = np.zeros(len(x))
        for r in range(R):
            px, py = P[x, r], P[y, r]
            a += np.where(px < py, weights[r], 0.0)
            b += np.where(px > py, weights[r], 0.0)
        win = (a > b) + 0.5 * (a == b)
        score += np.bincount(x, weights=win, minlength=C)
    return score
