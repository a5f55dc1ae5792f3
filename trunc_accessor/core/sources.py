"""Provenance of judgments: qrels whose column ``source`` says who judged each pair (a
human assessor, a model, a fill), split into one qrels frame per source and their union.

The union ("all") holds every judged pair once; a pair that several sources judged takes
its largest grade (a document is as relevant as its most generous judge found it, the rule
the library applies to a document judged for several subtopics when an ad hoc measure reads
it). Filter the qrels first for another rule (one source's grade before another's)."""
from __future__ import annotations

import polars as pl

from trunc_accessor.core.columns import REL_NAMES, _names, _pick, check_frame, is_pandas
from trunc_accessor.core.frames import to_pandas, to_polars
from trunc_accessor.errors import InputError

ALL = "all"


def split(qrels, source: str, *, union: bool = True) -> dict:
    """{source name: the pairs it judged, without the ``source`` column} in the order the
    sources first appear, then (``union``) ``"all"``: every pair once at its largest grade
    over the sources. Each frame is of the library given (pandas, or Polars eager or lazy).
    Refused (``InputError``) before any work: no such column, a missing source name, a
    source named "all" with ``union``."""
    check_frame(qrels, "qrels")
    names = _names(qrels, "qrels")
    if not isinstance(source, str) or source not in names:
        raise InputError(f"source={source!r}: the qrels have no such column (its columns: "
                         f"{names}); name the column that says who judged each pair")
    rel = _pick("relevance", names, None, REL_NAMES, "qrels", qrels)
    data = to_polars(qrels, names, "qrels")
    kinds = data.select(pl.col(source).unique(maintain_order=True).cast(pl.String))
    kinds = kinds.collect() if isinstance(kinds, pl.LazyFrame) else kinds
    values = kinds[source].to_list()
    if None in values:
        raise InputError(f"qrels column {source!r} is missing for some pairs: every "
                         "judgment needs its source")
    if union and ALL in values:
        raise InputError(f"qrels column {source!r} names a source {ALL!r}, the name of the "
                         "union of the sources; rename it")
    text = pl.col(source).cast(pl.String)
    parts = {v: data.filter(text == v).drop(source) for v in values}
    if union:
        keys = [c for c in names if c not in (rel, source)]
        parts[ALL] = (data.drop(source).group_by(keys, maintain_order=True)
                      .agg(pl.col(rel).max()).select([c for c in names if c != source]))
    if is_pandas(qrels):
        return {k: to_pandas(v) for k, v in parts.items()}  # type: ignore[arg-type]
    return parts
