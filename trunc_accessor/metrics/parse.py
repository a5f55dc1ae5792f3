"""The library's own string form of a measure: ``"ndcg@10"``, ``"rbp(p=0.5)"``,
``"ap(rel=2)@100"``, or a ``(name, params)`` pair.

``name['][@k][(params)]`` or ``name['](params)@k``: the metric's name or an alias (any
letter case), the cut-off after ``@``, parameters written ``name=value`` (Python literals,
or a bare word: ``gains=exponential``); ``rel=`` is the measure's own relevance level unless
the metric has a parameter of that name. A parameter may be given once.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.registry import Measure, get_metric

# name['][@k][(params)] or name['](params)@k; rel= in params is the measure's relevance level
_STRING_FORM = re.compile(
    r"^\s*([A-Za-z_][\w\-]*'?)\s*(?:@\s*([^\s(]+))?\s*(?:\((.*)\))?\s*(?:@\s*([^\s(]+))?\s*$")


def parse(spec: Any) -> Measure:
    """A Measure from ``"ndcg@10"``, ``"rbp(p=0.5)"``, ``("ndcg", {"k": 10})`` or a Measure.

    A parameter may be given once: ``"rbp(p=0.5,p=0.8)"`` and ``"precision@10(k=5)"`` are
    errors."""
    if isinstance(spec, Measure):
        return spec
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], Mapping):
        return _pair(spec)
    if not isinstance(spec, str):
        raise ParameterError(
            f"a metric is a string like 'ndcg@10' or a (name, params) pair, not {spec!r}")
    return _string(spec)


def _pair(spec: tuple) -> Measure:
    """``("ndcg", {"k": 10})``: a name and its parameters."""
    name, given = spec
    if not isinstance(name, str) or not all(isinstance(p, str) for p in given):
        raise ParameterError(f"a (name, params) metric pair takes a string name and "
                             f"string parameter names, not {spec!r}")
    return get_metric(name).measure(**given)


def _string(spec: str) -> Measure:
    """``"ndcg@10"``, ``"rbp(p=0.5)"``, ``"ap(rel=2)@100"``."""
    m = _STRING_FORM.match(spec)
    if not m:
        raise ParameterError(f"cannot parse metric {spec!r}; write e.g. 'ndcg@10' or 'rbp(p=0.5)'")
    name, at, inner, at_after = m.groups()
    if at is not None and at_after is not None:
        raise ParameterError(f"in {spec!r}: the cut-off is given twice (@{at} and @{at_after})")
    at = at if at is not None else at_after
    metric = get_metric(name)
    params: dict[str, Any] = {}
    if at is not None:
        try:
            params["k"] = _literal(at)
        except ValueError:
            raise ParameterError(f"in {spec!r}: the cut-off after @ must be a number") from None
    if inner and inner.strip():
        _keywords(spec, inner, at, params)
    level = params.pop("rel", None) if "rel" not in {p.name for p in metric.params} else None
    condensed = params.pop("judged_only", False)
    if not isinstance(condensed, bool):
        raise ParameterError(f"in {spec!r}: judged_only must be True or False")
    measure = metric.measure(**params).with_level(level)
    return measure.condensed() if condensed else measure


def _keywords(spec: str, inner: str, at: str | None, params: dict[str, Any]) -> None:
    """Add the ``name=value`` parameters written between the parentheses to ``params``."""
    bad = ParameterError(f"in {spec!r}: parameters are written name=value, e.g. 'rbp(p=0.5)'")
    call = _call(spec, inner, bad)
    for kw in call.keywords:
        if kw.arg is None:  # **mapping
            raise bad
        if kw.arg in params:
            how = f" (as @{at} and as k=)" if kw.arg == "k" and at is not None else ""
            raise ParameterError(f"in {spec!r}: {kw.arg} is given twice{how}")
        if isinstance(kw.value, ast.Name):  # a bare word: gains=exponential
            params[kw.arg] = kw.value.id
            continue
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            raise bad from None


def _call(spec: str, inner: str, bad: ParameterError) -> ast.Call:
    """The parameters as the keywords of a Python call ``f(inner)``, positional ones refused."""
    try:
        call = ast.parse(f"f({inner})", mode="eval").body
    except SyntaxError as e:
        repeated = re.search(r"keyword argument repeated: (\w+)", str(e))
        if repeated:
            raise ParameterError(f"in {spec!r}: {repeated.group(1)} is given twice") from None
        raise bad from None
    except (RecursionError, MemoryError, ValueError):
        raise bad from None
    if not isinstance(call, ast.Call) or call.args or any(kw.arg is None for kw in call.keywords):
        raise bad
    return call


def _literal(s: str):
    try:
        v = ast.literal_eval(s)
    except (SyntaxError, ValueError):
        raise ParameterError(s) from None
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise ParameterError(s)
    return v
