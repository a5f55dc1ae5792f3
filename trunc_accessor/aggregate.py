"""System scores from per-query values."""
from __future__ import annotations

import polars as pl


def aggregate(values, by=None, undefined: str = "skip"):
    """Mean over queries of per-query values returned by the accessor.

    Parameters
    ----------
    values : pandas Series/DataFrame or Polars DataFrame from ``run.ir.<metric>`` or
        ``run.ir.evaluate``.
    by : str or list of str, optional
        The system key columns passed as ``by=`` when computing (one mean per system).
    undefined : {"skip", "zero"}
        "skip" (default): undefined values (NaN/null, e.g. AP with R = 0) are left out of
        the mean, as SPEC §4 says. "zero": they count as 0, which reproduces trec_eval's
        means (it reports 0 for such queries and averages them in).

    The plain idioms are equivalent for "skip": ``s.mean()`` (pandas, one system),
    ``s.groupby(level="system").mean()`` (pandas, by=), ``df.group_by("system").agg(
    pl.exclude("qid").mean())`` (Polars).
    """
    if undefined not in ("skip", "zero"):
        raise ValueError(f"undefined= must be 'skip' or 'zero', not {undefined!r}")
    by = [by] if isinstance(by, str) else list(by or [])
    if isinstance(values, pl.LazyFrame):
        values = values.collect()
    if isinstance(values, pl.DataFrame):
        metric_cols = [c for c, t in values.schema.items() if c not in by and t == pl.Float64]
        exprs = [(pl.col(c).fill_null(0.0) if undefined == "zero" else pl.col(c)).mean()
                 for c in metric_cols]
        return values.group_by(by, maintain_order=True).agg(exprs).sort(by) if by else values.select(exprs)
    v = values.fillna(0.0) if undefined == "zero" else values
    if by:
        return v.groupby(level=by).mean()
    return v.mean()
