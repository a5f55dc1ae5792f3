"""Expected exposure (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020): EE-D
(disparity), EE-R (relevance) and EE-L (loss), with the RBP and GERR user models, complete or
incomplete judgments, normalised by expeval's bounds or not, as the authors' reference
implementation (diazf/expeval) computes them.

Through the registry (``run.ir.ee_l(qrels)``, ``evaluate(qrels, ["ee_l(model=rbp)"])``)
a run with a ``sample`` column is a stochastic policy: each (query, sample) one sampled
ranking (the preparation's per-row ``sample`` and ``doc`` codes), a document's exposure the
mean over the query's samples; without one, each ranking is a deterministic policy
(expeval with one sample per query). Under ``ties="average"`` a tie group is a uniformly
random order of its documents, so each document's exposure is its expected exposure over
the orders (the mean over the group's positions). Groups of documents, the exposure
vectors and the TREC Fair 2022 semantics are
``trunc_accessor.metrics.exposure_frames`` (``ta.expected_exposure``).
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics import _exposure
from trunc_accessor.metrics._order import require_order_free
from trunc_accessor.metrics.params import Param, check_bool, check_p, check_unit
from trunc_accessor.metrics.registry import register

CITATION = ("F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette. Evaluating "
            "stochastic rankings with expected exposure. CIKM 2020; the authors' expeval "
            "(github.com/diazf/expeval).")
UNDEFINED = ("Undefined for a query without a candidate document (R = 0 with incomplete "
             "judgments; expeval skips it). An empty ranking (a query the run does not "
             "answer) takes EE-D at its upper bound and EE-R at its lower bound, as "
             "expeval does, and EE-L = ‖ε*‖², the loss of exposing nothing.")
TIES = ("Exact: a tie group is a uniformly random order of its documents and each gets its "
        "expected exposure over those orders (RBP; GERR when the group's documents are all "
        "relevant or all not). GERR refuses a tie of relevant and non-relevant documents.")


def _check_model(x):
    if x not in _exposure.MODELS:
        raise ValueError(f"must be one of {_exposure.MODELS}, not {x!r}")
    return x


MODEL = Param("model", "gerr", _check_model,
              "user model: 'gerr' (p^i·(1 − u)^(relevant above)) or 'rbp' (p^i)")
PATIENCE = Param("p", 0.5, check_p, "patience: the probability of going on to the next rank "
                 "(expeval's -p, default 0.5)")
UTILITY = Param("u", 0.5, check_unit, "GERR's utility: the probability of stopping after a "
                "relevant document (expeval's -r, default 0.5)")
COMPLETE = Param("complete", False, check_bool,
                 "True: every judged document is a candidate (expeval -C, reranking); False: "
                 "the relevant documents of an unbounded collection")
NORMALIZE = Param("normalize", True, check_bool,
                  "True: (value − lower bound)/(upper − lower), expeval's bounds (expeval's "
                  "default; -U: False)")
BINARIZE = Param("binarize", False, check_bool,
                 "True: every relevant grade is one level (expeval -B)")
PARAMS = (MODEL, PATIENCE, UTILITY, COMPLETE, NORMALIZE, BINARIZE)


def model_of(model: str, p: float, u: float, complete: bool) -> _exposure.Model:
    return _exposure.Model(model, p, u, complete)


def candidates(grade: np.ndarray, level: float, complete: bool,
               binarize: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which judged documents are candidates, their level keys and relevance."""
    with np.errstate(invalid="ignore"):
        rel = grade >= level
    kept = ~np.isnan(grade) if complete else rel
    key = np.where(binarize & rel, np.inf, grade)
    return kept, key, rel


def lookup(tq: np.ndarray, tkey: np.ndarray, tval: np.ndarray, q: np.ndarray,
           key: np.ndarray) -> np.ndarray:
    """The value of (q, key) in the table (tq, tkey) → tval (0 when absent)."""
    out = np.zeros(len(q))
    if not len(q) or not len(tq):
        return out
    allq = np.concatenate([tq, q])
    allk = np.concatenate([tkey, key])
    table = np.concatenate([np.ones(len(tq), dtype=np.int8), np.zeros(len(q), dtype=np.int8)])
    order = np.lexsort((-table, allk, allq))  # a table row before the rows it serves
    is_table = table[order] == 1
    last = np.maximum.accumulate(np.where(is_table, np.arange(len(order)), -1))
    src = order[np.maximum(last, 0)]
    hit = (last >= 0) & (allq[src] == allq[order]) & (allk[src] == allk[order])
    vals = np.where(hit, np.concatenate([tval, np.zeros(len(q))])[src], 0.0)
    rows = ~is_table
    out[order[rows] - len(tq)] = vals[rows]
    return out


def _rankings(prep: Prepared) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows in the order of their rankings (each sample of a segment in ranking order;
    a run without samples: as prepared), each row's ranking, its 0-based position there and
    its document's code."""
    n = len(prep.seg)
    if "sample" not in prep.extra:
        order = np.arange(n)
        return order, prep.seg, prep.pos - 1, order
    sample, doc = prep.extra["sample"][0], prep.extra["doc"][0]
    order = np.lexsort((np.arange(n), sample, prep.seg))
    seg, smp = prep.seg[order], sample[order]
    new = np.r_[True, (seg[1:] != seg[:-1]) | (smp[1:] != smp[:-1])] if n else \
        np.zeros(0, dtype=bool)
    ranking = np.cumsum(new) - 1
    pos0 = np.arange(n) - np.flatnonzero(new)[ranking]
    return order, ranking, pos0, doc[order].astype(np.int64)


def _tie_groups(prep: Prepared, order: np.ndarray, ranking: np.ndarray) -> np.ndarray | None:
    """Each ordered row's tie group within its ranking (None: every row its own)."""
    if prep.singleton_groups:
        return None
    gid = prep.gid[order]
    new = np.r_[True, (ranking[1:] != ranking[:-1]) | (gid[1:] != gid[:-1])]
    return np.cumsum(new) - 1


def _measures(prep: Prepared, level: float, model: str, p: float, u: float, complete: bool,
              binarize: bool, name: str) -> _exposure.Measures:
    m = model_of(model, p, u, complete)
    kept, key, rel = candidates(prep.q_grades, level, complete, binarize)
    jq = prep.q_seg[kept]
    tg = _exposure.targets(jq, key[kept], rel[kept], len(prep.q_offsets) - 1, m)
    order, ranking, pos0, doc = _rankings(prep)
    r_kept, r_key, r_rel = (a[order] for a in candidates(prep.grade, level, complete, binarize))
    seg = prep.seg[order]
    e = _exposure.position_exposure(ranking, pos0, r_rel.astype(np.float64), m)
    groups = _tie_groups(prep, order, ranking)
    if groups is not None:
        if model == "gerr":
            lo = np.minimum.reduceat(r_rel, np.r_[0, np.flatnonzero(np.diff(groups)) + 1])
            hi = np.maximum.reduceat(r_rel, np.r_[0, np.flatnonzero(np.diff(groups)) + 1])
            mixed = np.zeros(prep.n_groups, dtype=bool)
            first = np.r_[0, np.flatnonzero(np.diff(groups)) + 1]
            mixed[prep.gid[order][first][lo != hi]] = True
            require_order_free(prep, mixed, name,
                               "GERR's exposure depends on the relevant documents above")
        e = (np.bincount(groups, weights=e) / np.bincount(groups))[groups]
    if len(seg):
        first = np.r_[True, ranking[1:] != ranking[:-1]]
        e = e / np.bincount(seg[first], minlength=prep.n_segments)[seg]
    t = lookup(jq, key[kept], tg.t, np.where(r_kept, prep.seg_q[seg], -1), r_key)
    pair = seg * (int(doc.max()) + 1 if len(doc) else 1) + doc
    codes, first_row, item = np.unique(pair, return_index=True, return_inverse=True)
    exposure = np.bincount(item, weights=e, minlength=len(codes))
    return _exposure.documents(tg, prep.seg_q, seg[first_row], t[first_row], exposure,
                               prep.length > 0, m)


def _kernel(name: str):
    def kernel(prep: Prepared, level: float, model="gerr", p=0.5, u=0.5, complete=False,
               normalize=True, binarize=False) -> np.ndarray:
        if model == "rbp" and u != UTILITY.default:
            raise ParameterError(f"{name}: u is GERR's utility; model='rbp' takes none")
        return _measures(prep, level, model, p, u, complete, binarize, name).get(name, normalize)
    return kernel


@register("ee_d", params=PARAMS, citation=CITATION, undefined=UNDEFINED, ties=TIES,
          samples=True)
def ee_d(prep: Prepared, level: float, **params) -> np.ndarray:
    """Expected exposure disparity EE-D = ‖ε‖² (Diaz et al. 2020, eq. 4): the squared norm of
    the vector of the documents' expected exposures ε under the user model; lower is more
    equal. Normalised (default) as expeval does: incomplete judgments
    EE-D/Σ_i p^(2i) = EE-D·(1 − p²); complete judgments over n candidates between
    (Σ_{i<n} d^i)²/n (uniformly random ranking) and Σ_{i<n} p^(2i) (a static one), d = p
    (RBP) or p·u (GERR, as expeval writes it).

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abc"), "rel": [2, 1, 0]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abc"), "score": [3, 2, 1]})
    >>> round(float(run.ir.ee_d(qrels, model="rbp", normalize=False).iloc[0]), 4)
    1.3125
    """
    return _kernel("ee_d")(prep, level, **params)


@register("ee_r", params=PARAMS, citation=CITATION, undefined=UNDEFINED, ties=TIES,
          samples=True)
def ee_r(prep: Prepared, level: float, **params) -> np.ndarray:
    """Expected exposure relevance EE-R = ε·ε* (Diaz et al. 2020, eq. 5): the dot product of
    the documents' expected exposures ε and their target exposures ε* (the exposure an
    ideal stochastic ranking gives: documents of one grade share the positions of their
    grade equally); higher is better. Normalised (default) as expeval does: by ‖ε*‖², with
    complete judgments from Σ_i d^i·ε*_(i) (the targets ascending: a ranking in reverse
    order of grade); with one grade level both bounds are 0 and the normalised value 1.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abc"), "rel": [2, 1, 0]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abc"), "score": [3, 2, 1]})
    >>> round(float(run.ir.ee_r(qrels, model="rbp", normalize=False).iloc[0]), 4)
    1.25
    """
    return _kernel("ee_r")(prep, level, **params)


@register("ee_l", params=PARAMS, citation=CITATION, undefined=UNDEFINED, ties=TIES,
          samples=True)
def ee_l(prep: Prepared, level: float, **params) -> np.ndarray:
    """Expected exposure loss EE-L = ‖ε − ε*‖² = EE-D − 2·EE-R + ‖ε*‖² (Diaz et al. 2020,
    eq. 3): the squared distance between the documents' expected exposures and their target
    exposures; lower is better, 0 when the ranking policy meets the target. Normalised
    (default) as expeval does: by ‖ε*‖² + 1/(1 − d) with incomplete judgments, by
    Σ_i (d^i − ε*_(i))² (targets ascending) with complete ones.

    >>> import pandas as pd, trunc_accessor as ta
    >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abc"), "rel": [2, 1, 0]})
    >>> run = pd.DataFrame({"qid": 1, "docid": list("abc"), "score": [3, 2, 1]})
    >>> round(float(run.ir.ee_l(qrels, model="rbp", normalize=False).iloc[0]), 4)
    0.0625
    """
    return _kernel("ee_l")(prep, level, **params)
