"""Every metric on a single ranking given as a list of grades, best first.

For teaching, for reproducing a paper's table, and for a plain function inside one's own
groupby-apply. The same kernels as the accessor answer::

    >>> from trunc_accessor.single import ap, ndcg
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
* ``ties``, ``relevance_level``, ``undefined`` (``"zero"``, the default: an undefined value
  such as AP with R = 0 is 0; ``"nan"``: NaN), ``max_grade`` and the metric's own
  parameters, as on the accessor.
"""
from __future__ import annotations

import inspect

from .. import metrics as _metrics  # noqa: F401  (registers the metrics)
from ..core.prepare import prepare_single
from ..core.registry import REGISTRY, Metric, apply_undefined, check_level, check_undefined
from ._methods import annotation


def _make(metric: Metric):
    def fn(grades, *, scores=None, qrels_grades=None, R=None, ties="average",
           relevance_level=1, undefined="zero", **params):
        level = check_level(relevance_level)
        undefined = check_undefined(undefined)
        measure = metric.measure(**params)
        prep = prepare_single(grades, scores, qrels_grades=qrels_grades, R=R,
                              relevance_level=level, ties=ties)
        return float(apply_undefined(measure.compute(prep, level), undefined)[0])

    kind = inspect.Parameter
    sig = [kind("grades", kind.POSITIONAL_OR_KEYWORD,
                annotation="list of grades in ranking order (None: unjudged)")]
    for name, default, note in (("scores", None, "list of floats | None"),
                                ("qrels_grades", None, "list of grades | None"),
                                ("R", None, "int | None"), ("ties", "average", "str"),
                                ("relevance_level", 1, "float"), ("undefined", "zero", "str")):
        sig.append(kind(name, kind.KEYWORD_ONLY, default=default, annotation=note))
    for p in metric.params:
        sig.append(kind(p.name, kind.KEYWORD_ONLY, default=p.default, annotation=annotation(p)))
    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        sig, return_annotation="float")
    fn.__name__ = fn.__qualname__ = metric.name
    fn.__doc__ = metric.doc
    return fn


for _name, _metric in REGISTRY.items():
    globals()[_name] = _make(_metric)

__all__ = list(REGISTRY)


def __getattr__(name: str):
    """A metric declared after import (:func:`trunc_accessor.user_metrics.define`); a metric
    declared again gets its new definition."""
    if name in REGISTRY:
        return _make(REGISTRY[name])
    raise AttributeError(f"module 'trunc_accessor.single' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(REGISTRY))
