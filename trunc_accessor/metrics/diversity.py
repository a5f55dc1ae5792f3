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
have a ``weight`` column (one weight ≥ 0 per qid and subtopic, e.g. NTCIR's intent
probabilities): each subtopic's terms are then multiplied by its weight, scaled so that the
weights of the query's S subtopics sum to S (the intent-aware forms of Agrawal et al., WSDM
2009: Σ_s P(s|q)·measure_s, and a weighted greedy ideal).

Ties (``ties="average"``): every measure is the exact mean over the orders of tied
documents. The documents relevant to s in a tie group of n documents (t before it) occupy
a uniformly random subset of its positions, so the i-th of them (i = 0, 1, …) lies at
position t + j with probability C(j−1, i)·C(n−j, k−1−i)/C(n, k) (k of them, c_s before the
group) and contributes (1 − α)^{c_s + i} times the weight of that position: a sum over the
group's positions and the k documents, per tie group and subtopic.
"""
from __future__ import annotations

import numpy as np

from ..core.aspects import Aspects
from ..core.prepare import Prepared
from ..core.registry import K, Param, ParameterError, check_unit, register
from ._combinatorics import comb_ratio, log_factorials
from ._kernels import safe_div

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


# --------------------------------------------------------------------------- pairs
def _pairs(prep: Prepared, level: float, name: str) -> _Pairs:
    """The call's :class:`_Pairs` at a level, built once for every diversity measure."""
    key = ("diversity_pairs", level)
    if key not in prep._cache:
        prep._cache[key] = _Pairs(prep, level, name)
    return prep._cache[key]


class _Pairs:
    """The (row, subtopic) pairs relevant at a level, sorted by (segment, subtopic, row),
    with what every diversity kernel needs (see the module docstring)."""

    def __init__(self, prep: Prepared, level: float, name: str):
        a = prep.aspects
        if not isinstance(a, Aspects):
            raise ParameterError(
                f"{name} needs diversity qrels: a qrels frame with a subtopic column (named "
                "subtopic, iteration, intent or aspect; read_qrels(path, subtopics=True) reads "
                "TREC diversity files, whose second field holds the subtopic)")
        keep = a.rel >= level
        row, code = a.row[keep], a.code[keep]
        seg = prep.seg[row]
        order = np.lexsort((row, code, seg))
        self.row, self.code, self.seg = row[order], code[order], seg[order]
        self.pos = prep.pos[self.row].astype(np.float64)
        n_q = len(prep.q_offsets) - 1
        judged = a.j_rel >= level
        self.nrel = np.bincount(a.j_code[judged], minlength=a.n_codes).astype(np.float64)
        active = (self.nrel > 0).astype(np.float64)
        per_q = np.bincount(a.code_q, weights=active, minlength=n_q)
        self.S = per_q[prep.seg_q]  # the subtopics with a relevant document, per segment
        # each subtopic's weight, scaled to sum to S over the query's active subtopics
        # (1 each without a weight column, as ndeval's uniform weights)
        self.code_wt = np.ones(a.n_codes)
        if a.code_w is not None:
            total = np.bincount(a.code_q, weights=a.code_w * active, minlength=n_q)
            with np.errstate(invalid="ignore", divide="ignore"):
                self.code_wt = a.code_w * per_q[a.code_q] / total[a.code_q]
        # blocks of equal (segment, subtopic): the index of each pair inside its block
        key = self.seg * np.int64(max(a.n_codes, 1)) + self.code
        new = np.ones(len(key), dtype=bool)
        new[1:] = key[1:] != key[:-1]
        self.block_start = np.flatnonzero(new)
        self.block = np.cumsum(new) - 1
        self.index = np.arange(len(key)) - self.block_start[self.block]
        self.key = key
        self.wt = self.code_wt[self.code]


def _decay(alpha: float, n: int) -> np.ndarray:
    """(1 − α)^c for c = 0..n, by repeated multiplication (as ndeval computes it)."""
    out = np.empty(n + 1)
    out[0] = 1.0
    if n:
        out[1:] = 1.0 - alpha
        np.cumprod(out[1:], out=out[1:])
    return out


def _gain_sum(prep: Prepared, p: _Pairs, kind: str, param, alpha: float) -> np.ndarray:
    """:func:`_expected_sum` with the weights of ``kind`` ("dcg" and "rr" with cut-off
    ``param``, "rbp" with patience ``param``), computed once per call and shared (α-DCG and
    α-nDCG, ERR-IA and nERR-IA, NRBP and nNRBP have the same numerator)."""
    key = ("diversity_sum", id(p), kind, param, alpha)
    if key not in prep._cache:
        weight = {"dcg": _dcg_weight, "rr": _rr_weight, "rbp": _rbp_weight}[kind](param)
        prep._cache[key] = _expected_sum(prep, p, weight, alpha)
    return prep._cache[key]


def _expected_sum(prep: Prepared, p: _Pairs, weight, alpha: float) -> np.ndarray:
    """Per segment, Σ over the relevant pairs of (1 − α)^{c_s(i)} · weight(i), its exact mean
    over tie orders (module docstring). ``weight`` maps 1-based positions to weights (0
    beyond a cut-off)."""
    if len(p.row) == 0:
        return np.zeros(prep.n_segments)
    terms = _position_terms(prep, p, alpha)
    return np.bincount(terms[0], weights=weight(terms[1]) * terms[2], minlength=prep.n_segments)


def _position_terms(prep: Prepared, p: _Pairs, alpha: float):
    """(segment, position, coefficient) of every position a relevant pair can occupy, such
    that Σ coefficient · weight(position) per segment is the mean over tie orders of
    Σ (1 − α)^{c_s(i)} · weight(i) for any weights: a pair alone in its tie group has its
    own position and coefficient (1 − α)^{c_s}·w_s; the k pairs of one subtopic in a group
    of n positions (t before it, c before the group) give each position t + j the
    coefficient (k/n)·E[(1 − α)^{c + X}]·w_s, X hypergeometric (module docstring). Weight-free,
    so computed once per call and α."""
    key = ("diversity_terms", id(p), alpha)
    if key in prep._cache:
        return prep._cache[key]
    decay = _decay(alpha, max(len(p.row), 1))
    gid = prep.gid[p.row]
    plain = prep.g_size[gid] == 1
    seg = [p.seg[plain]]
    pos = [p.pos[plain]]
    coef = [decay[p.index[plain]] * p.wt[plain]]
    if not plain.all():
        # blocks of equal (segment, subtopic, tie group) with more than one position
        tied = np.flatnonzero(~plain)
        bkey = p.key[tied] * np.int64(prep.n_groups + 1) + gid[tied]
        first = np.ones(len(tied), dtype=bool)
        first[1:] = bkey[1:] != bkey[:-1]
        heads = tied[first]
        k = np.diff(np.append(np.flatnonzero(first), len(tied)))  # relevant docs in the block
        c0 = p.index[heads]  # relevant docs of the subtopic in earlier groups
        g = gid[heads]
        n, t = prep.g_size[g], prep.g_start[g]
        # cells: the block's positions j = 1..n
        cell = np.repeat(np.arange(len(heads)), n)
        j = np.arange(len(cell)) - np.repeat(np.cumsum(n) - n, n) + 1
        nc, kc = n[cell], k[cell]
        lf = log_factorials(int(n.max()))
        inner = np.zeros(len(cell))
        for x in range(int(k.max())):
            live = (x <= j - 1) & (x <= kc - 1)
            if not live.any():
                break
            # P(x of the other k − 1 lie in the j − 1 positions before j): hypergeometric
            prob = _hypergeom(kc - 1, nc - kc, j - 1, x, lf)
            inner += np.where(live, decay[np.minimum(c0[cell] + x, len(decay) - 1)] * prob, 0.0)
        seg.append(p.seg[heads][cell])
        pos.append((t[cell] + j).astype(np.float64))
        coef.append((kc / nc) * inner * p.wt[heads][cell])
    out = np.concatenate(seg), np.concatenate(pos), np.concatenate(coef)
    prep._cache[key] = out
    return out


def _hypergeom(good: np.ndarray, bad: np.ndarray, draws: np.ndarray, x: int,
               lf: np.ndarray) -> np.ndarray:
    """P(x good items in ``draws`` drawn without replacement from good + bad), elementwise:
    C(good, x)·C(bad, draws − x)/C(good + bad, draws), 0 where impossible."""
    y = draws - x
    ok = (x <= good) & (y >= 0) & (y <= bad)
    gx = np.where(ok, good, 0)
    by = np.where(ok, bad, 0)
    yy = np.where(ok, y, 0)
    xx = np.where(ok, x, 0)
    dd = np.where(ok, draws, 0)
    log = ((lf[gx] - lf[xx] - lf[gx - xx]) + (lf[by] - lf[yy] - lf[by - yy])
           - (lf[gx + by] - lf[dd] - lf[gx + by - dd]))
    return np.where(ok, np.exp(log), 0.0)


def _ideal_gains(prep: Prepared, level: float, alpha: float, wt: np.ndarray) -> np.ndarray:
    """The novelty-discounted gains of ndeval's greedy ideal ranking, one row per scored
    qid (padded with 0): at each position the judged document with the largest gain, ties
    to the largest docid. Computed for every qid at once, one position at a time."""
    cache_key = ("diversity_ideal", level, alpha)
    if cache_key in prep._cache:
        return prep._cache[cache_key]
    a: Aspects = prep.aspects  # type: ignore[assignment]
    n_q = len(prep.q_offsets) - 1
    keep = a.j_rel >= level
    q = a.code_q[a.j_code[keep]]
    doc, code = a.j_doc[keep], a.j_code[keep]
    if len(q) == 0:
        out = np.zeros((n_q, 1))
        prep._cache[cache_key] = out
        return out
    # documents renumbered per qid among the relevant ones (order kept: largest docid first)
    dkey = q * np.int64(doc.max() + 1) + doc
    udoc, dpos = np.unique(dkey, return_inverse=True)
    uq = udoc // (doc.max() + 1)
    d_first = np.searchsorted(uq, np.arange(n_q))
    d_local = dpos - d_first[q]
    s_first = np.searchsorted(a.code_q, np.arange(n_q))
    s_local = code - s_first[q]
    n_docs = np.bincount(uq, minlength=n_q)
    D, S = int(n_docs.max()), int(s_local.max()) + 1
    rel = np.zeros((n_q, D, S))
    rel[q, d_local, s_local] = wt[code]  # 1 each, or the subtopic's scaled weight
    gain = np.ones((n_q, S))
    taken = np.arange(D)[None, :] >= n_docs[:, None]  # padding counts as taken
    out = np.zeros((n_q, D))
    rows = np.arange(n_q)
    for step in range(D):
        score = np.zeros((n_q, D))
        for s in range(S):  # in subtopic order, as ndeval adds them
            score += rel[:, :, s] * gain[:, s][:, None]
        score[taken] = -1.0
        pick = np.argmax(score, axis=1)  # the first maximum: the largest docid
        live = step < n_docs
        out[live, step] = score[rows, pick][live]
        taken[rows[live], pick[live]] = True
        hit = rel[rows, pick] > 0
        gain = np.where(hit & live[:, None], gain * (1.0 - alpha), gain)
    prep._cache[cache_key] = out
    return out


def _ideal_sum(prep: Prepared, level: float, alpha: float, weight) -> np.ndarray:
    """Σ_i g*(i)·weight(i) of the greedy ideal ranking, per segment."""
    gains = _ideal_gains(prep, level, alpha, _pairs(prep, level, "").code_wt)
    w = weight(np.arange(1, gains.shape[1] + 1, dtype=np.float64))
    return (gains * w[None, :]).sum(axis=1)[prep.seg_q]


EXACT_BOUND = 1 << 20  # positions of the ideal-ideal bound summed term by term


def _ideal_ideal(S: np.ndarray, alpha: float, kind: str, depth: np.ndarray) -> np.ndarray:
    """Σ_{i≤depth} S(1 − α)^{i−1}·w(i), w(i) = 1/log2(1 + i) ("dcg") or 1/i ("rr"): a ranking
    relevant to every subtopic at every position, per segment. The first 2^20 positions are
    summed term by term; a deeper bound (a cut-off such as k = 10^9) adds the tail by the
    Euler–Maclaurin formula, whose integral is taken by Gauss–Legendre quadrature in log x
    (the terms are smooth and slowly varying there: the error is far below a float's)."""
    if not len(depth):
        return np.zeros(0)
    top = int(min(depth.max(), EXACT_BOUND))
    pos = np.arange(1, top + 1, dtype=np.float64)
    w = (np.log(2.0) / np.log(pos + 1.0)) if kind == "dcg" else 1.0 / pos
    cum = np.concatenate([[0.0], np.cumsum(_decay(alpha, max(top - 1, 0))[:top] * w)])
    out = cum[np.minimum(depth, top).astype(np.int64)]
    deep = depth > EXACT_BOUND
    if deep.any():
        out = out.copy()
        out[deep] += _tail(alpha, kind, float(EXACT_BOUND), depth[deep].astype(np.float64))
    return S * out


def _tail(alpha: float, kind: str, m: float, b: np.ndarray) -> np.ndarray:
    """Σ_{m < i ≤ b} (1 − α)^{i−1}·w(i) for m ≥ 2^20 by Euler–Maclaurin: ∫_m^b f +
    (f(b) − f(m))/2 + (f'(b) − f'(m))/12 (the next term is below 10^-30 of the sum here)."""
    log_keep = np.log1p(-alpha) if alpha < 1 else -np.inf

    def f(x):
        w = np.log(2.0) / np.log(x + 1.0) if kind == "dcg" else 1.0 / x
        with np.errstate(invalid="ignore"):
            return np.where(np.isneginf(log_keep), 0.0, np.exp((x - 1.0) * log_keep) * w)

    def df(x):
        if kind == "dcg":
            dw = -np.log(2.0) / ((x + 1.0) * np.log(x + 1.0) ** 2)
            w = np.log(2.0) / np.log(x + 1.0)
        else:
            dw, w = -1.0 / x ** 2, 1.0 / x
        decay = np.where(np.isneginf(log_keep), 0.0, np.exp((x - 1.0) * log_keep))
        return decay * (dw + (0.0 if np.isneginf(log_keep) else log_keep) * w)

    if f(np.array(m)) == 0:  # the terms have underflowed: nothing beyond
        return np.zeros(len(b))
    nodes, weights = np.polynomial.legendre.leggauss(96)
    lo, hi = np.log(m), np.log(b)
    half, mid = (hi - lo) / 2, (hi + lo) / 2
    u = mid[:, None] + half[:, None] * nodes[None, :]
    x = np.exp(u)
    integral = (half[:, None] * weights[None, :] * f(x) * x).sum(axis=1)
    return integral + (f(b) - f(np.array(m))) / 2 + (df(b) - df(np.array(m))) / 12
def _dcg_weight(k):
    def w(pos):
        return np.where(pos <= (k if k is not None else np.inf), np.log(2.0) / np.log(pos + 1.0), 0.0)
    return w


def _rr_weight(k):
    def w(pos):
        return np.where(pos <= (k if k is not None else np.inf), 1.0 / pos, 0.0)
    return w


def _rbp_weight(beta):
    def w(pos):
        return np.power(beta, pos - 1.0)
    return w


def _depth(prep: Prepared, k) -> np.ndarray:
    """The depth of the ideal-ideal bound: k, or each ranking's length for k=None."""
    return prep.length.astype(np.float64) if k is None else np.full(prep.n_segments, float(k))


# --------------------------------------------------------------------------- measures
@register("alpha_ndcg", subtopics=True, params=(K, ALPHA), aliases=("alpha-nDCG", "alpha_nDCG", "a-ndcg"),
          citation=CLARKE_2008 + ", eq. 5-6; normalisation by " + NDEVAL + "'s greedy ideal.",
          undefined=UNDEF_IDEAL, ties=TIES)
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
          undefined=UNDEF, ties=TIES)
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
    return safe_div(dcg, _ideal_ideal(p.S, alpha, "dcg", _depth(prep, k)))


@register("err_ia", subtopics=True, params=(K, ALPHA), aliases=("ERR-IA", "ERR_IA"),
          citation=CHAPELLE_2009 + ", §5 (intent-aware ERR); " + NDEVAL + "'s form and "
          "ideal-ideal normalisation.", undefined=UNDEF, ties=TIES)
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
    return safe_div(err, _ideal_ideal(p.S, alpha, "rr", _depth(prep, k)))


@register("nerr_ia", subtopics=True, params=(K, ALPHA), aliases=("nERR-IA", "nERR_IA"),
          citation=CHAPELLE_2009 + ", §5; " + NDEVAL + "'s greedy-ideal normalisation.",
          undefined=UNDEF_IDEAL, ties=TIES)
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
          citation=CLARKE_2009 + ", eq. 6; " + NDEVAL + ".", undefined=UNDEF, ties=TIES)
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
          undefined=UNDEF_IDEAL, ties=TIES)
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
          citation=AGRAWAL_2009 + ", §6 (intent-aware precision, uniform subtopic weights); " + NDEVAL + ".",
          undefined=UNDEF + " With k=None also for an empty ranking (0/0).",
          ties="Exact, as precision@k: a tie group cut by k counts the share (k − t)/n of it.")
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


@register("s_recall", subtopics=True, params=(K,), aliases=("strec", "StRecall", "S-recall", "subtopic_recall"),
          citation=ZHAI_2003 + ", §3 (S-recall); " + NDEVAL + ".", undefined=UNDEF,
          ties=("Exact: a subtopic first met in a tie group cut by k (n documents, t before "
                "it, m of them relevant to it) is covered with probability "
                "1 − C(n − m, k − t)/C(n, k − t)."))
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
          citation=AGRAWAL_2009 + ", §6 (intent-aware MAP, uniform subtopic weights); " + NDEVAL + ".",
          undefined=UNDEF,
          ties=("Exact (McSherry & Najork, ECIR 2008, §2.4, per subtopic): a tie group of n "
                "documents, t before it, k relevant to s and c earlier ones, adds "
                "(k/n) Σ_{j=t+1}^{t+n} (c + 1 + (j − t − 1)(k − 1)/(n − 1))/j."))
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
