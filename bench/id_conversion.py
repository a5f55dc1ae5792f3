"""The building blocks behind the id layouts (issue 31), each timed alone on the benchmark
run's qid and docid columns: ways to turn Python string objects into something the engine
can hash, the duplicate check's sort, and Polars' cast of categorical ids to strings.
These are the measurements BENCHMARKS.md ("Identifier layouts") cites for the choices made
in ``trunc_accessor/core/from_pandas.py`` and ``trunc_accessor/core/joins.py``.

  python bench/id_conversion.py bench-data/large            # best of 3 (slow ones: 1)
"""
from __future__ import annotations

import argparse
import os
import time


def _best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", help="a folder with run.parquet (bash bench/run.sh large makes it)")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()

    import numpy as np
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    from trunc_accessor.core.from_pandas import string_runs

    run = pl.read_parquet(os.path.join(a.data, "run.parquet"), columns=["qid", "docid"])
    n = run.height
    print(f"{n:,} rows; best of {a.repeats} (factorize and hash_array of docids: one call)")
    print("| step | qid (s) | docid (s) |")
    print("|---|---:|---:|")
    objects = {c: run[c].to_pandas().astype(object).to_numpy() for c in ("qid", "docid")}
    shared = {}  # one object per distinct value, as pandas 2's read_csv/read_parquet give
    for c in ("qid", "docid"):
        codes, uniques = pd.factorize(objects[c])
        shared[c] = np.asarray(uniques, dtype=object)[codes]
    steps = {
        "Polars reads every object (pl.Series, dtype=String)":
            lambda s: pl.Series("x", s, dtype=pl.String),
        "pyarrow.array(..., pa.string())": lambda s: pa.array(s, type=pa.string()),
        "pandas factorize": pd.factorize,
        "pandas util.hash_array": pd.util.hash_array,
    }
    for name, fn in steps.items():
        cells = []
        for c in ("qid", "docid"):
            slow = c == "docid" and name.startswith("pandas")
            cells.append(_best(lambda f=fn, s=objects[c]: f(s), 1 if slow else a.repeats))
        print(f"| {name} | {cells[0]:.3f} | {cells[1]:.3f} |", flush=True)
    cells = [_best(lambda s=shared[c]: pl.Series("x", s, dtype=pl.String), a.repeats)
             for c in ("qid", "docid")]
    print(f"| Polars reads every object, one object per distinct value | {cells[0]:.3f} | "
          f"{cells[1]:.3f} |")
    runs = _best(lambda: string_runs(objects["qid"], "qid"), a.repeats)
    runs_shared = _best(lambda: string_runs(shared["qid"], "qid"), a.repeats)
    print(f"| qids read by runs (string_runs): one object per row | {runs:.3f} | – |")
    print(f"| qids read by runs (string_runs): one object per value | {runs_shared:.3f} | – |")

    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64)
    numpy_sort = _best(lambda: keys.copy().sort(), a.repeats)
    polars_sort = _best(lambda: pl.Series(keys).sort(), a.repeats)
    distinct = _best(lambda: pl.Series(keys).n_unique(), a.repeats)
    print(f"\n{n:,} random 64-bit keys: NumPy in-place sort {numpy_sort:.3f} s (with the "
          f"copy), Polars sort {polars_sort:.3f} s, Polars n_unique {distinct:.3f} s")

    ids = pl.concat([run["qid"], run["docid"]]).unique().sort()
    print("\n| Polars ids cast to String | qid (s) | docid (s) |")
    print("|---|---:|---:|")
    for name, dtype in (("Categorical", pl.Categorical), ("Enum", pl.Enum(ids))):
        typed = run.with_columns(pl.col("qid", "docid").cast(dtype))
        cells = [_best(lambda s=typed[c]: s.cast(pl.String), a.repeats) for c in ("qid", "docid")]
        print(f"| {name} | {cells[0]:.3f} | {cells[1]:.3f} |", flush=True)
    enum = run["docid"].cast(pl.Enum(ids))
    print(f"\nreading the Enum's categories from Python (dtype.categories, "
          f"{len(ids):,} of them): {_best(lambda: enum.dtype.categories, a.repeats):.3f} s")
    # the alternative to the cast: the categories gathered by the physical codes (an Enum's
    # fixed list; a Categorical's category space, to_series(), on Polars versions with one)
    print("\n| Polars docids by their categories gathered by the codes | docid (s) |")
    print("|---|---:|")
    for name, dtype in (("Categorical", pl.Categorical), ("Enum", pl.Enum(ids))):
        frame = run.select(pl.col("docid").cast(dtype))
        space = getattr(frame.schema["docid"], "categories", None)
        if name == "Categorical" and not hasattr(space, "to_series"):
            continue

        def gathered(frame=frame, name=name):
            categories = frame.schema["docid"].categories
            values = categories.to_series() if name == "Categorical" else categories
            return frame.select(pl.lit(values).gather(pl.col("docid").to_physical()))
        print(f"| {name} | {_best(gathered, a.repeats):.3f} |", flush=True)


if __name__ == "__main__":
    main()
