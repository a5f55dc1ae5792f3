"""Frames in, frames out: column aliases, validation and normalisation.

This is the only module that knows the quirks of pandas and Polars. What it hands to
:mod:`trunc_accessor.prepare` holds only the engine's own column names, so no user column
can collide with them (a run's ``rel`` column used as ``by=`` never meets the qrels'
grades):

* run:   ``[_sys,] qid, docid, score[, rank]``: ``_sys`` numbers the ``by=`` systems
  (see :class:`Canonical`; the user's key columns travel beside it in ``systems``);
* qrels: ``qid, docid, rel`` (``rel`` as Float64).

Identifier rule: qid and docid are compared as integers when both frames hold integers, and
otherwise as strings (an integer as its decimal digits), so int 7 matches "7" but neither
"007" nor " 7". When one frame holds integers and the other strings, or a system retrieved
no judged document at all, one :class:`~trunc_accessor.warn.IdentifierWarning` says so
(emitted by :mod:`trunc_accessor.prepare`, which sees both facts).
"""
from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from .errors import InputError, InputTypeError

QID_NAMES = ("qid", "query_id", "topic")
# docno first: a PyTerrier result frame has both an internal int `docid` and the external
# `docno`, and its qrels only `docno`; where both frames share a name, that one wins.
DOCID_NAMES = ("docno", "docid", "doc_id")
REL_NAMES = ("rel", "relevance", "label", "judgment")
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


# --------------------------------------------------------------------------- frames and names
def is_pandas(frame, kind: str = "DataFrame") -> bool:
    """Is ``frame`` a pandas DataFrame (or, with ``kind="Series"``, a Series)?"""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False
    return isinstance(frame, getattr(pd, kind))


def check_frame(frame, label: str) -> None:
    """A pandas or Polars DataFrame (or LazyFrame), else an :class:`InputTypeError`."""
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
    )
    if "score" not in rn:
        raise InputError(f"run has no 'score' column; found {rn}")
    _check_by_names(cols.by, rn, (cols.run_qid, cols.run_docid, "score", "rank"))
    return cols


def check_output_names(by: Sequence[str], qid_name: str, labels: Iterable[str]) -> None:
    """The result holds the by… columns, the qid column and ``labels``: a by= column named
    like one of the labels would be ambiguous (or overwritten), so it is an error."""
    clash = sorted(set(by) & (set(labels) | {qid_name}))
    if clash:
        raise InputError(
            f"by= column(s) {clash} have the name of output column(s) of this call; rename "
            "them before evaluating (e.g. run.rename(columns={...}) in pandas, "
            "run.rename({...}) in Polars)")


# --------------------------------------------------------------------------- to Polars
def _describe_types(values) -> str:
    kinds = sorted({type(v).__name__ for v in values if v is not None})
    return ", ".join(kinds)


def _pandas_column_error(sub, label: str, error: Exception) -> InputError:
    """The column of a pandas frame that Arrow cannot convert, and why."""
    for i, c in enumerate(sub.columns):
        try:
            pl.from_pandas(sub.iloc[:, [i]].set_axis(["c"], axis=1), include_index=False)
        except Exception:  # noqa: BLE001 - any conversion failure is reported below
            col = sub.iloc[:, i]
            if col.dtype == object:
                return InputError(
                    f"{label} column {c!r} holds values of several types "
                    f"({_describe_types(col.head(100_000))}): give it one type, e.g. "
                    f"{label}[{c!r}].astype(str)")
            return InputError(f"{label} column {c!r} has an unsupported type {col.dtype}")
    return InputError(f"{label} cannot be converted: {error}")


def _pandas_column(column, name: str) -> pl.Series:
    """One pandas column as a Polars Series: a NumPy number column without a copy (Polars
    never writes into it), anything else through Arrow (``pl.from_pandas``)."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iuf" and column.ndim == 1:
        values = column.to_numpy(copy=False)
        if values.flags.c_contiguous:
            return pl.Series(name, values)
    return pl.from_pandas(column).rename(name)


def to_polars(frame, columns: Sequence[str], label: str = "frame") -> pl.DataFrame | pl.LazyFrame:
    """Select `columns` of a pandas or Polars frame as a Polars frame (never a view that
    could write back to the user's frame)."""
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        return frame.select(list(columns))
    if is_pandas(frame):
        sub = frame.loc[:, list(columns)]
        # positional names through Arrow (it renames some, e.g. an empty first name)
        plain = sub.set_axis([f"c{i}" for i in range(len(columns))], axis=1)
        try:
            out = pl.DataFrame([_pandas_column(plain.iloc[:, i], c)
                                for i, c in enumerate(plain.columns)])
        except Exception as e:  # noqa: BLE001 - Arrow raises many kinds; we name the column
            raise _pandas_column_error(sub, label, e) from None
        # a pandas column of objects with no value (empty, or all None) has no type: Null;
        # so has a column of an empty frame built from empty lists (pandas makes it float64)
        untyped = [c for i, c in enumerate(out.columns)
                   if (sub.dtypes.iloc[i] == object and out[c].null_count() == out.height)
                   or (out.height == 0 and sub.dtypes.iloc[i] == np.float64)]
        if untyped:
            out = out.with_columns(pl.col(c).cast(pl.Null) for c in untyped)
        return out.rename(dict(zip(plain.columns, columns)))
    raise InputTypeError(f"{label} must be a pandas or Polars DataFrame, not {type(frame).__name__}")


# --------------------------------------------------------------------------- identifiers
def _key_kind(dtype: pl.DataType, label: str) -> str:
    """'int' (fits Int64), 'uint' (64-bit unsigned or wider), 'str' or 'null'."""
    if dtype.is_integer():
        return "int" if dtype in (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16,
                                  pl.UInt32) else "uint"
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return "str"
    if dtype == pl.Null:
        return "null"
    extra = ""
    if dtype.is_float():
        extra = (" (a pandas integer column with a missing value becomes float: fill or drop "
                 "it, then .astype(int))")
    raise InputError(f"{label} must hold integers or strings, not {dtype}{extra}")


def key_dtype(*kinds: str) -> pl.DataType:
    """The common dtype of keys of the given kinds: Int64 if all are integers that fit it,
    UInt64 if all are unsigned 64-bit, else String (integers as their decimal digits)."""
    real = [k for k in kinds if k != "null"]
    if real and all(k == "int" for k in real):
        return pl.Int64
    if real and all(k == "uint" for k in real):
        return pl.UInt64
    return pl.String


def queries_series(queries) -> pl.Series | None:
    if queries is None:
        return None
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Iterable):
        raise InputTypeError(f"queries= takes an iterable of qids, e.g. a list, not {queries!r}")
    values = list(queries)
    try:
        s = pl.Series("qid", values)
    except Exception:  # noqa: BLE001 - Polars raises several kinds for mixed lists
        raise InputError(f"queries= mixes qid types that cannot be compared "
                         f"({_describe_types(values)}): give every qid one type") from None
    return s


@dataclass(frozen=True)
class KeyTypes:
    qid: pl.DataType
    docid: pl.DataType
    mismatch: tuple[str, ...] = ()  # "qid"/"docid" where one frame has ints, the other strs


def key_types(run_schema: pl.Schema, qrels_schema: pl.Schema, cols: Columns,
              queries: pl.Series | None) -> KeyTypes:
    rq = _key_kind(run_schema[cols.run_qid], f"run column {cols.run_qid!r}")
    qq = _key_kind(qrels_schema[cols.qrels_qid], f"qrels column {cols.qrels_qid!r}")
    kinds = [rq, qq]
    if queries is not None and len(queries):
        kinds.append(_key_kind(queries.dtype, "queries="))
    rd = _key_kind(run_schema[cols.run_docid], f"run column {cols.run_docid!r}")
    qd = _key_kind(qrels_schema[cols.qrels_docid], f"qrels column {cols.qrels_docid!r}")
    mismatch = tuple(name for name, a, b in (("qid", rq, qq), ("docid", rd, qd))
                     if "null" not in (a, b) and (a == "str") != (b == "str"))
    return KeyTypes(qid=key_dtype(*kinds), docid=key_dtype(rd, qd), mismatch=mismatch)


# --------------------------------------------------------------------------- dtypes
_UNSUPPORTED_KEY = (pl.List, pl.Array, pl.Struct, pl.Object)


def _numeric(dtype: pl.DataType) -> bool:
    """Numbers (not booleans); Null too: a column with no value (its rows, if any, are
    reported as missing values by the data checks)."""
    return (dtype.is_numeric() and dtype != pl.Boolean) or dtype == pl.Null


def check_schema(run_schema: pl.Schema, qrels_schema: pl.Schema, cols: Columns) -> None:
    """Checks that need only the dtypes (done at call time, also for LazyFrames)."""
    if not _numeric(run_schema["score"]):
        raise InputError(f"run column 'score' must be numeric, not {run_schema['score']}")
    if cols.has_rank and not _numeric(run_schema["rank"]):
        raise InputError(f"run column 'rank' must be numeric, not {run_schema['rank']}")
    rel_dtype = qrels_schema[cols.rel]
    if not (_numeric(rel_dtype) or rel_dtype == pl.Boolean):
        raise InputError(
            f"qrels column {cols.rel!r} must hold numeric grades, not {rel_dtype}")
    for b in cols.by:
        if isinstance(run_schema[b], _UNSUPPORTED_KEY) or run_schema[b] == pl.Object:
            raise InputError(f"by= column {b!r} holds {run_schema[b]} values; a system key "
                             "must be a scalar (string, number, boolean, date, …)")


def _where(row: dict, keys: Sequence[str]) -> str:
    return ", ".join(f"{k}={row[k]!r}" for k in keys)


def _check_float_ids(frame: pl.DataFrame, column: str, label: str) -> None:
    """A float id column: name its first missing value, else the float type itself."""
    if not frame.schema[column].is_float():
        return
    bad = frame[column].is_null() | frame[column].is_nan()
    if bad.any():
        raise InputError(f"{label} column {column!r} has a missing value (row "
                         f"{int(bad.arg_max())})")


@dataclass(frozen=True)
class Canonical:
    """Validated, canonical frames for :func:`trunc_accessor.prepare.prepare`.

    ``systems``: one row per distinct by… key (the user's columns, dtypes and values, nulls
    included), row i being system code i of the run's ``_sys`` column; None without by=."""

    run: pl.DataFrame
    qrels: pl.DataFrame
    queries: pl.Series | None
    systems: pl.DataFrame | None
    key_types: KeyTypes
    cols: Columns
    id_note: str = ""  # the id-type mismatch, for prepare's one IdentifierWarning


def system_codes(run: pl.DataFrame, by: Sequence[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Number the distinct by… keys 0, 1, … in sorted order (a null and a NaN are keys of
    their own, sorted last, as pandas' ``groupby(dropna=False)``). Returns the run with a
    ``_sys`` column instead of the by… columns (rows of a system keep their input order) and
    the systems frame (by… columns, one row per code)."""
    by = list(by)
    run = run.sort(by, nulls_last=True, maintain_order=True)
    changed = pl.any_horizontal([pl.col(b).ne_missing(pl.col(b).shift()) for b in by])
    first = run.select((changed | (pl.int_range(pl.len()) == 0)).alias("first"))["first"]
    code = first.cast(pl.Int64).cum_sum() - 1
    systems = run.filter(first).select(by)
    return run.with_columns(code.alias(SYS)).drop(by), systems


def may_repeat(frame: pl.DataFrame, keys: Sequence[str]) -> bool:
    """Whether some key may occur twice: a 64-bit hash of the keys has fewer distinct values
    than there are rows (several times cheaper than an exact pass, which callers run only
    then)."""
    return frame.height > 1 and frame.select(pl.struct(keys).hash().n_unique()).item() < frame.height


def qid_sort_keys(frame: pl.DataFrame, qid: str) -> list[pl.Expr]:
    """Sort expressions that order string qids naturally when every one is made of digits
    ("1", "2", "10", as the numbers they write; "7" before "007"), else as they are."""
    column = pl.col(qid)
    if frame.schema[qid] != pl.String or not frame.height:
        return [column]
    if not frame.select(column.str.contains(r"^[0-9]+$").fill_null(True).all()).item():
        return [column]
    digits = column.str.strip_chars_start("0")
    return [digits.str.len_bytes(), digits, column]


def sort_results(frame: pl.DataFrame, by: Sequence[str], qid: str) -> pl.DataFrame:
    """Rows in the order of results: by the by… keys (nulls last), then qid (natural order
    for digit-only string qids, see :func:`qid_sort_keys`); stable, so the rows of one
    ranking (curves, CRP) keep their order."""
    keys = [*(pl.col(b) for b in by), *qid_sort_keys(frame, qid)]
    return frame.sort(keys, nulls_last=True, maintain_order=True)


def check_duplicate_documents(run: pl.DataFrame, systems: pl.DataFrame | None) -> None:
    """InputError naming a document retrieved twice for one query by one system (the exact
    pass; :func:`trunc_accessor.prepare.prepare` calls it only when a 64-bit hash of the
    (system, qid, docid) keys finds a repeat)."""
    keys = [c for c in (SYS, "qid", "docid") if c in run.columns]
    dup = run.select(pl.struct(keys).is_duplicated()).to_series()
    if dup.any():
        row = run.filter(dup).row(0, named=True)
        raise DuplicateDocumentError(
            f"document {row['docid']!r} appears twice in the ranking of "
            f"{_row_label(row, systems, ['qid'])}: each document may be retrieved once "
            "per query")


def distinct_systems(frame: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """The distinct by… keys of ``frame`` in system-code order (as :func:`system_codes`)."""
    tmp = [f"_by{i}" for i in range(len(by))]
    keys = frame.select([pl.col(b).alias(t) for b, t in zip(by, tmp)]).unique()
    return system_codes(keys, tmp)[1].rename(dict(zip(tmp, by)))


def _row_label(row: dict, systems: pl.DataFrame | None, keys: Sequence[str]) -> str:
    parts = []
    if systems is not None and SYS in row:
        parts.append(_where(systems.row(int(row[SYS]), named=True), systems.columns))
    parts.append(_where(row, keys))
    return ", ".join(parts)


def nulls_equal() -> dict:
    """The join keyword that makes null keys match (a null by= key is a system of its
    own): ``nulls_equal`` since Polars 1.24, ``join_nulls`` before."""
    names = inspect.signature(pl.DataFrame.join).parameters
    return {"nulls_equal": True} if "nulls_equal" in names else {"join_nulls": True}


def recode_systems(run: pl.DataFrame, local: pl.DataFrame, systems: pl.DataFrame) -> pl.DataFrame:
    """Renumber the run's ``_sys`` codes (rows of ``local``) as the rows of ``systems``,
    the systems of a whole call of which this run is one batch (every local system is
    one of them)."""
    names = list(systems.columns)
    found = (local.with_row_index("_local")
             .join(systems.with_row_index("_global"), on=names, how="left", **nulls_equal())
             .sort("_local"))
    code = found["_global"].cast(pl.Int64).to_numpy()
    return run.with_columns(pl.Series(SYS, code[run[SYS].to_numpy()]))


def normalise(run: pl.DataFrame, qrels: pl.DataFrame, cols: Columns,
              queries: pl.Series | None, systems: pl.DataFrame | None = None) -> Canonical:
    """Validate the data and return the canonical frames (module doc). ``systems``: the
    by… keys of a whole call when this run is one batch of it (they number ``_sys``)."""
    check_schema(run.schema, qrels.schema, cols)
    for frame, label, names in ((run, "run", (cols.run_qid, cols.run_docid)),
                                (qrels, "qrels", (cols.qrels_qid, cols.qrels_docid))):
        for c in names:
            _check_float_ids(frame, c, label)
    kt = key_types(run.schema, qrels.schema, cols, queries)
    id_note = _mismatch_message(run.schema, qrels.schema, cols, kt) if kt.mismatch else ""

    by_tmp = [f"_by{i}" for i in range(len(cols.by))]  # user names never enter the engine
    run_exprs = [pl.col(b).alias(t) for b, t in zip(cols.by, by_tmp)] + [
        pl.col(cols.run_qid).cast(kt.qid).alias("qid"),
        pl.col(cols.run_docid).cast(kt.docid).alias("docid"),
        pl.col("score").cast(pl.Float64),
    ]
    if cols.has_rank:
        run_exprs.append(pl.col("rank").cast(pl.Float64))
    r = run.select(run_exprs)
    given, systems = systems, None
    if cols.by:
        r, systems = system_codes(r, by_tmp)
        systems = systems.rename(dict(zip(by_tmp, cols.by)))
        if given is not None:
            r, systems = recode_systems(r, systems, given), given

    for col in ("qid", "docid"):
        if r[col].null_count():
            row = r.filter(r[col].is_null()).row(0, named=True)
            raise InputError(f"run column {col!r} has a missing value (row "
                             f"{_row_label(row, systems, ['qid', 'docid'])})")
    checks = (("score", "missing or NaN"),) + ((("rank", "missing, NaN or infinite"),)
                                               if cols.has_rank else ())
    for col, what in checks:
        bad = r[col].is_null() | r[col].is_nan()
        if col == "rank":
            bad = bad | r[col].is_infinite()
        if bad.any():
            row = r.filter(bad).row(0, named=True)
            raise InputError(f"run column {col!r} is {what} for "
                             f"{_row_label(row, systems, ['qid', 'docid'])}")
    q = qrels.select(
        pl.col(cols.qrels_qid).cast(kt.qid).alias("qid"),
        pl.col(cols.qrels_docid).cast(kt.docid).alias("docid"),
        pl.col(cols.rel).cast(pl.Float64).alias("rel"),
    )
    for col in ("qid", "docid"):
        bad = q[col].is_null()
        if bad.any():
            raise InputError(f"qrels column {col!r} has a missing value "
                             f"(row {_where(q.filter(bad).row(0, named=True), ['qid', 'docid'])})")
    bad = q["rel"].is_null() | q["rel"].is_nan() | q["rel"].is_infinite()
    if bad.any():
        raise InputError(f"qrels grade is missing, NaN or infinite for "
                         f"{_where(q.filter(bad).row(0, named=True), ['qid', 'docid'])}")
    if may_repeat(q, ["qid", "docid"]):
        q = q.unique(maintain_order=True)  # the same judgment twice is harmless
        conflict = q.select(pl.struct("qid", "docid").is_duplicated()).to_series()
        if conflict.any():
            row = q.filter(conflict).row(0, named=True)
            grades = q.filter((pl.col("qid") == row["qid"])
                              & (pl.col("docid") == row["docid"]))["rel"]
            raise InputError(
                f"qrels give document {row['docid']!r} of qid {row['qid']!r} conflicting "
                f"grades {sorted(set(grades.to_list()))}")

    qs = None
    if queries is not None:
        try:
            qs = queries.cast(kt.qid, strict=True).alias("qid")
        except Exception:  # noqa: BLE001 - Polars' cast errors vary by version
            raise InputError(f"queries= holds values that are not {kt.qid} qids") from None
        if qs.is_null().any():
            raise InputError("queries= holds a missing qid")
    return Canonical(run=r, qrels=q, queries=qs, systems=systems, key_types=kt, cols=cols,
                     id_note=id_note)


def _mismatch_message(run_schema, qrels_schema, cols: Columns, kt: KeyTypes) -> str:
    parts = []
    for name in kt.mismatch:
        rc = cols.run_qid if name == "qid" else cols.run_docid
        qc = cols.qrels_qid if name == "qid" else cols.qrels_docid
        parts.append(f"run column {rc!r} is {run_schema[rc]} but qrels column {qc!r} is "
                     f"{qrels_schema[qc]}")
    return ("; ".join(parts) + ": they are compared as strings (an integer as its decimal "
            "digits), so 7 matches '7' but not '007' or ' 7'. Give both frames the same type "
            "to silence this warning.")


# --------------------------------------------------------------------------- back out
def result_pandas(keys: pl.DataFrame, values: dict[str, np.ndarray], single: bool):
    """Per-query values as pandas: a Series (one metric) or DataFrame, indexed by the key
    columns of ``keys`` (qid, or by…, qid). Undefined values are NaN."""
    import pandas as pd

    names = list(keys.columns)
    arrays = [keys[c].to_list() for c in names]
    if len(names) > 1:
        index = pd.MultiIndex.from_arrays(arrays, names=names)
    else:
        index = pd.Index(arrays[0], name=names[0], dtype=object if not arrays[0] else None)
    if single:
        (label, v), = values.items()
        return pd.Series(v, index=index, name=label, dtype=np.float64)
    return pd.DataFrame({k: np.asarray(v, dtype=np.float64) for k, v in values.items()},
                        index=index, columns=list(values))


def to_pandas(frame: pl.DataFrame):
    """A Polars frame as pandas, with any column names (Arrow's C interface cannot carry a
    name holding a NUL character, so the columns cross under positional names)."""
    names = frame.columns
    out = frame.rename({c: f"c{i}" for i, c in enumerate(names)}).to_pandas()
    out.columns = names
    return out


def result_polars(keys: pl.DataFrame, values: dict[str, np.ndarray]) -> pl.DataFrame:
    """Per-query values as Polars: the key columns and one Float64 column per metric; an
    undefined value is null."""
    return keys.with_columns(
        [pl.Series(label, v, dtype=pl.Float64).fill_nan(None) for label, v in values.items()]
    )


def result_schema(run_schema: pl.Schema, cols: Columns, kt: KeyTypes, labels: Sequence[str]) -> dict:
    schema = {b: run_schema[b] for b in cols.by}
    schema[cols.run_qid] = kt.qid
    for label in labels:
        schema[label] = pl.Float64
    return schema


# --------------------------------------------------------------------------- plain lists
def number_list(values, name: str, *, missing: bool = False, finite: bool = True) -> np.ndarray:
    """A list (or 1-d array) of real numbers as float64; ``missing``: None/NaN allowed (as
    NaN); ``finite``: ±inf rejected. Errors name the argument and the position at fault."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise InputTypeError(f"{name} must be a list of numbers, not {type(values).__name__}")
    arr = values if isinstance(values, np.ndarray) else None
    if arr is None or arr.dtype.kind not in "iuf" or arr.ndim != 1:
        items = list(values)
        for i, x in enumerate(items):
            if x is None and missing:
                continue
            if isinstance(x, (bool, np.bool_)) or not isinstance(
                    x, (int, float, np.integer, np.floating)):
                what = "a number" + (" or None" if missing else "")
                raise InputError(f"{name}[{i}] must be {what}, not {x!r}")
        arr = np.array([np.nan if x is None else float(x) for x in items], dtype=np.float64)
    arr = arr.astype(np.float64)
    bad = np.zeros(len(arr), dtype=bool) if missing else np.isnan(arr)
    if finite:
        bad |= np.isinf(arr)
    if bad.any():
        i = int(np.argmax(bad))
        allowed = "finite numbers" + (" or None/NaN (unjudged)" if missing else "")
        raise InputError(f"{name}[{i}] is {arr[i]!r}: {name} must hold {allowed}")
    return arr


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
    check_frame(run, "run")
    names = _names(run, "run")
    by = normalise_by(by)
    cols = RunColumns(qid=_pick("qid", names, None, QID_NAMES, "run", run),
                      docid=_pick("docid", names, None, DOCID_NAMES, "run", run),
                      by=by, has_rank="rank" in names)
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


def whole_number(value, name: str, minimum: int = 0) -> int:
    """A whole number ≥ ``minimum`` (an int, or a float with an integral value), else an
    error naming ``name``."""
    ok = (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))) or (
        isinstance(value, (float, np.floating)) and np.isfinite(value) and value == int(value))
    if not ok or not minimum <= value < 2 ** 63:
        raise InputError(f"{name} must be a whole number ≥ {minimum} (and below 2**63), "
                         f"not {value!r}")
    return int(value)


def depth_argument(depth, cols: RunColumns, run_schema: pl.Schema, column: str):
    """``truncate``'s k: a whole number ≥ 0, or per-ranking depths as a pandas Series indexed
    by qid (or by…, qid) or a Polars frame with those key columns and a ``depth`` column
    (what ``optimal_cutoff`` returns). Returns an int or a Polars frame (keys, ``column``)."""
    keys = [*cols.by, cols.qid]
    if isinstance(depth, (int, float, np.number)):
        return whole_number(depth, "truncate: k")
    if is_pandas(depth):
        frame = pl.from_pandas(depth.reset_index() if depth.index.names != [None] else depth)
    elif is_pandas(depth, "Series"):
        names = list(depth.index.names)
        if names != keys:
            raise InputError(f"truncate: the depths' index must be {keys}, not {names}")
        frame = pl.from_pandas(depth.rename("depth").reset_index())
    elif isinstance(depth, pl.LazyFrame):
        frame = depth.collect()
    elif isinstance(depth, pl.DataFrame):
        frame = depth
    else:
        raise InputTypeError("truncate: k must be a whole number or per-query depths "
                             f"(a Series indexed by {keys}, or a frame with {keys} and 'depth'), "
                             f"not {type(depth).__name__}")
    missing = [c for c in [*keys, "depth"] if c not in frame.columns]
    if missing:
        raise InputError(f"truncate: the per-query depths lack column(s) {missing}")
    if not (_numeric(frame.schema["depth"]) or frame.schema["depth"] == pl.Null):
        raise InputError(f"truncate: the depths must be numbers, not {frame.schema['depth']}")
    try:
        frame = frame.select(
            [pl.col(k).cast(run_schema[k]) for k in keys] + [pl.col("depth").cast(pl.Float64)])
    except Exception:  # noqa: BLE001 - Polars' cast errors vary by version
        raise InputError(f"truncate: the depths' key columns {keys} do not have the run's types "
                         f"{[run_schema[k] for k in keys]}") from None
    bad = frame.filter(pl.col("depth").is_not_null() & ~pl.col("depth").is_nan()
                       & ((pl.col("depth") < 0) | (pl.col("depth") != pl.col("depth").round())
                          | pl.col("depth").is_infinite()))
    if bad.height:
        raise InputError(f"truncate: depth {bad['depth'][0]} for {bad.row(0, named=True)} is "
                         "not a whole number ≥ 0")
    if frame.select(pl.struct(keys).is_duplicated().any()).item():
        raise InputError(f"truncate: the per-query depths name a ranking twice ({keys})")
    return frame.select(*keys, pl.col("depth").fill_nan(None).cast(pl.Int64).alias(column))
