"""Reading per-query result frames back: one reader for every analysis function.

``evaluate`` answers a pandas frame indexed by (by…, qid) or a Polars frame with those
columns; the query column keeps the run's name (``qid``, ``query_id`` or ``topic``, the
aliases the input frames accept). ``long_frame`` turns any such frame (pandas, Polars,
lazy, a Series of one metric, or a mapping {system: frame}) into one pandas frame with plain
columns, the query column named ``qid``; ``trunc_accessor.stats``,
``trunc_accessor.experiment`` and ``trunc_accessor.plot`` read results through it.
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import polars as pl

from trunc_accessor.core.columns import QID_NAMES
from trunc_accessor.errors import InputError

MAPPING_SYSTEM = "__system__"  # the system column of a mapping's frames (named by its keys)


def plain(frame, what: str) -> tuple[pd.DataFrame, bool]:
    """(pandas frame with index levels as columns, was it Polars)."""
    polars = False
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, pl.DataFrame):
        from trunc_accessor.core.frames import to_pandas

        return to_pandas(frame), True
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{what} must be a pandas or Polars DataFrame of per-query values, "
                         f"not {type(frame).__name__}")
    if any(n is not None for n in frame.index.names):
        frame = frame.reset_index()
    return frame, polars


def query_column(columns, what: str, required: bool = True) -> str | None:
    """The query column among ``columns``: qid, or the first alias present (query_id,
    topic)."""
    for name in QID_NAMES:
        if name in columns:
            return name
    if required:
        raise InputError(f"{what} has no query column ({' / '.join(QID_NAMES)}) or index "
                         f"level (columns: {list(columns)})")
    return None


def long_frame(per_query, what: str = "per_query") -> tuple[pd.DataFrame, bool, bool]:
    """(pandas frame with a ``qid`` column, was the input Polars, was it a mapping whose
    systems are in the column ``MAPPING_SYSTEM``)."""
    if isinstance(per_query, Mapping):
        if len(per_query) == 0:
            raise InputError(f"{what} is an empty mapping: no systems to compare")
        parts, polars = [], False
        for name, frame in per_query.items():
            frame, was_polars = plain(frame, f"{what}[{name!r}]")
            polars = polars or was_polars
            q = query_column(frame.columns, f"{what}[{name!r}]")
            parts.append(frame.rename(columns={q: "qid"}).assign(**{MAPPING_SYSTEM: name}))
        return pd.concat(parts, ignore_index=True), polars, True
    frame, polars = plain(per_query, what)
    q = query_column(frame.columns, what)
    if q != "qid":
        frame = frame.rename(columns={q: "qid"})
    return frame, polars, False
