"""The command line's ndeval mode: ``trunc-accessor --format ndeval [-c] [-traditional]
[-alpha A] [-beta B] [-M N] QRELS RUN [RUN ...]`` prints what the TREC Web track's ndeval
(version 4.5) prints, line for line: a CSV header, one line per topic of the run and an
``amean`` line, with the 21 diversity columns (ERR-IA, nERR-IA, α-DCG, α-nDCG at 5, 10 and
20, NRBP, nNRBP, MAP-IA, P-IA and subtopic recall at 5, 10 and 20), 6 decimals.

As ndeval: the run is ordered by its rank column, or with ``-traditional`` by score
descending then docno descending; ``-M N`` keeps the first N documents; the mean is over the
topics of both the run and the qrels, or with ``-c`` over every qrels topic (a topic the
run lacks adds 0); a run topic without judgments prints zeros and is not averaged; topics
are numbers, a run's topic may carry a task prefix up to its first '-' (``wt12-152`` is
topic 152, ``0152`` too), and topics print in numeric order. Several runs print one block
each. ``--ties average`` gives the
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
    """Topics print in numeric order (ndeval's are numbers), other names after them."""
    return (0, int(qid)) if qid.isdigit() else (1, qid)


def _topics(frame, run: bool):
    """``frame`` with its qids read as ndeval reads topics: a number ("0152" is 152); in a
    run, also a task prefix up to the first '-' before the number ("wt12-152", ndeval.c's
    parseTopic). Other names are kept as they are (ndeval stops at them)."""
    import polars as pl

    q = pl.col("qid").cast(pl.String)
    prefixed = q.str.extract(r"^(?:[^0-9-][^-]*)?-([0-9]+)$", 1) if run else pl.lit(None)
    digits = pl.when(q.str.contains(r"^[0-9]+$")).then(q).otherwise(prefixed)
    number = digits.str.to_integer(strict=False).cast(pl.String)
    return frame.with_columns(pl.coalesce(number, q).alias("qid"))


def build_parser(version: str | None = None):
    """``trunc-accessor-ndeval``'s options: ndeval's (``-c``, ``-M``, ``-alpha``, ``-beta``,
    ``-traditional``, ``-help``, ``-version`` when a ``version`` is given: the entry points of
    ``trunc_accessor.__main__`` give the package's) and the library's ``--ties`` and ``-l``."""
    from trunc_accessor.frontends.cli.options import Parser

    ap = Parser(
        prog="trunc-accessor-ndeval", add_help=False,
        description="The TREC Web track's ndeval (version 4.5) for novelty and diversity: "
                    "a CSV of ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG at 5, 10 and 20, NRBP, "
                    "nNRBP, MAP-IA, P-IA and subtopic recall (strec) at 5, 10 and 20, one "
                    "line per topic of the run and an amean line, 6 decimals.",
        epilog="A run topic prefixed by a task name up to a '-' (wt12-152) is that topic "
               "(152), as ndeval reads it. The same as trunc-accessor --format ndeval. Exit "
               "status 0 on success, 2 on bad input (one line on stderr).")
    ap.add_argument("files", nargs="*", metavar="QRELS RUN",
                    help="a diversity qrels file (topic subtopic docno grade), then one or "
                         "more TREC run files (- for stdin; gzip, bzip2 and xz files are read "
                         "as such)")
    ap.add_argument("-c", action="store_true",
                    help="average over every qrels topic (a topic the run lacks adds 0), not "
                         "only over the topics of both the run and the qrels")
    ap.add_argument("-a", action="store_true",
                    help="accepted and ignored, as ndeval ignores it (its columns are always "
                         "all 21)")
    ap.add_argument("-M", type=int, default=None, metavar="N",
                    help="keep the first N documents of every ranking (N >= 1)")
    ap.add_argument("-alpha", "--alpha", type=float, default=None, metavar="A",
                    help="redundancy penalty of alpha-nDCG and NRBP, in [0, 1] (0.5)")
    ap.add_argument("-beta", "--beta", type=float, default=None, metavar="B",
                    help="patience of NRBP, in [0, 1] (0.5)")
    ap.add_argument("-traditional", "--traditional", action="store_true",
                    help="order each ranking by score, then docno, both descending (else by "
                         "the rank column)")
    ap.add_argument("--ties", choices=("first", "trec_eval", "average"), default=None,
                    help="first: the rank column's order (the default); trec_eval: score "
                         "then docno (the default with -traditional); average: the exact "
                         "mean over every order of tied scores")
    ap.add_argument("-l", type=float, default=1, metavar="N",
                    help="relevance level: grades >= N are relevant (default 1, ndeval's)")
    ap.add_argument("-h", "-help", "--help", action="help", help="show this help and exit")
    if version is not None:
        ap.add_argument("-version", "--version", action="version",
                        version=f"trunc-accessor-ndeval {version} (ndeval version 4.5's "
                                "output)")
    ap.set_defaults(format="ndeval", measure=None, imports=[], list=False)
    return ap


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

    from trunc_accessor.frontends import polars as _polars  # noqa: F401  (the Polars accessor)
    from trunc_accessor.io.read import read_qrels, read_run

    if args.measure:
        raise error("--format ndeval prints ndeval's 21 columns; -m is not taken")
    alpha = 0.5 if args.alpha is None else args.alpha
    beta = 0.5 if args.beta is None else args.beta
    for name, value in (("-alpha", alpha), ("-beta", beta)):
        if not 0 <= value <= 1:
            raise error(f"{name} takes a number in [0, 1], not {value}")
    if args.M is not None and args.M <= 0:  # ndeval: usage()
        raise error(f"-M takes a depth ≥ 1, not {args.M}")
    ties = args.ties or ("trec_eval" if args.traditional else "first")
    qrels = _topics(read_qrels(args.files[0], library="polars", subtopics=True), run=False)
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
        run = _topics(run.drop("system"), run=True)
        if args.M is not None:
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
            yield f"{runid},{q}," + ",".join(_f(v) for v in row)
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
