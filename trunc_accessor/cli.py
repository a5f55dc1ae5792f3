"""Command line: ``trunc-accessor RUN QRELS -m ndcg@10 ap [--ties trec_eval] [-q]``.

Metric names are the registry's (``trunc-accessor --list``). Output is trec_eval-like,
tab-separated ``metric  qid  value`` lines (``-q`` per query, always the mean as ``all``).
"""
from __future__ import annotations

import argparse
import math
import sys

from . import REGISTRY, aggregate, read_qrels, read_run
from .prepare import TIES
from .registry import parse_all


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="trunc-accessor", description=__doc__.splitlines()[0])
    ap.add_argument("run", nargs="?", help="TREC run file (qid Q0 docid rank score runid)")
    ap.add_argument("qrels", nargs="?", help="TREC qrels file (qid iter docid rel)")
    ap.add_argument("-m", "--metrics", nargs="+", default=["ap", "ndcg@10", "rr", "precision@10"],
                    help="metric strings, e.g. ndcg@10 'rbp(p=0.5)' (default: %(default)s)")
    ap.add_argument("--ties", choices=TIES, default="average")
    ap.add_argument("-l", "--relevance-level", type=float, default=1)
    ap.add_argument("-q", "--per-query", action="store_true", help="also print each query")
    ap.add_argument("--list", action="store_true", help="list the metrics and exit")
    args = ap.parse_args(argv)
    if args.list:
        for m in REGISTRY.values():
            params = ", ".join(f"{p.name}={p.default!r}" for p in m.params)
            print(f"{m.name}({params})\t{m.summary}")
        return 0
    if not (args.run and args.qrels):
        ap.error("RUN and QRELS are required (or --list)")
    try:
        measures = parse_all(args.metrics)
        res = read_run(args.run).ir.evaluate(read_qrels(args.qrels), measures, ties=args.ties,
                                              relevance_level=args.relevance_level)
    except ValueError as e:
        print(f"trunc-accessor: {e}", file=sys.stderr)
        return 2
    means = aggregate(res)
    for col in res.columns:
        if args.per_query:
            for qid, v in res[col].items():
                print(f"{col}\t{qid}\t{'nan' if math.isnan(v) else f'{v:.4f}'}")
        print(f"{col}\tall\t{means[col]:.4f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
