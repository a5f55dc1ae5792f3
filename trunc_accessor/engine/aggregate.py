"""System scores from per-query values."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.core.columns import is_pandas, normalise_by
from trunc_accessor.errors import InputError, InputTypeError, ParameterError
from trunc_accessor.metrics.names import GM_EPSILON, summary_of_label


def aggregate(values: Frame, by: str | Sequence[str] | None = None,
              undefined: str = "skip") -> Result:
    """System scores from per-query values returned by the accessor: the mean over queries.

    Parameters
    ----------
    values : pandas Series, pandas DataFrame or Polars DataFrame
        What ``run.ir.<metric>`` or ``run.ir.evaluate`` returned.
    by : str or list of str, optional
        The system key columns passed as ``by=`` when computing (one score per system; a
        missing key is a system of its own).
    undefined : {"skip", "zero"}
        "skip" (default): undefined values (NaN/null, e.g. AP with R = 0) are left out of
        the mean. "zero": they count as 0, which reproduces trec_eval's means (it reports 0
        for such queries and averages them in).

    Notes
    -----
    Columns named as trec_eval summarises them otherwise keep trec_eval's rule: counts
    (``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_q``, ``NumRet``, …) are summed, and
    ``gm_map`` is the geometric mean exp(mean(log(max(AP, 1e-5)))) (trec_eval's epsilon).

    The plain idioms are equivalent for "skip" and means: ``s.mean()`` (pandas, one system),
    ``s.groupby(level="system").mean()`` (pandas, by=), ``df.group_by("system").agg(
    pl.exclude("qid").mean())`` (Polars).
    """
    if not isinstance(undefined, str) or undefined not in ("skip", "zero"):
        raise ParameterError(f"undefined= must be 'skip' or 'zero', not {undefined!r}")
    by = list(normalise_by(by))
    if isinstance(values, pl.LazyFrame):
        values = values.collect()
    if isinstance(values, pl.DataFrame):
        missing = [b for b in by if b not in values.columns]
        if missing:
            raise InputError(f"aggregate: by= names column(s) {missing}, which the values do "
                             f"not have; found {values.columns}")
        metric_cols = [c for c, t in values.schema.items() if c not in by and t == pl.Float64]
        exprs = [_polars_summary(c, undefined) for c in metric_cols]
        if by:
            return values.group_by(by, maintain_order=True).agg(exprs).sort(by)
        return values.select(exprs)
    if not (is_pandas(values) or is_pandas(values, "Series")):
        raise InputTypeError("aggregate takes the per-query values of an accessor call (a "
                             "pandas Series/DataFrame or a Polars DataFrame), not "
                             f"{type(values).__name__}")
    missing = [b for b in by if b not in values.index.names]
    if missing:
        raise InputError(f"aggregate: by= names index level(s) {missing}, which the values do "
                         f"not have; their index levels are {list(values.index.names)}")
    v = values.fillna(0.0) if undefined == "zero" else values
    columns = [v.name] if is_pandas(v, "Series") else list(v.columns)
    special = {c: summary_of_label(str(c)) for c in columns}
    if all(s == "mean" for s in special.values()):
        return v.groupby(level=by, dropna=False).mean() if by else v.mean()
    frame = v.to_frame() if is_pandas(v, "Series") else v
    parts = {}
    for c in columns:
        col = frame[c] if not by else frame[c].groupby(level=by, dropna=False)
        if special[c] == "sum":
            parts[c] = col.sum()
        elif special[c] == "gmean":
            parts[c] = (np.exp(np.log(frame[c].clip(lower=GM_EPSILON)).groupby(
                level=by, dropna=False).mean()) if by
                else float(np.exp(np.log(frame[c].dropna().clip(lower=GM_EPSILON)).mean())))
        else:
            parts[c] = col.mean()
    import pandas as pd

    if by:
        out = pd.DataFrame(parts)
    else:
        out = pd.Series(parts, dtype=np.float64)
    return out[columns[0]] if is_pandas(values, "Series") else out


def _polars_summary(column: str, undefined: str) -> pl.Expr:
    col = pl.col(column).fill_null(0.0) if undefined == "zero" else pl.col(column)
    summary = summary_of_label(column)
    if summary == "sum":
        return col.sum()
    if summary == "gmean":
        return col.clip(lower_bound=GM_EPSILON).log().mean().exp()
    return col.mean()
