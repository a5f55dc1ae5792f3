"""Metric declarations and the ``"ndcg@10"`` string form.

A metric is declared once (``register``): name, aliases, typed parameters with defaults
and checks, kernel, citation and docstring. That one declaration gives the accessor method
(``run.ir.ndcg``), the ``evaluate`` string form (``"ndcg@10"``, ``"rbp(p=0.5)"``), the CLI
name and the single-ranking function (``trunc_accessor.single.ndcg([3, 0, 2])``).

A ``Measure`` is a metric with bound parameters; its canonical ``Measure.label``
(``name[@k][(param=value, …)]``, listing only parameters that differ from their defaults)
names its output column, and every spelling that means the same thing parses to it.
"""
from __future__ import annotations

import ast
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.conventions import UNDEFINED_RULE, check_level

# --------------------------------------------------------------------------- parameters
# A check takes a value and returns it normalised, or raises a ValueError whose message
# starts with "must" (the caller puts the parameter's name in front: "depth must be …").

MAX_CUTOFF = 2 ** 53  # cut-offs and depths beyond this are not exact as floats


def is_real(x) -> bool:
    """A real number (not a bool, complex or string)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(
        x, (bool, np.bool_))


def check_k(k):
    """A rank cut-off or depth: None (the whole ranking) or a whole number in [1, 2^53]."""
    if k is None:
        return None
    if not is_real(k) or not math.isfinite(k) or k != int(k):
        raise ValueError(f"must be a whole number ≥ 1 or None, not {k!r}")
    if k < 1:
        raise ValueError(f"must be ≥ 1 (a cut-off of {k} ranks nothing), not {k!r}")
    if k > MAX_CUTOFF:
        raise ValueError(f"must be at most 2**53 (or None for no cut-off), not {k!r}")
    return int(k)


def check_p(p):
    """A probability strictly between 0 and 1, as a normal float (≥ 2.2e-308: a subnormal p
    loses its precision and can overflow what divides by it)."""
    if not is_real(p) or not sys.float_info.min <= p < 1:
        raise ValueError(f"must be a number in the open interval (0, 1), at least "
                         f"{sys.float_info.min:.3g} (a normal float), not {p!r}")
    return float(p)


def check_bool(b):
    if not isinstance(b, (bool, np.bool_)):
        raise ValueError(f"must be True or False, not {b!r}")
    return bool(b)


def check_positive_or_none(x):
    if x is None:
        return None
    if not is_real(x) or not math.isfinite(x) or not x > 0:
        raise ValueError(f"must be a finite number > 0 or None, not {x!r}")
    return float(x)


def check_nonnegative(x):
    """A finite number ≥ 0 (an effort e: 0 gives the metric without effort)."""
    if not is_real(x) or not math.isfinite(x) or x < 0:
        raise ValueError(f"must be a finite number ≥ 0, not {x!r}")
    return float(x)


def check_unit(x):
    """A number in the closed interval [0, 1]."""
    if not is_real(x) or not math.isfinite(x) or not 0 <= x <= 1:
        raise ValueError(f"must be a number in [0, 1], not {x!r}")
    return float(x)


def check_positive(x):
    """A finite number > 0."""
    if not is_real(x) or not math.isfinite(x) or not x > 0:
        raise ValueError(f"must be a finite number > 0, not {x!r}")
    return float(x)


def check_gains(g):
    """nDCG gains: None (gain = grade), "exponential" (2^g − 1), or a mapping grade → gain
    of finite numbers."""
    if g is None or (isinstance(g, str) and g == "exponential"):
        return g
    if isinstance(g, str) and g == "linear":
        return None
    if isinstance(g, Mapping):
        out = {}
        for key, value in g.items():
            try:
                pair = float(key), float(value)
            except (TypeError, ValueError):
                pair = None
            if pair is None or isinstance(key, bool) or isinstance(value, bool) \
                    or not all(math.isfinite(v) for v in pair):
                raise ValueError(f"must map grades to gains, both finite numbers; grade {key!r} "
                                 f"maps to {value!r}")
            out[pair[0]] = pair[1]
        return tuple(sorted(out.items()))
    raise ValueError(f"must be None, 'exponential' or a mapping grade → gain, not {g!r}")


def checked(name: str, check: Callable[[Any], Any], value):
    """``check(value)``, its error message prefixed with the parameter's name."""
    try:
        return check(value)
    except ValueError as e:
        raise ParameterError(f"{name} {e}") from None


@dataclass(frozen=True)
class Param:
    name: str
    default: Any
    check: Callable[[Any], Any]
    doc: str


K = Param("k", None, check_k, "rank cut-off; None = the whole ranking")
P = Param("p", 0.8, check_p, "persistence, the probability of going on to the next rank")


@dataclass(frozen=True)
class Metric:
    name: str
    kernel: Callable[..., np.ndarray]
    params: tuple[Param, ...]
    aliases: tuple[str, ...]
    summary: str
    citation: str
    doc: str
    undefined: str = ""
    user: bool = False  # declared by a user (trunc_accessor.metrics.user), not the library
    ties: str = ""  # what ties="average" computes: the closed form, or why it is refused
    subtopics: bool = False  # a diversity measure: reads the qrels' subtopics

    def measure(self, **params) -> Measure:
        known = {p.name: p for p in self.params}
        for name in params:
            if name not in known:
                raise ParameterError(
                    f"{self.name} takes no parameter {name!r}; its parameters are "
                    f"{[p.name for p in self.params] or 'none'}")
        bound = {}
        for p in self.params:
            value = params.get(p.name, p.default)
            bound[p.name] = checked(f"{self.name}: {p.name}", p.check, value)
        return Measure(self, tuple(bound.items()))


@dataclass(frozen=True)
class Measure:
    """A metric with its parameters bound; hashable, equal when the values would be."""

    metric: Metric
    params: tuple[tuple[str, Any], ...]
    level: float | None = None  # its own relevance level (ir_measures' rel=), else the call's

    @property
    def kwargs(self) -> dict:
        return dict(self.params)

    @property
    def label(self) -> str:
        kw = self.kwargs
        defaults = {p.name: p.check(p.default) for p in self.metric.params}
        s = self.metric.name
        if kw.get("k") is not None:
            s += f"@{kw['k']}"
        extra = [(n, v) for n, v in self.params if n != "k" and v != defaults[n]]
        if self.level is not None:
            extra.append(("rel", self.level))
        if extra:
            s += "(" + ",".join(f"{n}={_fmt(v)}" for n, v in extra) + ")"
        return s

    def __repr__(self) -> str:
        return f"Measure({self.label})"

    def resolve(self, prep: Prepared, relevance_level: float) -> tuple[float, dict]:
        """The relevance level (its own, else the call's) and the parameters the kernel
        takes, checked against the preparation (``max_grade``)."""
        level = relevance_level if self.level is None else self.level
        top = self.kwargs.get("max_grade")
        if top is not None and top < prep.max_grade:
            # one rule for every metric with a grade scale: its top bounds every grade
            raise ParameterError(
                f"{self.metric.name}: max_grade={_fmt(top)} is below the largest grade in the "
                f"qrels, {_fmt(float(prep.max_grade))}: the top of the grade scale must be at "
                "least every grade (max_grade=None takes the qrels' largest grade)")
        return level, self.kwargs

    def compute(self, prep: Prepared, relevance_level: float) -> np.ndarray:
        level, kwargs = self.resolve(prep, relevance_level)
        return self.metric.kernel(prep, level, **kwargs)

    def with_level(self, level: float | None) -> Measure:
        """The same measure with its own relevance level (None: the call's)."""
        return Measure(self.metric, self.params, None if level is None else check_level(level))


@dataclass(frozen=True)
class Named:
    """A measure as the user named it: the output ``label``, the ``measure`` (None for
    trec_eval's runid and relstring, which the command line prints itself) and its
    ``summary`` over queries ("mean"; "sum" for trec_eval's counts; "gmean" for gm_map and
    gm_bpref; "none"). trec_eval's measures carry their place in trec_eval's order
    (``trec``: table index and parameter value), the naming they came from (``batch``) and
    whether a later naming of the same measure ``replaces`` them; ``extra`` is a value the
    command line needs (relstring's length)."""

    label: str
    measure: Measure | None
    summary: str = "mean"
    trec: tuple = ()
    batch: int = 0
    replaces: bool = False
    extra: Any = None


def _fmt(v) -> str:
    if isinstance(v, tuple) and all(isinstance(x, tuple) for x in v):  # gains mapping
        return "{" + ",".join(f"{_fmt(a)}:{_fmt(b)}" for a, b in v) + "}"
    if isinstance(v, tuple):  # a list of values (recall levels)
        return "(" + ",".join(_fmt(x) for x in v) + ")"
    if isinstance(v, float) and v.is_integer() and not isinstance(v, bool):
        return str(int(v))
    return str(v)


REGISTRY: dict[str, Metric] = {}
_ALIASES: dict[str, str] = {}


def register(name: str, *, params: tuple[Param, ...] = (), aliases: tuple[str, ...] = (),
             citation: str = "", undefined: str = "", user: bool = False, ties: str = "",
             subtopics: bool = False):
    """Declare a metric; the decorated function is its kernel and its docstring the doc
    (``user``: declared through ``trunc_accessor.metrics.user.define``; ``ties``: what
    the default ``ties="average"`` computes; ``subtopics``: a diversity measure, which reads
    the subtopics of diversity qrels)."""

    def deco(kernel):
        doc = (kernel.__doc__ or "").strip()
        metric = Metric(name=name, kernel=kernel, params=params, aliases=aliases,
                        summary=" ".join(doc.split("\n\n")[0].split()) if doc else name,
                        citation=citation,
                        doc=doc, undefined=undefined, user=user, ties=ties,
                        subtopics=subtopics)
        if name in REGISTRY:
            raise RuntimeError(f"metric {name!r} registered twice")
        REGISTRY[name] = metric
        for a in (name, *aliases):
            _ALIASES[a.lower()] = name
        return kernel

    return deco


def unregister(name: str) -> None:
    """Remove a user-declared metric and its aliases (to declare it again); ``run.ir.NAME``
    and ``trunc_accessor.single.NAME`` look metrics up here, so they lose it too."""
    metric = REGISTRY.pop(name)
    for a in (metric.name, *metric.aliases):
        if _ALIASES.get(a.lower()) == name:
            del _ALIASES[a.lower()]


def get_metric(name: str) -> Metric:
    try:
        return REGISTRY[_ALIASES[name.lower()]]
    except KeyError:
        raise ParameterError(f"unknown metric {name!r}; known: {sorted(REGISTRY)}") from None


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
        name, given = spec
        if not isinstance(name, str) or not all(isinstance(p, str) for p in given):
            raise ParameterError(f"a (name, params) metric pair takes a string name and "
                                 f"string parameter names, not {spec!r}")
        return get_metric(name).measure(**given)
    if not isinstance(spec, str):
        raise ParameterError(
            f"a metric is a string like 'ndcg@10' or a (name, params) pair, not {spec!r}")
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
        bad = ParameterError(f"in {spec!r}: parameters are written name=value, e.g. 'rbp(p=0.5)'")
        try:
            call = ast.parse(f"f({inner})", mode="eval").body
        except SyntaxError as e:
            repeated = re.search(r"keyword argument repeated: (\w+)", str(e))
            if repeated:
                raise ParameterError(f"in {spec!r}: {repeated.group(1)} is given twice") from None
            raise bad from None
        except (RecursionError, MemoryError, ValueError):
            raise bad from None
        if (not isinstance(call, ast.Call) or call.args
                or any(kw.arg is None for kw in call.keywords)):
            raise bad
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
    level = params.pop("rel", None) if "rel" not in {p.name for p in metric.params} else None
    return metric.measure(**params).with_level(level)


def _literal(s: str):
    try:
        v = ast.literal_eval(s)
    except (SyntaxError, ValueError):
        raise ParameterError(s) from None
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise ParameterError(s)
    return v


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
