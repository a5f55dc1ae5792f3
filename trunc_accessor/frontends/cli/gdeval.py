"""The command line's gdeval mode: ``trunc-accessor-gdeval [-c] [-k K] [-baseline RUN
[-riskAlpha A]] QRELS RUN`` prints what gdeval.pl 1.3 prints (the TREC 2010-14 Web track's
script), byte for byte: the CSV ``runid,topic,ndcg@K,err@K`` with one line per topic of the
run that has a relevant document, then ``amean``, the mean over those topics (``-c``: over
every topic of the qrels with a relevant document, a topic the run did not answer counting
0). nDCG@K has gains 2^g − 1 and a log2 discount, its ideal ranking every judged document
of the topic; ERR@K stops at a document of grade g with probability (2^g − 1)/16. With
``-baseline``, each value is the risk-weighted difference to the baseline run's (a loss
counts 1 + A times, A from ``-riskAlpha``, default 0: URisk, Wang et al., SIGIR 2012), the
run id reads ``RUNID (rel to. BASEID; rs=1+a; a=A)``, and with ``-c`` the topics the run did
not answer follow, each an empty ranking against the baseline.

As the script: the files may be compressed (a name with .gz or .bz2); the qrels have four
fields a line (topic, 0, docno, grade ≤ 4) and the run six (topic, Q0, docno, rank, score,
run id; the last line's run id names the run); a topic loses everything up to its last "-"
(wt12-151 is 151); a ranking is ordered by score, then docno, both descending; a topic the
baseline did not answer scores 0 for it. Unlike the script, a topic loses its leading zeros,
a document judged twice for a topic is an error, and where neither the run nor the baseline
answered a topic (``-c``), the baseline scores 0 there (gdeval.pl 1.3 reuses the previous
such topic's baseline value).
"""
from __future__ import annotations

import re
import sys

from trunc_accessor.metrics.gdeval_sums import gdeval_sums

MAX_JUDGMENT = 4  # the script's largest grade
USAGE = ("Usage:  trunc-accessor-gdeval [-c] [-k K] [-baseline BASELINE_RUN] "
         "[-riskAlpha A] <qrels> <run>")


class GdevalError(ValueError):
    """Bad input on the command line (one line on stderr, exit status 2)."""


def _topic(text: str, path: str, line: int) -> str:
    topic = re.sub(r"^.*-", "", text).lstrip("0") or "0"
    if not text or not re.fullmatch(r"[0-9]+", re.sub(r"^.*-", "", text)):
        raise GdevalError(f"format error on line {line} of \"{path}\"")
    return topic


def _perl_number(text: str) -> float:
    """Perl's numeric value of a string: its leading number, 0 without one."""
    m = re.match(r"\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)", text)
    return float(m.group(0)) if m else 0.0


def _read(path: str, width: int) -> list[list[str]]:
    import bz2
    import gzip

    opener = gzip.open if ".gz" in path else bz2.open if ".bz2" in path else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
            rows = [line.split() for line in f]
    except (OSError, EOFError) as e:
        raise GdevalError(f"cannot open \"{path}\": {getattr(e, 'strerror', None) or e}"
                          ) from None
    return [r + [""] * (width - len(r)) for r in rows]


def _qrels(path: str):
    """The judged documents of grade > 0, as the script keeps them."""
    import polars as pl

    rows = []
    for i, (topic, zero, docno, grade, *_) in enumerate(_read(path, 4), 1):
        if (not re.fullmatch(r"-?[0-9]+", grade) or _perl_number(zero) != 0
                or int(grade) > MAX_JUDGMENT):
            raise GdevalError(f"format error on line {i} of \"{path}\"")
        if int(grade) > 0:
            rows.append((_topic(topic, path, i), docno, float(grade)))
    qrels = pl.DataFrame(rows, schema={"qid": pl.String, "docid": pl.String, "rel": pl.Float64},
                         orient="row")
    twice = qrels.filter(pl.struct("qid", "docid").is_duplicated())
    if twice.height:
        raise GdevalError(f"{path}: topic {twice['qid'][0]} judges document "
                          f"{twice['docid'][0]} twice")
    return qrels


def _run(path: str):
    """(the run as a frame, its run id: the last line's)."""
    import polars as pl

    rows, runid = [], ""
    for i, (topic, q0, docno, rank, score, runid, *_) in enumerate(_read(path, 6), 1):
        if q0 != "Q0" or not re.fullmatch(r"[0-9]+", rank) or runid in ("", "0"):
            raise GdevalError(f"format error on line {i} of \"{path}\"")
        try:
            rows.append((_topic(topic, path, i), docno, float(score)))
        except ValueError:
            raise GdevalError(f"format error on line {i} of \"{path}\" (score {score!r})"
                              ) from None
    return pl.DataFrame(rows, schema={"qid": pl.String, "docid": pl.String,
                                      "score": pl.Float64}, orient="row"), runid


def _top(frame, k: int, order: list[str], descending: list[bool]):
    """(topics, topics × k matrix of grades): each topic's first k documents in ``order``,
    padded with grade 0 (a term of 0, as the script's loop past the ranking's end adds)."""
    import numpy as np
    import polars as pl

    top = (frame.sort(["qid", *order], descending=[False, *descending])
           .with_columns(pl.int_range(pl.len()).over("qid").alias("_pos"))
           .filter(pl.col("_pos") < k))
    topics = top["qid"].unique(maintain_order=True).to_list()
    row = pl.Series(topics).to_frame("qid").with_row_index("_row")
    top = top.join(row, on="qid")
    grades = np.zeros((len(topics), k))
    grades[top["_row"].to_numpy(), top["_pos"].to_numpy()] = top["rel"].to_numpy()
    return topics, grades


def _values(run, qrels, k: int) -> dict[str, tuple[float, float]]:
    """nDCG@k and ERR@k of every topic the run answered that has a relevant document."""
    import polars as pl

    graded = (run.filter(pl.col("qid").is_in(qrels["qid"].unique().implode()))
              .join(qrels, on=["qid", "docid"], how="left").with_columns(
                  pl.col("rel").fill_null(0.0)))
    topics, grades = _top(graded, k, ["score", "docid"], [True, True])
    ideal_topics, ideal = _top(qrels, k, ["rel"], [True])
    dcg, err = gdeval_sums(grades, MAX_JUDGMENT)
    best = dict(zip(ideal_topics, gdeval_sums(ideal, MAX_JUDGMENT)[0]))
    return {t: (d / best[t], e) for t, d, e in zip(topics, dcg, err)}


def _risk(x: float, base: float, alpha: float) -> float:
    return (1 + alpha) * (x - base) if x < base else x - base


def lines(qrels_path: str, run_path: str, k: int = 20, complete: bool = False,
          baseline: str | None = None, alpha: str = "0"):
    """The script's output lines (without their newlines)."""
    qrels = _qrels(qrels_path)
    run, runid = _run(run_path)
    mine = _values(run, qrels, k)
    seen = sorted(set(qrels["qid"]), key=int)
    base: dict[str, tuple[float, float]] = {}
    if baseline is not None:
        base_run, base_id = _run(baseline)
        base = _values(base_run, qrels, k)
        runid = f"{runid} (rel to. {base_id}; rs=1+a; a={alpha})"
    a = float(alpha)
    rows = [(t, *mine[t]) for t in sorted(mine, key=int)]
    if baseline is not None:
        rows = [(t, _risk(n, base.get(t, (0.0, 0.0))[0], a),
                 _risk(e, base.get(t, (0.0, 0.0))[1], a)) for t, n, e in rows]
        if complete:
            rows += [(t, _risk(0.0, base.get(t, (0.0, 0.0))[0], a),
                      _risk(0.0, base.get(t, (0.0, 0.0))[1], a))
                     for t in seen if t not in mine]
    yield f"runid,topic,ndcg@{k},err@{k}"
    for t, n, e in rows:
        yield f"{runid},{t},{n:.5f},{e:.5f}"
    count = len(seen) if complete else len(mine)
    total_n, total_e = sum(r[1] for r in rows), sum(r[2] for r in rows)
    if count:
        total_n, total_e = total_n / count, total_e / count
    yield f"{runid},amean,{total_n:.5f},{total_e:.5f}"


def _options(args: list[str]) -> dict:
    """The script's options, read as it reads them: until two arguments remain."""
    opts: dict = {"k": 20, "complete": False, "baseline": None, "alpha": "0"}
    while len(args) > 2:
        flag = args.pop(0)
        if flag == "-c":
            opts["complete"] = True
        elif flag in ("-k", "-baseline", "-riskAlpha") and len(args) > 2:
            opts[{"-k": "k", "-baseline": "baseline", "-riskAlpha": "alpha"}[flag]] = \
                args.pop(0)
        else:
            raise GdevalError(f"unexpected argument {flag!r}; {USAGE}")
    if len(args) != 2:
        raise GdevalError(USAGE)
    if not re.fullmatch(r"[0-9]+", str(opts["k"])) or int(opts["k"]) < 1:
        raise GdevalError(f"-k takes a whole number ≥ 1, not {opts['k']!r}")
    opts["k"] = int(opts["k"])
    try:
        alpha = float(opts["alpha"])
    except ValueError:
        alpha = float("nan")
    if not alpha >= 0:
        raise GdevalError(f"-riskAlpha takes a number ≥ 0, not {opts['alpha']!r}")
    return opts


def main(argv: list[str] | None = None, version: str | None = None) -> int:
    """``trunc-accessor-gdeval``: the exit status (0, or 2 on bad input)."""
    from trunc_accessor.frontends.cli.trec_eval import _one_line_warnings

    _one_line_warnings("trunc-accessor-gdeval")
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "-help", "--help"):
        print(USAGE + "\n\n" + (__doc__ or "").split("\n\n", 1)[1].strip())
        return 0
    if args and args[0] in ("-v", "-version", "--version"):
        print(f"trunc-accessor-gdeval {version} (gdeval.pl version 1.3's output)")
        return 0
    try:
        opts = _options(args)
        out = "".join(line + "\n" for line in lines(args[0], args[1], **opts))
    except ValueError as e:
        print(f"trunc-accessor-gdeval: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(out)
    return 0
