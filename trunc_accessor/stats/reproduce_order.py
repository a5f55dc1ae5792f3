"""How closely a reproduced run keeps the original's document orderings, per query: Kendall's
tau union (KTU) and rank-biased overlap (RBO) as Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer &
Soboroff, "How to Measure the Reproducibility of System-oriented IR Experiments", SIGIR 2020
(§3.1) define them and their reference implementation repro_eval 0.5 computes them.

Both rankings are ordered as trec_eval orders a run: by score descending, equal scores by
docid descending (as strings). Everything is vectorised over all queries at once: KTU counts
its discordant pairs by merge levels (log₂ n sorts of every query's pairs together), RBO is
one ``bincount`` over the documents the two rankings share.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.core.columns import resolve_run_columns
from trunc_accessor.core.frames import to_polars
from trunc_accessor.core.keys import _key_kind
from trunc_accessor.core.numbers import whole_number
from trunc_accessor.errors import InputError
from trunc_accessor.metrics.params import check_p
from trunc_accessor.stats.rbo import _align_ids, _result
from trunc_accessor.warn import DroppedQueriesWarning, warn

__all__ = ["order_agreement"]


def _ranking(run, label: str, depth: int):
    """(frame qid, docid [string], pos [1-based] ≤ depth) in trec_eval's order: score
    descending, equal scores by docid descending; and the qid column's name."""
    cols = resolve_run_columns(run, None)
    frame = to_polars(run, [cols.qid, cols.docid, "score"], label, keys=(cols.qid, cols.docid))
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    for c in (cols.qid, cols.docid):
        _key_kind(frame.schema[c], f"{label} column {c!r}")
        if frame[c].null_count():
            raise InputError(f"{label} column {c!r} has a missing value (row "
                             f"{frame[c].is_null().arg_max()})")
    if not frame.schema["score"].is_numeric():
        raise InputError(f"{label} column 'score' must be numeric, not "
                         f"{frame.schema['score']}")
    score = frame["score"].cast(pl.Float64)
    if score.null_count() or score.is_nan().any():
        raise InputError(f"{label} column 'score' has missing values")
    frame = frame.select(pl.col(cols.qid).alias("qid"),
                         pl.col(cols.docid).cast(pl.String).alias("docid"),
                         score.alias("score"))
    if frame.select(pl.struct("qid", "docid").is_duplicated().any()).item():
        raise InputError(f"{label} ranks a document twice for one query: KTU and RBO need "
                         "rankings without repeats")
    frame = frame.sort(["qid", "score", "docid"], descending=[False, True, True])
    frame = frame.with_columns((pl.int_range(pl.len(), dtype=pl.Int64).over("qid") + 1)
                               .alias("pos"))
    return frame.filter(pl.col("pos") <= depth).select("qid", "docid", "pos"), cols.qid


def _discordant(seg: np.ndarray, t: np.ndarray, v: np.ndarray, n_seg: int) -> np.ndarray:
    """Per segment, the number of pairs i < j (by ``t``, 0-based positions within the
    segment) with v_i > v_j: bottom-up merge levels, each counting for every element of a
    block's right half the elements of its left half that are greater (one sort and two
    searches of all segments' elements together)."""
    counts = np.zeros(n_seg)
    if not len(v):
        return counts
    top, m = int(t.max()) + 1, int(v.max()) + 1
    width = 1
    while width < top:
        group = seg * (top // (2 * width) + 1) + t // (2 * width)
        key = group * m + v
        left = (t // width) % 2 == 0
        sorted_left = np.sort(key[left])
        right = ~left
        greater = (np.searchsorted(sorted_left, (group[right] + 1) * m, side="left")
                   - np.searchsorted(sorted_left, key[right], side="right"))
        counts += np.bincount(seg[right], weights=greater, minlength=n_seg)
        width *= 2
    return counts


def _ktu(o: pl.DataFrame, r: pl.DataFrame, n_q: int) -> np.ndarray:
    """KTU per query: both rankings cut to their common length n; each document's index in
    the alphabetically sorted union of the two cut rankings; Kendall's tau between the
    original's indices and the reproduction's, rank by rank (no ties: τ-a = τ-b)."""
    length = (pl.concat([o.group_by("_q").len(), r.group_by("_q").len()])
              .group_by("_q").agg(pl.col("len").min().alias("n"),
                                  pl.col("len").count().alias("both")))
    length = length.filter(pl.col("both") == 2).select("_q", "n")
    o = o.join(length, on="_q").filter(pl.col("pos") <= pl.col("n"))
    r = r.join(length, on="_q").filter(pl.col("pos") <= pl.col("n"))
    union = (pl.concat([o.select("_q", "docid"), r.select("_q", "docid")]).unique()
             .with_columns((pl.col("docid").rank("dense").over("_q") - 1).cast(pl.Int64)
                           .alias("u")))
    x = o.join(union, on=["_q", "docid"]).select("_q", "pos", pl.col("u").alias("x"))
    y = r.join(union, on=["_q", "docid"]).select("_q", "pos", pl.col("u").alias("y"))
    pairs = x.join(y, on=["_q", "pos"]).sort("_q", "x").with_columns(
        pl.int_range(pl.len(), dtype=pl.Int64).over("_q").alias("t"))
    seg = pairs["_q"].to_numpy().astype(np.int64)
    dis = _discordant(seg, pairs["t"].to_numpy(), pairs["y"].to_numpy().astype(np.int64), n_q)
    n = np.zeros(n_q)
    n[length["_q"].to_numpy()] = length["n"].to_numpy()
    total = n * (n - 1) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n >= 2, (total - 2 * dis) / total, np.nan)


def _rbo(o: pl.DataFrame, r: pl.DataFrame, n_q: int, p: float, depth: int) -> np.ndarray:
    """RBO truncated at ``depth`` and normalised by its weights, as Clarke, Vtyurina &
    Smucker's compatibility code and repro_eval compute it: Σ_{d≤D} p^{d−1} X_d/d ÷
    Σ_{d≤D} p^{d−1}, X_d the overlap of the two top-d sets (a ranking shorter than d counts
    as a whole). A shared document counts from the depth at which both rankings hold it."""
    both = o.join(r.select("_q", "docid", pl.col("pos").alias("pos_r")), on=["_q", "docid"])
    deepest = np.maximum(both["pos"].to_numpy(), both["pos_r"].to_numpy()).astype(np.int64)
    d = np.arange(1, depth + 1, dtype=np.float64)
    weight = p ** (d - 1)
    g = np.concatenate([[0.0], np.cumsum(weight / d)])    # g[n] = Σ_{d≤n} p^{d−1}/d
    score = np.bincount(both["_q"].to_numpy().astype(np.int64),
                        weights=g[depth] - g[deepest - 1], minlength=n_q)
    return score / weight.sum()


def order_agreement(original: Frame, reproduced: Frame, *, depth: int = 1000,
                    p: float = 0.95) -> Result:
    """Kendall's tau union and rank-biased overlap of a reproduced run with the original,
    per query of the original (Breuer et al., SIGIR 2020, §3.1; repro_eval's KTU and RBO).

    Parameters
    ----------
    original, reproduced
        Run frames (qid, docid, score; pandas or Polars). Each query's documents are ordered
        as trec_eval orders them: score descending, equal scores by docid descending (as
        strings), which is repro_eval's order for a run file sorted by score.
    depth
        The top ``depth`` documents of each ranking are compared (repro_eval: 1000).
    p
        RBO's persistence, in (0, 1) (repro_eval: 0.95).

    Returns
    -------
    DataFrame
        One row per query of ``original``, columns ``ktu`` and ``rbo`` (pandas in: indexed
        by qid; Polars in: a qid column first).

        * ``ktu``: both rankings cut to the length of the shorter (repro_eval raises when
          the lengths differ); each document is given its index in the sorted union of the
          two cut rankings, and KTU is Kendall's τ between the original's indices and the
          reproduction's, rank by rank: (C − D) / (n(n − 1)/2) over the n ranks' pairs.
          NaN when n < 2 (repro_eval too).
        * ``rbo``: RBO truncated at depth D and normalised by its weights (Clarke, Vtyurina
          & Smucker, "Assessing top-k preferences", ACM TOIS 39(3), 2021):
          Σ_{d≤D} p^{d−1} X_d/d ÷ Σ_{d≤D} p^{d−1}, X_d = |top-d of one ∩ top-d of the
          other|; 1 for identical rankings at least D long. This differs from the
          extrapolated RBO of Webber et al. that ``trunc_accessor.agreement.rbo`` gives.

        A query the reproduction lacks has ``rbo`` 0 and ``ktu`` NaN, and a
        ``DroppedQueriesWarning`` says how many (repro_eval leaves such queries out of its
        mean, and stops on a query that only the reproduction has: here such a query is
        left out). Means are for the caller to take (``reproducibility`` takes them over
        the defined values).

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": "1", "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> b = pd.DataFrame({"qid": "1", "docid": list("bacd"), "score": [4, 3, 2, 1]})
    >>> order_agreement(a, b, depth=4, p=0.9).round(4)  # doctest: +NORMALIZE_WHITESPACE
            ktu     rbo
    qid
    1    0.6667  0.7092
    """
    depth = whole_number(depth, "depth", minimum=1)
    try:
        p = check_p(p)
    except ValueError as e:
        raise InputError(f"order_agreement: p {e}") from None
    o, qname = _ranking(original, "original", depth)
    r, _ = _ranking(reproduced, "reproduced", depth)
    o, r = _align_ids(o, r)
    qids = o.select("qid").unique().sort("qid").with_row_index("_q")
    o = o.join(qids, on="qid")
    r = r.join(qids, on="qid")  # queries only the reproduction has are left out
    n_q = qids.height
    lacking = n_q - r["_q"].n_unique()
    if lacking:
        warn(f"order_agreement: the reproduced run lacks {lacking} of the original's {n_q} "
             "queries; their rbo is 0 and their ktu undefined (NaN)", DroppedQueriesWarning)
    o, r = o.with_columns(pl.col("_q").cast(pl.Int64)), r.with_columns(pl.col("_q").cast(pl.Int64))
    values = {"ktu": _ktu(o, r, n_q), "rbo": _rbo(o, r, n_q, p, depth)}
    return _result(original, qids.select("qid"), qname, values)
