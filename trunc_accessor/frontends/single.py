"""Every metric on a single ranking given as a list of grades, best first.

For teaching, for reproducing a paper's table, and for a plain function inside one's own
groupby-apply. The same kernels as the accessor answer::

    >>> from trunc_accessor.frontends.single import ap, ndcg
    >>> round(ap([1, 0, 1], R=3), 4)
    0.5556
    >>> ndcg([0, 1], scores=[1.0, 1.0])  # the two orders, averaged
    0.8154648767857288

Arguments of every function:

* ``grades``: the grade at each position (``None`` or NaN: unjudged);
* ``scores``: optional, non-increasing; equal adjacent scores are ties;
* ``qrels_grades``: every judged grade of the query (retrieved or not); default: the
  judged grades of the ranking, plus, with ``R=``, enough documents of grade
  ``relevance_level`` outside it to make R relevant documents;
* ``judged_only``: remove the unjudged positions (and those graded below 0) first, the
  condensed list of Sakai 2007, as on the accessor;
* ``ties``, ``relevance_level``, ``undefined`` (``"zero"``, the default: an undefined value
  such as AP with R = 0 is 0; ``"nan"``: NaN), ``max_grade`` and the metric's own
  parameters, as on the accessor.

The diversity measures (α-nDCG, ERR-IA, NRBP, …) take, instead of grades, the subtopics each
position is relevant to, and ``judged=``: the subtopics of the query's other relevant
documents, not retrieved (they enter the ideal ranking of the normalised measures)::

    >>> from trunc_accessor.frontends.single import alpha_ndcg
    >>> round(alpha_ndcg([{1}, {1, 2}, set()], judged=[{3}]), 4)
    0.6756
"""
from __future__ import annotations

import inspect
import warnings
from typing import Any

import polars as pl

from trunc_accessor import metrics as _metrics  # noqa: F401  (registers the metrics)
from trunc_accessor.core.numbers import number_list
from trunc_accessor.core.prepare import prepare_single
from trunc_accessor.engine import options as _options
from trunc_accessor.engine.options import apply_undefined
from trunc_accessor.frontends.methods import annotation
from trunc_accessor.metrics.registry import REGISTRY, Metric
from trunc_accessor.warn import EmptyRunWarning


def _subtopic_sets(values, name: str) -> list:
    """Each position's subtopics as a list (None: unjudged), checked."""
    from trunc_accessor.errors import InputError

    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise InputError(f"{name} must be a list with, for each document, the "
                         f"collection of subtopics it is relevant to, not {values!r}")
    out: list[list[Any] | None] = []
    for i, item in enumerate(values):
        if item is None:
            out.append(None)
        elif isinstance(item, (str, bytes)) or not hasattr(item, "__iter__"):
            raise InputError(f"{name}[{i}] must be a collection of subtopics (a set "
                             f"or list, None for unjudged), not {item!r}")
        else:
            out.append(list(item))
    return out



def _make_diversity(metric: Metric):
    """A diversity measure on one ranking given as the subtopics of each position."""

    def fn(subtopics, *, scores=None, judged=None, ties="average", relevance_level=1,
           judged_only=False, undefined="zero", **params):
        from trunc_accessor.engine import evaluation as engine
        from trunc_accessor.errors import InputError
        from trunc_accessor.metrics.registry import Named

        options = _options.options(ties=ties, relevance_level=relevance_level,
                                   undefined=undefined, judged_only=judged_only)

        ranking = _subtopic_sets(subtopics, "subtopics")
        extra = _subtopic_sets(judged if judged is not None else [], "judged")
        docs = [f"r{i}" for i in range(len(ranking))] + [f"j{i}" for i in range(len(extra))]
        rows = [(d, s) for d, subs in zip(docs, ranking + extra) if subs for s in subs]
        judged_docs = [d for d, subs in zip(docs, ranking + extra) if subs is not None]
        empty = [(d, None) for d in judged_docs if d not in {r[0] for r in rows}]
        labels = sorted({str(s) for _, s in rows}) or ["1"]
        qrels = pl.DataFrame(
            {"qid": 0, "subtopic": [str(s) for _, s in rows] + [labels[0]] * len(empty),
             "docid": [d for d, _ in rows] + [d for d, _ in empty],
             "rel": [1.0] * len(rows) + [0.0] * len(empty)},
            schema={"qid": pl.Int64, "subtopic": pl.String, "docid": pl.String,
                    "rel": pl.Float64})
        n = len(ranking)
        score = (list(number_list(scores, "scores", finite=False)) if scores is not None
                 else list(range(n, 0, -1)))
        if len(score) != n:
            raise InputError(f"scores has {len(score)} values for {n} documents")
        run = pl.DataFrame({"qid": [0] * n, "docid": docs[:n], "score": score},
                           schema={"qid": pl.Int64, "docid": pl.String, "score": pl.Float64})
        measure = metric.measure(**params)
        if options.ties.startswith("trec_eval") and scores is None:
            # no scores: the list's order is the ranking, which trec_eval's docid order of
            # equal scores would undo
            options = options.replace(ties="first")
        with warnings.catch_warnings():
            # an empty ranking is what was asked for here, not a run emptied by mistake
            warnings.simplefilter("ignore", EmptyRunWarning)
            _keys, values, _cols = engine.compute(run, qrels, [Named(measure.label, measure)],
                                                  options)
        return float(values[measure.label][0])

    first = ("subtopics", "list of subtopic collections in ranking order (None: unjudged)")
    return _described(fn, metric, first,
                      (("scores", None, "list of floats | None"),
                       ("judged", None, "list of subtopic collections | None"),
                       ("ties", "average", "str"), ("relevance_level", 1, "float"),
                       ("judged_only", False, "bool"), ("undefined", "zero", "str")))


def _described(fn, metric: Metric, first: tuple[str, str], keywords) -> Any:
    """``fn`` with the signature (first positional, the keyword-only ``keywords`` (name,
    default, annotation), the metric's own parameters), name and docstring of ``metric``."""
    kind = inspect.Parameter
    sig = [kind(first[0], kind.POSITIONAL_OR_KEYWORD, annotation=first[1])]
    for name, default, note in keywords:
        sig.append(kind(name, kind.KEYWORD_ONLY, default=default, annotation=note))
    for p in metric.params:
        sig.append(kind(p.name, kind.KEYWORD_ONLY, default=p.default, annotation=annotation(p)))
    fn.__signature__ = inspect.Signature(
        sig, return_annotation="float")
    fn.__name__ = fn.__qualname__ = metric.name
    fn.__doc__ = metric.doc
    return fn


def _make(metric: Metric):
    if metric.subtopics:
        return _make_diversity(metric)

    def fn(grades, *, scores=None, qrels_grades=None, R=None, ties="average",
           relevance_level=1, judged_only=False, undefined="zero", **params):
        options = _options.options(ties=ties, relevance_level=relevance_level,
                                   undefined=undefined, judged_only=judged_only)
        measure = metric.measure(**params)
        level = options.relevance_level
        prep = prepare_single(grades, scores, qrels_grades=qrels_grades, R=R,
                              relevance_level=level, ties=options.ties,
                              judged_only=options.judged_only)
        return float(apply_undefined(measure.compute(prep, level), options.undefined)[0])

    return _described(fn, metric, ("grades", "list of grades in ranking order (None: unjudged)"),
                      (("scores", None, "list of floats | None"),
                       ("qrels_grades", None, "list of grades | None"), ("R", None, "int | None"),
                       ("ties", "average", "str"), ("relevance_level", 1, "float"),
                       ("judged_only", False, "bool"), ("undefined", "zero", "str")))


for _name, _metric in REGISTRY.items():
    globals()[_name] = _make(_metric)

__all__ = list(REGISTRY)


def __getattr__(name: str):
    """A metric declared after import (``trunc_accessor.metrics.user.define``); a metric
    declared again gets its new definition."""
    if name in REGISTRY:
        return _make(REGISTRY[name])
    raise AttributeError(f"module 'trunc_accessor.single' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(REGISTRY))
