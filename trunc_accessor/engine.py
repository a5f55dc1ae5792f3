"""One call of the library: frames → validation → preparation → kernels → values.

Frontends (accessors, CLI) call :func:`compute` and only convert its answer back to the
caller's frame library.
"""
from __future__ import annotations

import polars as pl

from . import frames
from .prepare import check_ties, prepare
from .registry import Measure, check_level, evaluate_prepared


def columns_of(run, qrels, by) -> frames.Columns:
    return frames.resolve_columns(run, qrels, frames.normalise_by(by))


def run_columns(cols: frames.Columns) -> list[str]:
    return [*cols.by, cols.run_qid, cols.run_docid, "score"] + (["rank"] if cols.has_rank else [])


def qrels_columns(cols: frames.Columns) -> list[str]:
    return [cols.qrels_qid, cols.qrels_docid, cols.rel]


def _eager(frame):
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def compute(run, qrels, measures: list[Measure], *, by=None, queries=None, ties="average",
            relevance_level=1) -> tuple[pl.DataFrame, dict, frames.Columns]:
    """Per-query values of `measures` for a run and qrels (pandas or Polars, eager or lazy).

    Returns (keys, {label: values}, columns): keys holds the by… columns and ``qid``."""
    check_ties(ties)
    level = check_level(relevance_level)
    cols = columns_of(run, qrels, by)
    r = _eager(frames.to_polars(run, run_columns(cols)))
    q = _eager(frames.to_polars(qrels, qrels_columns(cols)))
    r, q, qs = frames.normalise(r, q, cols, frames.queries_series(queries))
    prep = prepare(r, q, by=cols.by, queries=qs, ties=ties)
    return prep.keys, evaluate_prepared(prep, measures, level), cols
