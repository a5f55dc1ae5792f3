"""Measure names in four dialects: trec_eval's, ir_measures'/PyTerrier's, ranx's and ours.

One parser, fed by the registry, turns any spelling into ``Named`` entries: the column
label (the name as the user wrote it, or for a trec_eval cut-off list such as ``P.5,10``
the names trec_eval prints, ``P_5`` and ``P_10``), the ``Measure`` it means, and how
trec_eval summarises it over queries (mean, sum for counts, geometric mean for ``gm_map``).
Two spellings of one measure are computed once. Each dialect's names are those the metrics
declare (``register(..., ir_measures=..., ranx=..., trec_eval=..., aggregate=...)``).

Resolution order: the group names ``official`` and ``all_trec``; trec_eval names
(``map``, ``P_10``, ``P.10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``, …, case as trec_eval
writes them); ir_measures names (``nDCG@10``, ``AP(rel=2)@100``, ``RBP(p=0.8,rel=2)``,
``SetF(beta=2)``, ``IPrec@0.1``, …, and ir_measures measure objects); ranx names
(``mrr``, ``hit_rate@10``, ``ndcg_burges@10``, ``r-precision``, the ``-l2`` relevance-level
suffix); then the registry's own names and aliases (``ndcg@10``, ``rbp'(p=0.5)``), case
insensitive.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics import trec_dialect
from trunc_accessor.metrics.parse import parse
from trunc_accessor.metrics.registry import (
    _ALIASES,
    REGISTRY,
    Measure,
    Named,
    generation,
    get_metric,
)

GM_EPSILON = 1e-5  # trec_eval's gm_map: exp(mean(log(max(value, 1e-5))))


def _m(name: str, **params) -> Measure:
    level = params.pop("rel", None)
    return get_metric(name).measure(**params).with_level(level)


# --------------------------------------------------------------------------- trec_eval
GROUPS = trec_dialect.GROUPS  # trec_eval's measure groups (official, all_trec, set)


# --------------------------------------------------------------------------- tables
# built from the metrics' declarations (register(..., ir_measures=..., ranx=...)), rebuilt
# when a metric is registered or unregistered
_BUILT: list = [None, ()]


def _tables() -> tuple[dict[str, tuple], dict[str, Any], dict[str, str]]:
    if _BUILT[0] != generation():
        irm: dict[str, tuple] = {}
        ranx: dict[str, Any] = {}
        every_ranx: dict[str, str] = {}
        for metric in REGISTRY.values():
            own = {p.name for p in metric.params}
            for s in metric.ir_measures:
                at = s.at if s.at in own else None
                irm[s.name] = (metric.name, dict(s.fixed), at, metric.aggregate)
            for s in metric.ranx:
                every_ranx[s.name] = metric.name
                if s.name != metric.name:  # the library reads its own names itself
                    ranx[s.name] = (metric.name, dict(s.fixed)) if s.fixed else metric.name
        _BUILT[:] = [generation(), (irm, ranx, every_ranx)]
    return _BUILT[1]


def ir_measures_table() -> dict[str, tuple]:
    """ir_measures' names: name → (metric, the parameters it implies, the parameter ``@``
    sets or None, summary over queries); ``rel=`` becomes the measure's relevance level."""
    return _tables()[0]


def ranx_table() -> dict[str, Any]:
    """ranx' names that differ from the library's: name → metric, or (metric, the
    parameters it implies)."""
    return _tables()[1]


def ranx_names() -> dict[str, str]:
    """Every ranx metric name a metric declares → that metric, ranx' names that are also
    the library's (``precision``, ``ndcg``, …) included."""
    return _tables()[2]


# --------------------------------------------------------------------------- ir_measures
# ir_measures' names of the C/W/L gain scale: gains run from 0 at min_rel to 1 at max_rel
IR_MEASURES_PARAMS = {"min_rel": "min_grade", "max_rel": "max_grade"}
_IRM_FORM = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)(?:\((.*)\))?(?:@([^@()]+))?$")


def _ir_measures(spec: str) -> list[Named] | None:
    m = _IRM_FORM.match(spec.replace(" ", ""))
    table = ir_measures_table()
    if not m or m.group(1) not in table:
        return None
    name, params, at_param, summary = table[m.group(1)]
    given = _params(m.group(2) or "", spec)
    if m.group(3) is not None:
        if at_param is None:
            raise ParameterError(f"in {spec!r}: {m.group(1)} takes no @ cut-off")
        given[at_param] = _number(m.group(3), spec)
    if name == "num_ret" and "rel" in given:
        # ir_measures' NumRelRet is NumRet(rel=1): the retrieved documents with grade ≥ rel
        name, summary = "num_rel_ret", "sum"
    if name == "set_precision" and given.pop("relative", False) is True:
        name = "set_relative_precision"  # ir_measures' SetRelP is SetP(relative=True)
    if name == "rbp" and "rel" not in given:
        # ir_measures computes RBP without rel= only through trectools: the grades as gains
        name = "trectools_rbp"
    judged_only = given.pop("judged_only", False)
    if not isinstance(judged_only, bool):
        raise ParameterError(f"in {spec!r}: judged_only must be True or False, not "
                             f"{judged_only!r}")
    if name == "ndcg" and given.pop("dcg", "log2") == "exp-log2":
        given["gains"] = "exponential"
    for irm, ours in IR_MEASURES_PARAMS.items():
        if irm in given:
            given[ours] = given.pop(irm)
    if name == "sdcg" and given.get("dcg") == "log2":
        del given["dcg"]  # SDCG's only discount in ir_measures
    measure = _m(name, **{**params, **given})
    return [Named(spec, measure.condensed() if judged_only else measure, summary)]


def _params(inner: str, spec: str) -> dict:
    """name=value pairs of a parameter list (numbers, True/False, bare words)."""
    out: dict = {}
    for part in filter(None, inner.split(",")):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ParameterError(f"in {spec!r}: parameters are written name=value")
        key = key.strip()
        if key in out:
            raise ParameterError(f"in {spec!r}: {key} is given twice")
        value = value.strip().strip("'\"")
        out[key] = {"True": True, "False": False}.get(value, value)
        if isinstance(out[key], str):
            try:
                out[key] = _number(value, spec)
            except ParameterError:
                pass
    return out


def _number(text: str, spec: str):
    try:
        v = float(text)
    except ValueError:
        raise ParameterError(f"in {spec!r}: {text!r} is not a number") from None
    return int(v) if v.is_integer() and "." not in text and "e" not in text.lower() else v


# --------------------------------------------------------------------------- ranx
_RANX_FORM = re.compile(r"^([a-z][a-z0-9_\-]*?)(?:@(\d+))?(?:-l(\d+(?:\.\d+)?))?$")


def _ranx(spec: str) -> list[Named] | None:
    m = _RANX_FORM.match(spec)
    table = ranx_table()
    if not m or (m.group(1) not in table and m.group(3) is None):
        return None
    target: Any = table.get(m.group(1), m.group(1))
    name, fixed = (target, {}) if isinstance(target, str) else target
    if name not in REGISTRY and name.lower() not in _ALIASES:
        return None
    params: dict[str, Any] = dict(fixed)
    if m.group(2) is not None:
        params["k"] = int(m.group(2))
    if m.group(3) is not None:
        params["rel"] = float(m.group(3))
        if name in ("ndcg", "dcg"):  # ranx: grades below the level are not relevant: no gain
            params["min_grade"] = params.pop("rel")
    return [Named(spec, _m(name, **params))]


# --------------------------------------------------------------------------- parser
def known_names() -> list[str]:
    """Every spelling the parser knows (for suggestions and ``--list``)."""
    names = set(trec_dialect.by_name()) | set(ir_measures_table()) | set(ranx_table())
    names |= set(GROUPS)
    return sorted(names | set(_ALIASES) | set(REGISTRY))


def dialect_meaning(name: str) -> str | None:
    """What trec_eval's, ir_measures' or ranx's dialect makes of ``name``, in any letter
    case (the registry's names are case-insensitive), or None: such a name is read by that
    dialect in ``evaluate`` and on the command line before the registry is consulted."""
    low = name.lower()
    for group in GROUPS:
        if group.lower() == low:
            return f"trec_eval's measure group {group!r}"
    for trec_name, m in trec_dialect.by_name().items():
        base = trec_name.lower()
        if low == base:
            return f"trec_eval's measure {trec_name!r}"
        rest = low[len(base) + 1:]
        if m.kind in ("cutoffs", "levels") and low.startswith(base + "_") \
                and trec_dialect.VALUES.fullmatch(rest):
            return f"trec_eval's measure {trec_name}_{rest}"
    for irm in ir_measures_table():
        if irm.lower() == low:
            return f"ir_measures' measure {irm!r}"
    if low in ranx_table():
        return f"ranx' metric {low!r}"
    return None


def parse_named(spec, trec: bool = False) -> list[Named]:
    """The ``Named`` entries of one metric spec (a group gives many). ``trec``: the
    spec is read in trec_eval's dialect first (the command line): trec_eval's ``rbp`` and
    ``rbp_resid``, which otherwise name the library's RBP."""
    if isinstance(spec, Measure) or (isinstance(spec, tuple) and len(spec) == 2
                                     and isinstance(spec[1], Mapping)):
        m = parse(spec)
        return [Named(m.label, m, _summary_of(m))]
    if type(spec).__module__.split(".")[0] == "ir_measures":  # a measure object
        spec = str(spec)
    if not isinstance(spec, str):
        raise ParameterError(
            f"a metric is a string like 'ndcg@10' or a (name, params) pair, not {spec!r}")
    text = spec.strip()
    found = trec_dialect.parse(text, trec)
    if found is not None:
        return found
    for dialect in (_ir_measures, _ranx):
        found = dialect(text)
        if found is not None:
            return found
    try:
        m = parse(text)
    except ParameterError as e:
        base, dot, rest = text.partition(".")
        if (str(e).startswith("cannot parse metric") and dot and rest
                and re.fullmatch(r"[A-Za-z]\w*", base)):  # trec_eval's name.PARAMS
            names = list(trec_dialect.by_name()) + list(trec_dialect.GROUPS)
            close = difflib.get_close_matches(base, names, n=5, cutoff=0.5)
            hint = f"; closest trec_eval names: {close}" if close else ""
            raise ParameterError(f"unknown trec_eval measure {base!r} in {spec!r}{hint} "
                                 "(trunc-accessor --list lists every name)") from None
        if str(e).startswith("unknown metric"):
            close = difflib.get_close_matches(text.split("@")[0].split("(")[0], known_names(),
                                              n=5, cutoff=0.5)
            hint = f"; closest known names: {close}" if close else ""
            raise ParameterError(f"unknown metric {spec!r}{hint} (trunc-accessor --list "
                                 "lists every name)") from None
        raise
    return [Named(text, m, _summary_of(m))]


def _summary_of(m: Measure) -> str:
    return m.metric.aggregate


def parse_many(metrics, trec: bool = False, measures_only: bool = True) -> list[Named]:
    """Named entries of a spec or list of specs; a label given twice is kept once.
    ``measures_only``: leave out trec_eval's runid and relstring, which are not measures of
    a query's values (the command line prints them)."""
    if isinstance(metrics, (str, Measure)) or (isinstance(metrics, tuple) and len(metrics) == 2
                                                and isinstance(metrics[1], Mapping)) \
            or type(metrics).__module__.split(".")[0] == "ir_measures":
        metrics = [metrics]
    if isinstance(metrics, (Mapping, bytes)) or not isinstance(metrics, Iterable):
        raise ParameterError(f"metrics must be a metric string or a list of them (e.g. "
                             f"['ndcg@10', 'ap']), not {type(metrics).__name__}")
    out: dict[str, Named] = {}
    for batch, spec in enumerate(metrics):
        for named in parse_named(spec, trec):
            if measures_only and named.measure is None:
                continue
            out.setdefault(named.label, replace(named, batch=batch))
    if not out:
        raise ParameterError("evaluate needs at least one metric")
    return list(out.values())


def summary_of_label(label: str) -> str:
    """How trec_eval summarises the column ``label`` over queries (mean when unknown)."""
    try:
        found = parse_named(label)
    except (ValueError, TypeError):
        return "mean"
    return found[0].summary if len(found) == 1 else "mean"
