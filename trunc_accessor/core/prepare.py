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

import numpy as np
import polars as pl

from trunc_accessor.core.aspects import build_aspects, judged_pairs
from trunc_accessor.core.columns import SYS
from trunc_accessor.core.frames import number_list, whole_number
from trunc_accessor.core.keys import check_duplicate_documents, qid_sort_keys
from trunc_accessor.core.notes import Notes
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
    sys_code = run[SYS].to_numpy().astype(np.int64, copy=False) if by else None

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

    # one 64-bit key of (scored qid, docid hash) per row joins the qrels, then, sorted in
    # place, checks duplicates (both exact: a hash join's hits are compared as values, a
    # repeated key sends the exact duplicate check)
    doc_hash = _hash(run["docid"])
    run_key = _key(doc_hash, q_row)
    grade = _grades(run, qrels, q_row, run_key, q_index)
    aspect_hits = None
    if subtopics is not None:
        pairs, code_q, several, code_w = judged_pairs(subtopics, scored)
        hit_rows, hit_pairs = _hits(run, pairs, q_row, run_key,
                                    pairs["_q"].to_numpy().astype(np.int64, copy=False),
                                    unique=False)
        aspect_hits = pairs, code_q, several, code_w, hit_rows, hit_pairs
    _check_duplicates(run, sys_code, q_row, doc_hash, run_key, systems)
    del doc_hash, run_key
    # segment = sys·Q + q, system-major
    seg = q_row if sys_code is None else sys_code * n_q + q_row
    del sys_code, q_row
    score = run["score"].to_numpy().astype(np.float64, copy=False)
    rank = run["rank"].to_numpy() if "rank" in run.columns else None
    if keep is not None:
        seg, grade, score = seg[keep], grade[keep], score[keep]
        rank = rank[keep] if rank is not None else None

    # order: rank ascending, else score descending; nothing is moved when the rows are in
    # ranking order already
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
    prepared_row = None
    if aspect_hits is not None and source is not None:
        prepared_row = np.full(run.height, -1, dtype=np.int64)
        prepared_row[source] = np.arange(len(source))
    del run, source  # the run's own columns are no longer needed (freed if not the user's)
    prep = build(keys, seg_q, seg, grade, None, q_offsets, q_grades, max_grade, ties,
                 boundary=boundary)
    del seg, grade, boundary
    if aspect_hits is not None:
        prep.aspects = build_aspects(*aspect_hits, prepared_row)
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


def _check_duplicates(run: pl.DataFrame, sys_code: np.ndarray | None, q_row: np.ndarray,
                      doc_hash: np.ndarray, run_key: np.ndarray, systems) -> None:
    """A document twice in one ranking is an error. Distinct 64-bit keys of
    (system, qid, docid) prove there is none; otherwise the exact check (which names the
    document) runs. ``run_key`` (``_key`` of ``doc_hash`` and ``q_row``) is that key
    when every row's qid is scored, and is then sorted in place (it is consumed); rows of
    unscored qids are keyed by a hash of their qid."""
    if run.height < 2:
        return
    key = run_key
    if q_row.min() < 0:
        key = _key(doc_hash, np.where(q_row < 0, _hash(run["qid"], 0xD0C) | np.uint64(1 << 63),
                                      q_row.astype(np.uint64)))
    if sys_code is not None and sys_code.any():
        with np.errstate(over="ignore"):
            key ^= sys_code.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
    key.sort()  # in place (NumPy's vectorised sort): no copy, cheaper than a hash set
    if np.any(key[1:] == key[:-1]):
        check_duplicate_documents(run, systems)


def _grades(run: pl.DataFrame, qrels: pl.DataFrame, q_row: np.ndarray, run_key: np.ndarray,
            q_index: np.ndarray) -> np.ndarray:
    """Each run row's judged grade (NaN: unjudged). An inner join on one 64-bit key of
    (scored qid, docid) returns only the judged rows (a left join on the strings would copy
    every row and cost several times more); its hits are then compared as values, and any
    repeated or false hit (a hash collision) sends the exact join."""
    grade = np.full(run.height, np.nan)
    if not run.height or not qrels.height:
        return grade
    rows, qrows = _hits(run, qrels, q_row, run_key, q_index)
    grade[rows] = qrels["rel"].to_numpy()[qrows]
    return grade


def _hits(run: pl.DataFrame, qrels: pl.DataFrame, q_row: np.ndarray, run_key: np.ndarray,
          q_index: np.ndarray, unique: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The (run row, qrels row) pairs of equal (scored qid, docid): a join on one 64-bit key
    (``run_key``: ``_key`` of the run's docid hashes and ``q_row``) whose hits are then compared as
    values (any false hit, or with ``unique`` a repeated key, sends the exact join on the values).
    ``unique=False``: a qrels (qid, docid) may have several rows (one per subtopic)."""
    if not run.height or not qrels.height:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    qrels_key = pl.Series("k", _key(_hash(qrels["docid"]), q_index))
    hits = (pl.DataFrame({"k": run_key}).with_row_index("_row")
            .join(qrels_key.to_frame().with_row_index("_qrow"), on="k", how="inner"))
    rows, qrows = hits["_row"].to_numpy(), hits["_qrow"].to_numpy()
    # distinct qrels keys: no run row has two hits; equal values: no false hit
    exact = ((not unique or qrels_key.n_unique() == len(qrels_key))
             and (q_row[rows] == q_index[qrows]).all()
             and (run["docid"].gather(pl.Series(rows))
                  == qrels["docid"].gather(pl.Series(qrows))).all())
    if not exact:  # a collision of 64-bit keys: the exact join on the values
        hits = (run.select("qid", "docid").with_row_index("_row")
                .join(qrels.select("qid", "docid").with_row_index("_qrow"), on=["qid", "docid"],
                      how="inner"))
        rows, qrows = hits["_row"].to_numpy(), hits["_qrow"].to_numpy()
    return rows.astype(np.int64, copy=False), qrows.astype(np.int64, copy=False)


def segment_order(seg: np.ndarray, key: np.ndarray, descending: bool = False) -> np.ndarray:
    """The stable order of rows by segment (integers ≥ 0), then ``key`` ascending (or
    ``descending``; NaN last either way, -0.0 equal to 0.0). One NumPy sort of 64-bit words
    holding the segment and the key's leading bits; rows whose words are equal (tied keys,
    or keys that differ only in the dropped bits) are then ordered by the whole key and
    their row number."""
    if len(seg) < 2:
        return np.arange(len(seg))
    sign = np.uint64(1 << 63)
    if key.dtype.kind == "f":  # the floats' order as unsigned words: flip the sign bit of
        # positive numbers, every bit of negative ones (-0.0 as 0.0)
        word = (key.astype(np.float64, copy=False) + 0.0).view(np.uint64)
        flip = (word.view(np.int64) >> 63).view(np.uint64)
        flip |= sign
        word ^= flip
        del flip
    else:
        word = key.astype(np.int64).view(np.uint64)
        word ^= sign
    if descending:
        np.invert(word, out=word)
    if key.dtype.kind == "f":
        word[np.isnan(key)] = np.iinfo(np.uint64).max
    shift = np.uint64(max(int(seg.max()), 1).bit_length())
    packed = seg.astype(np.uint64)
    packed <<= np.uint64(64) - shift
    packed |= word >> shift
    order = np.argsort(packed)
    packed = packed[order]
    tie = packed[1:] == packed[:-1]
    del packed
    if tie.any():  # each run of equal words by the whole key, then row number
        tied = np.zeros(len(order), dtype=bool)
        tied[1:] = tie
        tied[:-1] |= tie
        at = np.flatnonzero(tied)
        run = np.concatenate(([0], np.cumsum(~tie)))[at]
        rows = order[at]
        again = (pl.DataFrame({"run": run, "word": word[rows], "row": rows})
                 .select(pl.arg_sort_by("run", "word", "row")).to_series().to_numpy())
        order[at] = rows[again]
    return order


def _ranking_order(run: pl.DataFrame, keep, seg, score, rank, ties: str):
    """The permutation that puts the rows in ranking order, or None when they
    already are: by segment, then rank ascending (a ``rank`` column), or score descending
    (stable: equal scores keep their input order), or for ``ties="trec_eval"`` score
    descending then docid descending as strings (``"trec_eval9"``: scores as float32);
    ``"score_docid"``: score descending then docid ascending; ``"score_input"``: score
    descending, equal scores in input order, a rank column ignored."""
    if len(seg) < 2:
        return None
    by_docid = ties in ("trec_eval", "trec_eval9", "score_docid")
    if ties in ("trec_eval", "trec_eval9"):
        key = score.astype(np.float32) if ties == "trec_eval9" else score
        descending = True
    elif rank is not None and ties not in ("score_docid", "score_input"):
        key, descending = rank, False
    else:
        key, descending = score, True
    same = seg[1:] == seg[:-1]
    wrong = key[1:] > key[:-1] if descending else key[1:] < key[:-1]
    in_order = bool(np.all(seg[1:] >= seg[:-1])) and not np.any(same & wrong)
    docid = None
    docid_descending = ties != "score_docid"
    if by_docid:
        docid = run["docid"].cast(pl.String)
        if keep is not None:
            docid = docid.gather(pl.Series(keep))
        if in_order:
            tied = np.flatnonzero(same & (key[1:] == key[:-1]))
            if tied.size:
                a, b = docid.gather(pl.Series(tied)), docid.gather(pl.Series(tied + 1))
                in_order = bool((a > b).all() if docid_descending else (a < b).all())
    if in_order:
        return None
    if docid is None:
        return segment_order(seg, key, descending)
    frame = pl.DataFrame({"seg": seg, "key": key, "docid": docid})
    return (frame.select(pl.arg_sort_by(["seg", "key", "docid"],
                                        descending=[False, descending, docid_descending],
                                        maintain_order=True))
            .to_series().to_numpy())


def _note_ids(notes: Notes, seg, grade, q_counts, n_q, n_sys, run, source) -> None:
    """Count, per system, the judged documents retrieved and the judged queries answered
    (a system with none of the first and some of the second probably uses other ids:
    ``Notes.finish`` warns), and keep an example and hints for such a system.
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
    given, must be at least that). ``ties`` comes checked (one of ``prepared.TIES``).
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
    n = len(g)
    keys = pl.DataFrame({"qid": [0]})
    return build(keys, np.zeros(1, dtype=np.int64), np.zeros(n, dtype=np.int64), g, s,
                 np.array([0, len(judged)], dtype=np.int64), judged,
                 float(judged.max()) if len(judged) else 0.0,
                 "first" if ties.startswith("trec_eval") else ties)
