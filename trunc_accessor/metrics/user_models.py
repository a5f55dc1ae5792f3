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
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics._combinatorics import log_factorials
from trunc_accessor.metrics._order import mixed_groups, require_order_free, restarting_cumsum
from trunc_accessor.metrics.cascade import _segment_scan_product
from trunc_accessor.metrics.params import (
    K,
    Param,
    check_k,
    check_p,
    check_positive,
    check_positive_or_none,
    is_real,
)
from trunc_accessor.metrics.registry import register

CWL = ("Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into "
       "the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); "
       "Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', "
       "SIGIR 2019 (cwl_eval, which ir_measures runs)")
NERR_PAPER = ("Azzopardi, Mackenzie & Moffat, 'ERR is not C/W/L: Exploring the relationship "
              "between expected reciprocal rank and other metrics', ICTIR 2021")
UNDEFINED = ("Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) "
             "and whenever no retrieved grade lies above min_grade; the gains do not depend on "
             "relevance_level, so R = 0 is scored like any other query.")
LINEAR_TIES = ("Exact: the weights are fixed per position, so every gain is replaced by its "
               "tie group's mean gain (McSherry & Najork 2008).")
ADAPTIVE_TIES = ("Refused where the order matters: the weights depend on the gains read "
                 "before{what}, and the mean over a tie's orders has no closed form; under "
                 "ties='average' a tie that mixes gains, is reached with positive probability "
                 "and has at least two positions in the weighted part of the list raises a "
                 "ValueError naming the query (pass ties='first'). Other ties take the group "
                 "mean gain, which is then exact.")


def check_grade(x):
    """A finite grade (the bottom of the gain scale)."""
    if not is_real(x) or not math.isfinite(x):
        raise ValueError(f"must be a finite number, not {x!r}")
    return float(x)


T_PARAM = Param("T", 1.0, check_positive,
                "T: the gain the user sets out to find, in units of the top grade's gain")
MIN_GRADE = Param("min_grade", 0.0, check_grade,
                  "grades at or below it gain 0 (ir_measures' min_rel)")
MAX_GRADE = Param("max_grade", None, check_positive_or_none,
                  "grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels")
DEPTH = Param("depth", 1000, check_k,
              "length of the list the user model runs over: the ranking cut there and padded "
              "with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end")
NERR_P = Param("p", 0.9, check_p,
               "the patience of NERR10's C_i = p(1 − g_i) (ir_measures' default 0.9)")


def check_inst_T(T):
    """INST's T: a finite number ≥ 1/4, so that every C_i = ((a − 1)/a)², a = i + 2T − G_i ≥
    2T, stays a probability (below, C_i can exceed 1 and the weights overflow)."""
    if not is_real(T) or not math.isfinite(T) or T < 0.25:
        raise ValueError(f"must be a finite number ≥ 1/4 (below, INST's continuation "
                         f"probabilities can exceed 1), not {T!r}")
    return float(T)


INST_T = Param("T", 1.0, check_inst_T,
               "T ≥ 1/4: the gain the user sets out to find, in units of the top grade's gain")


# --------------------------------------------------------------------------- special functions
def trigamma(x: np.ndarray) -> np.ndarray:
    """ψ'(x) = Σ_{m≥0} 1/(x + m)² for x > 0: the recurrence ψ'(x) = ψ'(x + 1) + 1/x² up to
    x ≥ 16, then the asymptotic series (Abramowitz & Stegun 6.4.12) to x^−15 (the next term,
    below 1e-19 there, is left out)."""
    x = np.array(x, dtype=np.float64, copy=True)
    acc = np.zeros_like(x)
    while True:
        low = x < 16.0
        if not low.any():
            break
        acc[low] += 1.0 / (x[low] * x[low])
        x[low] += 1.0
    t = 1.0 / x
    t2 = t * t
    series = t + t2 / 2 + t * t2 * (1 / 6 - t2 * (1 / 30 - t2 * (1 / 42 - t2 * (
        1 / 30 - t2 * (5 / 66 - t2 * (691 / 2730 - t2 * 7 / 6))))))
    return acc + series


def digamma(x: np.ndarray) -> np.ndarray:
    """ψ(x) for x > 0: ψ(x) = ψ(x + 1) − 1/x up to x ≥ 16, then the asymptotic series
    (Abramowitz & Stegun 6.3.18) to x^−12."""
    x = np.array(x, dtype=np.float64, copy=True)
    acc = np.zeros_like(x)
    while True:
        low = x < 16.0
        if not low.any():
            break
        acc[low] -= 1.0 / x[low]
        x[low] += 1.0
    t2 = 1.0 / (x * x)
    series = np.log(x) - 0.5 / x - t2 * (1 / 12 - t2 * (1 / 120 - t2 * (1 / 252 - t2 * (
        1 / 240 - t2 * (1 / 132 - t2 * 691 / 32760)))))
    return acc + series


# ψ'(x) ~ Σ_k c_k x^−k (Abramowitz & Stegun 6.4.12), k = 1 … 15
_TRIGAMMA_SERIES = (1.0, 1 / 2, 1 / 6, 0.0, -1 / 30, 0.0, 1 / 42, 0.0, -1 / 30, 0.0, 5 / 66, 0.0,
                    -691 / 2730, 0.0, 7 / 6)


def padding_sum(a, L) -> np.ndarray:
    """P(a, L) = Σ_{m=0}^{L−1} (a/(a + m))² = a² (ψ'(a) − ψ'(a + L)) for a > 0, L ≥ 0 (inf: no
    end): the sum of the E_i of a gain-0 padding, relative to the first, for the measures
    whose C_i = ((j − 1)/j)² with j growing by 1 a position (INSQ, NERR11, INST past the
    ranking). Never formed as a difference of two trigammas, which cancels for large a:
    P(a, L) = 1 − (a/(a + L))² + (a/(a + 1))² P(a + 1, L) up to a ≥ 16, then the series
    termwise, c_k a^(2−k) (1 − (a/(a + L))^k), the bracket as −expm1(−k log1p(L/a))."""
    a = np.array(a, dtype=np.float64, copy=True)
    L = np.broadcast_to(np.asarray(L, dtype=np.float64), a.shape).copy()
    acc, scale = np.zeros_like(a), np.ones_like(a)
    while True:
        low = (a < 16.0) & (L > 0)
        if not low.any():
            break
        al, Ll = a[low], L[low]
        acc[low] += scale[low] * (1.0 - (al / (al + Ll)) ** 2)
        scale[low] *= (al / (al + 1.0)) ** 2
        a[low] += 1.0
    with np.errstate(invalid="ignore"):
        log_ratio = np.log1p(L / a)  # inf for L = inf
    series = np.zeros_like(a)
    for k, c in enumerate(_TRIGAMMA_SERIES, start=1):
        if c:
            series += c * a ** (2.0 - k) * -np.expm1(-k * log_ratio)
    return acc + scale * np.where(L > 0, series, 0.0)


def _harmonic_sum(lo: np.ndarray, hi) -> np.ndarray:
    """Σ_{i=lo+1}^{hi} 1/i (0 when hi ≤ lo); hi = None diverges (inf)."""
    lo = np.asarray(lo, dtype=np.float64)
    if hi is None:
        return np.full(lo.shape, np.inf)
    hi = np.maximum(float(hi), lo)
    return np.maximum(digamma(hi + 1.0) - digamma(lo + 1.0), 0.0)


_TABLE = 1 << 22  # SDCG's normaliser is summed term by term up to here


def _exponential_integral(t: float) -> float:
    """Ei(t) for t > 0: γ + ln t + Σ_{k≥1} t^k/(k·k!) (all terms positive)."""
    total, term, k = 0.0, 1.0, 0
    while True:
        k += 1
        term *= t / k
        total += term / k
        if term / k < 1e-17 * total:
            break
    return 0.5772156649015329 + math.log(t) + total


def sdcg_normaliser(M) -> float:
    """Σ_{i=1}^{M} 1/log2(i + 1): summed directly up to 2^22, beyond by Euler–Maclaurin with
    ∫ ln 2/ln(x + 1) dx = ln 2 · li(x + 1), li(y) = Ei(ln y) (the next correction, ~f'''/720,
    is below 1e-25 there); None → inf."""
    if M is None:
        return math.inf
    head = min(int(M), _TABLE)
    total = float(np.sum(1.0 / np.log2(np.arange(2, head + 2, dtype=np.float64))))
    if M <= _TABLE:
        return total
    a, b = float(_TABLE + 1), float(M)  # Σ_{i=a}^{b} f(i), f(x) = ln 2/ln(x + 1)
    ln2 = math.log(2.0)

    def f(x):
        return ln2 / math.log(x + 1.0)

    def df(x):
        return -ln2 / ((x + 1.0) * math.log(x + 1.0) ** 2)

    integral = ln2 * (_exponential_integral(math.log(b + 1.0))
                      - _exponential_integral(math.log(a + 1.0)))
    return total + integral + (f(a) + f(b)) / 2 + (df(b) - df(a)) / 12


# --------------------------------------------------------------------------- shared pieces
def cwl_gains(prep: Prepared, min_grade: float, max_grade, name: str) -> np.ndarray:
    """g = (clip(grade, min_grade, max_grade) − min_grade)/(max_grade − min_grade) per row,
    negative grades as 0 first, unjudged 0 (ir_measures' cwl_eval gains)."""
    if max_grade is not None and max_grade <= min_grade:
        raise ParameterError(f"{name}: max_grade={max_grade:g} must exceed min_grade="
                             f"{min_grade:g} (gains run from 0 at min_grade to 1 at max_grade)")
    top = float(prep.max_grade) if max_grade is None else float(max_grade)
    if top <= min_grade:  # no grade above the bottom of the scale: nothing gains
        return np.zeros(len(prep.grade))
    grade = np.where(np.isnan(prep.grade), min_grade, np.maximum(prep.grade, 0.0))
    return (np.clip(grade, min_grade, top) - min_grade) / (top - min_grade)


def _window(prep: Prepared, M):
    """Rows at positions ≤ M (all for None) and each ranking's length n' = min(n, M)."""
    if M is None:
        return np.arange(len(prep.seg)), prep.length.astype(np.float64)
    rows = np.flatnonzero(prep.pos <= M)
    return rows, np.minimum(prep.length, M).astype(np.float64)


def _m(k, depth):
    """The last weighted position: min(k, depth), None when both are None."""
    known = [v for v in (k, depth) if v is not None]
    return min(known) if known else None


def _refuse_mixed(prep: Prepared, g: np.ndarray, reached: np.ndarray, M, name: str,
                  why: str) -> None:
    """Under ties="average": raise for a tie group whose gains differ, that the user reaches
    (``reached``: per group) and that has at least two positions ≤ M."""
    if prep.ties != "average" or prep.singleton_groups:
        return
    mixed = mixed_groups(prep, g)
    if M is not None:
        mixed &= prep.g_start + 2 <= M
    require_order_free(prep, mixed & reached, name, why)


def _cascade_value(prep: Prepared, name: str, raw: np.ndarray, g_rows: np.ndarray,
                   rows: np.ndarray, discount: np.ndarray, tail, M) -> np.ndarray:
    """M = Σ_i E_i g_i / Σ_i E_i with E_i = discount_i · Π_{j<i}(1 − g_j) over the rows of the
    window (``discount`` per row), plus the gain-0 padding from n' + 1 to M, whose E_i sum is
    Π_{j≤n'}(1 − g_j) · tail(n') (``tail``: per segment). ``raw``: every row's own gain (the
    tie test), ``g_rows``: the window's gains, tie-group means under ties="average"."""
    seg = prep.seg[rows]
    before, through, _ = _segment_scan_product(1.0 - g_rows, seg, prep.n_segments)
    if prep.ties == "average" and not prep.singleton_groups:
        reached = np.zeros(prep.n_groups, dtype=bool)
        first = prep.group_first_row
        # a group's first row: its E before it (groups beyond the window count as unreached)
        at = np.full(len(prep.seg), -1, dtype=np.int64)
        at[rows] = np.arange(len(rows))
        inside = at[first] >= 0
        reached[inside] = before[at[first[inside]]] > 0
        _refuse_mixed(prep, raw, reached, M, name,
                      "its weights are normalised by a sum that the order changes")
    E = discount * before
    num = np.bincount(seg, weights=E * g_rows, minlength=prep.n_segments)
    den = np.bincount(seg, weights=E, minlength=prep.n_segments)
    with np.errstate(invalid="ignore"):
        den = den + np.where(through > 0, through * tail, 0.0)
        return np.where(np.isinf(den), 0.0, num / den)


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


# --------------------------------------------------------------------------- NERR
def _nerr(prep: Prepared, name: str, min_grade, max_grade, M, discount, tail) -> np.ndarray:
    rows, n = _window(prep, M)
    raw = cwl_gains(prep, min_grade, max_grade, name)
    g = prep.group_mean(raw)[rows]
    i = prep.pos[rows].astype(np.float64)
    return _cascade_value(prep, name, raw, g, rows, discount(i), tail(n), M)


def _nerr_ties(eq: str) -> str:
    return ADAPTIVE_TIES.format(what=f" (eq. ({eq}) is normalised by Σ E_i, which the order "
                                     "of a tie changes)")


@register("nerr8", params=(K, MIN_GRADE, MAX_GRADE, DEPTH),
          citation=NERR_PAPER + ", eq. (8); " + CWL + ".", undefined=UNDEFINED,
          ties=_nerr_ties("8"),
          ir_measures="NERR8")
def nerr8(prep: Prepared, level: float, k=None, min_grade=0.0, max_grade=None,
          depth=1000) -> np.ndarray:
    """NERR, eq. (8) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): the C/W/L measure closest
    to ERR@k with C_i = 1 − g_i for i < k and 0 at k, so E_i = Π_{j<i}(1 − g_j) for i ≤ k and

        NERR8@k = Σ_{i≤k} g_i Π_{j<i}(1 − g_j) / Σ_{i≤k} Π_{j<i}(1 − g_j),

    ERR's stopping probabilities without its 1/i, rescaled by the expected number of
    documents read (gains in [0, 1], module docstring; k cut at ``depth``).

    >>> from trunc_accessor.frontends.single import nerr8
    >>> round(nerr8([0, 1, 0], k=3, max_grade=2), 6)  # g = 0, 1/2, 0; E = 1, 1, 1/2
    0.2
    >>> round(nerr8([0, 1, 0], k=10, max_grade=2), 6)  # padded to 10: E_4..E_10 = 1/2
    0.083333
    """
    M = _m(k, depth)

    def tail(n):
        return np.full(n.shape, np.inf) if M is None else np.maximum(M - n, 0.0)

    return _nerr(prep, "nerr8", min_grade, max_grade, M, np.ones_like, tail)


@register("nerr9", params=(K, MIN_GRADE, MAX_GRADE, DEPTH),
          citation=NERR_PAPER + ", eq. (9); " + CWL + ".", undefined=UNDEFINED,
          ties=_nerr_ties("9"),
          ir_measures="NERR9")
def nerr9(prep: Prepared, level: float, k=None, min_grade=0.0, max_grade=None,
          depth=1000) -> np.ndarray:
    """NERR, eq. (9) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): C_i = (i/(i + 1))(1 −
    g_i) for i < k, 0 at k, so E_i = (1/i) Π_{j<i}(1 − g_j) (ERR's 1/i discount inside the
    weights) and NERR9@k = Σ_{i≤k} E_i g_i / Σ_{i≤k} E_i (k cut at ``depth``; the padding's
    E_i sum to Π_{j≤n}(1 − g_j)(H_k − H_n), H the harmonic numbers).

    >>> from trunc_accessor.frontends.single import nerr9
    >>> round(nerr9([0, 1, 0], k=3, max_grade=2), 6)  # E = 1, 1/2, 1/6: (1/4)/(5/3)
    0.15
    """
    M = _m(k, depth)
    return _nerr(prep, "nerr9", min_grade, max_grade, M, lambda i: 1.0 / i,
                 lambda n: _harmonic_sum(n, M))


@register("nerr10", params=(NERR_P, MIN_GRADE, MAX_GRADE, DEPTH),
          citation=NERR_PAPER + ", eq. (10); " + CWL + ".", undefined=UNDEFINED,
          ties=_nerr_ties("10"),
          ir_measures="NERR10")
def nerr10(prep: Prepared, level: float, p=0.9, min_grade=0.0, max_grade=None,
           depth=1000) -> np.ndarray:
    """NERR, eq. (10) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): RBP's patience inside
    ERR's cascade, C_i = p(1 − g_i), E_i = p^(i−1) Π_{j<i}(1 − g_j), NERR10 = Σ E_i g_i /
    Σ E_i over the ``depth`` positions (the padding: Π_{j≤n}(1 − g_j) p^n (1 − p^(depth −
    n))/(1 − p)).

    >>> from trunc_accessor.frontends.single import nerr10
    >>> round(nerr10([0, 1], p=0.5, max_grade=1), 6)  # E = 1, 1/2, then 0: (1/2)/(3/2)
    0.333333
    """
    def tail(n):
        head = np.power(p, n)
        return head / (1 - p) if depth is None else head * -np.expm1(
            (depth - np.minimum(n, depth)) * math.log(p)) / (1 - p)

    return _nerr(prep, "nerr10", min_grade, max_grade, depth,
                 lambda i: np.power(p, i - 1.0), tail)


@register("nerr11", params=(T_PARAM, MIN_GRADE, MAX_GRADE, DEPTH),
          citation=NERR_PAPER + ", eq. (11); " + CWL + ".", undefined=UNDEFINED,
          ties=_nerr_ties("11"),
          ir_measures="NERR11")
def nerr11(prep: Prepared, level: float, T=1.0, min_grade=0.0, max_grade=None,
           depth=1000) -> np.ndarray:
    """NERR, eq. (11) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): INSQ's patience inside
    ERR's cascade, C_i = ((i + 2T − 1)/(i + 2T))² (1 − g_i), E_i = (2T/(i − 1 + 2T))²
    Π_{j<i}(1 − g_j), NERR11 = Σ E_i g_i / Σ E_i over the ``depth`` positions (the padding:
    Π_{j≤n}(1 − g_j)(2T)² (ψ'(n + 2T) − ψ'(depth + 2T)), ψ' the trigamma function).

    >>> from trunc_accessor.frontends.single import nerr11
    >>> round(nerr11([0, 1, 0], T=2.0, max_grade=1), 6)  # E = 1, 16/25, then 0: 16/41
    0.390244
    """
    def tail(n):  # (2T)² Σ_{m=n}^{depth−1} 1/(m + 2T)²
        a = 2 * T
        return (a / (a + n)) ** 2 * padding_sum(
            a + n, np.inf if depth is None else np.maximum(depth - n, 0.0))

    return _nerr(prep, "nerr11", min_grade, max_grade, depth,
                 lambda i: (2 * T / (i - 1 + 2 * T)) ** 2, tail)


# --------------------------------------------------------------------------- Accuracy
@register("accuracy", params=(K,),
          citation="ir_measures' Accuracy (MacAvaney, Macdonald & Ounis, 'Streamlining "
                   "evaluation with ir-measures', ECIR 2022): the pairwise accuracy of the "
                   "ranking on its relevant and non-relevant documents.",
          undefined=("Undefined when the top k holds no relevant document (so whenever R = 0) "
                     "or no non-relevant one (so for an empty ranking): there is no pair to "
                     "order. ir_measures leaves out "
                     "the first case and fails with a division by zero in the second."),
          ties=("Exact: a pair inside a tie group is in order with probability 1/2; when k "
                "cuts a tie group that mixes relevant and non-relevant documents, the number "
                "of its relevant documents above k is hypergeometric and the value is averaged "
                "over it (refused, naming the query, when some of those cases are undefined "
                "and others are not)."),
          ir_measures="Accuracy")
def accuracy(prep: Prepared, level: float, k=None) -> np.ndarray:
    """Pairwise accuracy of the top k: the share of (relevant, non-relevant) pairs among the
    retrieved documents in which the relevant one is ranked first,

        Accuracy@k = 1 − D / (r·u),

    r and u the relevant and non-relevant (unjudged included) documents in the top k and D
    the pairs with the non-relevant one above (ir_measures' Accuracy, a diagnostic of
    learning to rank; it ignores the relevant documents not retrieved). Relevant: grade ≥
    relevance_level (ir_measures' rel).

    >>> from trunc_accessor.frontends.single import accuracy
    >>> accuracy([0, 1, 1, 0])  # pairs (r, u): 2 of 4 in order
    0.5
    >>> accuracy([1, 0], scores=[1, 1])  # one tied pair: in order half the time
    0.5
    """
    rel = prep.relevant(level)
    inside = np.ones(len(rel), dtype=bool) if k is None else prep.pos <= k
    non = (1.0 - rel) * inside
    rel = rel * inside
    r = prep.seg_sum(rel)
    u = prep.seg_sum(non)
    # D: for each relevant document, the non-relevant ones above it; a tie group's own pairs
    # are in order half the time
    g_rel, g_non = prep.group_sum(rel), prep.group_sum(non)
    D_groups = g_rel * prep.before_group(g_non) + g_rel * g_non / 2.0
    cut = np.zeros(prep.n_groups, dtype=bool)
    if k is not None and not prep.singleton_groups:
        cut = (prep.g_start < k) & (prep.g_start + prep.g_size > k)
        full_rel = prep.group_sum(prep.relevant(level))
        cut &= (full_rel > 0) & (full_rel < prep.g_size)
    D = np.bincount(prep.g_seg, weights=np.where(cut, 0.0, D_groups),
                    minlength=prep.n_segments)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(r * u > 0, 1.0 - D / np.where(r * u > 0, r * u, 1.0), np.nan)
    if cut.any():
        value = _accuracy_cut(prep, level, k, cut, value, r, u, D, g_non)
    return value


def _accuracy_cut(prep: Prepared, level, k, cut, value, r, u, D, g_non):
    """Accuracy of the rankings whose k-th position splits a tie group of a relevant and b
    non-relevant documents: j of its relevant documents above k (t = k − s positions) has
    probability C(a, j) C(b, t − j)/C(a + b, t); given j, the value is 1 − (D₀ + u₀ j +
    j(t − j)/2)/((r₀ + j)(u₀ + t − j)), (r₀, u₀, D₀) what lies above the group."""
    groups = np.flatnonzero(cut)
    seg = prep.g_seg[groups]
    full_rel = prep.group_sum(prep.relevant(level))[groups]
    m = prep.g_size[groups].astype(np.int64)
    a = full_rel.astype(np.int64)
    b = m - a
    t = (k - prep.g_start[groups]).astype(np.int64)
    # what lies above the group, within the cut: r, u and D less the group's own share
    inside_rel = prep.group_sum(prep.relevant(level) * (prep.pos <= k))[groups]
    r0 = r[seg] - inside_rel
    u0 = u[seg] - g_non[groups]
    D0 = D[seg]
    lo = np.maximum(0, t - b)
    hi = np.minimum(a, t)
    count = hi - lo + 1
    owner = np.repeat(np.arange(len(groups)), count)
    j = lo[owner] + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    lf = log_factorials(int(m.max()))
    aa, bb, mm, tt = a[owner], b[owner], m[owner], t[owner]
    logp = (lf[aa] - lf[j] - lf[aa - j] + lf[bb] - lf[tt - j] - lf[bb - tt + j]
            - lf[mm] + lf[tt] + lf[mm - tt])
    prob = np.exp(logp)
    rr = r0[owner] + j
    uu = u0[owner] + tt - j
    DD = D0[owner] + u0[owner] * j + j * (tt - j) / 2.0
    defined = rr * uu > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(defined, 1.0 - DD / np.where(defined, rr * uu, 1.0), 0.0)
    n_def = np.bincount(owner, weights=defined.astype(np.float64), minlength=len(groups))
    partly = (n_def > 0) & (n_def < count)
    if partly.any():
        where = ", ".join(f"{key}={val!r}" for key, val in
                          prep.keys.row(int(seg[np.argmax(partly)]), named=True).items())
        raise ParameterError(
            f"accuracy@{k} with ties='average': the ranking of {where} ties, across the "
            "cut-off, documents whose order decides whether the top k holds both a relevant "
            "and a non-relevant document, so the value is undefined in some orders of the tie "
            "and not in others. Pass ties='first' (the order as given) or ties='trec_eval'.")
    mean = np.bincount(owner, weights=prob * v, minlength=len(groups))
    out = value.copy()
    out[seg] = np.where(n_def > 0, mean, np.nan)
    return out
