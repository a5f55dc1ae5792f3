"""Reading and writing TREC-format runs and qrels as pandas or Polars frames.

Run lines: ``qid Q0 docid rank score [runid]``; fields after the runid are ignored. Qrels
lines: ``qid iter docid rel`` or, when a file's first data line has three fields,
``qid docid rel``. qid and docid are read as strings (TREC ids such as ``"301"`` or
``"2024-127266"`` are names, not numbers).

What the readers accept, as trec_eval does:

* fields separated by any run of spaces, tabs, ``\\r``, ``\\v`` or ``\\f`` (so CRLF line ends,
  leading and trailing blanks are fine); blank lines, and lines whose first field starts
  with ``#``, are skipped;
* a path (str or :class:`pathlib.Path`), ``"-"`` for standard input, or an open file object
  (binary or text); gzip, bzip2 and xz files are recognised by their first bytes, whatever
  their name.

A malformed line raises :class:`~trunc_accessor.frames.InputError` (a ``ValueError``)
naming the file and the physical line: too few fields, a rank, score or grade that is not a
finite decimal number, or bytes that are not UTF-8.

Speed: a file is parsed by pyarrow.csv (or, if it has comment lines or lines of different
lengths, by Polars' CSV reader): straight from disk for a plain ASCII file whose fields are
separated by single spaces or single tabs, else after whitespace is normalised by a few
whole-buffer byte operations. Only a file that fails that parse is read again line by
line, to find the line at fault (``bench/read_files.py`` times a 10M-line run).
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import math
import mmap
import os
import re
import sys
import zlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.csv as pacsv

from .frames import (
    DOCID_NAMES,
    QID_NAMES,
    InputError,
    InputTypeError,
    check_frame,
    normalise_by,
    to_polars,
)

# ----------------------------------------------------------------------------- bytes in
_BOM = b"\xef\xbb\xbf"
_TO_SPACE = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_CHUNK = 1 << 22
# anything the fast parse raises sends the file to the careful pass, which is always right
_PARSE_ERRORS: tuple[type[BaseException], ...] = (Exception, pl.exceptions.PanicException)
_COMPRESSED = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}


def _compression(head: bytes) -> str | None:
    """"gzip", "xz" or "bzip2" if ``head`` starts with that format's header, else None."""
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if (head[:3] == b"BZh" and head[3:4] in (b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9")
            and head[4:10] in (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")):
        return "bzip2"
    return None


def _decompress(data: bytes, where: str) -> bytes:
    """``data`` unpacked if its first bytes are a gzip, bzip2 or xz header."""
    kind = _compression(data[:10])
    if kind is None:
        return data
    unpack = {"gzip": gzip.decompress, "xz": lzma.decompress, "bzip2": bz2.decompress}[kind]
    try:
        return unpack(data)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as e:
        raise InputError(f"{where}: a damaged {kind} file ({e})") from None


def _source(src) -> tuple[bytes, str, str]:
    """(decompressed bytes, name for messages, stem for a system label) of a path, ``"-"``
    (standard input) or an open file object."""
    if isinstance(src, str) and src == "-":
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        data, where, stem = stream.read(), "<stdin>", "stdin"
    elif isinstance(src, (str, os.PathLike)):
        where = os.fspath(src)
        if not isinstance(where, str):
            where = os.fsdecode(where)
        data = Path(where).read_bytes()
        stem = _stem(where)
    elif hasattr(src, "read"):
        name = getattr(src, "name", None)
        where = name if isinstance(name, str) else f"<{type(src).__name__}>"
        stem = _stem(name) if isinstance(name, str) else type(src).__name__
        try:
            data = src.read()
        except UnicodeDecodeError as e:
            raise InputError(f"{where}: not UTF-8 text ({e}); open the file in binary mode "
                             "to learn which line") from None
    else:
        raise InputTypeError("a TREC file is given as a path (str or pathlib.Path), '-' for "
                             f"standard input, or an open file object, not {type(src).__name__}")
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    elif not isinstance(data, bytes):
        data = bytes(data)
    data = _decompress(data, where)
    return (data[3:] if data.startswith(_BOM) else data), where, stem


def _stem(name: str) -> str:
    """File name without a compression suffix and then without its last extension."""
    p = Path(name)
    if p.suffix.lower() in _COMPRESSED:
        p = p.with_suffix("")
    return p.stem or p.name or name


# ----------------------------------------------------------------------------- parsing
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
_QRELS4 = _Format("qrels", ("qid", "iter", "docid", "rel"), 4, {3: "grade"}, (0, 2, 3))
_QRELS3 = _Format("qrels", ("qid", "docid", "rel"), 3, {2: "grade"}, (0, 1, 2), exact=True)


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
    """The format of a file whose first data line has ``n_first`` fields: qrels with three
    are ``qid docid rel``."""
    if len(formats) > 1 and n_first == formats[1].n_min:
        return formats[1]
    return formats[0]


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
    checked = pl.from_arrow(table.select(numeric)) if numeric else None
    return checked is None or all(checked[c].is_finite().all() for c in numeric)


def _arrow(source, fmt: _Format, n: int, sep: str = " ") -> pa.Table | None:
    """pyarrow.csv on a normalised buffer or file without comment lines whose lines all hold
    ``n`` fields; None if it is anything else (Arrow then raises) or a value is bad."""
    if n < fmt.n_min:
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
    fields, comment lines are skipped); None if anything is off."""
    if fmt.exact:  # ragged lines would be cut silently: the line-by-line reader checks them
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


def _parse_clean(source, formats: tuple[_Format, ...], comments: bool, n_first: int,
                 sep: str = " ") -> tuple[_Format, pa.Table] | None:
    """A normalised buffer or file (fields separated by single ``sep``): Arrow's reader if it
    can (no comment lines, every line as long as the first), else Polars'; None if both
    fail."""
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
            if len(parts) < formats[1].n_min:
                raise InputError(
                    f"{where}, line {lineno}: a qrels line needs 4 fields "
                    f"({' '.join(formats[0].fields)}) or 3 ({' '.join(formats[1].fields)}), "
                    f"found {len(parts)}")
            fmt = _choose(len(parts), formats)
        if not cols:
            cols = [[] for _ in fmt.keep]
        if len(parts) < fmt.n_min:
            raise InputError(f"{where}, line {lineno}: a {fmt.what} line needs {fmt.n_min} "
                             f"fields ({' '.join(fmt.fields[:fmt.n_min])}), found {len(parts)}")
        if fmt.exact and len(parts) > len(fmt.fields):
            raise InputError(f"{where}, line {lineno}: {len(parts)} fields, but the file's "
                             f"first line has {len(fmt.fields)} ({' '.join(fmt.fields)}): a "
                             f"qrels file has one layout, 4 fields (qid iter docid rel) or 3")
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
    values = pl.from_arrow(pa.table({"v": col}))["v"]
    if len(col) == 0 or ((values == values.round()) & (values.abs() < 9.2e18)).all():
        return pa.chunked_array([values.cast(pl.Int64).to_arrow()], pa.int64())
    return col


def _check_library(library) -> str:
    if not isinstance(library, str) or library not in ("pandas", "polars"):
        raise InputError(f"library= must be 'pandas' or 'polars', not {library!r}")
    return library


def _as(library: str, table: pa.Table):
    if _check_library(library) == "pandas":
        return table.to_pandas()
    return pl.from_arrow(table)


# ----------------------------------------------------------------------------- readers
def read_run(path, library: str = "pandas", keep_rank: bool = False):
    """A TREC run file as a frame with columns qid, docid, score, system (the runid field;
    missing if a line has none), in file order.

    ``path``: a path, ``"-"`` (stdin), an open file object, or a list/tuple of these. Several
    files give one frame whose ``system`` is each file's runid, or the file name stem (name
    without ``.gz``/``.bz2``/``.xz`` and extension) for lines without one. If two files
    share a runid, both are labelled by their stems instead (by their paths if the stems
    clash too), so their rankings stay apart.

    The rank field is dropped unless ``keep_rank=True``: trec_eval ignores it and orders by
    score, and runs in the wild often carry rank fields that disagree with their scores. With
    ``keep_rank=True`` it becomes the ``rank`` column, which then defines the order (SPEC §2).

    >>> import trunc_accessor
    >>> run = trunc_accessor.read_run(trunc_accessor.example_path("results.test"))
    >>> run.columns.tolist()
    ['qid', 'docid', 'score', 'system']
    >>> len(run), run["qid"].unique().tolist(), run["system"].iloc[0]
    (1500, ['301', '302', '303'], 'STANDARD')
    """
    _check_library(library)
    raw = _read_runs(path) if isinstance(path, (list, tuple)) else _parse(path, (_RUN,))[1]
    table = pa.table([raw["qid"], raw["docid"], raw["score"], raw["runid"]],
                     names=["qid", "docid", "score", "system"])
    if keep_rank:
        table = table.add_column(3, "rank", _whole_or_float(raw["rank"]))
    return _as(library, table)


def _read_runs(paths) -> pa.Table:
    if not paths:
        raise InputError("read_run: the list of run files is empty")
    parsed = [_parse(p, (_RUN,)) for p in paths]
    tables = [table for _fmt, table, _where, _stem in parsed]
    # the labels to try for each file, most readable first (None: its runids)
    candidates = [[None, stem, where, f"{where} ({i + 1})"]
                  for i, (_fmt, _table, where, stem) in enumerate(parsed)]
    level = [0] * len(tables)

    def labels(i: int) -> set:
        if level[i] == 0:
            runid = tables[i]["runid"]
            names = set(pl.from_arrow(pa.table({"r": runid}))["r"].drop_nulls().unique()
                        .to_list())
            return names | ({candidates[i][1]} if runid.null_count else set())
        return {candidates[i][level[i]]}

    while True:
        sets = [labels(i) for i in range(len(tables))]
        clash = [i for i in range(len(tables))
                 if any(sets[i] & sets[j] for j in range(len(tables)) if j != i)]
        if not clash or all(level[i] == 3 for i in clash):
            break
        for i in clash:
            level[i] = min(level[i] + 1, 3)
    out = []
    for i, table in enumerate(tables):
        fill = candidates[i][1] if level[i] == 0 else candidates[i][level[i]]
        runid = table["runid"] if level[i] == 0 else pa.nulls(table.num_rows, pa.large_string())
        system = pl.from_arrow(pa.table({"r": runid}))["r"].cast(pl.String).fill_null(fill)
        system = pa.chunked_array([system.to_arrow(compat_level=pl.CompatLevel.oldest())],
                                  pa.large_string())
        out.append(table.set_column(table.schema.get_field_index("runid"), "runid", system))
    return pa.concat_tables(out)


def read_qrels(path, library: str = "pandas"):
    """A TREC qrels file as a frame with columns qid, docid, rel (int64 when every grade is
    a whole number, else float64). Four fields per line (``qid iter docid rel``) or, when
    the first data line has three, ``qid docid rel``; ``path`` as for :func:`read_run`.

    >>> import trunc_accessor
    >>> qrels = trunc_accessor.read_qrels(trunc_accessor.example_path("qrels.test"))
    >>> qrels.columns.tolist(), str(qrels["rel"].dtype)
    (['qid', 'docid', 'rel'], 'int64')
    """
    _check_library(library)
    _fmt, raw, _where, _stem = _parse(path, (_QRELS4, _QRELS3))
    table = pa.table([raw["qid"], raw["docid"], _whole_or_float(raw["rel"])],
                     names=["qid", "docid", "rel"])
    return _as(library, table)


# ----------------------------------------------------------------------------- writer
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


def write_run(frame, path, tag: str | None = None, by=None, ties: str = "trec_eval"):
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
    ``by``, a ``system`` column (as :func:`read_run` gives) is the tag, so several runs read
    together are written back under their own names; without one the tag is
    ``trunc_accessor``. Scores are written with the
    fewest digits that read back as the same float64, so :func:`read_run` returns exactly the
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
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    elif not isinstance(frame, pl.DataFrame):
        frame = to_polars(frame, [str(c) for c in frame.columns], "run")
    names = list(frame.columns)
    qid = _pick_column(names, QID_NAMES, "qid")
    docid = _pick_column(names, DOCID_NAMES, "docid")
    if "score" not in names:
        raise InputError(f"write_run: the run has no 'score' column; found {names}")
    for k in keys:
        if k not in names:
            raise InputError(f"write_run: by= names column {k!r}, which the run does not have; "
                             f"found {names}")
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
    _check_run(run, keys)

    run = run.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("_i"))
    run = run.with_columns(pl.col("_i").min().over("tag").alias("_s"),
                           pl.col("_i").min().over("qid").alias("_q"))
    order, desc = ["_s", "_q"], [False, False]
    order, desc = (order + ["_rank"], desc + [False]) if "_rank" in run.columns else \
        (order + ["score"], desc + [True])
    if ties == "trec_eval":
        order, desc = order + ["docid"], desc + [True]
    run = run.sort(order, descending=desc, maintain_order=True)
    out = run.select("qid", pl.lit("Q0").alias("Q0"), "docid",
                     (pl.int_range(pl.len(), dtype=pl.Int64).over("_s", "_q") + 1).alias("rank"),
                     "score", "tag")
    _write(out, path)
    return path


def _write(out: pl.DataFrame, path) -> None:
    options = {"separator": " ", "include_header": False, "quote_style": "never",
               "line_terminator": "\n"}
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
        with (gzip.open(name, "wb", compresslevel=6) if kind == "gzip" else
              bz2.open(name, "wb") if kind == "bzip2" else
              lzma.open(name, "wb") if kind == "xz" else open(name, "wb")) as fh:
            out.write_csv(fh, **options)
    elif hasattr(path, "write"):
        if isinstance(path, io.TextIOBase):
            path.write(out.write_csv(**options))
        else:
            out.write_csv(path, **options)
    else:
        raise InputTypeError("write_run: path must be a path (str or pathlib.Path), '-' for "
                             f"standard output, or an open file object, not {type(path).__name__}")


# ----------------------------------------------------------------------------- examples
def example_path(name: str) -> str:
    """Path of a file shipped in ``trunc_accessor/data`` (see its ORIGIN file)."""
    return str(resources.files("trunc_accessor").joinpath("data", name))


EXAMPLES = ("trec_eval", "cranfield", "robust03")


def load_example(name: str = "trec_eval", library: str | None = None):
    """(run, qrels) of a test collection shipped with the package (offline).

    ``name``:

    * ``"trec_eval"`` (default): trec_eval's own test collection, a real TREC run for topics
      301–303 (500 documents each, system ``STANDARD``) and its binary qrels.
    * ``"cranfield"``: the Cranfield collection (1,400 abstracts, 225 queries, all judged),
      seven real retrieval systems (BM25 with and without stemming, BM25L, BM25+, title-only
      BM25, TF-IDF cosine, Dirichlet query likelihood; top 100 each, ties kept) in one frame
      told apart by its ``system`` column, and graded qrels where higher is more relevant
      (4 = complete answer ... 1 = minimum interest, 0 = of no interest; ir_datasets'
      reading of the raw codes). ``data/cranfield/ORIGIN`` says how they were made
      (``examples/make_cranfield_runs.py``).

    * ``"robust03"``: a real TREC 2003 Robust track run (``uic0301``, 100 topics, up to
      1,000 documents each, no ties) and the track's binary qrels (``data/robust03/ORIGIN``).

    ``library``: ``"pandas"`` (default) or ``"polars"``. For backward compatibility the first
    argument may also be the library (``load_example("polars")`` is
    ``load_example("trec_eval", library="polars")``).

    >>> import trunc_accessor
    >>> runs, qrels = trunc_accessor.load_example("cranfield")
    >>> runs["system"].nunique(), runs["qid"].nunique(), str(qrels["rel"].dtype)
    (7, 225, 'int64')
    """
    if name in ("pandas", "polars"):
        if library is not None and library != name:
            raise InputError(f"load_example({name!r}, library={library!r}): the first argument "
                             "names a library; pass the collection as name=")
        name, library = "trec_eval", name
    library = _check_library("pandas" if library is None else library)
    if name == "trec_eval":
        return (read_run(example_path("results.test"), library),
                read_qrels(example_path("qrels.test"), library))
    if name == "cranfield":
        folder = resources.files("trunc_accessor").joinpath("data", "cranfield")
        runs = sorted(str(p) for p in folder.iterdir() if p.name.endswith(".run.gz"))
        return read_run(runs, library), read_qrels(str(folder.joinpath("qrels.txt")), library)
    if name == "robust03":
        folder = resources.files("trunc_accessor").joinpath("data", "robust03")
        return (read_run(str(folder.joinpath("uic0301.run.gz")), library),
                read_qrels(str(folder.joinpath("qrels.txt.gz")), library))
    raise InputError(f"load_example: unknown collection {name!r}; the shipped ones are "
                     f"{list(EXAMPLES)} (or pass library='pandas'/'polars')")
