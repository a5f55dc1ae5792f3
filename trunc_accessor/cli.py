"""Command line with trec_eval's interface: ``trunc-accessor [options] QRELS RUN [RUN ...]``.

Scripts switch from trec_eval by changing the program name: ``-m`` (repeatable, names in
any dialect, trec_eval's cut-off lists ``P.5,10``, groups ``official`` and ``all_trec``),
``-q``, ``-c``, ``-J``, ``-M N``, ``-l N``, ``-n``; output in trec_eval's layout
(``name<TAB>qid<TAB>value``, then ``runid``, ``num_q`` and the summary under ``all``).
Beyond trec_eval: ``--ties`` (default ``trec_eval``, trec_eval's own order, so that the
numbers are trec_eval's; ``average`` for the exact mean over tie orders), ``--depth`` (the terminal metrics' maximum
length), ``--format tsv|json|markdown`` and ``--list``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys

import pandas as pd

from . import aggregate, read_qrels, read_run
from .frames import InputError
from .names import GROUPS, IR_MEASURES, RANX, TREC_PARAM, TREC_PLAIN, Named, parse_many
from .prepare import TIES
from .registry import REGISTRY, Measure

COUNTS = ("num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret")


def _split_measures(values: list[str]) -> list[str]:
    """``-m`` values: comma-separated names, except inside a trec_eval cut-off list
    (``P.5,10``, ``iprec_at_recall..10,.20``), whose commas separate parameters:
    ``map,P.5,10`` is map, P_5 and P_10."""
    out: list[str] = []
    for value in values:
        for token in filter(None, value.split(",")):
            previous = out[-1] if out else ""
            in_list = "." in previous and previous.split(".", 1)[0] in TREC_PARAM
            if in_list and re.fullmatch(r"[\d.]+", token):
                out[-1] = previous + "," + token
            else:
                out.append(token)
    return out


def _looks_like_run(path: str) -> bool:
    """A TREC run line has ≥ 5 fields; a qrels line 3 or 4 (compressed files are opened)."""
    import bz2
    import gzip
    import lzma

    if path == "-":
        return False
    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
        opener = (gzip.open if magic[:2] == b"\x1f\x8b" else bz2.open if magic[:3] == b"BZh"
                  else lzma.open if magic == b"\xfd7zXZ\x00" else open)
        with opener(path, "rb") as fh:
            head = fh.read(4096)
    except (OSError, EOFError, lzma.LZMAError):
        return False
    for line in head.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if parts and not parts[0].startswith("#"):
            return len(parts) >= 5
    return False


def _format(value: float, measure: Measure) -> str:
    if math.isnan(value):
        return "nan"
    if measure.metric.name in COUNTS:
        return str(round(value))
    return f"{value:.4f}"


def _trec_lines(runid: str, res: pd.DataFrame, named: list[Named], per_query: bool,
                summary: bool, show_runid: bool) -> list[tuple[str, str, str]]:
    """(name, qid, value) lines in trec_eval's order: per query (with -q; num_q and
    geometric means are summaries only), then runid and the summaries under ``all``."""
    rows = []
    if per_query:
        for qid, values in res.iterrows():
            rows += [(n.label, str(qid), _format(values[n.label], n.measure)) for n in named
                     if n.summary != "gmean" and n.measure.metric.name != "num_q"]
    if summary:
        if show_runid:
            rows.append(("runid", "all", runid))
        means = aggregate(res, undefined="zero")
        rows += [(n.label, "all", _format(float(means[n.label]), n.measure)) for n in named]
    return rows


def _list() -> str:
    trec = {**{k: v[0] for k, v in TREC_PLAIN.items()},
            **{f"{k}_N": v[0] for k, v in TREC_PARAM.items()}}
    irm = {k: v[0] for k, v in IR_MEASURES.items()}
    ranx = {k: (v if isinstance(v, str) else v[0]) for k, v in RANX.items()}
    lines = ["metric(parameters)\taliases\ttrec_eval\tir_measures\tranx\tsummary"]
    for m in REGISTRY.values():
        params = ", ".join(f"{p.name}={p.default!r}" for p in m.params)
        names = [", ".join(sorted(k for k, v in table.items() if v == m.name)) or "-"
                 for table in (trec, irm, ranx)]
        lines.append("\t".join([f"{m.name}({params})", ", ".join(m.aliases) or "-",
                                *names, m.summary]))
    lines.append("groups\t-\t" + ", ".join(GROUPS) + "\t-\t-\ttrec_eval's measure groups")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="trunc-accessor", description=__doc__.splitlines()[0],
        epilog="Exit status 0 on success, 2 on bad input (one line on stderr).")
    ap.add_argument("files", nargs="*", metavar="QRELS RUN",
                    help="a TREC qrels file, then one or more TREC run files (- for stdin)")
    ap.add_argument("-m", "--measure", action="append", default=None,
                    help="measure(s) in any dialect, repeatable and comma-separated "
                         "(default: official)")
    ap.add_argument("-q", action="store_true", help="print each query's values too")
    ap.add_argument("-c", action="store_true",
                    help="average over every qrels query (missing and undefined count 0)")
    ap.add_argument("-J", action="store_true", help="score only judged documents")
    ap.add_argument("-M", type=int, default=None, metavar="N",
                    help="keep the first N documents of every ranking")
    ap.add_argument("-l", type=float, default=1, metavar="N",
                    help="relevance level: grades ≥ N are relevant (default 1)")
    ap.add_argument("-n", action="store_true", help="no summary ('all') lines")
    ap.add_argument("--ties", choices=TIES, default="trec_eval",
                    help="tie handling (default: trec_eval, the order of the program this "
                         "replaces; average: the exact mean over every order of tied scores)")
    ap.add_argument("--depth", type=int, default=None,
                    help="maximum ranking length for the terminal-document metrics")
    ap.add_argument("--format", choices=("trec_eval", "tsv", "json", "markdown"),
                    default="trec_eval")
    ap.add_argument("--list", action="store_true",
                    help="list every metric with its names in every dialect and exit")
    return ap


def _with_depth(named: list[Named], depth) -> list[Named]:
    if depth is None:
        return named
    out = []
    for n in named:
        if "depth" in n.measure.kwargs and n.measure.kwargs["depth"] is None:
            m = n.measure.metric.measure(**{**n.measure.kwargs, "depth": depth})
            n = Named(n.label, m.with_level(n.measure.level), n.summary)
        out.append(n)
    return out


def evaluate_file(qrels, run_path: str, named: list[Named], args) -> tuple[str, pd.DataFrame]:
    run = read_run(run_path)
    runid = str(run["system"].dropna().iloc[0]) if run["system"].notna().any() else \
        os.path.basename(run_path)
    run = run.drop(columns=["system"])
    if args.ties.startswith("trec_eval"):  # trec_eval's order before -M cuts
        run = run.sort_values(["qid", "score", "docid"], ascending=[True, False, False],
                              kind="stable")
    if args.M is not None:
        run = run.ir.truncate(args.M)
    res = run.ir.evaluate(qrels, [(n.measure) for n in named], ties=args.ties,
                          relevance_level=args.l, judged_only=args.J, names="canonical")
    res = pd.DataFrame({n.label: res[n.measure.label] for n in named}, index=res.index)
    if not args.c:  # trec_eval without -c: only the queries the run answered
        res = res.loc[res.index.isin(set(run["qid"]))]
    return runid, res.fillna(0.0)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.list:
        print(_list())
        return 0
    if len(args.files) < 2:
        print("trunc-accessor: give QRELS then RUN (trec_eval's order), or --list",
              file=sys.stderr)
        return 2
    qrels_path, runs = args.files[0], args.files[1:]
    try:
        if _looks_like_run(qrels_path) and not _looks_like_run(runs[0]):
            raise InputError(f"{qrels_path} looks like a run and {runs[0]} like qrels: the "
                             "order is QRELS RUN, as trec_eval's")
        names = _split_measures(args.measure or ["official"])
        names = [n for g in names for n in GROUPS.get(g, [g])]
        show_runid = "runid" in names
        named = _with_depth(parse_many([n for n in names if n != "runid"]), args.depth)
        qrels = read_qrels(qrels_path)
        blocks = [evaluate_file(qrels, path, named, args) for path in runs]
        ids = [runid for runid, _ in blocks]
        if len(set(ids)) < len(ids):  # the same runid twice: say which file is which
            blocks = [(f"{runid} ({path})", res) for (runid, res), path in zip(blocks, runs)]
    except (ValueError, TypeError, OSError) as e:
        message = re.sub(r"ties='(\w+)'", r"--ties \1", str(e))  # the option's spelling here
        print(f"trunc-accessor: {message}", file=sys.stderr)
        return 2
    try:
        _print(blocks, named, args, show_runid)
    except BrokenPipeError:  # `| head`: exit quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def _print(blocks, named: list[Named], args, show_runid: bool) -> None:
    shown = named
    if args.format == "trec_eval":
        for runid, res in blocks:
            for name, qid, value in _trec_lines(runid, res, named, args.q, not args.n,
                                                show_runid):
                print(f"{name:<22}\t{qid}\t{value}")
        return
    table = []
    for runid, res in blocks:
        if args.q:
            for qid, values in res.iterrows():
                table.append({"runid": runid, "qid": str(qid),
                              **{n.label: float(values[n.label]) for n in shown}})
        if not args.n:
            means = aggregate(res, undefined="zero")
            table.append({"runid": runid, "qid": "all",
                          **{n.label: float(means[n.label]) for n in shown}})
    if args.format == "json":
        print(json.dumps(table, indent=1))
        return
    frame = pd.DataFrame(table)
    if args.format == "tsv":
        print(frame.to_csv(sep="\t", index=False), end="")
    else:
        head = "| " + " | ".join(frame.columns) + " |"
        rule = "|" + "|".join("---" for _ in frame.columns) + "|"
        body = ["| " + " | ".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row)
                + " |" for row in frame.itertuples(index=False)]
        print("\n".join([head, rule, *body]))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
