"""One accessor method per registered metric, shared by every frontend.

A frontend class defines ``_evaluate(qrels, measures, by, queries, ties, relevance_level,
single)``; :func:`install` adds ``evaluate`` and a method per metric (``ndcg``, ``ap``, …)
whose signature and docstring come from the metric's registration.
"""
from __future__ import annotations

import inspect

from .. import metrics as _metrics  # noqa: F401  (registers the metrics)
from ..registry import REGISTRY, Metric, method_doc, parse_all

_COMMON = (("ties", "average"), ("by", None), ("queries", None), ("relevance_level", 1))


def _metric_method(metric: Metric):
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
              inspect.Parameter("qrels", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=p.default)
               for p in metric.params]
    params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d) for n, d in _COMMON]
    signature = inspect.Signature(params)

    def method(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        a = dict(bound.arguments)
        a.pop("self")
        qrels = a.pop("qrels")
        common = {n: a.pop(n) for n, _ in _COMMON}
        measure = metric.measure(**a)
        return self._evaluate(qrels, [measure], single=True, **common)

    method.__signature__ = signature
    method.__name__ = method.__qualname__ = metric.name
    method.__doc__ = method_doc(metric)
    return method


def evaluate(self, qrels, metrics, *, ties="average", by=None, queries=None, relevance_level=1):
    """Many metrics in one call, sharing one preparation (join, order, tie groups).

    Parameters
    ----------
    qrels : DataFrame
        Judgments (qid, docid, rel), pandas or Polars.
    metrics : list
        Strings (``"ndcg@10"``, ``"rbp(p=0.5)"``, ``"precision@5"``, ``"ap"``) or
        ``(name, {param: value})`` pairs; see ``trunc_accessor.metrics_table()``.
    ties, by, queries, relevance_level
        As on every metric method.

    Returns
    -------
    One wide per-query frame, a column per metric named by its canonical label
    (``"ndcg@10"``; parameters that differ from the defaults in parentheses). pandas: a
    DataFrame indexed by qid (or by…, qid); Polars: key columns then metric columns.
    The system score is the column mean (undefined values are left out); see
    ``trunc_accessor.aggregate``.
    """
    return self._evaluate(qrels, parse_all(metrics), single=False, ties=ties, by=by,
                          queries=queries, relevance_level=relevance_level)


def install(cls):
    cls.evaluate = evaluate
    for name, metric in REGISTRY.items():
        setattr(cls, name, _metric_method(metric))
    return cls
