"""Qrels of the test collections of ir_datasets (MacAvaney et al., "Simplified Data
Wrangling with ir_datasets", SIGIR 2021), named ``"irds:<dataset id>"``.

``read_qrels`` and the command line's QRELS argument accept ``"irds:<id>"`` (a file of
that name is read as a file first, as ir_measures does); ir_datasets is imported only then
(the ``datasets`` extra). A dataset object (anything with ``qrels_iter()``, e.g.
``ir_datasets.load(...)``) may be passed instead of an id. ir_datasets downloads a
collection's files the first time they are used, into ``~/.ir_datasets`` (or
``$IR_DATASETS_HOME``); afterwards it reads them from there, offline.

The dataset's official measures (its documentation's ``official_measures``, in
ir_measures' syntax, e.g. ``["nDCG@10", "RR(rel=2)"]``) are what ``metrics="official"``
means for qrels read this way: ``official_measures``.
"""
from __future__ import annotations

import os
import sys
import weakref
from typing import Any

import polars as pl
import pyarrow as pa

from trunc_accessor.errors import InputError

PREFIX = "irds:"
INSTALL_HINT = 'pip install "trunc_accessor[datasets]"'
_OFFICIAL: dict[int, tuple[weakref.ref, list[str], str]] = {}  # Polars frames: id → (ref, …)


def _is_pandas(frame) -> bool:
    """A pandas DataFrame, without importing pandas (a frame cannot be one before it is)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(frame, pd.DataFrame)


def is_irds(path) -> bool:
    return isinstance(path, str) and path.startswith(PREFIX)


def is_dataset(obj) -> bool:
    """An ir_datasets dataset object, or a stand-in with ``qrels_iter()``."""
    return callable(getattr(obj, "qrels_iter", None))


def load(dataset_id: str):
    """The ir_datasets dataset of an id (``"irds:"`` prefix optional)."""
    name = dataset_id.removeprefix(PREFIX)
    try:
        import ir_datasets
    except ImportError:
        raise ImportError(f"reading qrels {dataset_id!r} needs ir_datasets: "
                          f"{INSTALL_HINT}") from None
    try:
        return ir_datasets.load(name)
    except KeyError:
        raise InputError(f"{dataset_id!r}: ir_datasets has no dataset {name!r} (ids as on "
                         "https://ir-datasets.com, e.g. 'irds:msmarco-passage/dev/small')"
                         ) from None


def _fields(ds) -> tuple[str, ...]:
    cls = getattr(ds, "qrels_cls", None)
    fields = getattr(cls(), "_fields", None) if callable(cls) else None
    return tuple(fields) if fields else ()


def qrels_table(ds, label: str, subtopics: bool | None = None) -> pa.Table:
    """The dataset's qrels as an Arrow table qid, docid, rel (rel int64 when whole), with a
    ``subtopic`` column for diversity qrels: ir_datasets' ``subtopic_id`` field (TREC Web
    track's ``TrecSubQrel``), or its ``iteration`` field where a document comes with several
    values of it, as ``trunc_accessor.read_qrels`` reads a file's second field
    (``subtopics=True``/``False`` forces either way)."""
    from trunc_accessor.io.parse import _several, _whole_or_float, _whole_or_string

    has = getattr(ds, "has_qrels", None)
    try:
        has_none = callable(has) and not has()
    except Exception as e:  # noqa: BLE001 - as qrels_iter below
        raise _unavailable(label, e) from e
    if has_none:
        raise InputError(f"{label} has no qrels (ir_datasets: has_qrels() is False)")
    fields = _fields(ds)
    sub_field = "subtopic_id" if "subtopic_id" in fields else (
        "iteration" if "iteration" in fields else None)
    extra = [f for f in fields if f not in ("query_id", "doc_id", "relevance", "iteration",
                                            "subtopic_id")]
    if extra or (sub_field == "subtopic_id" and subtopics is False):
        raise InputError(
            f"{label}: its qrels have the field(s) {extra or ['subtopic_id']} besides "
            "query_id, doc_id and relevance, which read_qrels does not keep (judgments of one "
            "document for several subtopics would be conflated)")
    qids, docids, rels, subs = [], [], [], []
    try:
        for j in ds.qrels_iter():
            qids.append(j.query_id)
            docids.append(j.doc_id)
            rels.append(j.relevance)
            if sub_field:
                subs.append(str(getattr(j, sub_field)))
    except Exception as e:  # noqa: BLE001 - downloads fail in many ways (requests, OS, …)
        raise _unavailable(label, e) from e
    rel = pa.chunked_array([pa.array(rels, type=pa.float64())])
    columns = [pa.array(qids, type=pa.large_string()), pa.array(docids, type=pa.large_string()),
               _whole_or_float(rel)]
    names = ["qid", "docid", "rel"]
    if sub_field:
        iters = pa.chunked_array([pa.array(subs, type=pa.large_string())])
        raw = pa.table([columns[0], iters, columns[1]], names=["qid", "iter", "docid"])
        if subtopics or (subtopics is None and (sub_field == "subtopic_id" or _several(raw))):
            columns.insert(1, _whole_or_string(iters))
            names.insert(1, "subtopic")
    return pa.table(columns, names=names)


def _unavailable(label: str, error: Exception) -> InputError:
    """The error for qrels ir_datasets could not fetch or read (not cached, and the download
    failed: no network, a mirror gone, a file it cannot write or a damaged copy)."""
    home = os.environ.get("IR_DATASETS_HOME") or "~/.ir_datasets"
    what = f"{type(error).__name__}: {error}".replace("\n", " ")
    if len(what) > 300:
        what = what[:300] + "…"
    return InputError(
        f"{label}: ir_datasets could not fetch or read its qrels ({what}). ir_datasets "
        "downloads a dataset's files the first time they are used and reads them offline "
        f"afterwards from {home} (set by the IR_DATASETS_HOME environment variable): run "
        "this once with network access, or copy the dataset's files there (some datasets "
        "need a licence and files you place yourself, as ir-datasets.com says for each)")


def official(ds) -> list[str]:
    """The dataset's official measures (ir_measures syntax), [] when it names none."""
    doc = getattr(ds, "documentation", None)
    info = doc() if callable(doc) else None
    measures = (info or {}).get("official_measures") or []
    return [str(m) for m in measures]


def remember(frame, measures: list[str], source: str):
    """Attach the official measures to a qrels frame: pandas ``attrs`` (kept by frames
    derived from it), Polars: this very frame object."""
    if _is_pandas(frame):
        frame.attrs["official_measures"] = list(measures)
        frame.attrs["source"] = source
    elif isinstance(frame, pl.DataFrame):
        key = id(frame)

        def forget(_ref, key=key) -> None:
            _OFFICIAL.pop(key, None)

        _OFFICIAL[key] = (weakref.ref(frame, forget), list(measures), source)
    return frame


def official_of(qrels) -> list[str] | None:
    """The official measures attached to qrels read from ir_datasets (None if none)."""
    if _is_pandas(qrels):
        found = qrels.attrs.get("official_measures")
        return list(found) if found else None
    entry = _OFFICIAL.get(id(qrels))
    if entry is not None and entry[0]() is qrels and entry[1]:
        return list(entry[1])
    return None


def official_measures(dataset: Any) -> list[str]:
    """The official measures of an ir_datasets dataset (an ``"irds:<id>"`` string or a
    dataset object), in ir_measures' syntax, as its documentation names them ([] when it
    names none).

    >>> from trunc_accessor.io.irds import official_measures
    >>> class Stand_in:  # any object with documentation() and qrels_iter()
    ...     def documentation(self): return {"official_measures": ["RR@10"]}
    ...     def qrels_iter(self): return iter(())
    >>> official_measures(Stand_in())
    ['RR@10']
    """
    ds = load(dataset) if isinstance(dataset, str) else dataset
    return official(ds)
