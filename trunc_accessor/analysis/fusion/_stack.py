"""The runs to fuse as flat NumPy arrays (:class:`Stack`), and the fused run back as a frame.

Runs come as one long frame whose ``by=`` column(s) name the systems, or as a mapping
{name: frame}. Every row becomes an entry of flat arrays in ranking order, one *segment*
per (system, query): the order of a ranking is the library's (ascending ``rank`` if the
column exists, else descending score with equal scores in input order; ``ties="trec_eval"``:
score descending then docid descending as strings), and under ``ties="average"`` the rows of
equal score next to each other form a tie group. The *candidates* of a query are the union
of the documents its runs retrieved, numbered in (query, docid-as-string) order.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

from ...core import frames
from ...core.frames import SYS, InputError, InputTypeError
from ...core.keys import _key_kind, key_dtype, qid_sort_keys
from ...core.prepare import _ranking_order
from ...core.prepared import _groups, _positions, group_sizes, score_boundaries

FUSION_TIES = ("average", "first", "trec_eval")


def check_fusion_ties(ties) -> str:
    if not isinstance(ties, str) or ties not in FUSION_TIES:
        raise InputError(f"ties= must be one of {FUSION_TIES}, not {ties!r}")
    return ties


@dataclass(eq=False)
class Source:
    """The runs as given: a Polars frame ``[_sys], qid, docid, score[, rank]`` (eager or
    lazy), the system names (code i = ``names[i]``), the user's column names and library."""

    frame: pl.DataFrame | pl.LazyFrame
    names: list | None  # the mapping's keys (None: the by… columns number the systems)
    by: list[str]
    qid_name: str
    docid_name: str
    library: str  # "pandas", "polars" or "lazy"
    min_runs: int = 2


def _library(frame) -> str:
    if isinstance(frame, pl.LazyFrame):
        return "lazy"
    if isinstance(frame, pl.DataFrame):
        return "polars"
    return "pandas"


def _one(frame, label: str, by=()) -> tuple[pl.DataFrame | pl.LazyFrame, frames.RunColumns]:
    cols = frames.resolve_run_columns(frame, by)
    out = frames.to_polars(frame, cols.needed, label)
    schema = out.collect_schema() if isinstance(out, pl.LazyFrame) else out.schema
    frames.check_run_schema(schema, cols)
    for name in (cols.qid, cols.docid):
        _key_kind(schema[name], f"{label} column {name!r}")
    return out, cols


def source(runs, by="system", min_runs: int = 2) -> Source:
    """Check the runs' columns and dtypes (nothing is computed for a LazyFrame) and gather
    them in one Polars frame with a system code column."""
    if isinstance(runs, Mapping):
        if len(runs) < min_runs:
            raise InputError(f"fusion needs at least two runs; the mapping holds {len(runs)}")
        parts, kinds_q, kinds_d = [], [], []
        first: frames.RunColumns | None = None
        libraries = set()
        for i, (name, frame) in enumerate(runs.items()):
            frames.check_frame(frame, f"run {name!r}")
            libraries.add(_library(frame))
            out, cols = _one(frame, f"run {name!r}")
            schema = out.collect_schema() if isinstance(out, pl.LazyFrame) else out.schema
            kinds_q.append(_key_kind(schema[cols.qid], f"run {name!r} column {cols.qid!r}"))
            kinds_d.append(_key_kind(schema[cols.docid], f"run {name!r} column {cols.docid!r}"))
            first = first or cols
            exprs = [pl.lit(i, dtype=pl.Int64).alias(SYS), pl.col(cols.qid).alias("qid"),
                     pl.col(cols.docid).alias("docid"), pl.col("score").cast(pl.Float64)]
            if cols.has_rank:
                exprs.append(pl.col("rank").cast(pl.Float64))
            parts.append((out.select(exprs), cols.has_rank))
        if len({has for _, has in parts}) > 1:
            raise InputError("some runs have a 'rank' column and others not: give all or none "
                             "of them one (it defines each ranking's order)")
        qd, dd = key_dtype(*kinds_q), key_dtype(*kinds_d)
        lazy = "lazy" in libraries
        casted = [p.with_columns(pl.col("qid").cast(qd), pl.col("docid").cast(dd))
                  for p, _ in parts]
        if lazy:
            casted = [p.lazy() for p in casted]
        frame = pl.concat(casted, how="vertical")  # type: ignore[type-var]
        library = "lazy" if lazy else ("pandas" if libraries == {"pandas"} else "polars")
        assert first is not None
        return Source(frame, list(runs), [], first.qid, first.docid, library, min_runs)
    frames.check_frame(runs, "runs")
    by = frames.normalise_by(by)
    if not by:
        raise InputError("by= must name the column that tells the runs apart (e.g. "
                         "by='system', as read_run writes it), or pass a mapping {name: run}")
    out, cols = _one(runs, "runs", by)
    exprs = [*(pl.col(b) for b in by), pl.col(cols.qid).alias("qid"),
             pl.col(cols.docid).alias("docid"), pl.col("score").cast(pl.Float64)]
    if cols.has_rank:
        exprs.append(pl.col("rank").cast(pl.Float64))
    out = out.select(exprs)
    return Source(out, None, list(by), cols.qid, cols.docid, _library(runs), min_runs)


def schema_of(src: Source) -> dict:
    """The fused run's columns and dtypes (known without computing it)."""
    schema = (src.frame.collect_schema() if isinstance(src.frame, pl.LazyFrame)
              else src.frame.schema)
    return {src.qid_name: schema["qid"], src.docid_name: schema["docid"], "score": pl.Float64,
            "rank": pl.Int64}


@dataclass(eq=False)
class Stack:
    """The runs as flat arrays (module doc). Rows are in segment order (segment =
    system·Q + query) and ranking order within a segment."""

    names: list           # system names, code i = names[i]
    qids: pl.Series       # the distinct qids, query index q = position here
    docids: pl.Series     # the docid of each candidate
    cand_q: np.ndarray    # (C,) the query of each candidate, non-decreasing
    seg: np.ndarray       # (N,) segment of each row
    cand: np.ndarray      # (N,) candidate of each row
    score: np.ndarray     # (N,) the run's score
    pos: np.ndarray       # (N,) 1-based position in its ranking
    offsets: np.ndarray   # (R·Q + 1,) rows of each segment
    gid: np.ndarray       # (N,) tie group of each row (every row its own unless "average")
    g_size: np.ndarray    # (G,) rows per tie group
    ties: str
    qid_name: str = "qid"
    docid_name: str = "docid"

    @property
    def n_runs(self) -> int:
        return len(self.names)

    @property
    def n_q(self) -> int:
        return len(self.qids)

    @property
    def n_cand(self) -> int:
        return len(self.cand_q)

    @property
    def system(self) -> np.ndarray:
        return self.seg // max(self.n_q, 1)

    @property
    def query(self) -> np.ndarray:
        return self.seg % max(self.n_q, 1)

    def q_counts(self) -> np.ndarray:
        """The number of candidates of each query."""
        return np.bincount(self.cand_q, minlength=self.n_q)


def _systems(frame: pl.DataFrame, by: list[str], min_runs: int):
    run, systems = frames.system_codes(frame, by)
    if systems.height < min_runs:
        raise InputError(f"fusion needs at least two runs; by={by if len(by) > 1 else by[0]!r}"
                         f" finds {systems.height} in the frame")
    names = [r[0] if len(by) == 1 else tuple(r) for r in systems.iter_rows()]
    return run, names, systems


def stack(src: Source, ties: str, *, finite: bool = False) -> Stack:
    """Validate the rows (missing values, duplicates; ``finite``: scores must be finite,
    as a score normalisation needs) and build the :class:`Stack`."""
    check_fusion_ties(ties)
    frame = src.frame.collect() if isinstance(src.frame, pl.LazyFrame) else src.frame
    if src.names is None:  # a long frame: its by… columns number the systems
        by = src.by
        frame, names, systems = _systems(frame, by, src.min_runs)
    else:
        names = src.names
        systems = pl.DataFrame({"run": [str(n) for n in names]})
    has_rank = "rank" in frame.columns
    for col in ("qid", "docid"):
        if frame[col].null_count():
            row = frame.filter(frame[col].is_null()).row(0, named=True)
            raise InputError(f"run column {col!r} has a missing value (row "
                             f"{frames._row_label(row, systems, ['qid', 'docid'])})")
    checks = [("score", "missing or NaN" + (" or infinite" if finite else ""))]
    if has_rank:
        checks.append(("rank", "missing, NaN or infinite"))
    for col, what in checks:
        bad = frame[col].is_null() | frame[col].is_nan()
        if col == "rank" or finite:
            bad = bad | frame[col].is_infinite()
        if bad.any():
            row = frame.filter(bad).row(0, named=True)
            raise InputError(f"run column {col!r} is {what} for "
                             f"{frames._row_label(row, systems, ['qid', 'docid'])}"
                             + (" (a score normalisation needs finite scores)" if finite and
                                col == "score" else ""))
    if frame.height and frame.select(pl.struct(SYS, "qid", "docid").is_duplicated().any()).item():
        frames.check_duplicate_documents(frame, systems)

    qids = frame.select("qid").unique()
    qids = qids.sort(qid_sort_keys(qids, "qid")).with_row_index("_q")
    q = (frame.select("qid").join(qids, on="qid", how="left", maintain_order="left")["_q"]
         .to_numpy().astype(np.int64))
    n_q, n_runs = qids.height, len(names)
    sys_code = frame[SYS].to_numpy().astype(np.int64)
    seg = sys_code * n_q + q
    # candidates: distinct (query, docid), numbered in (query, docid as a string) order
    cand_key = pl.DataFrame({"q": q, "d": frame["docid"].cast(pl.String)})
    cand = cand_key.select(pl.struct("q", "d").rank("dense")).to_series().to_numpy()
    cand = cand.astype(np.int64) - 1
    n_cand = int(cand.max()) + 1 if len(cand) else 0
    first = np.empty(n_cand, dtype=np.int64)
    first[cand] = np.arange(len(cand))  # a row of each candidate
    cand_q = q[first]
    docids = frame["docid"].gather(pl.Series(first))

    score = frame["score"].to_numpy().astype(np.float64)
    rank = frame["rank"].to_numpy().astype(np.float64) if has_rank else None
    order = _ranking_order(frame.select("docid"), None, seg, score, rank, ties)
    if order is not None:
        seg, cand, score = seg[order], cand[order], score[order]
    offsets, pos = _positions(seg, n_runs * n_q)
    boundary = score_boundaries(score) if ties == "average" else None
    gid, g_first = _groups(seg, pos, boundary)
    g_size = group_sizes(g_first, len(seg))
    return Stack(names=list(names), qids=qids["qid"], docids=docids, cand_q=cand_q, seg=seg,
                 cand=cand, score=score, pos=pos.astype(np.int64), offsets=offsets,
                 gid=np.asarray(gid), g_size=np.asarray(g_size), ties=ties,
                 qid_name=src.qid_name, docid_name=src.docid_name)


def fused_frame(st: Stack, fused: np.ndarray, depth: int | None,
                queries: np.ndarray | None = None) -> pl.DataFrame:
    """The fused run as a Polars frame (qid, docid, score, rank): every candidate, per query
    by fused score descending, equal scores by docid descending as strings (trec_eval's
    order, so that the rank column and trec_eval agree); ``depth`` keeps the first ones;
    ``queries`` (a mask over the stack's queries) the queries to keep."""
    # candidates are numbered in (query, docid string) order: docid descending = -cand
    c = np.arange(st.n_cand)
    order = np.lexsort((-c, -fused, st.cand_q)) if st.n_cand else c
    if queries is not None:
        order = order[queries[st.cand_q[order]]]
    cq = st.cand_q[order]
    n_per_q = np.bincount(cq, minlength=st.n_q)
    starts = np.zeros(st.n_q + 1, dtype=np.int64)
    np.cumsum(n_per_q, out=starts[1:])
    rank = np.arange(len(order)) - starts[cq] + 1
    keep = slice(None) if depth is None else np.flatnonzero(rank <= depth)
    order, cq, rank = order[keep], cq[keep], rank[keep]
    return pl.DataFrame([
        st.qids.gather(pl.Series(cq)).alias(st.qid_name),
        st.docids.gather(pl.Series(order)).alias(st.docid_name),
        pl.Series("score", fused[order], dtype=pl.Float64),
        pl.Series("rank", rank, dtype=pl.Int64),
    ])


def as_library(frame: pl.DataFrame, library: str):
    if library == "pandas":
        return frames.to_pandas(frame)
    return frame.lazy() if library == "lazy" else frame


def check_depth(depth):
    if depth is None:
        return None
    return frames.whole_number(depth, "depth", minimum=1)


def check_runs_type(runs) -> None:
    if type(runs).__module__.split(".")[0] == "dask":
        raise InputTypeError("fusion takes pandas or Polars runs, not a Dask frame: compute it "
                             "first (.compute()), or fuse each partition of whole queries")
    if isinstance(runs, (list, tuple)):
        raise InputTypeError("runs must be one frame with a system column (by=) or a mapping "
                             "{name: run}; for a list of runs, name them: "
                             "dict(zip(names, runs))")
