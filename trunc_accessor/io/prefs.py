"""Readers for trec_eval's other relevance formats: preferences and judgment groups.

Three text formats, one judgment per line, fields separated by blanks (spaces, tabs, ``\\r``,
``\\v``, ``\\f``); a line starting with ``#`` is a comment:

* ``prefs`` (`read_prefs`): ``qid jg jsg docno rel_level``. A user judgment group (jg) is one
  user's preferences for the query at one time; within a judgment sub-group (jsg) every
  document with a higher ``rel_level`` (a number) is preferred to every document with a
  lower one, and the preferences of a group's sub-groups are combined transitively.
  ``rel_level`` 0 means "not relevant" (C. Buckley, trec_eval 9.0's preference format).
* ``qrels_prefs`` (`read_qrels_prefs`): a qrels file read as preferences, ``qid jg docno
  rel_level``: the qrels' second column (the "iteration", ``0`` in TREC qrels) is the
  judgment group, and each group has one sub-group.
* ``qrels_jg`` (`read_qrels_jg`): ``qid jg docno rel``, qrels with several judgment groups
  (one per assessor) for a query; ``rel`` an integer, negative for "in the pool, not judged".

A bad line raises `InputError` naming the file and the physical line.
"""
from __future__ import annotations

import os
import re

from ..errors import InputError

_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+")


def _data_lines(path):
    """(physical line number, fields) of every line that is not a comment."""
    where = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            buf = fh.read()
    except OSError as e:
        raise InputError(f"{where}: cannot read the file ({e.strerror or e})") from None
    if not buf:
        raise InputError(f"{where}: the file is empty")
    if b"\0" in buf:
        line = buf[:buf.index(b"\0")].count(b"\n") + 1
        raise InputError(f"{where}, line {line}: a NUL byte (not a text file)")
    lines = buf.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, 1):
        if line.startswith(b"#"):
            continue
        yield where, number, line.split()


def _text(where, number, field: bytes, what: str) -> str:
    try:
        return field.decode()
    except UnicodeDecodeError:
        raise InputError(f"{where}, line {number}: the {what} is not UTF-8 text") from None


def _level(where, number, field: bytes, what: str) -> float:
    if not _NUMBER.fullmatch(field):
        raise InputError(f"{where}, line {number}: {what} {field.decode(errors='replace')!r} "
                         "is not a number")
    return float(field)


def _frame(columns: dict, schema: dict):
    import polars as pl

    return pl.DataFrame(columns, schema=schema)


def _read_levels(path, n_fields: int, layout: str):
    import polars as pl

    qid, jg, jsg, doc, level = [], [], [], [], []
    for where, number, f in _data_lines(path):
        if len(f) != n_fields:
            raise InputError(f"{where}, line {number}: a {layout} line has {n_fields} fields "
                             f"({layout}), this one has {len(f)}")
        qid.append(_text(where, number, f[0], "qid"))
        jg.append(_text(where, number, f[1], "judgment group"))
        if n_fields == 5:
            jsg.append(_text(where, number, f[2], "judgment sub-group"))
        doc.append(_text(where, number, f[-2], "docno"))
        level.append(_level(where, number, f[-1], "rel_level"))
    if not qid:
        raise InputError(f"{os.fspath(path)}: no judgment (only comments)")
    return _frame({"qid": qid, "jg": jg, "jsg": jsg if n_fields == 5 else ["0"] * len(qid),
                   "docid": doc, "rel_level": level},
                  {"qid": pl.String, "jg": pl.String, "jsg": pl.String, "docid": pl.String,
                   "rel_level": pl.Float64})


def read_prefs(path):
    """Read a preferences file (trec_eval's ``-R prefs``): ``qid jg jsg docno rel_level``.

    Parameters
    ----------
    path : str or path-like
        The file. Lines starting with ``#`` are comments.

    Returns
    -------
    polars.DataFrame
        Columns ``qid``, ``jg``, ``jsg``, ``docid`` (strings) and ``rel_level`` (float), in
        file order.

    Raises
    ------
    InputError
        A line without exactly five fields, a ``rel_level`` that is not a number, a file
        that cannot be read or holds no judgment; the message names the file and the line.
    """
    return _read_levels(path, 5, "qid jg jsg docno rel_level")


def read_qrels_prefs(path):
    """Read a qrels file as preferences (trec_eval's ``-R qrels_prefs``).

    Each line is ``qid jg docno rel_level``: the second column (the qrels' "iteration") is
    the judgment group, which has one sub-group, so that every document of the group with a
    higher ``rel_level`` is preferred to every one with a lower level.

    Parameters
    ----------
    path : str or path-like
        The file. Lines starting with ``#`` are comments.

    Returns
    -------
    polars.DataFrame
        Columns ``qid``, ``jg``, ``jsg`` (always ``"0"``), ``docid`` and ``rel_level``.

    Raises
    ------
    InputError
        A line without exactly four fields or a ``rel_level`` that is not a number, naming
        the file and the line.
    """
    return _read_levels(path, 4, "qid jg docno rel_level")


def read_qrels_jg(path):
    """Read qrels with judgment groups (trec_eval's ``-R qrels_jg``): ``qid jg docno rel``.

    Each judgment group (for instance one assessor) judges the query on its own; the
    measures ``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg`` average a query's value
    over its groups.

    Parameters
    ----------
    path : str or path-like
        The file. Lines starting with ``#`` are comments.

    Returns
    -------
    polars.DataFrame
        Columns ``qid``, ``jg``, ``docid`` (strings) and ``rel`` (integer; negative: in the
        pool, not judged).

    Raises
    ------
    InputError
        A line without exactly four fields, a grade that is not an integer, or a document
        judged twice in the same group of a query, naming the file and the line.
    """
    import polars as pl

    qid, jg, doc, rel, seen = [], [], [], [], {}
    for where, number, f in _data_lines(path):
        if len(f) != 4:
            raise InputError(f"{where}, line {number}: a qrels_jg line has 4 fields (qid jg "
                             f"docno rel), this one has {len(f)}")
        if not _INTEGER.fullmatch(f[3]):
            raise InputError(f"{where}, line {number}: rel {f[3].decode(errors='replace')!r} "
                             "is not an integer")
        key = tuple(_text(where, number, x, what)
                    for x, what in zip(f[:3], ("qid", "judgment group", "docno")))
        if key in seen:
            raise InputError(f"{where}, line {number}: document {key[2]!r} is judged again for "
                             f"query {key[0]!r} in judgment group {key[1]!r} (first on line "
                             f"{seen[key]})")
        seen[key] = number
        qid.append(key[0])
        jg.append(key[1])
        doc.append(key[2])
        rel.append(int(f[3]))
    if not qid:
        raise InputError(f"{os.fspath(path)}: no judgment (only comments)")
    return _frame({"qid": qid, "jg": jg, "docid": doc, "rel": rel},
                  {"qid": pl.String, "jg": pl.String, "docid": pl.String, "rel": pl.Int64})
