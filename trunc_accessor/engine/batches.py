"""Runs larger than memory: evaluation in query batches.

A lazy run (a Polars LazyFrame, e.g. ``pl.scan_parquet(...)``, or a Parquet path given to
``evaluate_parquet``) is evaluated a batch of whole queries at a time, so memory is
bounded by the batch, not by the run:

1. a first, streaming pass counts the run's rows per qid and finds its systems (the
   ``by=`` keys);
2. the sorted qids (of the run, the qrels and ``queries=``) are cut into consecutive
   ranges of about ``batch_rows`` run rows (a qid is never split: every system's ranking
   of it is in the same batch, so the largest single qid must fit in memory);
3. each range is read (``filter(qid between lo and hi)``: a run file sorted by qid lets the
   reader skip the other row groups), validated, prepared and scored on its own, with
   what must hold for the whole call shared by every batch: the systems, the largest grade
   of the qrels (graded ERR, RBP, …), and the warnings, gathered and said once at the end.

Each ranking is scored by the same kernels as in one eager call, so the values are
identical, and the rows come back in the eager order (system, then qid). The qrels are
held in memory (they are small next to a run).
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np
import polars as pl

from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames
from trunc_accessor.core import keys as _keys
from trunc_accessor.core.notes import Notes
from trunc_accessor.core.prepare import largest_grade
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine import workers
from trunc_accessor.errors import InputError

BATCH_ROWS = 4_000_000
"""Run rows per batch when none is given: with the run's own columns, the preparation and
the kernels this keeps a batch around 1 GiB."""

PARALLEL_ROWS = 2_000_000
"""Runs of fewer rows are scored in this process: a worker's start (an import of the
library, ~0.5 s) and a batch's fixed costs would outweigh the gain."""

PARALLEL_BATCH_ROWS = 250_000
"""The smallest batch given to a worker (below it a batch's fixed costs dominate)."""

BATCHES_PER_WORKER = 3
"""Batches per worker when the run is cut for workers: the last ones to finish are short,
so no worker waits long for the others."""


def collect_streaming(frames_: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    """Collect small aggregates of a large lazy run with Polars' streaming engine (memory
    bounded by the aggregate)."""
    return pl.collect_all(frames_, engine="streaming")


def defer(function: Callable[[], pl.DataFrame], schema: dict) -> pl.LazyFrame:
    """A LazyFrame whose rows ``function`` computes when it is collected. (A one-row
    map_batches rather than ``pl.defer``, which calls the function on another thread, where
    a warning could not point at the user's line.)"""
    return pl.LazyFrame({"_": [0]}).map_batches(lambda _: function(), schema=schema)


def systems_of(run: pl.LazyFrame, by) -> pl.LazyFrame:
    """The distinct by… keys of a lazy run. A Categorical or Enum key is made distinct as
    text and cast back: Polars 1.30's streaming ``unique`` panics on categoricals ("string
    caches don't match") even within one frame."""
    schema = run.collect_schema()
    keys = [pl.col(b).cast(pl.String) if isinstance(schema[b], (pl.Categorical, pl.Enum))
            else pl.col(b) for b in by]
    distinct = run.select(keys).unique()
    return distinct.with_columns(pl.col(b).cast(schema[b]) for b in by
                                 if isinstance(schema[b], (pl.Categorical, pl.Enum)))


def plan(run: pl.LazyFrame, qrels: pl.DataFrame, cols: _columns.Columns, kt: _keys.KeyTypes,
         queries: pl.Series | None):
    """(run rows per qid, sorted by qid; systems frame or None) for a lazy run (module
    doc, 1): every qid of the run, the qrels and ``queries=``."""
    qid = pl.col(cols.run_qid)
    if run.collect_schema()[cols.run_qid] != kt.qid:
        qid = qid.cast(kt.qid)
    aggregates = [run.group_by(qid.alias("qid")).agg(pl.len().alias("rows"))]
    if cols.by:
        aggregates.append(systems_of(run, cols.by))
    found = collect_streaming(aggregates)
    counts = found[0]
    # a missing qid belongs to no qid range: it would vanish from every batch unsaid
    if counts["qid"].null_count():
        row = run.filter(pl.col(cols.run_qid).is_null()).head(1).collect().row(0, named=True)
        raise InputError(f"run column {cols.run_qid!r} has a missing value (row "
                         f"{', '.join(f'{k}={v!r}' for k, v in row.items())})")
    if qrels[cols.qrels_qid].null_count():
        row = qrels.filter(pl.col(cols.qrels_qid).is_null()).row(0, named=True)
        raise InputError(f"qrels column {cols.qrels_qid!r} has a missing value (row "
                         f"{', '.join(f'{k}={v!r}' for k, v in row.items())})")
    others = [qrels.select(pl.col(cols.qrels_qid).cast(kt.qid).alias("qid"))]
    if queries is not None and len(queries):
        others.append(queries.cast(kt.qid).alias("qid").to_frame())
    extra = pl.concat(others).unique().with_columns(pl.lit(0, pl.UInt32).alias("rows"))
    counts = (pl.concat([counts.with_columns(pl.col("rows").cast(pl.UInt32)), extra])
              .group_by("qid").agg(pl.col("rows").sum()).sort("qid"))
    systems = None
    if cols.by:
        systems = _keys.distinct_systems(found[1], cols.by)
    return counts, systems


def _ranges(counts: pl.DataFrame, batch_rows: int) -> list[tuple]:
    """Consecutive qid ranges of about ``batch_rows`` rows each (a qid is never split)."""
    if counts.height == 0:
        return []
    rows = counts["rows"].to_numpy().astype(np.int64)
    qids = counts["qid"]
    batch = (np.cumsum(rows) - rows) // batch_rows  # the batch a qid's first row falls in
    starts = [0, *(np.flatnonzero(batch[1:] != batch[:-1]) + 1).tolist()]
    ends = [*starts[1:], len(rows)]
    return [(qids[a], qids[b - 1]) for a, b in zip(starts, ends)]


def batched(run: pl.LazyFrame, qrels, call: Callable, *, by=None, queries=None,
            batch_rows: int | None = None, n_jobs: int = 1) -> pl.DataFrame:
    """``call(run_batch, qrels_batch, queries_batch, batch)`` on every query batch of a lazy
    run (module doc), its answers (Polars frames of by…, qid and value columns) in the eager
    order. ``batch`` is an ``engine.Batch``; ``batch_rows`` comes checked
    (``options.check_batch_rows``; None: ``BATCH_ROWS``); ``n_jobs`` (checked,
    ``workers.jobs``): worker processes for the batches (``parallel``)."""
    batch_rows = BATCH_ROWS if batch_rows is None else batch_rows
    cols = engine.columns_of(run, qrels, by)
    hint = None if cols.by else _columns.likely_system_column(run, engine.run_columns(cols))
    run = run.select(engine.run_columns(cols))
    q = engine._eager(frames.to_polars(qrels, engine.qrels_columns(cols), "qrels",
                                       (cols.qrels_qid, cols.qrels_docid)))
    queries_s = _keys.queries_series(queries)
    run_schema = run.collect_schema()
    _keys.check_schema(run_schema, q.schema, cols)
    kt = _keys.key_types(run_schema, q.schema, cols, queries_s)
    counts, systems = plan(run, q, cols, kt, queries_s)
    nothing_scored = q.height == 0 and (queries_s is None or not len(queries_s))
    if not counts.height or nothing_scored or (cols.by and systems.height == 0):
        # nothing to score: the eager path says so and answers with the empty frame
        return call(run.head(0).collect(), q, queries, None)
    n = _workers_for(run, call, int(counts["rows"].sum()), n_jobs)
    ranges = _ranges(counts, _batch_size(batch_rows, int(counts["rows"].sum()), n))
    max_grade = largest_grade(q, cols.rel)

    judgments = _by_qid(q, cols.qrels_qid, kt)

    def tasks():
        for lo, hi in ranges:
            yield (call, _between(run, cols.run_qid, run_schema, kt, lo, hi), judgments(lo, hi),
                   _queries_between(queries_s, kt, lo, hi),
                   engine.Batch(systems=systems, max_grade=max_grade, system_hint=hint))

    notes = Notes()
    answers = []
    try:
        for answer, found in _scored(tasks(), n):
            answers.append(answer)
            notes.merge(found)
    except Exception:
        # an error in a batch (e.g. a metric refusing a tie): say what the batches before
        # it found, as an eager call warns before its kernels run, then raise
        with contextlib.suppress(ValueError):
            notes.finish(systems)
        raise
    notes.finish(systems)
    out = pl.concat(answers, how="vertical")
    # batches are ranges of qids in string order: a stable sort gives the eager order
    # (system, then qid, digit-only qids in natural order)
    return _keys.sort_results(out, cols.by, cols.run_qid)


def _workers_for(run: pl.LazyFrame, call: Callable, rows: int, n_jobs: int) -> int:
    """How many worker processes score the batches (1: this process). Workers read their
    batch themselves, so the run's plan is sent to them: a plan that reads files (a scan of
    Parquet, CSV, IPC, …), not one holding in-memory frames (sending those would copy the
    data) or one that does not pickle (a Python function defined in a script); a ``call``
    that does not pickle (a metric defined in the user's session) is scored here too."""
    if n_jobs < 2 or rows < PARALLEL_ROWS:
        return 1
    try:
        in_memory = any(line.lstrip().startswith("DF [")
                        for line in run.explain(optimized=False).splitlines())
    except Exception:  # noqa: BLE001 - a plan Polars cannot describe is scored here
        return 1
    if in_memory or not workers.portable(call, (run,)):
        return 1
    return n_jobs


def _batch_size(batch_rows: int, rows: int, n: int) -> int:
    """Rows per batch: ``batch_rows``, or smaller so that each of ``n`` workers gets
    ``BATCHES_PER_WORKER`` batches (not below ``PARALLEL_BATCH_ROWS``)."""
    if n < 2:
        return batch_rows
    share = -(-rows // (n * BATCHES_PER_WORKER))
    return max(1, min(batch_rows, max(PARALLEL_BATCH_ROWS, share)))


def _score(call: Callable, run: pl.LazyFrame, qrels: pl.DataFrame, queries, batch):
    """One batch (read here, or in a worker process): ``call``'s answer and the notes."""
    return call(run.collect(), qrels, queries, batch), batch.notes


def _scored(tasks, n: int):
    """The batches' (answer, notes), in order: in this process, or on ``n`` workers (a
    task a worker cannot load, e.g. a function of the user's script, is scored here)."""
    if n < 2:
        return (_score(*task) for task in tasks)
    return workers.scored(_score, tasks, n)


def _by_qid(qrels: pl.DataFrame, column: str, kt: _keys.KeyTypes) -> Callable:
    """``slice(lo, hi)``: the qrels rows of qids lo…hi, in their input order, from one stable
    sort by qid (not a scan of the whole qrels per batch)."""
    name = _columns.fresh_name(qrels.columns, "__qid")
    ordered = qrels.with_columns(pl.col(column).cast(kt.qid).alias(name)).sort(
        name, maintain_order=True)
    key, ordered = ordered[name], ordered.drop(name)

    def judged(lo, hi) -> pl.DataFrame:
        a = int(key.search_sorted(pl.Series([lo], dtype=kt.qid), side="left")[0])
        b = int(key.search_sorted(pl.Series([hi], dtype=kt.qid), side="right")[0])
        return ordered.slice(a, b - a)

    return judged


def _between(frame, column: str, schema, kt: _keys.KeyTypes, lo, hi):
    qid = pl.col(column)
    if schema[column] != kt.qid:
        qid = qid.cast(kt.qid)
    return frame.filter(qid.is_between(pl.lit(lo, kt.qid), pl.lit(hi, kt.qid), closed="both"))


def _queries_between(queries: pl.Series | None, kt, lo, hi):
    if queries is None or not len(queries):
        return queries
    try:
        q = queries.cast(kt.qid, strict=True)
    except Exception:  # noqa: BLE001 - the batch's own call names the bad value
        return queries
    if q.is_null().any():
        raise InputError("queries= holds a missing qid")
    return queries.filter(q.is_between(pl.lit(lo, kt.qid), pl.lit(hi, kt.qid), closed="both"))
