"""trec_eval's measure names, parameters, groups and order.

trec_eval names a measure ``name`` or ``name.PARAMS`` (``P.5,10``, ``iprec_at_recall..10,.20``,
``ndcg.1=3,2=9``, ``utility.2,-1,0,0``, ``rbp.p=0.95``, ``relstring.20``); the library also
accepts ``name_VALUE`` for one value of a parameterised measure (``P_10``,
``iprec_at_recall_0.10``), which is how trec_eval prints them. ``TABLE`` lists every
measure in the order of trec_eval's measure table (measures.c): trec_eval computes and prints
measures in that order, whatever order ``-m`` gives; the first naming with parameters
sets a measure's parameters, wherever the measure is named without them (``-m all_trec -m
P.5,10`` and ``-m P.5,10 -m all_trec`` print P_5 and P_10 only, in all_trec's place; ``-m P.5
-m P.10`` prints P_5). Cut-off lists are sorted, as trec_eval prints them; a cut-off given
twice is an error, as in trec_eval.

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
from trunc_accessor.metrics.registry import Measure, Named, get_metric

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
LEVELS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class TrecMeasure:
    """One measure of trec_eval's table: its ``metric`` here (None: printed specially:
    runid, relstring), how its parameters read (``kind``), the parameter they set, their
    default and how trec_eval summarises it over queries."""

    name: str
    metric: str | None
    kind: str = "plain"  # plain | cutoffs | levels | recalls | gains | floats | float | pairs | int
    param: Any = None  # a parameter name, or a tuple of names (utility's a, b, c, d)
    default: tuple = ()
    summary: str = "mean"
    fixed: tuple = ()  # parameters of the metric that trec_eval's measure implies


TABLE: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", None),
    TrecMeasure("num_q", "num_q", summary="sum"),
    TrecMeasure("num_ret", "num_ret", summary="sum"),
    TrecMeasure("num_rel", "num_rel", summary="sum"),
    TrecMeasure("num_rel_ret", "num_rel_ret", summary="sum"),
    TrecMeasure("map", "ap"),
    TrecMeasure("gm_map", "ap", summary="gmean"),
    TrecMeasure("Rprec", "rprec"),
    TrecMeasure("bpref", "bpref"),
    TrecMeasure("recip_rank", "rr"),
    TrecMeasure("iprec_at_recall", "iprec_at_recall", "levels", "recall", LEVELS),
    TrecMeasure("P", "precision", "cutoffs", "k", CUTS),
    TrecMeasure("relstring", None, "int", None, (10,)),
    TrecMeasure("recall", "recall", "cutoffs", "k", CUTS),
    TrecMeasure("infAP", "infap"),
    TrecMeasure("gm_bpref", "bpref", summary="gmean"),
    TrecMeasure("Rprec_mult", "rprec_mult", "levels", "mult",
                tuple(m / 10 for m in range(2, 21, 2))),
    TrecMeasure("utility", "utility", "floats", ("a", "b", "c", "d"), (1.0, -1.0, 0.0, 0.0)),
    TrecMeasure("11pt_avg", "interpolated_precision_11pt", "recalls", "recalls", LEVELS),
    TrecMeasure("binG", "binary_g"),
    TrecMeasure("G", "normalized_g", "gains", "gains"),
    TrecMeasure("dcg", "dcg", "gains", "gains"),
    TrecMeasure("ndcg", "ndcg", "gains", "gains"),
    TrecMeasure("ndcg_rel", "ndcg_rel", "gains", "gains"),
    TrecMeasure("Rndcg", "rndcg", "gains", "gains"),
    TrecMeasure("ndcg_cut", "ndcg", "cutoffs", "k", CUTS),
    TrecMeasure("map_cut", "ap", "cutoffs", "k", CUTS),
    TrecMeasure("relative_P", "relative_precision", "cutoffs", "k", CUTS),
    TrecMeasure("success", "success", "cutoffs", "k", (1, 5, 10)),
    TrecMeasure("set_P", "set_precision"),
    TrecMeasure("set_relative_P", "set_relative_precision"),
    TrecMeasure("set_recall", "set_recall"),
    TrecMeasure("set_map", "set_ap"),
    TrecMeasure("set_F", "set_f", "float", "beta", (1.0,)),
    TrecMeasure("num_nonrel_judged_ret", "num_nonrel_judged_ret", summary="sum"),
    TrecMeasure("rbp", "trec_rbp", "pairs", "p"),
    TrecMeasure("rbp_resid", "trec_rbp_residual", "pairs", "p"),
    TrecMeasure("unj", "unjudged", "cutoffs", "k", (5, 10, 20)),
)
BY_NAME = {m.name: m for m in TABLE}
ORDER = {m.name: i for i, m in enumerate(TABLE)}
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
    if spec in BY_NAME:
        if not trec and (spec in SHADOWED or BY_NAME[spec].kind in ("cutoffs", "levels")):
            # outside trec_eval's dialect a bare P, recall, success, iprec_at_recall, …
            # is the library's one measure (precision of the whole ranking, …), not
            # trec_eval's list of cut-offs
            return None
        return TrecSpec(BY_NAME[spec])
    base, dot, rest = spec.partition(".")
    if dot and base in BY_NAME and rest:
        return TrecSpec(BY_NAME[base], rest)
    for name in sorted(BY_NAME, key=len, reverse=True):
        m = BY_NAME[name]
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
    replaces = ts.replaces
    index = ORDER[m.name]
    if m.metric is None:  # runid, relstring: printed by the command line itself
        value: Any = int(_number(text, spec)) if (m.name == "relstring" and text) else None
        label = m.name if text is None else f"{m.name}_{text}"
        return [Named(label, None, "none", trec=(index, 0.0), extra=value, replaces=True)]
    if m.kind in ("cutoffs", "levels"):
        values = m.default if text is None else _values(text, spec)
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
                if replaces:  # trec_eval: "duplicate cutoffs detected"
                    raise ParameterError(f"trec_eval measure {spec!r} gives the cut-off "
                                         f"{m.name}_{shown} twice")
                continue
            seen.add(shown)
            out.append(_named(f"{m.name}_{shown}", m.metric, {m.param: v}, m.summary,
                              (index, float(v)), replaces))
        return out
    label = m.name if text is None else f"{m.name}_{text}"
    params: dict = {}
    if text is not None:
        if m.kind == "plain":
            raise ParameterError(f"trec_eval measure {m.name!r} takes no parameters "
                                 f"({spec!r})")
        if m.kind == "recalls":
            params["recalls"] = tuple(_values(text, spec))
        elif m.kind == "floats":
            values = _values(text, spec)
            if len(values) != len(m.param):
                raise ParameterError(f"trec_eval measure {spec!r} takes {len(m.param)} "
                                     f"numbers ({', '.join(m.param)})")
            params.update(zip(m.param, values))
        elif m.kind == "float":
            params[m.param] = _number(text, spec)
        elif m.kind in ("gains", "pairs"):
            pairs = _pairs(text, spec)
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
    return [_named(label, m.metric, params, m.summary, (index, 0.0), True)]


def parse(spec: str, trec: bool = False) -> list[Named] | None:
    """trec_eval's names: the ``Named`` entries ``spec`` gives, or None."""
    if spec in GROUPS:
        return [n for name in GROUPS[spec] for n in expand(TrecSpec(BY_NAME[name]), name)]
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
