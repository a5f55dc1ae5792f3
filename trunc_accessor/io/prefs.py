"""Readers for trec_eval's other relevance formats: preferences and judgment groups.

Three text formats, one judgment per line, fields separated by blanks (spaces, tabs, ``\\r``,
``\\v``, ``\\f``); blank lines and lines starting with ``#`` are skipped:

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

The files are parsed by the library's vectorised reader (the one behind `read_qrels`); a bad
line raises `InputError` naming the file and the physical line.
"""
from __future__ import annotations

import os

from trunc_accessor.errors import InputError


def _format(what: str, fields: tuple[str, ...]):
    from trunc_accessor.io.parse import _Format

    n = len(fields)
    return _Format(what, fields, n, {n - 1: fields[-1]}, tuple(range(n)), exact=True)


_PREFS = _format("prefs", ("qid", "jg", "jsg", "docid", "rel_level"))
_QRELS_PREFS = _format("qrels_prefs", ("qid", "jg", "docid", "rel_level"))
_QRELS_JG = _format("qrels_jg", ("qid", "jg", "docid", "rel"))


def _line_of(path, match) -> int:
    """The physical line (from 1) of the first data line whose fields ``match`` accepts;
    read only to name a bad line in an error."""
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            fields = line.split()
            if fields and not fields[0].startswith(b"#") and match(fields):
                return number
    return 0  # pragma: no cover  (the table came from these lines)


def _line_fields(path, number: int) -> list[str]:
    with open(path, "rb") as fh:
        for i, line in enumerate(fh, 1):
            if i == number:
                return [f.decode(errors="replace") for f in line.split()]
    return []  # pragma: no cover


def _table(path, fmt):
    """The file parsed by the library's vectorised reader (a bad line: InputError naming it)."""
    import polars as pl

    from trunc_accessor.io.parse import _parse

    table = pl.from_arrow(_parse(path, (fmt,))[1])
    assert isinstance(table, pl.DataFrame)
    if table.height == 0:
        raise InputError(f"{os.fspath(path)}: no judgment (only comments)")
    return table


def _read_levels(path, fmt):
    import polars as pl

    table = _table(path, fmt)
    jsg = pl.col("jsg") if "jsg" in table.columns else pl.lit("0").alias("jsg")
    return table.select(pl.col("qid", "jg").cast(pl.String), jsg.cast(pl.String),
                        pl.col("docid").cast(pl.String), pl.col("rel_level").cast(pl.Float64))


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
    return _read_levels(path, _PREFS)


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
    return _read_levels(path, _QRELS_PREFS)


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

    table = _table(path, _QRELS_JG)
    rel = table["rel"]
    if not (rel == rel.round()).all():
        line = _line_of(path, lambda f: float(f[3]) != round(float(f[3])))
        bad = _line_fields(path, line)
        raise InputError(f"{os.fspath(path)}, line {line}: rel {bad[3]!r} is not an integer")
    table = table.select(pl.col("qid", "jg", "docid").cast(pl.String),
                         pl.col("rel").cast(pl.Int64))
    again = table.filter(pl.struct("qid", "jg", "docid").is_duplicated())
    if again.height:
        q, g, d = again.row(0)[:3]
        key = [x.encode() for x in (q, g, d)]
        first = _line_of(path, lambda f: f[:3] == key)
        line = _line_of(path, lambda f, seen=[]: f[:3] == key and (seen.append(1) or
                                                                   len(seen) == 2))
        raise InputError(f"{os.fspath(path)}, line {line}: document {d!r} is judged again for "
                         f"query {q!r} in judgment group {g!r} (first on line {first})")
    return table
