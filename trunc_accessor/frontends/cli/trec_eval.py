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
measures) print trec_eval 10.0's lines too (``io/zscores.py``, ``cli/rel_formats.py``).
"""
from __future__ import annotations

import os
import re
import sys
import warnings

from trunc_accessor.frontends.cli.options import CommandLineError, build_parser, measures
from trunc_accessor.frontends.cli.output import Block, list_metrics, render, write_lines
from trunc_accessor.metrics.registry import Named
from trunc_accessor.warn import EmptyRunWarning

# what trec_eval.c resets for a query the run lacks (-c), by the measure's printed name:
# these, and every name starting with "unj" (relstring prints an empty string)
ZEROED_WHEN_MISSING = ("num_ret", "utility", "rbp_resid")
# the one document of trec_eval.c's stand-in ranking for such a query (score 1.0, unjudged)
BOGUS_DOCNO = "ceci_nest_pas_un_docno"


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


def evaluate_file(qrels, qrels_positive: int, run_path: str, named: list[Named], args) -> Block:
    """One run file's answer, as trec_eval prints it: its queries (``-c``: every qrels
    query; a query the run lacks is scored on trec_eval 10's one-line stand-in ranking), each
    query's values, the relstrings and the summary values."""
    import numpy as np
    import polars as pl

    run, runid = _read_run(run_path, args)
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
        run = _with_stand_ins(run, missing)
    scored = [n for n in named if n.measure is not None]
    values = _values(run, qrels, scored, bool(answered), missing, args)
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


def _read_run(run_path: str, args):
    """(the run in trec_eval's order, its runid): trec_eval keeps the runid of the file's
    last line (get_trec_results.c); an empty run (after ``--ignore-identical-ids``) is an
    error, as trec_eval stops there."""
    import polars as pl

    from trunc_accessor.io.read import read_run

    run = read_run(run_path, library="polars")
    ids = run["system"].drop_nulls()
    runid = str(ids[-1]) if len(ids) else os.path.basename(run_path)
    if args.ignore_identical_ids:
        run = run.filter(pl.col("qid") != pl.col("docid"))
    if run.height == 0:
        raise CommandLineError(f"{run_path} holds no run line (trec_eval stops there too)")
    return _trec_order(run.drop("system"), args.ties), runid


def _with_stand_ins(run, missing: set):
    """The run with trec_eval 10's one-line stand-in ranking (trec_eval.c's bogus_ranking)
    for each query of ``missing`` (``-c``: qrels queries the run lacks)."""
    import polars as pl

    columns = run.select("qid", "docid", "score", "_pos")
    bogus = pl.DataFrame({"qid": sorted(missing), "docid": BOGUS_DOCNO, "score": 1.0,
                          "_pos": 1})
    return pl.concat([columns, bogus.cast(dict(columns.schema))])


def _values(run, qrels, scored: list[Named], answered: bool, missing: set, args) -> dict:
    """{(label, qid): value} of the measures for the run's queries; then, for a query the
    run lacks, trec_eval.c zeroes some measures by printed name."""
    import polars as pl

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
    for q in missing:
        for n in scored:
            if n.trec and (n.label in ZEROED_WHEN_MISSING or n.label.startswith("unj")):
                values[(n.label, q)] = 0.0
    return values


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


# --------------------------------------------------------------------------- main
# the command line's advice where the Python API's names evaluate(..., like=...)
_CLI_ADHOC_HINT = ("; --no-subtopics reads the second field as trec_eval's iteration field "
                   "instead (one grade per document)")


def _one_line_warnings(prog: str = "trunc-accessor"):
    from trunc_accessor.engine.evaluation import ADHOC_HINT
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


def main_ndeval(argv=None, *, version: str | None = None) -> int:
    """``trunc-accessor-ndeval``: the command line in ndeval's mode (``--format ndeval``), with
    ndeval's options and usage, so that a script calling ndeval switches by changing the
    program's name."""
    from trunc_accessor.frontends.cli import ndeval as ndeval_cli

    return _main(ndeval_cli.build_parser(version), argv)


def main(argv=None, *, version: str | None = None) -> int:
    """``trunc-accessor``: trec_eval's command line (``--format ndeval``: ndeval's)."""
    return _main(build_parser(version), argv)


def _main(parser, argv) -> int:
    prog = parser.prog
    _one_line_warnings(prog)
    try:
        args = parser.parse_args(argv)
    except CommandLineError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        text = _lines(args, prog)
    except BrokenPipeError:
        _quiet_pipe()
        return 0
    except (CommandLineError, ValueError, TypeError, OSError, ImportError) as e:
        print(f"{prog}: {_error_line(e, args)}", file=sys.stderr)
        return 2
    try:
        write_lines(text, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_pipe()
    except OSError as e:  # a full disk, a closed terminal
        print(f"{prog}: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0


def _lines(args, prog: str) -> list[str]:
    """What the command prints: ``--list``'s table, ndeval's CSV (``--format ndeval``), or
    trec_eval's lines (or a table) for each run."""
    from trunc_accessor.frontends.cli.imports import import_module

    for module in args.imports:
        import_module(module)
    if args.list:
        return [list_metrics()]
    if len(args.files) < 2:
        raise CommandLineError("give QRELS then RUN (ndeval's order)"
                               if prog != "trunc-accessor"
                               else "give QRELS then RUN (trec_eval's order), or --list")
    if args.format == "ndeval":
        return _ndeval_lines(args)
    return _trec_eval_lines(args)


def _ndeval_lines(args) -> list[str]:
    # trunc-accessor-ndeval's own parser has neither option
    if getattr(args, "R", "qrels") != "qrels" or getattr(args, "Z", None):
        raise CommandLineError("-R and -Z are trec_eval's options; --format ndeval "
                               "reads diversity qrels and prints ndeval's measures")
    from trunc_accessor.frontends.cli import ndeval as ndeval_cli

    if getattr(args, "subtopics", None) is False:
        raise CommandLineError("--no-subtopics: ndeval's qrels always read their "
                               "second field as the subtopic")
    return list(ndeval_cli.lines(args, CommandLineError))


def _trec_eval_lines(args) -> list[str]:
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
    return list(render(blocks, named, args))


def _error_line(e: Exception, args) -> str:
    """An error as the command line says it: its options' spellings, no errno."""
    message = re.sub(r"ties='(\w+)'", r"--ties \1", str(e))  # the option's spelling here
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        message = f"cannot read {e.filename}: {e.strerror}"  # not '[Errno 21] ...'
    if args.format == "ndeval":  # ndeval's qrels always have a subtopic field
        message = message.replace("subtopics=True, but the file has 3 fields a line",
                                  "ndeval's qrels have 4 fields a line (topic subtopic "
                                  "docno grade), but the file has 3")
    return message.replace("subtopics=True", "--subtopics")


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
