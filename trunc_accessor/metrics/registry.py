"""Metric declarations: the ``Metric`` and ``Measure`` types and the registry.

A metric is declared once (``register``): name, aliases, typed parameters with defaults
and checks, kernel, citation and docstring. That one declaration gives the accessor method
(``run.ir.ndcg``), the ``evaluate`` string form (``"ndcg@10"``, ``"rbp(p=0.5)"``), the CLI
name and the single-ranking function (``trunc_accessor.single.ndcg([3, 0, 2])``).

A ``Measure`` is a metric with bound parameters; its canonical ``Measure.label``
(``name[@k][(param=value, …)]``, listing only parameters that differ from their defaults)
names its output column, and every spelling that means the same thing parses to it
(``trunc_accessor.metrics.parse``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from trunc_accessor.core.condense import condensed
from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.conventions import check_level
from trunc_accessor.metrics.dialects import Spelling, TrecName
from trunc_accessor.metrics.params import Param, checked


@dataclass(frozen=True)
class Metric:
    """A declared metric (``register``): its kernel, parameters, names, documentation, its
    names in other libraries' dialects, how it is summarised over queries and its prefix
    kernel. ``measure(**params)`` binds its parameters."""

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
    # its names in other dialects, its summary over queries and its prefix kernel (register)
    ir_measures: tuple[Spelling, ...] = ()
    ranx: tuple[Spelling, ...] = ()
    trec_eval: tuple[TrecName, ...] = ()
    aggregate: str = "mean"
    prefix: Callable[..., np.ndarray] | None = None
    samples: bool = False  # reads a run of sampled rankings (its ``sample`` column)

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
    judged_only: bool = False  # scored on condensed lists (ir_measures' judged_only=True)

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
        if self.judged_only:
            extra.append(("judged_only", True))
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
        if "sample" in prep.extra and not self.metric.samples:
            raise ParameterError(
                f"{self.metric.name} scores one ranking per query, and the run has a "
                "'sample' column of sampled rankings (read by the expected exposure "
                "measures ee_d, ee_r, ee_l); score each sample with by='sample', or drop "
                "the column")
        level, kwargs = self.resolve(prep, relevance_level)
        if self.judged_only:
            prep = condensed(prep)
        return self.metric.kernel(prep, level, **kwargs)

    def with_level(self, level: float | None) -> Measure:
        """The same measure with its own relevance level (None: the call's)."""
        return Measure(self.metric, self.params, None if level is None else check_level(level),
                       self.judged_only)

    def condensed(self) -> Measure:
        """The same measure scored on condensed lists: the documents without a judgment of
        grade ≥ 0 removed from each ranking first (Sakai 2007), as ``judged_only=True`` does
        for every measure of a call."""
        return Measure(self.metric, self.params, self.level, True)


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
_GENERATION = [0]  # bumped by every register and unregister: tables built from the registry


def generation() -> int:
    """A number that changes whenever a metric is registered or unregistered (the tables
    built from the registry, e.g. trec_eval's measure table, are rebuilt when it does)."""
    return _GENERATION[0]


def register(name: str, *, params: tuple[Param, ...] = (), aliases: tuple[str, ...] = (),
             citation: str = "", undefined: str = "", user: bool = False, ties: str = "",
             subtopics: bool = False, ir_measures: str | Spelling | tuple = (),
             ranx: str | Spelling | tuple = (), trec_eval: str | TrecName | tuple = (),
             aggregate: str = "mean", prefix: Callable[..., np.ndarray] | None = None,
             samples: bool = False):
    """Declare a metric; the decorated function is its kernel and its docstring the doc.

    Parameters
    ----------
    name : str
        The metric's name: its accessor method, its string form, its column label.
    params : tuple of Param
        Its parameters, with defaults and checks.
    aliases : tuple of str
        Other names of the metric in the library's own string form.
    citation, undefined, ties : str
        Its reference; when its value is undefined; what the default ``ties="average"``
        computes (the closed form, or why it is refused).
    user : bool
        Declared through ``trunc_accessor.metrics.user.define``, not by the library.
    subtopics : bool
        A diversity measure, which reads the subtopics of diversity qrels.
    ir_measures : str, Spelling or tuple of them
        Its names in ir_measures' (and PyTerrier's) dialect (``"nDCG"``, or
        ``Spelling("ERR", {"max_grade": 4})`` for a name that implies parameters).
    ranx : str, Spelling or tuple of them
        Its names in ranx' dialect where they differ from the metric's own (``"mrr"``).
    trec_eval : str, TrecName or tuple of them
        The measures of trec_eval's table it computes (``"map"``,
        ``TrecName("map_cut", "cutoffs", "k", CUTS)``); a name must not be another
        metric's.
    aggregate : {"mean", "sum"}, default "mean"
        How its per-query values are summarised over queries, as trec_eval does: their
        mean, or their sum (the counts: num_ret, num_rel, …).
    prefix : callable, optional
        Its prefix kernel ``fn(cuts, level, **params)``: its value at every cut-off of
        every ranking in one pass (``trunc_accessor.metrics.prefix.Cuts``); without one,
        ``cutoff_curve`` rescores every prefix.
    samples : bool
        It reads a run of sampled rankings (a ``sample`` column: several rankings per query
        of a stochastic policy); other metrics refuse such a run.
    """
    dialects = {"ir_measures": _spellings(ir_measures, Spelling),
                "ranx": _spellings(ranx, Spelling), "trec_eval": _spellings(trec_eval, TrecName)}
    if aggregate not in ("mean", "sum"):
        raise ParameterError(f"register {name!r}: aggregate must be 'mean' or 'sum', "
                             f"not {aggregate!r}")
    if prefix is not None and not callable(prefix):
        raise ParameterError(f"register {name!r}: prefix must be a function, not {prefix!r}")

    def deco(kernel):
        doc = (kernel.__doc__ or "").strip()
        metric = Metric(name=name, kernel=kernel, params=params, aliases=aliases,
                        summary=" ".join(doc.split("\n\n")[0].split()) if doc else name,
                        citation=citation,
                        doc=doc, undefined=undefined, user=user, ties=ties,
                        subtopics=subtopics, aggregate=aggregate, prefix=prefix,
                        samples=samples, **dialects)
        if name in REGISTRY:
            raise RuntimeError(f"metric {name!r} registered twice")
        for a in (name, *aliases):  # an alias names one metric
            owner = _ALIASES.get(a.lower())
            if owner is not None and owner != name:
                raise RuntimeError(f"metric {name!r}: the name {a!r} is {owner!r}'s")
        _claim_dialect_names(metric)
        REGISTRY[name] = metric
        for a in (name, *aliases):
            _ALIASES[a.lower()] = name
        _GENERATION[0] += 1
        return kernel

    return deco


def _spellings(given, kind) -> tuple:
    """A dialect keyword of ``register`` as a tuple of ``kind`` (a name alone is one)."""
    items = given if isinstance(given, tuple) else (given,)
    out = tuple(kind(x) if isinstance(x, str) else x for x in items)
    for x in out:
        if not isinstance(x, kind):
            raise ParameterError(f"a {kind.__name__} or its name was expected, not {x!r}")
    return out


def _claim_dialect_names(metric: Metric) -> None:
    """Refuse a dialect name another metric declares (each names one metric)."""
    for dialect in ("ir_measures", "ranx", "trec_eval"):
        mine = {s.name for s in getattr(metric, dialect)}
        for other in REGISTRY.values():
            taken = mine & {s.name for s in getattr(other, dialect)}
            if taken:
                raise RuntimeError(f"metric {metric.name!r}: the {dialect} name "
                                   f"{sorted(taken)[0]!r} is {other.name!r}'s")


def unregister(name: str) -> None:
    """Remove a user-declared metric, its aliases and its names in other dialects (to declare
    it again); ``run.ir.NAME`` and ``trunc_accessor.single.NAME`` look metrics up here, so they
    lose it too."""
    metric = REGISTRY.pop(name)
    for a in (metric.name, *metric.aliases):
        if _ALIASES.get(a.lower()) == name:
            del _ALIASES[a.lower()]
    _GENERATION[0] += 1


def get_metric(name: str) -> Metric:
    try:
        return REGISTRY[_ALIASES[name.lower()]]
    except KeyError:
        raise ParameterError(f"unknown metric {name!r}; known: {sorted(REGISTRY)}") from None
