"""One pandas column as a Polars Series, by the cheapest route its layout allows.

The engine hashes and joins Polars columns; how a pandas column becomes one decides much of
a call's cost on millions of rows (``bench/layouts.py`` times each layout):

* NumPy numbers: the same memory, no copy (Polars never writes into it);
* ``category`` ids: only the categories are converted, then gathered by the codes;
* Python strings (``object`` or ``string[python]``): Polars reads the objects in one pass
  (Arrow's conversion scans them twice); a qid column, whose rows come in long runs of one
  qid, has only the first string of each run read (``string_runs``);
* anything else through Arrow (``pl.from_pandas``), whose errors name the column.
"""
from __future__ import annotations

import ctypes
from typing import cast

import numpy as np
import polars as pl

from trunc_accessor.core.keys import _describe_types
from trunc_accessor.errors import InputError

# below this many rows a column is read whole; above it, runs are read when they are long
# enough to pay (at most one change per RUN_ROWS rows), judged first on RUN_SAMPLE rows
RUNS_MIN_ROWS = 4096
RUN_SAMPLE = 1024
RUN_ROWS = 16


def pandas_column_error(sub, label: str, error: Exception) -> InputError:
    """The column of a pandas frame that Arrow cannot convert, and why."""
    for i, c in enumerate(sub.columns):
        try:
            pl.from_pandas(sub.iloc[:, [i]].set_axis(["c"], axis=1), include_index=False)
        except Exception:  # noqa: BLE001 - any conversion failure is reported below
            col = sub.iloc[:, i]
            if col.dtype == object:
                return InputError(
                    f"{label} column {c!r} holds values of several types "
                    f"({_describe_types(col.head(100_000))}): give it one type, e.g. "
                    f"{label}[{c!r}].astype(str)")
            return InputError(f"{label} column {c!r} has an unsupported type {col.dtype}")
    return InputError(f"{label} cannot be converted: {error}")


def pandas_column(column, name: str, key: bool = False) -> pl.Series:
    """One pandas column as a Polars Series (module doc); ``key``: an identifier column (a
    ``category`` one comes as its categories' values, Python strings are read by runs)."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iuf" and column.ndim == 1:
        values = column.to_numpy(copy=False)
        if values.flags.c_contiguous:
            return pl.Series(name, values)
    if key and getattr(dtype, "name", None) == "category":
        return category_column(column, name)
    strings = python_strings(column)
    # led by a string, Polars' strict reading refuses any later value that is not a string
    # or None (all bytes it would read as text: those go to Arrow, which keeps them binary)
    if strings is not None and len(strings) and isinstance(strings[0], str):
        try:  # a refusal leaves the column to Arrow's rules (and errors)
            runs = string_runs(strings, name) if key else None
            return runs if runs is not None else pl.Series(name, strings, dtype=pl.String)
        except Exception:  # noqa: BLE001, S110 - Polars raises several kinds; Arrow decides
            pass
    return cast(pl.Series, pl.from_pandas(column)).alias(name)


def python_strings(column) -> np.ndarray | None:
    """The Python objects of an ``object`` or ``string[python]`` column (no copy)."""
    dtype = column.dtype
    if dtype == object:  # noqa: E721 - a dtype equals object
        return column.to_numpy(copy=False)
    if getattr(dtype, "storage", None) == "python" and getattr(dtype, "name", "") in (
            "string", "str"):
        # its own objects, no copy (a missing value, pd.NA or NaN, refuses: Arrow decides)
        return np.asarray(column.array, dtype=object)
    return None


def string_runs(strings: np.ndarray, name: str) -> pl.Series | None:
    """Python strings (the first one a ``str``) that come in long runs of one value (a
    run's qids: one run per ranking) as Polars strings, reading only the first string of
    each run and repeating it by gathering. 10M qids: 0.03 s against 0.2 s for reading
    every object when equal strings are one object (as pandas' readers give them), about
    two thirds of it when every row is an object of its own (``_changes``;
    ``bench/id_conversion.py``). None when the runs are short (a docid column), judged
    from the first rows. Rows are in one run only when they compare equal (``!=`` of
    neighbours), so every row gets its own value; a value that is not a string starts a
    run of its own and is read (and refused) as it would be alone."""
    n = len(strings)
    if n < RUNS_MIN_ROWS:
        return None
    head = strings[:RUN_SAMPLE]
    if np.count_nonzero(np.not_equal(head[1:], head[:-1])) * RUN_ROWS > len(head):
        return None
    starts = _changes(strings)
    if starts is None or RUN_ROWS * len(starts) > n:
        return None
    starts = np.concatenate(([0], starts + 1))
    values = pl.Series(name, strings[starts], dtype=pl.String)
    lengths = np.diff(np.append(starts, n))
    return values.gather(pl.Series(np.repeat(np.arange(len(starts), dtype=np.uint32), lengths)))


def _changes(strings: np.ndarray) -> np.ndarray | None:
    """The rows i whose value differs from row i + 1 (None: an object whose ``!=`` is not
    a bool). Neighbours that are one object (the same address) are equal without a look:
    pandas' readers (``read_csv``, ``read_parquet``) give equal strings one object, so
    only the rows where the object changes are compared."""
    strings = np.ascontiguousarray(strings)
    # the objects' addresses, read in place (valid while `strings` lives)
    addresses = np.ctypeslib.as_array(
        (ctypes.c_size_t * len(strings)).from_address(strings.ctypes.data))
    moved = np.flatnonzero(addresses[1:] != addresses[:-1])
    if 2 * len(moved) > len(strings):  # mostly one object per row: compare all neighbours
        change = np.not_equal(strings[1:], strings[:-1])
        return np.flatnonzero(change) if change.dtype == np.bool_ else None
    change = np.not_equal(strings[moved + 1], strings[moved])
    return moved[change] if change.dtype == np.bool_ else None


def category_column(column, name: str) -> pl.Series:
    """A pandas ``category`` id column as its categories' values (strings or integers, as
    ``pl.from_pandas`` gives them) gathered by its codes, a missing value (code -1) as
    null: only the distinct values are converted, and no Polars ``Categorical`` is built
    (the engine compares ids as strings or integers, never as categories)."""
    import pandas as pd

    categories = column.cat.categories
    if not len(categories):  # no value at all: typed as Arrow types it (e.g. Null)
        return cast(pl.Series, pl.from_pandas(column)).alias(name)
    values = pandas_column(pd.Series(categories), name)
    codes = column.cat.codes.to_numpy()
    index = pl.Series(name, codes, dtype=pl.Int64)
    if len(codes) and codes.min() < 0:
        index = index.to_frame().select(pl.when(pl.col(name) >= 0).then(pl.col(name)))[name]
    return values.gather(index)
