"""Reading TREC-format runs and qrels into pandas or Polars frames.

Run lines: ``qid Q0 docid rank score [runid]`` (whitespace separated; columns after the
score other than the first are ignored). Qrels lines: ``qid iter docid rel``. qid and docid
are read as strings (TREC ids such as ``"301"`` or ``"2024-127266"`` are names, not numbers).
"""
from __future__ import annotations

import math
import os
from importlib import resources

import numpy as np
import polars as pl

from .frames import InputError


def _read_columns(path, n_min: int, what: str, names: list[str],
                  numeric: dict[int, str]) -> tuple[list[list[str]], list[int]]:
    """The first ``len(names)`` fields of every data line (blank lines and lines starting
    with # are skipped) and each kept line's number. ``numeric``: field index → name of a
    field that must parse as a finite number (checked here, so the error names the line)."""
    cols: list[list[str]] = [[] for _ in names]
    linenos: list[int] = []
    where = os.fspath(path)
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(f"{where}, line {lineno}: not UTF-8 text") from None
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) < n_min:
                raise InputError(f"{where}, line {lineno}: a {what} line needs "
                                 f"{n_min} fields ({' '.join(names)}), found {len(parts)}")
            for i, field_name in numeric.items():
                try:
                    ok = math.isfinite(float(parts[i]))
                except ValueError:
                    ok = False
                if not ok:
                    raise InputError(f"{where}, line {lineno}: {field_name} {parts[i]!r} is not "
                                     "a finite number")
            for c, i in zip(cols, range(len(names))):
                c.append(parts[i] if i < len(parts) else None)
            linenos.append(lineno)
    return cols, linenos


def _check_library(library) -> str:
    if not isinstance(library, str) or library not in ("pandas", "polars"):
        raise InputError(f"library= must be 'pandas' or 'polars', not {library!r}")
    return library


def _as(library: str, frame: pl.DataFrame):
    return frame.to_pandas() if _check_library(library) == "pandas" else frame


def read_run(path, library: str = "pandas", keep_rank: bool = False):
    """A TREC run file as a frame with columns qid, docid, score, system.

    The file's rank field is dropped unless ``keep_rank=True``: trec_eval ignores it and
    orders by score, and runs in the wild often carry rank fields that disagree with their
    scores. With ``keep_rank=True`` it becomes the ``rank`` column, which then defines the
    order (SPEC §2).

    >>> import trunc_accessor
    >>> run = trunc_accessor.read_run(trunc_accessor.example_path("results.test"))
    >>> run.columns.tolist()
    ['qid', 'docid', 'score', 'system']
    """
    _check_library(library)
    (qid, _q0, docid, rank, score, system), _ = _read_columns(
        path, 5, "run", ["qid", "Q0", "docid", "rank", "score", "runid"],
        {3: "rank", 4: "score"})
    scores = np.array(score, dtype=np.float64)
    frame = pl.DataFrame({"qid": qid, "docid": docid, "score": scores,
                          "system": pl.Series(system, dtype=pl.String)})
    if keep_rank:
        ranks = np.array(rank, dtype=np.float64)
        whole = np.all(ranks == np.round(ranks))  # integer ranks stay integers, others floats
        frame = frame.insert_column(3, pl.Series("rank", ranks.astype(np.int64) if whole
                                                 else ranks))
    return _as(library, frame)


def read_qrels(path, library: str = "pandas"):
    """A TREC qrels file as a frame with columns qid, docid, rel (an integer grade)."""
    _check_library(library)
    (qid, _iter, docid, rel), _ = _read_columns(path, 4, "qrels", ["qid", "iter", "docid", "rel"],
                                                {3: "grade"})
    grades = np.array(rel, dtype=np.float64)
    col = grades.astype(np.int64) if np.all(grades == np.round(grades)) else grades
    return _as(library, pl.DataFrame({"qid": qid, "docid": docid, "rel": col}))


def example_path(name: str) -> str:
    """Path of a file shipped in ``trunc_accessor/data`` (see its ORIGIN file)."""
    return str(resources.files("trunc_accessor").joinpath("data", name))


def load_example(library: str = "pandas"):
    """(run, qrels) of trec_eval's own test collection, shipped with the package: a real
    TREC run for topics 301–303 (500 documents each) and its binary qrels."""
    return (read_run(example_path("results.test"), library),
            read_qrels(example_path("qrels.test"), library))
