"""Identifiers and system keys: the kind of each id column (integers or strings), the
common key type of a run and its qrels (the identifier rule: integers when both hold
integers, else strings), dtype checks, system codes and the natural order of digit-only
string qids."""
from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import polars as pl

from trunc_accessor.core.columns import (
    _UNSUPPORTED_KEY,
    SYS,
    Columns,
    DuplicateDocumentError,
    _numeric,
)
from trunc_accessor.errors import InputError, InputTypeError


def _describe_types(values) -> str:
    kinds = sorted({type(v).__name__ for v in values if v is not None})
    return ", ".join(kinds)


# --------------------------------------------------------------------------- identifiers
def _key_kind(dtype: pl.DataType, label: str) -> str:
    """'int' (fits Int64), 'uint' (UInt64), 'wide' (128-bit integers: compared as their
    decimal digits), 'str' or 'null'."""
    if dtype.is_integer():
        if dtype in (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32):
            return "int"
        return "uint" if dtype == pl.UInt64 else "wide"
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
    UInt64 if all are unsigned 64-bit, else String (integers as their decimal digits, as
    128-bit integers always are)."""
    real = [k for k in kinds if k != "null"]
    if real and all(k == "int" for k in real):
        return pl.Int64()
    if real and all(k == "uint" for k in real):
        return pl.UInt64()
    return pl.String()


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


def mismatch_message(run_schema: pl.Schema, qrels_schema: pl.Schema, cols: Columns,
                     kt: KeyTypes) -> str:
    """Why the run's and the qrels' ids are compared as strings (their types differ), as
    said in an ``IdentifierWarning``."""
    parts = []
    for name in kt.mismatch:
        rc = cols.run_qid if name == "qid" else cols.run_docid
        qc = cols.qrels_qid if name == "qid" else cols.qrels_docid
        parts.append(f"run column {rc!r} is {run_schema[rc]} but qrels column {qc!r} is "
                     f"{qrels_schema[qc]}")
    return ("; ".join(parts) + ": they are compared as strings (an integer as its decimal "
            "digits), so 7 matches '7' but not '007' or ' 7'. Give both frames the same type "
            "to silence this warning.")


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
    if cols.subtopic:
        dt = qrels_schema[cols.subtopic]
        if not (dt.is_integer() or dt.is_float() or dt in (pl.String, pl.Null)
                or isinstance(dt, (pl.Categorical, pl.Enum))):
            raise InputError(f"qrels column {cols.subtopic!r} must hold subtopic ids "
                             f"(integers or strings), not {dt}")
    if cols.weight and not _numeric(qrels_schema[cols.weight]):
        raise InputError(f"qrels column {cols.weight!r} must hold numeric subtopic weights, "
                         f"not {qrels_schema[cols.weight]}")


def _where(row: dict, keys: Sequence[str]) -> str:
    return ", ".join(f"{k}={row[k]!r}" for k in keys)


def _check_float_ids(frame: pl.DataFrame, column: str, label: str) -> None:
    """A float id column: name its first missing value, else the float type itself."""
    if not frame.schema[column].is_float():
        return
    bad = frame[column].is_null() | frame[column].is_nan()
    if bad.any():
        raise InputError(f"{label} column {column!r} has a missing value (row "
                         f"{bad.arg_max()})")


@dataclass(frozen=True)
class Canonical:
    """Validated, canonical frames for ``trunc_accessor.core.prepare.prepare``.

    ``systems``: one row per distinct by… key (the user's columns, dtypes and values, nulls
    included), row i being system code i of the run's ``_sys`` column; None without by=."""

    run: pl.DataFrame
    qrels: pl.DataFrame
    queries: pl.Series | None
    systems: pl.DataFrame | None
    key_types: KeyTypes
    cols: Columns
    id_note: str = ""  # the id-type mismatch, for prepare's one IdentifierWarning
    subtopics: pl.DataFrame | None = None  # qid, subtopic, docid, rel of diversity qrels


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
    return (frame.height > 1
            and frame.select(keys).hash_rows().n_unique() < frame.height)


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
    for digit-only string qids, see ``qid_sort_keys``); stable, so the rows of one
    ranking (curves, CRP) keep their order."""
    keys = [*(pl.col(b) for b in by), *qid_sort_keys(frame, qid)]
    return frame.sort(keys, nulls_last=True, maintain_order=True)


def check_duplicate_documents(run: pl.DataFrame, systems: pl.DataFrame | None) -> None:
    """InputError naming a document retrieved twice for one query by one system (the exact
    pass; ``trunc_accessor.core.prepare.prepare`` calls it only when a 64-bit hash of the
    (system, qid, docid) keys finds a repeat)."""
    keys = [c for c in (SYS, "qid", "sample", "docid") if c in run.columns]
    dup = run.select(pl.struct(keys).is_duplicated()).to_series()
    if dup.any():
        row = run.filter(dup).row(0, named=True)
        raise DuplicateDocumentError(
            f"document {row['docid']!r} appears twice in the ranking of "
            f"{_row_label(row, systems, ['qid', 'sample'] if 'sample' in keys else ['qid'])}"
            ": each document may be retrieved once per query"
            + (" and sample" if "sample" in keys else ""))


def distinct_systems(frame: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """The distinct by… keys of ``frame`` in system-code order (as ``system_codes``)."""
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
    # categorical keys join as text: a batch's categories and the call's may come from
    # different string caches (Polars 1.x refuses to compare those)
    as_text = [pl.col(c).cast(pl.String) for c in names
               if isinstance(systems.schema[c], (pl.Categorical, pl.Enum))]
    found = (local.with_columns(as_text).with_row_index("_local")
             .join(systems.with_columns(as_text).with_row_index("_global"), on=names,
                   how="left", **nulls_equal())
             .sort("_local"))
    code = found["_global"].cast(pl.Int64).to_numpy()
    return run.with_columns(pl.Series(SYS, code[run[SYS].to_numpy()]))
