"""Fusion methods: each maps the normalised runs (``Table``) to one fused
score per candidate, vectorised over every query and document (a loop over the runs at
most).

Score-based methods combine each run's normalised score s_r(d) over the runs that
retrieved d (Fox & Shaw 1994; Lee 1997; Wu & Crestani 2002): CombSUM Σ s, CombMNZ Σ s · n
(n = how many runs retrieved d), CombANZ Σ s / n, CombGMNZ Σ s · n^γ, CombMAX, CombMIN,
CombMED (the median), weighted sum Σ w_r s_r, WMNZ Σ s · Σ w (both over the runs that
retrieved d), Mixed Σ w_r s_r · √n.

Position-based methods give the document at position i of run r a value v_r(i) and add
them up (or, for the ISR family, combine them as MNZ): RRF 1/(k + i) (Cormack, Clarke &
Büttcher 2009), ISR 1/i² with Σ·n, log_ISR Σ·ln n, logN_ISR Σ·ln(n + σ) (Mourão et al.
2014), BordaFuse C − i + 1, unretrieved (C − n_r + 1)/2 (Aslam & Montague 2001), RBC
(1 − φ)·φ^(i−1) (Bailey et al. 2017), PosFuse p_r(i), ProbFuse p_r(k)/k for the k-th of its
segments (Lillis et al. 2006), SegFuse p_r(k)·(s + 1) (Shokouhi 2007), SlideFuse the mean of
p_r over positions i − w…i + w (Lillis et al. 2008), MAPFuse MAP_r / i (Lillis et al.
2010), BayesFuse log-odds_r(i), unretrieved log(0.001/0.999) (Aslam & Montague 2001). With
``ties="average"`` each tied document's v_r is the mean of v_r over its tie group's
positions: the exact mean over every order of the tie of any of these sums.

Condorcet (Montague & Aslam 2002) ranks by pairwise majority; see
``trunc_accessor.fusion.condorcet``.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.fusion.condorcet import condorcet
from trunc_accessor.fusion.normalization import Table

MIN_ODD = float(np.log(0.001 / 0.999))  # BayesFuse: an unretrieved document's log-odds
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
BAYES_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
REQUIRED = object()


@dataclass(frozen=True)
class Method:
    name: str
    aliases: tuple[str, ...]
    kind: str                      # "score", "rank" or "vote"
    combine: str                   # how per-run values are combined
    params: dict = field(default_factory=dict)   # apply-time parameters → default
    learnt: str | None = None      # the parameter fit() estimates from qrels
    fit_params: dict = field(default_factory=dict)
    summary: str = ""


def _m(name, aliases, kind, combine, params=None, learnt=None, fit_params=None, summary=""):
    return Method(name, tuple(aliases), kind, combine, params or {}, learnt, fit_params or {},
                  summary)


W = {"weights": REQUIRED}
METHODS = {m.name: m for m in [
    _m("combsum", ["sum", "comb_sum"], "score", "sum", summary="Σ s (Fox & Shaw 1994)"),
    _m("combmnz", ["mnz", "comb_mnz"], "score", "mnz", summary="Σ s · n (Fox & Shaw 1994)"),
    _m("combanz", ["anz", "comb_anz"], "score", "anz", summary="Σ s / n (Fox & Shaw 1994)"),
    _m("combgmnz", ["gmnz", "comb_gmnz"], "score", "gmnz", {"gamma": REQUIRED},
       summary="Σ s · n^γ (Lee 1997)"),
    _m("combmax", ["max", "comb_max"], "score", "max", summary="max s (Fox & Shaw 1994)"),
    _m("combmin", ["min", "comb_min"], "score", "min", summary="min s (Fox & Shaw 1994)"),
    _m("combmed", ["med", "comb_med"], "score", "med", summary="median s (Fox & Shaw 1994)"),
    _m("wsum", ["weighted_sum"], "score", "wsum", W, summary="Σ w_r s_r"),
    _m("wmnz", [], "score", "wmnz", W, summary="Σ s · Σ w (Wu & Crestani 2002)"),
    _m("mixed", [], "score", "mixed", W, summary="Σ w_r s_r · √n (Wu 2012)"),
    _m("rrf", ["reciprocal_rank_fusion"], "rank", "sum", {"k": 60},
       summary="Σ 1/(k + i) (Cormack et al. 2009)"),
    _m("isr", [], "rank", "mnz", summary="Σ 1/i² · n (Mourão et al. 2014)"),
    _m("log_isr", [], "rank", "log", summary="Σ 1/i² · ln n (Mourão et al. 2014)"),
    _m("logn_isr", [], "rank", "logn", {"sigma": 0.01},
       summary="Σ 1/i² · ln(n + σ) (Mourão et al. 2014)"),
    _m("bordafuse", ["borda_fuse"], "rank", "sum",
       summary="Σ (C − i + 1) (Aslam & Montague 2001)"),
    _m("w_bordafuse", ["weighted_bordafuse"], "rank", "wsum", W,
       summary="Σ w_r (C − i + 1)"),
    _m("condorcet", [], "vote", "condorcet", summary="pairwise majority (Montague & Aslam 2002)"),
    _m("w_condorcet", ["weighted_condorcet"], "vote", "condorcet", W,
       summary="weighted pairwise majority"),
    _m("rbc", ["rank_biased_centroid"], "rank", "sum", {"phi": REQUIRED},
       summary="Σ (1 − φ) φ^(i−1) (Bailey et al. 2017)"),
    _m("posfuse", [], "rank", "sum", learnt="probs", summary="Σ P(rel | i) per run"),
    _m("probfuse", [], "rank", "sum", learnt="probs", fit_params={"n_segments": REQUIRED},
       summary="Σ P(rel | segment k)/k (Lillis et al. 2006)"),
    _m("segfuse", [], "rank", "sum", learnt="probs",
       summary="Σ P(rel | segment)·(s + 1) (Shokouhi 2007)"),
    _m("slidefuse", [], "rank", "sum", {"w": REQUIRED}, learnt="probs",
       summary="Σ mean P(rel) over i ± w (Lillis et al. 2008)"),
    _m("mapfuse", [], "rank", "sum", learnt="map_scores",
       summary="Σ MAP_r / i (Lillis et al. 2010)"),
    _m("bayesfuse", [], "rank", "sum", learnt="log_odds",
       summary="Σ log-odds of relevance at i (Aslam & Montague 2001)"),
]}
_ALIASES = {a: m.name for m in METHODS.values() for a in (m.name, *m.aliases)}
WEIGHTED = tuple(n for n, m in METHODS.items() if "weights" in m.params)
MISSING = ("method", "min")


def get_method(method) -> Method:
    """A method by its name or one of its aliases (ranx's names accepted), any case."""
    if isinstance(method, Method):
        return method
    if isinstance(method, str):
        key = method.lower().replace("-", "_")
        if key in _ALIASES:
            return METHODS[_ALIASES[key]]
    raise InputError(f"method= must be one of {sorted(METHODS)} (or ranx's names: sum, mnz, "
                     f"anz, gmnz, max, min, med, w_bordafuse, w_condorcet, …), not {method!r}")


def check_missing(missing, method: Method) -> str:
    if missing not in MISSING:
        raise InputError(f"missing= must be one of {MISSING}, not {missing!r}")
    if missing == "min" and method.kind == "vote":
        raise ParameterError(
            f"missing='min' does not apply to {method.name}: a run's unretrieved documents "
            "are tied below its retrieved ones in every pairwise vote")
    return missing


# --------------------------------------------------------------------------- per-run values
PER_RUN = ("weights", "probs", "log_odds", "map_scores")  # parameters with one value per run


def check_per_run_forms(params: dict, ordered: bool) -> None:
    """Refuse a per-run parameter given as a sequence when the runs have no order of their
    own (one long frame whose ``by`` column names them): ranx reads such a list in the order
    its runs are listed, and a frame's systems are not listed. ``ordered``: the runs came
    as a mapping {name: run}, whose order a sequence follows."""
    if ordered:
        return
    for k, v in params.items():
        if k in PER_RUN and not isinstance(v, Mapping):
            raise ParameterError(
                f"{k}= is a sequence, but the runs are one frame whose systems come in no "
                f"order of their own (ranx reads a list in the order its runs are listed): "
                f"pass a mapping {k}={{system: value, ...}}, or the runs as a mapping "
                f"{{name: run}}, whose order a sequence follows")


def _per_run(array_of, names: list, what: str) -> list:
    """One entry per run from a mapping {system: value} or a sequence in the runs' order
    (the order of a mapping of runs; see `check_per_run_forms`)."""
    if isinstance(array_of, Mapping):
        unknown = [k for k in array_of if k not in names]
        absent = [n for n in names if n not in array_of]
        if unknown or absent:
            raise InputError(f"{what} name systems that are not the runs': unknown "
                             f"{unknown[:5]}, missing {absent[:5]} (runs: {names[:10]})")
        return [array_of[n] for n in names]
    values = list(array_of)
    if len(values) != len(names):
        raise InputError(f"{what} gives {len(values)} values for {len(names)} runs "
                         f"{names[:10]}; pass a mapping {{system: value}} to be explicit")
    return values


def as_mapping(params: dict, names: list) -> dict:
    """``params`` with every per-run sequence turned into a mapping {run name: value}, so
    that a model applies to runs in any form."""
    return {k: (dict(zip(names, _per_run(v, names, k)))
                if k in PER_RUN and not isinstance(v, Mapping) else v)
            for k, v in params.items()}


def weights_array(weights, names: list) -> np.ndarray:
    w = _per_run(weights, names, "weights")
    try:
        out = np.array([float(x) for x in w], dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"weights must be numbers, not {w!r}") from None
    if not np.all(np.isfinite(out)):
        raise ParameterError(f"weights must be finite numbers, not {w!r}")
    return out


def _padded(arrays: list, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-run 1-d arrays as a zero-padded matrix and their lengths."""
    arrays = [np.asarray(a, dtype=np.float64).ravel() for a in arrays]
    for a in arrays:
        if not np.all(np.isfinite(a)):
            raise ParameterError(f"{what} must be finite numbers")
    lengths = np.array([len(a) for a in arrays], dtype=np.int64)
    out = np.zeros((len(arrays), max(int(lengths.max()), 1) if len(arrays) else 1))
    for r, a in enumerate(arrays):
        out[r, :len(a)] = a
    return out, lengths


def _lookup(matrix: np.ndarray, lengths: np.ndarray, sys: np.ndarray, idx: np.ndarray,
            default: float = 0.0) -> np.ndarray:
    """matrix[sys, idx] where idx < lengths[sys], else ``default``."""
    ok = idx < lengths[sys]
    out = np.full(len(idx), default)
    out[ok] = matrix[sys[ok], idx[ok]]
    return out


def entry_values(tab: Table, m: Method, p: dict) -> np.ndarray:
    """Each entry's value under method ``m`` (before ties are averaged)."""
    if m.kind == "score":
        return tab.value
    i = tab.pos.astype(np.float64)  # 1-based positions
    if m.name == "rrf":
        return 1.0 / (p["k"] + i)
    if m.name in ("isr", "log_isr", "logn_isr"):
        return 1.0 / (i * i)
    if m.name in ("bordafuse", "w_bordafuse"):
        return tab.st.q_counts()[tab.query] - i + 1.0
    if m.name == "rbc":
        return (1.0 - p["phi"]) * p["phi"] ** (i - 1.0)
    sys = tab.system
    if m.name == "mapfuse":
        return np.asarray(p["map_scores"], dtype=np.float64)[sys] / i
    matrix, lengths = p["_learnt"]
    z = tab.pos - 1  # 0-based
    if m.name == "posfuse":
        return _lookup(matrix, lengths, sys, z)
    if m.name == "bayesfuse":
        return _lookup(matrix, lengths, sys, z, MIN_ODD)
    if m.name == "probfuse":
        size = np.ceil(tab.length / lengths[sys]).astype(np.int64)
        k = z // np.maximum(size, 1)
        return _lookup(matrix, lengths, sys, k) / (k + 1.0)
    if m.name == "segfuse":
        k = np.searchsorted(SEGFUSE_BOUNDS, z, side="right") - 1
        inside = z < SEGFUSE_BOUNDS[-1]
        value = tab.value if tab.raw is None else tab.raw  # at its position, before averaging
        return np.where(inside, _lookup(matrix, lengths, sys, np.minimum(k, 9)), 0.0) * (
            value + 1.0)
    if m.name == "slidefuse":
        w = int(p["w"])
        n = tab.length
        a = np.maximum(z - w, 0)
        b = np.minimum(z + w, n - 1)
        width = max(int(n.max()) if len(n) else 0, matrix.shape[1]) + 1
        cs = np.zeros((matrix.shape[0], width + 1))
        cs[:, 1:matrix.shape[1] + 1] = np.cumsum(matrix, axis=1)
        cs[:, matrix.shape[1] + 1:] = cs[:, [matrix.shape[1]]]
        return (cs[sys, b + 1] - cs[sys, a]) / (b - a + 1.0)
    raise AssertionError(m.name)  # pragma: no cover


def _missing_values(tab: Table, m: Method, v: np.ndarray, missing: str) -> np.ndarray:
    """Per (run, query) segment: the value of a candidate the run did not retrieve (NaN:
    none, the run does not count for it). ``v``: the entries' values before tie averaging,
    so that ``missing="min"`` gives the run's lowest value, the same in every tie order."""
    st = tab.st
    n_seg = st.n_runs * st.n_q
    out = np.full(n_seg, np.nan)
    if m.name in ("bordafuse", "w_bordafuse"):
        q = np.arange(n_seg) % max(st.n_q, 1)
        out = (st.q_counts()[q] - tab.seg_len + 1) / 2.0
    elif m.name == "bayesfuse":
        out[:] = MIN_ODD
    if missing == "min":
        counts = tab.seg_len
        nonempty = np.flatnonzero(counts > 0)
        if len(nonempty):
            out[nonempty] = np.minimum.reduceat(v, tab.offsets[:-1][nonempty])
    return out


_COMBINED = {"max": "maximum", "min": "minimum", "med": "median"}


def _refuse_averaged_ties(tab: Table, m: Method, v: np.ndarray, raw: np.ndarray) -> None:
    """CombMAX, CombMIN and CombMED of position-based values (the ``rank`` and ``borda``
    normalisations) under ``ties="average"``: the maximum (minimum, median) of tie-averaged
    values is not the mean of the maximum over the orders of the ties, so a tie that
    changes a value is refused, naming it."""
    if v is raw or tab.singleton_groups:
        return
    changed = np.flatnonzero(v != raw)
    if not len(changed):
        return
    st, i = tab.st, int(changed[0])
    group = np.flatnonzero(tab.gid == tab.gid[i])
    docs = st.docids(tab.cand[group[:3]]).to_list()
    raise ParameterError(
        f"{m.name} after norm={tab.norm!r} with ties='average': run "
        f"{st.names[int(tab.system[i])]!r} ties {len(group)} documents of query "
        f"{st.qids[int(tab.query[i])]!r} ({', '.join(map(repr, docs))}"
        f"{', …' if len(group) > 3 else ''}), and the {_COMBINED[m.combine]} of their averaged "
        "positional values is not the mean over the orders of the tie; pass ties='first' "
        "or 'trec_eval' to order tied documents, or a score normalisation (min-max, …)")


def _value_matrix(tab: Table, v: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """(R, C): each run's value of each candidate, ``fill`` of its segment where the run did
    not retrieve it (NaN: the run does not count for it)."""
    st = tab.st
    V = np.full((st.n_runs, st.n_cand), np.nan)
    V[tab.system, tab.cand] = v
    q_of = st.cand_q
    for r in range(st.n_runs):  # fill each run's unretrieved candidates with its segment's value
        gap = np.isnan(V[r])
        if gap.any():
            V[r, gap] = fill[r * st.n_q + q_of[gap]]
    return V


def _run_sums(tab: Table, v: np.ndarray, fill: np.ndarray, w: np.ndarray, weighted: bool):
    """Per candidate, over the runs that count for it (in run order): the sum of the values
    (``weighted``: of w_r times them), the number of runs and the sum of their weights."""
    C = tab.st.n_cand
    if np.isnan(fill).all():  # a candidate's runs are its entries, in run order
        w_entry = w[tab.system]
        return (np.bincount(tab.cand, weights=w_entry * v if weighted else v, minlength=C),
                np.bincount(tab.cand, minlength=C).astype(np.float64),
                np.bincount(tab.cand, weights=w_entry, minlength=C))
    V = _value_matrix(tab, v, fill)
    present = ~np.isnan(V)
    total, w_total = np.zeros(C), np.zeros(C)
    for r in range(len(V)):
        total += np.where(present[r], w[r] * V[r] if weighted else V[r], 0.0)
        w_total += np.where(present[r], w[r], 0.0)
    return total, present.sum(axis=0).astype(np.float64), w_total


def fused_scores(tab: Table, m: Method, p: dict, missing: str = "method") -> np.ndarray:
    """The fused score of every candidate of ``tab``'s stack."""
    if m.kind == "vote":
        w = p.get("_weights")
        return condorcet(tab, np.ones(tab.st.n_runs) if w is None else w)
    raw = entry_values(tab, m, p)  # per position: the same multiset in every tie order
    v = tab.group_mean(raw) if m.kind == "rank" else raw
    if m.kind == "score" and tab.raw is not None:  # rank/borda norms: averaged already
        raw = tab.raw
    fill = _missing_values(tab, m, raw, missing)
    c = m.combine
    if c in ("max", "min", "med"):
        _refuse_averaged_ties(tab, m, v, raw)
        V = _value_matrix(tab, v, fill)
        if c != "med":
            return (np.nanmax if c == "max" else np.nanmin)(V, axis=0)
        ordered = np.sort(V, axis=0)  # NaN last
        n = (~np.isnan(V)).sum(axis=0)
        cols = np.arange(tab.st.n_cand)
        lo, hi = ordered[(n - 1) // 2, cols], ordered[n // 2, cols]
        return (lo + hi) / 2.0
    w = p.get("_weights")
    w = np.ones(tab.st.n_runs) if w is None else w
    total, count, w_total = _run_sums(tab, v, fill, w, c in ("wsum", "mixed"))
    if c in ("sum", "wsum"):
        return total
    if c == "mnz":
        return total * count
    if c == "anz":
        return total / count
    if c == "gmnz":
        return total * count ** p["gamma"]
    if c == "log":
        return total * np.log(count)
    if c == "logn":
        return total * np.log(count + p["sigma"])
    if c == "wmnz":
        return total * w_total
    if c == "mixed":
        return total * np.sqrt(count)
    raise AssertionError(c)  # pragma: no cover
