"""``DataFrame.ir`` for Dask: the engine run partition by partition, on a cluster.

Importing trunc_accessor registers ``.ir`` on ``dask.dataframe.DataFrame`` when Dask is
installed (the ``dask`` extra, ``pip install -e ".[dask]"``); the registration waits until
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
2. **Whole queries per partition.** A run whose partitions already hold whole queries is
   evaluated as it lies, never shuffled: the qid ranges of its partitions (smallest and
   largest qid of each, read from the Parquet footers of a ``dd.read_parquet`` run or the
   paths of hive-style ``qid=...`` directories, else computed by one small task per
   partition that reads the qid column alone) must not overlap once sorted, so that a qid
   lies in one partition; the rows inside a partition may come in any order. Files sorted
   by qid, hive-style directories by qid, and ``set_index("qid")`` runs are such runs;
   files that share a qid at their boundary are not. A plain ``dd.read_parquet`` run is
   read by the tasks that score it, straight into Polars. Any other run is shuffled once:
   only the columns the engine reads, each row carrying its input position (so that every
   ranking keeps its input order: ``ties="first"``, equal ranks, ``crp``'s grades), into
   partition ``hash(qid as a string) % n`` of as many as it had: by tasks that split each
   partition into one Polars frame per bucket, or, above ``TASK_SHUFFLE_PARTITIONS``
   partitions, by Dask's shuffle (``set_index`` on the bucket, an integer; the method is
   Dask's, ``dataframe.shuffle.method``). (``trunc_accessor.frontends._dask_layout``.)
3. **Facts of the whole call.** As ``trunc_accessor.engine.batches`` does for lazy Polars runs,
   small tasks find the systems (the distinct ``by=`` keys of the whole run, read from the
   ``by=`` columns alone) and the largest grade of the whole qrels (from the tasks that
   split them), and every partition is prepared with them (an
   ``trunc_accessor.engine.Batch``): system codes, graded gains (ERR, RBP) and empty
   rankings are those of a single call.
4. **Qrels.** Judgments of at most ``BROADCAST_QRELS_ROWS`` rows given as pandas or
   Polars are *broadcast*: converted once, sent once to each worker, and each partition
   takes the judgments of the qids its run holds. Larger ones, and Dask qrels, are never
   shuffled: they are *split* by the partition each qid belongs to (its qid range: from a
   partition's smallest qid to the next partition's; or its hash bucket when the run was
   shuffled), on the client once for pandas or Polars qrels (each slice scattered to the
   workers) or by one task per Dask qrels partition, and partition i of the run is
   evaluated with slice i only, so a worker holds its partition and that slice, never the
   whole qrels. A qrels qid compares with a run qid as the engine compares them (``7``
   meets ``"7"``). Judged qids and ``queries=`` qids that no partition retrieves are
   scored by the partition whose slice holds them, or once at the end, as every system's
   empty ranking.
5. **One answer.** A last task gathers the partitions' answers and notes
   (``trunc_accessor.core.prepare.Notes``, merged as the lazy path merges its batches),
   says the call's warnings once or raises its errors (``Notes.finish``), and sorts the
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
partitions, rows and index (a run whose partitions share queries is cut on a copy
shuffled on the qid's hash, and the kept rows are picked from the original partitions).
``plot_crp`` computes the queries it draws; ``rbo`` and ``overlap`` are not available on Dask runs.

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

import contextlib
import dataclasses
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl
from dask.dataframe.extensions import register_dataframe_accessor

from trunc_accessor._typing import Figure, Frame
from trunc_accessor.core import columns as _columns
from trunc_accessor.core import keys as _keys
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine import options as _options

# the module, not its names: when this module is imported because Dask was first imported by
# _dask_layout itself (the package's import hook registers .ir then), _dask_layout is half-run
from trunc_accessor.frontends import _dask_layout as _lay
from trunc_accessor.frontends._dask_parts import (
    BROADCAST_QRELS_ROWS,
    TASK_SHUFFLE_PARTITIONS,
    _Call,
    _concat,
    _height,
    _kept_rows,
    _Layout,
    _local_systems,
    _merge,
    _pick_rows,
    _piece,
    _plan,
    _polars,
    _qrels_facts_polars,
    _qrels_polars,
    _scatter,
    _systems,
    _tag,
    _truncate_part,
)
from trunc_accessor.frontends._generated import Accessor
from trunc_accessor.frontends.methods import reserve


# --------------------------------------------------------------------------- the graph's parts
def _answer_meta(run_row: pd.DataFrame, qrels, call: _Call, queries):
    """(the call's columns, the answer's meta): the engine run on one row of the run and of
    the qrels checks the call before any partition is read, and shapes an empty answer."""
    if isinstance(qrels, dd.DataFrame):
        qrels_row = qrels._meta_nonempty.head(1)
    else:
        _columns.check_frame(qrels, "qrels")
        qrels_row = qrels.head(1)
    cols = engine.columns_of(run_row, qrels_row, call.kwargs.get("by"))
    systems = (_keys.distinct_systems(_polars(run_row, list(cols.by), "run"), cols.by)
               if cols.by else None)
    with warnings.catch_warnings():  # the engine on one row: checks, and the answer's meta
        warnings.simplefilter("ignore")
        frame, cols = call.answer(run_row, qrels_row, queries,
                                  engine.Batch(systems=systems, max_grade=0.0))
        meta = call.pandas(frame, cols).iloc[:0]
    return cols, meta


def _layout(run: dd.DataFrame, cols, reset: bool, shuffle: bool) -> _Layout:
    """Where the run's pieces come from: a shuffled run carries each row's input position
    (``seq``), in a column named apart from the run's."""
    names = list(run._meta.columns) + [run._meta.index.name]
    seq = _columns.fresh_name(names, "__ta_seq") if shuffle else None
    return _Layout(tuple(engine.run_columns(cols)), cols.run_qid, cols.qrels_qid,
                   reset=reset, seq=seq, docid=cols.run_docid)


def _dask_shuffled(run: dd.DataFrame, reset: bool, layout: _Layout) -> dd.DataFrame:
    """The run shuffled by Dask (``dataframe.shuffle.method``) into the partitions numbered
    by the hash buckets of their qids: the engine's columns, each row's input position, and
    the bucket (an integer; ``set_index`` with one division per partition)."""
    n, seq = run.npartitions, layout.seq
    assert seq is not None  # a shuffled run carries each row's input position
    route = _columns.fresh_name([*run._meta.columns, run._meta.index.name, seq], "__ta_route")
    tag: dict[str, Any] = {"qid": layout.qid, "reset": reset, "seq": seq, "route": route,
                           "n": n}
    tagged = run.map_partitions(_tag, **tag,
                                meta=_tag(run._meta, **tag, partition_info={"number": 0}))
    return tagged[[*layout.columns, seq, route]].set_index(
        route, divisions=list(range(n + 1)))


def _read_piece(source: tuple, *args) -> Any:
    """``_piece`` of a partition that the task reads itself (Parquet files or row groups:
    ``read_part``'s arguments), so that a partition is read where and when it is scored."""
    return _piece(_lay.read_part(*source), *args)


def _broadcast_qrels(qrels, qcols: tuple, rel: str):
    """(the whole qrels as one Polars frame, scattered or delayed, [its facts]): small
    in-memory qrels go whole to every piece of the run."""
    q = _scatter(_qrels_polars(qrels, qcols))
    return q, [dask.delayed(_qrels_facts_polars)(q, rel)]


# --------------------------------------------------------------------------- the accessor
@register_dataframe_accessor("ir")
class DaskIR(Accessor[dd.Series, dd.DataFrame]):
    """IR evaluation of a Dask run frame (qid, docid, score[, rank]); see the module doc."""

    def __init__(self, frame: dd.DataFrame):
        self._frame = frame

    # ------------------------------------------------------------------ layout
    def _qid_in_index(self) -> bool:
        meta = self._frame._meta
        return (meta.index.name in _columns.QID_NAMES
                and not any(c in _columns.QID_NAMES for c in meta.columns))

    def _meta_row(self) -> pd.DataFrame:
        """One row with the run's columns and dtypes (its values are made up)."""
        try:
            row = self._frame._meta_nonempty.head(1)
        except Exception:  # noqa: BLE001 - exotic dtypes: an empty frame still has the names
            row = self._frame._meta
        return row.reset_index() if self._qid_in_index() else row

    def _buckets(self, qid: str) -> _lay.Buckets | None:
        """The buckets of the run's partitions when they hold whole queries, else None (the
        run is shuffled): found once per frame, from its Parquet footers or from its qid
        column alone (trunc_accessor.frontends._dask_layout)."""
        if not hasattr(self, "_found"):
            row = self._meta_row()
            key: pl.DataType = pl.Null()  # ids of an unusable type: shuffled (the engine says)
            with contextlib.suppress(ValueError):
                key = _polars(row, [qid], "run", (qid,)).schema[qid]
            self._found = _lay.run_buckets(self._frame, qid, self._qid_in_index(), key)
        return self._found

    # ------------------------------------------------------------------ the graph
    def _lazy(self, qrels, call: _Call, queries):
        """The Dask answer of ``call`` (module doc)."""
        cols, meta = _answer_meta(self._meta_row(), qrels, call, queries)
        queries_s = _keys.queries_series(queries)
        if queries_s is not None:  # one copy in the graph, whatever the number of partitions
            queries_s = dask.delayed(queries_s, pure=False)
        qcols = tuple(engine.qrels_columns(cols))
        run, reset = self._frame, self._qid_in_index()
        buckets = self._buckets(cols.run_qid)
        shuffle = buckets is None
        layout = _layout(run, cols, reset, shuffle)
        direct = _lay.parquet_parts(run, list(layout.columns))
        piece: Callable[..., Any] = _piece
        if direct:  # Parquet files read straight into Polars, by the task that uses them
            layout = dataclasses.replace(layout, reset=False)
        sources = ([(fs, pieces, list(layout.columns)) for fs, pieces in direct] if direct
                   else run.to_delayed())
        run_parts: list
        if buckets is None:  # shuffled by tasks: whole queries per partition by hash bucket
            buckets, n = _lay.Buckets(run.npartitions, hashed=True), run.npartitions
            if n <= TASK_SHUFFLE_PARTITIONS:
                split = [dask.delayed(_lay.split_run, nout=n)(s, layout, i, n)
                         for i, s in enumerate(sources)]
                run_parts = [[s[j] for s in split] for j in range(n)]
            else:
                run_parts = _dask_shuffled(run, reset, layout).to_delayed()
                layout = dataclasses.replace(layout, reset=False)
        else:
            piece, run_parts = (_read_piece if direct else _piece), sources
        system_parts = None
        if cols.by:
            by_parts = ([dask.delayed(_lay.read_part)(fs, pieces, list(cols.by))
                         for fs, pieces in direct] if direct
                        else self._frame[list(cols.by)].to_delayed())
            system_parts = dask.delayed(_systems)(
                [dask.delayed(_local_systems)(p, cols.by) for p in by_parts], cols.by)
        broadcast = (not isinstance(qrels, dd.DataFrame)
                     and _height(qrels) <= BROADCAST_QRELS_ROWS)
        if broadcast:
            q, facts = _broadcast_qrels(qrels, qcols, cols.rel)
            qrels_parts = [q] * len(run_parts)
        else:  # each piece takes the judgments of its own qids
            q, (facts, qrels_parts) = None, _lay.qrels_by_bucket(qrels, qcols, cols.rel, buckets)
        plan = dask.delayed(_plan)(system_parts, facts, queries_s, cols.by)
        pieces = [dask.delayed(piece)(p, qp, plan, call, layout, queries_s, broadcast)
                  for p, qp in zip(run_parts, qrels_parts)]
        answer = dask.delayed(_merge)(pieces, q, plan, call, layout, queries_s, self._meta_empty())
        return dd.from_delayed([answer], meta=meta, verify_meta=False)

    def _meta_empty(self) -> pd.DataFrame:
        meta = self._frame._meta
        return meta.reset_index() if self._qid_in_index() else meta

    # ------------------------------------------------------------------ what _methods calls
    def _evaluate(self, qrels, named, *, single, options, by, queries):
        call = _Call("evaluate", {"by": by}, options, named=tuple(named), single=single)
        return self._lazy(qrels, call, queries)

    def _curve(self, qrels, measure, *, optimal, max_depth, options, by, queries):
        call = _Call("optimal" if optimal else "curve", {"max_depth": max_depth, "by": by},
                     options, measure=measure)
        return self._lazy(qrels, call, queries)

    def _crp(self, qrels, kind, *, depth, options, by, queries):
        call = _Call("crp", {"depth": depth, "by": by}, options, crp_kind=kind)
        return self._lazy(qrels, call, queries)

    def _truncate(self, depth, marker, by):
        from trunc_accessor.frontends.pandas import PandasIR

        run = self._frame
        row = self._meta_row()
        if isinstance(depth, (dd.DataFrame, dd.Series)):
            depth = dask.delayed(_concat)(depth.to_delayed())
        else:  # checks now (the depths' keys and types, the marker), as pandas does
            PandasIR(row)._truncate(depth, marker, by)
            if not isinstance(depth, (int, float, np.number)):  # whole to every partition
                depth = dask.delayed(depth, pure=False)
        cols = _columns.resolve_run_columns(row, by)
        meta = run._meta
        if self._buckets(cols.qid) is not None:
            return run.map_partitions(_truncate_part, depth, marker, by, self._qid_in_index(),
                                      meta=meta)
        names = list(meta.columns) + [meta.index.name]
        seq = _columns.fresh_name(names, "__ta_seq")
        route = _columns.fresh_name([*names, seq], "__ta_route")
        tag = {"qid": cols.qid, "reset": self._qid_in_index(), "seq": seq, "route": route,
               "n": run.npartitions}
        tagged = run.map_partitions(_tag, **tag,
                                    meta=_tag(meta, **tag, partition_info={"number": 0}))
        shuffled = (tagged[[*cols.needed, seq, route]]  # routed on an integer
                    .shuffle(on=route, npartitions=run.npartitions).drop(columns=route))
        kept = shuffled.map_partitions(
            _kept_rows, depth, marker, by, seq,
            meta=pd.DataFrame({"partition": np.zeros(0, np.int64), "row": np.zeros(0, np.int64)}))
        kept = kept.set_index("partition", divisions=list(range(run.npartitions + 1)))
        parts = [dask.delayed(_pick_rows)(p, k)
                 for p, k in zip(run.to_delayed(), kept.to_delayed())]
        return dd.from_delayed(parts, meta=meta, divisions=run.divisions, verify_meta=False)

    def plot_crp(self, qrels: Frame, qids: Any = None, *, depth: int | None = None,
                 ties: str = "average", by: str | Sequence[str] | None = None,
                 relevance_level: float = 1, ncols: int = 3,
                 figsize: tuple[float, float] | None = None) -> Figure:
        """CRP curves, one panel per query (see the pandas accessor's ``plot_crp``): the queries
        drawn (all of them without ``qids``) are computed and drawn on the client; the options
        are checked before anything is computed."""
        from trunc_accessor.plot.curves import _crp_figure

        options = _options.options(ties=ties, relevance_level=relevance_level)
        depth = _options.check_depth(depth)
        run = self._frame.reset_index() if self._qid_in_index() else self._frame
        if qids is not None:
            wanted = [str(q) for q in ([qids] if isinstance(qids, (str, int)) else qids)]
            qid = _columns.resolve_run_columns(self._meta_row(), by).qid
            run = run[run[qid].astype(str).isin(wanted)]
        if isinstance(qrels, dd.DataFrame):
            qrels = qrels.compute()
        return _crp_figure(run.compute(), qrels, qids, options, depth=depth, by=by,
                           ncols=ncols, figsize=figsize)

    def rbo(self, other: Frame, p: float = 0.9, *, depth: int | None = None) -> Frame:
        """Not available on Dask runs: raises NotImplementedError; compute both runs first
        (``run.compute().ir.rbo(other.compute(), ...)``)."""
        raise _unavailable("rbo")

    def overlap(self, other: Frame, k: int) -> Frame:
        """Not available on Dask runs: raises NotImplementedError; compute both runs first
        (``run.compute().ir.overlap(other.compute(), ...)``)."""
        raise _unavailable("overlap")


reserve(DaskIR)


def _unavailable(name: str) -> NotImplementedError:
    """The error of ``run.ir.rbo`` / ``run.ir.overlap`` on a Dask run."""
    return NotImplementedError(
        f"run.ir.{name} is not available on Dask runs: compute both runs first "
        f"(run.compute().ir.{name}(other.compute(), ...)), or restrict them to the queries "
        "you compare")
