"""Numbers the user passes as arguments, checked: a list of real numbers (``number_list``:
grades, scores), a whole number (``whole_number``: cut-offs, folds, batch sizes) and
``truncate``'s k, one depth or per-ranking depths (``depth_argument``). Each error names the
argument and, in a list, the position at fault."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import polars as pl

from trunc_accessor.core.columns import RunColumns, _numeric, is_pandas
from trunc_accessor.errors import InputError, InputTypeError


def number_list(values, name: str, *, missing: bool = False, finite: bool = True) -> np.ndarray:
    """A list (or 1-d array) of real numbers as float64; ``missing``: None/NaN allowed (as
    NaN); ``finite``: ±inf rejected. Errors name the argument and the position at fault."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise InputTypeError(f"{name} must be a list of numbers, not {type(values).__name__}")
    arr = values if isinstance(values, np.ndarray) else None
    if arr is None or arr.dtype.kind not in "iuf" or arr.ndim != 1:
        items = list(values)
        for i, x in enumerate(items):
            if x is None and missing:
                continue
            if isinstance(x, (bool, np.bool_)) or not isinstance(
                    x, (int, float, np.integer, np.floating)):
                what = "a number" + (" or None" if missing else "")
                raise InputError(f"{name}[{i}] must be {what}, not {x!r}")
        arr = np.array([np.nan if x is None else float(x) for x in items], dtype=np.float64)
    arr = arr.astype(np.float64)
    bad = np.zeros(len(arr), dtype=bool) if missing else np.isnan(arr)
    if finite:
        bad |= np.isinf(arr)
    if bad.any():
        i = int(np.argmax(bad))
        allowed = "finite numbers" + (" or None/NaN (unjudged)" if missing else "")
        raise InputError(f"{name}[{i}] is {arr[i]!r}: {name} must hold {allowed}")
    return arr


def whole_number(value, name: str, minimum: int = 0) -> int:
    """A whole number ≥ ``minimum`` (an int, or a float with an integral value), else an
    error naming ``name``."""
    ok = (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))) or (
        isinstance(value, (float, np.floating)) and np.isfinite(value) and value == int(value))
    if not ok or not minimum <= value < 2 ** 63:
        raise InputError(f"{name} must be a whole number ≥ {minimum} (and below 2**63), "
                         f"not {value!r}")
    return int(value)


def depth_argument(depth, cols: RunColumns, run_schema: pl.Schema, column: str):
    """``truncate``'s k: a whole number ≥ 0, or per-ranking depths as a pandas Series indexed
    by qid (or by…, qid) or a Polars frame with those key columns and a ``depth`` column
    (what ``optimal_cutoff`` returns). Returns an int or a Polars frame (keys, ``column``)."""
    keys = [*cols.by, cols.qid]
    if isinstance(depth, (int, float, np.number)):
        return whole_number(depth, "truncate: k")
    if is_pandas(depth):
        frame = pl.from_pandas(depth.reset_index() if depth.index.names != [None] else depth)
    elif is_pandas(depth, "Series"):
        names = list(depth.index.names)
        if names != keys:
            raise InputError(f"truncate: the depths' index must be {keys}, not {names}")
        frame = pl.from_pandas(depth.rename("depth").reset_index())
    elif isinstance(depth, pl.LazyFrame):
        frame = depth.collect()
    elif isinstance(depth, pl.DataFrame):
        frame = depth
    else:
        raise InputTypeError("truncate: k must be a whole number or per-query depths "
                             f"(a Series indexed by {keys}, or a frame with {keys} and 'depth'), "
                             f"not {type(depth).__name__}")
    missing = [c for c in [*keys, "depth"] if c not in frame.columns]
    if missing:
        raise InputError(f"truncate: the per-query depths lack column(s) {missing}")
    if not (_numeric(frame.schema["depth"]) or frame.schema["depth"] == pl.Null):
        raise InputError(f"truncate: the depths must be numbers, not {frame.schema['depth']}")
    try:
        frame = frame.select(
            [pl.col(k).cast(run_schema[k]) for k in keys] + [pl.col("depth").cast(pl.Float64)])
    except Exception:  # noqa: BLE001 - Polars' cast errors vary by version
        raise InputError(f"truncate: the depths' key columns {keys} do not have the run's types "
                         f"{[run_schema[k] for k in keys]}") from None
    bad = frame.filter(pl.col("depth").is_not_null() & ~pl.col("depth").is_nan()
                       & ((pl.col("depth") < 0) | (pl.col("depth") != pl.col("depth").round())
                          | pl.col("depth").is_infinite()))
    if bad.height:
        raise InputError(f"truncate: depth {bad['depth'][0]} for {bad.row(0, named=True)} is "
                         "not a whole number ≥ 0")
    if frame.select(pl.struct(keys).is_duplicated().any()).item():
        raise InputError(f"truncate: the per-query depths name a ranking twice ({keys})")
    return frame.select(*keys, pl.col("depth").fill_nan(None).cast(pl.Int64).alias(column))
