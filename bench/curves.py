"""Cut-off curves on one long ranking: cutoff_curve and optimal_cutoff against evaluate.

One query, N documents (default 1,000,000) with distinct random scores (every position a
cut-off, so the curve has N + 1 rows), one judged document in 97 with a grade 0–2, pandas
input. For each metric: one ``evaluate`` call, ``cutoff_curve`` and ``optimal_cutoff``, each
timed end to end (frames in memory -> a pandas frame), median of --repeats runs, and the
ratio to ``evaluate`` (the target: ≤ 10×). --ties average draws scores from N/200 values
instead (tie groups of ~200 documents, the cut-offs at their ends). The peak RSS of the
process is printed at the end.

  python bench/curves.py
  python bench/curves.py --n 100000 --repeats 1 --metrics ap rbp_residual
  python bench/curves.py --ties average
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np
import pandas as pd

import trunc_accessor  # noqa: F401  (registers the .ir accessor)

METRICS = ["precision@10", "recall", "ap", "rr", "ndcg", "rbp", "rbp_residual", "success@10",
           "bpref", "rr_prime", "rbp_prime", "ndcg_prime", "ap_prime", "err", "err_prime",
           "rbu", "erru", "flat_utility", "dcgu", "rbpu", "f_measure"]


def frames(n: int, tied: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, max(1, n // 200), n).astype(float) if tied else rng.random(n)
    run = pd.DataFrame({"qid": "q", "docid": np.arange(n).astype(str), "score": scores})
    judged = np.arange(0, n, 97)
    qrels = pd.DataFrame({"qid": "q", "docid": judged.astype(str),
                          "rel": rng.integers(0, 3, len(judged))})
    return run, qrels


def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ties", choices=["first", "average"], default="first")
    ap.add_argument("--metrics", nargs="+", default=METRICS)
    args = ap.parse_args()
    run, qrels = frames(args.n, args.ties == "average")
    kw = {"ties": args.ties}
    print(f"N = {args.n:,} documents, one query, ties={args.ties!r}, pandas input, median of "
          f"{args.repeats}; seconds (× evaluate)\n")
    print("| metric | evaluate | cutoff_curve | optimal_cutoff | curve rows |")
    print("|---|---:|---:|---:|---:|")
    for m in args.metrics:
        base = timed(lambda m=m: run.ir.evaluate(qrels, [m], **kw), args.repeats)
        rows = len(run.ir.cutoff_curve(qrels, m, **kw))
        curve = timed(lambda m=m: run.ir.cutoff_curve(qrels, m, **kw), args.repeats)
        best = timed(lambda m=m: run.ir.optimal_cutoff(qrels, m, **kw), args.repeats)
        print(f"| {m} | {base:.3f} | {curve:.3f} ({curve / base:.1f}×) | "
              f"{best:.3f} ({best / base:.1f}×) | {rows:,} |", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
