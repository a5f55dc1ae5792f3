"""Evaluating truncated rankings (the guide docs/guides/truncation.md): the shipped
trec_eval test run, whose rankings are cut where a system might have stopped, scored by
metrics that know a ranking's length was the system's choice."""
import pandas as pd

import trunc_accessor as ta

run, qrels = ta.load_example()

# A system that stops after 5, 20 and 0 documents (an empty answer) for topics 301-303
stops = pd.Series({"301": 5, "302": 20, "303": 0}).rename_axis("qid")
short = run.ir.truncate(stops)

# Plain metrics cannot tell an empty answer from a bad one; terminal-document metrics can
print(short.ir.evaluate(qrels, ["rbp(p=0.8)", "rbp_prime(p=0.8)", "ap", "ap_prime", "err_prime"]),
      end="\n\n")

# The same run at every cut-off, and the oracle cut-off of each topic (Amigó et al. §4.2)
curve = run.ir.cutoff_curve(qrels, "rbp_prime", p=0.8, max_depth=50)
print(curve.pivot(index="depth", columns="qid", values="value").iloc[[0, 1, 5, 10, 20, 50]],
      end="\n\n")
best = run.ir.optimal_cutoff(qrels, "rbp_prime", p=0.8)
print(best, end="\n\n")
oracle = run.ir.truncate(best["depth"])
print("oracle-truncated RBP':", oracle.ir.rbp_prime(qrels).round(4).to_dict())
print("full-length RBP':     ", run.ir.rbp_prime(qrels).round(4).to_dict())
