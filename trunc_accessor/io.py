"""Reading TREC-format runs and qrels into pandas or Polars frames.

Run lines: ``qid Q0 docid rank score [runid]`` (whitespace separated; columns after the
score other than the first are ignored). Qrels lines: ``qid iter docid rel``. qid and docid
are read as strings (TREC ids such as ``"301"`` or ``"2024-127266"`` are names, not numbers).
"""
from __future__ import annotations

import os
from importlib import resources

import numpy as np
import polars as pl

from .frames import InputError


def _read_columns(path, n_min: int, what: str, names: list[str]) -> list[list[str]]:
    cols: list[list[str]] = [[] for _ in names]
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) < n_min:
                raise InputError(f"{os.fspath(path)}, line {lineno}: a {what} line needs "
                                 f"{n_min} fields ({' '.join(names)}), found {len(parts)}")
            for c, i in zip(cols, range(len(names))):
                c.append(parts[i])
    return cols


def _as(library: str, frame: pl.DataFrame):
    if library == "pandas":
        return frame.to_pandas()
    if library == "polars":
        return frame
    raise ValueError(f"library= must be 'pandas' or 'polars', not {library!r}")


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
    qid, _q0, docid, rank, score, system = _read_columns(
        path, 5, "run", ["qid", "Q0", "docid", "rank", "score", "runid"])
    try:
        scores = np.array(score, dtype=np.float64)
        ranks = np.array(rank, dtype=np.float64).astype(np.int64)
    except ValueError as e:
        raise InputError(f"{os.fspath(path)}: rank and score must be numbers ({e})") from None
    frame = pl.DataFrame({"qid": qid, "docid": docid, "score": scores,
                          "system": system if len(system) == len(qid) else None})
    if keep_rank:
        frame = frame.insert_column(3, pl.Series("rank", ranks))
    return _as(library, frame)


def read_qrels(path, library: str = "pandas"):
    """A TREC qrels file as a frame with columns qid, docid, rel (an integer grade)."""
    qid, _iter, docid, rel = _read_columns(path, 4, "qrels", ["qid", "iter", "docid", "rel"])
    try:
        grades = np.array(rel, dtype=np.float64)
    except ValueError as e:
        raise InputError(f"{os.fspath(path)}: grades must be numbers ({e})") from None
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
