"""Time trunc_accessor.read_run against pyarrow.csv.read_csv on a large TREC run.

Writes a run of ``--lines`` lines (default 10M: 10,000 queries x 1,000 documents, single
spaces, a runid) to a temporary file, then times, ``--repeats`` times each (default 5):

* ``read_run(path, library="polars")`` and ``read_run(path)`` (pandas, the default);
* ``pyarrow.csv.read_csv(path)`` with ``ParseOptions(delimiter=" ")`` (and generated column
  names, as the file has no header), which parses but checks nothing TREC-specific.

Timings are interleaved and the best of each is compared (the ratio printed).
Usage: ``python bench/read_files.py [--lines N] [--repeats R] [--tab]``. Not part of the
test suite.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np
import polars as pl
import pyarrow.csv as pacsv

import trunc_accessor as ta


def write_run(path: str, lines: int, sep: str = " ") -> None:
    depth = 1000
    n_q = max(1, lines // depth)
    rng = np.random.default_rng(0)
    n = n_q * depth
    score = np.sort(rng.random((n_q, depth)), axis=1)[:, ::-1].ravel() * 20
    docs = pl.Series(rng.permutation(n)).cast(pl.String).str.pad_start(8, "0")  # unique
    pl.DataFrame({
        "qid": np.repeat(np.arange(n_q) + 100, depth),
        "q0": "Q0",
        "docid": "clueweb-" + docs,
        "rank": np.tile(np.arange(1, depth + 1), n_q),
        "score": score,
        "tag": "bm25",
    }).write_csv(path, separator=sep, include_header=False, quote_style="never")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=10_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tab", action="store_true", help="separate fields by tabs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.txt")
        write_run(path, args.lines, "\t" if args.tab else " ")
        size = os.path.getsize(path)
        print(f"file: {args.lines:,} lines, {size / 2**20:.0f} MiB; cpus: {os.cpu_count()}, "
              f"load average {os.getloadavg()[0]:.1f}")
        delim = "\t" if args.tab else " "
        entries = {
            "pyarrow.csv.read_csv": lambda: pacsv.read_csv(
                path, read_options=pacsv.ReadOptions(autogenerate_column_names=True),
                parse_options=pacsv.ParseOptions(delimiter=delim)),
            "read_run(library='polars')": lambda: ta.read_run(path, library="polars"),
            "read_run(library='pandas')": lambda: ta.read_run(path),
        }
        times: dict[str, list[float]] = {name: [] for name in entries}
        for _ in range(args.repeats):  # interleaved, so a busy machine slows all alike
            for name, fn in entries.items():
                t = time.perf_counter()
                out = fn()
                times[name].append(time.perf_counter() - t)
                del out
        base = min(times["pyarrow.csv.read_csv"])
        print(f"{'':28s} {'best':>7s} {'median':>7s} {'best/arrow':>11s}")
        for name, ts in times.items():
            print(f"{name:28s} {min(ts):7.2f} {statistics.median(ts):7.2f} "
                  f"{min(ts) / base:11.2f}")


if __name__ == "__main__":
    main()
