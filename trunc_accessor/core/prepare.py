"""Preparation: done once per call and shared by every metric of an ``evaluate``.

From canonical Polars frames (see ``trunc_accessor.core.frames``) this builds flat NumPy
arrays over *segments* (one segment = one ranking = one (by…, qid)), in ranking order:

* which queries are scored: every qrels qid plus ``queries=``; run-only qids
  are dropped with one warning; a scored qid a system did not answer is an empty segment;
* the order of each ranking and its tie groups: ``ties="average"`` groups
  adjacent equal scores, ``"first"`` and ``"trec_eval"`` make every position its own group,
  so plain and tie-aware metrics run through the same kernels (``"trec_eval9"``: as
  trec_eval 9.0.8 and pytrec_eval, which compare scores as float32);
* each retrieved document's grade, and the judged grades of each qid (for R, ideal gains,
  and bpref's judged non-relevant count).

Kernels never see a frame: they read a ``Prepared``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from trunc_accessor.core.aspects import build_aspects, judged_pairs
from trunc_accessor.core.columns import SYS
from trunc_accessor.core.joins import (
    check_duplicates,
    hash_values,
    judged_grades,
    judged_hits,
    run_keys,
    scored_index,
)
from trunc_accessor.core.keys import qid_sort_keys
from trunc_accessor.core.notes import Notes
from trunc_accessor.core.numbers import number_list, whole_number
from trunc_accessor.core.ordering import ranking_order
from trunc_accessor.core.prepared import Prepared, build, empty, score_boundaries
from trunc_accessor.errors import InputError
from trunc_accessor.warn import EmptyResultWarning, warn


def prepare(run: pl.DataFrame | list, qrels: pl.DataFrame, *, systems: pl.DataFrame | None = None,
            queries: pl.Series | None = None, ties: str = "average",
            qid_name: str = "qid", id_note: str = "", judged_only: bool = False,
            max_grade: float | None = None, notes: Notes | None = None,
            subtopics: pl.DataFrame | None = None) -> Prepared:
    """Prepare canonical frames (``[_sys,] qid, docid, score[, rank]`` and ``qid, docid,
    rel``; see ``trunc_accessor.core.frames``); the run may be handed over in a one-item
    list, which prepare empties, so the frame is freed as soon as it is not needed.
    ``systems``: the user's by… columns, row i for system code i; the keys of the result
    are those columns and ``qid_name``.
    ``id_note``: why the run's and the qrels' ids may not match (different types), said in
    one ``IdentifierWarning`` with the systems that retrieved no judged document.
    ``judged_only``: documents without a judgment of grade ≥ 0 are removed before positions
    and ties are found (trec_eval -J, which keeps only documents judged with a grade ≥ 0: a
    negative grade is "in the pool, not judged"; the condensed lists of Sakai 2007).

    ``subtopics``: diversity qrels (qid, subtopic, docid, rel; ``qrels`` then holds each
    document's ad hoc grade, by default its largest: ``frames.adhoc_qrels``): the preparation's
    ``aspects`` (``.aspects``) pair its rows with the subtopics they are relevant to.

    For one batch of a call evaluated in query batches: ``systems`` are those of the whole
    call, ``max_grade`` the largest grade of its whole qrels, and ``notes`` gathers what is
    to be said at the end (``Notes``); without ``notes`` it is said now. ``ties`` comes
    checked (one of ``prepared.TIES`` or ``prepared.PRESET_ORDERS``)."""
    if isinstance(run, list):  # handed over: ours to free once its arrays are built
        run = run.pop()
    assert isinstance(run, pl.DataFrame)
    scored = _scored_qids(qrels, queries)
    if scored.height == 0 or (systems is not None and systems.height == 0):
        return _nothing_to_score(run, scored, systems, qid_name, ties, notes)
    say_now = notes is None
    notes = Notes(id_note=id_note) if notes is None else notes
    # the qrels' qids as indices among the scored ones (every qrels qid is scored)
    q_index = (qrels.select("qid").join(scored, on="qid", how="left", maintain_order="left")
               ["_q"].to_numpy().astype(np.int64, copy=False))
    rows, aspect_hits = _judged_rows(run, qrels, scored, q_index, systems, notes, subtopics)
    boundary = _order_rows(rows, run, ties, judged_only)
    q_counts, q_offsets, q_grades = _qrels_layout(qrels, q_index, scored.height)
    if max_grade is None:
        max_grade = largest_grade(qrels)
    seg_q, keys = _segment_keys(scored, systems, qid_name)
    notes.count_ids(rows.seg, rows.grade, q_counts, systems.height if systems is not None else 1,
                    run, rows.source)
    prepared_row = _prepared_row(run.height, rows.source) if aspect_hits is not None else None
    rows.source = None
    del run  # the run's own columns are no longer needed (freed if not the user's)
    prep = build(keys, seg_q, rows.seg, rows.grade, None, q_offsets, q_grades, max_grade, ties,
                 boundary=boundary)
    if rows.extra:
        prep.extra = _extra_layout(qrels, q_index, rows.extra)
        prep.extra.update({k: (rows.extra[k], np.zeros(0)) for k in RUN_EXTRA
                           if k in rows.extra})
    del rows, boundary
    if aspect_hits is not None:
        prep.aspects = build_aspects(*aspect_hits, prepared_row)
    if say_now:
        notes.finish(systems)
    return prep


# build_aspects' arguments but the last: the judged (document, subtopic) pairs, each code's
# qid, several subtopics?, the codes' weights, and the (run row, pair) hits
_AspectHits = tuple[pl.DataFrame, np.ndarray, bool, np.ndarray | None, np.ndarray, np.ndarray]


@dataclass(eq=False)
class _Rows:
    """The run's rows on their way to a preparation: ``seg`` (segment = system·Q + scored
    qid index, system-major), ``grade`` (NaN: unjudged), ``score`` and ``rank`` (until the
    ranking order and the tie groups are found), ``source`` (the run row of each; None: the
    same index). Each step replaces the arrays one at a time, so at most one old array is
    held beside its new one."""

    seg: np.ndarray
    grade: np.ndarray
    score: np.ndarray | None
    rank: np.ndarray | None
    source: np.ndarray | None = None
    extra: dict | None = None  # the values of the qrels' extra columns (EXTRA) per row

    def take(self, index: np.ndarray) -> None:
        """Keep the rows ``index`` (positions among the current rows), in that order."""
        self.seg = self.seg[index]
        self.grade = self.grade[index]
        if self.extra:
            self.extra = {k: v[index] for k, v in self.extra.items()}
        if self.score is not None:
            self.score = self.score[index]
        if self.rank is not None:
            self.rank = self.rank[index]
        self.source = index if self.source is None else self.source[index]


def _scored_qids(qrels: pl.DataFrame, queries: pl.Series | None) -> pl.DataFrame:
    """The scored qids: every qrels qid, and queries=; sorted, numbered ``_q``."""
    scored = qrels.select("qid")
    if queries is not None and len(queries):
        scored = pl.concat([scored, queries.to_frame("qid").cast(scored.schema)])
    scored = scored.unique()
    return scored.sort(qid_sort_keys(scored, "qid")).with_row_index("_q")


def _nothing_to_score(run: pl.DataFrame, scored: pl.DataFrame, systems: pl.DataFrame | None,
                      qid_name: str, ties: str, notes: Notes | None) -> Prepared:
    """The empty preparation of a call without a scored qid or without a system (said
    at once), or of a batch of a larger call without a scored qid (its rows are noted as
    dropped)."""
    no_qid = pl.Series(qid_name, [], dtype=scored.schema["qid"])
    key_frame = systems.clear().with_columns(no_qid) if systems is not None else no_qid.to_frame()
    if scored.height == 0 and notes is not None:
        notes.rows += run.height
        notes.dropped_rows += run.height
        if run.height:
            notes.dropped_qids += run["qid"].n_unique()
            if notes.dropped_example is None:
                notes.dropped_example = run["qid"][0]
    elif scored.height == 0:
        warn("nothing to score: the qrels are empty and queries= names no qid, so the result "
             "is empty", EmptyResultWarning)
    else:
        warn("nothing to score: the run is empty and by= finds no system in it, so the result "
             "is empty", EmptyResultWarning)
    return empty(key_frame, ties)


def _judged_rows(run: pl.DataFrame, qrels: pl.DataFrame, scored: pl.DataFrame,
                 q_index: np.ndarray, systems: pl.DataFrame | None, notes: Notes,
                 subtopics: pl.DataFrame | None) -> tuple[_Rows, _AspectHits | None]:
    """The run's rows of scored qids (the others are dropped and noted) with their grades,
    and for diversity qrels the arguments of ``build_aspects`` but the last. One 64-bit key
    of (scored qid, docid hash) per row joins the qrels, then, sorted, checks
    duplicates (both exact: ``trunc_accessor.core.joins``)."""
    sys_code = run[SYS].to_numpy().astype(np.int64, copy=False) if systems is not None else None
    # which scored qid each row answers (-1: not scored), found for runs of equal
    # (system, qid) rows: a grouped run costs one small join, not one per row
    q_row = scored_index(run, scored, [SYS] if systems is not None else [])
    notes.rows += run.height
    if notes.scored_example is None:
        notes.scored_example = scored["qid"][0]
    keep = _drop_unscored(run, q_row, notes)
    doc_hash, run_key = run_keys(run, q_row)
    grade, extra = _grades_and_extra(run, qrels, q_row, run_key, q_index)
    aspect_hits: _AspectHits | None = None
    if subtopics is not None:
        pairs, code_q, several, code_w = judged_pairs(subtopics, scored)
        hit_rows, hit_pairs = judged_hits(run, pairs, q_row, run_key,
                                          pairs["_q"].to_numpy().astype(np.int64, copy=False),
                                          unique=False)
        aspect_hits = pairs, code_q, several, code_w, hit_rows, hit_pairs
    samples = _run_samples(run, doc_hash)
    if samples:  # a document may be in several samples of one ranking, once in each
        mix = hash_values(pl.Series(samples["sample"]), 0x5A3)
        check_duplicates(run, sys_code, q_row, doc_hash ^ mix, run_key ^ mix, systems)
        extra.update(samples)
    else:
        check_duplicates(run, sys_code, q_row, doc_hash, run_key, systems)
    del doc_hash, run_key
    seg = q_row if sys_code is None else sys_code * scored.height + q_row
    del sys_code, q_row
    rows = _Rows(seg, grade, run["score"].to_numpy().astype(np.float64, copy=False),
                 run["rank"].to_numpy() if "rank" in run.columns else None, extra=extra)
    del seg, grade
    if keep is not None:
        rows.take(keep)
    return rows, aspect_hits


# the run's columns beside the score that kernels read, per row: the sampled ranking of a
# stochastic policy each row belongs to, and each row's document (as codes)
RUN_EXTRA = ("sample", "doc")


def _run_samples(run: pl.DataFrame, doc_hash: np.ndarray) -> dict[str, np.ndarray]:
    """A sampled run's ``RUN_EXTRA`` per row: the code of its sample (its rank among the
    run's sample labels) and of its document (the same document the same code in every
    sample); empty without a sample column."""
    if "sample" not in run.columns:
        return {}
    doc = np.unique(doc_hash, return_inverse=True)[1].astype(np.float64)
    return {"sample": run["sample"].rank("dense").to_numpy().astype(np.float64) - 1.0,
            "doc": doc}


# the qrels' columns beside the grade that kernels read, per row and per judgment: a sampled
# pool's stratum (as the rank of its label among the qrels' labels: they sort as text) and
# each judged document's inclusion probability
EXTRA = ("stratum", "inclusion")


def extra_values(qrels: pl.DataFrame) -> dict[str, np.ndarray]:
    """The qrels' ``EXTRA`` columns as floats, in the qrels' row order."""
    out = {}
    if "stratum" in qrels.columns:
        out["stratum"] = (qrels["stratum"].rank("dense").to_numpy().astype(np.float64) - 1.0)
    if "inclusion" in qrels.columns:
        out["inclusion"] = qrels["inclusion"].to_numpy().astype(np.float64, copy=False)
    return out


def _grades_and_extra(run: pl.DataFrame, qrels: pl.DataFrame, q_row: np.ndarray,
                      run_key: np.ndarray, q_index: np.ndarray) -> tuple[np.ndarray, dict]:
    """Each run row's judged grade (NaN: unjudged) and its values of the qrels' ``EXTRA``
    columns (NaN: unjudged)."""
    values = extra_values(qrels)
    if not values:
        return judged_grades(run, qrels, q_row, run_key, q_index), {}
    grade = np.full(run.height, np.nan)
    extra = {k: np.full(run.height, np.nan) for k in values}
    if run.height and qrels.height:
        rows, qrows = judged_hits(run, qrels, q_row, run_key, q_index)
        grade[rows] = qrels["rel"].to_numpy()[qrows]
        for k, v in values.items():
            extra[k][rows] = v[qrows]
    return grade, extra


def _drop_unscored(run: pl.DataFrame, q_row: np.ndarray, notes: Notes) -> np.ndarray | None:
    """The rows to keep when some answer a qid that is not scored (None: every row); the
    dropped rows and qids are noted."""
    if not run.height or q_row.min() >= 0:
        return None
    dropped = q_row < 0
    qids = run["qid"].filter(pl.Series(dropped))
    notes.dropped_rows += qids.len()
    notes.dropped_qids += qids.n_unique()
    if notes.dropped_example is None:
        notes.dropped_example = qids[0]
    return np.flatnonzero(~dropped)


def _order_rows(rows: _Rows, run: pl.DataFrame, ties: str,
                judged_only: bool) -> np.ndarray | None:
    """Put the rows in ranking order (``ranking_order``: rank ascending, else score
    descending; nothing is moved when they are in order already), with ``judged_only`` keep
    only the documents judged with a grade ≥ 0, and return where the tie groups start
    (``ties="average"``; else None). The scores and ranks are then dropped."""
    order = ranking_order(run, rows.source, rows.seg, rows.score, rows.rank, ties)
    rows.rank = None
    if order is not None:
        rows.take(order)
    del order
    if judged_only:
        with np.errstate(invalid="ignore"):
            judged = np.flatnonzero(rows.grade >= 0)  # NaN (unjudged) and negative grades go
        rows.take(judged)
    assert rows.score is not None
    boundary = score_boundaries(rows.score) if ties == "average" else None
    rows.score = None  # the tie groups need only where the score changes
    return boundary


def _qrels_layout(qrels: pl.DataFrame, q_index: np.ndarray,
                  n_q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The judged grades of each scored qid: (their number per qid, the offsets of each
    qid's block, the grades in qid order)."""
    q_counts = np.bincount(q_index, minlength=n_q)
    q_offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(q_counts, out=q_offsets[1:])
    q_grades = qrels["rel"].to_numpy().astype(np.float64, copy=False)
    if len(q_index) > 1 and np.any(q_index[1:] < q_index[:-1]):
        q_grades = q_grades[np.argsort(q_index, kind="stable")]
    return q_counts, q_offsets, q_grades


def _extra_layout(qrels: pl.DataFrame, q_index: np.ndarray,
                  per_row: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The qrels' ``EXTRA`` columns as (value per prepared row, value per judgment in the
    order of ``q_grades``)."""
    out = {}
    for k, v in extra_values(qrels).items():
        if len(q_index) > 1 and np.any(q_index[1:] < q_index[:-1]):
            v = v[np.argsort(q_index, kind="stable")]
        out[k] = (per_row[k], v)
    return out


def _segment_keys(scored: pl.DataFrame, systems: pl.DataFrame | None,
                  qid_name: str) -> tuple[np.ndarray, pl.DataFrame]:
    """Each segment's scored qid index and its keys (the by… columns and ``qid_name``),
    system-major: segment = system·Q + q, every (system, scored qid) one segment, so a
    scored qid a system did not answer is an empty ranking."""
    n_q = scored.height
    n_sys = systems.height if systems is not None else 1
    seg_sys = np.repeat(np.arange(n_sys, dtype=np.int64), n_q)
    seg_q = np.tile(np.arange(n_q, dtype=np.int64), n_sys)
    qids = scored["qid"].gather(pl.Series(seg_q)).rename(qid_name)
    keys = systems[seg_sys].with_columns(qids) if systems is not None else qids.to_frame()
    return seg_q, keys


def _prepared_row(n_rows: int, source: np.ndarray | None) -> np.ndarray | None:
    """Each run row's row in the preparation (-1: dropped); None when they are the same."""
    if source is None:
        return None
    prepared_row = np.full(n_rows, -1, dtype=np.int64)
    prepared_row[source] = np.arange(len(source))
    return prepared_row


def largest_grade(qrels: pl.DataFrame, column: str = "rel") -> float:
    """The largest grade of the qrels (0 when there is none): g_max of graded gains."""
    value = qrels.select(pl.col(column).cast(pl.Float64).max()).item() if qrels.height else None
    return float(value) if value is not None else 0.0


MAX_SINGLE_R = 10 ** 7  # relevant documents outside a single ranking that R= may add


def prepare_single(grades, scores=None, *, qrels_grades=None, R=None, relevance_level=1.0,
                   ties: str = "average", judged_only: bool = False) -> Prepared:
    """One ranking given as a list of grades (None/NaN = unjudged), best first.

    ``scores`` (optional, non-increasing) mark ties: equal adjacent scores form a tie group.
    The query's judged grades are ``qrels_grades`` if given, else the judged grades of the
    ranking plus, when ``R`` is given, enough documents of grade ``relevance_level`` outside
    the ranking to make R relevant documents (at most 10^7: they are materialised). The
    preparation's ``max_grade`` is the largest judged grade (``max_grade`` of a metric, if
    given, must be at least that). ``ties`` comes checked (one of ``prepared.TIES``).
    ``judged_only``: the positions without a grade ≥ 0 are then removed (condensed list).
    """
    g = number_list(grades, "grades", missing=True)
    if scores is not None:
        s = number_list(scores, "scores", finite=False)
        if s.shape != g.shape:
            raise InputError(f"scores has {len(s)} values for {len(g)} grades")
        if np.any(np.diff(s) > 0):
            raise InputError("scores must be non-increasing: the list is the ranking, best first")
    else:
        s = np.arange(len(g), 0, -1, dtype=np.float64)
    if qrels_grades is not None and R is not None:
        raise InputError("give R or qrels_grades, not both (R counts the relevant documents "
                         "of qrels_grades)")
    if qrels_grades is not None:
        judged = number_list(qrels_grades, "qrels_grades")
    else:
        judged = g[~np.isnan(g)]
        if R is not None:
            R = whole_number(R, "R")
            have = int(np.sum(judged >= relevance_level))
            if R < have:
                raise InputError(f"R={R} but the ranking already holds {have} relevant documents")
            if R - have > MAX_SINGLE_R:
                raise InputError(f"R={R}: at most {MAX_SINGLE_R:,} relevant documents outside "
                                 "the ranking can be added (each is materialised)")
            judged = np.concatenate([judged, np.full(R - have, float(relevance_level))])
    if judged_only:
        with np.errstate(invalid="ignore"):
            kept = g >= 0
        g, s = g[kept], s[kept]
    n = len(g)
    keys = pl.DataFrame({"qid": [0]})
    return build(keys, np.zeros(1, dtype=np.int64), np.zeros(n, dtype=np.int64), g, s,
                 np.array([0, len(judged)], dtype=np.int64), judged,
                 float(judged.max()) if len(judged) else 0.0,
                 "first" if ties.startswith("trec_eval") else ties)
