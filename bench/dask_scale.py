"""The Dask frontend against one process: wall time and peak memory per worker.

One command prints the table of "Every core, then every machine" for this machine, its
worker counts derived from its cores (C = ``os.cpu_count()``):

* **one process**: ``pl.scan_parquet(files).ir.evaluate(qrels, ...)``, in a fresh
  subprocess (its peak RSS);
* **Dask, sorted**: ``dd.read_parquet(files)`` of files sorted by qid (each a copy of the
  generated run under its own qid prefix, row groups of whole queries, one partition per
  row group): its partitions hold whole queries, so nothing is shuffled; 1, C/4 and C
  workers;
* **Dask, shuffled**: the same rows in files that each hold the top half of the rankings
  of one copy and the bottom half of the previous copy's, so every query spans two files
  and the run is shuffled once; C/4 and C workers.

Every call is ``evaluate(qrels, ["ndcg@10", "ap", "rr", "P@10"], ties="average")``, the
qrels a Dask frame read from Parquet (split among the partitions, never broadcast); each
Dask configuration gets a fresh ``LocalCluster`` of worker processes with one thread each
(``--memory-limit`` each; the libraries imported before the clock starts, as the one
process imports them), and its peak is the largest worker's high-water mark of resident
memory (``VmHWM``). Each time is the best of ``--repeats`` calls (3; the one process's
too): a single call moves by up to 2× with the machine's load and the workers' first touch
of their memory. Every Dask answer is checked equal, value for value, to the one
process's.

The data are made from ``../shared/bench/make_data.py``'s generator (1,000 documents per
query, qids ``q000123``) into ``bench-data/dask/<rows>/``, once, and reused; a run of
10M rows or more reuses ``bench-data/large/run.parquet`` (10,000 queries) when it exists.

Usage, from the project root::

    python bench/dask_scale.py                     # 4M rows: a 2-core machine, ~4 min
    python bench/dask_scale.py --rows 40M          # the issue's first row (16 cores: ~6 min)
    python bench/dask_scale.py --rows 160M --skip-shuffled --skip-one-worker --repeats 1
    python bench/dask_scale.py --workers 1 2 8     # other worker counts

``--package DIR`` imports trunc_accessor from another checkout (e.g. to time an older
commit the same way). Not part of the test suite; the machine's load shifts the timings:
note what else runs.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import resource
import subprocess
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METRICS = ["ndcg@10", "ap", "rr", "P@10"]
DEPTH = 1000  # documents per query (make_data's depth): row groups of whole queries

ONE = """
import json, sys, time
import polars as pl
sys.path.insert(0, sys.argv[1])
import trunc_accessor as ta
files, qrels, out = json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
q = pl.read_parquet(qrels)
seconds = []
for _ in range(int(sys.argv[5])):
    start = time.perf_counter()
    values = pl.scan_parquet(files).ir.evaluate(q, {metrics}, ties="average").collect()
    seconds.append(time.perf_counter() - start)
seconds = min(seconds)
values.write_parquet(out)
peak = [int(x.split()[1]) * 1024 for x in open("/proc/self/status") if x.startswith("VmHWM")]
print(json.dumps({{"seconds": seconds, "peak": peak[0]}}))
"""


def rows_arg(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("KM")) * scale)


def peak_rss() -> int:
    """This process's peak resident memory in bytes: Linux's VmHWM (ru_maxrss survives
    fork and exec, so a worker would report the peak of the process that started it)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --------------------------------------------------------------------------- data
def _base(rows: int):
    """The generated run (qid, docid, score, rank) and qrels of min(rows, 10M) rows."""
    import polars as pl

    large = os.path.join(ROOT, "bench-data", "large")
    if rows >= 10_000_000 and os.path.exists(os.path.join(large, "run.parquet")):
        return (pl.read_parquet(os.path.join(large, "run.parquet")),
                pl.read_parquet(os.path.join(large, "qrels.parquet")))
    spec = importlib.util.spec_from_file_location(
        "make_data", os.path.join(ROOT, "..", "shared", "bench", "make_data.py"))
    assert spec is not None and spec.loader is not None, "../shared/bench/make_data.py"
    make_data = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_data)
    queries = max(1, min(rows, 10_000_000) // DEPTH)
    run, qrels, _ = make_data.generate(queries, DEPTH, 100, 0.1, 1, 0.3, 10_000_000, 42, False)
    return run, qrels


def make(rows: int, cores: int) -> tuple[list[str], list[str], str]:
    """(sorted files, shuffled files, qrels file) of ``rows`` run rows, made once."""
    import polars as pl

    out = os.path.join(ROOT, "bench-data", "dask", str(rows))
    qrels_path = os.path.join(out, "qrels.parquet")
    base_rows = min(rows, 10_000_000) // DEPTH * DEPTH
    copies = max(1, round(rows / base_rows))
    sorted_files = [os.path.join(out, f"sorted-{c:03d}.parquet") for c in range(copies)]
    mixed_files = [os.path.join(out, f"mixed-{c:03d}.parquet") for c in range(copies)]
    if all(os.path.exists(f) for f in [*sorted_files, *mixed_files, qrels_path]):
        return sorted_files, mixed_files, qrels_path
    os.makedirs(out, exist_ok=True)
    start = time.perf_counter()
    run, qrels = _base(rows)
    run = run.sort("qid", "rank")
    # at least 4 partitions per core over the whole run, whole queries in each row group
    group = max(DEPTH, min(1_000_000, rows // (4 * cores)) // DEPTH * DEPTH)

    def copy(c: int, frame):
        return frame.with_columns(pl.format("c{}_{}", pl.lit(f"{c:03d}"), pl.col("qid"))
                                  .alias("qid"))

    for c in range(copies):
        copy(c, run).write_parquet(sorted_files[c], row_group_size=group)
        top = copy(c, run.filter(pl.col("rank") <= DEPTH // 2))
        bottom = copy((c - 1) % copies, run.filter(pl.col("rank") > DEPTH // 2))
        pl.concat([top, bottom]).write_parquet(mixed_files[c], row_group_size=group)
    pl.concat([copy(c, qrels) for c in range(copies)]).write_parquet(qrels_path)
    print(f"data: {copies} x {base_rows:,} rows in {out} "
          f"({time.perf_counter() - start:.0f} s)", flush=True)
    return sorted_files, mixed_files, qrels_path


# --------------------------------------------------------------------------- timings
def _warm() -> None:
    import dask.dataframe  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import trunc_accessor.frontends.dask  # noqa: F401


def one_process(files: list[str], qrels: str, package: str, out: str, repeats: int) -> dict:
    code = ONE.format(metrics=METRICS)
    proc = subprocess.run([sys.executable, "-c", code, package, json.dumps(files), qrels, out,
                           str(repeats)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def dask_run(files: list[str], qrels: str, workers: int, memory_limit, want,
             repeats: int) -> dict:
    import dask.dataframe as dd
    import polars as pl
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           memory_limit=memory_limit, dashboard_address=None)
    client = Client(cluster)
    try:
        client.run(_warm)  # imports, as on a cluster that has run a call before
        run = dd.read_parquet(files, split_row_groups=True)
        dq = dd.read_parquet(qrels)
        times = []
        for _ in range(repeats):  # the best of the calls: the first pays the workers' first
            # touch of their memory, and the machine's load moves single calls
            start = time.perf_counter()
            lazy = run.ir.evaluate(dq, METRICS, ties="average")
            names = " ".join(str(k[0] if isinstance(k, tuple) else k)
                             for k in lazy.__dask_graph__().keys())
            values = lazy.compute()
            times.append(time.perf_counter() - start)
        seconds = min(times)
        peak = max(client.run(peak_rss).values())
    finally:
        client.close()
        cluster.close()
    from polars.testing import assert_frame_equal

    assert_frame_equal(pl.from_pandas(values.reset_index()), want, check_dtypes=False,
                       check_exact=True)  # the Dask values are the one process's
    return {"seconds": seconds, "peak": peak, "partitions": run.npartitions,
            "shuffled": any(w in names for w in ("shuffle", "p2p", "set_partitions", "split_run"))}


def _counts(cores: int, wanted) -> tuple[list[int], list[int]]:
    if wanted:
        return sorted(set(wanted)), sorted(set(wanted) - {1}) or sorted(set(wanted))
    quarter = max(1, cores // 4)
    return sorted({1, quarter, cores}), sorted({quarter, cores})


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=rows_arg, default=rows_arg("4M"),
                   help="run rows (4M, 40M, 160M): copies of a generated run of <= 10M")
    p.add_argument("--workers", type=int, nargs="+", default=None,
                   help="Dask worker counts (default: 1, cores/4, cores)")
    p.add_argument("--memory-limit", default="auto", help="per worker (LocalCluster's)")
    p.add_argument("--repeats", type=int, default=3,
                   help="calls per configuration; the best is reported (1 at 160M rows)")
    p.add_argument("--skip-shuffled", action="store_true")
    p.add_argument("--skip-one-worker", action="store_true")
    p.add_argument("--package", default=ROOT, help="the checkout to import trunc_accessor from")
    args = p.parse_args(argv)
    sys.path.insert(0, args.package)
    import dask
    import polars as pl

    import trunc_accessor as ta

    warnings.filterwarnings("ignore", category=ta.TruncAccessorWarning)
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)  # one line per shuffle
    cores = os.cpu_count() or 1
    sorted_counts, mixed_counts = _counts(cores, args.workers)
    if args.skip_one_worker:
        sorted_counts = [w for w in sorted_counts if w > 1] or sorted_counts
    files, mixed, qrels = make(args.rows, cores)
    load = os.getloadavg() if hasattr(os, "getloadavg") else "?"
    print(f"{args.rows:,} rows in {len(files)} file(s); metrics {METRICS}, ties='average'; "
          f"{cores} cores, load before {load}; dask {dask.__version__}; "
          f"trunc_accessor from {ta.__file__}", flush=True)
    out = os.path.join(os.path.dirname(qrels), "one-process-values.parquet")
    one = one_process(files, qrels, args.package, out, args.repeats)
    want = pl.read_parquet(out)
    print(f"  one process: {one['seconds']:.1f} s, {one['peak'] / 2**30:.2f} GiB", flush=True)
    rows = {"sorted": {}, "shuffled": {}}
    plan = [("sorted", files, sorted_counts)]
    if not args.skip_shuffled:
        plan.append(("shuffled", mixed, mixed_counts))
    for kind, paths, counts in plan:
        for w in counts:
            r = dask_run(paths, qrels, w, args.memory_limit, want, args.repeats)
            rows[kind][w] = r
            print(f"  Dask {kind}, {w} worker(s), {r['partitions']} partitions, shuffle "
                  f"{'yes' if r['shuffled'] else 'no'}: {r['seconds']:.1f} s, "
                  f"{r['peak'] / 2**30:.2f} GiB per worker", flush=True)
    print("\nevery Dask answer equals the one process's")
    print_table(args.rows, one, rows)


def print_table(n: int, one: dict, rows: dict) -> None:
    def cell(found: dict) -> str:
        if not found:
            return "–"
        times = " / ".join(f"{r['seconds']:.1f}" for r in found.values())
        peaks = " / ".join(f"{r['peak'] / 2**30:.1f}" for r in found.values())
        return f"{times} s ({peaks} GiB per worker)"

    head = " / ".join(str(w) for w in rows["sorted"])
    mixed = " / ".join(str(w) for w in rows["shuffled"]) or "–"
    print(f"\n| rows | one process, `pl.scan_parquet(files).ir.evaluate(...)` | Dask, sorted "
          f"(no shuffle): {head} workers | Dask, shuffled: {mixed} workers |")
    print("|---|---|---|---|")
    label = f"{n / 1e6:g}M"
    print(f"| {label} | {one['seconds']:.1f} s, {one['peak'] / 2**30:.1f} GiB | "
          f"{cell(rows['sorted'])} | {cell(rows['shuffled'])} |")


if __name__ == "__main__":
    main()
