"""Where one ``run.ir.evaluate`` call spends its time: a pyinstrument profile (wall clock,
5 ms samples) of one call after a warm-up, on the benchmark data made by bench/run.sh.

  pip install pyinstrument
  python bench/profile.py bench-data/large                        # Polars, ties="average"
  python bench/profile.py bench-data/large --input pandas --ties first
  python bench/profile.py bench-data/large --input pandas --ids object   # pandas 2-style ids
"""
from __future__ import annotations

import argparse
import os

METRICS = ["ndcg@10", "ap", "rr", "P@10"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--input", choices=("pandas", "polars"), default="polars")
    ap.add_argument("--ties", default="average")
    ap.add_argument("--ids", default="",
                    help="pandas only: the qid and docid columns as this dtype (object, "
                         "category, string[python], ...)")
    a = ap.parse_args()

    import pandas as pd
    import polars as pl
    from pyinstrument import Profiler

    import trunc_accessor  # noqa: F401  (registers .ir)

    read = pl.read_parquet if a.input == "polars" else pd.read_parquet
    run = read(os.path.join(a.data, "run.parquet"))
    qrels = read(os.path.join(a.data, "qrels.parquet"))
    if a.ids and a.input == "pandas":
        run = run.astype({"qid": a.ids, "docid": a.ids})
        qrels = qrels.astype({"qid": a.ids, "docid": a.ids})
    run.ir.evaluate(qrels, METRICS, ties=a.ties)  # warm-up
    profiler = Profiler(interval=0.005)
    profiler.start()
    run.ir.evaluate(qrels, METRICS, ties=a.ties)
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False))


if __name__ == "__main__":
    main()
