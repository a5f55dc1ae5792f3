"""How well an experiment was reproduced or replicated: the measures of Breuer, Ferro, Fuhr,
Maistro, Sakai, Schaer & Soboroff, "How to Measure the Reproducibility of System-oriented IR
Experiments", SIGIR 2020, with the values of their reference implementation repro_eval 0.5.

An experiment compares an *advanced* system with a *baseline*; a reproduction runs both again
on the same collection (``reproducibility``), a replication on another (``replicability``).
Each measure compares an original run with its reproduced (replicated) counterpart:

* the document orderings (§3.1, reproduction only): Kendall's tau union (KTU) and
  rank-biased overlap (RBO), per query (``order_agreement``);
* the per-query scores (§3.2, reproduction only): root mean square error
  RMSE = √(Σ_j (x_j − x'_j)² / n) over the n queries, and repro_eval's normalised nRMSE,
  RMSE divided by the largest RMSE scores in [0, 1] allow, √(Σ_j max(x_j, 1 − x_j)² / n);
* the overall effect (§3.3): the effect ratio ER = mean_j(a'_j − b'_j) / mean_j(a_j − b_j)
  (eq. 3; a advanced, b baseline, ' the reproduction, each mean over the queries of its own
  collection) and the delta relative improvement ΔRI = RI − RI' with
  RI = (mean(a) − mean(b)) / mean(b) (eq. 4);
* statistical significance (§3.4): a two-sided paired t-test between the original and the
  reproduced per-query scores (reproduction: same queries), an unpaired Student's t-test
  (equal variances) for a replication.

Scores come from one ``evaluate`` call per collection over the runs of the named systems (any
measure of the registry, any evaluation option: ``like="ir_measures"`` scores as repro_eval,
which evaluates with ir_measures, does).
"""
from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor._typing import Frame, Metrics
from trunc_accessor.core.columns import check_frame
from trunc_accessor.core.numbers import whole_number
from trunc_accessor.errors import InputError
from trunc_accessor.metrics.params import check_p
from trunc_accessor.stats._common import _Data, _normalise, _scipy_stats
from trunc_accessor.stats.experiment import _check_system_column, _runs_frame
from trunc_accessor.stats.reproduce_order import order_agreement
from trunc_accessor.warn import DroppedQueriesWarning, TruncAccessorWarning, warn

__all__ = ["order_agreement", "replicability", "reproducibility"]

ROLES = ("baseline", "advanced")


# ---------------------------------------------------------------------------- the runs

def _pair(value, role: str, mapping: bool) -> tuple[Any, Any]:
    """An (original, reproduced) pair of system names (as text for a mapping of runs, whose
    systems ``experiment`` names by their keys as text)."""
    if (not isinstance(value, (tuple, list)) or len(value) != 2
            or not all(isinstance(v, Hashable) and v is not None for v in value)):
        raise InputError(f"{role}= must be a pair (original system, reproduced system) of "
                         f"names in the runs' system column, not {value!r}")
    return (str(value[0]), str(value[1])) if mapping else (value[0], value[1])


def _pairs(runs, baseline, advanced) -> dict[str, tuple[Any, Any]]:
    mapping = isinstance(runs, Mapping)
    pairs = {"baseline": _pair(baseline, "baseline", mapping)}
    if advanced is not None:
        pairs["advanced"] = _pair(advanced, "advanced", mapping)
    return pairs


def _systems_frame(runs, by: str, pairs: dict, function: str, new: str):
    """The runs as one eager frame holding only the named systems, and whether they came as
    Polars; every named system must have rows (``new``: what the second of a pair is)."""
    if not isinstance(by, str):
        raise InputError(f"{function}: by= must be the name of the system column, not {by!r}")
    frame, polars_in = _runs_frame(runs, by, function)
    _check_system_column(frame, by, function)
    present = list(frame[by].unique()) if isinstance(frame, pl.DataFrame) \
        else list(pd.unique(frame[by]))
    wanted = [s for pair in pairs.values() for s in pair]
    for role, pair in pairs.items():
        for which, name in zip(("original", new), pair):
            if name not in present:
                raise InputError(f"{function}: the {which} {role} system {name!r} has no rows "
                                 f"in the runs' {by!r} column (systems: {present})")
    if isinstance(frame, pl.DataFrame):
        return frame.filter(pl.col(by).is_in(wanted)), polars_in
    return frame[frame[by].isin(wanted)], polars_in


def _only(frame, by: str, system):
    """The rows of one system."""
    if isinstance(frame, pl.DataFrame):
        return frame.filter(pl.col(by) == system)
    return frame[frame[by] == system]


def _scores(frame, systems, qrels, metrics, by: str, evaluate_kw: dict) -> _Data:
    """The named systems' per-query values: one ``evaluate`` call."""
    part: Any = frame.filter(pl.col(by).is_in(list(systems))) \
        if isinstance(frame, pl.DataFrame) else frame[frame[by].isin(list(systems))]
    return _normalise(part.ir.evaluate(qrels, metrics, by=by, **evaluate_kw), by)


def _column(data: _Data, metric, system) -> np.ndarray:
    """A system's per-query values of a metric (NaN where it has none, or it is undefined)."""
    j = data.systems.index(system)
    return np.where(data.present[:, j], data.values[metric][:, j], np.nan)


# ---------------------------------------------------------------------------- the measures

def _effects(original: _Data, reproduced: _Data, pairs: dict, metric) -> tuple[float, float]:
    """ER (eq. 3) and ΔRI (eq. 4) of a metric: the advanced system's effect over the
    baseline, in the original and in the reproduction."""
    (b, b_rep), (a, a_rep) = pairs["baseline"], pairs["advanced"]
    sides = []
    for data, base, adv in ((original, b, a), (reproduced, b_rep, a_rep)):
        x_b, x_a = _column(data, metric, base), _column(data, metric, adv)
        both = ~np.isnan(x_b) & ~np.isnan(x_a)
        sides.append(((x_a - x_b)[both].mean() if both.any() else np.nan,
                      np.nanmean(x_a) if (~np.isnan(x_a)).any() else np.nan,
                      np.nanmean(x_b) if (~np.isnan(x_b)).any() else np.nan))
    (gain, mean_a, mean_b), (gain_rep, mean_a_rep, mean_b_rep) = sides
    with np.errstate(divide="ignore", invalid="ignore"):
        er = np.float64(gain_rep) / np.float64(gain)
        dri = ((np.float64(mean_a) - mean_b) / mean_b
               - (np.float64(mean_a_rep) - mean_b_rep) / mean_b_rep)
    return float(er), float(dri)


def _paired(x: np.ndarray, y: np.ndarray) -> dict:
    """RMSE, nRMSE and the paired t-test's p-value over the queries both values define."""
    both = ~np.isnan(x) & ~np.isnan(y)
    x, y = x[both], y[both]
    n = int(both.sum())
    if not n:
        return {"n": 0, "rmse": np.nan, "nrmse": np.nan, "p_value": np.nan}
    rmse = np.sqrt(np.sum(np.square(x - y)) / n)
    worst = np.sqrt(np.sum(np.square(np.maximum(x, 1 - x))) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        nrmse = rmse / worst
    if np.array_equal(x, y):
        p = 1.0  # identical scores: no evidence of a difference (the t statistic is 0/0)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            p = float(_scipy_stats().ttest_rel(x, y).pvalue) if n > 1 else np.nan
    return {"n": n, "rmse": float(rmse), "nrmse": float(nrmse), "p_value": p}


def _unpaired(x: np.ndarray, y: np.ndarray) -> dict:
    """The unpaired two-sided Student's t-test over each side's defined values."""
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if len(x) == len(y) and np.array_equal(np.sort(x), np.sort(y)):
        p = 1.0  # the same scores: no evidence of a difference
    elif len(x) < 2 or len(y) < 2:
        p = np.nan
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            p = float(_scipy_stats().ttest_ind(x, y).pvalue)
    return {"n_original": len(x), "n_replicated": len(y), "p_value": p}


def _nanmean(v) -> float:
    v = np.asarray(v, dtype=np.float64)
    return float(v[~np.isnan(v)].mean()) if (~np.isnan(v)).any() else np.nan


def _table(original: _Data, reproduced: _Data, pairs: dict, test, names: tuple) -> pd.DataFrame:
    """One row per (run, metric): the systems, the means, ER and ΔRI (advanced rows; NaN
    on baseline rows) and what ``test`` gives for the pair."""
    rows = []
    for role, (orig, rep) in pairs.items():
        for metric in original.metrics:
            x, y = _column(original, metric, orig), _column(reproduced, metric, rep)
            er, dri = _effects(original, reproduced, pairs, metric) \
                if role == "advanced" else (np.nan, np.nan)
            tested = test(x, y)
            counts = {k: tested.pop(k) for k in list(tested) if k == "n" or k.startswith("n_")}
            rows.append({"run": role, "metric": metric, "original": orig, names[0]: rep,
                         **counts, "mean_original": _nanmean(x),
                         f"mean_{names[0]}": _nanmean(y), "er": er, "delta_ri": dri, **tested})
    return pd.DataFrame(rows)


def _out(table: pd.DataFrame, polars: bool):
    return pl.from_pandas(table) if polars else table


def _check_order_args(depth, p, function: str) -> tuple[int, float]:
    depth = whole_number(depth, f"{function}: depth", minimum=1)
    try:
        return depth, check_p(p)
    except ValueError as e:
        raise InputError(f"{function}: p {e}") from None


def _orders(frame, by: str, pairs: dict, depth: int, p: float) -> pd.DataFrame:
    """KTU and RBO per (run, query): ``order_agreement`` of each pair's two runs."""
    parts = []
    for role, (orig, rep) in pairs.items():
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", DroppedQueriesWarning)
            per = order_agreement(_only(frame, by, orig), _only(frame, by, rep), depth=depth,
                                  p=p)
        for w in said:  # said again, naming the run
            if not issubclass(w.category, TruncAccessorWarning):
                warnings.warn(w.message, w.category, stacklevel=2)
                continue
            warn(str(w.message).replace("order_agreement: the reproduced run",
                                        f"reproducibility: the reproduced {role} run {rep!r}"),
                 w.category)
        per = per.to_pandas() if isinstance(per, pl.DataFrame) else per.reset_index()
        parts.append(per.assign(run=role)[["run", *per.columns]])
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------- the two settings

def reproducibility(runs: Frame | Mapping[Any, Frame], qrels: Frame, metrics: Metrics, *,
                    baseline: tuple[Any, Any], advanced: tuple[Any, Any] | None = None,
                    by: str = "system", depth: int = 1000, p: float = 0.95,
                    per_query: bool = False, **evaluate_kw: Any) -> Any:
    """How well runs reproduce an experiment on the same collection (Breuer et al., SIGIR
    2020; repro_eval's ``RpdEvaluator``).

    Parameters
    ----------
    runs
        One run frame (pandas or Polars) with a ``by`` column naming the systems, or a
        mapping {system name: run frame}; it holds the original runs and their
        reproductions.
    qrels
        The collection's judgments (both the original and the reproduced runs are scored
        with them).
    metrics
        The measures to compare, any the registry knows (names or ``Measure`` objects).
    baseline, advanced
        (original system, reproduced system): the names of the two runs of each side of the
        experiment (system names as text for a mapping). ``advanced`` is optional: without
        it there is no effect to compare (no ER or ΔRI).
    by
        The system column of ``runs`` (default "system").
    depth, p
        KTU and RBO compare the top ``depth`` documents (repro_eval: 1000) and RBO's
        persistence is ``p`` (repro_eval: 0.95); see ``order_agreement``.
    per_query
        Also return the per-query KTU and RBO.
    **evaluate_kw
        ``evaluate``'s options (``ties``, ``like``, ``relevance_level``, ``undefined``, …);
        ``like="ir_measures"`` scores the runs as repro_eval does.

    Returns
    -------
    DataFrame or (DataFrame, DataFrame)
        In the runs' library, one row per (``run``: "baseline"/"advanced", ``metric``):
        ``original`` and ``reproduced`` (the systems), ``n`` (the queries both score),
        ``mean_original`` and ``mean_reproduced`` (each over its own queries, the ARP),
        ``er`` and ``delta_ri`` (on the advanced rows: the effect ratio, eq. 3, and
        ΔRI = RI − RI', eq. 4; NaN on baseline rows), ``rmse`` and ``nrmse`` (§3.2),
        ``p_value`` (two-sided paired t-test; 1 where the two runs score every query
        alike: repro_eval says 1 only when every measure is so, NaN otherwise), and the
        means over the original's queries of ``ktu`` (over the queries where it is defined)
        and ``rbo``, the same on every row of a run. With ``per_query=True``, also one row
        per (``run``, qid of the original) with ``ktu`` and ``rbo``.

    Every query the qrels judge is scored for every system (a query a run lacks as an empty
    ranking, as ``evaluate`` does with ``by=``), so the t-test pairs the same queries.
    Names, ``depth`` and ``p`` are checked before anything is evaluated.

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield", depth=100)
    >>> table = ta.reproducibility(runs, qrels, ["AP"], baseline=("bm25", "bm25l_stem"),
    ...                            advanced=("bm25_stem", "bm25plus_stem"))
    >>> table[["run", "rmse", "er", "ktu", "rbo"]].round(4)
            run    rmse      er     ktu     rbo
    0  baseline  0.1063     NaN  0.0281  0.6888
    1  advanced  0.0007 -0.2177  0.8443  0.9971
    """
    pairs = _pairs(runs, baseline, advanced)
    depth, p = _check_order_args(depth, p, "reproducibility")
    frame, polars_in = _systems_frame(runs, by, pairs, "reproducibility", "reproduced")
    data = _scores(frame, {s for pair in pairs.values() for s in pair}, qrels, metrics, by,
                   evaluate_kw)
    table = _table(data, data, pairs, _paired, ("reproduced",))
    orders = _orders(frame, by, pairs, depth, p)
    means = orders.groupby("run", sort=False)[["ktu", "rbo"]].mean()  # NaN left out
    table = table.join(means, on="run")
    if per_query:
        return _out(table, polars_in), _out(orders, polars_in)
    return _out(table, polars_in)


def replicability(runs: Frame | Mapping[Any, Frame], qrels: Frame, qrels_replicated: Frame,
                  metrics: Metrics, *, baseline: tuple[Any, Any],
                  advanced: tuple[Any, Any] | None = None, by: str = "system",
                  **evaluate_kw: Any) -> Any:
    """How well runs replicate an experiment on another collection (Breuer et al., SIGIR
    2020; repro_eval's ``RplEvaluator``).

    ``runs``, ``metrics``, ``baseline``, ``advanced`` (as (original system, replicated
    system)), ``by`` and ``evaluate_kw`` as ``reproducibility``; the original systems are
    scored with ``qrels``, the replicated ones with ``qrels_replicated`` (one ``evaluate``
    call each). The queries of the two collections are not paired: there is no RMSE, KTU or
    RBO.

    Returns one row per (``run``, ``metric``), in the runs' library: ``original``,
    ``replicated``, ``n_original`` and ``n_replicated`` (the queries with a value),
    ``mean_original`` and ``mean_replicated``, ``er`` and ``delta_ri`` (advanced rows, eqs.
    3–4, each mean over its own collection's queries) and ``p_value``, the two-sided
    unpaired Student's t-test of the two samples (equal variances, as repro_eval's
    ``scipy.stats.ttest_ind``; 1 for the same scores).

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield", depth=100)
    >>> first = runs.qid.astype(int) <= 112  # two halves of Cranfield as two collections
    >>> one = {"bm25": runs[first & (runs.system == "bm25")],
    ...        "bm25_stem": runs[first & (runs.system == "bm25_stem")]}
    >>> two = {"bm25 again": runs[~first & (runs.system == "bm25")],
    ...        "bm25_stem again": runs[~first & (runs.system == "bm25_stem")]}
    >>> table = ta.replicability({**one, **two}, qrels[qrels.qid.astype(int) <= 112],
    ...                          qrels[qrels.qid.astype(int) > 112], ["AP"],
    ...                          baseline=("bm25", "bm25 again"),
    ...                          advanced=("bm25_stem", "bm25_stem again"))
    >>> table[["run", "mean_original", "mean_replicated", "er", "p_value"]].round(4)
            run  mean_original  mean_replicated     er  p_value
    0  baseline         0.2452           0.2855    NaN   0.1841
    1  advanced         0.2703           0.3089  0.929   0.2232
    """
    pairs = _pairs(runs, baseline, advanced)
    check_frame(qrels, "replicability: qrels")  # both, before either evaluation
    check_frame(qrels_replicated, "replicability: qrels_replicated")
    frame, polars_in = _systems_frame(runs, by, pairs, "replicability", "replicated")
    original = _scores(frame, {o for o, _ in pairs.values()}, qrels, metrics, by, evaluate_kw)
    replicated = _scores(frame, {r for _, r in pairs.values()}, qrels_replicated, metrics, by,
                         evaluate_kw)
    return _out(_table(original, replicated, pairs, _unpaired, ("replicated",)), polars_in)
