"""Reading TREC run and qrels files as pandas or Polars frames: ``read_run`` (one
file or several, told apart by their run tags) and ``read_qrels``; the parsing itself is
``trunc_accessor.io.parse``'s."""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import cast

import polars as pl
import pyarrow as pa

from trunc_accessor._typing import Result, Source
from trunc_accessor.errors import InputError
from trunc_accessor.io.parse import (
    _QRELS3,
    _QRELS4,
    _QRELS5,
    _RUN,
    _parse,
    _several,
    _whole_or_float,
    _whole_or_string,
)


def _check_library(library) -> str:
    if not isinstance(library, str) or library not in ("pandas", "polars"):
        raise InputError(f"library= must be 'pandas' or 'polars', not {library!r}")
    return library


def _as(library: str, table: pa.Table):
    if _check_library(library) == "pandas":
        return table.to_pandas()
    return pl.from_arrow(table)


def read_run(path: Source | Sequence[Source], library: str = "pandas",
             keep_rank: bool = False) -> Result:
    """A TREC run file as a frame with columns qid, docid, score, system (the runid field;
    missing if a line has none), in file order.

    ``path``: a path, ``"-"`` (stdin), an open file object, or a list/tuple of these. Several
    files give one frame whose ``system`` is each file's runid, or the file name stem (name
    without ``.gz``/``.bz2``/``.xz`` and extension) for lines without one. If two files
    share a runid, both are labelled by their stems instead (by their paths if the stems
    clash too), so their rankings stay apart.

    The rank field is dropped unless ``keep_rank=True``: trec_eval ignores it and orders by
    score, and runs in the wild often carry rank fields that disagree with their scores. With
    ``keep_rank=True`` it becomes the ``rank`` column, which then defines the order (ascending
    rank, 0- or 1-based: only the order matters; a tie group is a run of adjacent positions
    with equal score).

    >>> import trunc_accessor
    >>> run = trunc_accessor.read_run(trunc_accessor.example_path("results.test"))
    >>> run.columns.tolist()
    ['qid', 'docid', 'score', 'system']
    >>> len(run), run["qid"].unique().tolist(), run["system"].iloc[0]
    (1500, ['301', '302', '303'], 'STANDARD')
    """
    _check_library(library)
    return _as(library, _run_table(path, keep_rank))


def _run_table(path, keep_rank: bool = False) -> pa.Table:
    """``read_run``'s columns as an Arrow table."""
    raw = _read_runs(path) if isinstance(path, (list, tuple)) else _parse(path, (_RUN,))[1]
    table = pa.table([raw["qid"], raw["docid"], raw["score"], raw["runid"]],
                     names=["qid", "docid", "score", "system"])
    if keep_rank:
        table = table.add_column(3, "rank", _whole_or_float(raw["rank"]))
    return table


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
            names = set(cast(pl.DataFrame, pl.from_arrow(pa.table({"r": runid})))["r"]
                        .drop_nulls().unique().to_list())
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
        system = (cast(pl.DataFrame, pl.from_arrow(pa.table({"r": runid})))["r"]
                  .cast(pl.String).fill_null(fill))
        system = pa.chunked_array([system.to_arrow(compat_level=pl.CompatLevel.oldest())],
                                  pa.large_string())
        out.append(table.set_column(table.schema.get_field_index("runid"), "runid", system))
    return pa.concat_tables(out)


def read_qrels(path: Source, library: str = "pandas", subtopics: bool | None = None) -> Result:
    """A TREC qrels file as a frame with columns qid, docid, rel (int64 when every grade is
    a whole number, else float64). Four fields per line (``qid iter docid rel``) or, when
    the first data line has three, ``qid docid rel``; ``path`` as for ``read_run``.
    Five fields a line are a sampled pool's qrels as NIST's ``sample_eval.pl`` reads them
    (``qid iter docid stratum rel``, a negative grade for a pooled document that was not
    sampled): the frame then has a ``stratum`` column (strings: strata are compared as text),
    which the inferred measures (``xinfap``, ``infndcg``, ``ip@k``, …) read. The first
    data line decides the layout, and every line must have exactly its fields (trec_eval's
    qrels reader, get_qrels.c, stops on a longer line too): a longer or shorter line is
    refused, naming it.

    ``subtopics``: TREC's diversity qrels (the Web track's ``qrels.diversity``, NTCIR's
    intent files) put a document's subtopic in the second field and judge it once per
    subtopic. ``None`` (default) keeps that field as a ``subtopic`` column (int64 when every
    value is a whole number, else string) when some (qid, docid) appears with two or more
    of its values, and drops it otherwise (ad hoc qrels, whose second field is 0 or Q0);
    ``True`` always keeps it, ``False`` always drops it. With a subtopic column, the
    diversity measures (α-nDCG, ERR-IA, …) use it, and the ad hoc measures read a document's
    largest grade over its subtopics (relevant to any subtopic).

    ``path`` may also name a test collection of ir_datasets, ``"irds:<dataset id>"`` (e.g.
    ``"irds:msmarco-passage/dev/small"``; an existing file of that name is read as a file),
    or be an ir_datasets dataset object: its ``qrels_iter()`` gives the frame (qid and docid
    as strings). This needs ir_datasets (the ``datasets`` extra,
    ``pip install -e ".[datasets]"``), which fetches the collection's files on first use. The
    frame remembers the dataset's official measures, which ``evaluate(qrels, "official")``
    then uses (``trunc_accessor.io.irds``).

    >>> import trunc_accessor
    >>> qrels = trunc_accessor.read_qrels(trunc_accessor.example_path("qrels.test"))
    >>> qrels.columns.tolist(), str(qrels["rel"].dtype)
    (['qid', 'docid', 'rel'], 'int64')
    """
    _check_library(library)
    if subtopics is not None and not isinstance(subtopics, bool):
        raise InputError(f"subtopics= must be None (detect), True or False, not {subtopics!r}")
    from trunc_accessor.io import irds

    if irds.is_dataset(path) or (irds.is_irds(path) and not os.path.exists(path)):
        ds = path if irds.is_dataset(path) else irds.load(path)
        label = path if isinstance(path, str) else f"dataset {type(path).__name__}"
        frame = _as(library, irds.qrels_table(ds, label, subtopics))
        return irds.remember(frame, irds.official(ds), label)
    _fmt, raw, where, _stem = _parse(path, (_QRELS4, _QRELS3, _QRELS5))
    columns = [raw["qid"], raw["docid"], _whole_or_float(raw["rel"])]
    names = ["qid", "docid", "rel"]
    if "stratum" in raw.column_names:  # a sampled pool's: labels compared as text
        columns.append(raw["stratum"])
        names.append("stratum")
    if subtopics and "iter" not in raw.column_names:
        raise InputError(f"{where}: subtopics=True, but the file has 3 fields a line "
                         "(qid docid rel): no subtopic field")
    if "iter" in raw.column_names and (subtopics or (subtopics is None and _several(raw))):
        columns.insert(1, _whole_or_string(raw["iter"]))
        names.insert(1, "subtopic")
    return _as(library, pa.table(columns, names=names))
