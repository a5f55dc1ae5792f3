"""The command line's ``-R FORMAT``: trec_eval 10's other relevance formats and their measures.

* ``-R prefs`` and ``-R qrels_prefs``: preference judgments (``trunc_accessor.io.prefs``),
  measures ``prefs_*`` (``trunc_accessor.metrics.prefs``); groups ``all_prefs`` (all of them)
  and ``prefs`` (runid, num_q, the three counts, ``prefs_simp``, ``prefs_pair``,
  ``prefs_avgjg``, the default here).
* ``-R qrels_jg``: qrels with judgment groups, measures ``map_avgjg``, ``P_avgjg`` (cutoffs
  ``P_avgjg.5,10``) and ``Rprec_mult_avgjg`` (multiples ``Rprec_mult_avgjg.0.5,1``)
  (``trunc_accessor.metrics.avgjg``); group ``qrels_jg`` (all three, the default here).

``runid`` and ``num_q`` go with every format. Measures print in trec_eval's order, whatever
the order of ``-m``.
"""
from __future__ import annotations

import os

from trunc_accessor.errors import InputError
from trunc_accessor.metrics import prefs as _prefs

FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
JG_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
ORDER = ("runid", "num_q", *_prefs.MEASURES, *JG_MEASURES)
NICKNAMES = {
    "all_prefs": ("runid", "num_q", *_prefs.MEASURES),
    "prefs": ("runid", "num_q", *_prefs.MEASURES[:6]),
    "qrels_jg": ("runid", "num_q", *JG_MEASURES),
}
DEFAULT = {"prefs": "prefs", "qrels_prefs": "prefs", "qrels_jg": "qrels_jg"}


class _Measure:
    """Stands for a measure computed here (the command line prints a Named whose measure
    is not None)."""

    def __init__(self, label: str):
        self.label = label


def _named(label: str, summary: str = "mean"):
    from typing import Any, cast

    from trunc_accessor.metrics.registry import Named

    return Named(label, cast(Any, _Measure(label)), summary)


def _cutoffs(name: str, text: str, integer: bool):
    values = []
    for part in text.split(","):
        try:
            values.append(int(part) if integer else float(part))
        except ValueError:
            kind = "integer" if integer else "number"
            raise InputError(f"-m {name}.{text}: {part!r} is not a{'n' if integer else ''} "
                             f"{kind}") from None
    values.sort()
    if integer and values[0] <= 0:
        raise InputError(f"-m {name}.{text}: cutoffs must be positive")
    if len(set(values)) < len(values):
        raise InputError(f"-m {name}.{text}: a cutoff is given twice")
    return values


def parse_measures(specs: list[str] | None, fmt: str):
    """The measures of ``-m`` for ``-R fmt``: the Named list in trec_eval's order."""
    from trunc_accessor.metrics.avgjg import P_CUTOFFS, RPREC_MULTS
    from trunc_accessor.metrics.registry import Named

    own = set(JG_MEASURES if fmt == "qrels_jg" else _prefs.MEASURES) | {"runid", "num_q"}
    chosen: set = set()
    params: dict = {}
    for spec in specs or [DEFAULT[fmt]]:
        name, dot, text = spec.partition(".")
        names = [name] if dot else [s for s in spec.split(",") if s]
        for one in names:
            group = NICKNAMES.get(one)
            wanted = group if group is not None else (one,)
            if group is not None and not set(group) <= own or group is None and one not in own:
                usable = sorted(n for n, g in NICKNAMES.items() if set(g) <= own)
                raise InputError(f"-m {one} is not a measure of -R {fmt}: use "
                                 f"{', '.join(sorted(own - {'runid', 'num_q'}))} or "
                                 f"{', '.join(usable)}")
            chosen.update(wanted)
        if dot:
            if name not in ("P_avgjg", "Rprec_mult_avgjg"):
                raise InputError(f"-m {spec}: {name} takes no parameters")
            params.setdefault(name, _cutoffs(name, text, name == "P_avgjg"))  # the first wins
    named = []
    for name in ORDER:
        if name not in chosen:
            continue
        if name == "runid":
            named.append(Named("runid", None, "none"))
        elif name == "P_avgjg":
            named += [_named(f"P_avgjg_{k}") for k in params.get(name, P_CUTOFFS)]
        elif name == "Rprec_mult_avgjg":
            named += [_named(f"Rprec_mult_avgjg_{m:.2f}")
                      for m in params.get(name, RPREC_MULTS)]
        else:
            summary = "sum" if name == "num_q" or name in _prefs.COUNTS else "mean"
            named.append(_named(name, summary))
    return named, params


def _read_judgments(path: str, fmt: str):
    from trunc_accessor.io import prefs

    reader = {"prefs": prefs.read_prefs, "qrels_prefs": prefs.read_qrels_prefs,
              "qrels_jg": prefs.read_qrels_jg}[fmt]
    return reader(path)


def evaluate(args, error):
    """(blocks, named) for ``-R prefs|qrels_prefs|qrels_jg``; ``error``: the command line's
    error class."""
    import polars as pl

    from trunc_accessor.frontends.cli.output import Block
    from trunc_accessor.io.read import read_run
    from trunc_accessor.metrics.avgjg import P_CUTOFFS, RPREC_MULTS, evaluate_avgjg

    fmt = args.R
    if args.ties not in (None, "trec_eval"):
        raise error(f"-R {fmt} ranks by trec_eval's order only (--ties trec_eval)")
    if args.M is not None and args.M < 0:
        raise error(f"-M takes a number of documents ≥ 0, not {args.M}")
    named, params = parse_measures(args.measure, fmt)
    judged_path, runs = args.files[0], args.files[1:]
    judgments = _read_judgments(judged_path, fmt)
    judged_qids = set(judgments["qid"].to_list())
    scored = [n for n in named if n.measure is not None]
    blocks = []
    for run_path in runs:
        run = read_run(run_path, library="polars")
        if args.ignore_identical_ids:
            run = run.filter(pl.col("qid") != pl.col("docid"))
        if run.height == 0:
            raise error(f"{run_path} holds no run line (trec_eval stops there too)")
        ids = run["system"].drop_nulls()
        runid = str(ids[0]) if len(ids) else os.path.basename(run_path)
        run = run.drop("system").with_columns(pl.col("qid").cast(pl.String),
                                               pl.col("docid").cast(pl.String))
        run_qids = set(run["qid"].to_list())
        evaluated = sorted(judged_qids if args.c else judged_qids & run_qids)
        if not evaluated:
            raise error(f"no query of {run_path} is in {judged_path} (trec_eval: 'No queries "
                        "with both results and relevance info'); -c scores every judged query")
        if fmt == "qrels_jg":
            frame = evaluate_avgjg(
                run, judgments, qids=evaluated, relevance_level=args.l, judged_only=args.J,
                max_docs=args.M, p_cutoffs=params.get("P_avgjg", P_CUTOFFS),
                rprec_mults=params.get("Rprec_mult_avgjg", RPREC_MULTS))
        else:
            frame = _prefs.evaluate_prefs(run, judgments, qids=evaluated, max_docs=args.M)
        blocks.append(Block(runid, evaluated, *_values(frame, evaluated, scored)))
    ids = [b.runid for b in blocks]
    if len(set(ids)) < len(ids):  # the same runid twice: say which file is which
        for b, path in zip(blocks, runs):
            b.runid = f"{b.runid} ({path})"
    return blocks, named


def _values(frame, evaluated: list, scored: list) -> tuple[dict, dict, dict]:
    """A run's (per-query values {(label, qid): value}, relstrings (none), summary values)
    from its per-query ``frame``; the mean adds the queries in trec_eval's order."""
    per_query = {row["qid"]: row for row in frame.iter_rows(named=True)}
    values = {}
    for q in evaluated:
        for n in scored:
            values[(n.label, q)] = 1.0 if n.label == "num_q" else per_query[q][n.label]
    summary = {}
    for n in scored:
        total = 0.0
        for q in evaluated:  # trec_eval's order of additions
            total += values[(n.label, q)]
        summary[n.label] = total if n.summary == "sum" else total / len(evaluated)
    return values, {}, summary
