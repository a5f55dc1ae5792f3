"""The docstring of a metric's accessor method (``run.ir.ndcg``), rendered numpy-style from
its declaration: its doc, its parameters, the call's options, its ties, undefined values and
references."""
from __future__ import annotations

from dataclasses import dataclass, field

from trunc_accessor.metrics.conventions import UNDEFINED_RULE
from trunc_accessor.metrics.registry import Metric


@dataclass
class _Doc:
    """Builds the user-facing docstring of a metric's accessor method."""

    metric: Metric
    extra: list[str] = field(default_factory=list)

    def render(self) -> str:
        m = self.metric
        lines = [m.doc, "", "Parameters", "----------", "qrels : DataFrame",
                 "    Judgments (qid, docid, rel), pandas or Polars."]
        for p in m.params:
            lines += [f"{p.name} : default {p.default!r}", f"    {p.doc}"]
        lines += [
            "ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'",
            "    'average': exact mean over every order of tied scores (McSherry & Najork 2008);",
            "    'first': the order as given; 'trec_eval': score desc, docid desc "
            "(trec_eval's order);",
            "    'trec_eval9': the same with scores compared as float32 "
            "(trec_eval 9.0.8, pytrec_eval).",
            "by : str or list of str, optional",
            "    Key columns holding many systems in one frame; values per (by…, qid). Any",
            "    column name works; a missing key (None/NaN/null) is a system of its own.",
            "queries : iterable, optional",
            "    Extra qids to score though they have no judgments (R = 0).",
            "undefined : {'zero', 'nan'}, default 'zero'",
            "    An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,",
            "    ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.",
            "relevance_level : number > 0, default 1",
            "    A document is relevant when its grade is ≥ this (unjudged documents count",
            "    as grade 0, so they never are).",
            "",
            "Returns",
            "-------",
            "pandas: Series indexed by qid (or by…, qid) named after the metric;",
            "Polars: frame with the key columns and one Float64 column named after the metric.",
        ]
        if m.ties:
            lines += ["", "Ties", "----", m.ties]
        if m.undefined:
            lines += ["", "Undefined values", "----------------", m.undefined]
            if not m.undefined.startswith("Never undefined"):
                lines += [UNDEFINED_RULE]
        if m.citation:
            lines += ["", "References", "----------", m.citation]
        return "\n".join(lines)


def method_doc(metric: Metric) -> str:
    return _Doc(metric).render()
