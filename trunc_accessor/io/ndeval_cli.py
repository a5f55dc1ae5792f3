"""The command line's ndeval mode: ``trunc-accessor --format ndeval [-c] [-traditional]
[-alpha A] [-beta B] [-M N] QRELS RUN [RUN ...]`` prints what the TREC Web track's ndeval
(version 4.5) prints, line for line: a CSV header, one line per topic of the run and an
``amean`` line, with the 21 diversity columns (ERR-IA, nERR-IA, α-DCG, α-nDCG at 5, 10 and
20, NRBP, nNRBP, MAP-IA, P-IA and subtopic recall at 5, 10 and 20), 6 decimals.

As ndeval: the run is ordered by its rank column, or with ``-traditional`` by score
descending then docno descending; ``-M N`` keeps the first N documents; the mean is over the
topics of both the run and the qrels, or with ``-c`` over every qrels topic (a topic the
run lacks adds 0); a run topic without judgments prints zeros and is not averaged; topics
print in numeric order. Several runs print one block each. ``--ties average`` gives the
exact mean over the orders of tied scores instead.
"""
from __future__ import annotations

import math

# ndeval's columns, in its order, and the library's measure for each
COLUMNS = [(f"{name}@{k}", f"{ours}@{k}") for name, ours in
           (("ERR-IA", "err_ia"), ("nERR-IA", "nerr_ia"), ("alpha-DCG", "alpha_dcg"),
            ("alpha-nDCG", "alpha_ndcg")) for k in (5, 10, 20)]
COLUMNS += [("NRBP", "nrbp"), ("nNRBP", "nnrbp"), ("MAP-IA", "map_ia")]
COLUMNS += [(f"{name}@{k}", f"{ours}@{k}") for name, ours in
            (("P-IA", "p_ia"), ("strec", "s_recall")) for k in (5, 10, 20)]


def _topic_key(qid: str):
    """ndeval numbers topics: "151" → 151 (a prefix up to a '-' is skipped: "wt12-151")."""
    digits = qid.rsplit("-", 1)[-1]
    return (0, int(digits)) if digits.isdigit() else (1, qid)


def _measures(alpha: float, beta: float) -> list[str]:
    out = []
    for _name, ours in COLUMNS:
        base = ours.split("@")[0]
        if base in ("map_ia", "p_ia", "s_recall"):
            out.append(ours)
            continue
        params = f"alpha={alpha!r}" + (f",beta={beta!r}" if base in ("nrbp", "nnrbp") else "")
        out.append(f"{ours}({params})")
    return out


def lines(args, error):
    """The output lines for ``args`` (the parsed command line); ``error`` is the exception
    class for a bad option or file."""
    import polars as pl

    from ..frontends import polars as _polars  # noqa: F401  (the Polars accessor)
    from .read import read_qrels, read_run

    if args.measure:
        raise error("--format ndeval prints ndeval's 21 columns; -m is not taken")
    alpha = 0.5 if args.alpha is None else args.alpha
    beta = 0.5 if args.beta is None else args.beta
    for name, value in (("-alpha", alpha), ("-beta", beta)):
        if not 0 <= value <= 1:
            raise error(f"{name} takes a number in [0, 1], not {value}")
    ties = args.ties or ("trec_eval" if args.traditional else "first")
    qrels = read_qrels(args.files[0], library="polars", subtopics=True)
    if qrels.height == 0:
        raise error(f"{args.files[0]} holds no judgment: nothing to evaluate")
    qrels_qids = set(qrels["qid"].cast(pl.String).to_list())
    measures = _measures(alpha, beta)
    yield "runid,topic," + ",".join(name for name, _ in COLUMNS)
    for path in args.files[1:]:
        run = read_run(path, library="polars", keep_rank=ties == "first")
        if run.height == 0:
            raise error(f"{path} holds no run line (ndeval stops there too)")
        runid = str(run["system"].drop_nulls()[0]) if run["system"].null_count() < run.height \
            else path
        run = run.drop("system")
        if args.M is not None:
            if args.M <= 0:
                raise error(f"-M takes a depth ≥ 1, not {args.M}")
            run = _cut(run, args.M, ties)
        res = run.ir.evaluate(qrels, measures, ties=ties, relevance_level=args.l,
                              undefined="zero", names="canonical")
        labels = [c for c in res.columns if c != "qid"]
        values = {str(q): row for q, *row in res.select("qid", *labels).iter_rows()}
        run_qids = sorted(set(run["qid"].cast(pl.String).to_list()), key=_topic_key)
        totals = [0.0] * len(labels)
        for q in run_qids:
            row = values.get(q, [0.0] * len(labels)) if q in qrels_qids else [0.0] * len(labels)
            if q in qrels_qids:
                totals = [t + v for t, v in zip(totals, row)]
            yield f"{runid},{_topic_key(q)[1]}," + ",".join(_f(v) for v in row)
        n = len(qrels_qids) if args.c else len(qrels_qids & set(run_qids))
        yield f"{runid},amean," + ",".join(_f(t / n) if n else "nan" for t in totals)


def _cut(run, depth: int, ties: str):
    """The first ``depth`` documents of every ranking in ndeval's order (rank, or score then
    docno, both descending, for -traditional); ``--ties average`` cuts in score order,
    docno breaking the ties at the cut as -traditional does."""
    import polars as pl

    if ties == "first":
        by, desc = ["qid", "rank"], [False, False]
        run = run.sort(by, descending=desc, maintain_order=True)
    else:
        run = run.with_columns(pl.col("docid").cast(pl.String).alias("_doc"))
        run = run.sort(["qid", "score", "_doc"], descending=[False, True, True],
                       maintain_order=True).drop("_doc")
    return run.filter(pl.int_range(pl.len()).over("qid") < depth)


def _f(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.6f}"
