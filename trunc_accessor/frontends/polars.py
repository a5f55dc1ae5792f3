"""``DataFrame.ir`` and ``LazyFrame.ir`` for Polars.

On a DataFrame the answer is a DataFrame: the key columns (by…, qid) and one Float64
column per metric (an undefined value is 0, or null with ``undefined="nan"``). On a LazyFrame the
answer is a LazyFrame: column names and dtypes are checked when the method is called, and nothing is
computed until it is collected. Then the run is read one batch of whole queries at a time
(``trunc_accessor.engine.batches``: only the run's needed columns, memory bounded by the batch,
values and row order those of the eager call); lazy qrels are collected.
"""
from __future__ import annotations

from functools import partial

import polars as pl

from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames, numbers
from trunc_accessor.core import keys as _keys
from trunc_accessor.engine import batches, truncation, workers
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine.options import Options
from trunc_accessor.frontends._generated import Accessor
from trunc_accessor.frontends.methods import reserve


def _answer(run, qrels, named, options: Options, *, by, queries, batch=None) -> pl.DataFrame:
    keys, values, _ = engine.compute(run, qrels, named, options, by=by, queries=queries,
                                     batch=batch)
    return frames.result_polars(keys, values)


def _curve(run, qrels, measure, *, optimal, max_depth, options: Options, by, queries,
           batch=None):
    curve, cols = engine.cutoff_curve(run, qrels, measure, options, max_depth=max_depth, by=by,
                                      queries=queries, batch=batch)
    return truncation.optimal(curve, [*cols.by, cols.run_qid]) if optimal else curve


def _evaluate_batch(run, qrels, queries, batch, *, measures, options, by) -> pl.DataFrame:
    return _answer(run, qrels, measures, options, by=by, queries=queries, batch=batch)


def _curve_batch(run, qrels, queries, batch, *, measure, optimal, max_depth, options,
                 by) -> pl.DataFrame:
    return _curve(run, qrels, measure, optimal=optimal, max_depth=max_depth, options=options,
                  by=by, queries=queries, batch=batch)


def _crp_batch(run, qrels, queries, batch, *, kind, depth, options, by) -> pl.DataFrame:
    return engine.crp(run, qrels, kind, options, depth=depth, by=by, queries=queries,
                      batch=batch)[0]


class _Truncate:
    def _truncate(self, depth, marker, by):
        cols = _columns.resolve_run_columns(self._frame, by)
        schema = (self._frame.collect_schema() if isinstance(self._frame, pl.LazyFrame)
                  else self._frame.schema)
        _columns.check_run_schema(schema, cols)
        if marker is None:
            depth = numbers.depth_argument(depth, cols, schema,
                                          _columns.fresh_name(schema.names(), "__depth"))
        else:
            truncation.check_marker(marker, schema[cols.docid], cols.docid)
        frame = truncation.validated(self._frame, cols)
        return truncation.truncate_frame(frame, cols, depth, marker)


@pl.api.register_dataframe_namespace("ir")
class PolarsIR(_Truncate, Accessor[pl.DataFrame, pl.DataFrame]):
    """IR evaluation of a long-format Polars run frame (qid, docid, score[, rank])."""

    def __init__(self, frame: pl.DataFrame):
        self._frame = frame

    def _evaluate(self, qrels, measures, *, single, options, by, queries):
        return _answer(self._frame, qrels, measures, options, by=by, queries=queries)

    def _curve(self, qrels, measure, **kw):
        return _curve(self._frame, qrels, measure, **kw)

    def _crp(self, qrels, kind, *, depth, options, by, queries):
        return engine.crp(self._frame, qrels, kind, options, depth=depth, by=by,
                          queries=queries)[0]


@pl.api.register_lazyframe_namespace("ir")
class LazyPolarsIR(_Truncate, Accessor[pl.LazyFrame, pl.LazyFrame]):
    """IR evaluation of a Polars LazyFrame run; returns a LazyFrame (see module doc)."""

    def __init__(self, frame: pl.LazyFrame, batch_rows: int | None = None,
                 n_jobs: int | None = None):
        self._frame = frame
        # rows per query batch and worker processes, checked by the caller
        # (``options.check_batch_rows``, ``workers.jobs``, as ``ir`` and ``evaluate_parquet``
        # do); None: batches.BATCH_ROWS, and the cores or TRUNC_ACCESSOR_N_JOBS when collected
        self._batch_rows = batch_rows
        self._n_jobs = n_jobs

    def _schema(self, qrels, by, queries):
        cols = engine.columns_of(self._frame, qrels, by)
        run_schema = self._frame.collect_schema()
        qrels_schema = (qrels.collect_schema() if isinstance(qrels, pl.LazyFrame)
                        else frames.to_polars(qrels, engine.qrels_columns(cols), "qrels").schema)
        _keys.check_schema(run_schema, qrels_schema, cols)
        kt = _keys.key_types(run_schema, qrels_schema, cols, _keys.queries_series(queries))
        return cols, run_schema, kt

    def _lazy(self, qrels, columns: dict, answer, *, by, queries):
        """A LazyFrame of the key columns and ``columns`` (name → dtype), checked now (the
        call's options came checked) and computed, when collected, by ``answer(run, qrels,
        queries, batch)`` on each query batch of the run
        (``trunc_accessor.engine.batches.batched``)."""
        cols, run_schema, kt = self._schema(qrels, by, queries)
        _columns.check_output_names(cols.by, cols.run_qid, columns)
        schema = frames.result_schema(run_schema, cols, kt, [])
        schema.update(columns)
        run, batch_rows, n_jobs = self._frame, self._batch_rows, self._n_jobs

        def compute() -> pl.DataFrame:
            return batches.batched(run, qrels, answer, by=by, queries=queries,
                                   batch_rows=batch_rows, n_jobs=workers.jobs(n_jobs))

        return batches.defer(compute, schema)

    def _curve(self, qrels, measure, *, optimal, max_depth, options, by, queries):
        answer = partial(_curve_batch, measure=measure, optimal=optimal, max_depth=max_depth,
                         options=options, by=by)
        return self._lazy(qrels, {"depth": pl.Int64, "value": pl.Float64}, answer, by=by,
                          queries=queries)

    def _evaluate(self, qrels, measures, *, single, options, by, queries):
        answer = partial(_evaluate_batch, measures=measures, options=options, by=by)
        return self._lazy(qrels, {n.label: pl.Float64 for n in measures}, answer, by=by,
                          queries=queries)

    def _crp(self, qrels, kind, *, depth, options, by, queries):
        answer = partial(_crp_batch, kind=kind, depth=depth, options=options, by=by)
        return self._lazy(qrels, engine.crp_columns(kind), answer, by=by, queries=queries)


reserve(PolarsIR)
reserve(LazyPolarsIR)
