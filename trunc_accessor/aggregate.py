"""System scores from per-query values."""
from __future__ import annotations

import polars as pl

from .frames import InputError, InputTypeError, is_pandas, normalise_by
from .registry import ParameterError


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
        exprs = [(pl.col(c).fill_null(0.0) if undefined == "zero" else pl.col(c)).mean()
                 for c in metric_cols]
        return values.group_by(by, maintain_order=True).agg(exprs).sort(by) if by else values.select(exprs)
    if not (is_pandas(values) or is_pandas(values, "Series")):
        raise InputTypeError("aggregate takes the per-query values of an accessor call (a "
                             "pandas Series/DataFrame or a Polars DataFrame), not "
                             f"{type(values).__name__}")
    missing = [b for b in by if b not in values.index.names]
    if missing:
        raise InputError(f"aggregate: by= names index level(s) {missing}, which the values do "
                         f"not have; their index levels are {list(values.index.names)}")
    v = values.fillna(0.0) if undefined == "zero" else values
    if by:
        return v.groupby(level=by, dropna=False).mean()
    return v.mean()
