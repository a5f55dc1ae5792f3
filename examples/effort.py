"""Effort analysis (the guide docs/guides/effort.md): Twist next to AP on the shipped
trec_eval test run, the archetype of each topic's CRP curve, and the guide's CRP plot
(docs/crp.png, or the path given as the first argument)."""
import sys
from pathlib import Path

import matplotlib

import trunc_accessor as ta

OUT = Path(__file__).resolve().parents[1] / "docs" / "crp.png"


def main(out=OUT):
    matplotlib.use("Agg")  # write a file, open no window
    run, qrels = ta.load_example()

    # The run ties scores: CRP and σ± are exact means over tie orders, ρ, σ and τ need an order
    print(run.ir.evaluate(qrels, ["ap", "twist", "recovery_ratio", "space_ratio",
                                  "space_ratio_plus", "space_ratio_minus"], ties="trec_eval"),
          end="\n\n")
    print(run.ir.crp_archetype(qrels, ties="trec_eval"), end="\n\n")

    # CRP curves (Ferro et al. Figure 2): the run, the ideal and full-scale runs, RB
    fig = run.ir.plot_crp(qrels, qids=["301", "302", "303"], figsize=(12, 3.4))
    fig.savefig(out, dpi=90)
    print("wrote", out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
