"""Same systems, two sets of qrels: would the two judges rank the systems alike?

``leaderboard_agreement`` evaluates the runs under each set of qrels (``evaluate``),
compares the orderings of the system means with ``trunc_accessor.stats.agreement``
(Kendall's τ-b, τ_AP, the top-k overlap) and SciPy's Spearman ρ, and runs the paired tests
of ``trunc_accessor.stats.compare`` under each qrels to find the system pairs whose
significance changes. The figure is
``leaderboard_scatter``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor._typing import Frame, Metrics, Result
from trunc_accessor.core.columns import QID_NAMES, _names, _pick, check_frame
from trunc_accessor.core.frames import to_polars
from trunc_accessor.core.keys import _key_kind
from trunc_accessor.errors import InputError
from trunc_accessor.stats import _common, agreement
from trunc_accessor.stats import significance as stats
from trunc_accessor.stats.experiment import _runs_frame
from trunc_accessor.warn import DroppedQueriesWarning, warn

__all__ = ["LeaderboardAgreement", "leaderboard_agreement"]


@dataclass(frozen=True)
class LeaderboardAgreement:
    """What ``leaderboard_agreement`` finds, as three frames of the caller's library.

    ``systems``: metric, system, mean_a, mean_b (the mean over queries under each qrels),
    rank_a, rank_b (1 = best; ties share their average rank) and rank_change (rank_b −
    rank_a). ``summary``: one row per metric with n_systems, n_queries, kendall_tau (τ-b),
    tau_ap (qrels a as the truth), tau_ap_symmetric, spearman, top_k_overlap (with k),
    max_rank_change and the system(s) that move most (none when no rank changes), significant_a /
    significant_b (pairs significantly different under each) and changed (pairs whose verdict
    differs). ``pairs``: metric, system, other, delta_a, p_adjusted_a, significant_a, delta_b,
    p_adjusted_b, significant_b and change ("both", "neither", "only a", "only b" with the
    judges' names, or "reversed": significant under both in opposite directions).
    ``names``: the two qrels' names.
    """

    names: tuple[str, str]
    systems: Result
    summary: Result
    pairs: Result


def _common_queries(qrels_a, qrels_b, names) -> tuple[Any, Any]:
    """Both qrels restricted to the queries both judge (a warning counts the others)."""
    picked, sets = [], []
    for frame, name in zip((qrels_a, qrels_b), names):
        check_frame(frame, f"qrels {name!r}")
        qid = _pick("qid", _names(frame, f"qrels {name!r}"), None, QID_NAMES,
                    f"qrels {name!r}", frame)
        if isinstance(frame, pl.LazyFrame):
            frame = frame.collect()
        ids = cast(pl.DataFrame, to_polars(frame, [qid], f"qrels {name!r}"))[qid]
        _key_kind(ids.dtype, f"qrels {name!r} column {qid!r}")  # qids as evaluate takes them
        if ids.null_count():
            raise InputError(f"qrels {name!r} column {qid!r} has a missing value (row "
                             f"{ids.is_null().arg_max()})")
        text = ids.cast(pl.String)
        picked.append((frame, qid, text))
        sets.append(set(text.unique().to_list()))
    common = sets[0] & sets[1]
    if not common:
        raise InputError(f"leaderboard_agreement: qrels {names[0]!r} and {names[1]!r} judge "
                         "no query in common")
    only = [len(s - common) for s in sets]
    if any(only):
        warn(f"leaderboard_agreement: {only[0]} queries judged only in {names[0]!r} and "
             f"{only[1]} only in {names[1]!r} are left out: both leaderboards are over the "
             f"{len(common)} queries both judge (queries='all' keeps them)",
             DroppedQueriesWarning)
    out = []
    for frame, _qid, text in picked:
        keep = text.is_in(list(common)).to_numpy()
        out.append(frame.filter(pl.Series(keep)) if isinstance(frame, pl.DataFrame)
                   else frame.loc[keep])
    return out[0], out[1]


def _per_query(frame, qrels, metrics, by: str, evaluate_kw) -> pd.DataFrame:
    """Per-query values, pandas, indexed by (system, qid)."""
    per = frame.ir.evaluate(qrels, metrics, by=by, undefined="nan", **evaluate_kw)
    if isinstance(per, pl.DataFrame):
        per = per.to_pandas().set_index([by, per.columns[1]])
    return per


def leaderboard_agreement(runs: Frame | Mapping[Any, Frame], qrels_a: Frame, qrels_b: Frame,
                          metrics: Metrics, *, names: Sequence[str] = ("a", "b"),
                          by: str = "system", k: int = 3, queries: str = "common",
                          test: str = "t", correction: str = "holm", alpha: float = 0.05,
                          n_resamples: int = 10_000, seed: int = 0, undefined: str = "skip",
                          **evaluate_kw: Any) -> LeaderboardAgreement:
    """Do two sets of qrels rank the same systems alike (Voorhees, "Variations in relevance
    judgments and the measurement of retrieval effectiveness", IP&M 36(5), 2000)?

    ``runs``: one run frame with a ``by`` column or a mapping {system: run} (pandas or
    Polars), evaluated under ``qrels_a`` and under ``qrels_b`` with ``metrics`` (any names
    ``evaluate`` accepts; ``**evaluate_kw``: ``ties``, ``relevance_level``…; a judged query a
    system returned nothing for scores as an empty ranking). ``queries="common"`` (default)
    evaluates both over the queries both qrels judge, ``"all"`` each over its own.

    Per metric, over the systems' means: Kendall's τ-b and τ_AP (Yilmaz, Aslam & Robertson,
    SIGIR 2008; ``qrels_a`` as the truth, and symmetric) from
    ``trunc_accessor.agreement``, Spearman's ρ (``scipy.stats.spearmanr``), the top-``k``
    overlap of the two orderings (``trunc_accessor.agreement.overlap``) and the largest
    rank change; and for every pair of systems the paired test of
    ``trunc_accessor.stats.compare`` (``test``, ``correction``, ``alpha``,
    ``n_resamples``, ``seed``, ``undefined``) under each qrels, to see which pairs change
    significance. ``undefined`` rules the means too: ``"skip"`` (default) leaves a value
    the metric leaves undefined (AP of a query with no relevant document) out of the
    system's mean, ``"zero"`` counts it as 0. Returns a ``LeaderboardAgreement``.

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield")
    >>> binary = qrels.assign(rel=(qrels.rel >= 3).astype(int))
    >>> found = leaderboard_agreement(runs, qrels, binary, ["ndcg@10"], names=("graded", "3+"))
    >>> found.summary[["metric", "kendall_tau", "tau_ap", "changed"]].round(4)
        metric  kendall_tau  tau_ap  changed
    0  ndcg@10       0.9048  0.6667        6
    """
    names = tuple(names)
    _check_leaderboard(names, queries, k)
    # compare's checks, before the two evaluations they would otherwise follow
    stats._check_compare(test, correction, alpha, n_resamples, seed, undefined)
    frame, polars_in = _runs_frame(runs, by, "leaderboard_agreement")
    if not isinstance(frame, (pl.DataFrame, pd.DataFrame)) or by not in frame.columns:
        raise InputError(f"leaderboard_agreement: runs must be a run frame with a {by!r} "
                         "column or a mapping {system: run}")
    if queries == "common":
        qrels_a, qrels_b = _common_queries(qrels_a, qrels_b, names)
    per = [_per_query(frame, q, metrics, by, evaluate_kw) for q in (qrels_a, qrels_b)]
    labels = list(per[0].columns)
    # undefined values arrive NaN: "skip" leaves them out of the means (as compare leaves
    # them out of its pairs), "zero" counts them as 0 in both
    if undefined == "zero":
        per = [p.fillna(0.0) for p in per]
    means = [p.groupby(level=0, sort=False).mean() for p in per]
    systems = list(means[0].index)
    means[1] = means[1].reindex(systems)
    compare_kw: dict[str, Any] = {"test": test, "correction": correction, "alpha": alpha,
                  "n_resamples": n_resamples, "seed": seed, "undefined": undefined, "by": by}
    tested = [stats.compare(p, **compare_kw) for p in per]
    n_queries = int(per[0].index.get_level_values(1).nunique())
    sys_rows, summary, pair_rows = [], [], []
    for metric in labels:
        x = means[0][metric].to_numpy(dtype=np.float64)
        y = means[1][metric].to_numpy(dtype=np.float64)
        ranks, row = _orderings_agree(x, y, systems, k)
        both = _pairs(tested, metric, names)
        sys_rows.append(pd.DataFrame({"metric": metric, "system": systems, "mean_a": x,
                                      "mean_b": y, **ranks}))
        pair_rows.append(both)
        summary.append({
            "metric": metric, "n_systems": len(systems), "n_queries": n_queries, **row,
            "significant_a": int(both["significant_a"].sum()),
            "significant_b": int(both["significant_b"].sum()),
            "changed": int((~both["change"].isin(["both", "neither"])).sum())})
    out = [pd.concat(sys_rows, ignore_index=True), pd.DataFrame(summary),
           pd.concat(pair_rows, ignore_index=True)]
    if polars_in:
        out = [pl.from_pandas(f) for f in out]
    return LeaderboardAgreement((str(names[0]), str(names[1])), *out)


def _check_leaderboard(names: tuple, queries, k) -> None:
    """leaderboard_agreement's own arguments: two distinct names, the query rule, k ≥ 1."""
    if len(names) != 2 or not all(isinstance(n, str) for n in names) or names[0] == names[1]:
        raise InputError(f"leaderboard_agreement: names= must be two distinct strings, not "
                         f"{names!r}")
    if queries not in ("common", "all"):
        raise InputError(f"leaderboard_agreement: queries= must be 'common' or 'all', not "
                         f"{queries!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"leaderboard_agreement: k= must be a whole number ≥ 1, not {k!r}")


def _orderings_agree(x: np.ndarray, y: np.ndarray, systems: list,
                     k: int) -> tuple[dict, dict]:
    """How two orderings of the systems (means ``x`` under qrels a, ``y`` under b) agree:
    each system's ranks and rank change, and the rank correlations, top-``k`` overlap and
    largest rank change."""
    scipy_stats = _common._scipy_stats()
    rank_a = scipy_stats.rankdata(-x, method="average")
    rank_b = scipy_stats.rankdata(-y, method="average")
    change = rank_b - rank_a
    orders = [pd.DataFrame({"qid": "orders", "docid": [str(s) for s in systems],
                            "score": v}) for v in (x, y)]
    top = float(agreement.overlap(orders[0], orders[1], int(min(k, len(systems))))
                .iloc[0, 0]) if len(systems) else np.nan
    most = np.abs(change).max() if len(systems) else np.nan
    rho = scipy_stats.spearmanr(x, y).statistic if len(x) > 1 else np.nan
    ranks = {"rank_a": rank_a, "rank_b": rank_b, "rank_change": change}
    return ranks, {
        "kendall_tau": agreement.kendall_tau(x, y), "tau_ap": agreement.tau_ap(x, y),
        "tau_ap_symmetric": agreement.tau_ap(x, y, symmetric=True),
        "spearman": float(rho), "top_k_overlap": top, "k": int(min(k, len(systems))),
        "max_rank_change": float(most),
        "max_rank_change_system": ", ".join(str(s) for s, c in zip(systems, change)
                                            if abs(c) == most and most > 0)}


def _pairs(tested: list[pd.DataFrame], metric: str, names) -> pd.DataFrame:
    """The pairs of systems with their verdict under each qrels and what changed."""
    cols = ["system", "other", "delta", "p_adjusted", "significant"]
    a, b = (t.loc[t["metric"] == metric, cols] for t in tested)
    both = a.merge(b, on=["system", "other"], how="outer", suffixes=("_a", "_b"))
    both["significant_a"] = both["significant_a"].fillna(False).astype(bool)
    both["significant_b"] = both["significant_b"].fillna(False).astype(bool)
    sa, sb = both["significant_a"].to_numpy(), both["significant_b"].to_numpy()
    flipped = np.sign(both["delta_a"].to_numpy()) != np.sign(both["delta_b"].to_numpy())
    both["change"] = np.select(
        [sa & sb & flipped, sa & sb, sa, sb],
        ["reversed", "both", f"only {names[0]}", f"only {names[1]}"], "neither")
    both.insert(0, "metric", metric)
    return both
