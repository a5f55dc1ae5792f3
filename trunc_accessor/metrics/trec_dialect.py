"""trec_eval's measure names, parameters, groups and order.

trec_eval names a measure ``name`` or ``name.PARAMS`` (``P.5,10``, ``iprec_at_recall..10,.20``,
``ndcg.1=3,2=9``, ``utility.2,-1,0,0``, ``rbp.p=0.95``, ``relstring.20``); the library also
accepts ``name_VALUE`` for one value of a parameterised measure (``P_10``,
``iprec_at_recall_0.10``), which is how trec_eval prints them. ``table()`` lists every
measure in the order of trec_eval's measure table (measures.c), built from what each metric
declares (``register(..., trec_eval=...)``): trec_eval computes and prints measures in that
order, whatever order ``-m`` gives; the first naming with parameters sets a measure's
parameters, wherever the measure is named without them (``-m all_trec -m P.5,10`` and ``-m
P.5,10 -m all_trec`` print P_5 and P_10 only, in all_trec's place; ``-m P.5 -m P.10`` prints
P_5). Cut-off lists are sorted, as trec_eval prints them; a cut-off given twice is an error,
as in trec_eval.

Labels follow trec_eval: a cut-off measure prints ``name_k`` (``P_10``) or ``name_x.xx``
(``iprec_at_recall_0.10``); a measure whose parameters give one value prints ``name`` with
its defaults and ``name_PARAMS`` (the text as given) otherwise (``11pt_avg_.25,.5,.75``,
``utility_2,-1,0,0``, ``ndcg_1=3,2=9,4=4.5``).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics import registry
from trunc_accessor.metrics.registry import Measure, Named, get_metric


@dataclass(frozen=True)
class TrecMeasure:
    """One measure of trec_eval's table: its ``metric`` here (None: printed specially:
    runid, relstring), how its parameters read (``kind``), the parameter they set, their
    default and how trec_eval summarises it over queries. Built from the metrics'
    declarations (``register(..., trec_eval=TrecName(...))``)."""

    name: str
    metric: str | None
    kind: str = "plain"  # plain | cutoffs | levels | recalls | gains | floats | float | pairs | int
    param: Any = None  # a parameter name, or a tuple of names (utility's a, b, c, d)
    default: tuple = ()
    summary: str = "mean"


# trec_eval's measure table (measures.c), in its order: trec_eval computes and prints
# measures in this order, whatever order -m gives; a measure a metric declares under a name
# not listed here comes after these
TREC_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
              "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
              "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ndcg",
              "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
              "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
              "rbp", "rbp_resid", "unj")
# trec_eval's measures that are no metric: the command line prints them itself
PRINTED = {"runid": TrecMeasure("runid", None),
           "relstring": TrecMeasure("relstring", None, "int", None, (10,))}
_BUILT: list = [None, ()]  # the registry's generation and the tables built from it


def _tables() -> tuple[tuple[TrecMeasure, ...], dict[str, TrecMeasure], dict[str, int]]:
    """trec_eval's table (in its order), by name, and each name's place: the measures the
    registered metrics declare (``trec_eval=``) with ``PRINTED``."""
    if _BUILT[0] != registry.generation():
        found = dict(PRINTED)
        for metric in registry.REGISTRY.values():
            for t in metric.trec_eval:
                found[t.name] = TrecMeasure(t.name, metric.name, t.kind, t.param, t.default,
                                            t.summary or metric.aggregate)
        place = {name: i for i, name in enumerate(TREC_ORDER)}
        table = tuple(sorted(found.values(), key=lambda m: place.get(m.name, len(place))))
        _BUILT[:] = [registry.generation(),
                     (table, {m.name: m for m in table}, {m.name: i for i, m in enumerate(table)})]
    return _BUILT[1]


def table() -> tuple[TrecMeasure, ...]:
    """Every measure of trec_eval's table, in trec_eval's order."""
    return _tables()[0]


def by_name() -> dict[str, TrecMeasure]:
    """trec_eval's measures by name."""
    return _tables()[1]


def order() -> dict[str, int]:
    """Each trec_eval measure's place in trec_eval's order."""
    return _tables()[2]


# trec_eval's own names that mean a different measure here: "rbp" and "rbp_resid" are the
# library's RBP (p = 0.8, binary gains) unless trec_eval's dialect is asked for (the command
# line, the all_trec group, trec_eval's parameter syntax rbp.p=0.95)
SHADOWED = {"rbp", "rbp_resid"}
OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", "iprec_at_recall", "P")
ALL_TREC = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp",
            "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
            "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
            "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
            "num_nonrel_judged_ret")
SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
       "set_relative_P", "set_map", "set_F")
GROUPS = {"official": OFFICIAL, "all_trec": ALL_TREC, "set": SET}
# trec_eval 9.0.8's all_trec (--ties trec_eval9 on the command line): without unj, rbp and
# rbp_resid, which version 10 added
GROUPS_9 = {"all_trec": tuple(n for n in ALL_TREC if n not in ("unj", "rbp", "rbp_resid"))}

@dataclass(frozen=True)
class TrecSpec:
    """A trec_eval measure as named: its table entry and the text of its parameters (None:
    the defaults)."""

    measure: TrecMeasure
    params: str | None = None
    replaces: bool = True  # False for name_VALUE (one more value, not a new list)


def split(spec: str, trec: bool = False) -> TrecSpec | None:
    """The trec_eval measure ``spec`` names (``name``, ``name.PARAMS`` or ``name_VALUE``),
    or None. ``trec``: trec_eval's dialect is asked for (the names in ``SHADOWED`` are
    trec_eval's then, and a bare cut-off measure such as ``P`` is its list of cut-offs)."""
    known = by_name()
    if spec in known:
        if not trec and (spec in SHADOWED or known[spec].kind in ("cutoffs", "levels")):
            # outside trec_eval's dialect a bare P, recall, success, iprec_at_recall, …
            # is the library's one measure (precision of the whole ranking, …), not
            # trec_eval's list of cut-offs
            return None
        return TrecSpec(known[spec])
    base, dot, rest = spec.partition(".")
    if dot and base in known and rest:
        return TrecSpec(known[base], rest)
    for name in sorted(known, key=len, reverse=True):
        m = known[name]
        if m.kind in ("cutoffs", "levels") and spec.startswith(name + "_") \
                and VALUES.fullmatch(spec[len(name) + 1:]):
            # only numbers after the underscore: P_IA@20 (ir_measures' P_IA) and
            # success_at (an alias of success) are other dialects' names, not P_N
            return TrecSpec(m, spec[len(name) + 1:], replaces=False)
    return None


# the VALUE of name_VALUE: a number (P_10, iprec_at_recall_0.10, 1e3) or a list of them
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
VALUES = re.compile(rf"{_NUMBER}(?:,{_NUMBER})*")


def _number(text: str, spec: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ParameterError(f"trec_eval measure {spec!r}: parameter {text!r} is not a "
                             "number") from None


def _values(text: str, spec: str) -> list[float]:
    return [_number(t, spec) for t in text.split(",") if t != ""]


def _pairs(text: str, spec: str) -> dict[str, float]:
    out = {}
    for part in filter(None, text.split(",")):
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise ParameterError(f"trec_eval measure {spec!r}: parameters are written "
                                 f"name=value, e.g. ndcg.1=3,2=9 or rbp.p=0.95")
        out[key] = _number(value, spec)
    return out


def _named(label: str, metric: str, params: dict, summary: str, order: tuple,
           replaces: bool) -> Named:
    measure: Measure = get_metric(metric).measure(**params)
    return Named(label, measure, summary, trec=order, replaces=replaces)


def expand(ts: TrecSpec, spec: str) -> list[Named]:
    """The ``Named`` entries of one trec_eval measure with its parameters."""
    m, text = ts.measure, ts.params
    index = order()[m.name]
    if m.metric is None:  # runid, relstring: printed by the command line itself
        value: Any = int(_number(text, spec)) if (m.name == "relstring" and text) else None
        label = m.name if text is None else f"{m.name}_{text}"
        return [Named(label, None, "none", trec=(index, 0.0), extra=value, replaces=True)]
    if m.kind in ("cutoffs", "levels"):
        return _listed(ts, spec, index)
    label = m.name if text is None else f"{m.name}_{text}"
    params = {} if text is None else _parameters(m, text, spec)
    return [_named(label, m.metric, params, m.summary, (index, 0.0), True)]


def _listed(ts: TrecSpec, spec: str, index: int) -> list[Named]:
    """A measure of cut-offs or levels: one entry per value (sorted), each printed
    ``name_k`` or ``name_x.xx``."""
    m = ts.measure
    assert m.metric is not None
    values = m.default if ts.params is None else _values(ts.params, spec)
    if not values:
        raise ParameterError(f"trec_eval measure {spec!r} names no value")
    out, seen = [], set()
    for v in sorted(values):
        if m.kind == "cutoffs":
            if not math.isfinite(v) or v < 1:  # trec_eval: "Negative cutoff detected"
                raise ParameterError(f"trec_eval measure {spec!r}: a cut-off is a number "
                                     f"of documents ≥ 1, not {v!r}")
            v, shown = int(v), str(int(v))  # trec_eval truncates: ndcg_cut.23.4 is 23
        else:
            shown = f"{v:.2f}"
        if shown in seen:
            if ts.replaces:  # trec_eval: "duplicate cutoffs detected"
                raise ParameterError(f"trec_eval measure {spec!r} gives the cut-off "
                                     f"{m.name}_{shown} twice")
            continue
        seen.add(shown)
        out.append(_named(f"{m.name}_{shown}", m.metric, {m.param: v}, m.summary,
                          (index, float(v)), ts.replaces))
    return out


def _parameters(m: TrecMeasure, text: str, spec: str) -> dict:
    """The metric's parameters that the text after a measure's dot gives."""
    if m.kind == "plain":
        raise ParameterError(f"trec_eval measure {m.name!r} takes no parameters ({spec!r})")
    if m.kind == "recalls":
        return {"recalls": tuple(_values(text, spec))}
    if m.kind == "floats":
        values = _values(text, spec)
        if len(values) != len(m.param):
            raise ParameterError(f"trec_eval measure {spec!r} takes {len(m.param)} "
                                 f"numbers ({', '.join(m.param)})")
        return dict(zip(m.param, values))
    if m.kind == "float":
        return {m.param: _number(text, spec)}
    if m.kind in ("gains", "pairs"):
        return _gains(m, text, spec)
    return {}


def _gains(m: TrecMeasure, text: str, spec: str) -> dict:
    """``grade=gain`` pairs (and rbp's ``p=``) as the metric's parameters."""
    pairs = _pairs(text, spec)
    params: dict = {}
    if m.kind == "pairs" and "p" in pairs:
        params["p"] = pairs.pop("p")
    gains: dict[int, float] = {}
    for key, value in pairs.items():
        try:
            gains[int(key)] = value
        except ValueError:
            raise ParameterError(f"trec_eval measure {spec!r}: {key!r} is not a "
                                 "grade") from None
    if gains:
        params["gains"] = gains
    return params


def parse(spec: str, trec: bool = False) -> list[Named] | None:
    """trec_eval's names: the ``Named`` entries ``spec`` gives, or None."""
    if spec in GROUPS:
        known = by_name()
        return [n for name in GROUPS[spec] for n in expand(TrecSpec(known[name]), name)]
    ts = split(spec, trec)
    return expand(ts, spec) if ts is not None else None


def arrange(named: list[Named], parameterised=frozenset()) -> list[Named]:
    """trec_eval's rules for a list of measures, each ``Named`` carrying the ``batch``
    (the naming, a ``-m`` value or a group) it came from; ``parameterised``: the batches that
    gave a trec_eval measure parameters (``P.5,10``). A trec_eval measure is computed once,
    with the parameters of the first naming that gives some, else with its defaults
    (trec_eval marks a measure for each naming and reads the first parameters given for it),
    so ``-m all_trec -m P.5,10`` prints P_5 and P_10 where all_trec prints P; ``name_VALUE``
    adds a value instead. trec_eval's measures come in trec_eval's order (the table's,
    cut-offs sorted), the others after them in the order given. The same label twice is
    kept once."""
    chosen: dict[int, int] = {}  # table index → the naming whose entries are kept
    for n in named:
        if n.trec and n.replaces and n.batch in parameterised:
            chosen.setdefault(n.trec[0], n.batch)
    for n in named:
        if n.trec and n.replaces:
            chosen.setdefault(n.trec[0], n.batch)
    kept = [n for n in named if not n.trec or not n.replaces
            or chosen[n.trec[0]] == n.batch]
    trec = sorted((n for n in kept if n.trec), key=lambda n: n.trec)
    out: dict[str, Named] = {}
    for n in trec + [n for n in kept if not n.trec]:
        out.setdefault(n.label, n)
    return list(out.values())
