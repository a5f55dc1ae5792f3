"""Subtopic (intent, aspect) judgments prepared for the diversity kernels.

Diversity qrels judge a document once per subtopic of its query: ``qid, subtopic, docid,
rel`` (TREC's diversity files put the subtopic in the second field). Preparation keeps,
beside the ad hoc arrays of ``Prepared`` (where a
document's grade is its largest over the subtopics), an ``Aspects``:

* the *pairs*: every (retrieved row, subtopic) whose judgment is positive, in ranking
  order, each with its grade (kernels keep those ≥ the relevance level);
* the *judged pairs* of each query (from the qrels alone, retrieved or not), for the number
  of relevant documents per subtopic, the subtopics a query has, and the greedy ideal
  ranking of the normalised measures, whose ties ndeval breaks by docno, largest first.

Subtopics are numbered per call by a global code (one per (qid, subtopic)); grades ≤ 0
(not relevant, and −2 for spam) are no pairs at all, as in ndeval, which reads only
positive judgments as relevant.

The diversity qrels' own columns are read here too: ``subtopic_column`` (subtopic ids,
held as qids are) and ``check_weights`` (a weight per subtopic).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import polars as pl

from trunc_accessor.core.keys import _where
from trunc_accessor.errors import InputError


@dataclass(eq=False)
class Aspects:
    """Pairs of retrieved rows and subtopics, and the judged pairs of every query.

    Retrieved pairs (sorted by row): ``row`` (a row of the preparation), ``code`` (global
    subtopic code), ``rel`` (grade > 0). Subtopic codes: ``code_q`` (the scored qid index of
    each code). Judged pairs (sorted by qid, then by docid descending as strings):
    ``j_code``, ``j_doc`` (a document number within its qid, 0 = largest docid), ``j_rel``.
    ``several``: some qid has judgments for two or more subtopics. ``code_w``: each
    subtopic's weight as given (a ``weight`` column), or None (uniform)."""

    row: np.ndarray
    code: np.ndarray
    rel: np.ndarray
    code_q: np.ndarray
    j_code: np.ndarray
    j_doc: np.ndarray
    j_rel: np.ndarray
    several: bool
    code_w: np.ndarray | None = None

    @property
    def n_codes(self) -> int:
        return len(self.code_q)

    def remap(self, src: np.ndarray, n_rows: int) -> Aspects:
        """The pairs of a preparation whose row r is row ``src[r]`` of this one (``n_rows``:
        this one's row count), e.g. the prefixes of ``Prepared.prefixes``."""
        count = np.bincount(self.row, minlength=n_rows)[src]
        first = np.searchsorted(self.row, src)
        rows = np.repeat(np.arange(len(src)), count)
        starts = np.zeros(len(src) + 1, dtype=np.int64)
        np.cumsum(count, out=starts[1:])
        pair = np.repeat(first, count) + (np.arange(starts[-1]) - starts[rows])
        return Aspects(row=rows, code=self.code[pair], rel=self.rel[pair], code_q=self.code_q,
                       j_code=self.j_code, j_doc=self.j_doc, j_rel=self.j_rel,
                       several=self.several, code_w=self.code_w)


def judged_pairs(subtopics: pl.DataFrame, scored: pl.DataFrame
                 ) -> tuple[pl.DataFrame, np.ndarray, bool, np.ndarray | None]:
    """The positive judgments of diversity qrels with their scored qid index ``_q``, global
    subtopic ``code`` and per-qid document number ``doc`` (0 = the largest docid as a
    string, ndeval's tie order), sorted by (``_q``, ``doc``); ``code_q``; whether a qid
    has judgments for several subtopics; and each code's weight (None without a ``weight``
    column)."""
    several = (subtopics.group_by("qid").agg(pl.col("subtopic").n_unique().alias("n"))
               .select(pl.col("n").max()).item())
    pos = (subtopics.filter(pl.col("rel") > 0)
           .join(scored, on="qid", how="inner")
           .with_columns(pl.col("docid").cast(pl.String).alias("_doc")))
    codes = (pos.select("_q", "subtopic").unique()
             .sort("_q", "subtopic").with_row_index("code"))
    pos = pos.join(codes, on=["_q", "subtopic"], how="left")
    docs = (pos.select("_q", "_doc").unique()
            .sort(["_q", "_doc"], descending=[False, True])
            .with_columns(pl.int_range(pl.len()).over("_q").alias("doc")))
    pos = pos.join(docs, on=["_q", "_doc"], how="left").sort("_q", "doc", "code")
    code_q = codes["_q"].to_numpy().astype(np.int64, copy=False)
    code_w = None
    if "weight" in subtopics.columns:
        code_w = (codes.join(pos.select("code", "weight").unique("code"), on="code", how="left")
                  .sort("code")["weight"].to_numpy().astype(np.float64, copy=False))
    return pos, code_q, bool(several is not None and several > 1), code_w


def build_aspects(pairs: pl.DataFrame, code_q: np.ndarray, several: bool,
                  code_w: np.ndarray | None, hit_rows: np.ndarray, hit_pairs: np.ndarray,
                  prepared_row: np.ndarray | None) -> Aspects:
    """Aspects from the judged ``pairs`` (``judged_pairs``) and the hits of the run on
    them (run row ``hit_rows[i]`` is judged by pair ``hit_pairs[i]``); ``prepared_row`` maps a
    run row to its row in the preparation (-1: not kept; None: the same index)."""
    rows = hit_rows if prepared_row is None else prepared_row[hit_rows]
    kept = rows >= 0
    rows, hit_pairs = rows[kept], hit_pairs[kept]
    code = pairs["code"].to_numpy().astype(np.int64, copy=False)
    rel = pairs["rel"].to_numpy().astype(np.float64, copy=False)
    order = np.lexsort((code[hit_pairs], rows))
    rows, hit_pairs = rows[order], hit_pairs[order]
    return Aspects(row=rows.astype(np.int64, copy=False), code=code[hit_pairs],
                   rel=rel[hit_pairs], code_q=code_q, j_code=code,
                   j_doc=pairs["doc"].to_numpy().astype(np.int64, copy=False), j_rel=rel,
                   several=several, code_w=code_w)


# --------------------------------------------------------------------------- the qrels' columns
def subtopic_column(values: pl.Series, name: str = "subtopic") -> pl.Series:
    """A diversity qrels' subtopic column (named ``name`` in the qrels) as ``subtopic``:
    subtopic ids, held as qids are (integers or strings). Whole numbers become Int64 (they
    then sort as numbers, as ndeval numbers them), or UInt64 where some reach 2^63, or
    their decimal digits beyond; a float column's whole values count as whole numbers (a
    pandas integer column with a missing value is float), its other values as their text;
    NaN is missing. Any other type (lists, booleans, dates, …) is an `InputError`
    naming the column."""
    dtype = values.dtype
    if dtype == pl.Null:
        return values.cast(pl.Int64).alias("subtopic")
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return values.cast(pl.String).alias("subtopic")
    if not (dtype.is_integer() or dtype.is_float()):
        raise InputError(f"qrels column {name!r} must hold subtopic ids (integers or "
                         f"strings), not {dtype}")
    if dtype.is_float():
        values = values.fill_nan(None)
        if values.is_infinite().any():
            raise InputError(f"qrels column {name!r} holds an infinite value "
                             f"({values.filter(values.is_infinite())[0]}): subtopic ids are "
                             "integers or strings")
        whole = values.drop_nulls()
        if not (whole == whole.round()).all():
            return values.cast(pl.String).alias("subtopic")
    present = values.drop_nulls()
    lo, hi = ((int(cast(Any, present.min())), int(cast(Any, present.max())))
              if len(present) else (0, 0))  # whole numbers here: int() is exact
    kind: pl.DataType
    if -2 ** 63 <= lo and hi < 2 ** 63:
        kind = pl.Int64()
    elif lo >= 0 and hi < 2 ** 64:
        kind = pl.UInt64()
    else:  # beyond 64 bits (a float such as 1e30, a 128-bit integer): the value as text
        return values.cast(pl.String).alias("subtopic")
    return values.cast(kind).alias("subtopic")


def check_weights(q: pl.DataFrame) -> None:
    """Subtopic weights: finite, ≥ 0, one per (qid, subtopic), not all 0 over the subtopics
    of a qid that have a relevant document."""
    bad = q["weight"].is_null() | q["weight"].is_nan() | q["weight"].is_infinite() \
        | (q["weight"] < 0)
    if bad.any():
        row = q.filter(bad).row(0, named=True)
        raise InputError(f"qrels column 'weight' must hold finite weights ≥ 0; it holds "
                         f"{row['weight']!r} for {_where(row, ['qid', 'subtopic', 'docid'])}")
    several = (q.group_by("qid", "subtopic").agg(pl.col("weight").n_unique().alias("n"))
               .filter(pl.col("n") > 1))
    if several.height:
        row = several.row(0, named=True)
        raise InputError(f"qrels column 'weight' gives subtopic {row['subtopic']!r} of qid "
                         f"{row['qid']!r} several weights: a subtopic has one weight")
    none = (q.filter(pl.col("rel") > 0).group_by("qid", maintain_order=True)
            .agg(pl.col("weight").max()).filter(pl.col("weight") == 0))
    if none.height:
        raise InputError(f"qrels column 'weight' gives every subtopic of qid "
                         f"{none['qid'][0]!r} with a relevant document weight 0: the measures "
                         "scale a query's weights to sum to its number of subtopics, so at "
                         "least one must be positive")
