"""How a metric becomes a method of the ``.ir`` namespaces.

The built-in metrics' methods are written out in ``trunc_accessor.frontends._generated``
(``python -m trunc_accessor.frontends._codegen``, which reads ``COMMON`` and ``annotation``
here); a metric declared at run time (``trunc_accessor.metrics.user.define``) gets the same
signature from ``metric_method`` when ``run.ir.NAME`` (``Namespace.__getattr__``) or
``pd.DataFrame.ir.NAME`` (the metaclass ``Resolving``) asks for it. ``reserve`` tells the
metrics layer the namespace classes' other attribute names, which a metric may not take.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trunc_accessor.metrics.docs import method_doc
from trunc_accessor.metrics.params import Param
from trunc_accessor.metrics.registry import REGISTRY, Metric
from trunc_accessor.metrics.user import accessor_names, reserve_accessor_names

#: The keyword-only arguments every metric method takes, with their defaults and annotations.
COMMON: tuple[tuple[str, object, str], ...] = (
    ("ties", "average", "str"),
    ("by", None, "str | Sequence[str] | None"),
    ("queries", None, "Iterable[Any] | None"),
    ("relevance_level", 1, "float"),
    ("judged_only", False, "bool"),
    ("undefined", "zero", "str"),
)
# parameters whose default does not say their type (None: a number or None, elsewhere)
_BY_NAME = {"k": "int | None", "depth": "int | None", "collection_size": "int",
            "gains": "str | Mapping[float, float] | None", "recalls": "Sequence[float]"}


def annotation(p: Param) -> str:
    """The annotation of a metric parameter: by its name where the default does not say the
    type (``gains``, ``recalls``, the cut-offs), else from its default (None: a number or
    None)."""
    if p.name in _BY_NAME and (p.default is None or p.name != "depth"):
        return _BY_NAME[p.name]
    if p.name == "depth":
        return "int"
    if p.default is None:
        return "float | None"
    if isinstance(p.default, bool):
        return "bool"
    return {int: "int", float: "float", str: "str", tuple: "Sequence[float]"}.get(
        type(p.default), "Any")


def metric_method(metric: Metric) -> Callable[..., Any]:
    """The method of a metric declared at run time (the built-in ones are written out in
    ``trunc_accessor.frontends._generated``), with the same signature."""
    kind = inspect.Parameter
    params = [kind("self", kind.POSITIONAL_OR_KEYWORD),
              kind("qrels", kind.POSITIONAL_OR_KEYWORD, annotation="Frame")]
    params += [kind(p.name, kind.POSITIONAL_OR_KEYWORD, default=p.default,
                    annotation=annotation(p)) for p in metric.params]
    params += [kind(n, kind.KEYWORD_ONLY, default=d, annotation=a) for n, d, a in COMMON]
    signature = inspect.Signature(params, return_annotation="Values")

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        a = dict(bound.arguments)
        a.pop("self")
        qrels = a.pop("qrels")
        common = {n: a.pop(n) for n, _, _ in COMMON}
        return self._metric(metric.name, a, qrels, **common)

    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__name__ = method.__qualname__ = metric.name
    method.__doc__ = method_doc(metric)
    return method


def user_metric(name: str) -> Metric | None:
    """The metric ``name`` if it was declared at run time (None otherwise)."""
    metric = REGISTRY.get(name)
    return metric if metric is not None and metric.user else None


class Resolving(type):
    """The namespace classes' metaclass: ``pd.DataFrame.ir.NAME`` (on the class) finds a
    metric declared at run time, as ``run.ir.NAME`` does on an instance."""

    if not TYPE_CHECKING:  # type checkers see the written-out methods only
        def __getattr__(cls, name):
            metric = user_metric(name) if not name.startswith("_") else None
            if metric is None:
                raise AttributeError(f"type object {cls.__name__!r} has no attribute {name!r}")
            return metric_method(metric)


def reserve(cls: type) -> type:
    """Tell the metrics layer the names of ``cls``'s attributes that are not metrics: a
    metric declared later may not take one of them."""
    reserve_accessor_names(set(dir(cls)) - set(REGISTRY))
    return cls


def accessor_attributes() -> set[str]:
    """Every attribute of the accessor classes (pandas, Polars eager and lazy, Dask) that is
    not a metric's method: the names a metric of one's own may not take."""
    return accessor_names()
