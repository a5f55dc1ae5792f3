"""Compare the seven retrieval systems shipped with the Cranfield example against BM25:
the experiment table (means, intervals, paired t-tests with Holm correction) as markdown,
the per-topic differences of TF-IDF against BM25 on nDCG@10 and the interpolated
precision–recall curves of every system.

    python examples/compare_systems.py [--report PATH] [--differences PNG] [--pr PNG]
                                       [--depth N]

By default the report is only printed and the plots go to topic_differences.png and
pr_curves.png in the working directory (folders in a given path are created; the
documentation's figures are made with --differences docs/topic_differences.png --pr
docs/pr_curves.png). ``--depth N`` compares each ranking's top N only
(``load_example("cranfield", depth=N)``; default: the shipped top 1,000), which is faster
and changes the measures that look deeper than N (here MAP and the recall axis).
"""
import argparse
from pathlib import Path

import matplotlib

import trunc_accessor as ta


def main(report=None, differences=Path("topic_differences.png"), pr=Path("pr_curves.png"),
         depth=None):
    matplotlib.use("Agg")  # write files, open no window
    import matplotlib.pyplot as plt

    runs, qrels = ta.load_example("cranfield", depth=depth)
    metrics = ["nDCG@10", "map"]
    table, per_query = ta.experiment(runs, qrels, metrics, baseline="bm25", per_query=True)
    text = ta.report(table)
    print(text)
    for path in (report, differences, pr):
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    if report is not None:
        Path(report).write_text(text + "\n", encoding="utf-8")
        print("wrote", report)

    # Which topics does TF-IDF win or lose against BM25?
    ax = ta.plot.topic_differences(per_query, "tfidf", "bm25", "nDCG@10")
    ax.figure.tight_layout()
    ax.figure.savefig(differences, dpi=90)
    print("wrote", differences)

    # 11-point interpolated precision-recall curves (trec_eval's iprec_at_recall)
    ax = ta.plot.precision_recall(runs, qrels)
    ax.figure.tight_layout()
    ax.figure.savefig(pr, dpi=90)
    print("wrote", pr)
    plt.close("all")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", type=Path, help="also write the markdown table here")
    parser.add_argument("--differences", type=Path, default=Path("topic_differences.png"))
    parser.add_argument("--pr", type=Path, default=Path("pr_curves.png"))
    parser.add_argument("--depth", type=int, help="keep each ranking's top N documents")
    args = parser.parse_args()
    main(args.report, args.differences, args.pr, args.depth)
