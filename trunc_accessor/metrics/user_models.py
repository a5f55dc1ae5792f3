"""C/W/L user-model measures (Moffat et al.), as cwl_eval computes them, and ir_measures'
Accuracy.

**The C/W/L framework** (Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations
and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017;
Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval',
SIGIR 2019). A user reads position 1, and having read position i goes on to i + 1 with the
*continuation probability* C_i. Position i is then examined with probability
E_i = Π_{j<i} C_j, and the *weight* of position i is its share of the expected number of
positions read, W_i = E_i / Σ_l E_l. The measure is the expected rate of gain,

    M = Σ_i W_i g_i,

g_i ∈ [0, 1] the gain of the document at i. Every measure here is one choice of C_i:

=======  =======================================  ==================================================
measure  C_i                                      source
=======  =======================================  ==================================================
INSQ     ((i + 2T − 1)/(i + 2T))²                 Moffat, Scholer & Thomas, ADCS 2012
INST     ((i + T + T_i − 1)/(i + T + T_i))²       Moffat, Bailey, Scholer & Thomas, ADCS 2015
BPM      1 while G_i < T and i < k, else 0        Zhang et al., SIGIR 2017 (static BPM)
NERR8    1 − g_i for i < k, else 0                Azzopardi, Mackenzie & Moffat, ICTIR 2021, eq. (8)
NERR9    (i/(i + 1))(1 − g_i) for i < k, else 0   idem, eq. (9)
NERR10   p(1 − g_i)                               idem, eq. (10)
NERR11   ((i + 2T − 1)/(i + 2T))² (1 − g_i)       idem, eq. (11)
SDCG     log(i + 1)/log(i + 2) for i < k, else 0  Järvelin & Kekäläinen 2002, as a C/W/L metric
=======  =======================================  ==================================================

G_i = g_1 + … + g_i is the gain gathered by position i, and INST's T_i = T − G_i. E_i telescopes:
INSQ's is (2T/(i − 1 + 2T))², SDCG's 1/log2(i + 1) (so SDCG@k is DCG@k over the DCG@k of k documents
of gain 1), BPM's is 1 up to the stopping position L = min(first i with G_i ≥ T, k) and 0
after (so BPM = G_L/L), the NERR measures' are a fixed discount times Π_{j<i}(1 − g_j).

**The list the user model runs over** (``depth=D``, default 1,000): cwl_eval (``max_n``) and
so ir_measures evaluate the first D positions, a ranking shorter than D padded with documents
of gain 0: the padding still draws weight (a user who has not stopped reads on), so a short
ranking scores lower than its documents alone would. ``depth=None`` is the list without end
that the papers define: the padded tail is summed in closed form (INSQ, INST, NERR11 through
the trigamma function, NERR9 the digamma function, NERR10 a geometric series). A tail that
does not converge (NERR8, NERR9, SDCG and BPM with neither ``k`` nor ``depth``) gives the
limit, 0, unless the user surely stops first.

**Gains** (ir_measures' ``min_rel``/``max_rel``): g = (clip(grade, min_grade, max_grade) −
min_grade)/(max_grade − min_grade), negative grades counting as 0 first and unjudged documents
gaining 0; ``max_grade=None`` takes the largest grade of the qrels (ir_measures requires it).

**Ties** (``ties="average"``). INSQ's and SDCG's weights are fixed per position, so the mean
over the orders of a tie group replaces each gain by the group's mean gain (McSherry & Najork,
ECIR 2008). The others' weights depend on the gains read before (INST, BPM) or are
normalised by a sum that does (the NERR measures: M is a ratio of two sums that both change
with the order, and the mean of a ratio is not the ratio of means), so their mean over the
orders of a tie that mixes gains has no closed form known to us. Under ``ties="average"``
they raise a ValueError naming the query when such a tie can change the value: the user
reaches it with positive probability and at least two of its positions lie in the weighted
part of the list (for BPM: when the stopping position may fall strictly inside it). A tie
with only its first position weighted, or a BPM tie cut by ``k`` before any order reaches T,
is linear in the gains and takes the group mean. Pass ``ties="first"`` (the order as given)
to score the ranking as cwl_eval does.

ir_measures hands cwl_eval each query's documents sorted by score, descending, with equal
scores left in the order of the run (Python's stable sort): ``ties="first"`` on the run
without its rank column (or with ranks in that order) is that order.
"""
from __future__ import annotations

import math

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._order import mixed_groups, require_order_free, restarting_cumsum
from trunc_accessor.metrics.cascade import _segment_scan_product
from trunc_accessor.metrics.cwl import (
    ADAPTIVE_TIES,
    CWL,
    DEPTH,
    MAX_GRADE,
    MIN_GRADE,
    T_PARAM,
    UNDEFINED,
    _m,
    _refuse_mixed,
    _window,
    cwl_gains,
)
from trunc_accessor.metrics.cwl_tails import padding_sum, sdcg_normaliser
from trunc_accessor.metrics.params import K, Param, is_real
from trunc_accessor.metrics.registry import register

LINEAR_TIES = ("Exact: the weights are fixed per position, so every gain is replaced by its "
               "tie group's mean gain (McSherry & Najork 2008).")


def check_inst_T(T):
    """INST's T: a finite number ≥ 1/4, so that every C_i = ((a − 1)/a)², a = i + 2T − G_i ≥
    2T, stays a probability (below, C_i can exceed 1 and the weights overflow)."""
    if not is_real(T) or not math.isfinite(T) or T < 0.25:
        raise ValueError(f"must be a finite number ≥ 1/4 (below, INST's continuation "
                         f"probabilities can exceed 1), not {T!r}")
    return float(T)


INST_T = Param("T", 1.0, check_inst_T,
               "T ≥ 1/4: the gain the user sets out to find, in units of the top grade's gain")


# --------------------------------------------------------------------------- INSQ, SDCG
@register("insq", params=(T_PARAM, MIN_GRADE, MAX_GRADE, DEPTH),
          citation="Moffat, Scholer & Thomas, 'Models and metrics: IR evaluation as a user "
                   "process', ADCS 2012 (INSQ, C_i = ((i + 2T − 1)/(i + 2T))²); " + CWL + ".",
          undefined=UNDEFINED, ties=LINEAR_TIES,
          ir_measures="INSQ")
def insq(prep: Prepared, level: float, T=1.0, min_grade=0.0, max_grade=None,
         depth=1000) -> np.ndarray:
    """INSQ: the C/W/L measure with C_i = ((i + 2T − 1)/(i + 2T))² (Moffat, Scholer & Thomas,
    ADCS 2012), so E_i = (2T/(i − 1 + 2T))² and INSQ = Σ_i E_i g_i / Σ_i E_i over the
    ``depth`` positions of the list (module docstring: gains in [0, 1], padding), the sum of
    E_i being (2T)² (ψ'(2T) − ψ'(depth + 2T)), ψ' the trigamma function (summed without
    cancellation, ``padding_sum``). T is the gain the
    user wants; it sets a patience that does not adapt to what is found (INST does).

    >>> from trunc_accessor.frontends.single import insq
    >>> round(insq([1, 0, 1], T=1.0, max_grade=1), 6)  # cwl_eval's value
    0.485297
    >>> round(insq([1, 0, 1], T=1.0, max_grade=1, depth=None), 6)  # the list without end
    0.484546
    """
    rows, _ = _window(prep, depth)
    g = prep.group_mean(cwl_gains(prep, min_grade, max_grade, "insq"))[rows]
    i = prep.pos[rows].astype(np.float64)
    E = (2 * T / (i - 1 + 2 * T)) ** 2
    Z = padding_sum(np.array([2 * T]), np.inf if depth is None else depth)[0]
    return prep.seg_sum(_spread(prep, rows, E * g)) / Z


def _spread(prep: Prepared, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros(len(prep.seg))
    out[rows] = values
    return out


@register("sdcg", params=(K, MIN_GRADE, MAX_GRADE, DEPTH),
          citation="Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', "
                   "ACM TOIS 20(4), 2002 (DCG), as the C/W/L measure of cwl_eval (NDCG-k, "
                   "C_i = log(i + 1)/log(i + 2)); " + CWL + ".",
          undefined=UNDEFINED, ties=LINEAR_TIES,
          ir_measures="SDCG")
def sdcg(prep: Prepared, level: float, k=None, min_grade=0.0, max_grade=None,
         depth=1000) -> np.ndarray:
    """Scaled DCG: DCG@k with gains in [0, 1] over the DCG@k of k documents of gain 1,

        SDCG@k = Σ_{i≤k} g_i/log2(i + 1) / Σ_{i≤k} 1/log2(i + 1),

    cwl_eval's NDCG-k and ir_measures' ``SDCG@k``: the C/W/L measure with C_i = log(i +
    1)/log(i + 2) for i < k, so the ideal does not depend on the qrels (it assumes k
    documents of the top grade exist). k is cut at ``depth`` (1,000) as in cwl_eval.

    >>> from trunc_accessor.frontends.single import sdcg
    >>> round(sdcg([2, 0, 1], k=3, max_grade=2), 6)  # (1 + 0.5/2) / (1 + 1/log2(3) + 1/2)
    0.586598
    """
    M = _m(k, depth)
    rows, _ = _window(prep, M)
    g = prep.group_mean(cwl_gains(prep, min_grade, max_grade, "sdcg"))[rows]
    w = 1.0 / np.log2(prep.pos[rows] + 1.0)
    Z = sdcg_normaliser(M)
    if math.isinf(Z):
        return np.zeros(prep.n_segments)
    return prep.seg_sum(_spread(prep, rows, w * g)) / Z


# --------------------------------------------------------------------------- INST
@register("inst", params=(INST_T, MIN_GRADE, MAX_GRADE, DEPTH),
          citation="Moffat, Bailey, Scholer & Thomas, 'INST: An adaptive metric for information "
                   "retrieval evaluation', ADCS 2015 (C_i = ((i + T + T_i − 1)/(i + T + T_i))², "
                   "T_i = T − G_i); " + CWL + ".",
          undefined=UNDEFINED, ties=ADAPTIVE_TIES.format(what=" (C_i depends on G_i)"),
          ir_measures="INST")
def inst(prep: Prepared, level: float, T=1.0, min_grade=0.0, max_grade=None,
         depth=1000) -> np.ndarray:
    """INST: the adaptive C/W/L measure of Moffat, Bailey, Scholer & Thomas (ADCS 2015),
    C_i = ((i + T + T_i − 1)/(i + T + T_i))² with T_i = T − G_i the gain still wanted after
    position i: a user who finds what they wanted (T_i ≤ 0) soon stops, one who finds
    nothing reads on. INST = Σ_i E_i g_i / Σ_i E_i, E_i = Π_{j<i} C_j, over the ``depth``
    positions of the list (module docstring). Past the ranking (length n, gain G_n) the C_i
    telescope, so the padding's E_i sum to E_{n+1} (n + b)² (ψ'(n + b) − ψ'(depth + b)),
    b = 2T − G_n, ψ' the trigamma function. T ≥ 1/4 keeps every C_i a probability.

    >>> from trunc_accessor.frontends.single import inst
    >>> round(inst([1, 0, 1], T=1.0, max_grade=1), 6)  # cwl_eval's value
    0.723289
    """
    rows, n = _window(prep, depth)
    seg = prep.seg[rows]
    raw = cwl_gains(prep, min_grade, max_grade, "inst")
    g = prep.group_mean(raw)[rows]
    i = prep.pos[rows].astype(np.float64)
    offsets = np.zeros(prep.n_segments + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg, minlength=prep.n_segments), out=offsets[1:])
    G = restarting_cumsum(g, offsets)
    a = i + 2 * T - G
    C = ((a - 1.0) / a) ** 2
    before, through, _ = _segment_scan_product(C, seg, prep.n_segments)
    if prep.ties == "average" and not prep.singleton_groups:
        reached = np.zeros(prep.n_groups, dtype=bool)
        at = np.full(len(prep.seg), -1, dtype=np.int64)
        at[rows] = np.arange(len(rows))
        first = prep.group_first_row
        inside = at[first] >= 0
        reached[inside] = before[at[first[inside]]] > 0
        _refuse_mixed(prep, raw, reached, depth, "inst",
                      "its continuation probabilities depend on the gain read so far")
    G_n = np.zeros(prep.n_segments)
    last = offsets[1:] - 1
    has = offsets[1:] > offsets[:-1]
    G_n[has] = G[last[has]]
    b = 2 * T - G_n
    tail = padding_sum(n + b, np.inf if depth is None else np.maximum(depth - n, 0.0))
    num = np.bincount(seg, weights=before * g, minlength=prep.n_segments)
    den = np.bincount(seg, weights=before, minlength=prep.n_segments)
    den = den + np.where(through > 0, through * tail, 0.0)
    return num / den


# --------------------------------------------------------------------------- BPM
@register("bpm", params=(T_PARAM, K, MIN_GRADE, MAX_GRADE, DEPTH),
          citation="Zhang, Liu, Li, Zhang, Xu & Ma, 'Evaluating web search with a Bejeweled "
                   "Player Model', SIGIR 2017 (static BPM: the user stops at benefit T or cost "
                   "k); " + CWL + ".",
          undefined=UNDEFINED,
          ties=("Refused where the order matters: a tie that mixes gains, is read (it starts "
                "before min(k, depth) and before the gain reaches T) and in some order reaches "
                "T before its last document raises a ValueError naming the query under "
                "ties='average' (pass ties='first'). Otherwise the stopping position does not "
                "depend on the tie's order and the group mean gain is exact."),
          ir_measures="BPM")
def bpm(prep: Prepared, level: float, T=1.0, k=None, min_grade=0.0, max_grade=None,
        depth=1000) -> np.ndarray:
    """Bejeweled Player Model (static): the user reads until the gain gathered reaches T
    (the benefit bound) or k documents are read (the cost bound, each document costing 1),
    whichever comes first (Zhang et al., SIGIR 2017; cwl_eval's BPM-Static,
    ``C_i = [G_i < T][i < k]``). Every position up to the stopping position
    L = min(first i with G_i ≥ T, k, depth) weighs 1/L, so BPM = G_L / L, G_L the gain of
    the first L documents (gains in [0, 1], module docstring). The cumulative gains are
    summed in ranking order, as cwl_eval does, so that G_i ≥ T is decided as there.

    >>> from trunc_accessor.frontends.single import bpm
    >>> bpm([0, 1, 1, 1], T=2.0, k=10, max_grade=1)  # stops at 3 with G = 2
    0.6666666666666666
    >>> bpm([0, 0, 1], T=1.0, k=2, max_grade=1)  # stops at k = 2 with nothing
    0.0
    """
    Kc = _m(k, depth)
    rows, _ = _window(prep, Kc)
    seg = prep.seg[rows]
    g_raw = cwl_gains(prep, min_grade, max_grade, "bpm")
    g = g_raw[rows]
    offsets = np.zeros(prep.n_segments + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg, minlength=prep.n_segments), out=offsets[1:])
    G = restarting_cumsum(g, offsets)
    # L: the first window position with G_i ≥ T, else min(k, depth) (inf for neither)
    hit = G >= T
    L = np.full(prep.n_segments, np.inf if Kc is None else float(Kc))
    if hit.any():
        hseg = seg[hit]
        first_hit = np.full(prep.n_segments, np.inf)
        np.minimum.at(first_hit, hseg, prep.pos[rows][hit].astype(np.float64))
        L = np.minimum(L, first_hit)
    if prep.ties == "average" and not prep.singleton_groups:
        _refuse_bpm(prep, g_raw, G, rows, T, Kc)
        # L inside a tie group only when k cuts it: its part above k is a uniform sample
        g = prep.group_mean(g_raw)[rows]
    within = prep.pos[rows] <= L[seg]
    gain = np.bincount(seg, weights=np.where(within, g, 0.0), minlength=prep.n_segments)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(L), 0.0, gain / np.where(np.isinf(L), 1.0, L))


def _refuse_bpm(prep: Prepared, g: np.ndarray, G: np.ndarray, rows: np.ndarray, T: float,
                Kc) -> None:
    """A mixed tie group that is read (it starts before min(k, depth), the gain G before it,
    summed as for the value, below T) and that some order of it lets reach T before its last
    document (the gain of all its documents but the smallest reaches T; this test leans to
    refusing by 1e-9, so that no rounding lets an order-dependent tie through)."""
    starts = prep.group_first_row
    gsum = prep.group_sum(g)
    gmin = np.minimum.reduceat(g, starts) if len(g) else np.zeros(0)
    at = np.full(len(prep.seg), -1, dtype=np.int64)
    at[rows] = np.arange(len(rows))
    before = np.zeros(prep.n_groups)
    prev = starts - 1  # the row before the group, when it is in the same ranking
    has = (prep.g_start > 0) & (at[np.maximum(prev, 0)] >= 0)
    before[has] = G[at[prev[has]]]
    slack = 1e-9 * max(1.0, T)
    risky = (before < T) & (before + gsum - gmin >= T - slack)
    if Kc is not None:
        risky &= prep.g_start < Kc
    require_order_free(prep, mixed_groups(prep, g) & risky, "bpm",
                       "where the user stops depends on the gain read so far")

