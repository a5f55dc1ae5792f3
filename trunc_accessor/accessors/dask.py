"""``DataFrame.ir`` for Dask: the engine run partition by partition, on a cluster.

Importing trunc_accessor registers ``.ir`` on ``dask.dataframe.DataFrame`` when Dask is
installed (``pip install "trunc_accessor[dask]"``); the registration waits until
``dask.dataframe`` is first imported, so a process that never uses Dask does not load it.
The methods are the pandas accessor's, with the same signatures (every metric, ``evaluate``,
``cutoff_curve``, ``optimal_cutoff``, ``crp``, ``crp_archetype``, ``truncate``,
``truncate_at``); each returns a Dask object at once and computes on ``.compute()``, which
gives what the pandas accessor returns for the computed run: same columns, index, values and
row order.

How a call is evaluated:

1. **Checked now.** The engine first runs the call on one row of the run's meta (and of the
   qrels), so a missing column, a bad argument or a bad column type raises at the call, with
   the pandas accessor's error; what needs the data (a document retrieved twice, a missing
   id) raises on compute, with the same class.
2. **Whole queries per partition.** A run whose index is its qid column with known
   divisions (``set_index("qid")``; ``read_parquet(..., index="qid",
   calculate_divisions=True)``), or a run of one partition, already holds each query in one
   partition. Any other run is shuffled once by qid (``shuffle(on=qid)``, as many partitions
   as it had; the method is Dask's, ``dataframe.shuffle.method``), carrying each row's
   input position so that every ranking keeps its input order (``ties="first"``, equal
   ranks, ``crp``'s grades).
3. **Facts of the whole call.** As :mod:`trunc_accessor.batches` does for lazy Polars runs,
   small tasks find the systems (the distinct ``by=`` keys of the whole run, read from the
   ``by=`` columns alone) and the largest grade of the whole qrels, and every partition is
   prepared with them (an :class:`trunc_accessor.engine.Batch`): system codes, graded gains
   (ERR, RBP) and empty rankings are those of a single call.
4. **Qrels.** Judgments of at most :data:`BROADCAST_QRELS_ROWS` rows given as pandas or
   Polars (or a Dask frame of one partition) are *broadcast*: converted once, sent once to
   each worker, and each partition takes the judgments of the qids its run holds. Larger
   ones, and Dask qrels of several partitions (whose size is unknown until computed), are
   *joined partition-wise*: run and qrels are both shuffled by one hash of the qid (its
   decimal digits for integers, so that ``7`` meets ``"7"`` as in the engine) into the same
   number of partitions, and partition i of the run is evaluated with partition i of the
   qrels. Qrels and ``queries=`` qids that no partition holds are scored once, at the end,
   as every system's empty ranking.
5. **One answer.** A last task gathers the partitions' answers and notes
   (:class:`trunc_accessor.prepare.Notes`, merged as the lazy path merges its batches),
   says the call's warnings once or raises its errors (:meth:`Notes.finish`), and sorts the
   rows into the pandas accessor's order. On a ``distributed`` worker its warnings are
   forwarded to the client with ``distributed.warn`` (they show up in the client's session
   like any warning, located in distributed's code; errors reach it as Dask re-raises
   them); with Dask's local schedulers they are ordinary warnings. What a warning gives as
   an example (a dropped qid, a docid) is the first one of the partition merged first, not
   necessarily the first row of the run.

The answer is a Dask DataFrame (a Series for a metric method) of one partition, indexed as
the pandas answer (a MultiIndex with ``by=``). Per-query values are small; ``cutoff_curve``
and ``crp`` have a row per cut-off or retrieved document, so on a run larger than a worker
bound them with ``max_depth=``/``depth=``. ``truncate``/``truncate_at`` return the run's own
partitions, rows and index (a shuffled run is cut on the shuffled copy and the kept rows
are picked from the original partitions). ``plot_crp`` computes the queries it draws; ``rbo``
and ``overlap`` are not available on Dask runs.

>>> import dask.dataframe as dd, trunc_accessor as ta
>>> run, qrels = ta.load_example()
>>> drun = dd.from_pandas(run.sample(frac=1, random_state=0), npartitions=3)
>>> values = drun.ir.evaluate(qrels, ["ap", "ndcg@10"], ties="trec_eval")
>>> type(values).__name__, values.npartitions
('DataFrame', 1)
>>> values.compute().equals(run.ir.evaluate(qrels, ["ap", "ndcg@10"], ties="trec_eval"))
True
"""
from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl
from dask.dataframe.extensions import register_dataframe_accessor

from .. import engine, frames, truncation
from ..prepare import Notes, largest_grade
from ..registry import Measure
from ._methods import install

BROADCAST_QRELS_ROWS = 5_000_000
"""Qrels (pandas or Polars) of at most this many rows are broadcast to every worker; larger
ones are shuffled by qid with the run and joined partition by partition. 5M judgments are
about 100–250 MB as Polars (string ids), a copy that every worker can hold; the largest
public qrels (MS MARCO, TREC DL, ClueWeb) are well below. A Dask qrels frame is broadcast
when it has one partition, else joined partition-wise."""

_SHIFT = 40  # input position = partition number << 40 | row within the partition


# --------------------------------------------------------------------------- call description
@dataclass(frozen=True)
class _Call:
    """What to compute on every piece of the run (picklable: it travels to the workers).
    ``kind``: "evaluate", "curve", "optimal", or a crp kind ("curve"/"archetype") as
    ``crp_kind``; ``kwargs``: the engine's keyword arguments other than ``queries``."""

    kind: str
    kwargs: dict
    named: tuple = ()
    measure: Measure | None = None
    crp_kind: str = ""
    single: bool = False

    def answer(self, run, qrels, queries, batch) -> tuple[pl.DataFrame, frames.Columns]:
        """The engine's answer as one Polars frame: key columns, then value columns
        (``evaluate``: Float64 with NaN for undefined values, as the engine gives them)."""
        if self.kind == "evaluate":
            keys, values, cols = engine.compute(run, qrels, list(self.named), queries=queries,
                                                batch=batch, **self.kwargs)
            return keys.with_columns(
                [pl.Series(label, v, dtype=pl.Float64) for label, v in values.items()]), cols
        if self.kind in ("curve", "optimal"):
            curve, cols = engine.cutoff_curve(run, qrels, self.measure, queries=queries,
                                              batch=batch, **self.kwargs)
            if self.kind == "optimal":
                curve = truncation.optimal(curve, [*cols.by, cols.run_qid])
            return curve, cols
        return engine.crp(run, qrels, self.crp_kind, queries=queries, batch=batch,
                          **self.kwargs)

    def pandas(self, frame: pl.DataFrame, cols: frames.Columns):
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
    input order, then it is dropped); ``route``: the column routing rows with the qrels."""

    columns: tuple  # the run columns the engine reads
    qid: str
    qrels_qid: str
    reset: bool = False
    seq: str | None = None
    route: str | None = None


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
    cols: frames.Columns | None
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


def _route(values: pd.Series) -> np.ndarray:
    """A 64-bit hash of each qid's string form (run and qrels meet in one partition)."""
    s = _as_string(frames.to_polars(values.to_frame("q"), ["q"], "run")["q"])
    return s.hash(seed=0x7A).to_numpy().view(np.int64)


def _tag(part: pd.DataFrame, qid: str, reset: bool, seq: str | None, route: str | None,
         partition_info=None) -> pd.DataFrame:
    if reset:
        part = part.reset_index()
    extra = {}
    if seq is not None:
        number = partition_info["number"] if partition_info else 0
        extra[seq] = (np.int64(number) << _SHIFT) + np.arange(len(part), dtype=np.int64)
    if route is not None:
        extra[route] = _route(part[qid])
    return part.assign(**extra) if extra else part


def _run_polars(part: pd.DataFrame, layout: _Layout) -> pl.DataFrame:
    """A run partition as the engine's Polars input, rows in input order."""
    if layout.reset:
        part = part.reset_index()
    names = list(layout.columns) + ([layout.seq] if layout.seq else [])
    run = frames.to_polars(part, names, "run")
    if layout.seq:
        if not run[layout.seq].is_sorted():
            run = run.sort(layout.seq, maintain_order=True)
        run = run.drop(layout.seq)
    return run


def _qrels_polars(qrels, columns, schema=None) -> pl.DataFrame:
    q = engine._eager(frames.to_polars(qrels, list(columns), "qrels"))
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
        if pad.null_count() == 0 and (_as_string(pad) == _as_string(qrels[qrels_qid].head(1))).all():
            sub = pad.rename(queries.name)
    return sub


# --------------------------------------------------------------------------- tasks
def _local_systems(part: pd.DataFrame, by: tuple) -> pl.DataFrame:
    return frames.to_polars(part, list(by), "run").unique()


def _systems(parts: list, by: tuple) -> pl.DataFrame:
    return frames.distinct_systems(pl.concat(parts, how="vertical_relaxed"), by)


def _no_missing_qid(q: pl.DataFrame, qid: str) -> None:
    """A qrels row without a qid belongs to no query's piece: it would vanish unsaid (the
    eager path raises the same error)."""
    if q[qid].null_count():
        row = q.filter(pl.col(qid).is_null()).row(0, named=True)
        raise frames.InputError(f"qrels column {qid!r} has a missing value (row "
                                f"{', '.join(f'{k}={v!r}' for k, v in row.items())})")


def _qrels_facts(part: pd.DataFrame, columns: tuple, rel: str):
    q = _qrels_polars(part, columns)
    _no_missing_qid(q, columns[0])
    return q.height, largest_grade(q, rel), q.schema, q.head(1)


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
    elif by and systems.height == 0:
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
        q = _qrels_polars(qrels, list(plan.qrels_schema), plan.qrels_schema)
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
           else _run_polars(empty_run, _Layout(layout.columns, layout.qid, layout.qrels_qid)))
    if plan.nothing:  # the eager call says why there is nothing to score, and answers
        sample = plan.qrels_sample if plan.nothing == "systems" else plan.qrels_sample.head(0)
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
    out = frames.sort_results(out, cols.by, cols.run_qid)
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


def _qrels_route(part: pd.DataFrame, qid: str, route: str) -> pd.DataFrame:
    return part.assign(**{route: _route(part[qid])})


def _scatter(q: pl.DataFrame):
    """Broadcast qrels: scattered to the workers when a distributed client is active (the
    graph stays small), else a graph literal."""
    if "distributed" in sys.modules:
        try:
            from distributed import default_client

            client = default_client()
        except (ImportError, ValueError):
            client = None
        if client is not None:
            return client.scatter(q, broadcast=True, hash=False)
    return dask.delayed(q, pure=False)


# --------------------------------------------------------------------------- truncation tasks
def _truncate_part(part: pd.DataFrame, depth, marker, by, reset: bool) -> pd.DataFrame:
    """``truncate``/``truncate_at`` of one partition holding whole rankings: the pandas
    accessor's, on the partition with the qid as a column; the kept rows of ``part``."""
    from .pandas import PandasIR

    flat = part.reset_index() if reset else part.reset_index(drop=True)
    kept = PandasIR(flat)._truncate(depth, marker, by)
    return part.iloc[kept.index.to_numpy()]


def _kept_rows(part: pd.DataFrame, depth, marker, by, seq: str) -> pd.DataFrame:
    """The input positions of the rows a shuffled partition keeps."""
    from .pandas import PandasIR

    part = part.sort_values(seq, kind="stable").reset_index(drop=True)
    kept = PandasIR(part.drop(columns=[seq]))._truncate(depth, marker, by)
    positions = part[seq].to_numpy()[kept.index.to_numpy()]
    return pd.DataFrame({"partition": positions >> _SHIFT,
                         "row": positions & ((1 << _SHIFT) - 1)})


def _pick_rows(part: pd.DataFrame, kept: pd.DataFrame) -> pd.DataFrame:
    return part.iloc[np.sort(kept["row"].to_numpy())]


# --------------------------------------------------------------------------- the accessor
@register_dataframe_accessor("ir")
class DaskIR:
    """IR evaluation of a Dask run frame (qid, docid, score[, rank]); see the module doc."""

    def __init__(self, frame: dd.DataFrame):
        self._frame = frame

    # ------------------------------------------------------------------ layout
    def _qid_in_index(self) -> bool:
        meta = self._frame._meta
        return (meta.index.name in frames.QID_NAMES
                and not any(c in frames.QID_NAMES for c in meta.columns))

    def _meta_row(self) -> pd.DataFrame:
        """One row with the run's columns and dtypes (its values are made up)."""
        try:
            row = self._frame._meta_nonempty.head(1)
        except Exception:  # noqa: BLE001 - exotic dtypes: an empty frame still has the names
            row = self._frame._meta
        return row.reset_index() if self._qid_in_index() else row

    def _split(self, qid: str) -> bool:
        """Does every qid lie in one partition already? Known divisions on a qid index say
        the partitions are sorted, not that a qid never straddles two of them: files sorted
        by qid that share a qid at their boundary give divisions that look sorted (Dask's
        read_parquet(calculate_divisions=True)). So the index is read once (one column) and
        every partition's largest qid must be below the next partition's smallest."""
        f = self._frame
        if f.npartitions == 1:
            return True
        if not (f.known_divisions and f._meta.index.name == qid):
            return False
        if getattr(self, "_whole_queries", None) is None:
            def bounds(index):
                return pd.DataFrame({"lo": [index.min()], "hi": [index.max()]}) if len(index) \
                    else pd.DataFrame({"lo": [], "hi": []}, dtype=index.dtype)
            meta = pd.DataFrame({"lo": pd.Series([], dtype=f.index.dtype),
                                 "hi": pd.Series([], dtype=f.index.dtype)})
            # on the whole frame: a projection (f.index, f[[col]]) lets Dask's Parquet reader
            # merge files into other partitions than the ones evaluated
            found = f.map_partitions(lambda part: bounds(part.index), meta=meta).compute()
            lo, hi = found["lo"].tolist(), found["hi"].tolist()
            self._whole_queries = all(h < n for h, n in zip(hi[:-1], lo[1:]))
        return self._whole_queries

    # ------------------------------------------------------------------ the graph
    def _lazy(self, qrels, call: _Call, queries):
        """The Dask answer of ``call`` (module doc)."""
        run_row = self._meta_row()
        qrels_is_dask = isinstance(qrels, dd.DataFrame)
        if qrels_is_dask:
            qrels_row = qrels._meta_nonempty.head(1)
        else:
            frames.check_frame(qrels, "qrels")
            qrels_row = qrels.head(1)
        by = call.kwargs.get("by")
        cols = engine.columns_of(run_row, qrels_row, by)
        systems = (frames.distinct_systems(frames.to_polars(run_row, list(cols.by), "run"), cols.by)
                   if cols.by else None)
        with warnings.catch_warnings():  # the engine on one row: checks, and the answer's meta
            warnings.simplefilter("ignore")
            frame, cols = call.answer(run_row, qrels_row, queries,
                                      engine.Batch(systems=systems, max_grade=0.0))
            meta = call.pandas(frame, cols).iloc[:0]
        queries_s = frames.queries_series(queries)
        if queries_s is not None:  # one copy in the graph, whatever the number of partitions
            queries_s = dask.delayed(queries_s, pure=False)
        qcols = tuple(engine.qrels_columns(cols))

        run = self._frame
        names = list(run._meta.columns) + [run._meta.index.name]
        reset = self._qid_in_index()
        broadcast = not qrels_is_dask and _height(qrels) <= BROADCAST_QRELS_ROWS
        if qrels_is_dask:
            broadcast = qrels.npartitions == 1
        shuffle = not broadcast or not self._split(cols.run_qid)
        seq = frames.fresh_name(names, "__ta_seq") if shuffle else None
        route = None if broadcast else frames.fresh_name([*names, seq], "__ta_route")
        layout = _Layout(tuple(engine.run_columns(cols)), cols.run_qid, cols.qrels_qid,
                         reset=reset and not shuffle, seq=seq, route=route)
        if shuffle:  # whole queries per partition (routed as the qrels when those are too)
            tag = {"qid": cols.run_qid, "reset": reset, "seq": seq, "route": route}
            tagged = run.map_partitions(_tag, **tag,
                                        meta=_tag(run._meta, **tag, partition_info={"number": 0}))
            run = tagged.shuffle(on=route or cols.run_qid, npartitions=run.npartitions)
        run_parts = run.to_delayed()

        system_parts = None
        if cols.by:
            system_parts = [dask.delayed(_local_systems)(p, cols.by)
                            for p in self._frame[list(cols.by)].to_delayed()]
            system_parts = dask.delayed(_systems)(system_parts, cols.by)
        if broadcast:
            if qrels_is_dask:
                q = dask.delayed(_qrels_polars)(dask.delayed(_concat)(qrels.to_delayed()), qcols)
            else:
                q = _scatter(_qrels_polars(qrels, qcols))
            facts = [dask.delayed(_qrels_facts_polars)(q, cols.rel)]
            qrels_parts = [q] * len(run_parts)
        else:
            if qrels_is_dask:
                dq = qrels
            else:
                dq = (qrels.loc[:, list(qcols)] if frames.is_pandas(qrels)
                      else frames.to_pandas(_qrels_polars(qrels, qcols)))
                dq = dd.from_pandas(dq, npartitions=run.npartitions)
            facts = [dask.delayed(_qrels_facts)(p, qcols, cols.rel) for p in dq.to_delayed()]
            dq = dq.map_partitions(_qrels_route, cols.qrels_qid, route,
                                   meta=dq._meta.assign(**{route: np.int64(0)}))
            qrels_parts = dq.shuffle(on=route, npartitions=run.npartitions).to_delayed()
            q = None
        plan = dask.delayed(_plan)(system_parts, facts, queries_s, cols.by)
        pieces = [dask.delayed(_piece)(p, qp, plan, call, layout, queries_s, broadcast)
                  for p, qp in zip(run_parts, qrels_parts)]
        answer = dask.delayed(_merge)(pieces, q, plan, call, layout, queries_s, self._meta_empty())
        return dd.from_delayed([answer], meta=meta, verify_meta=False)

    def _meta_empty(self) -> pd.DataFrame:
        meta = self._frame._meta
        return meta.reset_index() if self._qid_in_index() else meta

    # ------------------------------------------------------------------ what _methods calls
    def _evaluate(self, qrels, named, *, single, by, queries, ties, relevance_level,
                  judged_only, undefined):
        call = _Call("evaluate", {"by": by, "ties": ties, "relevance_level": relevance_level,
                                  "judged_only": judged_only, "undefined": undefined},
                     named=tuple(named), single=single)
        return self._lazy(qrels, call, queries)

    def _curve(self, qrels, measure, *, optimal, max_depth, ties, by, queries, relevance_level,
               undefined):
        call = _Call("optimal" if optimal else "curve",
                     {"max_depth": max_depth, "by": by, "ties": ties,
                      "relevance_level": relevance_level, "undefined": undefined},
                     measure=measure)
        return self._lazy(qrels, call, queries)

    def _crp(self, qrels, kind, *, depth, ties, by, queries, relevance_level):
        call = _Call("crp", {"depth": depth, "by": by, "ties": ties,
                             "relevance_level": relevance_level}, crp_kind=kind)
        return self._lazy(qrels, call, queries)

    def _truncate(self, depth, marker, by):
        from .pandas import PandasIR

        run = self._frame
        row = self._meta_row()
        if isinstance(depth, (dd.DataFrame, dd.Series)):
            depth = dask.delayed(_concat)(depth.to_delayed())
        else:  # checks now (the depths' keys and types, the marker), as pandas does
            PandasIR(row)._truncate(depth, marker, by)
            if not isinstance(depth, (int, float, np.number)):  # whole to every partition
                depth = dask.delayed(depth, pure=False)
        cols = frames.resolve_run_columns(row, by)
        meta = run._meta
        if self._split(cols.qid):
            return run.map_partitions(_truncate_part, depth, marker, by, self._qid_in_index(),
                                      meta=meta)
        names = list(meta.columns) + [meta.index.name]
        seq = frames.fresh_name(names, "__ta_seq")
        tag = {"qid": cols.qid, "reset": self._qid_in_index(), "seq": seq, "route": None}
        tagged = run.map_partitions(_tag, **tag,
                                    meta=_tag(meta, **tag, partition_info={"number": 0}))
        shuffled = tagged[[*cols.needed, seq]].shuffle(on=cols.qid, npartitions=run.npartitions)
        kept = shuffled.map_partitions(
            _kept_rows, depth, marker, by, seq,
            meta=pd.DataFrame({"partition": np.zeros(0, np.int64), "row": np.zeros(0, np.int64)}))
        kept = kept.set_index("partition", divisions=list(range(run.npartitions + 1)))
        parts = [dask.delayed(_pick_rows)(p, k)
                 for p, k in zip(run.to_delayed(), kept.to_delayed())]
        return dd.from_delayed(parts, meta=meta, divisions=run.divisions, verify_meta=False)


install(DaskIR)


def _plot_crp(self, qrels, qids=None, *, depth=None, ties="average", by=None,
              relevance_level=1, ncols=3, figsize=None):
    """CRP curves, one panel per query (see the pandas accessor's ``plot_crp``): the queries
    drawn (all of them without ``qids``) are computed and drawn on the client."""
    from ..plot import plot_crp

    run = self._frame.reset_index() if self._qid_in_index() else self._frame
    if qids is not None:
        wanted = [str(q) for q in ([qids] if isinstance(qids, (str, int)) else qids)]
        qid = frames.resolve_run_columns(self._meta_row(), by).qid
        run = run[run[qid].astype(str).isin(wanted)]
    if isinstance(qrels, dd.DataFrame):
        qrels = qrels.compute()
    return plot_crp(run.compute(), qrels, qids=qids, depth=depth, ties=ties, by=by,
                    relevance_level=relevance_level, ncols=ncols, figsize=figsize)


def _unavailable(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(
            f"run.ir.{name} is not available on Dask runs: compute both runs first "
            f"(run.compute().ir.{name}(other.compute(), ...)), or restrict them to the queries "
            "you compare")

    method.__name__ = name
    return method


DaskIR.plot_crp = _plot_crp
DaskIR.rbo = _unavailable("rbo")
DaskIR.overlap = _unavailable("overlap")
