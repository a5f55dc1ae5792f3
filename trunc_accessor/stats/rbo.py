"""Agreement of two document rankings, per query: rank-biased overlap and top-k overlap.

* ``rbo``: rank-biased overlap of Webber, Moffat & Zobel, "A similarity measure for
  indefinite rankings", ACM TOIS 28(4), 2010: the lower bound RBO_min (eq. 11), the
  extrapolated point estimate RBO_ext (eq. 32, uneven lengths as in §4.3) and the
  residual RBO_res (eq. 13 and its uneven form), so RBO lies in [min, min + res].
* ``overlap``: |top-k ∩ top-k| / k.

Both are vectorised: one bincount/cumsum pass over the depths of all queries together.
``trunc_accessor.stats.agreement`` (``ta.agreement``) offers them beside the rank
correlations of systems.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.core.columns import is_pandas, resolve_run_columns
from trunc_accessor.core.frames import to_polars
from trunc_accessor.core.keys import _key_kind
from trunc_accessor.errors import InputError
from trunc_accessor.metrics.params import check_p

__all__ = ["overlap", "rbo"]


def _ranked(run, label: str):
    """(frame qid, docid, pos [1-based]) in the library's order, and the qid column name."""
    cols = resolve_run_columns(run, None)
    frame = to_polars(run, [cols.qid, cols.docid, "score"] + (["rank"] if cols.has_rank else []),
                      label, keys=(cols.qid, cols.docid))
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    for c in (cols.qid, cols.docid):  # ids as the evaluation takes them, none missing
        _key_kind(frame.schema[c], f"{label} column {c!r}")
        if frame[c].null_count():
            raise InputError(f"{label} column {c!r} has a missing value (row "
                             f"{frame[c].is_null().arg_max()})")
    frame = frame.rename({cols.qid: "qid", cols.docid: "docid"})
    key = "rank" if cols.has_rank else "score"
    if not frame.schema[key].is_numeric():
        raise InputError(f"{label} column {key!r} must be numeric, not {frame.schema[key]}")
    if frame[key].null_count() or frame[key].cast(pl.Float64).is_nan().any():
        raise InputError(f"{label} column {key!r} has missing values")
    # stable sort: equal scores (or ranks) keep their input order
    frame = frame.sort(["qid", key], descending=[False, not cols.has_rank], maintain_order=True)
    frame = frame.with_columns((pl.int_range(pl.len(), dtype=pl.Int64).over("qid") + 1)
                               .alias("pos")).select("qid", "docid", "pos")
    if frame.select(pl.struct("qid", "docid").is_duplicated().any()).item():
        raise InputError(f"{label} ranks a document twice for one query: RBO needs rankings "
                         "without repeats")
    return frame, cols.qid


def _align_ids(r: pl.DataFrame, o: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Same dtype for qid and docid in both frames (strings unless they already agree)."""
    for c in ("qid", "docid"):
        if r.schema[c] != o.schema[c]:
            r, o = (r.with_columns(pl.col(c).cast(pl.String)),
                    o.with_columns(pl.col(c).cast(pl.String)))
    return r, o


def _joined(run, other, depth):
    """Both rankings, the sorted union of qids, lengths per query and the positions
    (code, pos_run, pos_other) of every document the two share."""
    r, qname = _ranked(run, "run")
    o, _ = _ranked(other, "other")
    r, o = _align_ids(r, o)
    if depth is not None:
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
            raise InputError(f"depth must be a whole number ≥ 1 or None, not {depth!r}")
        r, o = r.filter(pl.col("pos") <= depth), o.filter(pl.col("pos") <= depth)
    qids = pl.concat([r.select("qid"), o.select("qid")]).unique().sort("qid") \
        .with_row_index("_q")
    r = r.join(qids, on="qid", how="left")
    o = o.join(qids, on="qid", how="left")
    n_q = qids.height
    len_r = np.bincount(r["_q"].to_numpy().astype(np.int64), minlength=n_q)
    len_o = np.bincount(o["_q"].to_numpy().astype(np.int64), minlength=n_q)
    both = r.join(o.select("qid", "docid", pl.col("pos").alias("pos_o")), on=["qid", "docid"],
                  how="inner")
    code = both["_q"].to_numpy().astype(np.int64)
    deepest = np.maximum(both["pos"].to_numpy(), both["pos_o"].to_numpy()).astype(np.int64)
    return qids.select("qid"), qname, len_r, len_o, code, deepest


def _result(run, keys: pl.DataFrame, qname: str, values: dict):
    """Per-query columns in the caller's library (pandas: indexed by qid)."""
    if is_pandas(run):
        import pandas as pd
        index = pd.Index(keys["qid"].to_list(), name=qname)
        return pd.DataFrame({k: np.asarray(v, dtype=np.float64) for k, v in values.items()},
                            index=index)
    return keys.rename({"qid": qname}).with_columns(
        [pl.Series(k, v, dtype=pl.Float64).fill_nan(None) for k, v in values.items()])


def rbo(run: Frame, other: Frame, p: float = 0.9, depth: int | None = None) -> Result:
    """Rank-biased overlap per query (Webber, Moffat & Zobel, TOIS 2010).

    ``run`` and ``other`` are long frames (qid, docid, score[, rank]; pandas or Polars);
    each query's documents are ordered as everywhere in the library: by ``rank``
    ascending if the frame has a ``rank`` column, else by ``score`` descending, equal
    values keeping their input order. ``depth`` keeps the top ``depth`` of each ranking.
    With X_d = |S_{:d} ∩ L_{:d}| the overlap at depth d, s ≤ l the two lengths (for
    d > s the short ranking is all of S) and f = s + l − X_l:

    * ``rbo_min`` (eq. 11, to depth l): (1−p)/p · (Σ_{d≤l} (X_d − X_l) p^d/d − X_l ln(1−p)),
      the value if no further document were ever shared;
    * ``rbo_ext`` (eq. 32; eq. 30 when s = l): (1−p)/p · (Σ_{d≤l} X_d p^d/d +
      Σ_{s<d≤l} X_s (d−s) p^d/(s·d)) + ((X_l − X_s)/l + X_s/s) p^l, which assumes the
      short ranking goes on agreeing at its observed rate X_s/s; NaN if a ranking is empty;
    * ``residual`` (eq. 13, uneven form of §4.3): p^s + p^l − p^f − (1−p)/p ·
      (s Σ_{s<d≤f} p^d/d + l Σ_{l<d≤f} p^d/d + X_l (−ln(1−p) − Σ_{d≤f} p^d/d)), so that
      RBO ∈ [rbo_min, rbo_min + residual] however the rankings continue.

    Returns one row per query in either run (a query missing from one run has rbo_min 0,
    residual 1): pandas in → DataFrame indexed by qid, Polars in → Polars frame.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> b = pd.DataFrame({"qid": 1, "docid": list("bacd"), "score": [4, 3, 2, 1]})
    >>> rbo(a, a, p=0.9).round(4)  # doctest: +NORMALIZE_WHITESPACE
         rbo_min  rbo_ext  residual
    qid
    1     0.6064      1.0    0.3936
    >>> rbo(a, b, p=0.9).round(4)  # doctest: +NORMALIZE_WHITESPACE
         rbo_min  rbo_ext  residual
    qid
    1     0.5064      0.9    0.3936
    """
    try:
        p = check_p(p)
    except ValueError as e:
        raise InputError(f"rbo: p {e}") from None
    keys, qname, len_r, len_o, code, deepest = _joined(run, other, depth)
    s = np.minimum(len_r, len_o)
    length = np.maximum(len_r, len_o)
    n_q = len(s)
    # X_d for d = 1..l of every query, flattened: a shared document counts from the depth
    # at which both rankings hold it (for d > s, S_{:d} is the whole short ranking)
    starts = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(length, out=starts[1:])
    total = int(starts[-1])
    seg = np.repeat(np.arange(n_q), length)
    d = np.arange(total, dtype=np.int64) - starts[seg] + 1
    counts = np.bincount(starts[code] + deepest - 1, minlength=total)
    run_sum = np.cumsum(counts)
    before = np.concatenate([[0], run_sum])[starts[:-1]]
    x = run_sum - np.repeat(before, length)
    x_l = np.bincount(code, minlength=n_q).astype(np.float64)
    nonempty = s > 0
    x_s = np.zeros(n_q)
    x_s[nonempty] = x[starts[:-1][nonempty] + s[nonempty] - 1]

    w = p ** d.astype(np.float64) / d            # p^d / d
    sum_x = np.bincount(seg, weights=x * w, minlength=n_q)
    beyond = d > s[seg]
    sum_gap = np.bincount(seg[beyond], weights=((d - s[seg]) * w)[beyond], minlength=n_q)

    f = (s + length - x_l).astype(np.int64)
    top = int(f.max()) if n_q else 0
    g = np.zeros(top + 1)                        # g[n] = Σ_{d≤n} p^d/d
    dd = np.arange(1, top + 1, dtype=np.float64)
    np.cumsum(p ** dd / dd, out=g[1:])
    log_tail = -np.log1p(-p)                     # Σ_{d≥1} p^d/d
    c = (1.0 - p) / p
    sf = s.astype(np.float64)
    lf = length.astype(np.float64)

    rbo_min = c * (sum_x + x_l * (log_tail - g[length]))
    with np.errstate(divide="ignore", invalid="ignore"):
        rbo_ext = c * (sum_x + np.where(nonempty, x_s / sf, 0.0) * sum_gap) \
            + ((x_l - x_s) / lf + np.where(nonempty, x_s / sf, 0.0)) * p ** lf
    rbo_ext = np.where(nonempty, rbo_ext, np.nan)
    residual = p ** sf + p ** lf - p ** f.astype(np.float64) - c * (
        sf * (g[f] - g[s]) + lf * (g[f] - g[length]) + x_l * (log_tail - g[f]))
    residual = np.maximum(residual, 0.0)
    return _result(run, keys, qname, {"rbo_min": rbo_min, "rbo_ext": rbo_ext,
                                      "residual": residual})


def overlap(run: Frame, other: Frame, k: int) -> Result:
    """|top-k of run ∩ top-k of other| / k per query (the agreement A_k of RBO; a ranking
    shorter than k still divides by k). Ordering and output as ``rbo``; the column is
    ``overlap@k``.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    >>> b = pd.DataFrame({"qid": 1, "docid": list("cbad"), "score": [4, 3, 2, 1]})
    >>> overlap(a, b, 2)  # doctest: +NORMALIZE_WHITESPACE
         overlap@2
    qid
    1          0.5
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"k must be a whole number ≥ 1, not {k!r}")
    keys, qname, len_r, _len_o, code, _deepest = _joined(run, other, int(k))
    shared = np.bincount(code, minlength=len(len_r)).astype(np.float64)
    return _result(run, keys, qname, {f"overlap@{k}": shared / k})
