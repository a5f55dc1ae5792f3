"""Where the queries of a Dask run lie, and how the qrels follow them (``dask``).

**Whole queries per partition.** A run's partitions hold whole queries when the qid
ranges of its non-empty partitions (smallest and largest qid of each) do not overlap once
sorted: a qid then lies in exactly one partition, whatever the order of the rows inside
it. The ranges come from the Parquet footers when the run is a ``dd.read_parquet``
whose every row group has min/max statistics of the qid column (nothing is read but the
footers), else from one small task per partition that reads the qid column alone (the
index, for a qid index; the partition keys of hive-style directories). They are compared
in the order of the run's qid type (integers, or strings by their UTF-8 bytes, as Parquet
statistics and Polars order them); a qid of another type (floats, dates, mixed objects)
gives no ranges. A run without ranges, or whose ranges overlap, is shuffled once, by an
integer: ``hash(qid as a string) % n`` is the number of the partition each row goes to
(``split_run`` splits a partition so).

**Parquet.** The partitions of a plain ``dd.read_parquet`` run or qrels (no filters,
categories or hive-style keys) are read by the tasks that use them, with pyarrow, straight
into Polars (``parquet_parts``, ``read_part``): the rows Dask would read, in its order,
without the detour through pandas.

**Buckets.** ``Buckets`` says which partition of the (possibly shuffled) run each qid
belongs to: with ranges, the partition whose smallest qid is the largest one not above it
(so a judged qid that no partition retrieves still goes to exactly one), else its hash.
The qrels are split by it and each piece of the run takes the judgments of its own bucket
only: in-memory qrels are split once on the client, Dask qrels by one task per qrels
partition; they are never shuffled, and no piece holds another piece's judgments.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor.core import columns as _columns
from trunc_accessor.frontends._dask_parts import (
    _SHIFT,
    _client,
    _hash_bucket,
    _Layout,
    _polars,
    _qrels_facts_polars,
    _qrels_polars,
)


@dataclass(frozen=True)
class Buckets:
    """Which of ``n`` run partitions each qid belongs to: by range (``los``: the smallest
    qid of each non-empty partition, sorted, in the run's qid type; ``order``: those
    partitions' numbers) or, with ``hashed``, by ``hash % n``."""

    n: int
    hashed: bool = False
    los: pl.Series | None = None
    order: tuple = field(default=(0,))

    def of(self, qids: pl.Series) -> np.ndarray:
        """The partition number of each qid (any key type; nulls go to one partition)."""
        if self.hashed:
            return _hash_bucket(qids, self.n)
        if self.los is None or len(self.los) <= 1:
            return np.full(len(qids), self.order[0], dtype=np.int64)
        key = qids.cast(self.los.dtype, strict=False)  # what cannot be cast matches no qid
        at = self.los[1:].search_sorted(key, side="right").to_numpy().astype(np.int64)
        at[key.is_null().to_numpy()] = 0
        return np.asarray(self.order, dtype=np.int64)[at]


def run_buckets(frame: dd.DataFrame, qid: str, in_index: bool,
                key: pl.DataType) -> Buckets | None:
    """The buckets of a run whose partitions hold whole queries; None when they may not
    (module doc): the run must then be shuffled."""
    n = frame.npartitions
    if n == 1:
        return Buckets(1)
    if not (key.is_integer() or key == pl.String):
        return None
    bounds = _footer_bounds(frame, qid, key)
    if bounds is None:
        bounds = _task_bounds(frame, qid, in_index, key)
    if bounds is None:
        return None
    filled = sorted((b[0], b[1], i) for i, b in enumerate(bounds) if b is not None)
    if any(hi >= lo for (_, hi, _), (lo, _, _) in zip(filled[:-1], filled[1:])):
        return None  # a qid may lie in two partitions
    if not filled:
        return Buckets(n)
    return Buckets(n, los=pl.Series([b[0] for b in filled], dtype=key),
                   order=tuple(b[2] for b in filled))


# --------------------------------------------------------------------------- qid ranges
def _part_bounds(part, key: pl.DataType):
    """(smallest, largest) qid of one partition (a pandas Series or Index of qids), None
    without any; "mixed" when its qids are not of the run's key type."""
    column = part.to_frame(name="q", index=False) if isinstance(part, pd.Index) \
        else part.to_frame(name="q")
    try:
        q = _polars(column, ["q"], "run", ("q",))["q"].drop_nulls()
    except ValueError:
        return "mixed"
    if not len(q):  # no qid: an empty partition; qids all missing: unknown (the engine says)
        return None if not len(part) else "mixed"
    if q.dtype != key:
        return "mixed"
    return q.min(), q.max()


def _task_bounds(frame: dd.DataFrame, qid: str, in_index: bool, key: pl.DataType):
    """Per-partition ranges from one task per partition reading the qid column only
    (``to_delayed`` keeps the run's partitions: no file is merged into another)."""
    column = frame.index if in_index else frame[qid]
    parts = column.to_delayed()
    if len(parts) != frame.npartitions:
        return None
    found = dask.compute(*[dask.delayed(_part_bounds)(p, key) for p in parts])
    return None if any(isinstance(b, str) for b in found) else list(found)


def _footer_bounds(frame: dd.DataFrame, qid: str, key: pl.DataType):
    """Per-partition ranges from the Parquet footers of a ``dd.read_parquet`` run (min/max
    statistics of every row group of its partitions); None when some are missing."""
    try:
        from dask.dataframe.dask_expr.io.parquet import ReadParquetFSSpec

        expr = frame.expr.simplify()
        if not isinstance(expr, ReadParquetFSSpec) or expr.npartitions != frame.npartitions:
            return None
        plan, fs = expr._plan, expr._dataset_info["fs"]
        if plan["empty"]:
            return None
        parts = [plan["parts"][i] for i in
                 (expr._partitions if expr._filtered else range(len(plan["parts"])))]
        footers: dict[str, Any] = {}
        bounds = [_pieces_bounds(p if isinstance(p, list) else [p], fs, qid, footers)
                  for p in parts]
    except Exception:  # noqa: BLE001 - any surprise in Dask's reader: read the column
        return None
    if any(isinstance(b, str) for b in bounds):
        return None
    try:  # the statistics' values in the run's key type (strings stay strings, ...)
        return [None if b is None else tuple(pl.Series(list(b)).cast(key, strict=True))
                for b in bounds]
    except Exception:  # noqa: BLE001 - statistics of another type: read the column
        return None


def _pieces_bounds(pieces: list, fs, qid: str, footers: dict):
    """(smallest, largest) qid of one partition's files or row groups from their footers
    (or hive-style paths, as strings), None without rows, "missing" when unknown."""
    import pyarrow.parquet as pq

    found = []
    for p in pieces:
        path, groups = p["piece"][0], p["piece"][1]
        if path not in footers:
            with fs.open(path, mode="rb") as f:
                footers[path] = pq.ParquetFile(f).metadata
        md = footers[path]
        names = [md.schema.column(i).path for i in range(md.num_columns)]
        if qid not in names:  # a hive-style partition key: every row has the path's value
            value = _hive_value(path, qid)
            if value is None:
                return "missing"
            found.append((value, value))
            continue
        at = names.index(qid)
        for g in (range(md.num_row_groups) if groups in (None, [None]) else groups):
            stats = md.row_group(g).column(at).statistics
            if md.row_group(g).num_rows and (stats is None or not stats.has_min_max):
                return "missing"
            if md.row_group(g).num_rows:
                found.append((stats.min, stats.max))
    if not found:
        return None
    if any(isinstance(f[0], _HiveValue) for f in found) and len(set(found)) > 1:
        return "missing"  # hive values are strings: compared only after the cast
    return min(f[0] for f in found), max(f[1] for f in found)


class _HiveValue(str):
    """A qid read from a hive-style path (``.../qid=301/part.parquet``), as a string."""


def _hive_value(path: str, qid: str) -> _HiveValue | None:
    from urllib.parse import unquote

    found = [unquote(p[len(qid) + 1:]) for p in str(path).replace("\\", "/").split("/")
             if p.startswith(f"{qid}=")]
    if len(found) != 1 or found[0] == "__HIVE_DEFAULT_PARTITION__":
        return None
    return _HiveValue(found[0])


# --------------------------------------------------------------------------- Parquet reads
def parquet_parts(frame: dd.DataFrame, columns: list[str]) -> list | None:
    """[(filesystem, pieces) of each partition] of a plain ``dd.read_parquet`` run whose
    files hold ``columns`` (no filters, categories or hive-style keys): its pieces read
    them straight into Polars, through Arrow rather than pandas, the same rows in the same
    order; None for any other run."""
    try:
        from dask.dataframe.dask_expr.io.parquet import ReadParquetFSSpec

        expr = frame.expr.simplify()
        if not isinstance(expr, ReadParquetFSSpec) or expr.npartitions != frame.npartitions:
            return None
        info, plan = expr._dataset_info, expr._plan
        if (expr.operand("filters") or info.get("categories") or info.get("partitions")
                or plan["empty"] or not set(columns) <= set(info["physical_schema"].names)
                or any(isinstance(frame._meta.dtypes.get(c), pd.CategoricalDtype)
                       for c in columns)):
            return None
        parts = [plan["parts"][i] for i in
                 (expr._partitions if expr._filtered else range(len(plan["parts"])))]
        return [(info["fs"], p if isinstance(p, list) else [p]) for p in parts]
    except Exception:  # noqa: BLE001 - any surprise in Dask's reader: Dask reads the run
        return None


def read_part(fs, pieces: list, columns: list[str]) -> pl.DataFrame | pd.DataFrame:
    """``columns`` of one partition's files or row groups, as Polars (as pandas when a
    column other than a string has missing values, which pandas reads as NaN)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    for p in pieces:
        path, groups = p["piece"][0], p["piece"][1]
        with fs.open(path, mode="rb") as f:
            file = pq.ParquetFile(f)
            tables.append(file.read(columns=columns) if groups in (None, [None])
                          else file.read_row_groups(groups, columns=columns))
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables,
                                                                promote_options="permissive")
    if any(c.null_count and not (pa.types.is_string(c.type) or pa.types.is_large_string(c.type))
           for c in table.columns):  # pandas turns them into floats / NaN: as Dask reads them
        return table.to_pandas()
    return cast(pl.DataFrame, pl.from_arrow(table))


# --------------------------------------------------------------------------- qrels by bucket
def _split(q: pl.DataFrame, qid: str, buckets: Buckets) -> list[pl.DataFrame]:
    """``q``'s rows by bucket, in their order: frame i holds the rows of partition i's
    qids."""
    name = _columns.fresh_name(q.columns, "__ta_bucket")
    tagged = q.with_columns(pl.Series(name, buckets.of(q[qid])))
    found = tagged.partition_by(name, as_dict=True, maintain_order=True)
    empty = q.clear()
    return [found[(i,)].drop(name) if (i,) in found else empty for i in range(buckets.n)]


def split_run(source, layout: _Layout, number: int, n: int) -> tuple:
    """The rows of run partition ``number`` (pandas, or ``read_part``'s arguments) as the
    engine's Polars columns, each row with its input position (``layout.seq``), split by
    the hash bucket of their qid into ``n`` frames: a shuffle of the run by tasks, no
    rows but the engine's columns moved."""
    part = read_part(*source) if isinstance(source, tuple) else source
    if layout.reset and not isinstance(part, pl.DataFrame):
        part = part.reset_index()
    run = _polars(part, list(layout.columns), "run",
                  tuple(k for k in (layout.qid, layout.docid) if k))
    seq = (np.int64(number) << _SHIFT) + np.arange(run.height, dtype=np.int64)
    run = run.with_columns(pl.Series(layout.seq, seq))
    return tuple(_split(run, layout.qid, Buckets(n, hashed=True)))


def _split_part(part: pd.DataFrame | pl.DataFrame, columns: tuple, rel: str,
                buckets: Buckets) -> tuple:
    """(facts, slice 0, …, slice n-1) of one Dask qrels partition."""
    q = _qrels_polars(part, columns)
    return (_qrels_facts_polars(q, rel), *_split(q, columns[0], buckets))


def qrels_by_bucket(qrels, columns: tuple, rel: str, buckets: Buckets):
    """([facts of each qrels part], [the qrels of each run partition]): in-memory qrels
    split on the client once (each slice scattered to the workers under ``distributed``),
    Dask qrels by one task per partition; every run partition gets only its slices."""
    n = buckets.n
    if isinstance(qrels, dd.DataFrame):
        direct = parquet_parts(qrels, list(columns))  # Parquet qrels: read into Polars
        parts = ([dask.delayed(read_part)(fs, pieces, list(columns)) for fs, pieces in direct]
                 if direct else qrels.to_delayed())
        split = [dask.delayed(_split_part, nout=n + 1)(p, columns, rel, buckets)
                 for p in parts]
        return [s[0] for s in split], [[s[i + 1] for s in split] for i in range(n)]
    slices = _scattered(_split(_qrels_polars(qrels, columns), columns[0], buckets))
    return [dask.delayed(_qrels_facts_polars)(s, rel) for s in slices], slices


def _scattered(slices: list[pl.DataFrame]) -> list:
    """The slices as futures of a distributed client (one copy each, on some worker), or
    as graph literals without one."""
    client = _client()
    if client is not None:
        return list(client.scatter(slices, hash=False))
    return [dask.delayed(s, pure=False) for s in slices]
