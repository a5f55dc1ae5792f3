"""The runs to fuse as flat NumPy arrays (``Stack``), and the fused run back as a frame.

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

from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames, numbers
from trunc_accessor.core import keys as _keys
from trunc_accessor.core.columns import SYS
from trunc_accessor.core.keys import _key_kind, key_dtype, qid_sort_keys
from trunc_accessor.core.ordering import ranking_order, segment_order
from trunc_accessor.core.prepared import _groups, _positions, score_boundaries
from trunc_accessor.errors import InputError, InputTypeError

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


def _one(frame, label: str, by=()) -> tuple[pl.DataFrame | pl.LazyFrame, _columns.RunColumns]:
    cols = _columns.resolve_run_columns(frame, by)
    out = frames.to_polars(frame, cols.needed, label)
    schema = out.collect_schema() if isinstance(out, pl.LazyFrame) else out.schema
    _columns.check_run_schema(schema, cols)
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
        first: _columns.RunColumns | None = None
        libraries = set()
        for i, (name, frame) in enumerate(runs.items()):
            _columns.check_frame(frame, f"run {name!r}")
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
    _columns.check_frame(runs, "runs")
    by = _columns.normalise_by(by)
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
    docs: pl.Series       # the distinct docids, in order as strings
    cand_q: np.ndarray    # (C,) the query of each candidate, non-decreasing
    cand_d: np.ndarray    # (C,) the docid of each candidate (its index in docs)
    seg: np.ndarray       # (N,) segment of each row
    cand: np.ndarray      # (N,) candidate of each row
    score: np.ndarray     # (N,) the run's score
    pos: np.ndarray       # (N,) 1-based position in its ranking
    offsets: np.ndarray   # (R·Q + 1,) rows of each segment
    gid: np.ndarray       # (N,) tie group of each row (every row its own unless "average")
    ties: str
    singleton_groups: bool  # every row its own tie group (no tie, or not "average")
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

    def docids(self, cands: np.ndarray | None = None) -> pl.Series:
        """The docids of candidates ``cands`` (default: of every candidate)."""
        return self.docs.gather(pl.Series(self.cand_d if cands is None else self.cand_d[cands]))

    def q_counts(self) -> np.ndarray:
        """The number of candidates of each query."""
        return np.bincount(self.cand_q, minlength=self.n_q)


SEED = 0x5EED  # of the 64-bit hashes that join identifiers to their distinct values


def _index_in(values: pl.Series, distinct: pl.Series) -> np.ndarray:
    """Each value's index in ``distinct`` (its distinct values): a join on 64-bit hashes,
    exact when those of ``distinct`` differ (each value is one of them), else on the values."""
    right = distinct.hash(SEED)
    left = values.hash(SEED)
    if right.n_unique() < len(right):  # a collision: join the values themselves
        left, right = values, distinct
    found = (left.to_frame("k").join(right.to_frame("k").with_row_index("i"), on="k",
                                     how="left", maintain_order="left"))
    return found["i"].to_numpy()


def _codes(frame: pl.DataFrame, by: list[str], min_runs: int):
    """Each row's system code and query index, found at the rows where (system, qid)
    changes (runs come in blocks: a few thousand lookups, not one per row), with the
    names of the systems, the systems frame (for messages) and the sorted distinct qids."""
    keys = [*(by or [SYS]), "qid"]
    change = frame.select(pl.any_horizontal([pl.col(c).ne_missing(pl.col(c).shift())
                                             for c in keys])).to_series().to_numpy()
    change[:1] = True
    starts = np.flatnonzero(change)
    lengths = np.diff(np.append(starts, frame.height))
    heads = frame.select(pl.col(keys).gather(pl.Series(starts)))
    if by:  # the by… keys numbered in sorted order (frames.system_codes), head by head
        coded, systems = _keys.system_codes(heads.select(by).with_row_index("_h"), by)
        if systems.height < min_runs:
            raise InputError(f"fusion needs at least two runs; by={by if len(by) > 1 else by[0]!r}"
                             f" finds {systems.height} in the frame")
        head_sys = np.empty(len(starts), dtype=np.int64)
        head_sys[coded["_h"].to_numpy()] = coded[SYS].to_numpy()
        names = [r[0] if len(by) == 1 else tuple(r) for r in systems.iter_rows()]
    else:
        head_sys, names, systems = heads[SYS].to_numpy(), None, None
    distinct = heads.select("qid").unique()
    qids = distinct.sort(qid_sort_keys(distinct, "qid"))["qid"]
    head_q = _index_in(heads["qid"], qids).astype(np.int64)
    return np.repeat(head_sys, lengths), np.repeat(head_q, lengths), names, systems, qids


def _check_rows(frame: pl.DataFrame, systems: pl.DataFrame, finite: bool) -> None:
    """Raise the InputError that names the first row at fault (rows ordered by system):
    a missing identifier, a missing, NaN (``finite``: or infinite) score or rank, or a
    document twice in one ranking."""
    frame = frame.sort(SYS, maintain_order=True)
    for col in ("qid", "docid"):
        if frame[col].null_count():
            row = frame.filter(frame[col].is_null()).row(0, named=True)
            raise InputError(f"run column {col!r} has a missing value (row "
                             f"{_keys._row_label(row, systems, ['qid', 'docid'])})")
    checks = [("score", "missing or NaN" + (" or infinite" if finite else ""))]
    if "rank" in frame.columns:
        checks.append(("rank", "missing, NaN or infinite"))
    for col, what in checks:
        bad = frame[col].is_null() | frame[col].is_nan()
        if col == "rank" or finite:
            bad = bad | frame[col].is_infinite()
        if bad.any():
            row = frame.filter(bad).row(0, named=True)
            raise InputError(f"run column {col!r} is {what} for "
                             f"{_keys._row_label(row, systems, ['qid', 'docid'])}"
                             + (" (a score normalisation needs finite scores)" if finite and
                                col == "score" else ""))
    _keys.check_duplicate_documents(frame, systems)


def _sorted_keys(ckey: np.ndarray, sys_code: np.ndarray, n_runs: int, bound: int):
    """The candidate keys of the rows sorted, the row of each, and whether some (key,
    system) pair repeats. One NumPy sort of 64-bit words holding key, system and row when
    they fit (``bound``: the keys are below it; ``ckey`` is then consumed), else Polars'
    sort by both columns."""
    n = len(ckey)
    bits = max(n - 1, 1).bit_length()
    if (bound * n_runs) << bits <= 1 << 64:
        ckey *= n_runs
        ckey += sys_code
        packed = ckey.view(np.uint64)
        packed <<= np.uint64(bits)
        packed |= np.arange(n, dtype=np.uint64)
        packed.sort()
        rows = (packed & np.uint64((1 << bits) - 1)).view(np.int64)
        packed >>= np.uint64(bits)
        pair = packed.view(np.int64)
        repeat = bool((pair[1:] == pair[:-1]).any())
        pair //= n_runs
        return pair, rows, repeat
    rows = (pl.DataFrame({"c": ckey, "s": sys_code}).select(pl.arg_sort_by("c", "s"))
            .to_series().to_numpy())
    key, sys_sorted = ckey[rows], sys_code[rows]
    return key, rows, bool(((key[1:] == key[:-1]) & (sys_sorted[1:] == sys_sorted[:-1])).any())


def stack(src: Source, ties: str, *, finite: bool = False) -> Stack:
    """Validate the rows (missing values, duplicates; ``finite``: scores must be finite,
    as a score normalisation needs) and build the ``Stack``."""
    check_fusion_ties(ties)
    frame = src.frame.collect() if isinstance(src.frame, pl.LazyFrame) else src.frame
    sys_code, q, names, systems, qids = _codes(frame, src.by, src.min_runs)
    if src.names is not None:
        names, systems = src.names, pl.DataFrame({"run": [str(n) for n in src.names]})
    else:
        frame = frame.drop(src.by).with_columns(pl.Series(SYS, sys_code))
    n_q, n_runs = len(qids), len(names)
    has_rank = "rank" in frame.columns
    score = frame["score"].to_numpy()
    rank = frame["rank"].to_numpy() if has_rank else None
    scores_ok = np.isfinite(score).all() if finite else not np.isnan(score).any()
    ranks_ok = rank is None or np.isfinite(rank).all()
    if frame["qid"].null_count() or frame["docid"].null_count() or not (scores_ok and ranks_ok):
        _check_rows(frame, systems, finite)

    # candidates: distinct (query, docid), numbered in (query, docid as a string) order
    docs = frame["docid"].unique()
    docs = docs.gather(docs.cast(pl.String).arg_sort())
    n_docs = len(docs)
    ckey = q * n_docs
    ckey += _index_in(frame["docid"], docs)
    ck, rows, repeat = _sorted_keys(ckey, sys_code, n_runs, n_q * n_docs)
    del ckey
    if repeat:
        _check_rows(frame, systems, finite)  # a document twice in one ranking
    new = np.empty(len(ck), dtype=bool)
    new[:1] = True
    np.not_equal(ck[1:], ck[:-1], out=new[1:])
    cand_key = ck[new]
    del ck
    number = np.cumsum(new)
    number -= 1
    cand = np.empty(len(number), dtype=np.int64)
    cand[rows] = number
    del rows, new, number

    seg = sys_code * n_q
    seg += q
    del sys_code, q
    order = ranking_order(frame.select("docid"), None, seg, score, rank, ties)
    if order is not None:
        seg, cand, score = seg[order], cand[order], score[order]
    offsets, pos = _positions(seg, n_runs * n_q)
    boundary = score_boundaries(score) if ties == "average" else None
    gid, g_first = _groups(seg, boundary)
    return Stack(names=list(names), qids=qids, docs=docs, cand_q=cand_key // max(n_docs, 1),
                 cand_d=cand_key % max(n_docs, 1), seg=seg, cand=cand, score=score,
                 pos=pos, offsets=offsets, gid=gid, ties=ties,
                 singleton_groups=g_first is None or len(g_first) == len(seg),
                 qid_name=src.qid_name, docid_name=src.docid_name)


def fused_frame(st: Stack, fused: np.ndarray, depth: int | None,
                queries: np.ndarray | None = None) -> pl.DataFrame:
    """The fused run as a Polars frame (qid, docid, score, rank): every candidate, per query
    by fused score descending, equal scores by docid descending as strings (trec_eval's
    order, so that the rank column and trec_eval agree); ``depth`` keeps the first ones;
    ``queries`` (a mask over the stack's queries) the queries to keep."""
    # candidates are numbered in (query, docid string) order: docid descending is candidate
    # descending, the stable order of the candidates taken backwards
    order = st.n_cand - 1 - segment_order(st.cand_q[::-1], fused[::-1], descending=True)
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
        st.docids(order).alias(st.docid_name),
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
    return numbers.whole_number(depth, "depth", minimum=1)


def check_runs_type(runs) -> None:
    if type(runs).__module__.split(".")[0] == "dask":
        raise InputTypeError("fusion takes pandas or Polars runs, not a Dask frame: compute it "
                             "first (.compute()), or fuse each partition of whole queries")
    if isinstance(runs, (list, tuple)):
        raise InputTypeError("runs must be one frame with a system column (by=) or a mapping "
                             "{name: run}; for a list of runs, name them: "
                             "dict(zip(names, runs))")
