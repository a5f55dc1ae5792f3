"""User-defined metrics: one declaration, every channel.

``define`` (or the decorator ``metric``) registers a metric exactly as the built-in
ones are registered, so the new name works as an accessor method (``run.ir.NAME``), in
``evaluate`` strings (``"NAME@10"``, ``"NAME(p=0.5)"``), as a single-ranking function
(``trunc_accessor.single.NAME``), on the command line (``trunc-accessor --import MODULE``)
and in the generated documentation, with its parameters checked where it is declared.

Two kinds of implementation:

* a **per-ranking** function (the default), for quick work: ``function(grades, judged,
  **params) -> float`` where ``grades`` holds the grades of the ranking in ranking order
  (NaN for an unjudged document) and ``judged`` every judged grade of the query (retrieved
  or not); it may also take ``level`` (the call's relevance level). NaN means undefined.
  It runs once per ranking in Python. Under ``ties="average"`` the value is the exact mean
  over every order of the tied documents: the function is called on every distinct
  arrangement of the tie groups that hold different grades (at most ``MAX_ARRANGEMENTS``
  per ranking, counted for every ranking before the function runs; beyond that the call
  raises and names ``ties="first"``/``"trec_eval"``). A value undefined (NaN) in some of
  those orders makes the mean undefined (NaN; 0 under ``undefined="zero"``), and an
  `trunc_accessor.UndefinedTieOrderWarning` names the rankings;
* a **vectorised** kernel (``vectorised=True``): ``function(prep, level, **params) ->
  ndarray`` of one value per ranking, reading the prepared arrays
  (``trunc_accessor.core.prepare.Prepared``) as the built-in kernels do.
"""
from __future__ import annotations

import inspect
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.params import Param, check_bool, check_k, check_p, is_real
from trunc_accessor.metrics.registry import REGISTRY, Metric, register, unregister
from trunc_accessor.warn import UndefinedTieOrderWarning, warn

_F = TypeVar("_F", bound=Callable[..., Any])

MAX_ARRANGEMENTS = 10_000  # per ranking, for a per-ranking function under ties="average"
PER_RANKING_TIES = (f"Exact: the mean of the function over every distinct order of the tie "
                    f"groups that hold different grades, by enumeration (at most "
                    f"{MAX_ARRANGEMENTS:,} orders per ranking, else an error). Undefined "
                    f"(NaN) in any of the orders: undefined, with an "
                    f"UndefinedTieOrderWarning when defined in others.")


def _check_real(x):
    if not is_real(x) or not math.isfinite(x):
        raise ValueError(f"must be a finite number, not {x!r}")
    return float(x) if isinstance(x, float) else x


def _check_real_or_none(x):
    return None if x is None else _check_real(x)


def _check_text(x):
    if not isinstance(x, str):
        raise ValueError(f"must be a string, not {x!r}")
    return x


_BY_NAME = {"k": check_k, "depth": check_k, "p": check_p}


def _param(name: str, default) -> Param:
    """A parameter of a user metric from its default: k/depth/p get the library's checks,
    otherwise the default's type decides (bool, number, string; None: a number or None)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ParameterError(f"define: parameter names must be identifiers, not {name!r}")
    if name in _BY_NAME:
        check = _BY_NAME[name]
    elif isinstance(default, (bool, np.bool_)):
        check = check_bool
    elif is_real(default):
        check = _check_real
    elif default is None:
        check = _check_real_or_none
    elif isinstance(default, str):
        check = _check_text
    else:
        raise ParameterError(f"define: parameter {name!r} has a default of type "
                             f"{type(default).__name__}; give a Param with its own check")
    try:
        check(default)
    except ValueError as e:
        raise ParameterError(f"define: the default of {name} {e}") from None
    return Param(name, default, check, f"user parameter (default {default!r})")


def _params(params) -> tuple[Param, ...]:
    if params is None:
        return ()
    if isinstance(params, Mapping):
        return tuple(_param(n, d) for n, d in params.items())
    if isinstance(params, Sequence) and all(isinstance(p, Param) for p in params):
        return tuple(params)
    raise ParameterError("define: params= takes a mapping name → default, or a sequence of "
                         f"trunc_accessor.metrics.params.Param, not {type(params).__name__}")


def _distinct_orders(part: np.ndarray, budget: int) -> int:
    """The number of distinct orders of a multiset of grades (NaN, unjudged, a value of its
    own), or ``budget + 1`` as soon as it is known to pass ``budget``: the multinomial
    coefficient as a product of binomials C(placed + i, i), the largest count placed first,
    each factor at least 2, so a few steps decide it whatever the group's size (no
    factorial of the group is ever formed)."""
    missing = int(np.isnan(part).sum())
    _, counts = np.unique(part[~np.isnan(part)], return_counts=True)
    sizes = sorted([*counts.tolist(), *([missing] if missing else [])], reverse=True)
    total, placed = 1, sizes[0]
    for m in sizes[1:]:
        c = 1
        for i in range(1, m + 1):
            c = c * (placed + i) // i  # C(placed + i, i), exact
            if total * c > budget:
                return budget + 1
        placed += m
        total *= c
    return total


def _arrangements(values: np.ndarray) -> list[tuple]:
    """Every distinct order of a multiset of grades (NaN, unjudged, a value of its own)."""
    keys = [("nan",) if math.isnan(v) else ("v", float(v)) for v in values]
    distinct = sorted(set(keys))
    counts = [keys.count(k) for k in distinct]
    out: list[tuple] = []

    def rec(prefix, counts):
        if len(prefix) == len(keys):
            out.append(tuple(prefix))
            return
        for i, c in enumerate(counts):
            if c:
                counts[i] -= 1
                prefix.append(distinct[i])
                rec(prefix, counts)
                prefix.pop()
                counts[i] += 1

    rec([], counts)
    return [tuple(np.nan if k[0] == "nan" else k[1] for k in a) for a in out]


def _where(prep: Prepared, s: int) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in prep.keys.row(s, named=True).items())


def _mixed_groups(prep: Prepared, s: int, name: str) -> list[tuple[int, int]]:
    """The tie groups of ranking ``s`` that hold different grades (positions within the
    ranking), which the tie-aware value enumerates; refused, naming the ranking, when
    their distinct orders pass MAX_ARRANGEMENTS (counted without big integers)."""
    first, stop = prep.offsets[s], prep.offsets[s + 1]
    if prep.ties != "average" or prep.singleton_groups or stop - first < 2:
        return []
    grades = prep.grade[first:stop]
    gids = prep.gid[first:stop]
    bounds = np.flatnonzero(np.r_[True, gids[1:] != gids[:-1], True])
    groups, count = [], 1
    for a, b in itertools.pairwise(bounds):
        if b - a < 2:
            continue
        part = grades[a:b]
        same = np.all(np.isnan(part)) or (not np.isnan(part).any() and np.all(part == part[0]))
        if same:
            continue
        count *= _distinct_orders(part, MAX_ARRANGEMENTS // count)
        groups.append((int(a), int(b)))
        if count > MAX_ARRANGEMENTS:
            raise ParameterError(
                f"{name} with ties='average': the ranking of {_where(prep, s)} has more than "
                f"{MAX_ARRANGEMENTS:,} distinct orders of its tied documents, too many to "
                "average by enumeration; pass ties='first' (the order as given) or "
                "ties='trec_eval', or define the metric with a vectorised kernel")
    return groups


def _orders(grades: np.ndarray, groups: list[tuple[int, int]]):
    """The rankings whose mean is the tie-aware value: the ranking itself, or every
    arrangement of its mixed tie groups (groups of equal grades need none)."""
    if not groups:
        return [grades]
    out = []
    arrangements = [_arrangements(grades[a:b]) for a, b in groups]
    for choice in itertools.product(*arrangements):
        g = grades.copy()
        for (a, b), values in zip(groups, choice):
            g[a:b] = values
        out.append(g)
    return out


def _per_ranking_kernel(function: Callable, name: str) -> Callable:
    takes_level = "level" in inspect.signature(function).parameters

    def kernel(prep: Prepared, level: float, **params) -> np.ndarray:
        out = np.empty(prep.n_segments)
        extra = {"level": level} if takes_level else {}
        # every ranking's orders are counted before the function runs on any
        plans = [_mixed_groups(prep, s, name) for s in range(prep.n_segments)]
        partly: list[int] = []  # rankings undefined in some orders of their ties only
        for s in range(prep.n_segments):
            grades = prep.grade[prep.offsets[s]:prep.offsets[s + 1]]
            q = prep.seg_q[s]
            judged = prep.q_grades[prep.q_offsets[q]:prep.q_offsets[q + 1]]
            values = []
            for order in _orders(grades, plans[s]):
                value = function(np.array(order, dtype=np.float64), judged.copy(), **params,
                                 **extra)
                if not is_real(value):
                    raise ParameterError(f"{name}: the function returned {value!r} for "
                                         "a ranking; it must return a number")
                values.append(float(value))
            undefined = sum(math.isnan(v) for v in values)
            if 0 < undefined < len(values):
                partly.append(s)
            # undefined in any order: the mean over the orders is undefined too
            out[s] = math.nan if undefined else math.fsum(values) / len(values)
        if partly:
            more = f" and {len(partly) - 3} more" if len(partly) > 3 else ""
            warn(f"{name} is undefined (NaN) in some orders of the tied documents of "
                 f"{len(partly)} ranking(s) but not in others: "
                 f"{'; '.join(_where(prep, s) for s in partly[:3])}{more}. Their mean over "
                 "the orders is undefined: NaN, or 0 under undefined='zero'; pass "
                 "ties='first' or ties='trec_eval' to score one order",
                 UndefinedTieOrderWarning)
        return out

    return kernel


def define(function: Callable, name: str, *,
           params: Mapping[str, Any] | Sequence[Param] | None = None,
           aliases: Sequence[str] = (), citation: str = "", undefined: str = "",
           doc: str | None = None, ties: str | None = None, vectorised: bool = False) -> Metric:
    """Register a metric of your own (see the module docstring for the two kinds of
    ``function``); returns the registered ``trunc_accessor.metrics.registry.Metric``.

    ``params``: a mapping name → default (``k``, ``depth`` and ``p`` get the library's
    checks; otherwise the default's type decides: bool, number, string, None for "a
    number or None"), or a sequence of ``trunc_accessor.metrics.params.Param`` with checks of
    your own. ``aliases``: other names (case-insensitive). ``undefined``: when the value
    is undefined (say "Never undefined: …" if it never is). ``doc``: the docstring
    (default: the function's). ``ties``: what ``ties="average"`` computes, for the docs
    (default for a per-ranking function: the enumeration it does). Defining a name again
    replaces your earlier definition (a notebook cell run twice). Refused, naming why: a
    built-in metric's name or alias; a name that trec_eval's, ir_measures' or ranx'
    dialect reads as its own measure, in any letter case (``P_10``, ``ndcg_cut_10``,
    ``SetP``, ``hits``); the name of an accessor method (``evaluate``, ``truncate``,
    ``cutoff_curve``, ``crp``, …); a qid column's name (``qid``, ``query_id``, ``topic``);
    a name starting with ``_``.

    >>> import trunc_accessor as ta
    >>> from trunc_accessor.metrics.user import define
    >>> def first_relevant_rank(grades, judged, level):
    ...     hits = [i for i, g in enumerate(grades, 1) if g >= level]
    ...     return float(hits[0]) if hits else float("nan")
    >>> _ = define(first_relevant_rank, "frr")
    >>> run, qrels = ta.load_example()
    >>> run.ir.frr(qrels, ties="trec_eval").tolist()
    [6.0, 1.0, 19.0]
    >>> from trunc_accessor import single
    >>> single.frr([0, 1, 1])
    2.0
    >>> from trunc_accessor.metrics.registry import unregister
    >>> unregister("frr")  # gone again, from every channel
    """
    if not callable(function):
        raise ParameterError(f"define: function must be callable, not {type(function).__name__}")
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise ParameterError(f"define: a metric name is an identifier that starts with a "
                             f"letter (letters, digits, _), not {name!r}")
    if isinstance(aliases, str) or not all(isinstance(a, str) for a in aliases):
        raise ParameterError(f"define: aliases= takes a list of strings, not {aliases!r}")
    _check_names(name, aliases)
    declared = _params(params)
    _check_signature(function, name, [p.name for p in declared], vectorised)
    if name in REGISTRY:
        unregister(name)
    kernel = function if vectorised else _per_ranking_kernel(function, name)
    text = doc if doc is not None else (inspect.getdoc(function) or f"User-defined metric {name}.")
    kernel.__doc__ = text
    register(name, params=declared, aliases=tuple(aliases), citation=citation,
             undefined=undefined, user=True,
             ties=ties if ties is not None else "" if vectorised else PER_RANKING_TIES)(kernel)
    return REGISTRY[name]


def _check_names(name: str, aliases: Sequence[str]) -> None:
    """Refuse a name or alias that means something else already: a built-in metric's name,
    a name that trec_eval's, ir_measures' or ranx' dialect reads as its own measure (in
    any letter case, as the registry's names are case-insensitive), a qid column's name (the
    metric's column would replace the result's key), or, for the name, an accessor
    method's (run.ir.NAME would replace it on every frontend). Checked before anything is
    registered."""
    from trunc_accessor.core.columns import QID_NAMES
    from trunc_accessor.metrics.names import dialect_meaning

    if name in _ACCESSOR_NAMES:
        raise ParameterError(
            f"define: {name!r} is the name of an accessor method (run.ir.{name}); a metric "
            "of that name would replace it: choose another name")
    for alias in (name, *aliases):
        owner = _owner(alias)
        if owner is not None and not REGISTRY[owner].user:
            raise ParameterError(f"define: {alias!r} is a built-in metric's name ({owner})")
        if owner is not None and owner != name:
            raise ParameterError(f"define: {alias!r} already names your metric {owner!r}; "
                                 "unregister it first")
        meaning = dialect_meaning(alias)
        if meaning is not None:
            raise ParameterError(
                f"define: {alias!r} is {meaning}, which evaluate and the command line read "
                "before your metrics (run.ir.NAME and evaluate would disagree): choose "
                "another name")
        if alias.lower() in QID_NAMES:
            raise ParameterError(
                f"define: {alias!r} is the name of a qid column: the metric's result "
                "column would replace the result's qid column: choose another name")


def _check_signature(function: Callable, name: str, params: list[str], vectorised: bool):
    """The function must take the arguments it will be given (named in the error)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return  # a builtin without a signature: its call will say
    fixed = ["prep", "level"] if vectorised else ["grades", "judged"]
    given = dict.fromkeys(params, None)
    if not vectorised and "level" in signature.parameters:
        given["level"] = None
    try:
        signature.bind(*fixed, **given)
    except TypeError as e:
        kind = "function(prep, level, **params)" if vectorised else \
            "function(grades, judged, **params)"
        raise ParameterError(f"define {name!r}: the function must be callable as {kind} with "
                             f"params {params}: {e}") from None


def metric(name: str, **kwargs: Any) -> Callable[[_F], _F]:
    """Decorator form of ``define``: ``@ta.metric("frr")`` over the function."""

    def deco(function: _F) -> _F:
        define(function, name, **kwargs)
        return function

    return deco


def _owner(alias: str) -> str | None:
    from trunc_accessor.metrics.registry import _ALIASES

    return _ALIASES.get(alias.lower())


#: The attributes of the ``.ir`` namespaces that are not metrics (``evaluate``, ``truncate``,
#: …): the frontends declare them here when their classes are built, as a metric of one's
#: own may not take one of these names (run.ir.NAME would replace the method).
_ACCESSOR_NAMES: set[str] = set()


def reserve_accessor_names(names: Iterable[str]) -> None:
    """Declare ``names`` attributes of an accessor class, which no metric may take."""
    _ACCESSOR_NAMES.update(names)


def accessor_names() -> set[str]:
    """The accessor attributes declared so far (a copy)."""
    return set(_ACCESSOR_NAMES)
