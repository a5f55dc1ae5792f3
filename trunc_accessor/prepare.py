"""Preparation: done once per call and shared by every metric of an ``evaluate``.

From canonical Polars frames (see :mod:`trunc_accessor.frames`) this builds flat NumPy
arrays over *segments* (one segment = one ranking = one (by…, qid)), in ranking order:

* which queries are scored: every qrels qid plus ``queries=``; run-only qids
  are dropped with one warning; a scored qid a system did not answer is an empty segment;
* the order of each ranking and its tie groups: ``ties="average"`` groups
  adjacent equal scores, ``"first"`` and ``"trec_eval"`` make every position its own group,
  so plain and tie-aware metrics run through the same kernels (``"trec_eval9"``: as
  trec_eval 9.0.8 and pytrec_eval, which compare scores as float32);
* each retrieved document's grade, and the judged grades of each qid (for R, ideal gains,
  and bpref's judged non-relevant count).

Kernels never see a frame: they read a :class:`Prepared`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import polars as pl

from .errors import ParameterError
from .frames import (
    SYS,
    InputError,
    check_duplicate_documents,
    number_list,
    qid_sort_keys,
    whole_number,
)
from .warn import DroppedQueriesWarning, EmptyResultWarning, IdentifierWarning, warn

TIES = ("average", "first", "trec_eval", "trec_eval9")


def check_ties(ties: str) -> str:
    if not isinstance(ties, str) or ties not in TIES:
        raise ParameterError(f"ties= must be one of {TIES}, not {ties!r}")
    return ties


@dataclass(eq=False)
class Prepared:
    """Segment arrays for a set of rankings (see module docstring).

    Row arrays (length N, ranking order, segments contiguous):
      ``seg`` segment index, ``pos`` 1-based position, ``grade`` the judged grade
      (NaN for an unjudged document, negative grades kept as given),
      ``gid`` tie-group index.
    Group arrays (length G): ``g_seg``, ``g_start`` (positions before the group in its
    ranking, t_i of McSherry & Najork), ``g_size``.
    Segment arrays (length Q): ``offsets`` (Q+1), ``seg_q`` index of the segment's qid.
    Qid arrays: ``q_offsets`` (n_qids+1) into ``q_grades``, the judged grades of each qid.
    """

    keys: pl.DataFrame
    offsets: np.ndarray
    seg_q: np.ndarray
    seg: np.ndarray
    pos: np.ndarray
    grade: np.ndarray
    gid: np.ndarray
    g_seg: np.ndarray
    g_start: np.ndarray
    g_size: np.ndarray
    q_offsets: np.ndarray
    q_grades: np.ndarray
    max_grade: float
    ties: str
    _cache: dict = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ sizes
    @property
    def n_segments(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_groups(self) -> int:
        return len(self.g_size)

    @cached_property
    def length(self) -> np.ndarray:
        """n, the number of retrieved documents of each ranking."""
        return np.diff(self.offsets)

    @cached_property
    def singleton_groups(self) -> bool:
        return self.n_groups == len(self.pos)

    @cached_property
    def group_first_row(self) -> np.ndarray:
        """The row index of each tie group's first row (a group's rows are contiguous; also
        in a :meth:`restrict`-ed preparation, unlike ``offsets[g_seg] + g_start``)."""
        if self.singleton_groups:
            return np.arange(len(self.pos))
        first = np.ones(len(self.gid), dtype=bool)
        first[1:] = self.gid[1:] != self.gid[:-1]
        return np.flatnonzero(first)

    @cached_property
    def q_seg(self) -> np.ndarray:
        """For each judged row (q_grades), the index of its qid."""
        return np.repeat(np.arange(len(self.q_offsets) - 1), np.diff(self.q_offsets))

    # ------------------------------------------------------------------ reductions
    def seg_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of a row array over each segment (0 for an empty ranking)."""
        return np.bincount(self.seg, weights=values, minlength=self.n_segments)

    def group_sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.gid, weights=values, minlength=self.n_groups)

    def group_mean(self, values: np.ndarray) -> np.ndarray:
        """Each row's value replaced by the mean over its tie group (McSherry & Najork:
        the expected value at a position of a tied group under a uniform order)."""
        if self.singleton_groups:
            return values.astype(np.float64, copy=False)
        return (self.group_sum(values) / self.g_size)[self.gid]

    def qid_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of a judged-row array per qid, broadcast to segments."""
        per_qid = np.bincount(self.q_seg, weights=values, minlength=len(self.q_offsets) - 1)
        return per_qid[self.seg_q]

    def before_group(self, per_group: np.ndarray) -> np.ndarray:
        """For each group, the sum of `per_group` over the earlier groups of its ranking."""
        c = np.cumsum(per_group) - per_group
        first = np.searchsorted(self.g_seg, np.arange(self.n_segments))
        start = np.zeros(self.n_segments, dtype=c.dtype)
        nonempty = first < self.n_groups
        start[nonempty] = c[first[nonempty]]
        return c - start[self.g_seg]

    # ------------------------------------------------------------------ sparse parts
    def group_rows(self, rows: np.ndarray) -> np.ndarray:
        """Every row of the tie groups that hold the given rows (sorted row indices)."""
        if self.singleton_groups or rows.size == 0:
            return rows
        g = self.gid[rows]
        g = g[np.r_[True, g[1:] != g[:-1]]]
        size = self.g_size[g]
        first = self.offsets[self.g_seg[g]] + self.g_start[g]
        ends = np.cumsum(size)
        return np.repeat(first - (ends - size), size) + np.arange(ends[-1] if ends.size else 0)

    def restrict(self, rows: np.ndarray) -> Prepared:
        """The rankings with only ``rows`` (whole tie groups, sorted): positions, groups
        and segment numbers stay those of the full rankings. For sums over rows or groups
        in which the left-out groups contribute nothing (the groups without a relevant
        document, for AP, P@k, DCG, RR, RBP), the restricted preparation gives the same
        per-segment values at the cost of the kept rows only. Not for kernels that index
        rows through ``offsets`` or use ranking lengths as row counts."""
        gid = self.gid[rows]
        boundary = np.ones(len(rows), dtype=bool)
        boundary[1:] = gid[1:] != gid[:-1]
        groups = gid[boundary]
        return Prepared(keys=self.keys, offsets=self.offsets, seg_q=self.seg_q,
                        seg=self.seg[rows], pos=self.pos[rows], grade=self.grade[rows],
                        gid=np.cumsum(boundary) - 1, g_seg=self.g_seg[groups],
                        g_start=self.g_start[groups], g_size=self.g_size[groups],
                        q_offsets=self.q_offsets, q_grades=self.q_grades,
                        max_grade=self.max_grade, ties=self.ties)

    def judged_part(self) -> Prepared:
        """This preparation restricted to the tie groups that hold a judged document (see
        :meth:`restrict`): what AP, P@k, R@k, DCG, RR, RBP and success need, since an
        unjudged document has no gain and is not relevant. Cached."""
        if "judged_part" not in self._cache:
            judged = np.flatnonzero(~np.isnan(self.grade))
            if judged.size == len(self.grade):
                self._cache["judged_part"] = self
            else:
                part = self.restrict(self.group_rows(judged))
                part._cache["judged_part"] = part
                self._cache["judged_part"] = part
        return self._cache["judged_part"]

    # ------------------------------------------------------------------ relevance
    def relevant(self, level: float) -> np.ndarray:
        """Binary relevance of each retrieved row: grade ≥ level (unjudged: 0)."""
        key = ("rel", level)
        if key not in self._cache:
            with np.errstate(invalid="ignore"):
                self._cache[key] = (self.grade >= level).astype(np.float64)
        return self._cache[key]

    def num_relevant(self, level: float) -> np.ndarray:
        """R of each segment: the number of the qid's judged documents with grade ≥ level."""
        key = ("R", level)
        if key not in self._cache:
            self._cache[key] = self.qid_sum((self.q_grades >= level).astype(np.float64))
        return self._cache[key]

    def gain(self) -> np.ndarray:
        """Grade as gain, negative and unjudged as 0."""
        if "gain" not in self._cache:
            self._cache["gain"] = np.where(np.isnan(self.grade), 0.0, np.maximum(self.grade, 0.0))
        return self._cache["gain"]


    # ------------------------------------------------------------------ prefixes
    def cut_points(self, max_depth=None) -> tuple[np.ndarray, np.ndarray]:
        """(segment, depth) of every allowed truncation of every ranking: depth 0 and the
        end of every tie group (with ties="first"/"trec_eval" every position; with
        ties="average" a system that tied documents cannot stop between them), up to
        ``max_depth``."""
        ends = self.g_start + self.g_size
        keep = ends <= max_depth if max_depth is not None else np.ones(len(ends), dtype=bool)
        segs = np.concatenate([np.arange(self.n_segments), self.g_seg[keep]])
        depths = np.concatenate([np.zeros(self.n_segments, dtype=np.int64), ends[keep]])
        order = np.lexsort((depths, segs))
        return segs[order], depths[order]

    def prefixes(self, segs: np.ndarray, depths: np.ndarray, keys: pl.DataFrame) -> Prepared:
        """A Prepared whose rankings are the first ``depths[i]`` positions of ranking
        ``segs[i]`` (depths at tie-group ends): one kernel call then scores every prefix.
        Costs Σ depths rows."""
        lengths = depths.astype(np.int64)
        new_seg = np.repeat(np.arange(len(segs)), lengths)
        starts = np.zeros(len(segs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        within = np.arange(starts[-1]) - starts[new_seg]
        src = self.offsets[segs][new_seg] + within
        gid_src = self.gid[src]
        boundary = np.ones(len(src), dtype=bool)
        boundary[1:] = (new_seg[1:] != new_seg[:-1]) | (gid_src[1:] != gid_src[:-1])
        gid = np.cumsum(boundary) - 1
        first = np.flatnonzero(boundary)
        return Prepared(keys=keys, offsets=starts, seg_q=self.seg_q[segs], seg=new_seg,
                        pos=within + 1, grade=self.grade[src], gid=gid, g_seg=new_seg[first],
                        g_start=within[first], g_size=np.diff(np.append(first, len(src))),
                        q_offsets=self.q_offsets, q_grades=self.q_grades,
                        max_grade=self.max_grade, ties=self.ties)

# --------------------------------------------------------------------------- build
def _positions(seg: np.ndarray, n_segments: int) -> tuple[np.ndarray, np.ndarray]:
    counts = np.bincount(seg, minlength=n_segments)
    offsets = np.zeros(n_segments + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    # 1, 2, … restarting at each ranking, in one array: ones, with each ranking's first
    # row set to 1 − (length of the ranking before it), then a running sum
    pos = np.ones(len(seg), dtype=np.int64)
    nonempty = counts > 0
    firsts, lengths = offsets[:-1][nonempty], counts[nonempty]
    pos[firsts[1:]] = 1 - lengths[:-1]
    np.cumsum(pos, out=pos)
    return offsets, pos


def score_boundaries(score: np.ndarray) -> np.ndarray:
    """True where a row's score differs from the previous row's (and at row 0)."""
    boundary = np.empty(len(score), dtype=bool)
    if len(score):
        boundary[0] = True
        np.not_equal(score[1:], score[:-1], out=boundary[1:])
    return boundary


def _groups(seg: np.ndarray, pos: np.ndarray, boundary: np.ndarray | None):
    """Tie groups: maximal runs of equal score inside a ranking (``boundary``: where the
    score changes, see :func:`score_boundaries`; None: every position its own group)."""
    n = len(seg)
    if boundary is None or n == 0:
        # every position its own group: the group arrays share or broadcast the row arrays
        # (read-only; 16 bytes a row instead of 32)
        gid = np.arange(n, dtype=np.int64)
        return gid, seg, pos - 1, np.broadcast_to(np.int64(1), (n,))
    boundary[1:] |= seg[1:] != seg[:-1]
    gid = np.cumsum(boundary)
    gid -= 1
    starts = np.flatnonzero(boundary)
    del boundary
    g_size = np.empty(len(starts), dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=g_size[:-1])
    g_size[-1] = n - starts[-1]
    g_start = pos[starts]
    g_start -= 1
    return gid, seg[starts], g_start, g_size


def build(keys: pl.DataFrame, seg_q: np.ndarray, seg: np.ndarray, grade: np.ndarray,
          score: np.ndarray | None, q_offsets: np.ndarray, q_grades: np.ndarray,
          max_grade: float, ties: str, boundary: np.ndarray | None = None) -> Prepared:
    """Assemble a :class:`Prepared` from rows already in ranking order. Tie groups
    (``ties="average"``) come from ``score``, or from its ``boundary`` array when the caller
    has dropped the scores (it is consumed)."""
    offsets, pos = _positions(seg, len(seg_q))
    if ties != "average":
        boundary = None
    elif boundary is None and score is not None:
        boundary = score_boundaries(score)
    gid, g_seg, g_start, g_size = _groups(seg, pos, boundary)
    return Prepared(keys=keys, offsets=offsets, seg_q=seg_q, seg=seg, pos=pos, grade=grade,
                    gid=gid, g_seg=g_seg, g_start=g_start, g_size=g_size, q_offsets=q_offsets,
                    q_grades=q_grades, max_grade=max_grade, ties=ties)


def empty(keys: pl.DataFrame, ties: str) -> Prepared:
    """A preparation with no ranking (nothing to score): every kernel answers nothing."""
    z = np.zeros(0, dtype=np.int64)
    return build(keys.clear(), z, z, np.zeros(0), None, np.zeros(1, dtype=np.int64),
                 np.zeros(0), 0.0, ties)


@dataclass(eq=False)
class Notes:
    """What preparation has to tell the user about a call: run rows of
    unscored qids that were dropped, systems none of whose retrieved documents is judged
    (the ids probably do not match), and why the id types differ. A call with one
    preparation says it at once; a call evaluated in query batches (see
    :mod:`trunc_accessor.batches`) gathers it over the batches, which hold disjoint qids,
    and says it once at the end (:meth:`finish`), so the warnings and errors are those of
    the whole call."""

    id_note: str = ""
    rows: int = 0
    dropped_rows: int = 0
    dropped_qids: int = 0
    dropped_example: object = None
    scored_example: object = None
    judged_rows: np.ndarray | None = None
    judged_queries: np.ndarray | None = None
    blind_examples: dict = field(default_factory=dict)  # system code → (docid, qid, hints)

    def add_counts(self, judged_rows: np.ndarray, judged_queries: np.ndarray) -> None:
        if self.judged_rows is None:
            self.judged_rows, self.judged_queries = judged_rows, judged_queries
        else:
            self.judged_rows = self.judged_rows + judged_rows
            self.judged_queries = self.judged_queries + judged_queries

    def merge(self, other: Notes) -> None:
        """Add the notes of another batch of the same call."""
        self.id_note = other.id_note or self.id_note
        self.rows += other.rows
        self.dropped_rows += other.dropped_rows
        self.dropped_qids += other.dropped_qids
        if self.dropped_example is None:
            self.dropped_example = other.dropped_example
        if self.scored_example is None:
            self.scored_example = other.scored_example
        if other.judged_rows is not None:
            self.add_counts(other.judged_rows, other.judged_queries)
        for code, example in other.blind_examples.items():
            self.blind_examples.setdefault(code, example)

    def finish(self, systems: pl.DataFrame | None) -> None:
        """Raise or warn about the whole call (``systems``: the by… keys, row i = code i)."""
        if self.rows and self.dropped_rows == self.rows:
            raise InputError(
                f"no qid of the run is in the qrels or queries= (run qids such as "
                f"{self.dropped_example!r}; qrels qids such as {self.scored_example!r}): "
                f"check that both name the same topics")
        if self.dropped_rows:
            warn(f"{self.dropped_qids} run qid(s) with no judgments and not in queries= were "
                 f"dropped ({self.dropped_rows} rows), e.g. {self.dropped_example!r}",
                 DroppedQueriesWarning)
        blind = np.zeros(0, dtype=np.int64)
        if self.judged_rows is not None:
            blind = np.flatnonzero((self.judged_rows == 0) & (self.judged_queries > 0))
        if not blind.size:
            if self.id_note:
                warn(self.id_note, IdentifierWarning)
            return
        if systems is not None:
            names = [", ".join(f"{k}={v!r}" for k, v in systems.row(int(i), named=True).items())
                     for i in blind[:3]]
            who = "system(s) " + "; ".join(names) + (f" and {blind.size - 3} more"
                                                      if blind.size > 3 else "")
        else:
            who = "the run"
        docid, qid, hints = self.blind_examples[int(blind[0])]
        hints = ([self.id_note.split(":")[0]] if self.id_note else []) + hints
        if not self.id_note:
            hints.append("docid formats that differ between the run and the qrels")
        hints.append("a qrels file for another collection")
        warn(f"{who} retrieved documents for judged queries, but not one of them is in the "
             f"qrels (e.g. docid {docid!r} for qid {qid!r}): every value will be as if "
             f"nothing relevant was found. Likely causes: {'; '.join(hints)}.",
             IdentifierWarning)


def prepare(run: pl.DataFrame | list, qrels: pl.DataFrame, *, systems: pl.DataFrame | None = None,
            queries: pl.Series | None = None, ties: str = "average",
            qid_name: str = "qid", id_note: str = "", judged_only: bool = False,
            max_grade: float | None = None, notes: Notes | None = None) -> Prepared:
    """Prepare canonical frames (``[_sys,] qid, docid, score[, rank]`` and ``qid, docid,
    rel``; see :mod:`trunc_accessor.frames`); the run may be handed over in a one-item
    list, which prepare empties, so the frame is freed as soon as it is not needed.
    ``systems``: the user's by… columns, row i for system code i; the keys of the result
    are those columns and ``qid_name``.
    ``id_note``: why the run's and the qrels' ids may not match (different types), said in
    one :class:`IdentifierWarning` with the systems that retrieved no judged document.
    ``judged_only``: documents without a judgment of grade ≥ 0 are removed before positions
    and ties are found (trec_eval -J, which keeps only documents judged with a grade ≥ 0: a
    negative grade is "in the pool, not judged"; the condensed lists of Sakai 2007).

    For one batch of a call evaluated in query batches: ``systems`` are those of the whole
    call, ``max_grade`` the largest grade of its whole qrels, and ``notes`` gathers what is
    to be said at the end (:class:`Notes`); without ``notes`` it is said now."""
    check_ties(ties)
    if isinstance(run, list):  # handed over: ours to free once its arrays are built
        run = run.pop()
    by = [SYS] if systems is not None else []

    # which qids are scored: every qrels qid, and queries=
    scored = qrels.select("qid")
    if queries is not None and len(queries):
        scored = pl.concat([scored, queries.to_frame("qid").cast(scored.schema)])
    scored = scored.unique()
    scored = scored.sort(qid_sort_keys(scored, "qid")).with_row_index("_q")
    no_qid = pl.Series(qid_name, [], dtype=scored.schema["qid"])
    key_frame = systems.clear().with_columns(no_qid) if systems is not None else no_qid.to_frame()
    if scored.height == 0 and notes is not None:
        # a batch of a larger call without a scored qid: its rows are dropped
        notes.rows += run.height
        notes.dropped_rows += run.height
        if run.height:
            notes.dropped_qids += run["qid"].n_unique()
            if notes.dropped_example is None:
                notes.dropped_example = run["qid"][0]
        return empty(key_frame, ties)
    if scored.height == 0:
        warn("nothing to score: the qrels are empty and queries= names no qid, so the result "
             "is empty", EmptyResultWarning)
        return empty(key_frame, ties)
    if systems is not None and systems.height == 0:
        warn("nothing to score: the run is empty and by= finds no system in it, so the result "
             "is empty", EmptyResultWarning)
        return empty(key_frame, ties)

    n_q = scored.height
    n_sys = systems.height if systems is not None else 1
    sys_code = (run[SYS].to_numpy().astype(np.int64, copy=False) if by
                else np.zeros(run.height, dtype=np.int64))

    # which scored qid each row answers (-1: not scored), found for runs of equal
    # (system, qid) rows: a grouped run costs one small join, not one per row
    q_row = _scored_index(run, scored, by)
    say_now = notes is None
    notes = Notes(id_note=id_note) if notes is None else notes
    notes.rows += run.height
    if notes.scored_example is None:
        notes.scored_example = scored["qid"][0]
    keep = None
    if run.height and q_row.min() < 0:
        dropped = q_row < 0
        qids = run["qid"].filter(pl.Series(dropped))
        notes.dropped_rows += qids.len()
        notes.dropped_qids += qids.n_unique()
        if notes.dropped_example is None:
            notes.dropped_example = qids[0]
        keep = np.flatnonzero(~dropped)

    # the qrels' qids as indices among the scored ones (every qrels qid is scored)
    q_index = (qrels.select("qid").join(scored, on="qid", how="left", maintain_order="left")
               ["_q"].to_numpy().astype(np.int64, copy=False))

    # a 64-bit hash of each docid: checks duplicates and joins the qrels (both exact: on
    # a repeated hash the exact check runs; a hash join's hits are compared as strings)
    doc_hash = _hash(run["docid"])
    _check_duplicates(run, sys_code, q_row, doc_hash, systems)
    grade = _grades(run, qrels, q_row, doc_hash, q_index)
    del doc_hash
    seg = sys_code * n_q + q_row  # segment = sys·Q + q, system-major
    del sys_code, q_row
    score = run["score"].to_numpy().astype(np.float64, copy=False)
    rank = run["rank"].to_numpy() if "rank" in run.columns else None
    if keep is not None:
        seg, grade, score = seg[keep], grade[keep], score[keep]
        rank = rank[keep] if rank is not None else None

    # order: rank ascending, else score descending; nothing is moved when the rows are in ranking order already
    order = _ranking_order(run, keep, seg, score, rank, ties)
    if order is not None:
        seg, grade, score = seg[order], grade[order], score[order]
    del rank
    source = keep if order is None else (order if keep is None else keep[order])
    if judged_only:
        with np.errstate(invalid="ignore"):
            judged = np.flatnonzero(grade >= 0)  # NaN (unjudged) and negative grades go
        seg, grade, score = seg[judged], grade[judged], score[judged]
        source = judged if source is None else source[judged]
    boundary = score_boundaries(score) if ties == "average" else None
    del score  # the tie groups need only where the score changes

    q_counts = np.bincount(q_index, minlength=n_q)
    q_offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(q_counts, out=q_offsets[1:])
    q_grades = qrels["rel"].to_numpy().astype(np.float64, copy=False)
    if len(q_index) > 1 and np.any(q_index[1:] < q_index[:-1]):
        q_grades = q_grades[np.argsort(q_index, kind="stable")]
    if max_grade is None:
        max_grade = largest_grade(qrels)

    seg_sys = np.repeat(np.arange(n_sys, dtype=np.int64), n_q)
    seg_q = np.tile(np.arange(n_q, dtype=np.int64), n_sys)
    qids = scored["qid"].gather(pl.Series(seg_q)).rename(qid_name)
    keys = (systems[seg_sys].with_columns(qids) if systems is not None else qids.to_frame())
    _note_ids(notes, seg, grade, q_counts, n_q, n_sys, run, source)
    del run, source  # the run's own columns are no longer needed (freed if not the user's)
    prep = build(keys, seg_q, seg, grade, None, q_offsets, q_grades, max_grade, ties,
                 boundary=boundary)
    del seg, grade, boundary
    if say_now:
        notes.finish(systems)
    return prep


def largest_grade(qrels: pl.DataFrame, column: str = "rel") -> float:
    """The largest grade of the qrels (0 when there is none): g_max of graded gains."""
    value = qrels.select(pl.col(column).cast(pl.Float64).max()).item() if qrels.height else None
    return float(value) if value is not None else 0.0


def _hash(values: pl.Series, seed: int = 0x5EED) -> np.ndarray:
    return values.hash(seed=seed).to_numpy()


def _key(doc_hash: np.ndarray, code: np.ndarray, multiplier: int = 0x9E3779B97F4A7C15):
    """One 64-bit key of a docid hash and an integer code (wrapping arithmetic)."""
    key = code.astype(np.uint64)
    with np.errstate(over="ignore"):
        key *= np.uint64(multiplier)
    key ^= doc_hash
    return key


def _scored_index(run: pl.DataFrame, scored: pl.DataFrame, by: list[str]) -> np.ndarray:
    """For each run row, the index of its qid among the scored qids (-1 if not scored)."""
    if run.height == 0:
        return np.zeros(0, dtype=np.int64)
    change = pl.col("qid").ne(pl.col("qid").shift())
    for b in by:
        change = change | pl.col(b).ne(pl.col(b).shift())
    starts = np.flatnonzero(run.select(change.fill_null(True)).to_series().to_numpy())
    first = run.select(pl.col("qid").gather(pl.Series(starts)))
    q_of_run = (first.join(scored, on="qid", how="left", maintain_order="left")["_q"]
                .fill_null(-1).to_numpy().astype(np.int64, copy=False))
    return np.repeat(q_of_run, np.diff(np.append(starts, run.height)))


def _check_duplicates(run: pl.DataFrame, sys_code: np.ndarray, q_row: np.ndarray,
                      doc_hash: np.ndarray, systems) -> None:
    """A document twice in one ranking is an error. Distinct 64-bit keys of
    (system, qid, docid) prove there is none; otherwise the exact check (which names the
    document) runs. Rows of unscored qids are keyed by a hash of their qid."""
    if run.height < 2:
        return
    qid_key = q_row
    if q_row.min() < 0:
        qid_key = np.where(q_row < 0, _hash(run["qid"], 0xD0C) | np.uint64(1 << 63),
                           q_row.astype(np.uint64))
    key = _key(doc_hash, qid_key)
    if sys_code.any():
        with np.errstate(over="ignore"):
            key ^= sys_code.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
    ordered = pl.Series(key).sort().to_numpy()  # a parallel sort: cheaper than a hash set
    del key
    if np.any(ordered[1:] == ordered[:-1]):
        check_duplicate_documents(run, systems)


def _grades(run: pl.DataFrame, qrels: pl.DataFrame, q_row: np.ndarray, doc_hash: np.ndarray,
            q_index: np.ndarray) -> np.ndarray:
    """Each run row's judged grade (NaN: unjudged). An inner join on one 64-bit key of
    (scored qid, docid) returns only the judged rows (a left join on the strings would copy
    every row and cost several times more); its hits are then compared as values, and any
    repeated or false hit (a hash collision) sends the exact join."""
    grade = np.full(run.height, np.nan)
    if not run.height or not qrels.height:
        return grade
    qrels_key = pl.Series("k", _key(_hash(qrels["docid"]), q_index))
    hits = (pl.DataFrame({"k": _key(doc_hash, q_row)}).with_row_index("_row")
            .join(qrels_key.to_frame().with_row_index("_qrow"), on="k", how="inner"))
    rows, qrows = hits["_row"].to_numpy(), hits["_qrow"].to_numpy()
    # distinct qrels keys: no run row has two hits; equal values: no false hit
    exact = (qrels_key.n_unique() == len(qrels_key)
             and (q_row[rows] == q_index[qrows]).all()
             and (run["docid"].gather(pl.Series(rows)) == qrels["docid"].gather(pl.Series(qrows))).all())
    if not exact:  # a collision of 64-bit keys: the exact join on the values
        hits = (run.select("qid", "docid").with_row_index("_row")
                .join(qrels.select("qid", "docid").with_row_index("_qrow"), on=["qid", "docid"],
                      how="inner"))
        rows, qrows = hits["_row"].to_numpy(), hits["_qrow"].to_numpy()
    grade[rows] = qrels["rel"].to_numpy()[qrows]
    return grade


def _ranking_order(run: pl.DataFrame, keep, seg, score, rank, ties: str):
    """The permutation that puts the rows in ranking order, or None when they
    already are: by segment, then rank ascending (a ``rank`` column), or score descending
    (stable: equal scores keep their input order), or for ``ties="trec_eval"`` score
    descending then docid descending as strings (``"trec_eval9"``: scores as float32)."""
    if len(seg) < 2:
        return None
    if ties in ("trec_eval", "trec_eval9"):
        key = score.astype(np.float32) if ties == "trec_eval9" else score
        descending = True
    elif rank is not None:
        key, descending = rank, False
    else:
        key, descending = score, True
    same = seg[1:] == seg[:-1]
    wrong = key[1:] > key[:-1] if descending else key[1:] < key[:-1]
    in_order = bool(np.all(seg[1:] >= seg[:-1])) and not np.any(same & wrong)
    docid = None
    if ties in ("trec_eval", "trec_eval9"):
        docid = run["docid"].cast(pl.String)
        if keep is not None:
            docid = docid.gather(pl.Series(keep))
        if in_order:
            tied = np.flatnonzero(same & (key[1:] == key[:-1]))
            if tied.size:
                a, b = docid.gather(pl.Series(tied)), docid.gather(pl.Series(tied + 1))
                in_order = bool((a > b).all())
    if in_order:
        return None
    frame = pl.DataFrame({"seg": seg, "key": key})
    by, desc = ["seg", "key"], [False, descending]
    if docid is not None:
        frame = frame.with_columns(docid.alias("docid"))
        by, desc = [*by, "docid"], [*desc, True]
    return (frame.select(pl.arg_sort_by(by, descending=desc, maintain_order=True))
            .to_series().to_numpy())


def _note_ids(notes: Notes, seg, grade, q_counts, n_q, n_sys, run, source) -> None:
    """Count, per system, the judged documents retrieved and the judged queries answered
    (a system with none of the first and some of the second probably uses other ids:
    :meth:`Notes.finish` warns), and keep an example and hints for such a system.
    ``seg``/``grade``: the prepared rows (ranking order); ``source``: the run row of each
    (None: the same index)."""
    if not len(seg):
        return
    judged_rows = np.bincount(seg[~np.isnan(grade)] // n_q, minlength=n_sys)
    length = np.bincount(seg, minlength=n_sys * n_q)
    answered = (length > 0) & (q_counts[np.arange(n_sys * n_q) % n_q] > 0)
    judged_queries = np.bincount(np.arange(n_sys * n_q) // n_q, weights=answered,
                                 minlength=n_sys)
    notes.add_counts(judged_rows, judged_queries)
    for code in np.flatnonzero((judged_rows == 0) & (judged_queries > 0)):
        if int(code) in notes.blind_examples:
            continue
        rows = np.arange(*np.searchsorted(seg, [code * n_q, (code + 1) * n_q]))
        if source is not None:
            rows = np.sort(source[rows])
        example = run.row(int(rows[0]), named=True)
        docids = run["docid"].gather(pl.Series(rows[:1000]))
        hints = []
        if docids.dtype == pl.String:
            if (docids.str.strip_chars() != docids).any():
                hints.append("docids with leading or trailing whitespace")
            if docids.str.contains(r"^0\d").any():
                hints.append("docids with leading zeros")
        notes.blind_examples[int(code)] = (example["docid"], example["qid"], hints)


MAX_SINGLE_R = 10 ** 7  # relevant documents outside a single ranking that R= may add


def prepare_single(grades, scores=None, *, qrels_grades=None, R=None, relevance_level=1.0,
                   ties: str = "average") -> Prepared:
    """One ranking given as a list of grades (None/NaN = unjudged), best first.

    ``scores`` (optional, non-increasing) mark ties: equal adjacent scores form a tie group.
    The query's judged grades are ``qrels_grades`` if given, else the judged grades of the
    ranking plus, when ``R`` is given, enough documents of grade ``relevance_level`` outside
    the ranking to make R relevant documents (at most 10^7: they are materialised). The
    preparation's ``max_grade`` is the largest judged grade (``max_grade`` of a metric, if
    given, must be at least that).
    """
    check_ties(ties)
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
    n = len(g)
    keys = pl.DataFrame({"qid": [0]})
    return build(keys, np.zeros(1, dtype=np.int64), np.zeros(n, dtype=np.int64), g, s,
                 np.array([0, len(judged)], dtype=np.int64), judged,
                 float(judged.max()) if len(judged) else 0.0,
                 "first" if ties.startswith("trec_eval") else ties)
