"""One call from runs to a results table.

``experiment`` evaluates several systems (one ``evaluate`` call), compares them with
``trunc_accessor.stats.compare`` and returns one tidy row per (system, metric); the columns
``SETTINGS`` say how it was made (``trunc_accessor.stats.report`` renders it for the paper).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor._typing import Frame, Metrics, Result
from trunc_accessor.core import sources as _sources
from trunc_accessor.errors import InputError
from trunc_accessor.stats import _common, paired
from trunc_accessor.stats import significance as stats
from trunc_accessor.warn import DroppedQueriesWarning, warn


def _runs_frame(runs, by: str, function: str = "experiment") -> tuple[Any, bool]:
    """The runs as one eager frame with a ``by`` column (``_one_frame``), and whether they
    came as Polars (the answer's library); ``function`` names the caller in refusals."""
    polars_in = isinstance(runs, (pl.DataFrame, pl.LazyFrame)) or bool(
        isinstance(runs, Mapping) and runs
        and all(isinstance(f, (pl.DataFrame, pl.LazyFrame)) for f in runs.values()))
    frame = _one_frame(runs, by, function)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    return frame, polars_in


def _one_frame(runs, by: str, function: str = "experiment"):
    """A mapping {name: run} as one frame with a ``by`` column (pandas or Polars)."""
    if not isinstance(runs, Mapping):
        return runs
    if not runs:
        raise InputError(f"{function}: runs is an empty mapping")
    frames = list(runs.values())
    names: dict[str, object] = {}
    for name in runs:
        if name is None or (isinstance(name, float) and math.isnan(name)):
            raise InputError(f"{function}: a system of the runs mapping has no name (None)")
        if str(name) in names:
            raise InputError(f"{function}: systems {names[str(name)]!r} and {name!r} have the "
                             f"same name as text ({str(name)!r}): rename one")
        names[str(name)] = name
    if all(isinstance(f, (pl.DataFrame, pl.LazyFrame)) for f in frames):
        parts = [f.lazy().with_columns(pl.lit(str(name)).alias(by)) for name, f in runs.items()]
        return pl.concat(parts, how="vertical_relaxed").collect()
    if all(isinstance(f, pd.DataFrame) for f in frames):
        return pd.concat([f.assign(**{by: str(name)}) for name, f in runs.items()],
                         ignore_index=True)
    raise InputError(f"{function}: the runs of the mapping must all be pandas or all Polars "
                     "frames")


def _system_intervals(per: pd.DataFrame, by: str, metrics, undefined: str,
                      confidence: float, ci: str = "t", n_resamples: int = 10_000,
                      seed: int = 0) -> pd.DataFrame:
    """Mean and interval of each system's per-query values (undefined: skipped or 0):
    t-based, or ``scipy.stats.bootstrap`` (percentile or BCa, ``n_resamples``, ``seed``)."""
    sps = _common._scipy_stats()  # scipy, or an ImportError naming the extra to install
    student = sps.t

    rows = []
    for system, block in per.groupby(level=by, sort=False, dropna=False):
        for metric in metrics:
            v = block[metric].to_numpy(dtype=np.float64)
            v = np.nan_to_num(v, nan=0.0) if undefined == "zero" else v[~np.isnan(v)]
            n = len(v)
            mean = float(v.mean()) if n else math.nan
            low = high = math.nan
            if n > 1 and ci == "t":
                half = float(student.ppf((1 + confidence) / 2, n - 1) * v.std(ddof=1)
                             / math.sqrt(n))
                low, high = mean - half, mean + half
            elif n > 1 and v.std() > 0:
                low, high = stats._bootstrap_mean_interval(
                    v, confidence, paired.CIS[ci].scipy_method or "percentile", n_resamples,
                    seed, sps)
            rows.append({"system": system, "metric": metric, "n": n, "mean": mean,
                         "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


MISSING = ("empty", "skip")
SETTINGS = ("test", "correction", "alpha", "ci", "confidence", "tie_policy", "missing",
            "undefined")
"""The columns that say how an experiment table was made (they travel with it through
Polars and CSV, so that ``report`` captions what was run)."""


def experiment(runs: Frame | Mapping[Any, Frame], qrels: Frame, metrics: Metrics, *,
               baseline: Any = None, test: str = "t", correction: str = "holm",
               alpha: float = 0.05, by: str = "system", per_query: bool = False,
               confidence: float = 0.95, ci: str = "t", n_resamples: int = 10_000,
               seed: int = 0, undefined: str = "skip", family: str = "metric",
               missing: str = "empty", source: str | None = None,
               **evaluate_kw: Any) -> Result:
    """Evaluate systems, compare them and tabulate the result.

    ``runs``: one run frame with a ``by`` column (pandas or Polars, a LazyFrame too) or a
    mapping ``{system name: run frame}``; ``metrics``: any names ``evaluate`` accepts
    (``"nDCG@10"``, ``"map"``, ``"P_10"``…); ``**evaluate_kw``: ``ties``, ``queries``,
    ``relevance_level``, ``judged_only``. The comparison arguments are
    ``trunc_accessor.stats.compare``'s (which see for the tests, corrections and the
    ``undefined`` rule). ``baseline``: a system, a list of systems (one block of rows per
    baseline) or None (every pair compared).

    ``missing``: what a judged query a system returned nothing for counts as. ``"empty"``
    (default, trec_eval's ``-c``): an empty ranking, which scores 0 on most metrics, so
    every system is averaged over the same queries; ``"skip"``: left out of that system's
    mean, and each comparison pairs the queries both systems answered (what
    ``compare`` does with per-query frames that lack rows). Either
    way a warning says how many queries each system lacks.

    Returns one row per (system, metric[, baseline]), in the caller's library: ``n`` (the
    queries averaged) and ``mean`` with its ``confidence`` interval (over the queries with a
    defined value, or all with ``undefined="zero"``; t-based, or with
    ``ci="bootstrap-percentile"``/``"bootstrap-bca"`` ``scipy.stats.bootstrap`` with
    ``n_resamples`` and ``seed``, as the differences' are); with a ``baseline``, each other
    system's ``delta`` to it with the interval of the difference, ``n_paired`` (the queries
    compared), ``p_value``, ``p_adjusted``, ``significant``, ``wins``, ``ties`` and
    ``losses`` (integers) and ``effect_size`` (paired d_z; with several baselines the
    correction runs over every baseline's tests as one family, as ``compare`` does);
    without one, ``beats``: the
    systems it is significantly better than (all pairs compared). The columns
    ``SETTINGS`` (test, correction, alpha, ci, confidence, tie_policy, missing,
    undefined)
    say how the table was made, so that ``report`` can caption it after a trip through
    Polars or CSV. With ``per_query=True``: ``(table, per_query_values)``, the values
    ``evaluate`` gives with ``undefined="nan"`` (an undefined value, such as AP of a query
    with no relevant document, is NaN there; ``undefined`` decides what the table makes of
    it: ``"skip"`` leaves it out of the means and comparisons, ``"zero"`` counts it as 0).
    The comparison arguments are checked before anything is evaluated.

    ``source``: a qrels column saying who judged each pair (a human assessor, a model, a
    fill): the experiment is run on each source's judgments and on their union (``"all"``,
    a pair judged by several sources at its largest grade), the tables stacked with a first
    column ``source`` (with ``per_query=True`` the per-query values too, ``source`` their
    outer level); each source's comparisons are corrected as their own family.

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield")
    >>> table = ta.experiment(runs, qrels, ["nDCG@10"], baseline="bm25")
    >>> table.loc[table.system == "bm25_stem", ["mean", "delta", "significant"]].round(4)
        mean   delta  significant
    1  0.332  0.0217         True
    """
    if source is not None:  # one experiment per source of judgments, then their union
        return _by_source(runs, qrels, metrics, source, per_query, dict(
            baseline=baseline, test=test, correction=correction, alpha=alpha, by=by,
            confidence=confidence, ci=ci, n_resamples=n_resamples, seed=seed,
            undefined=undefined, family=family, missing=missing, **evaluate_kw))
    if not isinstance(missing, str) or missing not in MISSING:
        raise InputError(f"experiment: missing= must be one of {list(MISSING)}, not "
                         f"{missing!r}")
    # compare's checks, before the evaluation they would otherwise follow
    stats._check_compare(test, correction, alpha, n_resamples, seed, undefined, confidence, ci,
                         family)
    frame, polars_in = _runs_frame(runs, by)
    _check_system_column(frame, by)
    # undefined values stay NaN here: ``undefined`` ("skip" or "zero") is applied below, by
    # the means and by compare (evaluate's own default would turn them into 0 first)
    per = frame.ir.evaluate(qrels, metrics, by=by, undefined="nan",
                            **evaluate_kw)
    per_pd = per.to_pandas().set_index([by, per.columns[1]]) if isinstance(per, pl.DataFrame) \
        else per
    absent = _absent(frame, qrels, per_pd, by)
    _say_absent(per_pd, absent, by, missing)
    if missing == "skip":
        per_pd = per_pd[~absent]
    baselines = _baselines(baseline)
    labels = list(per_pd.columns)
    table = _system_intervals(per_pd, by, labels, undefined, confidence, ci, n_resamples, seed)
    compare_kw: dict[str, Any] = {
        "test": test, "correction": correction, "alpha": alpha, "n_resamples": n_resamples,
        "seed": seed, "undefined": undefined, "confidence": confidence, "ci": ci, "by": by,
        "family": family}
    if baselines:  # one compare call: the correction's family holds every baseline's tests
        compared = _compare(per_pd, baselines, compare_kw)
        table = pd.concat([_baseline_block(table, compared, b) for b in baselines],
                          ignore_index=True)
    else:
        table["beats"] = _beats(table, _compare(per_pd, None, compare_kw))
    settings = {"test": test, "correction": correction, "alpha": alpha, "ci": ci,
                "confidence": confidence, "tie_policy": evaluate_kw.get("ties", "average"),
                "missing": missing, "undefined": undefined}
    for key in SETTINGS:
        table[key] = settings[key]
    table = table.rename(columns={"system": by})
    table.attrs.update({**settings, "baseline": baseline, "by": by})
    out = pl.from_pandas(table) if polars_in else table
    if per_query:
        return out, per
    return out


def _by_source(runs, qrels, metrics, source: str, per_query: bool, kw: dict):
    """``experiment`` on each source's judgments and on their union ("all": a pair judged
    by several sources at its largest grade), the tables stacked with a first column
    ``source`` (each corrected on its own: one family per source)."""
    parts = _sources.split(qrels, source)  # checked before anything is evaluated
    tables, values = [], []
    for name, q in parts.items():
        out = experiment(runs, q, metrics, per_query=per_query, **kw)
        table, per = out if per_query else (out, None)
        tables.append(_with_source(table, name))
        if per_query:
            values.append(_with_source(per, name))
    stacked = _stack(tables)
    if isinstance(stacked, pd.DataFrame):  # the settings report reads (pandas keeps attrs)
        stacked.attrs.update(tables[0].attrs)
    return (stacked, _stack(values)) if per_query else stacked


def _with_source(frame, name):
    if isinstance(frame, pl.DataFrame):
        return frame.select(pl.lit(name).alias("source"), pl.all())
    if frame.index.nlevels > 1 or frame.index.name is not None:  # evaluate's per-query index
        return pd.concat({name: frame}, names=["source"])
    return frame.assign(source=name)[["source", *frame.columns]]


def _stack(frames: list):
    if isinstance(frames[0], pl.DataFrame):
        return pl.concat(frames, how="vertical_relaxed")
    if frames[0].index.nlevels > 1 or frames[0].index.name is not None:
        return pd.concat(frames)
    return pd.concat(frames, ignore_index=True)


def _check_system_column(frame, by: str, function: str = "experiment") -> None:
    """The runs are one frame whose ``by`` column names a system on every row (``function``:
    the function called, named in the refusal)."""
    if not isinstance(frame, (pl.DataFrame, pd.DataFrame)):
        raise InputError(f"{function}: runs must be a run frame with a {by!r} column or a "
                         f"mapping {{system: run}}, not {type(frame).__name__}")
    if by not in frame.columns:
        raise InputError(f"{function}: the runs have no {by!r} column (by={by!r}); found "
                         f"{list(frame.columns)}")
    nameless = frame[by].is_null() if isinstance(frame, pl.DataFrame) else frame[by].isna()
    if nameless.any():
        raise InputError(f"{function}: the system column {by!r} has a missing value (a run "
                         f"with no system name)")


def _baseline_block(table: pd.DataFrame, compared: pd.DataFrame, baseline) -> pd.DataFrame:
    """The systems' rows with their comparison to ``baseline`` (delta and its interval,
    n_paired, p-values, wins/ties/losses, effect size; from ``compared``, compare's rows
    for every baseline) and a ``baseline`` column."""
    compared = compared[compared["baseline"] == baseline]
    cols = ["metric", "system", "delta", "ci_low", "ci_high", "n", "p_value",
            "p_adjusted", "significant", "wins", "ties", "losses", "effect_size"]
    part = compared[cols].rename(columns={"ci_low": "delta_ci_low",
                                          "ci_high": "delta_ci_high",
                                          "n": "n_paired"})
    block = table.merge(part, on=["system", "metric"], how="left")
    block["significant"] = block["significant"].astype("boolean").fillna(False) \
        .astype(bool)
    for c in ("n_paired", "wins", "ties", "losses"):
        block[c] = block[c].astype("Int64")  # integers; none on the baseline's row
    block.insert(2, "baseline", baseline)
    return block


def _beats(table: pd.DataFrame, compared: pd.DataFrame) -> list[list]:
    """For each (system, metric) row of ``table``, the systems it is significantly better
    than among all the pairs ``compared``."""
    better = compared[compared["significant"]]
    beats: dict = {}
    for _, row in better.iterrows():
        winner, loser = ((row["system"], row["other"]) if row["delta"] > 0
                         else (row["other"], row["system"]))
        beats.setdefault((winner, row["metric"]), []).append(loser)
    return [sorted(beats.get((s, m), []), key=str)
            for s, m in zip(table["system"], table["metric"])]


def _compare(per: pd.DataFrame, baseline, compare_kw: dict) -> pd.DataFrame:
    """stats.compare, without its warning about queries a system lacks (with
    missing='skip' experiment has said which, and why)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="compare: some systems lack queries",
                                category=DroppedQueriesWarning)
        return stats.compare(per, baseline=baseline, **compare_kw)


def _absent(frame, qrels, per: pd.DataFrame, by: str) -> np.ndarray:
    """Which rows (system, qid) of the per-query values are queries the system returned
    nothing for (scored as empty rankings)."""
    from trunc_accessor.engine.evaluation import columns_of

    qid = columns_of(frame.head(0), qrels.head(0) if hasattr(qrels, "head") else qrels,
                     [by]).run_qid
    if isinstance(frame, pl.DataFrame):
        pairs = frame.select(pl.col(by).cast(pl.String), pl.col(qid).cast(pl.String)).unique()
        answered = set(pairs.iter_rows())
    else:
        pairs = frame[[by, qid]].drop_duplicates()
        answered = {(str(s), str(q)) for s, q in zip(pairs[by], pairs[qid])}
    keys = zip(per.index.get_level_values(0), per.index.get_level_values(1))
    return np.array([(str(s), str(q)) not in answered for s, q in keys], dtype=bool)


def _say_absent(per: pd.DataFrame, absent: np.ndarray, by: str, missing: str) -> None:
    if not absent.any():
        return
    systems = per.index.get_level_values(0)
    total = pd.Series(1, index=systems).groupby(level=0, sort=False).sum()
    lacking = pd.Series(absent.astype(int), index=systems).groupby(level=0, sort=False).sum()
    shown = ", ".join(f"{s} {int(k)} of {int(total[s])}" for s, k in lacking.items() if k)
    rule = ("scored as empty rankings (missing='empty', trec_eval -c: 0 for most metrics); "
            "missing='skip' leaves them out and pairs each comparison on the queries both "
            "systems answered" if missing == "empty" else
            "left out (missing='skip'): each mean is over the queries the system answered "
            "and each comparison pairs the queries both answered")
    warn(f"experiment: systems returned nothing for some judged queries ({shown}); they are "
         f"{rule}", DroppedQueriesWarning)


def _baselines(baseline) -> list:
    """The baselines as a list (compare checks that each is a system, once)."""
    if baseline is None:
        return []
    return list(baseline) if isinstance(baseline, (list, tuple)) else [baseline]
