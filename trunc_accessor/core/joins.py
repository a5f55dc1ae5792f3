"""Run rows matched to the scored qids and to the judgments, by 64-bit keys.

Preparation (``trunc_accessor.core.prepare``) joins strings of a run of millions of rows
to its qrels. Here one 64-bit key of (scored qid, docid hash) per row does it: an inner
join on the keys returns only the judged rows, and, sorted, the keys prove that
no document is twice in a ranking. Both answers are exact: a hash join's hits are compared
as values, and any false or repeated hit sends the exact join (or the exact duplicate
check, which names the document).
"""
from __future__ import annotations

import numpy as np
import polars as pl

from trunc_accessor.core.keys import check_duplicate_documents


def hash_values(values: pl.Series, seed: int = 0x5EED) -> np.ndarray:
    return values.hash(seed=seed).to_numpy()


def row_key(doc_hash: np.ndarray, code: np.ndarray, multiplier: int = 0x9E3779B97F4A7C15):
    """One 64-bit key of a docid hash and an integer code (wrapping arithmetic)."""
    key = code.astype(np.uint64)
    with np.errstate(over="ignore"):
        key *= np.uint64(multiplier)
    key ^= doc_hash
    return key


def run_keys(run: pl.DataFrame, q_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each run row's docid hash and its 64-bit key (``row_key`` of that hash and ``q_row``,
    the row's scored qid index)."""
    doc_hash = hash_values(run["docid"])
    return doc_hash, row_key(doc_hash, q_row)


def scored_index(run: pl.DataFrame, scored: pl.DataFrame, by: list[str]) -> np.ndarray:
    """For each run row, the index of its qid among the scored qids (-1 if not scored)."""
    if run.height == 0:
        return np.zeros(0, dtype=np.int64)
    # the runs of equal qids (Polars' run-length encoding: no shifted copy of the column)
    runs = run["qid"].rle().struct.unnest()  # (length, value): fields named by version
    starts = np.zeros(runs.height, dtype=np.int64)
    np.cumsum(runs.to_series(0).to_numpy()[:-1], out=starts[1:])
    first = runs.select(runs.to_series(1).alias("qid"))
    for b in by:  # integer codes (the system): a new system starts a run too
        code = run[b].to_numpy()
        more = np.flatnonzero(code[1:] != code[:-1]) + 1
        if len(more):
            starts = np.union1d(starts, more)
            first = run.select(pl.col("qid").gather(pl.Series(starts)))
    q_of_run = (first.join(scored, on="qid", how="left", maintain_order="left")["_q"]
                .fill_null(-1).to_numpy().astype(np.int64, copy=False))
    return np.repeat(q_of_run, np.diff(np.append(starts, run.height)))


def check_duplicates(run: pl.DataFrame, sys_code: np.ndarray | None, q_row: np.ndarray,
                     doc_hash: np.ndarray, run_key: np.ndarray, systems) -> None:
    """A document twice in one ranking is an error. Distinct 64-bit keys of
    (system, qid, docid) prove there is none; otherwise the exact check (which names the
    document) runs. ``run_key`` (``row_key`` of ``doc_hash`` and ``q_row``) is that key
    when every row's qid is scored (the caller's copy is not changed); rows of unscored qids
    are keyed by a hash of their qid."""
    if run.height < 2:
        return
    key = run_key
    if q_row.min() < 0:
        unscored = hash_values(run["qid"], 0xD0C) | np.uint64(1 << 63)
        key = row_key(doc_hash, np.where(q_row < 0, unscored, q_row.astype(np.uint64)))
    if sys_code is not None and sys_code.any():
        with np.errstate(over="ignore"):
            key = key ^ (sys_code.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F))
    # Polars' parallel sort: 10M keys in 0.17 s on 2 cores, NumPy's in-place sort 0.64 s
    # (bench/id_conversion.py); it costs one copy of the keys
    ordered = pl.Series(key).sort().to_numpy()
    del key
    if np.any(ordered[1:] == ordered[:-1]):
        check_duplicate_documents(run, systems)


def judged_grades(run: pl.DataFrame, qrels: pl.DataFrame, q_row: np.ndarray,
                  run_key: np.ndarray, q_index: np.ndarray) -> np.ndarray:
    """Each run row's judged grade (NaN: unjudged). An inner join on one 64-bit key of
    (scored qid, docid) returns only the judged rows (a left join on the strings would copy
    every row and cost several times more); its hits are then compared as values, and any
    repeated or false hit (a hash collision) sends the exact join."""
    grade = np.full(run.height, np.nan)
    if not run.height or not qrels.height:
        return grade
    rows, qrows = judged_hits(run, qrels, q_row, run_key, q_index)
    grade[rows] = qrels["rel"].to_numpy()[qrows]
    return grade


def judged_hits(run: pl.DataFrame, qrels: pl.DataFrame, q_row: np.ndarray,
                run_key: np.ndarray, q_index: np.ndarray,
                unique: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The (run row, qrels row) pairs of equal (scored qid, docid): a join on one 64-bit key
    (``run_key``: ``row_key`` of the run's docid hashes and ``q_row``) whose hits are then
    compared as values (any false hit, or with ``unique`` a repeated key, sends the exact join
    on the values).
    ``unique=False``: a qrels (qid, docid) may have several rows (one per subtopic)."""
    if not run.height or not qrels.height:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    qrels_key = pl.Series("k", row_key(hash_values(qrels["docid"]), q_index))
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
