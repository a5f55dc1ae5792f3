"""Cascade metrics on one huge tie group: AP against ERR, ERR', RBU and ERRU.

One query, N documents (default 1,000,000) all with the same score, R of them relevant
(binary qrels, so x = 1/2 for a relevant document), ties="average", pandas input. Every
call is timed end to end (frames in memory -> a pandas Series), median of --repeats runs,
and printed as a markdown table with the ratio to AP.

  python bench/cascade_ties.py
  python bench/cascade_ties.py --n 200000 --relevant 1 100 10000 --repeats 3
  python bench/cascade_ties.py --graded          # grades 1..3 instead of 1 (g_max = 3)
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

import trunc_accessor  # noqa: F401  (registers the .ir accessor)

METRICS = ["ap", "err", "err_prime", "rbu", "erru"]


def frames(n: int, r: int, graded: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    docs = np.array([f"d{i}" for i in range(n)], dtype=object)
    run = pd.DataFrame({"qid": "q1", "docid": docs, "score": np.ones(n)})
    rel = rng.choice(n, size=r, replace=False)
    grades = rng.integers(1, 4, size=r) if graded else np.ones(r, dtype=np.int64)
    qrels = pd.DataFrame({"qid": "q1", "docid": docs[rel], "rel": grades})
    return run, qrels


def timed(fn, repeats: int) -> tuple[float, float]:
    times, value = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), float(value.iloc[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--relevant", type=int, nargs="+",
                    default=[1, 100, 10_000, 100_000, 1_000_000])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--graded", action="store_true")
    args = ap.parse_args()
    rows = []
    for r in args.relevant:
        run, qrels = frames(args.n, r, args.graded)
        res = {m: timed(lambda m=m, run=run, qrels=qrels:
                        getattr(run.ir, m)(qrels, ties="average"), args.repeats)
               for m in METRICS}
        rows.append((r, res))
    print(f"N = {args.n:,} tied documents, one query, "
          f"{'grades 1..3' if args.graded else 'binary'} qrels, ties=\"average\", pandas input, "
          f"median of {args.repeats}; seconds (× AP)\n")
    print("| relevant | " + " | ".join(METRICS) + " |")
    print("|---:|" + "---:|" * len(METRICS))
    for r, res in rows:
        base = res["ap"][0]
        cells = [f"{res['ap'][0]:.3f}"] + [f"{res[m][0]:.3f} ({res[m][0] / base:.1f}×)"
                                            for m in METRICS[1:]]
        print(f"| {r:,} | " + " | ".join(cells) + " |")
    print("\nvalues:")
    for r, res in rows:
        print(f"  R = {r:,}: " + ", ".join(f"{m} = {res[m][1]:.15g}" for m in METRICS))


if __name__ == "__main__":
    main()
