"""The command line's sample_eval mode: ``trunc-accessor-sample-eval [-q] QRELS RUN
[-G LVL:NUM ...]`` prints what NIST's ``sample_eval.pl`` (version of 10 Oct 2011, the
TREC Clinical Decision Support track's) prints, byte for byte: with ``-q`` for every topic
of both the run and the qrels (in numeric order) infAP, infNDCG, iP10, iP50, iP1000,
inum_rel_ret, inum_rel and num_ret, then for all topics their means (the counts summed),
with the interpolated precision at the 11 recall levels.

As the script: the qrels have five fields a line (topic, iteration, docno, stratum,
grade; a negative grade is a pooled document that was not sampled), the run six; a run
topic loses its leading zeros; a ranking is read in order of score, then docno, both
descending, down to rank 1000; a grade > 0 is relevant; ``-G 1:2 2:4`` maps grade 1 to
gain 2 and grade 2 to gain 4 (its first character to the three after the colon, as the
script reads it); inum_rel for all topics sums every qrels topic, num_ret the documents
read (at most 1000 a topic). Unlike the script, ``-q`` and ``-G`` may be given together,
and a document judged twice for a topic is an error (the script counts it twice).
"""
from __future__ import annotations

import re
import sys
import warnings

from trunc_accessor.metrics._sampled import MAX_RESULT_SIZE, RECALL_LEVELS

CUTS = (10, 50, MAX_RESULT_SIZE)  # the script's @precisionranks


class SampleEvalError(ValueError):
    """Bad input on the command line (one line on stderr, exit status 2)."""


def _tokens(path: str, width: int, what: str) -> list[list[str]]:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            words = f.read().split()
    except OSError as e:
        raise SampleEvalError(f"Failed to open {path}: {e.strerror}") from None
    if len(words) % width:
        raise SampleEvalError(f"{path}: {len(words)} fields, not a multiple of {width} "
                              f"({what})")
    return [words[i:i + width] for i in range(0, len(words), width)]


def _gain_map(args: list[str]) -> dict[str, str]:
    """-G's LVL:NUM pairs as the script reads them: the first character, and up to three
    characters after the second."""
    out = {}
    for a in args:
        if len(a) < 3:
            raise SampleEvalError(f"-G takes LVL:NUM pairs, not {a!r}")
        out[a[:1]] = a[2:5]
    return out


def _numeric_key(topic: str):
    """Perl's numeric value of a topic (its leading number; 0 without one), then the text."""
    m = re.match(r"\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)", topic)
    return (float(m.group(0)) if m else 0.0, topic)


def _frames(qrels_path: str, run_path: str, gains: dict[str, str]):
    import polars as pl

    q = _tokens(qrels_path, 5, "topic iteration docno stratum grade")
    r = _tokens(run_path, 6, "topic Q0 docno rank score runid")
    try:
        grades = [float(gains.get(x[4], x[4])) for x in q]
        scores = [float(x[4]) for x in r]
    except ValueError as e:
        raise SampleEvalError(f"a grade or score that is not a number: {e}") from None
    qrels = pl.DataFrame({"qid": [x[0] for x in q], "docid": [x[2] for x in q],
                          "stratum": [x[3] for x in q], "rel": grades},
                         schema={"qid": pl.String, "docid": pl.String, "stratum": pl.String,
                                 "rel": pl.Float64})
    run = pl.DataFrame({"qid": [re.sub(r"^0*", "", x[0]) for x in r],
                        "docid": [x[2] for x in r], "score": scores},
                       schema={"qid": pl.String, "docid": pl.String, "score": pl.Float64})
    return qrels, run


def lines(qrels_path: str, run_path: str, per_query: bool, gains: dict[str, str]):
    """The script's output lines (without their newlines)."""
    import polars as pl

    from trunc_accessor.frontends import polars as _polars  # noqa: F401  (the accessor)
    from trunc_accessor.warn import DroppedQueriesWarning, IdentifierWarning

    qrels, run = _frames(qrels_path, run_path, gains)
    positive = qrels.filter(pl.col("rel") > 0)["rel"]
    level = float(positive.min()) if positive.len() else 1.0  # the script's "grade > 0"
    names = (["xinfap", "infndcg"] + [f"ip@{k}" for k in CUTS]
             + ["inum_rel_ret", "inum_rel"]
             + [f"inf_iprec_at_recall(recall={x!r})" for x in RECALL_LEVELS])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedQueriesWarning)
        warnings.simplefilter("ignore", IdentifierWarning)
        res = run.ir.evaluate(qrels, names, ties="trec_eval", undefined="zero",
                              relevance_level=level, names="as_written")
    values = {row[0]: row[1:] for row in res.select("qid", *names).iter_rows()}
    counts = dict(run.group_by("qid").len().iter_rows())
    topics = sorted(set(counts) & set(values), key=_numeric_key)
    if not topics:
        raise SampleEvalError("no topic is in both the run and the qrels (the script "
                              "stops on a division by zero)")
    sums = [0.0] * len(names)
    for t in topics:
        v = values[t]
        sums = [a + b for a, b in zip(sums, v)]
        if per_query:
            yield from _topic_lines(t, v, counts[t])
    n = len(topics)
    yield f"infAP\t\tall\t\t{sums[0] / n:6.4f}"
    yield f"infNDCG\t\tall\t\t{sums[1] / n:6.4f}"
    for i, x in enumerate(RECALL_LEVELS):
        yield f"iprec@rec{x:4.2f}\tall\t\t{sums[7 + i] / n:6.4f}"
    for i, k in enumerate(CUTS):
        yield f"iP{k}\t\tall\t\t{sums[2 + i] / n:6.4f}"
    yield f"inum_rel_ret\tall\t{sums[5]:14.4f}"
    yield f"inum_rel\tall\t{sum(v[6] for v in values.values()):14.4f}"
    yield f"num_ret\t\tall\t{sum(min(counts[t], MAX_RESULT_SIZE) for t in topics):9d}"


def _topic_lines(t: str, v, num_ret: int):
    yield f"infAP\t\t{t}\t\t{v[0]:6.4f}"
    yield f"infNDCG\t\t{t}\t\t{v[1]:6.4f}"
    for i, k in enumerate(CUTS):
        yield f"iP{k}\t\t{t}\t\t{v[2 + i]:6.4f}"
    yield f"inum_rel_ret\t{t}\t{v[5]:14.4f}"
    yield f"inum_rel\t{t}\t{v[6]:14.4f}"
    yield f"num_ret\t\t{t}\t{num_ret:9d}"


USAGE = "Usage:  trunc-accessor-sample-eval [-q] <qrel_file> <trec_file> [-G LVL:NUM ...]"


def main(argv: list[str] | None = None, version: str | None = None) -> int:
    """``trunc-accessor-sample-eval``: the exit status (0, or 2 on bad input)."""
    from trunc_accessor.frontends.cli.trec_eval import _one_line_warnings

    _one_line_warnings("trunc-accessor-sample-eval")
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "-help", "--help"):
        print(USAGE + "\n\n" + (__doc__ or "").split("\n\n", 1)[1].strip())
        return 0
    if args and args[0] in ("-version", "--version"):
        print(f"trunc-accessor-sample-eval {version} (sample_eval.pl of 10 Oct 2011's output)")
        return 0
    per_query = bool(args) and args[0] == "-q"
    if per_query:
        args = args[1:]
    gains: dict[str, str] = {}
    try:
        if len(args) > 2:
            if args[2] != "-G" or len(args) < 4:
                raise SampleEvalError(f"unexpected argument {args[2]!r}; {USAGE}")
            gains = _gain_map(args[3:])
        if len(args) < 2:
            raise SampleEvalError(USAGE)
        out = "".join(line + "\n" for line in lines(args[0], args[1], per_query, gains))
    except ValueError as e:
        print(f"trunc-accessor-sample-eval: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(out)
    return 0
