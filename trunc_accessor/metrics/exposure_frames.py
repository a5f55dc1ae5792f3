"""Expected exposure of stochastic rankings (Diaz, Mitra, Ekstrand, Biega & Carterette,
CIKM 2020) from frames: several sampled rankings per query (a run's ``sample`` column),
exposure of documents or of groups of documents (a document → group frame), every option of
the authors' expeval (``trunc_accessor.metrics._exposure``), and the expected and target
exposure vectors for plotting.

A query's rankings are read as expeval reads a run file: each (query, sample) is one ranking
(rank ascending when the run has a rank column, else score descending); the query's
exposure of a document is the mean over its samples of the document's exposure in each
(0 in a sample that does not retrieve it).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.core.columns import (
    DOCID_NAMES,
    QID_NAMES,
    _names,
    is_pandas,
    normalise_by,
    resolve_columns,
)
from trunc_accessor.core.frames import normalise, to_polars
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.metrics import _exposure, fair_trec
from trunc_accessor.metrics.exposure import PARAMS, candidates, lookup, model_of
from trunc_accessor.metrics.fair_trec import FULL_LEN_AWRF, FULL_LEN_EEL
from trunc_accessor.metrics.params import checked
from trunc_accessor.warn import DroppedQueriesWarning, warn

MEASURES = ("ee_d", "ee_r", "ee_l")
GROUP_NAMES = ("group", "group_id", "attribute")
WEIGHT_NAMES = ("weight", "alignment")


def expected_exposure(run: Frame, qrels: Frame, *, groups: Frame | None = None,
                      sample: str | None = "sample", by: str | Sequence[str] | None = None,
                      model: str = "gerr", p: float = 0.5, u: float = 0.5,
                      complete: bool = False, normalize: bool | None = None,
                      binarize: bool = False, relevance_level: float = 1,
                      ties: str = "average", semantics: str = "expeval",
                      target: Frame | None = None, target_len: int = FULL_LEN_EEL) -> Result:
    """EE-D, EE-R and EE-L of each query (and system) of a run of sampled rankings.

    Parameters
    ----------
    run, qrels : pandas or Polars DataFrame
        The run (qid, docid and score columns; rank, sample and by… columns if any) and
        its judgments (qid, docid, rel). Each (query, ``sample``) is one ranking; without
        a sample column each query has one ranking (a deterministic policy).
    groups : DataFrame, optional
        Document → group (columns docid and group, and qid when the groups differ by query;
        a document may be in several groups: its exposure counts in each, as expeval
        counts it). Given, the measures compare the groups' exposures (the sums of their
        candidate documents'); a candidate document without a group is in one group of
        unlabelled documents (expeval's group -1).
    sample : str or None, default "sample"
        The run's column that names each sampled ranking of a query.
    by : str or list of str, optional
        The run's columns naming the systems.
    model, p, u, complete, normalize, binarize
        The user model ("gerr" or "rbp"), its patience and GERR's utility, and expeval's
        options -C (complete judgments), -U (normalize=False; default True) and -B
        (binarize).
    semantics : {"expeval", "trec-fair-2022"}
        "trec-fair-2022": the TREC 2022 Fair Ranking track's expected exposure of groups
        (``trunc_accessor.metrics.fair_trec``): relevant documents only, the float32
        discount 1/log2(max(k, 2)), each document's exposure shared among its groups by
        their ``weight`` column (its alignment; default 1), the target the query's
        distribution ``target`` scaled to a full ranking of ``target_len`` positions;
        ``groups`` and ``target`` are then required, the user model's options do not
        apply, and ``normalize`` defaults to False (the track's code does not normalise).
    target : DataFrame, optional
        With "trec-fair-2022": qid, group and target columns, each query's target
        distribution over the groups.
    target_len : int, default 20
        With "trec-fair-2022": the full ranking's length (the track's Task 2 used 20).
    relevance_level : float, default 1
        Grades at least this are relevant (expeval: grade > 0).
    ties : {"average", "first"}
        Within a sample without a rank column, equal scores are a uniformly random order
        ("average": each document gets its expected exposure over the orders; GERR refuses
        a tie of relevant and non-relevant documents) or the input order ("first").

    Returns
    -------
    DataFrame
        One row per (by…, qid) of the qrels: ``ee_d``, ``ee_r``, ``ee_l`` (NaN for a query
        without a candidate document), in the caller's library; ``.mean()`` gives the means.
    """
    if semantics not in ("expeval", "trec-fair-2022"):
        raise ParameterError(f"semantics= must be 'expeval' or 'trec-fair-2022', not "
                             f"{semantics!r}")
    fair = semantics == "trec-fair-2022"
    norm = checked("normalize", PARAMS[4].check, (not fair) if normalize is None else normalize)
    if fair:
        fair_trec.check_options((model, p, u, complete, binarize), target_len)
    elif target is not None:
        raise ParameterError("target= is the TREC Fair 2022 target distribution: it needs "
                             "semantics='trec-fair-2022'")
    ctx = _Context(run, qrels, groups, sample, by, model, p, u, complete, binarize,
                   relevance_level, ties)
    if fair:
        tgt = fair_trec.checked_target(ctx, target)
        return ctx.output(ctx.keys, fair_trec.eel(ctx, tgt, target_len, norm))
    ctx.require_plain_weights()
    m = ctx.measures()
    values = {name: m.get(name, norm) for name in MEASURES}
    return ctx.output(ctx.keys, values)


def awrf(run: Frame, qrels: Frame, *, groups: Frame, target: Frame,
         by: str | Sequence[str] | None = None, target_len: int = FULL_LEN_AWRF,
         relevance_level: float = 1, sample: str | None = "sample") -> Result:
    """Attention-weighted rank fairness, the TREC 2022 Fair Ranking track's Task 1 measure
    (``trunc_accessor.metrics.fair_trec``): per (by…, qid), ``ndcg`` (binary gains, the
    float32 discount 1/log2(max(k, 2)), ideal ranking of min(target_len, R) relevant
    documents), ``awrf`` = 1 − JS(attention-weighted mean alignment of the ranking's
    documents that have a group, target distribution) (Jensen–Shannon divergence, natural
    logarithm) and ``score`` = nDCG × AWRF, the track's score.

    Parameters
    ----------
    run, qrels : pandas or Polars DataFrame
        One ranking per query (at most ``target_len`` documents) and its judgments.
    groups : DataFrame
        docid, group and optionally weight (the document's alignment with the group,
        default 1) and qid columns.
    target : DataFrame
        qid, group and target columns: each query's target distribution over the groups.
    by : str or list of str, optional
        The run's columns naming the systems.
    target_len : int, default 500
        The longest ranking allowed (the track's Task 1 used 500).
    relevance_level : float, default 1
        Grades at least this are relevant.
    sample : str or None, default "sample"
        The run's column of sampled rankings, if any: AWRF refuses several per query.
    """
    fair_trec.check_options(fair_trec.DEFAULTS, target_len)
    ctx = _Context(run, qrels, groups, sample, by, "gerr", 0.5, 0.5, False, False,
                   relevance_level, "first")
    tgt = fair_trec.checked_target(ctx, target)
    return ctx.output(ctx.keys, fair_trec.awrf(ctx, tgt, target_len))


def exposure_vectors(run: Frame, qrels: Frame, *, groups: Frame | None = None,
                      sample: str | None = "sample", by: str | Sequence[str] | None = None,
                     model: str = "gerr", p: float = 0.5, u: float = 0.5,
                     complete: bool = False, binarize: bool = False,
                     relevance_level: float = 1, ties: str = "average") -> Result:
    """The expected exposure of each document (or group) of each query and its target
    exposure, for plotting: one row per (by…, qid, docid) with ``expected`` and ``target``
    (every document the run exposes and every candidate document; with ``groups``, one row
    per (by…, qid, group)), in the order of the queries and then of the documents (groups).
    Arguments as ``expected_exposure``."""
    ctx = _Context(run, qrels, groups, sample, by, model, p, u, complete, binarize,
                   relevance_level, ties)
    items = ctx.items()
    keys = ctx.keys[items["seg"]].with_columns(items["item"])
    return ctx.output(keys, {"expected": items["expected"], "target": items["target"]})


class _Context:
    """The checked inputs of one call and the arrays the measures read."""

    def __init__(self, run, qrels, groups, sample, by, model, p, u, complete, binarize,
                 level, ties):
        kw = dict(zip(("model", "p", "u", "complete", "binarize"),
                      (model, p, u, complete, binarize)))
        for prm in PARAMS:
            if prm.name in kw:
                kw[prm.name] = checked(prm.name, prm.check, kw[prm.name])
        if ties not in ("average", "first"):
            raise ParameterError(f"ties= must be 'average' or 'first', not {ties!r}")
        self.pandas = is_pandas(run)
        self.model = model_of(kw["model"], kw["p"], kw["u"], kw["complete"])
        self.binarize, self.level, self.ties = kw["binarize"], float(level), ties
        self._read(run, qrels, sample, normalise_by(by))
        self._rows()
        self.groups = None if groups is None else self._groups(groups)

    # ------------------------------------------------------------------ inputs
    def _read(self, run, qrels, sample, by) -> None:
        names = _names(run, "run")
        if sample is not None and sample not in names and sample != "sample":
            raise InputError(f"sample={sample!r}: the run has no such column; found {names}")
        has_sample = sample is not None and sample in names
        if has_sample and sample in by:
            raise InputError(f"sample={sample!r} is also a by= column")
        cols = resolve_columns(run, qrels, (*by, sample) if has_sample else by)
        r = to_polars(run, [*cols.by, cols.run_qid, cols.run_docid, "score"]
                      + (["rank"] if cols.has_rank else []), "run",
                      keys=[cols.run_qid, cols.run_docid])
        q = to_polars(qrels, [cols.qrels_qid, cols.qrels_docid, cols.rel], "qrels",
                      keys=[cols.qrels_qid, cols.qrels_docid])
        r, q = (f.collect() if isinstance(f, pl.LazyFrame) else f for f in (r, q))
        canon = normalise(r, q, cols, None)
        self.cols, self.by, self.has_rank = cols, list(by), cols.has_rank
        self.qrels = canon.qrels.sort("qid", maintain_order=True)
        self.docid_dtype = canon.key_types.docid
        run_c = canon.run.with_row_index("_row")
        systems = canon.systems
        self.systems: pl.DataFrame | None
        if systems is not None and by:
            codes = systems.select(by).unique(maintain_order=True).with_row_index("_b")
            sys_b = systems.with_row_index("_sys").join(codes, on=by, nulls_equal=True)
            run_c = run_c.join(sys_b.select("_sys", "_b"), on="_sys", how="left")
            self.systems = codes.drop("_b")
        else:
            run_c = run_c.with_columns(pl.lit(0, pl.UInt32).alias("_b"),
                                       *([] if systems is not None else
                                         [pl.lit(0, pl.UInt32).alias("_sys")]))
            self.systems = None
        self.run = run_c

    # ------------------------------------------------------------------ rows
    def _rows(self) -> None:
        scored = self.qrels.select("qid").unique(maintain_order=True).with_row_index("_q")
        n_q, n_b = scored.height, (self.systems.height if self.systems is not None else 1)
        r = self.run.join(scored, on="qid", how="left")
        dropped = r.filter(pl.col("_q").is_null())
        if dropped.height:
            warn(f"{dropped['qid'].n_unique()} qid(s) of the run have no judgments and are "
                 f"not scored (e.g. {dropped['qid'][0]!r})", DroppedQueriesWarning)
            r = r.filter(pl.col("_q").is_not_null())
        r = r.with_columns((pl.col("_b").cast(pl.Int64) * n_q + pl.col("_q")).alias("_seg"))
        order = ["_seg", "_sys"] + (["rank"] if self.has_rank else ["score", "_row"])
        desc = [False, False] + ([False] if self.has_rank else [True, False])
        r = r.sort(order, descending=desc)
        dup = r.filter(pl.struct("_seg", "_sys", "docid").is_duplicated())
        if dup.height:
            row = dup.row(0, named=True)
            raise InputError(f"document {row['docid']!r} is retrieved twice in one sampled "
                             f"ranking of qid {row['qid']!r}")
        r = r.join(self.qrels, on=["qid", "docid"], how="left", maintain_order="left")
        self.n_q, self.n_seg = n_q, n_q * n_b
        self.seg_q = np.tile(np.arange(n_q, dtype=np.int64), n_b)
        qids = scored["qid"].gather(pl.Series(self.seg_q)).alias(self.cols.run_qid)
        seg_b = np.repeat(np.arange(n_b), n_q)
        self.keys = (self.systems[seg_b].with_columns(qids) if self.systems is not None
                     else qids.to_frame())
        self.r = r
        self.scored = scored

    def _targets(self):
        q = self.qrels.join(self.scored, on="qid", maintain_order="left")
        grade = q["rel"].cast(pl.Float64).to_numpy()
        kept, key, rel = candidates(grade, self.level, self.model.complete, self.binarize)
        jq = q["_q"].to_numpy().astype(np.int64)[kept]
        tg = _exposure.targets(jq, key[kept], rel[kept], self.n_q, self.model)
        cand = q.filter(pl.Series(kept)).select("_q", "docid").with_columns(
            pl.Series("_t", tg.t))
        return tg, cand, jq, key[kept]

    def _exposed(self, jq, jkey, tg):
        """Per exposed document: segment, docid, expected exposure and target."""
        r = self.r
        seg = r["_seg"].to_numpy().astype(np.int64)
        ranking = np.cumsum(np.r_[True, (np.diff(seg) != 0)
                                  | (np.diff(r["_sys"].to_numpy().astype(np.int64)) != 0)]) - 1
        start = np.searchsorted(ranking, ranking, side="left")
        pos0 = np.arange(len(seg)) - start
        grade = r["rel"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        kept, key, rel = candidates(grade, self.level, self.model.complete, self.binarize)
        e = _exposure.position_exposure(ranking, pos0, rel.astype(np.float64), self.model)
        e = self._tie_mean(r, ranking, rel, e)
        samples = r.group_by("_seg").agg(pl.col("_sys").n_unique().alias("_n"))
        n = r.select("_seg").join(samples, on="_seg", how="left",
                                  maintain_order="left")["_n"].to_numpy()
        t = lookup(jq, jkey, tg.t, np.where(kept, self.seg_q[seg], -1), key)
        docs = pl.DataFrame({"_seg": seg, "docid": r["docid"], "_e": e / n, "_t": t})
        return fair_trec.group_sums(docs, ["_seg", "docid"], ["_e"], first=("_t",))

    def _tie_mean(self, r, ranking, rel, e):
        if self.ties != "average" or self.has_rank or not len(e):
            return e
        score = r["score"].to_numpy()
        new = np.r_[True, (np.diff(ranking) != 0) | (np.diff(score) != 0)]
        gid = np.cumsum(new) - 1
        if self.model.kind == "gerr":
            lo = np.minimum.reduceat(rel, np.flatnonzero(new))
            hi = np.maximum.reduceat(rel, np.flatnonzero(new))
            if np.any(lo != hi):
                row = r.row(int(np.flatnonzero(new)[np.argmax(lo != hi)]), named=True)
                raise ParameterError(
                    f"expected exposure with model='gerr' and ties='average': a sampled "
                    f"ranking of qid {row['qid']!r} ties relevant and non-relevant "
                    "documents, and GERR's exposure depends on the relevant documents above, "
                    "so its mean over the tie's orders has no closed form here; give ranks "
                    "or ties='first'")
        return (np.bincount(gid, weights=e) / np.bincount(gid))[gid]

    def _groups(self, groups):
        names = _names(groups, "groups")
        doc = next((c for c in DOCID_NAMES if c in names), None)
        grp = next((c for c in GROUP_NAMES if c in names), None)
        if doc is None or grp is None:
            raise InputError(f"groups must have a docid column (one of {list(DOCID_NAMES)}) "
                             f"and a group column (one of {list(GROUP_NAMES)}); found {names}")
        qid = next((c for c in QID_NAMES if c in names), None)
        wt = next((c for c in WEIGHT_NAMES if c in names), None)
        g = to_polars(groups, [c for c in (qid, doc, grp, wt) if c], "groups",
                      keys=[c for c in (qid, doc) if c])
        g = g.collect() if isinstance(g, pl.LazyFrame) else g
        if g[grp].null_count():
            raise InputError(f"groups column {grp!r} has a missing value: a document "
                             "without a group is left out of the groups frame")
        g = g.rename({doc: "docid", grp: "group", **({qid: "qid"} if qid else {}),
                      **({wt: "weight"} if wt else {})})
        if wt:
            w = g["weight"].cast(pl.Float64, strict=False)
            if w.null_count() or not (w.is_finite() & (w >= 0)).all():
                raise InputError(f"groups column {wt!r} must hold finite weights ≥ 0")
            g = g.with_columns(w)
        else:
            g = g.with_columns(pl.lit(1.0).alias("weight"))
        g = g.with_columns(pl.col("docid").cast(self.docid_dtype, strict=False))
        if qid:
            g = g.with_columns(pl.col("qid").cast(self.qrels.schema["qid"], strict=False))
        return g.unique(subset=[c for c in ("qid", "docid", "group") if c in g.columns],
                        maintain_order=True)

    def require_plain_weights(self) -> None:
        if self.groups is not None and (self.groups["weight"] != 1.0).any():
            raise InputError("groups' weights (alignments) are the TREC Fair 2022 measures': "
                             "expeval counts a document's whole exposure in each of its "
                             "groups (semantics='trec-fair-2022' reads weights)")

    def relevant_count(self) -> np.ndarray:
        """The number of relevant judged documents of each scored query."""
        q = self.qrels.join(self.scored, on="qid", maintain_order="left")
        with np.errstate(invalid="ignore"):
            rel = q["rel"].cast(pl.Float64).to_numpy() >= self.level
        return np.bincount(q["_q"].to_numpy().astype(np.int64), weights=rel,
                           minlength=self.n_q)

    # ------------------------------------------------------------------ measures
    def items(self) -> dict:
        tg, cand, jq, jkey = self._targets()
        docs = self._exposed(jq, jkey, tg)
        self._tg = tg
        seg_b = self.n_q * np.arange(self.n_seg // max(self.n_q, 1))
        cand_seg = pl.concat([cand.with_columns((pl.col("_q").cast(pl.Int64) + int(b))
                                                .alias("_seg")) for b in seg_b]) \
            if len(seg_b) else cand.with_columns(pl.lit(0, pl.Int64).alias("_seg"))
        both = docs.join(cand_seg.select("_seg", "docid", pl.col("_t").alias("_tc")),
                         on=["_seg", "docid"], how="full", coalesce=True)
        both = both.with_columns(pl.col("_e").fill_null(0.0),
                                 pl.coalesce("_tc", "_t").fill_null(0.0).alias("_t"))
        if self.groups is not None:
            both = self._group_items(both.filter(pl.col("_tc").is_not_null()))
            item = "group"
        else:
            item = self.cols.run_docid
            both = both.rename({"docid": item})
        both = both.sort("_seg", item, nulls_last=True)  # a fixed order: query, then item
        return {"seg": both["_seg"].to_numpy(), "item": both[item],
                "expected": both["_e"].to_numpy(), "target": both["_t"].to_numpy()}

    def _group_items(self, cand: pl.DataFrame) -> pl.DataFrame:
        q = self.scored.rename({"_q": "_qi"})
        cand = cand.with_columns((pl.col("_seg") % max(self.n_q, 1)).alias("_qi"))
        cand = cand.join(q, on="_qi", how="left")
        on = ["qid", "docid"] if "qid" in self.groups.columns else ["docid"]
        pairs = cand.sort("_seg", "docid").join(self.groups, on=on, how="left",
                                                maintain_order="left")
        return fair_trec.group_sums(pairs, ["_seg", "group"], ["_e", "_t"])

    def measures(self) -> _exposure.Measures:
        it = self.items()
        answered = np.bincount(self.r["_seg"].to_numpy().astype(np.int64),
                               minlength=self.n_seg) > 0
        fn = _exposure.groups if self.groups is not None else _exposure.documents
        return fn(self._tg, self.seg_q, np.asarray(it["seg"], dtype=np.int64), it["target"],
                  it["expected"], answered, self.model)

    def output(self, keys: pl.DataFrame, values: dict):
        out = keys.with_columns(pl.Series(k, v) for k, v in values.items())
        return out.to_pandas() if self.pandas else out

