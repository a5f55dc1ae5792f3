"""``DataFrame.ir`` for pandas: per-query values as a Series/DataFrame indexed by qid."""
from __future__ import annotations

import pandas as pd

from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames, numbers
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine import truncation
from trunc_accessor.frontends._generated import Accessor
from trunc_accessor.frontends.methods import reserve


@pd.api.extensions.register_dataframe_accessor("ir")
class PandasIR(Accessor[pd.Series, pd.DataFrame]):
    """IR evaluation of a long-format run frame (qid, docid, score[, rank]).

    >>> import trunc_accessor
    >>> run, qrels = trunc_accessor.load_example()
    >>> round(float(run.ir.ndcg(qrels, k=10).mean()), 4)  # trec_eval: ndcg_cut_10 0.3016
    0.3016
    """

    def __init__(self, frame: pd.DataFrame):
        self._frame = frame

    def _evaluate(self, qrels, named, *, single, options, by, queries):
        keys, values, _ = engine.compute(self._frame, qrels, named, options, by=by,
                                         queries=queries)
        return frames.result_pandas(keys, values, single)

    def _truncate(self, depth, marker, by):
        cols = _columns.resolve_run_columns(self._frame, by)
        run = frames.to_polars(self._frame, cols.needed, "run", keys=(cols.qid, cols.docid))
        _columns.check_run_schema(run.schema, cols)
        truncation.check_order_values(run, cols)
        if marker is None:
            depth = numbers.depth_argument(depth, cols, run.schema,
                                          _columns.fresh_name(run.columns, "__depth"))
        else:
            truncation.check_marker(marker, run.schema[cols.docid], cols.docid)
        row = _columns.fresh_name(run.columns, "__row")
        kept = truncation.truncate_frame(run.with_row_index(row), cols, depth, marker)[row]
        return self._frame.iloc[kept.to_numpy()]

    def _curve(self, qrels, measure, *, optimal, max_depth, options, by, queries):
        curve, cols = engine.cutoff_curve(self._frame, qrels, measure, options,
                                          max_depth=max_depth, by=by, queries=queries)
        keys = [*cols.by, cols.run_qid]
        if optimal:
            return frames.to_pandas(truncation.optimal(curve, keys)).set_index(keys)
        return frames.to_pandas(curve)

    def _crp(self, qrels, kind, *, depth, options, by, queries):
        frame, cols = engine.crp(self._frame, qrels, kind, options, depth=depth, by=by,
                                 queries=queries)
        if kind == "archetype":
            return frames.to_pandas(frame).set_index([*cols.by, cols.run_qid])
        return frames.to_pandas(frame)


reserve(PandasIR)
