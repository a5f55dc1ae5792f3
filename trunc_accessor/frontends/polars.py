"""``DataFrame.ir`` and ``LazyFrame.ir`` for Polars.

On a DataFrame the answer is a DataFrame: the key columns (by…, qid) and one Float64
column per metric (an undefined value is 0, or null with ``undefined="nan"``). On a LazyFrame the
answer is a LazyFrame: column names and dtypes are checked when the method is called, and nothing is
computed until it is collected. Then the run is read one batch of whole queries at a time
(``trunc_accessor.engine.batches``: only the run's needed columns, memory bounded by the batch,
values and row order those of the eager call); lazy qrels are collected.
"""
from __future__ import annotations

import polars as pl

from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames
from trunc_accessor.core import keys as _keys
from trunc_accessor.core.prepared import check_ties
from trunc_accessor.engine import batches, presets, truncation
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.frontends.namespace import install
from trunc_accessor.metrics.params import check_bool, checked
from trunc_accessor.metrics.registry import check_level, check_undefined


def _answer(run, qrels, named, **kw) -> pl.DataFrame:
    keys, values, _ = engine.compute(run, qrels, named, **kw)
    return frames.result_polars(keys, values)


def _curve(run, qrels, measure, *, optimal, max_depth, ties, by, queries, relevance_level,
           undefined, batch=None):
    curve, cols = engine.cutoff_curve(run, qrels, measure, max_depth=max_depth, by=by,
                                      queries=queries, ties=ties, relevance_level=relevance_level,
                                      undefined=undefined, batch=batch)
    return truncation.optimal(curve, [*cols.by, cols.run_qid]) if optimal else curve


class _Truncate:
    def _truncate(self, depth, marker, by):
        cols = _columns.resolve_run_columns(self._frame, by)
        schema = (self._frame.collect_schema() if isinstance(self._frame, pl.LazyFrame)
                  else self._frame.schema)
        _columns.check_run_schema(schema, cols)
        if marker is None:
            depth = frames.depth_argument(depth, cols, schema,
                                          _columns.fresh_name(schema.names(), "__depth"))
        else:
            truncation.check_marker(marker, schema[cols.docid], cols.docid)
        frame = truncation.validated(self._frame, cols)
        return truncation.truncate_frame(frame, cols, depth, marker)


@pl.api.register_dataframe_namespace("ir")
class PolarsIR(_Truncate):
    """IR evaluation of a long-format Polars run frame (qid, docid, score[, rank])."""

    def __init__(self, frame: pl.DataFrame):
        self._frame = frame

    def _evaluate(self, qrels, measures, *, single, **kw):
        return _answer(self._frame, qrels, measures, **kw)

    def _curve(self, qrels, measure, **kw):
        return _curve(self._frame, qrels, measure, **kw)

    def _crp(self, qrels, kind, **kw):
        return engine.crp(self._frame, qrels, kind, **kw)[0]


@pl.api.register_lazyframe_namespace("ir")
class LazyPolarsIR(_Truncate):
    """IR evaluation of a Polars LazyFrame run; returns a LazyFrame (see module doc)."""

    def __init__(self, frame: pl.LazyFrame, batch_rows: int | None = None):
        self._frame = frame
        self._batch_rows = batch_rows  # None: batches.BATCH_ROWS

    def _schema(self, qrels, by, queries):
        cols = engine.columns_of(self._frame, qrels, by)
        run_schema = self._frame.collect_schema()
        qrels_schema = (qrels.collect_schema() if isinstance(qrels, pl.LazyFrame)
                        else frames.to_polars(qrels, engine.qrels_columns(cols), "qrels").schema)
        _keys.check_schema(run_schema, qrels_schema, cols)
        kt = _keys.key_types(run_schema, qrels_schema, cols, _keys.queries_series(queries))
        return cols, run_schema, kt

    def _lazy(self, qrels, columns: dict, answer, *, ties, by, queries, relevance_level,
              judged_only=False, undefined="zero", like=None):
        """A LazyFrame of the key columns and ``columns`` (name → dtype), checked now and
        computed, when collected, by ``answer(run, qrels, queries, batch)`` on each query
        batch of the run (``trunc_accessor.engine.batches.batched``)."""
        check_ties(ties)
        presets.check_like(like)
        check_level(relevance_level)
        check_undefined(undefined)
        checked("judged_only", check_bool, judged_only)
        cols, run_schema, kt = self._schema(qrels, by, queries)
        _columns.check_output_names(cols.by, cols.run_qid, columns)
        schema = frames.result_schema(run_schema, cols, kt, [])
        schema.update(columns)
        run, batch_rows = self._frame, self._batch_rows
        return batches.defer(lambda: batches.batched(run, qrels, answer, by=by, queries=queries,
                                                     batch_rows=batch_rows), schema)

    def _curve(self, qrels, measure, *, optimal, max_depth, **kw):
        def answer(run, qrels, queries, batch) -> pl.DataFrame:
            return _curve(run, qrels, measure, optimal=optimal, max_depth=max_depth,
                          **{**kw, "queries": queries}, batch=batch)

        return self._lazy(qrels, {"depth": pl.Int64, "value": pl.Float64}, answer, **kw)

    def _evaluate(self, qrels, measures, *, single, **kw):
        def answer(run, qrels, queries, batch) -> pl.DataFrame:
            return _answer(run, qrels, measures, **{**kw, "queries": queries}, batch=batch)

        return self._lazy(qrels, {n.label: pl.Float64 for n in measures}, answer, **kw)

    def _crp(self, qrels, kind, *, depth, **kw):
        def answer(run, qrels, queries, batch) -> pl.DataFrame:
            return engine.crp(run, qrels, kind, depth=depth, **{**kw, "queries": queries},
                              batch=batch)[0]

        engine.check_depth(depth)
        return self._lazy(qrels, engine.crp_columns(kind), answer, **kw)


install(PolarsIR)
install(LazyPolarsIR)
