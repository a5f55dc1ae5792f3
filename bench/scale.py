"""How trunc_accessor's cost grows with the run, and what the lazy path holds in memory.

Each measurement runs in its own subprocess (wall time of the call, peak RSS of the
process, RSS before the call), on runs made from the shared benchmark's generator
(``../shared/bench/make_data.py --scale large``: 10,000 queries x 1,000 documents, ~9% of
rows in tie groups) by repeating its 10,000 queries under new qids:

  python bench/scale.py make --copies 10            # bench-data/scale/: 10 files, 100M rows
  python bench/scale.py linear --rows 1,10,50       # eager Polars/pandas at 1M, 10M, 50M rows
  python bench/scale.py lazy --files 10             # pl.scan_parquet(...).ir.evaluate and
                                                    # ta.evaluate_parquet on 10 files (100M)
  python bench/scale.py many                        # evaluate(20 metrics) vs 20 single calls
  python bench/scale.py cores --files 4             # 40M rows: one core, one process's
                                                    # threads, and a worker per core
                                                    # (makes the files it lacks)

Metrics: nDCG@10, AP, RR, P@10 with ties="average" (the default) unless said otherwise.
Prints markdown tables (BENCHMARKS.md).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "bench-data")
SCALE = os.path.join(DATA, "scale")
METRICS = ["ndcg@10", "ap", "rr", "P@10"]
MANY = ["ndcg@10", "ndcg", "ap", "ap@100", "rr", "P@5", "P@10", "P@20", "recall@100",
        "recall@1000", "rprec", "bpref", "success@10", "rbp(p=0.8)", "rbp_residual(p=0.8)",
        "err@20", "rbp_prime(p=0.8)", "ndcg_prime", "f1@10", "dcg@10"]


def make(copies: int) -> None:
    """bench-data/scale/part-XX.parquet: the large run with qids renamed per copy
    (sorted by qid, 1M-row row groups), and qrels.parquet for all of them."""
    import polars as pl

    src = os.path.join(DATA, "large")
    if not os.path.exists(os.path.join(src, "run.parquet")):
        subprocess.run([sys.executable, os.path.join(ROOT, "..", "shared", "bench", "make_data.py"),
                        "--scale", "large", "--out", src], check=True, stdout=subprocess.DEVNULL)
    os.makedirs(SCALE, exist_ok=True)
    run = pl.scan_parquet(os.path.join(src, "run.parquet"))
    qrels = pl.read_parquet(os.path.join(src, "qrels.parquet"))
    all_qrels = []
    for c in range(copies):
        prefix = f"c{c:02d}_"
        path = os.path.join(SCALE, f"part-{c:02d}.parquet")
        if not os.path.exists(path):
            (run.with_columns((pl.lit(prefix) + pl.col("qid")).alias("qid"))
             .sink_parquet(path, row_group_size=1_000_000))
        all_qrels.append(qrels.with_columns((pl.lit(prefix) + pl.col("qid")).alias("qid")))
    pl.concat(all_qrels).write_parquet(os.path.join(SCALE, "qrels.parquet"))
    print(f"{SCALE}: {copies} files x 10M rows")


CHILD = textwrap.dedent("""
    import json, sys, time, resource, gc
    import polars as pl, pandas as pd
    import trunc_accessor as ta

    def rss():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) * 1024

    spec = json.loads(sys.argv[1])
    files, qrels_path = spec["files"], spec["qrels"]
    qrels = pl.read_parquet(qrels_path)
    kind = spec["kind"]
    if kind in ("polars", "pandas", "many", "single"):
        run = pl.read_parquet(files) if len(files) > 1 else pl.read_parquet(files[0])
        if kind == "pandas":
            run, qrels = run.to_pandas(), qrels.to_pandas()
    if kind in ("polars", "pandas", "many", "single"):  # warm-up: imports, thread pools
        run.head(20_000).ir.evaluate(qrels, spec["metrics"][:1], ties=spec["ties"])
    gc.collect()
    before = rss()
    t = time.perf_counter()
    if kind in ("polars", "pandas"):
        out = run.ir.evaluate(qrels, spec["metrics"], ties=spec["ties"])
    elif kind == "many":
        out = run.ir.evaluate(qrels, spec["metrics"], ties=spec["ties"])
    elif kind == "single":
        out = [run.ir.evaluate(qrels, [m], ties=spec["ties"]) for m in spec["metrics"]]
    elif kind == "lazy":
        out = (ta.ir(pl.scan_parquet(files), n_jobs=spec.get("n_jobs"))
               .evaluate(qrels, spec["metrics"], ties=spec["ties"]).collect())
    elif kind == "evaluate_parquet":
        out = ta.evaluate_parquet(files, qrels.to_pandas(), spec["metrics"], ties=spec["ties"])
    seconds = time.perf_counter() - t
    again = []
    for _ in range(spec.get("again", 0)):  # the same call again (worker processes warm)
        t = time.perf_counter()
        (ta.ir(pl.scan_parquet(files), n_jobs=spec.get("n_jobs"))
         .evaluate(qrels, spec["metrics"], ties=spec["ties"]).collect())
        again.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    from trunc_accessor.engine import workers
    workers.shutdown()  # the workers' peak: the largest child's, once they have ended
    worker_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    rows = spec.get("rows")
    print(json.dumps({"seconds": seconds, "again": again, "peak": peak, "before": before,
                      "worker_peak": worker_peak,
                      "out_rows": len(out) if not isinstance(out, list) else len(out[0])}))
""")


def child(spec: dict, env: dict | None = None) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], capture_output=True,
                          text=True, check=False, env={**os.environ, **(env or {})})
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _files(n: int) -> list[str]:
    return [os.path.join(SCALE, f"part-{c:02d}.parquet") for c in range(n)]


def linear(rows_m: list[int], ties: str, repeats: int) -> None:
    """Eager calls on the first N million rows (a slice of the copies)."""

    print(f"| rows | input | seconds (median of {repeats}) | s per 1M rows | peak RSS GiB | "
          "RSS above input, bytes/row |")
    print("|---|---|---|---|---|---|")
    for m in rows_m:
        path, qrels_path = _first(m)
        for kind in ("polars", "pandas"):
            runs = [child({"files": [path], "qrels": qrels_path,
                           "kind": kind, "metrics": METRICS, "ties": ties})
                    for _ in range(repeats)]
            ok = [r for r in runs if "error" not in r]
            if not ok:
                print(f"| {m}M | {kind} | {runs[0]['error']} | | | |")
                continue
            sec = sorted(r["seconds"] for r in ok)[len(ok) // 2]
            peak = max(r["peak"] for r in ok)
            above = min((r["peak"] - r["before"]) for r in ok) / (m * 1e6)
            print(f"| {m}M | {kind} | {sec:.2f} | {sec / m:.3f} | {peak / 2**30:.2f} "
                  f"| {above:.0f} |", flush=True)


def _first(m: int) -> tuple[str, str]:
    """The first m million rows of the copies and the qrels of their queries (made once)."""
    import polars as pl

    path = os.path.join(SCALE, f"first-{m}M.parquet")
    qrels_path = os.path.join(SCALE, f"first-{m}M-qrels.parquet")
    if not os.path.exists(qrels_path):
        pl.scan_parquet(_files(max(1, -(-m // 10)))).head(m * 1_000_000).sink_parquet(path)
        qids = pl.scan_parquet(path).select("qid").unique()
        (pl.scan_parquet(os.path.join(SCALE, "qrels.parquet"))
         .join(qids, on="qid", how="semi").sink_parquet(qrels_path))
    return path, qrels_path


def lazy(n_files: int, ties: str) -> None:
    """The lazy routes over n_files × 10M rows, and the eager Polars call on the first 10M
    (its qrels only) for the cost per row."""
    print("| route | rows | seconds | s per 1M rows | peak RSS GiB |")
    print("|---|---|---|---|---|")
    path, qrels_path = _first(10)
    runs = (("lazy", _files(n_files), os.path.join(SCALE, "qrels.parquet"), n_files * 10,
             "pl.scan_parquet(files).ir.evaluate(...).collect()"),
            ("evaluate_parquet", _files(n_files), os.path.join(SCALE, "qrels.parquet"),
             n_files * 10, "ta.evaluate_parquet(files, ...) (pandas result)"),
            ("polars", [path], qrels_path, 10,
             "eager: pl.read_parquet(first 10M).ir.evaluate(...)"))
    for kind, files, qrels, m, label in runs:
        r = child({"files": files, "qrels": qrels, "kind": kind, "metrics": METRICS,
                   "ties": ties})
        if "error" in r:
            print(f"| {label} | {m}M | {r['error']} | | |")
        else:
            print(f"| {label} | {m}M | {r['seconds']:.1f} | {r['seconds'] / m:.3f} | "
                  f"{r['peak'] / 2**30:.2f} |", flush=True)


def cores(n_files: int, ties: str, repeats: int) -> None:
    """One process on a Parquet run of n_files × 10M rows: on one core, with Polars' threads
    (n_jobs=1), and with a worker process per core (n_jobs = the cores Polars uses). The
    first call of a process starts its workers; the best of the calls after it is the warm
    figure. Each configuration runs in a fresh subprocess."""
    import polars as pl

    if any(not os.path.exists(f) for f in _files(n_files)):
        make(n_files)
    n = pl.thread_pool_size()
    spec = {"files": _files(n_files), "qrels": os.path.join(SCALE, "qrels.parquet"),
            "kind": "lazy", "metrics": METRICS, "ties": ties, "again": repeats}
    setups = [("one core (POLARS_MAX_THREADS=1)", {"n_jobs": 1}, {"POLARS_MAX_THREADS": "1"}),
              (f"one process, {n} Polars threads (n_jobs=1)", {"n_jobs": 1}, {}),
              (f"{n} worker processes (n_jobs={n})", {"n_jobs": n}, {})]
    print(f"{n_files * 10}M-row Parquet run ({n_files} files), {', '.join(METRICS)}, "
          f"ties={ties!r}, {os.cpu_count()} cores; `pl.scan_parquet(files).ir.evaluate(...)`\n")
    print("| configuration | first call s | warm s (best) | vs one core | rows/s | "
          "peak RSS GiB: process / largest worker |")
    print("|---|---|---|---|---|---|")
    base = None
    for label, extra, env in setups:
        r = child({**spec, **extra}, env)
        if "error" in r:
            print(f"| {label} | {r['error']} | | | | |", flush=True)
            continue
        warm = min(r["again"] or [r["seconds"]])
        base = base or warm
        print(f"| {label} | {r['seconds']:.2f} | {warm:.2f} | {base / warm:.2f}x | "
              f"{n_files * 1e7 / warm / 1e6:.1f}M | {r['peak'] / 2**30:.2f} / "
              f"{r['worker_peak'] / 2**30:.2f} |", flush=True)


def many(ties: str) -> None:
    spec = {"files": [os.path.join(SCALE, "first-10M.parquet")],
            "qrels": os.path.join(SCALE, "first-10M-qrels.parquet"), "metrics": MANY,
            "ties": ties}
    one = child({**spec, "kind": "many"})
    single = child({**spec, "kind": "single"})
    print("| 10M rows, Polars, 20 metrics | seconds |")
    print("|---|---|")
    print(f"| one evaluate call with all 20 | {one['seconds']:.2f} |")
    print(f"| 20 calls, one metric each | {single['seconds']:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--copies", type=int, default=10)
    li = sub.add_parser("linear")
    li.add_argument("--rows", default="1,10,50")
    li.add_argument("--repeats", type=int, default=3)
    la = sub.add_parser("lazy")
    la.add_argument("--files", type=int, default=10)
    sub.add_parser("many")
    co = sub.add_parser("cores")
    co.add_argument("--files", type=int, default=4)
    co.add_argument("--repeats", type=int, default=2)
    for p in (li, la, co):
        p.add_argument("--ties", default="average")
    a = ap.parse_args()
    t = time.time()
    if a.cmd == "make":
        make(a.copies)
    elif a.cmd == "linear":
        linear([int(x) for x in a.rows.split(",")], a.ties, a.repeats)
    elif a.cmd == "lazy":
        lazy(a.files, a.ties)
    elif a.cmd == "cores":
        cores(a.files, a.ties, a.repeats)
    else:
        many("average")
    print(f"\n({a.cmd}: {time.time() - t:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
