"""Command line with trec_eval's interface: trunc-accessor [options] QRELS RUN [RUN ...].

Scripts switch from trec_eval by changing the program's name: the options (``-m`` repeatable
and comma-separated with trec_eval's parameter spellings, ``-q``, ``-c``, ``-J``, ``-M N``,
``-l N``, ``-n``, ``-N N``), the measures, their order and the output equal trec_eval 10.0's
line for line (``--ties trec_eval9``: trec_eval 9.0.8's, as pytrec_eval): a measure named
several times is computed once, with the first parameters given for it (``-m all_trec -m
P.5,10`` prints P_5 and P_10 where all_trec prints P), and ``-c`` scores a query the run
lacks as trec_eval 10 does, on a one-line stand-in ranking. Measures of the other
dialects (ir_measures', ranx', the library's own) follow trec_eval's. Beyond trec_eval:
``--ties average`` (the exact mean over every order of tied scores), ``--depth`` (the
terminal-document metrics' maximum length), ``--format tsv|json|markdown``, ``--list``,
``--import MODULE`` (metrics of your own) and compressed files or ``-`` for standard input.
``-Z FILE`` (z-scores) and ``-R prefs|qrels_prefs|qrels_jg`` (preference and judgment-group
measures) print trec_eval 10.0's lines too (``io/zscores.py``, ``io/rel_formats.py``).
"""
from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import re
import sys
import warnings
from dataclasses import replace

from trunc_accessor.metrics import trec_dialect
from trunc_accessor.metrics.registry import Named
from trunc_accessor.warn import EmptyRunWarning

# what trec_eval.c resets for a query the run lacks (-c), by the measure's printed name:
# these, and every name starting with "unj" (relstring prints an empty string)
ZEROED_WHEN_MISSING = ("num_ret", "utility", "rbp_resid")
# the one document of trec_eval.c's stand-in ranking for such a query (score 1.0, unjudged)
BOGUS_DOCNO = "ceci_nest_pas_un_docno"


class CommandLineError(Exception):
    """A bad option or file: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors that suggest the closest option or choice."""

    def error(self, message):  # one line, not argparse's usage block
        found = re.fullmatch(r"unrecognized arguments: (.*)", message)
        if found:
            options = [o for a in self._actions for o in a.option_strings]
            hints = []
            for arg in found.group(1).split():
                close = difflib.get_close_matches(arg.split("=", 1)[0], options, n=1,
                                                  cutoff=0.6) if arg.startswith("-") else []
                if close:
                    hints.append(f"{arg}: did you mean {close[0]}?")
            if hints:
                message += " (" + "; ".join(hints) + ")"
        raise CommandLineError(message)

    def _check_value(self, action, value):  # an invalid choice names the closest one
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise argparse.ArgumentError(action, f"invalid choice: {value!r} (choose from "
                                                 f"{', '.join(choices)}){hint}")
        super()._check_value(action, value)


def build_parser() -> argparse.ArgumentParser:
    from trunc_accessor import __version__
    from trunc_accessor.core.prepared import TIES

    ap = _Parser(
        prog="trunc-accessor", description=__doc__.splitlines()[0],
        epilog="Exit status 0 on success, 2 on bad input (one line on stderr).")
    ap.add_argument("files", nargs="*", metavar="QRELS RUN",
                    help="a TREC qrels file (or irds:DATASET_ID, the qrels of an ir_datasets "
                         "collection; a file of that name first), then one or more TREC run "
                         "files (- for stdin; gzip, bzip2 and xz files are read as such)")
    ap.add_argument("-m", "--measure", action="append", default=None,
                    help="measure(s) in any dialect, repeatable and comma-separated, with "
                         "trec_eval's parameters (P.5,10; ndcg.1=3,2=9; utility.2,-1,0,0) and "
                         "groups (official, all_trec, set); a measure named twice takes the "
                         "first parameters given for it, as in trec_eval (-m all_trec -m "
                         "P.5,10 prints P_5 and P_10 where all_trec prints P); default: "
                         "official (with irds: qrels, the dataset's official measures if it "
                         "names some)")
    ap.add_argument("-q", action="store_true", help="print each query's values too")
    ap.add_argument("-c", action="store_true",
                    help="average over every qrels query (a query the run lacks is an empty "
                         "ranking)")
    ap.add_argument("-J", action="store_true",
                    help="score only documents judged with a grade ≥ 0 (trec_eval -J)")
    ap.add_argument("-M", type=int, default=None, metavar="N",
                    help="keep the first N documents of every ranking")
    ap.add_argument("-l", type=float, default=1, metavar="N",
                    help="relevance level: grades ≥ N are relevant (default 1)")
    ap.add_argument("-n", action="store_true", help="no summary ('all') lines")
    ap.add_argument("-N", type=int, default=0, metavar="N",
                    help="documents in the collection (trec_eval's utility measure)")
    ap.add_argument("-R", choices=("qrels", "qrels_jg", "prefs", "qrels_prefs"), default="qrels",
                    help="format of QRELS (trec_eval's -R): qrels_jg (judgment groups: "
                         "map_avgjg, P_avgjg, Rprec_mult_avgjg), prefs or qrels_prefs "
                         "(preferences: prefs_*)")
    ap.add_argument("-Z", default=None, metavar="FILE",
                    help="print z-scores against FILE's per-query means and standard "
                         "deviations (lines: qid measure mean stddev), as trec_eval -Z")
    ap.add_argument("--ties", choices=TIES, default=None,
                    help="tie handling (default: trec_eval, trec_eval 10's order and output; "
                         "trec_eval9: 9.0.8's, as pytrec_eval; average: the exact mean over "
                         "every order of tied scores; with --format ndeval: first, the rank "
                         "column's order, or trec_eval with -traditional)")
    ap.add_argument("--subtopics", action=argparse.BooleanOptionalAction, default=None,
                    help="read the qrels' second field as the subtopic (diversity qrels, "
                         "topic subtopic docno grade), or with --no-subtopics as trec_eval's "
                         "iteration field, which is ignored; default: subtopics when some "
                         "document is judged for two or more of them")
    ap.add_argument("--ignore-identical-ids", action="store_true",
                    help="leave out run lines whose docid equals their qid (BEIR's rule for "
                         "ArguAna and Quora, whose queries are also documents)")
    ap.add_argument("--depth", type=int, default=None,
                    help="maximum ranking length for the terminal-document metrics")
    ap.add_argument("--format", choices=("trec_eval", "tsv", "json", "markdown", "ndeval"),
                    default="trec_eval",
                    help="output: trec_eval's lines, a table (tsv, json, markdown), or ndeval's "
                         "CSV (the TREC Web track's diversity measures; diversity qrels)")
    ap.add_argument("-alpha", "--alpha", type=float, default=None, metavar="A",
                    help="--format ndeval: redundancy penalty α of α-nDCG and NRBP (0.5)")
    ap.add_argument("-beta", "--beta", type=float, default=None, metavar="B",
                    help="--format ndeval: patience β of NRBP (0.5)")
    ap.add_argument("-traditional", "--traditional", action="store_true",
                    help="--format ndeval: order by score, then docno (else by rank)")
    ap.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                    help="import a Python module first, by name (looked up in the working "
                         "directory first) or as a file (./mymetrics.py); metrics it defines "
                         "with trunc_accessor.define or trunc_accessor.metric can then be "
                         "named with -m")
    ap.add_argument("--list", action="store_true",
                    help="list every metric with its names in every dialect and exit")
    ap.add_argument("--version", action="version", version=f"trunc-accessor {__version__}")
    return ap


# --------------------------------------------------------------------------- measures
def _split_measures(values: list[str]) -> list[str]:
    """``-m`` values: comma-separated names, except inside a trec_eval parameter list
    (``P.5,10``, ``iprec_at_recall..10,.20``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``), whose
    commas separate parameters: ``map,P.5,10`` is map, P_5 and P_10; and inside parentheses
    (``INST(T=1.0,max_rel=3)``, ``RBP(p=0.8,rel=2)``)."""
    out: list[str] = []
    for value in values:
        open_paren = False
        for token in filter(None, value.split(",")):
            previous = out[-1] if out else ""
            base = previous.split(".", 1)[0]
            in_list = "." in previous and base in trec_dialect.by_name()
            if open_paren or (in_list and re.fullmatch(r"-?[\d.]+(=-?[\d.]+)?|\w+=-?[\d.]+",
                                                       token)):
                out[-1] = previous + "," + token
            else:
                out.append(token)
            open_paren = out[-1].count("(") > out[-1].count(")")
    return out


def _with_depth(named: list[Named], depth) -> list[Named]:
    if depth is None:
        return named
    out = []
    for n in named:
        m = n.measure
        if m is not None and "depth" in m.kwargs and m.kwargs["depth"] is None:
            deep = m.metric.measure(**{**m.kwargs, "depth": depth}).with_level(m.level)
            n = Named(n.label, deep, n.summary, n.trec, n.batch, n.replaces, n.extra)
        out.append(n)
    return out


def _with_collection(named: list[Named], size: int) -> list[Named]:
    out = []
    for n in named:
        m = n.measure
        if size and m is not None and m.metric.name == "utility":
            m = m.metric.measure(**{**m.kwargs, "collection_size": size}).with_level(m.level)
            n = Named(n.label, m, n.summary, n.trec, n.batch, n.replaces, n.extra)
        out.append(n)
    return out


def measures(args, official: list[str] | None = None) -> list[Named]:
    """The measures of ``-m`` (default: official); ``official``: what "official" means for
    qrels of ir_datasets whose dataset names its official measures."""
    from trunc_accessor.metrics.names import parse_named

    specs = _split_measures(args.measure or ["official"])
    if official:
        specs = [x for s in specs for x in (official if s == "official" else [s])]
    if args.ties == "trec_eval9":  # 9.0.8's groups: no unj, rbp, rbp_resid
        specs = [s for g in specs for s in (trec_dialect.GROUPS_9.get(g, [g]))]
    named, parameterised = [], set()
    for batch, spec in enumerate(specs):  # every naming, so that arrange picks as trec_eval
        ts = trec_dialect.split(spec.strip(), trec=True)
        if ts is not None and ts.params is not None and ts.replaces:
            parameterised.add(batch)
        named += [replace(n, batch=batch) for n in parse_named(spec, trec=True)]
    if not named:
        raise CommandLineError("-m names no measure")
    named = trec_dialect.arrange(named, frozenset(parameterised))
    return _with_collection(_with_depth(named, args.depth), args.N)


# --------------------------------------------------------------------------- evaluation
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


def _trec_order(run, ties: str):
    """The run in trec_eval's order: qid, then score descending (as float32 for
    trec_eval9), then docid descending; ``_pos`` numbers each ranking's rows from 1."""
    import polars as pl

    key = pl.col("score").cast(pl.Float32 if ties == "trec_eval9" else pl.Float64)
    ordered = run.with_columns(key.alias("_key"), pl.col("docid").cast(pl.String).alias("_doc"))
    ordered = ordered.sort(["qid", "_key", "_doc"], descending=[False, True, True],
                           maintain_order=True)
    return ordered.with_columns(pl.int_range(1, pl.len() + 1).over("qid").alias("_pos"))


def _relstrings(run, qrels, judged_only: bool, lengths: dict[str, int]) -> dict:
    """trec_eval's relstring: per (label, qid) the first k grades of the ranking, '-' for a
    document not in the qrels, '.' for a negative grade, '>' above 9."""
    import polars as pl

    if not lengths:
        return {}
    grades = run.join(qrels.select("qid", "docid", pl.col("rel").alias("_rel")),
                      on=["qid", "docid"], how="left").sort(["qid", "_pos"])
    if judged_only:
        grades = grades.filter(pl.col("_rel") >= 0)
    out = {}
    for qid, part in grades.group_by("qid", maintain_order=True):
        chars = []
        for g in part["_rel"].to_list():
            chars.append("-" if g is None else "." if g < 0 else ">" if g > 9 else str(int(g)))
        for label, k in lengths.items():
            out[(label, str(qid[0]))] = "".join(chars[:k])
    return out


class Block:
    """One run's answer: its runid, the qids printed per query (trec_eval's order), the
    values {(label, qid): value}, the relstrings, and the summary values."""

    def __init__(self, runid, qids, values, strings, summary):
        self.runid, self.qids, self.values = runid, qids, values
        self.strings, self.summary = strings, summary


def evaluate_file(qrels, qrels_positive: int, run_path: str, named: list[Named], args) -> Block:
    import numpy as np
    import polars as pl

    from trunc_accessor.io.read import read_run

    run = read_run(run_path, library="polars")
    # trec_eval keeps the runid of the file's last line (get_trec_results.c)
    ids = run["system"].drop_nulls()
    runid = str(ids[-1]) if len(ids) else os.path.basename(run_path)
    if args.ignore_identical_ids:
        run = run.filter(pl.col("qid") != pl.col("docid"))
    if run.height == 0:
        raise CommandLineError(f"{run_path} holds no run line (trec_eval stops there too)")
    run = _trec_order(run.drop("system"), args.ties)
    scored = [n for n in named if n.measure is not None]
    qrels_qids = set(qrels["qid"].cast(pl.String).to_list())
    run_qids = set(run["qid"].cast(pl.String).to_list())
    if args.M is not None:  # after the queries are known: -M 0 leaves them empty rankings
        run = run.filter(pl.col("_pos") <= args.M)
    answered = qrels_qids & run_qids
    if not answered and (not args.c or args.ties == "trec_eval9"):  # 9.0.8 stops even with -c
        hint = ("trec_eval 9.0.8 stops here even with -c; trec_eval 10 (--ties trec_eval) "
                "scores every qrels query as an empty ranking" if args.c
                else "-c scores every qrels query")
        raise CommandLineError(f"no query of {run_path} is in the qrels (trec_eval: 'No "
                               f"queries with both results and relevance info'); {hint}")
    evaluated = sorted(qrels_qids if args.c else answered)  # trec_eval: strcmp order
    missing = set(evaluated) - run_qids
    version9 = args.ties == "trec_eval9"
    if missing and not version9 and (args.M is None or args.M >= 1):
        # trec_eval 10 -c scores a query the run lacks on its one-line stand-in ranking
        # (trec_eval.c's bogus_ranking), then zeroes some measures by printed name
        bogus = pl.DataFrame({"qid": sorted(missing), "docid": BOGUS_DOCNO, "score": 1.0,
                              "_pos": 1})
        run = pl.concat([run.select("qid", "docid", "score", "_pos"),
                         bogus.cast(dict(run.select("qid", "docid", "score", "_pos").schema))])
    values: dict = {}
    if scored:
        # -c with a run that answers no qrels query: every query is a stand-in ranking
        frame = run.select("qid", "docid", "score")
        with warnings.catch_warnings():
            # the empty or stand-in ranking of every query is what -c asks for here
            warnings.simplefilter("ignore", EmptyRunWarning)
            res = ((frame if answered else frame.filter(pl.col("qid").is_in(list(missing))))
                   .ir.evaluate(qrels, [n.measure for n in scored], ties=args.ties,
                                relevance_level=args.l, judged_only=args.J, undefined="zero",
                                names="canonical"))
        qid_text = res["qid"].cast(pl.String).to_list()
        for n in scored:
            column = res[n.measure.label].to_numpy()  # type: ignore[union-attr]  # scored
            for q, v in zip(qid_text, column):
                values[(n.label, q)] = float(v)
    for q in missing:  # trec_eval.c zeroes these, by printed name, for a query the run lacks
        for n in scored:
            if n.trec and (n.label in ZEROED_WHEN_MISSING or n.label.startswith("unj")):
                values[(n.label, q)] = 0.0
    lengths = {n.label: (10 if n.extra is None else max(n.extra, 0))  # relstring.0: ''
               for n in named if n.label.startswith("relstring")}
    strings = _relstrings(run, qrels, args.J, lengths)
    for q in missing:  # "relstring" (not relstring_N) is cleared, as trec_eval.c does
        strings.pop(("relstring", q), None)
    printed = [q for q in evaluated if not (version9 and q in missing)]
    summary = {}
    for n in scored:
        column = np.array([values[(n.label, q)] for q in evaluated])
        summary[n.label] = _summarise(n, column, len(evaluated), args.c, qrels_positive)
    return Block(runid, printed, values, strings, summary)


def _summarise(n: Named, column, num_q: int, complete: bool, qrels_positive: int) -> float:
    import numpy as np

    if n.summary == "sum":
        if n.label == "num_q":
            return float(num_q)
        if n.label == "num_rel" and complete:
            return float(qrels_positive)  # trec_eval -c: qrels lines with rel > 0, any -l
        return float(column.sum())
    if n.summary == "gmean":
        return float(np.exp(np.mean(np.log(np.maximum(column, 1e-5))))) if num_q else 0.0
    return float(column.mean()) if num_q else 0.0


# --------------------------------------------------------------------------- output
def _format(value: float, n: Named) -> str:
    if math.isnan(value):
        return "nan"
    if n.summary == "sum":
        return str(round(value))
    return f"{value:.4f}"


def _trec_lines(block: Block, named: list[Named], args):
    """trec_eval's lines; under ``-Z`` (z-scores) ``Z`` stands before every measure's name
    (not runid's or relstring's) and every value has four decimals, as trec_eval 10 prints."""
    if getattr(args, "Z", None):
        from trunc_accessor.io.zscores import z_text

        prefix, text = "Z", lambda value, n: z_text(value)
    else:
        prefix, text = "", _format
    per_query = [n for n in named if n.summary != "gmean" and n.label != "num_q"
                 and n.label != "runid"]
    if args.q:
        for q in block.qids:
            for n in per_query:
                if n.measure is None:
                    if n.label.startswith("relstring"):
                        yield f"{n.label:<22}\t{q}\t'{block.strings.get((n.label, q), '')}'"
                    continue
                yield f"{prefix}{n.label:<22}\t{q}\t{text(block.values[(n.label, q)], n)}"
    if not args.n:
        for n in named:
            if n.label == "runid":
                yield f"{'runid':<22}\tall\t{block.runid}"
            elif n.measure is not None:
                yield f"{prefix}{n.label:<22}\tall\t{text(block.summary[n.label], n)}"


def _rows(blocks: list[Block], named: list[Named], args) -> list[dict]:
    shown = [n for n in named if n.measure is not None]
    table = []
    for b in blocks:
        if args.q:
            for q in b.qids:
                table.append({"runid": b.runid, "qid": q,
                              **{n.label: b.values[(n.label, q)] for n in shown}})
        if not args.n:
            table.append({"runid": b.runid, "qid": "all",
                          **{n.label: b.summary[n.label] for n in shown}})
    return table


def _write(text_lines, out) -> None:
    for line in text_lines:
        out.write(line + "\n")


def render(blocks: list[Block], named: list[Named], args):
    if args.format == "trec_eval":
        for b in blocks:
            yield from _trec_lines(b, named, args)
        return
    table = _rows(blocks, named, args)
    if args.format == "json":
        clean = [{k: (None if isinstance(v, float) and math.isnan(v) else v)
                  for k, v in row.items()} for row in table]
        yield json.dumps(clean, indent=1)
        return
    columns = ["runid", "qid"] + [n.label for n in named if n.measure is not None]
    if args.format == "tsv":
        yield "\t".join(columns)
        for row in table:
            yield "\t".join(_cell(row[c]) for c in columns)
        return
    yield "| " + " | ".join(columns) + " |"
    yield "|" + "|".join("---" for _ in columns) + "|"
    for row in table:
        yield "| " + " | ".join(f"{row[c]:.4f}" if isinstance(row[c], float) else str(row[c])
                                for c in columns) + " |"


def _cell(v) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def _list() -> str:
    from trunc_accessor.metrics.names import ir_measures_table, ranx_names
    from trunc_accessor.metrics.registry import REGISTRY

    trec: dict = {}
    for t in trec_dialect.table():
        if t.metric:
            trec.setdefault(t.metric, []).append(t.name + ("_N" if t.kind in ("cutoffs", "levels")
                                                          else ""))
    irm: dict = {}
    for name, entry in ir_measures_table().items():
        irm.setdefault(entry[0], []).append(name)
    ranx: dict = {}
    for name, metric in ranx_names().items():
        ranx.setdefault(metric, []).append(name)
    lines = ["metric(parameters)\taliases\ttrec_eval\tir_measures\tranx\tsummary"]
    for m in REGISTRY.values():
        params = ", ".join(f"{p.name}={p.default!r}" for p in m.params)
        names = [", ".join(sorted(table.get(m.name, []))) or "-" for table in (trec, irm, ranx)]
        lines.append("\t".join([f"{m.name}({params})", ", ".join(m.aliases) or "-", *names,
                                m.summary]))
    lines.append("groups\t-\t" + ", ".join(trec_dialect.GROUPS) + "\t-\t-\ttrec_eval's groups")
    return "\n".join(lines)


# --------------------------------------------------------------------------- main
# the command line's advice where the Python API's names evaluate(..., like=...)
_CLI_ADHOC_HINT = ("; --no-subtopics reads the second field as trec_eval's iteration field "
                   "instead (one grade per document)")


def _one_line_warnings(prog: str = "trunc-accessor"):
    from trunc_accessor.metrics.registry import ADHOC_HINT
    from trunc_accessor.warn import SubtopicWarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, SubtopicWarning):
            message = str(message).replace(ADHOC_HINT, _CLI_ADHOC_HINT)
        sys.stderr.write(f"{prog}: warning: {message}\n")

    warnings.showwarning = show


def _quiet_pipe():
    """stdout closed by the reader (`| head`): exit quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def main_ndeval(argv=None) -> int:
    """``trunc-accessor-ndeval``: the command line in ndeval's mode (``--format ndeval``), with
    ndeval's options and usage, so that a script calling ndeval switches by changing the
    program's name."""
    from trunc_accessor.frontends.cli import ndeval as ndeval_cli

    return _main(ndeval_cli.build_parser(), argv)


def main(argv=None) -> int:
    """``trunc-accessor``: trec_eval's command line (``--format ndeval``: ndeval's)."""
    return _main(build_parser(), argv)


def _main(parser, argv) -> int:
    prog = parser.prog
    _one_line_warnings(prog)
    try:
        args = parser.parse_args(argv)
    except CommandLineError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        for module in args.imports:
            _import(module)
        if args.list:
            _write([_list()], sys.stdout)
            sys.stdout.flush()
            return 0
        if len(args.files) < 2:
            raise CommandLineError("give QRELS then RUN (ndeval's order)"
                                   if prog != "trunc-accessor"
                                   else "give QRELS then RUN (trec_eval's order), or --list")
        if args.format == "ndeval":
            # trunc-accessor-ndeval's own parser has neither option
            if getattr(args, "R", "qrels") != "qrels" or getattr(args, "Z", None):
                raise CommandLineError("-R and -Z are trec_eval's options; --format ndeval "
                                       "reads diversity qrels and prints ndeval's measures")
            from trunc_accessor.frontends.cli import ndeval as ndeval_cli

            if getattr(args, "subtopics", None) is False:
                raise CommandLineError("--no-subtopics: ndeval's qrels always read their "
                                       "second field as the subtopic")

            text = list(ndeval_cli.lines(args, CommandLineError))
        else:
            if args.alpha is not None or args.beta is not None or args.traditional:
                raise CommandLineError("-alpha, -beta and -traditional are ndeval's options: "
                                       "add --format ndeval (or name α and β in -m, e.g. "
                                       "alpha_ndcg(alpha=0.3)@20)")
            if args.M is not None and args.M < 0:
                raise CommandLineError(f"-M takes a number of documents ≥ 0, not {args.M}")
            args.ties = args.ties or "trec_eval"
            from trunc_accessor.io import zscores

            stats = zscores.read_zscores(args.Z) if args.Z else None  # refused before work
            blocks, named = _evaluate(args)
            if stats is not None:
                zscores.convert(blocks, named, stats, args.c)
            text = list(render(blocks, named, args))
    except BrokenPipeError:
        _quiet_pipe()
        return 0
    except (CommandLineError, ValueError, TypeError, OSError, ImportError) as e:
        message = re.sub(r"ties='(\w+)'", r"--ties \1", str(e))  # the option's spelling here
        if isinstance(e, OSError) and e.filename is not None and e.strerror:
            message = f"cannot read {e.filename}: {e.strerror}"  # not '[Errno 21] ...'
        if args.format == "ndeval":  # ndeval's qrels always have a subtopic field
            message = message.replace("subtopics=True, but the file has 3 fields a line",
                                      "ndeval's qrels have 4 fields a line (topic subtopic "
                                      "docno grade), but the file has 3")
        message = message.replace("subtopics=True", "--subtopics")
        print(f"{prog}: {message}", file=sys.stderr)
        return 2
    try:
        _write(text, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_pipe()
    except OSError as e:  # a full disk, a closed terminal
        print(f"{prog}: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0


def _import(name: str) -> None:
    """``--import``: a module by name, looked up in the working directory first (as ``python
    -m`` does; an installed console script's path starts at its own folder instead), or a
    Python file by path (``./mymetrics.py``). Any failure is a CommandLineError saying which."""
    import importlib.util

    cwd = os.getcwd()
    if name.endswith(".py") or os.sep in name or "/" in name:
        path = os.path.abspath(name)
        if not os.path.isfile(path):
            raise CommandLineError(f"--import {name}: no such file ({path})")
        module_name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise CommandLineError(f"--import {name}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as e:
            sys.modules.pop(module_name, None)
            _import_failed(name, e)
        return
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", name):
        raise CommandLineError(f"--import {name}: not a module name (mymetrics, pkg.module) "
                               "nor a Python file (./mymetrics.py)")
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
            raise CommandLineError(
                f"--import {name}: no module {e.name!r} in the working directory ({cwd}) nor "
                f"on Python's path; give a file instead (--import ./{name.replace('.', '/')}"
                ".py)") from None
        _import_failed(name, e)
    except BaseException as e:
        _import_failed(name, e)
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def _import_failed(name: str, e: BaseException):
    if isinstance(e, KeyboardInterrupt):
        raise e
    where = ""
    tb = e.__traceback__
    while tb is not None:  # the innermost frame: the user's line at fault
        where = f" ({tb.tb_frame.f_code.co_filename}, line {tb.tb_lineno})"
        tb = tb.tb_next
    text = str(e)
    if isinstance(e, SyntaxError):
        text, where = str(e.msg), f" ({e.filename}, line {e.lineno})"
    raise CommandLineError(f"--import {name} failed: {type(e).__name__}: {text}{where}") from None


def _evaluate(args) -> tuple[list[Block], list[Named]]:
    import polars as pl

    from trunc_accessor.errors import InputError
    from trunc_accessor.frontends import polars as _polars  # noqa: F401  (the Polars accessor)
    from trunc_accessor.io.read import read_qrels

    qrels_path, runs = args.files[0], args.files[1:]
    if args.R != "qrels":
        from trunc_accessor.frontends.cli import rel_formats

        return rel_formats.evaluate(args, CommandLineError)
    if _looks_like_run(qrels_path) and not _looks_like_run(runs[0]):
        raise InputError(f"{qrels_path} looks like a run and {runs[0]} like qrels: the "
                         "order is QRELS RUN, as trec_eval's")
    from trunc_accessor.io.irds import official_of

    named = measures(args)
    qrels = read_qrels(qrels_path, library="polars", subtopics=args.subtopics)
    official = official_of(qrels)
    if official:  # qrels of ir_datasets: "official" is the dataset's own list
        named = measures(args, official)
    diversity = [n.label for n in named if n.measure is not None and n.measure.metric.subtopics]
    if diversity and "subtopic" not in qrels.columns:
        why = ("--no-subtopics drops the qrels' second field" if args.subtopics is False else
               f"{qrels_path} was read as ad hoc qrels (no document of it is judged for two "
               "subtopics, so its second field was taken for trec_eval's iteration field); "
               "--subtopics reads the second field as the subtopic")
        verb = "need" if len(diversity) > 1 else "needs"
        raise CommandLineError(f"{', '.join(diversity)} {verb} diversity qrels (topic "
                               f"subtopic docno grade): {why}")
    if qrels.height == 0:
        raise CommandLineError(f"{qrels_path} holds no judgment: nothing to evaluate")
    positive = int(qrels.select((pl.col("rel") > 0).sum()).item())
    blocks = [evaluate_file(qrels, positive, path, named, args) for path in runs]
    ids = [b.runid for b in blocks]
    if len(set(ids)) < len(ids):  # the same runid twice: say which file is which
        for b, path in zip(blocks, runs):
            b.runid = f"{b.runid} ({path})"
    return blocks, named


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
