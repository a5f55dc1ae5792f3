"""Agreement between rankings: of systems (Kendall's τ, τ_AP) and of documents (RBO).

System orderings (score vectors, higher = better, or pandas Series indexed by system):

* ``kendall_tau``: Kendall's τ-b, equal to ``scipy.stats.kendalltau``.
* ``tau_ap``: the AP rank correlation τ_AP of Yilmaz, Aslam & Robertson, "A new rank
  correlation coefficient for information retrieval", SIGIR 2008 (asymmetric: ``a`` is
  the truth, errors near the top of ``b`` cost more), or its symmetric average.
* ``metric_agreement``: both, for every ordered pair of metrics of a systems × metrics
  table of means.

Document rankings (two runs, per query):

* ``rbo``: rank-biased overlap of Webber, Moffat & Zobel, "A similarity measure for
  indefinite rankings", ACM TOIS 28(4), 2010: the lower bound RBO_min (eq. 11), the
  extrapolated point estimate RBO_ext (eq. 32, uneven lengths as in §4.3) and the
  residual RBO_res (eq. 13 and its uneven form), so RBO lies in [min, min + res].
* ``overlap``: |top-k ∩ top-k| / k.

Everything is vectorised with NumPy: τ and τ_AP use O(n²) pair matrices (n = number of
systems); RBO uses one bincount/cumsum pass over the depths of all queries together.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.core.columns import is_pandas, resolve_run_columns
from trunc_accessor.core.frames import to_polars
from trunc_accessor.core.keys import _key_kind
from trunc_accessor.errors import InputError, InputTypeError
from trunc_accessor.metrics.params import check_p

__all__ = ["kendall_tau", "metric_agreement", "overlap", "rbo", "tau_ap"]

TIES = ("average", "nan")


# --------------------------------------------------------------------------- system orderings
def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Two score vectors as aligned float64 arrays (Series are aligned on their index)."""
    if is_pandas(a, "Series") and is_pandas(b, "Series"):
        if not a.index.is_unique or not b.index.is_unique:
            raise InputError("a and b must not repeat a system in their index")
        if set(a.index) != set(b.index):
            raise InputError("a and b must score the same systems; only in a: "
                             f"{sorted(map(str, set(a.index) - set(b.index)))[:5]}, only in "
                             f"b: {sorted(map(str, set(b.index) - set(a.index)))[:5]}")
        b = b.reindex(a.index)
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1 or len(x) != len(y):
        raise InputError(f"a and b must be 1-d with the same length, not {x.shape} and {y.shape}")
    return x, y


def _sign_matrix(x: np.ndarray) -> np.ndarray:
    """sign(x_i - x_j) for every pair, as int8."""
    return np.sign(x[:, None] - x[None, :]).astype(np.int8)


def kendall_tau(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Kendall's τ-b between two score vectors (as ``scipy.stats.kendalltau``).

    τ-b = (concordant − discordant) / √((n₀ − n₁)(n₀ − n₂)) with n₀ = n(n−1)/2 and n₁, n₂
    the pairs tied in ``a`` and in ``b``. NaN with a NaN score, fewer than two systems or a
    constant vector. Pandas Series are aligned on their index.

    >>> round(kendall_tau([3, 2, 1], [3, 1, 2]), 6)
    0.333333
    >>> round(kendall_tau([1, 1, 2], [1, 2, 3]), 6)
    0.816497
    """
    x, y = _pair(a, b)
    n = len(x)
    if n < 2 or np.isnan(x).any() or np.isnan(y).any():
        return float("nan")
    sx, sy = _sign_matrix(x), _sign_matrix(y)
    iu = np.triu_indices(n, 1)
    sx, sy = sx[iu], sy[iu]
    s = int(np.dot(sx.astype(np.int64), sy.astype(np.int64)))
    n0 = n * (n - 1) // 2
    tx, ty = n0 - int(np.count_nonzero(sx == 0)), n0 - int(np.count_nonzero(sy == 0))
    if tx == 0 or ty == 0:
        return float("nan")
    return float(s / np.sqrt(tx) / np.sqrt(ty))


def _harmonic(n: int) -> np.ndarray:
    """harm[m] = 1 + 1/2 + … + 1/m for m = 0..n (harm[0] = 0)."""
    h = np.zeros(n + 1)
    np.cumsum(1.0 / np.arange(1, n + 1), out=h[1:])
    return h


def _tau_ap(x: np.ndarray, y: np.ndarray, ties: str) -> float:
    """τ_AP with truth x and evaluated ordering y (both float arrays, same length)."""
    n = len(x)
    if n < 2 or np.isnan(x).any() or np.isnan(y).any():
        return float("nan")
    sx, sy = _sign_matrix(x), _sign_matrix(y)
    off = ~np.eye(n, dtype=bool)
    if ties == "nan" and ((sx == 0) & off).any() | ((sy == 0) & off).any():
        return float("nan")
    # correct[j, i]: j above i is the truth's order (½ if the truth ties them)
    correct = (sx == 1) + 0.5 * ((sx == 0) & off)
    # positions in y: item i sits uniformly in [s+1, s+g] (s items strictly above, g tied)
    s = np.count_nonzero(sy.T == 1, axis=1)          # #(y_j > y_i)
    g = np.count_nonzero(sy == 0, axis=1)            # #(y_j == y_i), i included
    harm = _harmonic(n)
    inv = harm[s + g - 1] - harm[np.maximum(s - 1, 0)]   # Σ 1/m over m = s..s+g-1, m ≥ 1
    above = inv / g                                      # E[1/(pos_i − 1)]
    with np.errstate(divide="ignore", invalid="ignore"):
        same = np.where(g > 1, ((g - 1) - s * (harm[s + g - 1] - harm[s])) / (g * (g - 1)),
                        0.0)                             # E[[j above i]/(pos_i − 1)], j tied
    c_above = np.sum(correct * (sy == 1), axis=0)        # Σ_j over y_j > y_i
    c_same = np.sum(correct * ((sy == 0) & off), axis=0)
    total = float(np.dot(above, c_above) + np.dot(same, c_same))
    return 2.0 * total / (n - 1) - 1.0


def tau_ap(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, *,
           symmetric: bool = False, ties: str = "average") -> float:
    """AP rank correlation τ_AP (Yilmaz, Aslam & Robertson, SIGIR 2008, eq. 2).

    τ_AP(a, b) = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1, where i runs over the positions of
    the ordering by ``b`` (score descending) and C(i) counts the systems above position i
    that ``a``, the truth, also puts above it. Swaps near the top of ``b`` cost more than
    swaps near the bottom; it is asymmetric. ``symmetric=True`` returns
    (τ_AP(a, b) + τ_AP(b, a)) / 2.

    Ties: τ_AP is defined for strict orders. ``ties="average"`` (default) returns its
    exact expectation when the ties of ``a`` and of ``b`` are broken independently and
    uniformly at random (equal to plain τ_AP when there are no ties; this is not Urbano &
    Marrero's τ_AP,a/τ_AP,b). ``ties="nan"`` returns NaN if either vector has a tie.
    NaN with a NaN score or fewer than two systems. Pandas Series are aligned on their
    index.

    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 6)   # swap at the top
    0.333333
    >>> round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 6)   # swap at the bottom
    0.777778
    >>> tau_ap([2, 1, 1], [3, 2, 1], ties="nan")
    nan
    """
    if ties not in TIES:
        raise InputError(f"ties must be one of {TIES}, not {ties!r}")
    x, y = _pair(a, b)
    if symmetric:
        return (_tau_ap(x, y, ties) + _tau_ap(y, x, ties)) / 2.0
    return _tau_ap(x, y, ties)


def _wide_means(frame):
    """An ``experiment`` table (long: system, metric, mean, …) as systems × metrics means;
    anything else unchanged."""
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    polars_in = isinstance(frame, pl.DataFrame)
    columns = frame.columns
    if "metric" not in columns or "mean" not in columns:
        return frame
    table = frame.to_pandas() if polars_in else frame
    by = (table.attrs.get("by") if table.attrs.get("by") in table.columns
          else next(c for c in table.columns if c not in ("metric", "mean")))
    wide = table.pivot(index=by, columns="metric", values="mean")
    wide = wide[list(dict.fromkeys(table["metric"]))]
    wide.columns.name = None
    return pl.from_pandas(wide.reset_index()) if polars_in else wide


def metric_agreement(system_means: Frame, *, ties: str = "average") -> Result:
    """Kendall's τ-b and τ_AP between the system orderings of every ordered pair of metrics.

    ``system_means`` has one row per system and one column per metric (pandas: every
    column is a metric, the index names the systems; Polars: every numeric column is a
    metric, other columns are ignored), or is the table ``trunc_accessor.experiment``
    returns (its ``mean`` column per system and metric). Returns a long frame of the caller's
    library with columns ``metric_a, metric_b, kendall_tau, tau_ap, tau_ap_symmetric`` for every
    ordered pair a ≠ b (τ_AP takes ``metric_a`` as the truth, so both orders are listed).
    Each pair uses the systems where both means are defined (not NaN/null).

    >>> import pandas as pd
    >>> means = pd.DataFrame({"ap": [.3, .2, .1], "p10": [.5, .2, .4]}, index=["x", "y", "z"])
    >>> metric_agreement(means).round(4)
      metric_a metric_b  kendall_tau  tau_ap  tau_ap_symmetric
    0       ap      p10       0.3333     0.5               0.5
    1      p10       ap       0.3333     0.5               0.5
    """
    if ties not in TIES:
        raise InputError(f"ties must be one of {TIES}, not {ties!r}")
    system_means = _wide_means(system_means)
    pandas_in = is_pandas(system_means)
    if pandas_in:
        names = [str(c) for c in system_means.columns]
        try:
            values = system_means.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as e:
            raise InputError(f"system_means must hold numbers only ({e})") from None
    elif isinstance(system_means, (pl.DataFrame, pl.LazyFrame)):
        frame = system_means.collect() if isinstance(system_means, pl.LazyFrame) else system_means
        names = [c for c, t in frame.schema.items() if t.is_numeric()]
        values = (frame.select(pl.col(names).cast(pl.Float64).fill_null(np.nan)).to_numpy()
                  if names else np.zeros((frame.height, 0)))
    else:
        raise InputTypeError("system_means must be a pandas or Polars DataFrame, not "
                             f"{type(system_means).__name__}")
    rows: dict[str, list] = {k: [] for k in ("metric_a", "metric_b", "kendall_tau", "tau_ap",
                                             "tau_ap_symmetric")}
    for i, ma in enumerate(names):
        for j, mb in enumerate(names):
            if i == j:
                continue
            x, y = values[:, i], values[:, j]
            ok = ~(np.isnan(x) | np.isnan(y))
            x, y = x[ok], y[ok]
            forward, backward = _tau_ap(x, y, ties), _tau_ap(y, x, ties)
            rows["metric_a"].append(ma)
            rows["metric_b"].append(mb)
            rows["kendall_tau"].append(kendall_tau(x, y))
            rows["tau_ap"].append(forward)
            rows["tau_ap_symmetric"].append((forward + backward) / 2.0)
    if pandas_in:
        import pandas as pd
        return pd.DataFrame({k: pd.Series(v, dtype=object if k.startswith("metric") else
                                          np.float64) for k, v in rows.items()})
    return pl.DataFrame(rows, schema={"metric_a": pl.String, "metric_b": pl.String,
                                      "kendall_tau": pl.Float64, "tau_ap": pl.Float64,
                                      "tau_ap_symmetric": pl.Float64}).fill_nan(None)


# --------------------------------------------------------------------------- document rankings
def _ranked(run, label: str):
    """(frame qid, docid, pos [1-based]) in the library's order, and the qid column name."""
    cols = resolve_run_columns(run, None)
    frame = to_polars(run, [cols.qid, cols.docid, "score"] + (["rank"] if cols.has_rank else []),
                      label)
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
