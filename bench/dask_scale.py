"""The Dask frontend on a large run: wall time and the workers' peak memory.

Reads the run with ``dd.read_parquet`` (a file, or with ``--data DIR`` every ``*.parquet`` of
a directory, e.g. a 100M-row run written as many files) and the qrels with
``dd.read_parquet`` (one partition: broadcast), then times
``run.ir.evaluate(qrels, ["ndcg@10", "ap", "rr", "P@10"], ties="average").compute()`` on a
fresh ``LocalCluster`` of 1 and of 2 worker processes (one thread each, ``--memory-limit``
each, so that a worker is bounded). The run file is not assumed sorted: it is shuffled by
qid (``--sorted`` reads it with ``index="qid", calculate_divisions=True`` instead, which
skips the shuffle when the file is sorted by qid and the row groups do not split a qid).

Peak memory is each worker process's high-water mark of resident memory
(``ru_maxrss``), read after the timed runs; each configuration starts fresh workers.
``--check`` also evaluates the run eagerly with the pandas accessor and compares the values
(needs several GiB in this process).

Usage, from the project root (the 10M-row data: ``python ../shared/bench/make_data.py
--scale large --out bench-data/large``)::

    python bench/dask_scale.py                                 # 10M rows, 1 and 2 workers
    python bench/dask_scale.py --workers 2 --repeats 1 --check
    python bench/dask_scale.py --data runs/ --qrels qrels.parquet --workers 4

Not part of the test suite. The machine's load shifts the timings: note what else runs.
"""
from __future__ import annotations

import argparse
import glob
import logging
import os
import resource
import statistics
import sys
import time
import warnings

import dask
import dask.dataframe as dd
import pandas as pd
from distributed import Client, LocalCluster

import trunc_accessor as ta

METRICS = ["ndcg@10", "ap", "rr", "P@10"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def peak_rss() -> int:
    """This process's peak resident memory in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def read(args):
    source = os.path.join(args.data, "*.parquet") if args.data else args.run
    options = {"blocksize": args.blocksize}
    if args.sorted:
        options.update(index="qid", calculate_divisions=True)
    run = dd.read_parquet(source, **options)
    qrels = dd.read_parquet(args.qrels)
    return run, qrels


def one(args, workers: int) -> dict:
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           memory_limit=args.memory_limit, dashboard_address=None)
    client = Client(cluster)
    try:
        run, qrels = read(args)
        times, shuffled = [], None
        for _ in range(args.repeats):
            start = time.perf_counter()
            values = run.ir.evaluate(qrels, METRICS, ties="average").compute()
            times.append(time.perf_counter() - start)
            shuffled = not run.known_divisions
        peaks = client.run(peak_rss)
        return {"workers": workers, "partitions": run.npartitions, "shuffled": shuffled,
                "times": times, "peak": max(peaks.values()), "values": values}
    finally:
        client.close()
        cluster.close()


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", default=os.path.join(ROOT, "bench-data/large/run.parquet"))
    p.add_argument("--qrels", default=None, help="default: qrels.parquet beside --run")
    p.add_argument("--data", default=None, help="a directory of Parquet run files")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--memory-limit", default="6GiB")
    p.add_argument("--blocksize", default="32MiB",
                   help="dd.read_parquet's blocksize: the size of a run partition")
    p.add_argument("--shuffle", default=None, choices=["p2p", "tasks", "disk"],
                   help="Dask's shuffle method (default: Dask's choice, p2p on a cluster)")
    p.add_argument("--sorted", action="store_true",
                   help="read with index='qid', calculate_divisions=True (no shuffle)")
    p.add_argument("--check", action="store_true",
                   help="compare with the pandas accessor on the whole run")
    args = p.parse_args(argv)
    if args.qrels is None:
        if args.data:
            sys.exit("--data DIR: name the qrels with --qrels (outside DIR)")
        args.qrels = os.path.join(os.path.dirname(args.run), "qrels.parquet")
    warnings.filterwarnings("ignore", category=ta.TruncAccessorWarning)
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)  # one line per shuffle
    if args.shuffle:
        dask.config.set({"dataframe.shuffle.method": args.shuffle})

    load = os.getloadavg() if hasattr(os, "getloadavg") else "?"
    print(f"run: {args.data or args.run}; qrels: {args.qrels}; metrics {METRICS}, "
          f"ties='average'; {os.cpu_count()} cores, load before {load}; worker memory limit "
          f"{args.memory_limit}; shuffle {args.shuffle or 'Dask default'}; dask {dask.__version__}")
    rows = []
    for workers in args.workers:
        r = one(args, workers)
        rows.append(r)
        print(f"  {workers} worker(s): {', '.join(f'{t:.1f}' for t in r['times'])} s; "
              f"peak {r['peak'] / 2**30:.2f} GiB", flush=True)
    print()
    print("| workers | partitions | shuffle | wall time (s), median | runs (s) "
          "| peak RSS per worker |")
    print("|---:|---:|---|---:|---|---:|")
    for r in rows:
        print(f"| {r['workers']} | {r['partitions']} | {'yes' if r['shuffled'] else 'no'} | "
              f"{statistics.median(r['times']):.1f} | "
              f"{', '.join(f'{t:.1f}' for t in r['times'])} | {r['peak'] / 2**30:.2f} GiB |")
    if args.check:
        source = os.path.join(args.data, "*.parquet") if args.data else args.run
        start = time.perf_counter()
        run = pd.concat([pd.read_parquet(f) for f in sorted(glob.glob(source))],
                        ignore_index=True)
        eager = run.ir.evaluate(pd.read_parquet(args.qrels), METRICS, ties="average")
        print(f"\npandas accessor, this process: {time.perf_counter() - start:.1f} s")
        for r in rows:
            pd.testing.assert_frame_equal(r["values"], eager, check_exact=True)
        print("values equal the pandas accessor's")


if __name__ == "__main__":
    main()
