"""What the trained fusion methods learn from judged queries, and the scoring of fused runs
by any metric of the registry (through the evaluation engine).

From the *hit lists* of the training queries (per run and query, 1 where the document at
position i is relevant, grade ≥ ``relevance_level``; with ``ties="average"`` the mean over
its tie group, the expected hit over the orders of the tie):

* PosFuse, SlideFuse: p_r(i) = the share of the training queries answered to depth ≥ i
  whose document at position i is relevant (Lillis et al. 2008);
* ProbFuse (x segments): each query's ranking of n documents is cut in x segments of
  ⌈n/x⌉ positions; p_r(k) = the mean over training queries of the share of relevant
  documents in segment k (an empty segment adds 0; Lillis et al. 2006). The segments grow
  with the rankings: with x = 10, a ranking of 1,000 documents has segments of 100, whose
  documents all get one value, so the fused run ties tens of documents at its top and a
  top-heavy metric of it collapses; keep segments a few documents long (x near n/10, or
  ``optimize_fusion`` over ``n_segments``) or cut the runs first;
* SegFuse: segments of sizes 5, 10, 20, …, 2560 (boundaries 10·2^(k−1) − 5); p_r(k) = the
  mean over training queries of the relevant documents in segment k over its size
  (Shokouhi 2007);
* BayesFuse: for the segments [0, 5), [5, 10), [10, 15), [15, 20), [20, 30), [30, 100),
  [100, 200), [200, 500), [500, 1000), the mean precision p over training queries (0 → 0.001,
  1 → 0.999) and log(p / (1 − p)) at each of its positions (Aslam & Montague 2001);
* MAPFuse: MAP_r, each run's mean AP over the training queries (Lillis et al. 2010).

These are ranx 0.3.21's estimates; ranx requires the runs and the qrels to hold the same
queries, here the training queries are the qrels' (a run that did not answer one has an
empty hit list there) and the runs' other queries are ignored.
"""
from __future__ import annotations

import warnings

import numpy as np
import polars as pl

from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames
from trunc_accessor.core.columns import DOCID_NAMES, QID_NAMES, REL_NAMES, _names, _pick
from trunc_accessor.core.keys import _key_kind, key_dtype
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine.options import Options
from trunc_accessor.errors import InputError
from trunc_accessor.fusion.methods import BAYES_CUTOFFS, SEGFUSE_BOUNDS, Method
from trunc_accessor.fusion.normalization import Table
from trunc_accessor.metrics.names import parse_many
from trunc_accessor.warn import DroppedQueriesWarning


def qrels_frame(qrels) -> pl.DataFrame:
    """The qrels as a Polars frame ``qid, docid, rel`` (rel as Float64), checked."""
    _columns.check_frame(qrels, "qrels")
    names = _names(qrels, "qrels")
    cols = [_pick("qid", names, None, QID_NAMES, "qrels", qrels),
            _pick("docid", names, None, DOCID_NAMES, "qrels", qrels),
            _pick("relevance", names, None, REL_NAMES, "qrels", qrels)]
    q = frames.to_polars(qrels, cols, "qrels")
    q = q.collect() if isinstance(q, pl.LazyFrame) else q
    q = q.rename(dict(zip(cols, ("qid", "docid", "rel"))))
    if not (_columns._numeric(q.schema["rel"]) or q.schema["rel"] == pl.Boolean):
        raise InputError(f"qrels column {cols[2]!r} must hold numeric grades, "
                         f"not {q.schema['rel']}")
    q = q.with_columns(pl.col("rel").cast(pl.Float64))
    for c in ("qid", "docid", "rel"):
        bad = q[c].is_null() | (q[c].is_nan() if c == "rel" else False)
        if bad.any():
            raise InputError(f"qrels column {c!r} has a missing value (row {bad.arg_max()})")
    q = q.unique(maintain_order=True)
    dup = q.select(pl.struct("qid", "docid").is_duplicated()).to_series()
    if dup.any():
        row = q.filter(dup).row(0, named=True)
        raise InputError(f"qrels give document {row['docid']!r} of qid {row['qid']!r} two "
                         "different grades")
    return q


def _common(a: pl.Series, b: pl.Series, label: str) -> pl.DataType:
    return key_dtype(_key_kind(a.dtype, f"run {label}"), _key_kind(b.dtype, f"qrels {label}"))


class Judged:
    """The qrels seen from a ``Stack``: the grade of each candidate (NaN:
    unjudged), which of the stack's queries are judged, and the judged qids."""

    def __init__(self, st, qrels: pl.DataFrame):
        qd = _common(st.qids, qrels["qid"], "qid")
        dd = _common(st.docs, qrels["docid"], "docid")
        self.qrels = qrels
        self.qids = qrels["qid"].cast(qd).unique(maintain_order=True)
        cands = pl.DataFrame({"qid": st.qids.cast(qd).gather(pl.Series(st.cand_q)),
                              "docid": st.docids().cast(dd)})
        judged = qrels.select(pl.col("qid").cast(qd), pl.col("docid").cast(dd), "rel")
        self.grade = (cands.join(judged, on=["qid", "docid"], how="left",
                                 maintain_order="left")["rel"].fill_null(np.nan).to_numpy())
        self.q_judged = st.qids.cast(qd).is_in(self.qids.to_list()).to_numpy()
        self.qid_dtype = qd

    def restrict(self, qids: pl.Series) -> pl.DataFrame:
        """The qrels of the given qids."""
        return self.qrels.filter(pl.col("qid").cast(self.qid_dtype).is_in(
            qids.cast(self.qid_dtype).to_list()))


def hits(tab: Table, judged: Judged, level: float) -> np.ndarray:
    """Each entry's hit: its candidate's grade ≥ level (1/0), tie-averaged."""
    with np.errstate(invalid="ignore"):
        h = (judged.grade[tab.cand] >= level).astype(np.float64)
    return tab.group_mean(h)


def estimate(tab: Table, h: np.ndarray, train_q: np.ndarray, m: Method, fit: dict,
             names: list) -> dict:
    """The learnt parameter of ``m`` from the training queries (a boolean mask over the
    stack's queries; ``fit``: the method's fit parameters). Returns {system: values}."""
    st = tab.st
    R = st.n_runs
    n_train = int(fit["_n_train"])
    keep = train_q[tab.query]
    sys, z, hh, seg = tab.system[keep], tab.pos[keep] - 1, h[keep], tab.seg[keep]
    n = tab.length[keep]
    if m.name in ("posfuse", "slidefuse"):
        L = int(z.max()) + 1 if len(z) else 0
        num = np.bincount(sys * L + z, weights=hh, minlength=R * L).reshape(R, L)
        den = np.bincount(sys * L + z, minlength=R * L).reshape(R, L)
        out = {}
        for r in range(R):
            length = int(np.flatnonzero(den[r]).max()) + 1 if den[r].any() else 0
            out[names[r]] = num[r, :length] / den[r, :length]
        return out
    if m.name == "probfuse":
        x = int(fit["n_segments"])
        size = np.ceil(n / x).astype(np.int64)
        k = z // np.maximum(size, 1)
        # the (segment of the stack, ProbFuse segment) pairs the rankings hold, not a
        # counter for each of the n_q·R·x possible ones
        used, pair = np.unique(seg.astype(np.int64) * x + k, return_inverse=True)
        means = np.bincount(pair, weights=hh, minlength=len(used)) / np.bincount(
            pair, minlength=len(used))
        seg_of, k_of = used // x, used % x
        probs = np.bincount((seg_of // st.n_q) * x + k_of, weights=means,
                            minlength=R * x).reshape(R, x) / max(n_train, 1)
        return {names[r]: probs[r] for r in range(R)}
    if m.name == "segfuse":
        inside = z < SEGFUSE_BOUNDS[-1]
        k = np.searchsorted(SEGFUSE_BOUNDS, z[inside], side="right") - 1
        sums = np.bincount(sys[inside] * 10 + k, weights=hh[inside], minlength=R * 10)
        size = np.diff(SEGFUSE_BOUNDS).astype(np.float64)
        probs = sums.reshape(R, 10) / size / max(n_train, 1)
        return {names[r]: probs[r] for r in range(R)}
    if m.name == "bayesfuse":
        inside = z < BAYES_CUTOFFS[-1]
        k = np.searchsorted(BAYES_CUTOFFS, z[inside], side="right") - 1
        nk = len(BAYES_CUTOFFS) - 1
        sums = np.bincount(sys[inside] * nk + k, weights=hh[inside], minlength=R * nk)
        size = np.diff(BAYES_CUTOFFS).astype(np.float64)
        prec = sums.reshape(R, nk) / size / max(n_train, 1)
        prec = np.where(prec == 0, 0.001, prec)
        neg = 1.0 - prec
        neg = np.where(neg == 0, 0.001, neg)
        odds = np.log(prec / neg)
        return {names[r]: np.repeat(odds[r], np.diff(BAYES_CUTOFFS)) for r in range(R)}
    if m.name == "mapfuse":
        return dict(zip(names, fit["_map"]))
    raise AssertionError(m.name)  # pragma: no cover


def positional_run(tab: Table, queries: np.ndarray | None = None) -> pl.DataFrame:
    """The normalised runs' positional rankings as one long frame (system code, qid,
    docid, score = −position of the tie group's first entry, so ties stay ties)."""
    st = tab.st
    keep = np.ones(len(tab.seg), dtype=bool) if queries is None else queries[tab.query]
    return pl.DataFrame([
        pl.Series("_system", tab.system[keep]),
        st.qids.gather(pl.Series(tab.query[keep])).alias("qid"),
        st.docids(tab.cand[keep]).alias("docid"),
        pl.Series("score", -tab.group_first_pos()[keep].astype(np.float64)),
    ])


def mean_metric(run: pl.DataFrame, qrels: pl.DataFrame, metric, *, by=None, ties="average",
                level=1, per_query: bool = False):
    """The metric's mean over the qrels' queries (an undefined value counts 0), per by…
    system when ``by`` is given; ``per_query``: the per-query values instead."""
    named = parse_many([metric] if not isinstance(metric, list) else metric)
    if len(named) != 1:
        raise InputError(f"metric= must name one metric, not {metric!r} ({len(named)} of them)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedQueriesWarning)  # other queries: not scored
        # ties and level come checked by the fusion call that trains (fusion's own tie orders)
        keys, values, _ = engine.compute(run, qrels, named,
                                         Options(ties=ties, relevance_level=float(level)), by=by)
    v = next(iter(values.values()))
    if per_query:
        return keys, v, named[0].label
    if by is None:
        return float(np.mean(v)) if len(v) else 0.0
    codes = keys[by].to_numpy()
    n = max(int(codes.max()) + 1, 1) if len(codes) else 1
    return (np.bincount(codes, weights=v, minlength=n)
            / np.maximum(np.bincount(codes, minlength=n), 1))


def map_scores(tab: Table, qrels: pl.DataFrame, train: np.ndarray, ties: str,
               level: float) -> np.ndarray:
    """MAPFuse's weights: each run's MAP over the training queries (its positional
    ranking; ``ties`` as for every metric)."""
    run = positional_run(tab, train)
    per = mean_metric(run, qrels, "ap", by="_system", ties="first" if ties == "trec_eval"
                      else ties, level=level)
    out = np.zeros(tab.st.n_runs)
    out[:len(per)] = per
    return out
