"""A linear mixed model of per-query values: systems as fixed effects, topics (and, when
given, collections or shards) as random effects, fitted by REML with statsmodels."""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.core import results
from trunc_accessor.errors import InputError
from trunc_accessor.stats import _common
from trunc_accessor.stats._common import _check_choice, _check_prob, _output, _scipy_stats
from trunc_accessor.stats.anova import _read


def _statsmodels():
    try:
        import statsmodels.api
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError('trunc_accessor.stats.mixed_model needs statsmodels: pip install '
                          '"trunc_accessor[stats]"') from exc
    return statsmodels.api


def _cells(data, metric: str, undefined: str):
    """(values, system codes, topic codes) of the (topic, system) cells with a value."""
    v = data.matrix(metric, undefined)
    q_pos, s_pos = np.nonzero(~np.isnan(v))
    return v[q_pos, s_pos], s_pos, q_pos


def _fit(sm, y, systems, topics, groups, n_systems):
    """REML fit: (result, fixed effects, their standard errors, variance components)."""
    exog = np.column_stack([np.ones(y.size)]
                           + [(systems == k).astype(float) for k in range(1, n_systems)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes: the fit's flag is reported
        if groups is None:
            res = sm.MixedLM(y, exog, groups=topics).fit(reml=True)
            components = {"topic": float(np.asarray(res.cov_re)[0, 0])}
        else:
            frame = pd.DataFrame({"y": y, "topic": topics, "group": groups, "all": 0})
            for k in range(1, n_systems):
                frame[f"s{k}"] = exog[:, k]
            rhs = " + ".join(f"s{k}" for k in range(1, n_systems))
            model = sm.MixedLM.from_formula(
                f"y ~ {rhs}", groups="all", re_formula="0", data=frame,
                vc_formula={"topic": "0 + C(topic)", "group": "0 + C(group)"})
            res = model.fit(reml=True)
            components = dict(zip(model.exog_vc.names, map(float, res.vcomp)))
    components["residual"] = float(res.scale)
    k = exog.shape[1]
    return res, np.asarray(res.fe_params)[:k], np.asarray(res.bse_fe)[:k], components


class _Long:
    """Per-query rows keyed by (system, qid, group): codes and values per metric."""

    def __init__(self, per_query, by, group):
        if not isinstance(group, str):
            raise InputError(f"group= must be the name of a column of per_query, not {group!r}")
        if not isinstance(per_query, (pd.DataFrame, pl.DataFrame, pl.LazyFrame)):
            raise InputError("group= needs per_query as one pandas/Polars frame holding that "
                             f"column, not {type(per_query).__name__}")
        index_names = [] if not isinstance(per_query, pd.DataFrame) \
            else [n for n in per_query.index.names if n is not None]
        long, self.polars, _ = results.long_frame(per_query, "per_query")
        if group not in long.columns:
            raise InputError(f"group={group!r} is not a column of per_query (columns: "
                             f"{list(long.columns)})")
        by = _common._system_column(long.drop(columns=[group]), by, index_names, False)
        _common._check_keys(long, by)
        try:
            pd.unique(long[group])
        except TypeError:
            raise InputError(f"per_query column {group!r} holds values that cannot be keys "
                             "(lists, arrays, dicts): groups are strings or numbers") from None
        self.metrics = _common._metric_columns(long, by, (group,))
        self.systems = list(pd.unique(long[by]))
        self.s = pd.Index(self.systems).get_indexer(long[by])
        self.q = pd.Index(pd.unique(long["qid"])).get_indexer(long["qid"])
        self.g = pd.Index(pd.unique(long[group])).get_indexer(long[group])
        self.long = long

    def cells(self, metric, undefined):
        v = self.long[metric].to_numpy(dtype=float, na_value=np.nan)
        if undefined == "zero":
            v = np.nan_to_num(v, nan=0.0)
        ok = ~np.isnan(v)
        return v[ok], self.s[ok], self.q[ok], self.g[ok]


def _input(per_query, by, wide, group):
    """(systems, was the input Polars, metrics, cells(metric, undefined) → values, system,
    topic and group codes of the cells with a value)."""
    if group is None:
        data = _read(per_query, by, wide, "mixed_model", "every cell with a value is used "
                     "(the mixed model needs no complete matrix)")
        return data.systems, data.polars, data.metrics, \
            lambda metric, undefined: (*_cells(data, metric, undefined), None)
    long = _Long(per_query, by, group)
    return long.systems, long.polars, long.metrics, long.cells


def _terms(systems, est, se, comps):
    """(kind, term, estimate, standard error) of the fixed effects, the variance
    components and the intraclass correlations."""
    rows = [("fixed", "intercept", est[0], se[0])]
    rows += [("fixed", systems[k], est[k], se[k]) for k in range(1, len(est))]
    rows += [("variance", name, comps[name], np.nan)
             for name in ("topic", "group", "residual") if name in comps]
    total = sum(comps.values())
    rows += [("icc", name, comps[name] / total if total > 0 else np.nan, np.nan)
             for name in ("topic", "group") if name in comps]
    return rows


def mixed_model(per_query: Frame, group: str | None = None, undefined: str = "skip",
                confidence: float = 0.95, by: str | Sequence[str] | None = None,
                wide: bool = False) -> Result:
    """Linear mixed model score ~ system + (1 | topic), or with ``group`` score ~ system +
    (1 | topic) + (1 | group), fitted by REML (``statsmodels.MixedLM``).

    Systems are fixed effects (treatment coding: the first system is the reference, each
    other system's estimate is its difference to it); topics are a random sample of
    topics, with variance σ²_topic; with ``group`` (a collection, a shard, a track: a
    column of ``per_query``) its variance σ²_group is a second random effect, crossed with
    topics in one variance-components model (statsmodels' ``vc_formula`` with one group
    holding every row). This is the GLMM view of IR evaluation of Ferro & Silvello
    (*A general linear mixed models approach to study system component effects*, SIGIR
    2016) and of Carterette (*Bayesian inference for IR evaluation*, ICTIR 2015, and
    *Multiple testing in statistical analysis of systems-based IR experiments*, TOIS 2012).

    On a complete (balanced) topic × system matrix without ``group`` the model is the
    two-way ANOVA without replication read with random topics: the system estimates are
    the differences of the system means, REML's residual variance is the ANOVA's V_E and
    σ²_topic = (V_B − V_E) / m (m systems) whenever that is ≥ 0 (REML stops at 0
    otherwise); only the standard errors differ in kind (Wald z here, not t with φ_E
    degrees of freedom). Unlike the ANOVA, the mixed model needs no complete matrix: every
    cell with a value is used, so a system that lacks some topics still counts (a
    ``DroppedQueriesWarning`` still says which systems lack which queries).

    ``icc`` = σ²_topic / (σ²_topic + σ²_group + σ²_residual): the share of the
    variance of a single score (system effects aside) that is due to the topic; with
    ``group`` also the share of the group.

    Parameters
    ----------
    per_query : DataFrame or Mapping
        As in ``two_way_anova``; with ``group``, one pandas/Polars frame holding that column,
        one row per (system, qid, group). A qid is one topic whatever its group: the same
        qid in several groups (a topic run on several shards) is one topic, crossed with
        the groups; distinct qids per group (collections) nest topics within groups.
    group : str, optional
        Name of the collection/shard column.
    undefined : str, default "skip"
        "skip": undefined (NaN) values are left out; "zero": counted as 0.
    confidence : float, default 0.95
        Level of the Wald intervals of the fixed effects.
    by, wide
        As in ``two_way_anova``.

    Returns
    -------
    DataFrame
        metric, kind, term, estimate, std_error, ci_low, ci_high, p_value, converged
        (statsmodels' flag of the REML optimiser). kind "fixed": term "intercept" (the
        reference system's mean) and one row per other system (its difference to the
        reference), with the Wald standard error, interval at ``confidence`` and two-sided
        z p-value; kind "variance": terms "topic", ("group",) "residual"; kind "icc": terms
        "topic" (and "group"); the last two kinds have an estimate only.
    """
    _check_choice("undefined", undefined, ("skip", "zero"))
    _check_prob("confidence", confidence)
    if group is not None and wide:
        raise InputError("group= needs the long per-query frame, not wide=True")
    sm = _statsmodels()
    systems, polars, metrics, cells = _input(per_query, by, wide, group)
    fits = []
    for metric in metrics:  # every refusal before the first fit
        y, s, q, g = cells(metric, undefined)
        if np.unique(q).size < 2:
            raise InputError(f"mixed_model: metric {metric!r} has values for fewer than two "
                             "topics")
        empty = [systems[k] for k in range(len(systems)) if not np.any(s == k)]
        if empty:
            raise InputError(f"mixed_model: system {empty[0]!r} has no value of metric "
                             f"{metric!r}, so no effect can be estimated for it")
        fits.append((metric, y, s, q, g))
    z = float(_scipy_stats().norm.ppf((1 + confidence) / 2))
    cols: dict[str, list] = {k: [] for k in ("metric", "kind", "term", "estimate", "std_error",
                                             "ci_low", "ci_high", "p_value", "converged")}
    for metric, y, s, q, g in fits:
        try:
            res, est, se, comps = _fit(sm, y, s, q, g, len(systems))
        except (np.linalg.LinAlgError, ValueError) as exc:
            raise InputError(f"mixed_model: the model of metric {metric!r} cannot be fitted "
                             f"({exc})") from None
        for kind, term, e, err in _terms(systems, est, se, comps):
            fixed = kind == "fixed"
            for k, v in (("metric", metric), ("kind", kind), ("term", term),
                         ("estimate", float(e)), ("std_error", float(err)),
                         ("ci_low", float(e - z * err)), ("ci_high", float(e + z * err)),
                         ("p_value", float(2 * _scipy_stats().norm.sf(abs(e / err)))
                          if fixed else np.nan), ("converged", bool(res.converged))):
                cols[k].append(v)
    return _output(cols, polars)
