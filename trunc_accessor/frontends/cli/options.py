"""The command line's options: the argparse parser of ``trunc-accessor`` (trec_eval's
options and the library's own; ndeval's mode builds its own with ``Parser``), and the
measures that ``-m`` names, parsed as trec_eval parses them."""
from __future__ import annotations

import argparse
import difflib
import re
from dataclasses import replace

from trunc_accessor.metrics import trec_dialect
from trunc_accessor.metrics.registry import Named

DESCRIPTION = ("Command line with trec_eval's interface: trunc-accessor [options] QRELS RUN "
               "[RUN ...].")


class CommandLineError(Exception):
    """A bad option or file: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
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


def build_parser(version: str | None = None) -> argparse.ArgumentParser:
    """``trunc-accessor``'s options: trec_eval's, then the library's own; ``--version``
    prints ``version`` (the entry points of ``trunc_accessor.__main__`` give the package's)."""
    ap = Parser(
        prog="trunc-accessor", description=DESCRIPTION,
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
    _trec_eval_options(ap)
    _own_options(ap, version)
    return ap


def _trec_eval_options(ap: argparse.ArgumentParser) -> None:
    """trec_eval's options besides ``-m``: ``-q -c -J -M -l -n -N -R -Z``."""
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


def _own_options(ap: argparse.ArgumentParser, version: str | None) -> None:
    """The library's options: ties, subtopics, depth, output formats, ndeval's options,
    ``--import``, ``--list``, ``--version``."""
    from trunc_accessor.core.prepared import TIES

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
    if version is not None:
        ap.add_argument("--version", action="version", version=f"trunc-accessor {version}")


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
