"""Writing a run frame as a TREC run file: ``write_run``."""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

import polars as pl

from trunc_accessor._typing import Frame, Source
from trunc_accessor.core.columns import DOCID_NAMES, QID_NAMES, _names, check_frame, normalise_by
from trunc_accessor.core.frames import to_polars
from trunc_accessor.errors import InputError, InputTypeError
from trunc_accessor.io.source import _COMPRESSED

_TIES = ("trec_eval", "first")


def _pick_column(names: list[str], aliases, role: str) -> str:
    for a in aliases:
        if a in names:
            return a
    raise InputError(f"write_run: the run has no {role} column: expected one of "
                     f"{list(aliases)}, found {names}")


_BLANK_RE = r"[ \t\n\r\x0b\x0c]"


def _unwritable(col: str) -> pl.Expr:
    """Values that would not survive a round trip through a whitespace-split line."""
    return (pl.col(col).is_null() | (pl.col(col).str.len_bytes() == 0)
            | pl.col(col).str.contains(_BLANK_RE))


def _check_run(run: pl.DataFrame, keys: tuple[str, ...]) -> None:
    """InputError for the first value write_run cannot write so that it reads back."""
    tag_what = f"system key ({', '.join(keys)})" if keys else "tag"
    checks = {
        "qid": (_unwritable("qid"), "qid {qid!r} is missing, empty or holds whitespace"),
        "docid": (_unwritable("docid"),
                  "docid {docid!r} of qid {qid!r} is missing, empty or holds whitespace"),
        "comment": (pl.col("qid").str.starts_with("#"),
                    "qid {qid!r} starts with '#', which makes its lines comments"),
        "score": (pl.col("score").is_null() | ~pl.col("score").is_finite(),
                  "score {score!r} of qid {qid!r}, docid {docid!r} is not a finite number"),
    }
    if keys:
        checks["tag"] = (_unwritable("tag"),
                         tag_what + " {tag!r} is missing, empty or holds whitespace")
    if "_rank" in run.columns:
        checks["_rank"] = (pl.col("_rank").is_null() | ~pl.col("_rank").is_finite(),
                           "rank {_rank!r} of qid {qid!r}, docid {docid!r} is not a finite number")
    flags = run.select([e.any().alias(k) for k, (e, _msg) in checks.items()]).row(0, named=True)
    for key, (expr, message) in checks.items():
        if flags[key]:
            row = run.filter(expr).row(0, named=True)
            raise InputError("write_run: " + message.format(**row)
                             + " (a TREC file could not hold it)")
    keys3 = ["tag", "qid", "docid"]
    # a 64-bit hash of the keys first; the exact check only if two collide
    if run.height and run.select(pl.struct(keys3).hash().n_unique()).item() < run.height:
        dup = run.filter(pl.struct(keys3).is_duplicated())
        if dup.height:
            row = dup.row(0, named=True)
            hint = "" if keys else " (several systems? pass by= their column)"
            raise InputError(f"write_run: document {row['docid']!r} appears twice in the "
                             f"ranking of qid {row['qid']!r}{hint}")


def _id_text(frame: pl.DataFrame, column: str, what: str) -> pl.Expr:
    """A column of ids (or system keys) as text that reads back as the same id: strings and
    integers as they are, whole floats as integers (301.0 → "301"); other floats and other
    types are refused, naming the column and the value."""
    dtype = frame.schema[column]
    if dtype.is_float():
        bad = frame.filter(pl.col(column).is_not_null()
                           & ((pl.col(column) != pl.col(column).round())
                              | ~pl.col(column).is_finite()))
        if bad.height:
            raise InputError(f"write_run: {what} column {column!r} holds {bad[column][0]!r}, "
                             f"which is not a whole number: a TREC file holds ids as words, "
                             f"and '{bad[column][0]}' would match no qrels line")
        return pl.col(column).cast(pl.Int64).cast(pl.String)
    if not (dtype.is_integer() or dtype in (pl.String, pl.Null, pl.Boolean)
            or isinstance(dtype, (pl.Categorical, pl.Enum))):
        raise InputError(f"write_run: {what} column {column!r} is {dtype}; ids are strings or "
                         f"integers")
    return pl.col(column).cast(pl.String)


def write_run(frame: Frame, path: Source, tag: str | None = None,
              by: str | Sequence[str] | None = None, ties: str = "trec_eval") -> Source:
    """Write a run as a TREC file (``qid Q0 docid rank score tag``) and return ``path``.

    ``frame``: pandas or Polars, with qid, docid (aliases as elsewhere: query_id/topic,
    docno/doc_id), score and optionally rank. ``path``: a path, ``"-"`` (stdout) or an open
    file object; a path ending in ``.gz``, ``.bz2`` or ``.xz`` is compressed. Ids that are
    whole floats (301.0, as pandas makes an integer column with a missing value) are written
    as integers; other floats are refused.

    Each ranking is written in its order with ranks 1..n: by ascending ``rank`` if the frame
    has one, else by descending score. Equal keys are broken as trec_eval breaks equal
    scores, by docid descending in byte order (``ties="trec_eval"``), or kept in the frame's
    order (``ties="first"``). Queries come in order of first appearance. ``by``: a column (or
    list of columns) naming the systems; each row's tag is then its key (several columns
    joined by ``/``) and rows are grouped by system, then qid. With neither ``tag`` nor
    ``by``, a ``system`` column (as ``read_run`` gives) is the tag, so several runs read
    together are written back under their own names; without one the tag is
    ``trunc_accessor``. Scores are written with the
    fewest digits that read back as the same float64, so ``read_run`` returns exactly the
    written scores.

    >>> import os, tempfile, trunc_accessor
    >>> from trunc_accessor.io import write_run
    >>> run = trunc_accessor.read_run(trunc_accessor.example_path("results.test"))
    >>> path = write_run(run, os.path.join(tempfile.mkdtemp(), "run.gz"), tag="example")
    >>> back = trunc_accessor.read_run(path)
    >>> len(back) == len(run), back["system"].unique().tolist()
    (True, ['example'])
    """
    check_frame(frame, "run")
    if ties not in _TIES:
        raise InputError(f"write_run: ties= must be one of {list(_TIES)}, not {ties!r}")
    keys, tag = _keys_and_tag(frame, by, tag)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    elif not isinstance(frame, pl.DataFrame):  # the named columns (any role is a string)
        frame = to_polars(frame, [c for c in _names(frame, "run") if isinstance(c, str)], "run")
    run = _run_columns(frame, keys, tag)
    _check_run(run, keys)
    _write(_ranked_lines(run, ties), path)
    return path


def _keys_and_tag(frame, by, tag) -> tuple[tuple, str]:
    """The system key columns (``by``, else a ``system`` column when no tag is given) and
    the tag written when there are none ("trunc_accessor" by default)."""
    keys = normalise_by(by)
    if tag is None and not keys:
        columns = frame.collect_schema().names() if isinstance(frame, pl.LazyFrame) \
            else list(frame.columns)
        keys, tag = (("system",) if "system" in columns else ()), "trunc_accessor"
    elif tag is None:
        tag = "trunc_accessor"
    if not isinstance(tag, str):
        raise InputTypeError(f"write_run: tag= must be a string, not {type(tag).__name__}")
    if not keys and (not tag or re.search(_BLANK_RE, tag)):
        raise InputError(f"write_run: tag {tag!r} must be a non-empty word without whitespace")
    return tuple(keys), tag


def _run_columns(frame: pl.DataFrame, keys: tuple, tag: str) -> pl.DataFrame:
    """The run as text ids, float scores, the optional rank (``_rank``) and each row's tag
    (its system key, several columns joined by "/", or ``tag``)."""
    names = list(frame.columns)
    qid = _pick_column(names, QID_NAMES, "qid")
    docid = _pick_column(names, DOCID_NAMES, "docid")
    if "score" not in names:
        raise InputError(f"write_run: the run has no 'score' column; found {names}")
    for k in keys:
        if k not in names:
            raise InputError(f"write_run: by= names column {k!r}, which the run does not have; "
                             f"found {names}")
    for c in ("score", "rank"):
        if c in names and not (frame.schema[c].is_numeric() and frame.schema[c] != pl.Boolean
                               or frame.schema[c] == pl.Null):
            raise InputError(f"write_run: run column {c!r} must be numeric, not "
                             f"{frame.schema[c]}")
    try:
        cols = [_id_text(frame, qid, "qid").alias("qid"),
                _id_text(frame, docid, "docid").alias("docid"),
                pl.col("score").cast(pl.Float64).alias("score")]
        if "rank" in names:
            cols.append(pl.col("rank").cast(pl.Float64).alias("_rank"))
        if keys:
            cols.append(pl.concat_str([_id_text(frame, k, "by=") for k in keys],
                                      separator="/").alias("tag"))
        else:
            cols.append(pl.lit(tag, dtype=pl.String).alias("tag"))
        run = frame.select(cols)
    except pl.exceptions.PolarsError as e:
        raise InputError(f"write_run: cannot read the run's columns as ids and numbers ({e})"
                         ) from None
    if len(keys) > 1:  # different key tuples must not write as one tag ("a/b" + "c" = "a" + "b/c")
        tags = frame.select(keys).with_columns(run["tag"].alias("__tag")).unique()
        clash = tags.filter(pl.col("__tag").is_duplicated())
        if clash.height:
            shown = [tuple(r[:-1]) for r in clash.rows()[:2]]
            raise InputError(f"write_run: systems {shown[0]!r} and {shown[1]!r} would both be "
                             f"written as tag {clash['__tag'][0]!r}: rename one")
    return run


def _ranked_lines(run: pl.DataFrame, ties: str) -> pl.DataFrame:
    """The lines of the file (qid Q0 docid rank score tag): systems and queries in order of
    first appearance, each ranking by rank or descending score, equal keys broken by docid
    descending (``ties="trec_eval"``) or kept in order, ranks 1..n."""
    run = run.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("_i"))
    run = run.with_columns(pl.col("_i").min().over("tag").alias("_s"),
                           pl.col("_i").min().over("qid").alias("_q"))
    order, desc = ["_s", "_q"], [False, False]
    order, desc = (order + ["_rank"], desc + [False]) if "_rank" in run.columns else \
        (order + ["score"], desc + [True])
    if ties == "trec_eval":
        order, desc = order + ["docid"], desc + [True]
    run = run.sort(order, descending=desc, maintain_order=True)
    return run.select("qid", pl.lit("Q0").alias("Q0"), "docid",
                      (pl.int_range(pl.len(), dtype=pl.Int64).over("_s", "_q") + 1).alias("rank"),
                      "score", "tag")


def _open_for_writing(name, kind: str | None) -> Any:
    """A binary file to write, compressed as ``kind`` says (gzip, bzip2, xz or None)."""
    if kind == "gzip":
        return gzip.open(name, "wb", compresslevel=6)
    if kind == "bzip2":
        return bz2.open(name, "wb")
    if kind == "xz":
        return lzma.open(name, "wb")
    return open(name, "wb")


def _write(out: pl.DataFrame, path) -> None:
    options: dict[str, Any] = {"separator": " ", "include_header": False,
                               "quote_style": "never", "line_terminator": "\n"}
    if isinstance(path, str) and path == "-":
        stream = getattr(sys.stdout, "buffer", None)
        if stream is None:
            sys.stdout.write(out.write_csv(**options))
        else:
            out.write_csv(stream, **options)
            stream.flush()
    elif isinstance(path, (str, os.PathLike)):
        name = os.fspath(path)
        kind = _COMPRESSED.get(os.path.splitext(os.fsdecode(name))[1].lower())
        if kind is None and "://" not in name:  # (Polars would take that for a URL)
            out.write_csv(name, **options)
            return
        with _open_for_writing(name, kind) as fh:
            out.write_csv(fh, **options)
    elif hasattr(path, "write"):
        if isinstance(path, io.TextIOBase):
            path.write(out.write_csv(**options))
        else:
            out.write_csv(path, **options)
    else:
        raise InputTypeError("write_run: path must be a path (str or pathlib.Path), '-' for "
                             f"standard output, or an open file object, not {type(path).__name__}")
