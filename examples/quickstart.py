"""The README's first example: real data shipped with the package (trec_eval's own test
run and qrels, topics 301-303), evaluated from pandas and from Polars."""
import polars as pl

import trunc_accessor as ta

run, qrels = ta.load_example()                      # pandas frames: qid, docid, score, system
print(run.head(3), end="\n\n")

print(run.ir.ndcg(qrels, k=10), end="\n\n")         # per-query Series; tie-aware by default

per_query = run.ir.evaluate(qrels, ["ndcg@10", "ap", "rr", "precision@10", "rbp(p=0.8)"])
print(per_query, end="\n\n")
print("system means (tie-aware):", ta.aggregate(per_query).round(4).to_dict(), end="\n\n")

exact = run.ir.evaluate(qrels, ["ap", "ndcg@10"], ties="trec_eval")
print("as trec_eval (map 0.1785, ndcg_cut_10 0.3016):", exact.mean().round(4).to_dict(), end="\n\n")

runs = pl.from_pandas(run)                           # the same in Polars, eager and lazy
print(runs.lazy().ir.evaluate(pl.from_pandas(qrels), ["ap", "bpref"]).collect())
