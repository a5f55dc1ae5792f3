"""Fusion: ta.fuse against ranx 0.3.21's fuse, from frames in memory.

R runs (default 5) of Q queries × D documents each (default 2,000 × 1,000: 10M rows in
all), drawn per query from a pool of 1.5·D documents so that the runs overlap, with random
scores (no ties, so that ranx's answer is defined). Timed, median of --repeats:

* ``trunc_accessor[pandas]``: ``ta.fuse(frame, method, norm)`` on one long pandas frame with
  a ``system`` column → a pandas run frame (qid, docid, score, rank);
* ``trunc_accessor[polars]``: the same from and to Polars;
* ``ranx``: the per-run pandas frames → ``Run.from_df`` → ``ranx.fuse`` → a ranx Run (its
  Numba compilation is done on a small input first and not timed; turning the fused Run
  back into a frame, ``Run.to_dataframe``, is timed apart).

The fused scores of ours and ranx's are compared (largest absolute difference). The
10M-row size needs several GiB and minutes of both cores: run it on a quiet machine.

  python bench/fusion.py --queries 100 --docs 100          # a smoke test (50k rows)
  python bench/fusion.py                                   # 5 runs x 2M rows
"""
from __future__ import annotations

import argparse
import statistics
import time
from functools import partial

import numpy as np
import pandas as pd
import polars as pl

import trunc_accessor as ta

CASES = (("rrf", "min-max", {}), ("combmnz", "min-max", {}), ("wsum", "zmuv", None))
RANX_NAMES = {"rrf": "rrf", "combmnz": "mnz", "wsum": "wsum"}


def make_runs(n_runs: int, queries: int, docs: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    pool = int(docs * 1.5)
    for r in range(n_runs):
        picks = np.argsort(rng.random((queries, pool)), axis=1)[:, :docs]
        qid = np.repeat(np.arange(queries), docs)
        parts.append(pd.DataFrame({
            "system": f"run{r}", "qid": (qid + 1).astype(str),
            "docid": ("d" + pd.Series(picks.ravel()).astype(str)).to_numpy(),
            "score": rng.random(queries * docs) * 10}))
    return pd.concat(parts, ignore_index=True)


def timed(fn, repeats: int):
    times, value = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), value


def ranx_runs(frame: pd.DataFrame):
    from ranx import Run

    frame = frame.astype({"qid": object, "docid": object})  # ranx wants object columns
    return [Run.from_df(part.drop(columns="system"), q_id_col="qid", doc_id_col="docid",
                        score_col="score") for _, part in frame.groupby("system", sort=True)]


def run_ranx(frame: pd.DataFrame, method: str, norm: str, params: dict):
    from ranx import fuse as ranx_fuse

    return ranx_fuse(ranx_runs(frame), norm=norm, method=RANX_NAMES[method], params=params)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-ranx", action="store_true")
    args = ap.parse_args()

    frame = make_runs(args.runs, args.queries, args.docs)
    polars_frame = pl.from_pandas(frame)
    weights = [1 / args.runs] * args.runs
    print(f"{len(frame):,} rows: {args.runs} runs x {args.queries} queries x {args.docs} docs")
    if not args.no_ranx:
        from ranx import fuse as ranx_fuse

        small = ranx_runs(make_runs(args.runs, 3, 5, seed=1))
        t = time.perf_counter()
        for method, norm, params in CASES:
            ranx_fuse(small, norm=norm, method=RANX_NAMES[method],
                      params={"weights": weights} if params is None else params)
        print(f"ranx's Numba compilation (untimed below): {time.perf_counter() - t:.1f} s")
    print("\n| method | norm | ours, pandas (s) | ours, Polars (s) | ranx (s) "
          "| ranx Run → frame (s) | ranx ÷ ours (pandas) | max |Δ score| |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for method, norm, params in CASES:
        kw = {"weights": weights} if params is None else params
        # one long frame: weights by system name (a list would follow no order)
        mine = {"weights": dict.fromkeys(frame["system"].unique(), 1 / args.runs)} if (
            params is None) else params
        t_pd, ours = timed(partial(ta.fuse, frame, method, norm, **mine), args.repeats)
        t_pl, _ = timed(partial(ta.fuse, polars_frame, method, norm, **mine), args.repeats)
        cells = [method, str(norm), f"{t_pd:.2f}", f"{t_pl:.2f}", "–", "–", "–", "–"]
        if not args.no_ranx:
            t_rx, fused = timed(partial(run_ranx, frame, method, norm, kw), args.repeats)
            t_df, theirs = timed(fused.to_dataframe, 1)
            both = ours.merge(theirs.rename(columns={"q_id": "qid", "doc_id": "docid",
                                                     "score": "ranx"}), on=["qid", "docid"])
            assert len(both) == len(ours) == len(theirs)
            cells[4:] = [f"{t_rx:.2f}", f"{t_df:.2f}", f"{t_rx / t_pd:.1f}×",
                         f"{np.abs(both['score'] - both['ranx']).max():.1e}"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
