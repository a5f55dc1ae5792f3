"""One call of the library: frames → validation → preparation → kernels → values.

Frontends (accessors, CLI) call :func:`compute` and only convert its answer back to the
caller's frame library.
"""
from __future__ import annotations

import polars as pl

from . import frames, truncation
from .metrics import twist
from .prepare import Prepared, check_ties, prepare
from .registry import Measure, check_k, check_level, evaluate_prepared


def columns_of(run, qrels, by) -> frames.Columns:
    return frames.resolve_columns(run, qrels, frames.normalise_by(by))


def run_columns(cols: frames.Columns) -> list[str]:
    return [*cols.by, cols.run_qid, cols.run_docid, "score"] + (["rank"] if cols.has_rank else [])


def qrels_columns(cols: frames.Columns) -> list[str]:
    return [cols.qrels_qid, cols.qrels_docid, cols.rel]


def _eager(frame):
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def prepare_call(run, qrels, *, by=None, queries=None, ties="average") -> tuple[Prepared, frames.Columns]:
    """Validate and prepare a run and qrels (pandas or Polars, eager or lazy) once."""
    check_ties(ties)
    cols = columns_of(run, qrels, by)
    r = _eager(frames.to_polars(run, run_columns(cols)))
    q = _eager(frames.to_polars(qrels, qrels_columns(cols)))
    r, q, qs = frames.normalise(r, q, cols, frames.queries_series(queries))
    return prepare(r, q, by=cols.by, queries=qs, ties=ties), cols


def compute(run, qrels, measures: list[Measure], *, by=None, queries=None, ties="average",
            relevance_level=1) -> tuple[pl.DataFrame, dict, frames.Columns]:
    """Per-query values of `measures` for a run and qrels (pandas or Polars, eager or lazy).

    Returns (keys, {label: values}, columns): keys holds the by… columns and ``qid``."""
    level = check_level(relevance_level)
    prep, cols = prepare_call(run, qrels, by=by, queries=queries, ties=ties)
    return prep.keys, evaluate_prepared(prep, measures, level), cols


def cutoff_curve(run, qrels, measure: Measure, *, max_depth=None, by=None, queries=None,
                 ties="average", relevance_level=1) -> tuple[pl.DataFrame, frames.Columns]:
    """The measure at every allowed truncation depth of every ranking (long format)."""
    level = check_level(relevance_level)
    prep, cols = prepare_call(run, qrels, by=by, queries=queries, ties=ties)
    return truncation.curve(prep, measure, level, max_depth), cols


def check_depth(depth):
    """Twist's run length: None or a whole number ≥ 1."""
    try:
        return check_k(depth)
    except ValueError as e:
        raise ValueError(f"depth: {e}") from None


def crp(run, qrels, kind: str = "curve", *, depth=None, by=None, queries=None, ties="average",
        relevance_level=1) -> tuple[pl.DataFrame, frames.Columns]:
    """Twist's curves (Ferro et al.; :mod:`trunc_accessor.metrics.twist`) as a Polars frame:
    ``kind`` "curve": (by…, qid, position, grade, rp, crp); "references": the same plus
    crp_full_scale and recall_base (for plots); "archetype": one row per ranking (by…, qid,
    archetype, recall_base, length, crossing)."""
    level = check_level(relevance_level)
    depth = check_depth(depth)
    prep, cols = prepare_call(run, qrels, by=by, queries=queries, ties=ties)
    if kind == "archetype":
        frame = twist.archetypes(prep, level, depth)
    else:
        frame = twist.crp_frame(prep, level, depth, references=kind == "references")
    return frame.rename({"qid": cols.run_qid}), cols
