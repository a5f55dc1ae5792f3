"""Column names and roles: the aliases the input frames may use (qid/query_id/topic,
docno/docid/doc_id, rel/relevance/label/judgment), the ``by=`` system keys, which column
plays which role in a run and its qrels (``Columns``), and fresh internal names."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import polars as pl

from trunc_accessor.errors import InputError, InputTypeError

QID_NAMES = ("qid", "query_id", "topic")
# docno first: a PyTerrier result frame has both an internal int `docid` and the external
# `docno`, and its qrels only `docno`; where both frames share a name, that one wins.
DOCID_NAMES = ("docno", "docid", "doc_id")
REL_NAMES = ("rel", "relevance", "label", "judgment")
# a diversity qrels' subtopic (intent, aspect) column: TREC's diversity files put it in the
# second field, which ir_measures and ir_datasets call ``iteration``
SUBTOPIC_NAMES = ("subtopic", "iteration", "intent", "aspect")
# a sampled pool's qrels: the stratum each pooled document was sampled from (NIST's
# sample_eval.pl reads it as the fourth field), and each judged document's inclusion
# probability (statAP's π, Aslam, Pavlu & Yilmaz, SIGIR 2006)
STRATUM_NAMES = ("stratum",)
INCLUSION_NAMES = ("inclusion", "inclusion_probability")
# a run of a stochastic ranking policy: the column that names each sampled ranking of a query
# (expected exposure, Diaz et al. 2020; expeval reads it as the second field of a run file)
SAMPLE_NAMES = ("sample",)
SYS = "_sys"  # the engine's system code column (never a user's name: see module doc)


class DuplicateDocumentError(InputError):
    """A document retrieved twice in one ranking (names the document, query and system)."""


# names of a column that probably holds several systems (checked case-insensitively)
SYSTEM_COLUMN_NAMES = ("system", "systems", "run", "runid", "run_id", "run_name", "tag",
                       "system_id", "system_name", "model", "method", "name", "retriever")


def likely_system_column(frame, roles: Sequence[str]) -> str | None:
    """A column of ``frame`` other than ``roles`` whose name says it holds systems (for the
    hint of a duplicate document found when ``by=`` was not given)."""
    for name in _names(frame):
        if name not in roles and isinstance(name, str) and name.lower() in SYSTEM_COLUMN_NAMES:
            return name
    return None


@dataclass(frozen=True)
class Columns:
    """Which of the user's columns play which role."""

    run_qid: str
    run_docid: str
    qrels_qid: str
    qrels_docid: str
    rel: str
    by: tuple[str, ...]
    has_rank: bool
    subtopic: str | None = None  # the qrels' subtopic column, if it has one
    weight: str | None = None  # with a subtopic column: the subtopics' weights, if given
    stratum: str | None = None  # the qrels' stratum column (a sampled pool), if it has one
    inclusion: str | None = None  # the qrels' inclusion probabilities, if it has them
    sample: str | None = None  # the run's sampled-ranking column (not a by= one), if any


# --------------------------------------------------------------------------- frames and names
def is_pandas(frame, kind: str = "DataFrame") -> bool:
    """Is ``frame`` a pandas DataFrame (or, with ``kind="Series"``, a Series)?"""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False
    return isinstance(frame, getattr(pd, kind))


def check_frame(frame, label: str) -> None:
    """A pandas or Polars DataFrame (or LazyFrame), else an ``InputTypeError``."""
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)) or is_pandas(frame):
        return
    kind = type(frame).__name__
    hint = ""
    if kind == "Series":
        hint = " (a Series: turn it into a frame with .reset_index() or .to_frame())"
    elif isinstance(frame, (dict, list, tuple)):
        hint = f" (build one first, e.g. pandas.DataFrame({label}))"
    raise InputTypeError(f"{label} must be a pandas or Polars DataFrame, not {kind}{hint}")


def _names(frame, label: str = "frame") -> list[str]:
    if isinstance(frame, pl.LazyFrame):
        return list(frame.collect_schema().names())
    if isinstance(frame, pl.DataFrame):
        return list(frame.columns)
    columns = frame.columns
    if getattr(columns, "nlevels", 1) > 1:
        raise InputError(f"{label} has MultiIndex columns: flatten them to one level of names")
    names = list(columns)
    seen: set = set()
    for n in names:
        if n in seen:
            raise InputError(f"{label} has two columns named {n!r}: names must be unique")
        seen.add(n)
    return names


def _pick(kind: str, names_a: Sequence[str], names_b: Sequence[str] | None,
          aliases: Sequence[str], frame_label: str, frame) -> str:
    """The column of `names_a` playing role `kind`: a name shared with the other frame
    first (in alias order), else the first alias present."""
    if names_b is not None:
        for a in aliases:
            if a in names_a and a in names_b:
                return a
    for a in aliases:
        if a in names_a:
            return a
    hint = ""
    index_names = getattr(getattr(frame, "index", None), "names", None) or []
    if any(n in aliases for n in index_names if n is not None):
        hint = " (it is in the index: call .reset_index() first)"
    raise InputError(
        f"{frame_label} has no {kind} column{hint}: expected one of {list(aliases)}, "
        f"found {list(names_a)}"
    )


def normalise_by(by) -> tuple[str, ...]:
    """``by=`` as a tuple of distinct column names (a name, or a list/tuple of names)."""
    if by is None:
        return ()
    if isinstance(by, str):
        return (by,)
    if not isinstance(by, (list, tuple)):
        raise InputTypeError(
            f"by= takes a column name or a list of column names, not {type(by).__name__}")
    for b in by:
        if not isinstance(b, str):
            raise InputTypeError(f"by= takes column names (strings), not {b!r}")
    for i, b in enumerate(by):
        if b in by[:i]:
            raise InputError(f"by= names column {b!r} twice")
    return tuple(by)


def _check_by_names(by: Sequence[str], names: Sequence[str], roles: Sequence[str]) -> None:
    for b in by:
        if b not in names:
            raise InputError(f"by= names column {b!r}, which the run does not have; found {names}")
        if b in roles:
            raise InputError(f"by= column {b!r} is one of the run's qid/docid/score/rank columns")


def resolve_columns(run, qrels, by: Sequence[str] = ()) -> Columns:
    """Find the qid/docid/score/rank/rel columns of a run and qrels (and their aliases)."""
    check_frame(run, "run")
    check_frame(qrels, "qrels")
    rn, qn = _names(run, "run"), _names(qrels, "qrels")
    cols = Columns(
        run_qid=_pick("qid", rn, qn, QID_NAMES, "run", run),
        run_docid=_pick("docid", rn, qn, DOCID_NAMES, "run", run),
        qrels_qid=_pick("qid", qn, rn, QID_NAMES, "qrels", qrels),
        qrels_docid=_pick("docid", qn, rn, DOCID_NAMES, "qrels", qrels),
        rel=_pick("relevance", qn, None, REL_NAMES, "qrels", qrels),
        by=normalise_by(by),
        has_rank="rank" in rn,
        subtopic=next((a for a in SUBTOPIC_NAMES if a in qn), None),
        stratum=next((a for a in STRATUM_NAMES if a in qn), None),
        inclusion=next((a for a in INCLUSION_NAMES if a in qn), None),
        sample=next((a for a in SAMPLE_NAMES if a in rn and a not in normalise_by(by)), None),
    )
    if cols.subtopic and "weight" in qn:
        cols = Columns(**{**cols.__dict__, "weight": "weight"})
    if "score" not in rn:
        raise InputError(f"run has no 'score' column; found {rn}")
    _check_by_names(cols.by, rn, (cols.run_qid, cols.run_docid, "score", "rank"))
    return cols


def check_output_names(by: Sequence[str], qid_name: str, labels: Iterable[str]) -> None:
    """The result holds the by… columns, the qid column and ``labels``: a by= column named
    like one of the labels, or a label named like the qid column, would be ambiguous (or
    overwritten), so it is an error."""
    named = set(labels)
    clash = sorted(set(by) & (named | {qid_name}))
    if clash:
        raise InputError(
            f"by= column(s) {clash} have the name of output column(s) of this call; rename "
            "them before evaluating (e.g. run.rename(columns={...}) in pandas, "
            "run.rename({...}) in Polars)")
    if qid_name in named:
        raise InputError(
            f"the metric column {qid_name!r} would have the name of the result's qid column; "
            f"name the metric otherwise (or rename the run's {qid_name!r} column)")


# --------------------------------------------------------------------------- truncation inputs
@dataclass(frozen=True)
class RunColumns:
    qid: str
    docid: str
    by: tuple[str, ...]
    has_rank: bool
    sample: str | None = None  # a stochastic policy's sampled-ranking column, if any

    @property
    def needed(self) -> list[str]:
        return ([*self.by, self.qid, self.docid, "score"] + (["rank"] if self.has_rank else [])
                + ([self.sample] if self.sample else []))

    @property
    def ranking(self) -> list[str]:
        """The columns that, with the qid, name one ranking: by…, and the sample, if any."""
        return [*self.by, *([self.sample] if self.sample else [])]


def resolve_run_columns(run, by=None) -> RunColumns:
    """The qid/docid/score/rank/by columns of a run on its own (no qrels to match)."""
    check_frame(run, "run")
    names = _names(run, "run")
    by = normalise_by(by)
    cols = RunColumns(qid=_pick("qid", names, None, QID_NAMES, "run", run),
                      docid=_pick("docid", names, None, DOCID_NAMES, "run", run),
                      by=by, has_rank="rank" in names,
                      sample=next((a for a in SAMPLE_NAMES if a in names and a not in by), None))
    if "score" not in names:
        raise InputError(f"run has no 'score' column; found {names}")
    _check_by_names(by, names, (cols.qid, cols.docid, "score", "rank"))
    return cols


def check_run_schema(schema: pl.Schema, cols: RunColumns) -> None:
    """The dtypes ``truncate``/``truncate_at`` order by: a numeric score (and rank)."""
    if not _numeric(schema["score"]):
        raise InputError(f"run column 'score' must be numeric, not {schema['score']}")
    if cols.has_rank and not _numeric(schema["rank"]):
        raise InputError(f"run column 'rank' must be numeric, not {schema['rank']}")
    for b in cols.by:
        if isinstance(schema[b], _UNSUPPORTED_KEY) or schema[b] == pl.Object:
            raise InputError(f"by= column {b!r} holds {schema[b]} values; a system key "
                             "must be a scalar (string, number, boolean, date, …)")


def fresh_name(names: Iterable[str], base: str) -> str:
    """A column name not in ``names`` (for the engine's working columns on a user's frame)."""
    taken = set(names)
    name = base
    while name in taken:
        name = "_" + name
    return name


_UNSUPPORTED_KEY = (pl.List, pl.Array, pl.Struct, pl.Object)


def _numeric(dtype: pl.DataType) -> bool:
    """Numbers (not booleans); Null too: a column with no value (its rows, if any, are
    reported as missing values by the data checks)."""
    return (dtype.is_numeric() and dtype != pl.Boolean) or dtype == pl.Null
