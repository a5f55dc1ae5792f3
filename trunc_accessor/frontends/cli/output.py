"""The command line's output: each run's answer (``Block``) as trec_eval's lines, or as a
table (tsv, json, markdown), and ``--list``'s table of metrics and their names."""
from __future__ import annotations

import json
import math

from trunc_accessor.metrics import trec_dialect
from trunc_accessor.metrics.registry import Named


class Block:
    """One run's answer: its runid, the qids printed per query (trec_eval's order), the
    values {(label, qid): value}, the relstrings, and the summary values."""

    def __init__(self, runid, qids, values, strings, summary):
        self.runid, self.qids, self.values = runid, qids, values
        self.strings, self.summary = strings, summary


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


def write_lines(text_lines, out) -> None:
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


def list_metrics() -> str:
    """``--list``: every metric with its names in every dialect, tab-separated."""
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
