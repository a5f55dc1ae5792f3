"""Parsing TREC-format run and qrels files into Arrow tables (what the readers accept).

Run lines: ``qid Q0 docid rank score [runid]``; fields after the runid are ignored. Qrels
lines: ``qid iter docid rel`` or, when a file's first data line has three fields,
``qid docid rel``. qid and docid are read as strings (TREC ids such as ``"301"`` or
``"2024-127266"`` are names, not numbers).

What the readers accept, as trec_eval does:

* fields separated by any run of spaces, tabs, ``\\r``, ``\\v`` or ``\\f`` (so CRLF line ends,
  leading and trailing blanks are fine); blank lines, and lines whose first field starts
  with ``#``, are skipped;
* a path (str or ``pathlib.Path``), ``"-"`` for standard input, or an open file object
  (binary or text); gzip, bzip2 and xz files are recognised by their first bytes, whatever
  their name.

A malformed line raises ``InputError`` (a ``ValueError``)
naming the file and the physical line: too few fields, a rank, score or grade that is not a
finite decimal number, or bytes that are not UTF-8.

Speed: a file is parsed by pyarrow.csv (or, if it has comment lines or lines of different
lengths, by Polars' CSV reader): straight from disk for a plain ASCII file whose fields are
separated by single spaces or single tabs, else after whitespace is normalised by a few
whole-buffer byte operations. Only a file that fails that parse is read again line by
line, to find the line at fault (``bench/read_files.py`` times a 10M-line run).
"""
from __future__ import annotations

import io
import math
import mmap
import os
import re
from dataclasses import dataclass
from typing import cast

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.csv as pacsv

from trunc_accessor.errors import InputError
from trunc_accessor.io.source import _BOM, _compression, _source, _stem

# ----------------------------------------------------------------------------- parsing
_TO_SPACE = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_CHUNK = 1 << 22
# anything the fast parse raises sends the file to the careful pass, which is always right
_PARSE_ERRORS: tuple[type[BaseException], ...] = (Exception, pl.exceptions.PanicException)


@dataclass(frozen=True)
class _Format:
    """One line format: field names in file order, how many are required, which must be
    finite numbers (index → what the error calls it), and which are kept (in order)."""

    what: str
    fields: tuple[str, ...]
    n_min: int
    numeric: dict[int, str]
    keep: tuple[int, ...]
    exact: bool = False  # every line has exactly len(fields) fields (3-field qrels)

    def type(self, i: int) -> pa.DataType:
        return pa.float64() if i in self.numeric else pa.large_string()

    @property
    def schema(self) -> pa.Schema:
        """The parsed table: the kept fields, strings and float64 numbers."""
        return pa.schema([(self.fields[i], self.type(i)) for i in self.keep])


_RUN = _Format("run", ("qid", "Q0", "docid", "rank", "score", "runid"), 5,
               {3: "rank", 4: "score"}, (0, 2, 3, 4, 5))
# every qrels line has exactly its layout's fields, as trec_eval reads them ("Malformed line")
_QRELS4 = _Format("qrels", ("qid", "iter", "docid", "rel"), 4, {3: "grade"}, (0, 1, 2, 3),
                  exact=True)
_QRELS3 = _Format("qrels", ("qid", "docid", "rel"), 3, {2: "grade"}, (0, 1, 2), exact=True)
# a sampled pool's qrels, as NIST's sample_eval.pl reads them (the grade after the stratum)
_QRELS5 = _Format("qrels", ("qid", "iter", "docid", "stratum", "rel"), 5, {4: "grade"},
                  (0, 1, 2, 3, 4), exact=True)
QRELS_LAYOUTS = ("4 fields (qid iter docid rel), 3 (qid docid rel) or 5 (qid iter docid "
                 "stratum rel: a sampled pool's, as NIST's sample_eval reads them)")


def _blank_pairs(buf, sep: bytes = b" ") -> bool:
    """Does ``buf`` (whose only blank is ``sep``) hold a blank next to a blank or a line end:
    a run of separators, a leading or trailing one, or a blank line?"""
    a = np.frombuffer(buf, np.uint8)
    if a.size == 0:
        return False
    code = sep[0]
    if a[0] in (code, 10) or a[-1] == code:
        return True
    for start in range(0, a.size, _CHUNK):
        c = a[start:start + _CHUNK + 1]
        blank = c == code
        blank |= c == 10
        if np.any(blank[1:] & blank[:-1]):
            return True
    return False


def _has_comments(buf) -> bool:
    """Does a line of a normalised buffer start with ``#``?"""
    if buf.find(b"#") < 0:  # memchr: most files have no # at all
        return False
    a = np.frombuffer(buf, np.uint8)
    if a[0] == 35:
        return True
    for start in range(1, a.size, _CHUNK):
        c = a[start - 1:start + _CHUNK]
        if np.any((c[1:] == 35) & (c[:-1] == 10)):
            return True
    return False


def _replace_all(buf: bytes, old: bytes, new: bytes) -> bytes:
    while True:
        out = buf.replace(old, new)
        if len(out) == len(buf):
            return out
        buf = out


def _normalise(buf: bytes) -> bytes:
    """Fields separated by single spaces, lines by single ``\\n``, no blank at either end."""
    if any(b in buf for b in (b"\t", b"\r", b"\x0b", b"\x0c")):
        buf = buf.translate(_TO_SPACE)
    if _blank_pairs(buf):
        buf = _replace_all(buf, b"  ", b" ")
        buf = buf.replace(b" \n", b"\n").replace(b"\n ", b"\n")
        buf = _replace_all(buf, b"\n\n", b"\n").strip(b" \n")
    return buf


def _first_data_fields(buf, sep: bytes = b" ") -> int:
    """Number of fields of the first line of a normalised buffer that is not a comment."""
    pos = 0
    while pos < len(buf):
        end = buf.find(b"\n", pos)
        end = len(buf) if end < 0 else end
        if buf[pos:pos + 1] != b"#":
            return buf[pos:end].count(sep) + 1
        pos = end + 1
    return 0


def _choose(n_first: int, formats: tuple[_Format, ...]) -> _Format:
    """The format of a file whose first data line has ``n_first`` fields: the first of the
    other formats that has that many fields (qrels with three are ``qid docid rel``, with
    five a sampled pool's), else the first format."""
    for fmt in formats[1:]:
        if n_first == fmt.n_min:
            return fmt
    return formats[0]


def _too_wide(n_first: int, formats: tuple[_Format, ...]) -> bool:
    """Does the first data line of a qrels file have more fields than any qrels layout (its
    fields would be misread: the careful reader names the line)?"""
    return (len(formats) > 1 and formats[0].what == "qrels"
            and n_first > max(len(f.fields) for f in formats))


def _finite(table: pa.Table, fmt: _Format) -> bool:
    """Are the required fields present and the numbers finite in every row?"""
    numeric = []
    for i in fmt.keep:
        col = table.column(fmt.fields[i])
        if i < fmt.n_min and col.null_count:
            return False
        if i in fmt.numeric and len(col):
            numeric.append(fmt.fields[i])
    # Polars on the whole table: converting a lone column would load pyarrow.compute (and
    # pandas), which the command line's start-up does without
    if not numeric:
        return True
    checked = cast(pl.DataFrame, pl.from_arrow(table.select(numeric)))
    return all(checked[c].is_finite().all() for c in numeric)


def _arrow(source, fmt: _Format, n: int, sep: str = " ") -> pa.Table | None:
    """pyarrow.csv on a normalised buffer or file without comment lines whose lines all hold
    ``n`` fields; None if it is anything else (Arrow then raises) or a value is bad."""
    if n < fmt.n_min or (fmt.exact and n > len(fmt.fields)):  # the careful reader names it
        return None
    names = [f"f{i}" for i in range(n)]
    present = [i for i in fmt.keep if i < n]
    try:
        table = pacsv.read_csv(
            pa.memory_map(source, "r") if isinstance(source, str) else pa.py_buffer(source),
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=sep, quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False),
            convert_options=pacsv.ConvertOptions(
                column_types={names[i]: fmt.type(i) for i in present},
                include_columns=[names[i] for i in present], null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False))
    except _PARSE_ERRORS:
        return None
    table = table.rename_columns([fmt.fields[i] for i in present])
    for i in fmt.keep:  # optional fields the file does not have (a run without runids)
        if i >= n:
            table = table.append_column(fmt.fields[i], pa.nulls(table.num_rows, fmt.type(i)))
    return table if _finite(table, fmt) else None


def _polars(source, fmt: _Format, sep: str = " ") -> pa.Table | None:
    """Polars' CSV reader on a normalised buffer or file (lines may hold different numbers of
    fields, comment lines are skipped); None if anything is off. A format of exactly its
    fields first has every data line's fields counted (a line too long or too short sends
    the file to the line-by-line reader, which names it)."""
    if fmt.exact and not _lines_have(source, len(fmt.fields), sep):
        return None
    try:
        frame = pl.scan_csv(
            source, has_header=False, separator=sep, quote_char=None, comment_prefix="#",
            schema={name: pl.Float64 if i in fmt.numeric else pl.String
                    for i, name in enumerate(fmt.fields)},
            truncate_ragged_lines=True, extra_columns="ignore", raise_if_empty=False,
            glob=False).select([fmt.fields[i] for i in fmt.keep]).collect()
        table = frame.to_arrow(compat_level=pl.CompatLevel.oldest()).cast(fmt.schema)
    except _PARSE_ERRORS:
        return None
    return table if _finite(table, fmt) else None


def _lines_have(source, n: int, sep: str) -> bool:
    """Does every line of a normalised buffer or file that is not a comment hold exactly
    ``n`` fields (``n - 1`` single separators)?"""
    try:
        if isinstance(source, str):
            with open(source, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                a = np.frombuffer(mm, np.uint8).copy()
        else:
            a = np.frombuffer(source, np.uint8)
    except (OSError, ValueError):
        return False
    if a.size == 0:
        return True
    ends = np.flatnonzero(a == 10)
    if not ends.size or ends[-1] != a.size - 1:
        ends = np.append(ends, a.size)
    starts = np.concatenate(([0], ends[:-1] + 1))
    data = starts < ends  # not an empty line (the last one after a final newline)
    data[data] = a[starts[data]] != ord("#")
    if not data.any():
        return True
    seps = np.add.reduceat((a == ord(sep)).astype(np.int32), np.minimum(starts, a.size - 1))
    return bool((seps[data] == n - 1).all())


def _parse_clean(source, formats: tuple[_Format, ...], comments: bool, n_first: int,
                 sep: str = " ") -> tuple[_Format, pa.Table] | None:
    """A normalised buffer or file (fields separated by single ``sep``): Arrow's reader if it
    can (no comment lines, every line as long as the first), else Polars'; None if both
    fail."""
    if _too_wide(n_first, formats):
        return None
    fmt = _choose(n_first, formats)
    table = None if comments else _arrow(source, fmt, n_first, sep)
    if table is None:
        table = _polars(source, fmt, sep)
    return None if table is None else (fmt, table)


def _fast(buf: bytes, formats: tuple[_Format, ...]):
    """``buf`` normalised and parsed, or None."""
    if not buf.isascii():
        try:
            buf.decode("utf-8")
        except UnicodeDecodeError:
            return None
    buf = _normalise(buf)
    if not buf:
        return _choose(0, formats), formats[0].schema.empty_table()
    comments = _has_comments(buf)
    return _parse_clean(buf, formats, comments, _first_data_fields(buf))


def _fast_file(path: str, formats: tuple[_Format, ...]):
    """A plain ASCII file that needs no normalising (fields separated by single spaces, or
    by single tabs), parsed straight from disk (no copy in Python): (format, table); None for
    any other file; False if the parse failed (the file holds a bad line)."""
    if "://" in path:  # Polars would take it for a URL
        return None
    try:
        with open(path, "rb") as fh:
            head = fh.read(10)
            if not head or _compression(head) or head.startswith(_BOM):
                return None
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                if any(mm.find(c) >= 0 for c in (b"\r", b"\x0b", b"\x0c")):
                    return None
                sep = b"\t" if mm.find(b"\t") >= 0 else b" "
                if sep == b"\t" and mm.find(b" ") >= 0:
                    return None
                if not _isascii(mm) or _blank_pairs(mm, sep):
                    return None
                comments = _has_comments(mm)
                n_first = _first_data_fields(mm, sep)
    except (OSError, ValueError):
        return None
    return _parse_clean(path, formats, comments, n_first, sep.decode()) or False


def _isascii(buf) -> bool:
    for start in range(0, len(buf), _CHUNK):
        if not buf[start:start + _CHUNK].isascii():
            return False
    return True


def _careful(buf: bytes, where: str, formats: tuple[_Format, ...]) -> tuple[_Format, pa.Table]:
    """Line by line (slow): the table, or an InputError naming the first bad line."""
    fmt = formats[0] if len(formats) == 1 else None
    cols: list[list] = []
    for lineno, raw in enumerate(io.BytesIO(buf), 1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{where}, line {lineno}: not UTF-8 text") from None
        parts = raw.split()
        if not parts or parts[0].startswith(b"#"):
            continue
        if fmt is None:  # qrels: the first data line decides between 3 and 4 columns
            if len(parts) < formats[1].n_min or _too_wide(len(parts), formats):
                raise InputError(f"{where}, line {lineno}: a qrels line has {QRELS_LAYOUTS}, "
                                 f"this one has {len(parts)}")
            fmt = _choose(len(parts), formats)
        if not cols:
            cols = [[] for _ in fmt.keep]
        if len(parts) < fmt.n_min:
            raise InputError(f"{where}, line {lineno}: a {fmt.what} line needs {fmt.n_min} "
                             f"fields ({' '.join(fmt.fields[:fmt.n_min])}), found {len(parts)}")
        if fmt.exact and len(parts) > len(fmt.fields):
            if fmt.what != "qrels":
                raise InputError(f"{where}, line {lineno}: a {fmt.what} line has "
                                 f"{len(fmt.fields)} fields ({' '.join(fmt.fields)}), this "
                                 f"one has {len(parts)}")
            raise InputError(f"{where}, line {lineno}: {len(parts)} fields, but the file's "
                             f"first line has {len(fmt.fields)} ({' '.join(fmt.fields)}): a "
                             f"qrels file has one layout, {QRELS_LAYOUTS}")
        for i, label in fmt.numeric.items():
            text = parts[i]
            if not (_NUMBER.fullmatch(text) and math.isfinite(float(text))):
                raise InputError(f"{where}, line {lineno}: {label} {text.decode()!r} is not "
                                 "a finite number")
        for col, i in zip(cols, fmt.keep):
            value = parts[i] if i < len(parts) else None
            col.append(None if value is None else
                       float(value) if i in fmt.numeric else value.decode())
    fmt = fmt or formats[0]
    if not cols:
        return fmt, fmt.schema.empty_table()
    return fmt, pa.table(cols, schema=fmt.schema)


def _parse(src, formats: tuple[_Format, ...]) -> tuple[_Format, pa.Table, str, str]:
    """(format, table of the kept fields, name for messages, stem) of one source."""
    fast = None
    if isinstance(src, (str, os.PathLike)) and not (isinstance(src, str) and src == "-"):
        where = os.fspath(src)
        where = where if isinstance(where, str) else os.fsdecode(where)
        fast = _fast_file(where, formats)
        if fast:
            return (*fast, where, _stem(where))
    buf, where, stem = _source(src)
    if b"\r" in buf and b"\n" not in buf:  # old Mac line ends (CR only): lines, not blanks
        buf = buf.replace(b"\r", b"\n")
    if fast is None:  # (False: these bytes already failed to parse)
        fast = _fast(buf, formats)
    fmt, table = fast if fast else _careful(buf, where, formats)
    return fmt, table, where, stem


def _whole_or_float(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """int64 if every value is a whole number int64 can hold, else the float64 column."""
    values = cast(pl.DataFrame, pl.from_arrow(pa.table({"v": col})))["v"]
    if len(col) == 0 or ((values == values.round()) & (values.abs() < 9.2e18)).all():
        return pa.chunked_array([values.cast(pl.Int64).to_arrow()], pa.int64())
    return col


def _several(raw: pa.Table) -> bool:
    """Does some (qid, docid) of a 4-field qrels file come with two or more second fields?"""
    frame = cast(pl.DataFrame, pl.from_arrow(raw.select(["qid", "iter", "docid"])))
    return bool(frame.n_unique(["qid", "docid", "iter"]) > frame.n_unique(["qid", "docid"]))


def _whole_or_string(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """int64 when every value is a whole number (subtopics then sort as numbers), else the
    strings."""
    values = cast(pl.DataFrame, pl.from_arrow(pa.table({"v": col})))["v"]
    as_int = values.cast(pl.Int64, strict=False)
    if len(values) and as_int.null_count() == 0:
        return pa.chunked_array([as_int.to_arrow()], pa.int64())
    return col
