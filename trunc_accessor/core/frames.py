"""Frames in, frames out: validation and normalisation (the column names live in
``trunc_accessor.core.columns``, the identifier rule in ``trunc_accessor.core.keys``; both
re-exported here).

This is the only module that knows the quirks of pandas and Polars. What it hands to
``trunc_accessor.core.prepare`` holds only the engine's own column names, so no user column
can collide with them (a run's ``rel`` column used as ``by=`` never meets the qrels'
grades):

* run:   ``[_sys,] qid, docid, score[, rank]``: ``_sys`` numbers the ``by=`` systems
  (see ``Canonical``; the user's key columns travel beside it in ``systems``);
* qrels: ``qid, docid, rel`` (``rel`` as Float64).

Identifier rule: qid and docid are compared as integers when both frames hold integers, and
otherwise as strings (an integer as its decimal digits), so int 7 matches "7" but neither
"007" nor " 7". When one frame holds integers and the other strings, or a system retrieved
no judged document at all, one ``IdentifierWarning`` says so
(emitted by ``trunc_accessor.core.prepare``, which sees both facts).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from trunc_accessor.core.aspects import check_weights, subtopic_column
from trunc_accessor.core.columns import (
    Columns,
    is_pandas,
    resolve_run_columns,
)
from trunc_accessor.core.from_pandas import pandas_column, pandas_column_error
from trunc_accessor.core.keys import (
    Canonical,
    KeyTypes,
    _check_float_ids,
    _row_label,
    _where,
    check_schema,
    key_types,
    may_repeat,
    mismatch_message,
    recode_systems,
    system_codes,
)
from trunc_accessor.errors import InputError, InputTypeError


# --------------------------------------------------------------------------- to Polars
def to_polars(frame, columns: Sequence[str], label: str = "frame",
              keys: Sequence[str] = ()) -> pl.DataFrame | pl.LazyFrame:
    """Select `columns` of a pandas or Polars frame as a Polars frame (never a view that
    could write back to the user's frame). ``keys``: the identifier columns among them (a
    pandas ``category`` one comes as the values of its categories, not as a Polars
    ``Categorical``: ids are compared as strings or integers; a Polars ``Categorical`` or
    ``Enum`` one comes as strings, for the same reason and because every read of a frame's
    schema builds its Enum type anew, a pass over all its categories)."""
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        out = frame.select(list(columns))
        if keys:
            import polars.selectors as cs

            # (by_dtype(pl.Enum), not cs.enum(): Polars 1.30 has no enum selector)
            categories = cs.by_name(*keys) & (cs.categorical() | cs.by_dtype(pl.Enum))
            out = out.with_columns(categories.cast(pl.String))
        return out
    if is_pandas(frame):
        sub = frame.loc[:, list(columns)]
        # positional names through Arrow (it renames some, e.g. an empty first name)
        plain = sub.set_axis([f"c{i}" for i in range(len(columns))], axis=1)
        try:
            out = pl.DataFrame([pandas_column(plain.iloc[:, i], c, columns[i] in keys)
                                for i, c in enumerate(plain.columns)])
        except Exception as e:  # noqa: BLE001 - Arrow raises many kinds; we name the column
            raise pandas_column_error(sub, label, e) from None
        # a pandas column of objects with no value (empty, or all None) has no type: Null;
        # so has a column of an empty frame built from empty lists (pandas makes it float64)
        untyped = [c for i, c in enumerate(out.columns)
                   if (sub.dtypes.iloc[i] == object  # noqa: E721 - a dtype equals object
                       and out[c].null_count() == out.height)
                   or (out.height == 0 and sub.dtypes.iloc[i] == np.float64)]
        if untyped:
            out = out.with_columns(pl.col(c).cast(pl.Null) for c in untyped)
        return out.rename(dict(zip(plain.columns, columns)))
    raise InputTypeError(f"{label} must be a pandas or Polars DataFrame, "
                         f"not {type(frame).__name__}")


def normalise(run: pl.DataFrame, qrels: pl.DataFrame, cols: Columns,
              queries: pl.Series | None, systems: pl.DataFrame | None = None,
              adhoc: str = "largest") -> Canonical:
    """Validate the data and return the canonical frames (module doc). ``systems``: the
    by… keys of a whole call when this run is one batch of it (they number ``_sys``);
    ``adhoc``: how diversity qrels become ad hoc judgments (``adhoc_qrels``)."""
    check_schema(run.schema, qrels.schema, cols)
    for frame, label, names in ((run, "run", (cols.run_qid, cols.run_docid)),
                                (qrels, "qrels", (cols.qrels_qid, cols.qrels_docid))):
        for c in names:
            _check_float_ids(frame, c, label)
    kt = key_types(run.schema, qrels.schema, cols, queries)
    id_note = mismatch_message(run.schema, qrels.schema, cols, kt) if kt.mismatch else ""
    r, systems = _canonical_run(run, cols, kt, systems)
    q = _canonical_qrels(qrels, cols, kt)
    subtopics = None
    if cols.subtopic:
        q, subtopics = adhoc_qrels(q, adhoc), q
    return Canonical(run=r, qrels=q, queries=_canonical_queries(queries, kt), systems=systems,
                     key_types=kt, cols=cols, id_note=id_note, subtopics=subtopics)


def _canonical_run(run: pl.DataFrame, cols: Columns, kt: KeyTypes,
                   given: pl.DataFrame | None) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The run as ``[_sys,] qid, docid, score[, rank]`` and its systems (the by… keys, row
    i for ``_sys`` i; ``given``: those of the whole call), checked for missing values."""
    by_tmp = [f"_by{i}" for i in range(len(cols.by))]  # user names never enter the engine
    run_exprs = [pl.col(b).alias(t) for b, t in zip(cols.by, by_tmp)] + [
        pl.col(cols.run_qid).cast(kt.qid).alias("qid"),
        pl.col(cols.run_docid).cast(kt.docid).alias("docid"),
        pl.col("score").cast(pl.Float64),
    ]
    if cols.has_rank:  # integer ranks stay integers (no copy), others become Float64
        fits = run.schema["rank"] in (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8,
                                      pl.UInt16, pl.UInt32)
        run_exprs.append(pl.col("rank").cast(pl.Int64 if fits else pl.Float64))
    if cols.sample:  # sampled rankings of a stochastic policy (expected exposure)
        run_exprs.append(pl.col(cols.sample).alias("sample"))
    r = run.select(run_exprs)
    systems = None
    if cols.by:
        r, systems = system_codes(r, by_tmp)
        systems = systems.rename(dict(zip(by_tmp, cols.by)))
        if given is not None:
            r, systems = recode_systems(r, systems, given), given
    _check_run_values(r, cols.has_rank, systems)
    return r, systems


def _check_run_values(r: pl.DataFrame, has_rank: bool, systems: pl.DataFrame | None) -> None:
    """A missing qid or docid, a missing or NaN score, a missing, NaN or infinite rank is
    an error naming the row."""
    for col in ("qid", "docid") + (("sample",) if "sample" in r.columns else ()):
        if r[col].null_count():
            row = r.filter(r[col].is_null()).row(0, named=True)
            raise InputError(f"run column {col!r} has a missing value (row "
                             f"{_row_label(row, systems, ['qid', 'docid'])})")
    checks = (("score", "missing or NaN"),) + ((("rank", "missing, NaN or infinite"),)
                                               if has_rank else ())
    for col, what in checks:
        bad = r[col].is_null()
        if r.schema[col].is_float():
            bad = bad | r[col].is_nan()
            if col == "rank":
                bad = bad | r[col].is_infinite()
        if bad.any():
            row = r.filter(bad).row(0, named=True)
            raise InputError(f"run column {col!r} is {what} for "
                             f"{_row_label(row, systems, ['qid', 'docid'])}")


def _canonical_qrels(qrels: pl.DataFrame, cols: Columns, kt: KeyTypes) -> pl.DataFrame:
    """The qrels as ``qid, docid, rel[, subtopic][, weight]``: no missing id, finite
    grades, each judgment once (the same judgment twice is harmless; two grades are an
    error), valid subtopic weights."""
    q = qrels.select(
        pl.col(cols.qrels_qid).cast(kt.qid).alias("qid"),
        pl.col(cols.qrels_docid).cast(kt.docid).alias("docid"),
        pl.col(cols.rel).cast(pl.Float64).alias("rel"),
        *([subtopic_column(qrels[cols.subtopic], cols.subtopic)] if cols.subtopic else []),
        *([pl.col(cols.weight).cast(pl.Float64).alias("weight")] if cols.weight else []),
        *([_stratum_column(qrels[cols.stratum], cols.stratum)] if cols.stratum else []),
        *([_inclusion_column(qrels[cols.inclusion], cols.inclusion)] if cols.inclusion
          else []),
    )
    for col in ("qid", "docid") + (("subtopic",) if cols.subtopic else ()):
        bad = q[col].is_null()
        if bad.any():
            name = cols.subtopic if col == "subtopic" else col
            raise InputError(f"qrels column {name!r} has a missing value "
                             f"(row {_where(q.filter(bad).row(0, named=True), ['qid', 'docid'])})")
    bad = q["rel"].is_null() | q["rel"].is_nan() | q["rel"].is_infinite()
    if bad.any():
        raise InputError(f"qrels grade is missing, NaN or infinite for "
                         f"{_where(q.filter(bad).row(0, named=True), ['qid', 'docid'])}")
    q = _unique_judgments(q, ["qid", "docid"] + (["subtopic"] if cols.subtopic else []),
                          bool(cols.subtopic))
    if cols.weight:
        check_weights(q)
    if cols.inclusion:
        _check_inclusion(q, cols.inclusion)
    return q


def _stratum_column(values: pl.Series, name: str) -> pl.Series:
    """A sampled pool's stratum column as ``stratum``: labels compared as text, as NIST's
    sample_eval.pl compares them (integers as their decimal digits; a float column's whole
    values too); a missing value is an error naming the row."""
    dtype = values.dtype
    if dtype.is_float():
        finite = values.drop_nulls().drop_nans()
        fractions = finite.filter(finite != finite.round(0))
        if fractions.len():
            raise InputError(f"qrels column {name!r} must hold stratum labels (integers or "
                             f"strings), not fractions such as {fractions[0]}")
        values = values.fill_nan(None).cast(pl.Int64)
    elif not (dtype.is_integer() or dtype in (pl.String, pl.Null)
              or isinstance(dtype, (pl.Categorical, pl.Enum))):
        raise InputError(f"qrels column {name!r} must hold stratum labels (integers or "
                         f"strings), not {dtype}")
    out = values.cast(pl.String).alias("stratum")
    if out.null_count():
        raise InputError(f"qrels column {name!r} has a missing value (row "
                         f"{int(out.is_null().arg_max() or 0)}): every pooled document "
                         "belongs to a stratum")
    return out


def _inclusion_column(values: pl.Series, name: str) -> pl.Series:
    """The qrels' inclusion probabilities as ``inclusion`` (Float64; NaN: missing)."""
    if not (values.dtype.is_numeric() or values.dtype == pl.Null) or values.dtype == pl.Boolean:
        raise InputError(f"qrels column {name!r} must hold inclusion probabilities "
                         f"(numbers in (0, 1]), not {values.dtype}")
    return values.cast(pl.Float64).fill_null(float("nan")).alias("inclusion")


def _check_inclusion(q: pl.DataFrame, name: str) -> None:
    """Every sampled (grade ≥ 0) document has an inclusion probability in (0, 1]; a pooled
    document left out of the sample (negative grade) may have none."""
    p = pl.col("inclusion")
    bad = (pl.col("rel") >= 0) & (p.is_nan() | (p <= 0) | (p > 1))
    rows = q.filter(bad)
    if rows.height:
        row = rows.row(0, named=True)
        raise InputError(
            f"qrels column {name!r} is {row['inclusion']!r} for "
            f"{_where(row, ['qid', 'docid'])}: a judged document's inclusion probability "
            "must be in (0, 1]")


def _unique_judgments(q: pl.DataFrame, judgment: list[str], subtopic: bool) -> pl.DataFrame:
    """The qrels with each ``judgment`` (qid, docid[, subtopic]) once: a repeated row is
    dropped, two grades for one judgment are an error."""
    if not may_repeat(q, judgment):
        return q
    q = q.unique(maintain_order=True)  # the same judgment twice is harmless
    conflict = q.select(pl.struct(judgment).is_duplicated()).to_series()
    if conflict.any():
        row = q.filter(conflict).row(0, named=True)
        grades = q.filter(pl.all_horizontal(pl.col(c) == row[c] for c in judgment))["rel"]
        of = f" for subtopic {row['subtopic']!r}" if subtopic else ""
        raise InputError(
            f"qrels give document {row['docid']!r} of qid {row['qid']!r} conflicting "
            f"grades {sorted(set(grades.to_list()))}{of}")
    return q


def _canonical_queries(queries: pl.Series | None, kt: KeyTypes) -> pl.Series | None:
    """queries= as qids of the call's qid type, without a missing one."""
    if queries is None:
        return None
    try:
        qs = queries.cast(kt.qid, strict=True).alias("qid")
    except Exception:  # noqa: BLE001 - Polars' cast errors vary by version
        raise InputError(f"queries= holds values that are not {kt.qid} qids") from None
    if qs.is_null().any():
        raise InputError("queries= holds a missing qid")
    return qs


ADHOC_RULES = ("largest", "last", "refuse")


def adhoc_qrels(subtopic_qrels: pl.DataFrame, rule: str = "largest") -> pl.DataFrame:
    """The ad hoc judgments of diversity qrels (qid, subtopic, docid, rel): one row per
    (qid, docid). ``rule``:

    * "largest" (the default): its largest grade over the subtopics, i.e. a document is
      relevant when it is relevant to any subtopic (the rule ndeval's ad hoc MAP follows);
      a spam grade (-2 for every subtopic) stays -2;
    * "last": the grade of its last row in the qrels' order, as a dict filled row by row
      keeps it (pytrec_eval's and ir_measures' qrels dictionaries);
    * "refuse": an ``InputError`` naming the first document judged twice, as trec_eval
      stops on such qrels ("duplicate docs")."""
    grouped = subtopic_qrels.group_by("qid", "docid", maintain_order=True)
    if rule == "last":
        return grouped.agg(pl.col("rel").last())
    if rule == "refuse":
        twice = subtopic_qrels.select(pl.struct("qid", "docid").is_duplicated()).to_series()
        if twice.any():
            row = subtopic_qrels.filter(twice).row(0, named=True)
            raise InputError(
                f"qrels judge document {row['docid']!r} of qid {row['qid']!r} more than once "
                "(once per subtopic): trec_eval stops on such qrels (\"duplicate docs\"); "
                "pass qrels without the subtopic column (one grade per document), or leave "
                "like='trec_eval' out to read each document's largest grade")
    return grouped.agg(pl.col("rel").max())  # (a weight column stays with the subtopics)


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


def result_schema(run_schema: pl.Schema, cols: Columns, kt: KeyTypes,
                  labels: Sequence[str]) -> dict:
    schema: dict = {b: run_schema[b] for b in cols.by}
    schema[cols.run_qid] = kt.qid
    for label in labels:
        schema[label] = pl.Float64
    return schema


def drop_identical_ids(run):
    """The run without the rows whose docid equals their qid (compared as strings): BEIR's
    ``ignore_identical_ids`` for collections whose queries are also documents (ArguAna,
    Quora), where a system retrieving the query itself would be credited or penalised for
    it. pandas, Polars and LazyFrames; the user's frame is not modified."""
    cols = resolve_run_columns(run)
    same = pl.col(cols.qid).cast(pl.String) == pl.col(cols.docid).cast(pl.String)
    if isinstance(run, (pl.DataFrame, pl.LazyFrame)):
        return run.filter(~same)
    ids = to_polars(run, [cols.qid, cols.docid], "run", keys=(cols.qid, cols.docid))
    keep = ~ids.select(same).to_series().to_numpy()
    return run[keep]
