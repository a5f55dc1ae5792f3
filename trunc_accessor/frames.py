"""Frames in, frames out: column aliases, validation and normalisation (SPEC §1).

This is the only module that knows the quirks of pandas and Polars. Everything it hands
to :mod:`trunc_accessor.prepare` is a Polars ``DataFrame`` with canonical column names:

* run:   ``*by, qid, docid, score[, rank]``
* qrels: ``qid, docid, rel`` (``rel`` as Float64)

and qid/docid of one common dtype on both sides (Int64 when both sides hold integers,
else String), so a run with int qids and qrels with str qids still joins.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

QID_NAMES = ("qid", "query_id", "topic")
# docno first: a PyTerrier result frame has both an internal int `docid` and the external
# `docno`, and its qrels only `docno`; where both frames share a name, that one wins.
DOCID_NAMES = ("docno", "docid", "doc_id")
REL_NAMES = ("rel", "relevance", "label", "judgment")


class InputError(ValueError):
    """Bad input: names the frame, column, query or document at fault."""


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


def _names(frame) -> list[str]:
    if isinstance(frame, pl.LazyFrame):
        return list(frame.collect_schema().names())
    return [str(c) for c in frame.columns]


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


def resolve_columns(run, qrels, by: Sequence[str] = ()) -> Columns:
    """Find the qid/docid/score/rank/rel columns of a run and qrels (SPEC §1 aliases)."""
    rn, qn = _names(run), _names(qrels)
    cols = Columns(
        run_qid=_pick("qid", rn, qn, QID_NAMES, "run", run),
        run_docid=_pick("docid", rn, qn, DOCID_NAMES, "run", run),
        qrels_qid=_pick("qid", qn, rn, QID_NAMES, "qrels", qrels),
        qrels_docid=_pick("docid", qn, rn, DOCID_NAMES, "qrels", qrels),
        rel=_pick("relevance", qn, None, REL_NAMES, "qrels", qrels),
        by=tuple(by),
        has_rank="rank" in rn,
    )
    if "score" not in rn:
        raise InputError(f"run has no 'score' column; found {rn}")
    for b in cols.by:
        if b not in rn:
            raise InputError(f"by= names column {b!r}, which the run does not have; found {rn}")
        if b in (cols.run_qid, cols.run_docid, "score", "rank"):
            raise InputError(f"by= column {b!r} is one of the run's qid/docid/score/rank columns")
    return cols


def normalise_by(by) -> tuple[str, ...]:
    if by is None:
        return ()
    if isinstance(by, str):
        return (by,)
    return tuple(by)


# --------------------------------------------------------------------------- to Polars
def to_polars(frame, columns: Sequence[str]) -> pl.DataFrame | pl.LazyFrame:
    """Select `columns` of a pandas or Polars frame as a Polars frame (never a view that
    could write back to the user's frame)."""
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        return frame.select(list(columns))
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(frame, pd.DataFrame):
        sub = frame.loc[:, list(columns)]
        return pl.from_pandas(sub, include_index=False)
    raise InputError(f"expected a pandas or Polars DataFrame, got {type(frame).__name__}")


def _key_kind(dtype: pl.DataType, label: str) -> str:
    if dtype.is_integer():
        return "int"
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return "str"
    if dtype == pl.Null:
        return "null"
    raise InputError(f"{label} must hold integers or strings, not {dtype}")


def key_dtype(*kinds: str) -> pl.DataType:
    """The common dtype for keys of the given kinds: Int64 if all are integers, else String."""
    real = [k for k in kinds if k != "null"]
    return pl.Int64 if real and all(k == "int" for k in real) else pl.String


def queries_series(queries) -> pl.Series | None:
    if queries is None:
        return None
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Iterable):
        raise InputError("queries= takes an iterable of qids, e.g. a list")
    values = list(queries)
    try:
        s = pl.Series("qid", values)
    except (TypeError, pl.exceptions.PolarsError) as e:
        raise InputError(f"queries= mixes qid types that cannot be compared: {e}") from None
    return s


@dataclass(frozen=True)
class KeyTypes:
    qid: pl.DataType
    docid: pl.DataType


def key_types(run_schema: pl.Schema, qrels_schema: pl.Schema, cols: Columns,
              queries: pl.Series | None) -> KeyTypes:
    kinds = [_key_kind(run_schema[cols.run_qid], f"run column {cols.run_qid!r}"),
             _key_kind(qrels_schema[cols.qrels_qid], f"qrels column {cols.qrels_qid!r}")]
    if queries is not None and len(queries):
        kinds.append(_key_kind(queries.dtype, "queries="))
    dkinds = [_key_kind(run_schema[cols.run_docid], f"run column {cols.run_docid!r}"),
              _key_kind(qrels_schema[cols.qrels_docid], f"qrels column {cols.qrels_docid!r}")]
    return KeyTypes(qid=key_dtype(*kinds), docid=key_dtype(*dkinds))


def check_schema(run_schema: pl.Schema, qrels_schema: pl.Schema, cols: Columns) -> None:
    """Checks that need only the dtypes (done at call time, also for LazyFrames)."""
    if not run_schema["score"].is_numeric():
        raise InputError(f"run column 'score' must be numeric, not {run_schema['score']}")
    if cols.has_rank and not run_schema["rank"].is_numeric():
        raise InputError(f"run column 'rank' must be numeric, not {run_schema['rank']}")
    rel_dtype = qrels_schema[cols.rel]
    if not (rel_dtype.is_numeric() or rel_dtype == pl.Boolean):
        raise InputError(
            f"qrels column {cols.rel!r} must hold numeric grades, not {rel_dtype}")


def _first_row(frame: pl.DataFrame, mask: pl.Series) -> dict:
    return frame.filter(mask).row(0, named=True)


def _where(row: dict, keys: Sequence[str]) -> str:
    return ", ".join(f"{k}={row[k]!r}" for k in keys)


def normalise(run: pl.DataFrame, qrels: pl.DataFrame, cols: Columns,
              queries: pl.Series | None) -> tuple[pl.DataFrame, pl.DataFrame, pl.Series | None]:
    """Validate the data and return canonical (run, qrels, queries) Polars frames."""
    check_schema(run.schema, qrels.schema, cols)
    kt = key_types(run.schema, qrels.schema, cols, queries)
    by = list(cols.by)

    run_exprs = [pl.col(b) for b in by] + [
        pl.col(cols.run_qid).cast(kt.qid).alias("qid"),
        pl.col(cols.run_docid).cast(kt.docid).alias("docid"),
        pl.col("score").cast(pl.Float64),
    ]
    if cols.has_rank:
        run_exprs.append(pl.col("rank").cast(pl.Float64))
    r = run.select(run_exprs)

    where_keys = by + ["qid", "docid"]
    for col in ("qid", "docid"):
        bad = r[col].is_null()
        if bad.any():
            row = _first_row(r, bad)
            raise InputError(f"run column {col!r} has a missing value (row {_where(row, where_keys)})")
    for col in ("score", "rank") if cols.has_rank else ("score",):
        bad = r[col].is_null() | r[col].is_nan()
        if bad.any():
            row = _first_row(r, bad)
            raise InputError(f"run column {col!r} is missing or NaN for {_where(row, where_keys)}")
    # a 64-bit hash of the keys first (3x cheaper); the exact check only if two collide
    if r.height and r.select(pl.struct(where_keys).hash().n_unique()).item() < r.height:
        dup = r.select(pl.struct(where_keys).is_duplicated()).to_series()
    else:
        dup = pl.Series([False])
    if dup.any():
        row = _first_row(r, dup)
        raise InputError(
            f"document {row['docid']!r} appears twice in the ranking of "
            f"{_where(row, by + ['qid'])}: each document may be retrieved once per query")

    q = qrels.select(
        pl.col(cols.qrels_qid).cast(kt.qid).alias("qid"),
        pl.col(cols.qrels_docid).cast(kt.docid).alias("docid"),
        pl.col(cols.rel).cast(pl.Float64).alias("rel"),
    )
    for col in ("qid", "docid"):
        bad = q[col].is_null()
        if bad.any():
            raise InputError(f"qrels column {col!r} has a missing value "
                             f"(row {_where(_first_row(q, bad), ['qid', 'docid'])})")
    bad = q["rel"].is_null() | q["rel"].is_nan()
    if bad.any():
        raise InputError(f"qrels grade is missing or NaN for "
                         f"{_where(_first_row(q, bad), ['qid', 'docid'])}")
    q = q.unique(maintain_order=True)
    conflict = q.select(pl.struct("qid", "docid").is_duplicated()).to_series()
    if conflict.any():
        row = _first_row(q, conflict)
        grades = q.filter((pl.col("qid") == row["qid"]) & (pl.col("docid") == row["docid"]))["rel"]
        raise InputError(
            f"qrels give document {row['docid']!r} of qid {row['qid']!r} conflicting grades "
            f"{sorted(set(grades.to_list()))}")

    qs = None
    if queries is not None:
        try:
            qs = queries.cast(kt.qid, strict=True).alias("qid")
        except pl.exceptions.PolarsError:
            raise InputError(f"queries= holds values that are not {kt.qid} qids") from None
        if qs.is_null().any():
            raise InputError("queries= holds a missing qid")
    return r, q, qs


# --------------------------------------------------------------------------- back out
def result_pandas(keys: pl.DataFrame, values: dict[str, np.ndarray], qid_name: str,
                  by: Sequence[str], single: bool):
    """Per-query values as pandas: a Series (one metric) or DataFrame, indexed by qid or by
    (by…, qid). Undefined values are NaN."""
    import pandas as pd

    names = list(by) + [qid_name]
    arrays = [keys[b].to_list() for b in by] + [keys["qid"].to_list()]
    if by:
        index = pd.MultiIndex.from_arrays(arrays, names=names)
    else:
        index = pd.Index(arrays[0], name=qid_name)
    if single:
        (label, v), = values.items()
        return pd.Series(v, index=index, name=label)
    return pd.DataFrame(values, index=index)


def result_polars(keys: pl.DataFrame, values: dict[str, np.ndarray], qid_name: str) -> pl.DataFrame:
    """Per-query values as Polars: the key columns and one Float64 column per metric; an
    undefined value is null."""
    out = keys.rename({"qid": qid_name}) if qid_name != "qid" else keys
    return out.with_columns(
        [pl.Series(label, v, dtype=pl.Float64).fill_nan(None) for label, v in values.items()]
    )


def result_schema(run_schema: pl.Schema, cols: Columns, kt: KeyTypes, labels: Sequence[str]) -> dict:
    schema = {b: run_schema[b] for b in cols.by}
    schema[cols.run_qid] = kt.qid
    for label in labels:
        schema[label] = pl.Float64
    return schema


# --------------------------------------------------------------------------- truncation inputs
@dataclass(frozen=True)
class RunColumns:
    qid: str
    docid: str
    by: tuple[str, ...]
    has_rank: bool

    @property
    def needed(self) -> list[str]:
        return [*self.by, self.qid, self.docid, "score"] + (["rank"] if self.has_rank else [])


def resolve_run_columns(run, by=None) -> RunColumns:
    """The qid/docid/score/rank/by columns of a run on its own (no qrels to match)."""
    names = _names(run)
    by = normalise_by(by)
    cols = RunColumns(qid=_pick("qid", names, None, QID_NAMES, "run", run),
                      docid=_pick("docid", names, None, DOCID_NAMES, "run", run),
                      by=by, has_rank="rank" in names)
    if "score" not in names:
        raise InputError(f"run has no 'score' column; found {names}")
    for b in by:
        if b not in names:
            raise InputError(f"by= names column {b!r}, which the run does not have; found {names}")
    return cols


def depth_argument(depth, cols: RunColumns, run_schema: pl.Schema):
    """``truncate``'s k: a whole number ≥ 0, or per-ranking depths as a pandas Series indexed
    by qid (or by…, qid) or a Polars frame with those key columns and a ``depth`` column
    (what ``optimal_cutoff`` returns). Returns an int or a Polars frame (keys, __depth)."""
    keys = [*cols.by, cols.qid]
    if isinstance(depth, (int, np.integer)) and not isinstance(depth, bool):
        if depth < 0:
            raise InputError(f"truncate: k must be ≥ 0, not {depth}")
        return int(depth)
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(depth, pd.Series):
        names = [n for n in depth.index.names]
        if names != keys:
            raise InputError(f"truncate: the depths' index must be {keys}, not {names}")
        frame = pl.from_pandas(depth.rename("depth").reset_index())
    elif pd is not None and isinstance(depth, pd.DataFrame):
        frame = pl.from_pandas(depth.reset_index() if depth.index.names != [None] else depth)
    elif isinstance(depth, pl.LazyFrame):
        frame = depth.collect()
    elif isinstance(depth, pl.DataFrame):
        frame = depth
    else:
        raise InputError("truncate: k must be a whole number or per-query depths "
                         f"(a Series indexed by {keys}, or a frame with {keys} and 'depth'), "
                         f"not {type(depth).__name__}")
    missing = [c for c in [*keys, "depth"] if c not in frame.columns]
    if missing:
        raise InputError(f"truncate: the per-query depths lack column(s) {missing}")
    frame = frame.select(
        [pl.col(k).cast(run_schema[k]) for k in keys]
        + [pl.col("depth").cast(pl.Float64)])
    bad = frame.filter(pl.col("depth").is_not_null() & ~pl.col("depth").is_nan()
                       & ((pl.col("depth") < 0) | (pl.col("depth") != pl.col("depth").round())))
    if bad.height:
        raise InputError(f"truncate: depth {bad['depth'][0]} for {bad.row(0, named=True)} is "
                         "not a whole number ≥ 0")
    if frame.select(pl.struct(keys).is_duplicated().any()).item():
        raise InputError(f"truncate: the per-query depths name a ranking twice ({keys})")
    return frame.select(*keys, pl.col("depth").fill_nan(None).cast(pl.Int64).alias("__depth"))
