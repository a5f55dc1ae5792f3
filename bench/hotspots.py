"""Where does trunc_accessor's time go? cProfile + a step-by-step timing of one
``run.ir.evaluate`` call on the benchmark data (bench-data/<size>, made by bench/run.sh).

  python bench/hotspots.py bench-data/medium                 # pandas input, ties="trec_eval"
  python bench/hotspots.py bench-data/medium --input polars
  python bench/hotspots.py bench-data/medium --ties average --top 30

Prints (1) the median wall time of the call, (2) the library's steps timed one by one
(the same calls engine.compute makes, in order), (3) the cProfile top functions by
internal time and by cumulative time. Polars and NumPy work shows up under the Python
method that launched it (e.g. polars DataFrame.sort / join, numpy bincount).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import time

METRICS = ["ndcg@10", "ap", "rr", "precision@10", "rbp(p=0.8)"]


def load(data: str, kind: str):
    if kind == "polars":
        import polars as pl
        return (pl.read_parquet(os.path.join(data, "run.parquet")),
                pl.read_parquet(os.path.join(data, "qrels.parquet")))
    import pandas as pd
    return (pd.read_parquet(os.path.join(data, "run.parquet")),
            pd.read_parquet(os.path.join(data, "qrels.parquet")))


def steps(run, qrels, ties: str) -> dict[str, float]:
    """engine.compute, step by step (same calls, same order), with timings; the parts of
    frames.normalise are re-implemented here, the whole steps are the library's own."""
    import polars as pl

    from trunc_accessor import engine, frames
    from trunc_accessor import prepare as prep_mod
    from trunc_accessor.registry import evaluate_prepared, parse_all

    out: dict[str, float] = {}

    def tick(name, t0):
        out[name] = out.get(name, 0.0) + time.perf_counter() - t0

    measures = parse_all(METRICS)
    t0 = time.perf_counter()
    cols = engine.columns_of(run, qrels, None)
    r = frames.to_polars(run, engine.run_columns(cols))
    q = frames.to_polars(qrels, engine.qrels_columns(cols))
    tick("frames.to_polars (run+qrels)", t0)

    # frames.normalise, split into its parts
    t0 = time.perf_counter()
    kt = frames.key_types(r.schema, q.schema, cols, None)
    rr = r.select(pl.col("qid").cast(kt.qid), pl.col("docid").cast(kt.docid),
                  pl.col("score").cast(pl.Float64), pl.col("rank").cast(pl.Float64))
    tick("normalise: casts", t0)
    t0 = time.perf_counter()
    for c in ("qid", "docid"):
        rr[c].is_null().any()
    for c in ("score", "rank"):
        (rr[c].is_null() | rr[c].is_nan()).any()
    tick("normalise: null/NaN checks", t0)
    # the duplicate-document check, re-implemented here both ways (the library's own code
    # may differ: compare with "frames.normalise (whole)" below)
    t0 = time.perf_counter()
    rr.select(pl.struct(["qid", "docid"]).is_duplicated()).to_series().any()
    tick("normalise: run duplicate check, exact struct.is_duplicated (re-implemented)", t0)
    t0 = time.perf_counter()
    rr.select(pl.struct(["qid", "docid"]).hash().n_unique()).item()
    tick("normalise: run duplicate check, 64-bit hash n_unique (re-implemented)", t0)
    t0 = time.perf_counter()
    qq = q.select(pl.col("qid").cast(kt.qid), pl.col("docid").cast(kt.docid),
                  pl.col("rel").cast(pl.Float64)).unique(maintain_order=True)
    qq.select(pl.struct("qid", "docid").is_duplicated()).to_series().any()
    tick("normalise: qrels unique + conflict check", t0)

    t0 = time.perf_counter()
    r2, q2, qs = frames.normalise(r, q, cols, None)
    tick("frames.normalise (whole: the library's own code)", t0)

    t0 = time.perf_counter()
    p = prep_mod.prepare(r2, q2, by=cols.by, queries=qs, ties=ties)
    tick("prepare.prepare (whole: the library's own code)", t0)

    t0 = time.perf_counter()
    for m in measures:
        t1 = time.perf_counter()
        evaluate_prepared(p, [m], 1.0)
        tick(f"kernel {m.label}", t1)
    tick("kernels (all)", t0)
    return out


def prepare_steps(run, qrels, ties: str) -> dict[str, float]:
    """prepare.prepare's Polars operations one by one (re-implemented with the same
    expressions as at the time of writing; compare with "prepare.prepare (whole)")."""
    import numpy as np
    import polars as pl

    from trunc_accessor import engine, frames
    out: dict[str, float] = {}

    def tick(name, t0):
        out[name] = time.perf_counter() - t0

    cols = engine.columns_of(run, qrels, None)
    r, q, _ = frames.normalise(frames.to_polars(run, engine.run_columns(cols)),
                               frames.to_polars(qrels, engine.qrels_columns(cols)), cols, None)
    t0 = time.perf_counter()
    scored = q.select("qid").unique().sort("qid").with_row_index("_q")
    tick("scored qids (unique+sort)", t0)
    t0 = time.perf_counter()
    r = r.join(scored, on="qid", how="left", maintain_order="left")
    r.filter(pl.col("_q").is_null())
    tick("join run x scored qids + dropped filter", t0)
    t0 = time.perf_counter()
    seg = scored.with_row_index("_seg")
    r = r.join(seg.select("qid", "_seg"), on="qid", how="left", maintain_order="left")
    tick("join run x segments", t0)
    t0 = time.perf_counter()
    if ties == "trec_eval":
        r = r.sort(["_seg", "score", pl.col("docid").cast(pl.String)],
                   descending=[False, True, True], maintain_order=True)
    else:
        r = r.sort(["_seg", "rank"], maintain_order=True)
    tick(f"sort (ties={ties})", t0)
    t0 = time.perf_counter()
    r = r.join(q.select("qid", "docid", "rel"), on=["qid", "docid"], how="left",
               maintain_order="left")
    tick("join run x qrels (qid, docid)", t0)
    t0 = time.perf_counter()
    r["_seg"].to_numpy().astype(np.int64, copy=False)
    r["rel"].fill_null(np.nan).to_numpy()
    r["score"].to_numpy()
    tick("to_numpy", t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--input", choices=("pandas", "polars"), default="pandas")
    ap.add_argument("--ties", default="trec_eval")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--top", type=int, default=20)
    a = ap.parse_args()

    import trunc_accessor
    run, qrels = load(a.data, a.input)
    call = lambda: run.ir.evaluate(qrels, METRICS, ties=a.ties)
    call()  # warm-up
    times = []
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    print(f"# trunc_accessor {trunc_accessor.__version__} from {trunc_accessor.__file__}")
    print(f"# {a.data} input={a.input} ties={a.ties}: run.ir.evaluate median "
          f"{statistics.median(times):.3f}s (min {min(times):.3f}, max {max(times):.3f}, n={a.repeats})")

    print("\n## engine.compute step by step (median of repeats, s)")
    agg: dict[str, list[float]] = {}
    for _ in range(a.repeats):
        for k, v in steps(run, qrels, a.ties).items():
            agg.setdefault(k, []).append(v)
        for k, v in prepare_steps(run, qrels, a.ties).items():
            agg.setdefault("prepare: " + k, []).append(v)
    for k, v in agg.items():
        print(f"{statistics.median(v):8.3f}  {k}")

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        call()
    prof.disable()
    for key in ("tottime", "cumulative"):
        s = io.StringIO()
        st = pstats.Stats(prof, stream=s).strip_dirs().sort_stats(key)
        st.print_stats(a.top)
        print(f"\n## cProfile, 3 calls, sorted by {key}")
        print("\n".join(line for line in s.getvalue().splitlines()
                        if line.strip() and not line.startswith(("   Ordered", "   List"))))


if __name__ == "__main__":
    main()
