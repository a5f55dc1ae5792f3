"""The tasks of the Dask accessor's graph (``dask``): how a call is described to the
workers, how a partition's rows become the engine's frames, the per-partition pieces and
their merge, and the truncation tasks. Plain functions of pandas partitions and Polars
frames, so the graph pickles them by reference."""
from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass
from typing import cast

import dask
import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor import errors
from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames
from trunc_accessor.core import keys as _keys
from trunc_accessor.core.notes import Notes
from trunc_accessor.core.prepare import largest_grade
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine import truncation
from trunc_accessor.engine.options import Options
from trunc_accessor.metrics.registry import Measure

BROADCAST_QRELS_ROWS = 5_000_000
"""Qrels (pandas or Polars) of at most this many rows are broadcast to every worker; larger
ones are split on the client by the run partition each qid belongs to, and each partition
receives its slice only. 5M judgments are about 100–250 MB as Polars (string ids), a copy
that every worker can hold; the largest public qrels (MS MARCO, TREC DL, ClueWeb) are well
below. A Dask qrels frame is always split, by one task per qrels partition."""

TASK_SHUFFLE_PARTITIONS = 64
"""A run that must be shuffled, of at most this many partitions, is split by tasks (each
partition's rows split by qid hash bucket into one small Polars frame per partition, held
in the workers' memory until scored: n² frames); a run of more partitions goes through
Dask's own shuffle (``dataframe.shuffle.method``: P2P on a distributed cluster, which
spills to disk), on the same buckets."""

_SHIFT = 40  # input position = partition number << 40 | row within the partition


# --------------------------------------------------------------------------- call description
@dataclass(frozen=True)
class _Call:
    """What to compute on every piece of the run (picklable: it travels to the workers).
    ``kind``: "evaluate", "curve", "optimal", or a crp kind ("curve"/"archetype") as
    ``crp_kind``; ``kwargs``: the engine's keyword arguments other than ``queries`` and
    the options; ``options``: the call's, checked where it came in."""

    kind: str
    kwargs: dict
    options: Options
    named: tuple = ()
    measure: Measure | None = None
    crp_kind: str = ""
    single: bool = False

    def answer(self, run, qrels, queries, batch) -> tuple[pl.DataFrame, _columns.Columns]:
        """The engine's answer as one Polars frame: key columns, then value columns
        (``evaluate``: Float64 with NaN for undefined values, as the engine gives them)."""
        if self.kind == "evaluate":
            keys, values, cols = engine.compute(run, qrels, list(self.named), self.options,
                                                queries=queries, batch=batch, **self.kwargs)
            return keys.with_columns(
                [pl.Series(label, v, dtype=pl.Float64) for label, v in values.items()]), cols
        if self.kind in ("curve", "optimal"):
            assert self.measure is not None  # the curves are of one measure
            curve, cols = engine.cutoff_curve(run, qrels, self.measure, self.options,
                                              queries=queries, batch=batch, **self.kwargs)
            if self.kind == "optimal":
                curve = truncation.optimal(curve, [*cols.by, cols.run_qid])
            return curve, cols
        return engine.crp(run, qrels, self.crp_kind, self.options, queries=queries,
                          batch=batch, **self.kwargs)

    def pandas(self, frame: pl.DataFrame, cols: _columns.Columns):
        """The answer as the pandas accessor returns it."""
        keys = [*cols.by, cols.run_qid]
        if self.kind == "evaluate":
            values = {c: frame[c].to_numpy() for c in frame.columns[len(keys):]}
            return frames.result_pandas(frame.select(keys), values, self.single)
        if self.kind == "optimal" or self.crp_kind == "archetype":
            return frames.to_pandas(frame).set_index(keys)
        return frames.to_pandas(frame)


@dataclass(frozen=True)
class _Layout:
    """Where the run's pieces come from: ``reset``: the qid is the index (moved to a column
    first); ``seq``: the column holding each row's input position (rows are put back in
    input order, then it is dropped); ``route``: the column routing rows with the qrels;
    ``docid``: the run's docid column (with ``qid``, read as ids: a ``category`` column by
    its codes)."""

    columns: tuple  # the run columns the engine reads
    qid: str
    qrels_qid: str
    reset: bool = False
    seq: str | None = None
    route: str | None = None
    docid: str | None = None


def _polars(frame, columns, label: str, keys=()) -> pl.DataFrame:
    """A pandas partition's columns as an (eager) Polars frame (``keys``: its id columns)."""
    return cast(pl.DataFrame, frames.to_polars(frame, columns, label, keys))


@dataclass
class _Plan:
    """Facts of the whole call that every piece shares (module doc, 3)."""

    systems: pl.DataFrame | None
    max_grade: float
    nothing: str | None = None  # "qrels"/"systems": nothing to score (the eager call says so)
    qrels_schema: dict | None = None  # partition-wise: the qrels' Polars schema
    qrels_sample: pl.DataFrame | None = None  # one judgment (for the "systems" message)


@dataclass
class _Piece:
    frame: pl.DataFrame | None
    cols: _columns.Columns | None
    notes: Notes
    owned: pl.Series  # qids (as strings) this piece scored
    run_schema: pl.Schema | None = None
    spare_qrels: pl.DataFrame | None = None  # qrels of a piece without run rows
    ran: bool = False


# --------------------------------------------------------------------------- row helpers
def _as_string(series: pl.Series) -> pl.Series:
    """qids compared as the engine compares them across types: integers as decimal digits."""
    return series.cast(pl.String, strict=False)


def _within(qids: pl.Series, owned: pl.Series) -> pl.Series:
    """Which ``qids`` (any key type) are among ``owned`` (strings)."""
    return _as_string(qids).is_in(owned.implode())


def _hash_bucket(qids: pl.Series, n: int) -> np.ndarray:
    """``hash(qid as a string) % n`` of each qid (any key type): the partition of a shuffled
    run that holds it, and of the qrels that go with it."""
    return (_as_string(qids).hash(seed=0x7A) % n).to_numpy().astype(np.int64)


def _route(values: pd.Series, n: int) -> np.ndarray:
    """The bucket of each qid of a run partition (``_hash_bucket``)."""
    return _hash_bucket(_polars(values.to_frame("q"), ["q"], "run", ("q",))["q"], n)


def _tag(part: pd.DataFrame, qid: str, reset: bool, seq: str | None, route: str | None,
         n: int = 1, partition_info=None) -> pd.DataFrame:
    if reset:
        part = part.reset_index()
    extra = {}
    if seq is not None:
        number = partition_info["number"] if partition_info else 0
        extra[seq] = (np.int64(number) << _SHIFT) + np.arange(len(part), dtype=np.int64)
    if route is not None:
        extra[route] = _route(part[qid], n)
    return part.assign(**extra) if extra else part


def _run_polars(part: pd.DataFrame | pl.DataFrame | list, layout: _Layout) -> pl.DataFrame:
    """A run partition (pandas, or Polars read from Parquet) as the engine's Polars input,
    rows in input order (a list: the frames of a shuffled partition, see ``split_run``)."""
    if isinstance(part, list):
        part = pl.concat(part, how="vertical_relaxed")
    if layout.reset and not isinstance(part, pl.DataFrame):
        part = part.reset_index()
    names = list(layout.columns) + ([layout.seq] if layout.seq else [])
    run = _polars(part, names, "run", tuple(k for k in (layout.qid, layout.docid) if k))
    if layout.seq:
        if not run[layout.seq].is_sorted():
            run = run.sort(layout.seq, maintain_order=True)
        run = run.drop(layout.seq)
    return run


def _qrels_polars(qrels, columns, schema=None) -> pl.DataFrame:
    q = engine._eager(_polars(qrels, list(columns), "qrels", tuple(columns)[:2]))
    if schema is not None and q.height == 0:
        q = pl.DataFrame(schema=schema)
    return q


def _queries_for(queries: pl.Series | None, owned: pl.Series, qrels: pl.DataFrame,
                 qrels_qid: str, inside: bool = True) -> pl.Series | None:
    """The ``queries=`` qids a piece scores: those it owns (``inside``) or those no piece
    owns. A piece left without any keeps one of its judged qids (scored anyway) so that the
    engine finds the key type of the whole call (queries of strings make integer qids
    strings)."""
    if queries is None or not len(queries):
        return queries
    hit = _within(queries, owned).fill_null(False)
    sub = queries.filter(hit if inside else ~hit)
    if not len(sub) and qrels.height:
        pad = qrels[qrels_qid].head(1).cast(queries.dtype, strict=False)
        if (pad.null_count() == 0
                and (_as_string(pad) == _as_string(qrels[qrels_qid].head(1))).all()):
            sub = pad.rename(queries.name)
    return sub


# --------------------------------------------------------------------------- tasks
def _local_systems(part: pd.DataFrame, by: tuple) -> pl.DataFrame:
    return _polars(part, list(by), "run").unique()


def _systems(parts: list, by: tuple) -> pl.DataFrame:
    return _keys.distinct_systems(pl.concat(parts, how="vertical_relaxed"), by)


def _no_missing_qid(q: pl.DataFrame, qid: str) -> None:
    """A qrels row without a qid belongs to no query's piece: it would vanish unsaid (the
    eager path raises the same error)."""
    if q[qid].null_count():
        row = q.filter(pl.col(qid).is_null()).row(0, named=True)
        raise errors.InputError(f"qrels column {qid!r} has a missing value (row "
                                f"{', '.join(f'{k}={v!r}' for k, v in row.items())})")


def _plan(systems: pl.DataFrame | None, facts: list, queries: pl.Series | None,
          by: tuple) -> _Plan:
    """The call's plan from the systems and (rows, max grade, schema, sample) of the qrels
    (one entry: broadcast; one per partition: partition-wise)."""
    rows = sum(f[0] for f in facts)
    grades = [f[1] for f in facts if f[0]]
    filled = [f for f in facts if f[0]] or facts
    plan = _Plan(systems=systems, max_grade=max(grades) if grades else 0.0,
                 qrels_schema=dict(filled[0][2]), qrels_sample=filled[0][3])
    if rows == 0 and (queries is None or not len(queries)):
        plan.nothing = "qrels"
    elif by and systems is not None and systems.height == 0:
        plan.nothing = "systems"
    return plan


def _piece(part: pd.DataFrame, qrels, plan: _Plan, call: _Call, layout: _Layout,
           queries: pl.Series | None, broadcast: bool) -> _Piece:
    """One partition of the run evaluated by the engine with the call's facts."""
    run = _run_polars(part, layout)
    run_qids = _as_string(run[layout.qid]).unique().rename("qid")
    if broadcast:
        owned = run_qids
        q = qrels.filter(_within(qrels[layout.qrels_qid], owned))
    else:
        q = qrels if isinstance(qrels, pl.DataFrame) else pl.concat(qrels, how="vertical_relaxed")
        if q.height == 0:
            q = pl.DataFrame(schema=plan.qrels_schema)
        owned = pl.concat([run_qids, _as_string(q[layout.qrels_qid]).rename("qid")]).unique()
    if run.height == 0:  # nothing retrieved here: its judged qids are scored at the end
        return _Piece(None, None, Notes(), owned.clear(), spare_qrels=q)
    if plan.systems is not None:  # a by= column without a value here has no type: the call's
        run = run.with_columns(pl.col(b).cast(t) for b, t in plan.systems.schema.items()
                               if run.schema[b] == pl.Null)
    batch = engine.Batch(systems=plan.systems, max_grade=plan.max_grade)
    frame, cols = call.answer(run, q, _queries_for(queries, owned, q, layout.qrels_qid), batch)
    return _Piece(frame, cols, batch.notes, owned, run.schema, ran=True)


def _emit(function, *args):
    """Call ``function``; on a distributed worker, forward the warnings it emits to the
    clients (``distributed.warn``), which show them in the user's session."""
    worker = None
    if "distributed" in sys.modules:
        try:
            from distributed import get_worker

            worker = get_worker()
        except (ImportError, ValueError):
            worker = None
    if worker is None:
        return function(*args)
    from distributed import warn as forward

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args)
    for w in caught:
        forward(w.message, w.category)
    return result


def _merge(pieces: list, qrels, plan: _Plan, call: _Call, layout: _Layout,
           queries: pl.Series | None, empty_run: pd.DataFrame):
    """The call's answer from its pieces (module doc, 5)."""
    ran = [p for p in pieces if p.ran]
    schema = ran[0].run_schema if ran else None
    run = (pl.DataFrame(schema=schema) if schema is not None
           else _run_polars(empty_run, _Layout(layout.columns, layout.qid, layout.qrels_qid,
                                               docid=layout.docid)))
    if plan.nothing:  # the eager call says why there is nothing to score, and answers
        sample = cast(pl.DataFrame, plan.qrels_sample)
        sample = sample if plan.nothing == "systems" else sample.head(0)
        frame, cols = _emit(call.answer, run, sample, queries, None)
        return call.pandas(frame, cols)
    owned = pl.concat([pl.Series("qid", [], dtype=pl.String)] + [p.owned for p in pieces]).unique()
    if qrels is not None:  # broadcast: the judged qids no piece holds
        spare = qrels.filter(~_within(qrels[layout.qrels_qid], owned))
    else:
        spares = [p.spare_qrels for p in pieces if p.spare_qrels is not None]
        spare = (pl.concat(spares, how="vertical_relaxed") if spares
                 else pl.DataFrame(schema=plan.qrels_schema))
    rest = _queries_for(queries, owned, spare, layout.qrels_qid, inside=False)
    if spare.height or (rest is not None and len(rest)):
        batch = engine.Batch(systems=plan.systems, max_grade=plan.max_grade)
        frame, cols = call.answer(run, spare, rest, batch)
        ran.append(_Piece(frame, cols, batch.notes, owned, ran=True))
    notes = Notes()
    for p in ran:
        notes.merge(p.notes)
    _emit(notes.finish, plan.systems)
    cols = ran[0].cols
    out = pl.concat([p.frame for p in ran], how="vertical_relaxed")
    out = _keys.sort_results(out, cols.by, cols.run_qid)
    return call.pandas(out, cols)


def _concat(parts: list):
    """Partitions of a small Dask object (depths, a one-partition qrels) as one pandas."""
    return pd.concat(parts) if len(parts) != 1 else parts[0]


def _height(qrels) -> int:
    if isinstance(qrels, pl.LazyFrame):
        return 0  # collected on the client: broadcast (the eager path collects it too)
    return qrels.height if isinstance(qrels, pl.DataFrame) else len(qrels)


def _qrels_facts_polars(q: pl.DataFrame, rel: str):
    _no_missing_qid(q, q.columns[0])
    return q.height, largest_grade(q, rel), q.schema, q.head(1)


def _client():
    """The active ``distributed`` client, or None (no cluster: Dask's local schedulers)."""
    if "distributed" not in sys.modules:
        return None
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


def _scatter(q: pl.DataFrame):
    """Broadcast qrels: scattered to the workers when a distributed client is active (the
    graph stays small), else a graph literal."""
    client = _client()
    if client is not None:
        return client.scatter(q, broadcast=True, hash=False)
    return dask.delayed(q, pure=False)


# --------------------------------------------------------------------------- truncation tasks
def _truncate_part(part: pd.DataFrame, depth, marker, by, reset: bool) -> pd.DataFrame:
    """``truncate``/``truncate_at`` of one partition holding whole rankings: the pandas
    accessor's, on the partition with the qid as a column; the kept rows of ``part``."""
    from trunc_accessor.frontends.pandas import PandasIR

    flat = part.reset_index() if reset else part.reset_index(drop=True)
    kept = PandasIR(flat)._truncate(depth, marker, by)
    return part.iloc[kept.index.to_numpy()]


def _kept_rows(part: pd.DataFrame, depth, marker, by, seq: str) -> pd.DataFrame:
    """The input positions of the rows a shuffled partition keeps."""
    from trunc_accessor.frontends.pandas import PandasIR

    part = part.sort_values(seq, kind="stable").reset_index(drop=True)
    kept = PandasIR(part.drop(columns=[seq]))._truncate(depth, marker, by)
    positions = part[seq].to_numpy()[kept.index.to_numpy()]
    return pd.DataFrame({"partition": positions >> _SHIFT,
                         "row": positions & ((1 << _SHIFT) - 1)})


def _pick_rows(part: pd.DataFrame, kept: pd.DataFrame) -> pd.DataFrame:
    return part.iloc[np.sort(kept["row"].to_numpy())]
