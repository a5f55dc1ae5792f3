"""Grid search of a fusion method's parameters by any metric of the registry, optionally
cross-validated over queries (``optimize_fusion``).

Default grids are ranx 0.3.21's: weights (``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``,
``w_condorcet``): every vector of multiples of ``step`` in [0, 1] that sums to 1 (counted
in whole steps, so that no vector is lost to rounding: ranx compares float sums with 1.0
and drops, e.g., (0.2, 0.7, 0.1)); ``gamma`` (combgmnz), ``sigma`` (logn_isr), ``phi``
(rbc): 0.01, 0.02, …, 1; ``k`` (rrf): 10, 20, …, 100; ``n_segments`` (probfuse) and ``w``
(slidefuse): 1, 2, …, 100; posfuse, segfuse, mapfuse and bayesfuse have nothing to search
and are fitted. Among equally good grid points the last one wins, as in ranx.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Runs
from trunc_accessor.core import frames, numbers
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.fusion._stack import check_runs_type, fused_frame, source
from trunc_accessor.fusion.learn import Judged, hits, mean_metric, qrels_frame
from trunc_accessor.fusion.methods import (
    REQUIRED,
    Method,
    as_mapping,
    check_per_run_forms,
    fused_scores,
    weights_array,
)
from trunc_accessor.fusion.model import (
    FusionModel,
    _setup,
    _table,
    check_params,
    complete,
    learn_params,
)
from trunc_accessor.metrics.conventions import check_level

HUNDREDTHS = [i / 100 for i in range(1, 101)]
DEFAULT_GRIDS: dict[str, list] = {"gamma": HUNDREDTHS, "sigma": HUNDREDTHS, "phi": HUNDREDTHS,
                 "k": list(range(10, 101, 10)), "n_segments": list(range(1, 101)),
                 "w": list(range(1, 101))}
_SEARCHED = {"combgmnz": ("gamma",), "logn_isr": ("sigma",), "rbc": ("phi",), "rrf": ("k",),
             "probfuse": ("n_segments",), "slidefuse": ("w",)}


MAX_WEIGHT_VECTORS = 200_000


def _units(step) -> int:
    """The number of steps that make 1."""
    ok = isinstance(step, (int, float, np.integer, np.floating)) and not isinstance(step, bool)
    units = 1 / step if ok and np.isfinite(step) and step > 0 else 0
    if not units or abs(units - round(units)) > 1e-9 or round(units) > 1000:
        raise ParameterError(f"step= must divide 1 into at most 1000 equal parts (0.1, 0.05, "
                             f"…), not {step!r}")
    return round(units)


def weight_grid_size(n_runs: int, step: float) -> int:
    """How many weight vectors the default grid holds: the ways of writing 1/step whole
    steps as an ordered sum of ``n_runs`` whole numbers ≥ 0, C(1/step + n_runs − 1,
    n_runs − 1)."""
    return math.comb(_units(step) + n_runs - 1, n_runs - 1)


def weight_grid(n_runs: int, step: float) -> list[tuple]:
    """Every weight vector of multiples of ``step`` summing to 1, in ranx's order (that of
    itertools.product of the values 0, step, …, 1, keeping the vectors that sum to 1).
    Refused, before any is made, beyond 200,000 vectors."""
    n = _units(step)
    size = weight_grid_size(n_runs, step)
    if size > MAX_WEIGHT_VECTORS:
        raise ParameterError(f"step={step} gives {size:,} weight vectors for {n_runs} runs "
                             f"(more than {MAX_WEIGHT_VECTORS:,}): take a larger step or pass "
                             "grid={'weights': [...]}")
    # the vectors as n whole steps cut by n_runs − 1 bars among n + n_runs − 1 places: the
    # bars' places in lexicographic order give the vectors in lexicographic order
    out = []
    for bars in itertools.combinations(range(n + n_runs - 1), n_runs - 1):
        cuts = (-1, *bars, n + n_runs - 1)
        out.append(tuple((cuts[i + 1] - cuts[i] - 1) / n for i in range(n_runs)))
    return out


def _check_grid(m: Method, grid, step, ordered: bool) -> None:
    """Refuse a bad ``grid=`` or ``step=`` before the runs are read."""
    if grid is None:
        if "weights" in m.params:
            _units(step)
        return
    if not isinstance(grid, dict) or not grid:
        raise InputError("grid= takes a mapping {parameter: [values, ...]}")
    allowed = {k for k, v in {**m.params, **m.fit_params}.items()}
    unknown = sorted(set(grid) - allowed)
    if unknown:
        raise ParameterError(f"grid= names {unknown}, which {m.name} does not take "
                             f"(it takes {sorted(allowed)})")
    for k, values in grid.items():
        values = list(values)
        if not values:
            raise InputError("grid= gives a parameter no value to try")
        for v in values:
            check_per_run_forms({k: v}, ordered)


def _points(m: Method, names: list, grid, step, fixed: dict) -> list[dict]:
    if grid is not None:
        keys = list(grid)
        values = [list(grid[k]) for k in keys]
        return [as_mapping({k: check_params(m, {k: v}, fitting=True)[k]
                            for k, v in zip(keys, combo)}, names)
                for combo in itertools.product(*values)]
    if "weights" in m.params and "weights" not in fixed:
        return [{"weights": dict(zip(names, w))} for w in weight_grid(len(names), step)]
    searched = [k for k in _SEARCHED.get(m.name, ()) if k not in fixed]
    if searched:
        return [{searched[0]: v} for v in list(DEFAULT_GRIDS[searched[0]])]
    if m.learnt:
        return [{}]
    raise ParameterError(f"{m.name} has no parameter to optimise")


@dataclass(eq=False)
class FusionSearch:
    """What ``optimize_fusion`` found.

    ``best``: the chosen grid point (and the fixed parameters), on all the qrels'
    queries; ``best_score``: its mean metric on those queries, an in-sample number (the
    queries it was chosen on; the maximum of fold 0 of ``grid``); ``model``: a
    ``FusionModel`` with them, its learnt parameters fitted on all those queries;
    ``grid``: every grid point's mean metric on the training queries, one row per (fold,
    point), ``fold`` 0 being the search on all queries; with ``folds=k``: ``folds`` (per
    fold: its queries, the point chosen on the other folds, its training and held-out
    means), ``run`` (the cross-validated fused run: each query fused by the model chosen
    without it; its ``fold`` column says which) and ``score`` (the metric's mean over every
    held-out query). Without ``folds`` no query is held out, so there is no out-of-sample
    score: ``folds``, ``run`` and ``score`` are None."""

    method: str
    metric: str
    best: dict
    model: FusionModel
    grid: object
    best_score: float = float("nan")
    folds: object = None
    run: object = None
    score: float | None = None

    def __repr__(self) -> str:
        shown = (f", cross-validated {self.metric} {self.score:.4f}" if self.score is not None
                 else f", in-sample {self.metric} {self.best_score:.4f}")
        return f"FusionSearch({self.method!r}, best={_show(self.best)}{shown})"


def _show(params: dict) -> dict:
    out = {}
    for k, v in params.items():
        if isinstance(v, dict):
            v = {n: (round(float(x), 6) if isinstance(x, (int, float)) else "…")
                 for n, x in v.items()}
        out[k] = v
    return out


def _row(point: dict, names: list) -> dict:
    row = {}
    for k, v in point.items():
        if k == "weights":
            w = weights_array(v, names)
            row.update({f"weight[{n}]": float(x) for n, x in zip(names, w)})
        else:
            row[k] = v
    return row


def optimize_fusion(runs: Runs, qrels: Frame, method: str, norm: str | None = "min-max", *,
                    metric: str = "ndcg", by: str | Sequence[str] = "system",
                    ties: str = "average", missing: str = "method",
                    grid: Mapping[str, Sequence[Any]] | None = None, step: float = 0.1,
                    folds: int | None = None, seed: int = 0, relevance_level: float = 1,
                    **params: Any) -> FusionSearch:
    """Choose a fusion method's parameters by a metric on judged queries (ranx's
    ``optimize_fusion``), optionally with k-fold cross-validation over the queries.

    Parameters
    ----------
    runs, method, norm, by, ties, missing
        As for ``fuse``.
    qrels : DataFrame
        Judgments; their queries are the training queries.
    metric : str, default "ndcg"
        Any metric of the registry in any dialect ("ndcg@10", "map", "P_10", "nDCG@10"),
        averaged over the qrels' queries (an undefined value counts 0) of the fused run.
    grid : mapping, optional
        {parameter: [values]} to search instead of the default grid (module doc); several
        parameters: every combination. Weight vectors as mappings {run: weight} or
        sequences in the order of runs given as a mapping {name: run} (refused with one
        long frame, as for `fuse`).
    step : float, default 0.1
        The spacing of the default weight grid, which holds C(1/step + R − 1, R − 1)
        vectors for R runs (refused beyond 200,000, before any is made).
    folds : int, optional
        k ≥ 2: split the qrels' queries at random (``seed``) into k folds; for each, search
        on the other folds, fuse the fold with the chosen point and score it.
    relevance_level : float, default 1
        Grades ≥ it are relevant (a number > 0: an unjudged document is never relevant),
        for the metric and for what trained methods learn.
    **params
        Fixed parameters of the method (not searched).

    Returns
    -------
    FusionSearch
        ``best``, ``best_score`` (in-sample: on the queries the point was chosen on),
        ``model``, ``grid`` (a frame of the runs' library), and with ``folds``: ``folds``,
        ``run`` and ``score`` (the cross-validated, out-of-sample number; None without
        ``folds``, as no query is then held out).

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield")
    >>> two = runs[runs["system"].isin(["bm25", "tfidf"])]
    >>> search = ta.optimize_fusion(two, qrels, "rrf", metric="ndcg@10", folds=3)
    >>> sorted(search.best), len(search.grid), len(search.folds)
    (['k'], 40, 3)
    """
    check_runs_type(runs)
    m, norm, ties, missing, _ = _setup(method, norm, ties, missing, None)
    level = check_level(relevance_level)
    label = _label(metric)
    fixed = check_params(m, params, fitting=True)
    fixed = {k: v for k, v in fixed.items() if k in params}  # only what the user fixed
    ordered = isinstance(runs, Mapping)
    check_per_run_forms(fixed, ordered)
    _check_grid(m, grid, step, ordered)
    if folds is not None:
        folds = numbers.whole_number(folds, "folds", 2)
    src = source(runs, by)
    st, tab = _table(src, norm, ties)
    fixed = as_mapping(fixed, st.names)
    judged = Judged(st, qrels_frame(qrels))
    names = st.names
    searcher = _Search(m, fixed, st, tab, judged, level, missing, metric, ties,
                       _points(m, names, grid, step, fixed))
    all_q = judged.qids
    rows, best, best_point, best_score = searcher.search(all_q, 0)
    model = FusionModel(m.name, norm, ties, missing, best, tuple(names))
    grid_rows = list(rows)
    if folds is not None:
        cv = _cross_validate(searcher, all_q, folds, seed, label)
        grid_rows += cv.rows
    grid_frame = pl.DataFrame(grid_rows).rename({"score": label})
    pandas = src.library == "pandas"
    out = FusionSearch(m.name, label, {**fixed, **best_point}, model,
                       frames.to_pandas(grid_frame) if pandas else grid_frame,
                       float(best_score))
    if folds is not None:
        fold_frame = pl.DataFrame(cv.fold_rows)
        run = pl.concat(cv.runs)
        out.folds = frames.to_pandas(fold_frame) if pandas else fold_frame
        out.run = frames.to_pandas(run) if pandas else run
        out.score = float(np.mean(np.concatenate(cv.values)))
    return out


class _Search:
    """One grid search's fixed context: the method, its fixed parameters, the runs' table,
    the judgments and the metric; ``search`` scores every grid point on some queries."""

    def __init__(self, m: Method, fixed: dict, st, tab, judged: Judged, level, missing,
                 metric, ties, points: list[dict]):
        self.m, self.fixed, self.st, self.tab, self.judged = m, fixed, st, tab, judged
        self.level, self.missing, self.metric, self.ties = level, missing, metric, ties
        self.points, self.names = points, st.names
        self.h = hits(tab, judged, level)
        self.q_index = st.qids.cast(judged.qid_dtype)

    def mask_of(self, qids: pl.Series) -> np.ndarray:
        return self.q_index.is_in(qids.cast(self.judged.qid_dtype).to_list()).to_numpy()

    def params_at(self, point: dict, train: pl.Series, cache: dict) -> dict:
        """The method's full parameters at a grid point, what it learns learnt on
        ``train`` (once per setting of its fit parameters: ``cache``)."""
        m = self.m
        full = {**self.fixed, **point}
        fit = {k: full.pop(k) for k in list(full) if k in m.fit_params}
        for k, v in m.fit_params.items():
            if v is REQUIRED and k not in fit and m.learnt not in full:
                raise ParameterError(f"{m.name} needs {k}= (fixed or in grid=)")
        if m.learnt and m.learnt not in full:
            key = tuple(sorted(fit.items()))
            if key not in cache:
                cache[key] = learn_params(self.tab, self.judged, m, fit, train=train,
                                          level=self.level, h=self.h)
            full[m.learnt] = cache[key]
        return full

    def score_of(self, full: dict, queries: pl.Series, per_query=False):
        """The metric of the run fused with ``full`` on ``queries``, and that run."""
        p = complete(self.m, full, self.names)
        run = fused_frame(self.st, fused_scores(self.tab, self.m, p, self.missing), None,
                          self.mask_of(queries))
        return mean_metric(run, self.judged.restrict(queries), self.metric, ties=self.ties,
                           level=self.level, per_query=per_query), run

    def search(self, train: pl.Series, fold: int):
        """Every grid point's row (fold, point, score on ``train``) and the best point
        (the last among equals, as ranx): its full parameters, grid point and score."""
        rows: list[dict] = []
        best: dict = {}
        best_point: dict = {}
        best_score = -np.inf
        cache: dict = {}
        for point in self.points:
            full = self.params_at(point, train, cache)
            score, _ = self.score_of(full, train)
            rows.append({"fold": fold, **_row(point, self.names), "score": score})
            if score >= best_score:
                best, best_point, best_score = full, point, score
        return rows, best, best_point, best_score


@dataclass
class _CrossValidation:
    rows: list      # the grid rows of each fold's search
    fold_rows: list  # one row per fold: sizes, chosen point, train and test scores
    runs: list      # each fold's fused test queries, with a fold column
    values: list    # each fold's per-query test values


def _cross_validate(searcher: _Search, all_q: pl.Series, folds, seed, label: str
                    ) -> _CrossValidation:
    """k-fold cross-validation over the judged queries (split at random by ``seed``): for
    each fold, search on the others, fuse the fold with the chosen point and score it."""
    k = numbers.whole_number(folds, "folds", 2)
    if k > len(all_q):
        raise ParameterError(f"folds={k} is more than the {len(all_q)} judged queries")
    cv = _CrossValidation([], [], [], [])
    order = np.random.default_rng(seed).permutation(len(all_q))
    for f, part in enumerate(np.array_split(order, k), start=1):
        test = all_q.gather(pl.Series(np.sort(part)))
        train = all_q.gather(pl.Series(np.setdiff1d(order, part)))
        r, chosen, point, train_score = searcher.search(train, f)
        cv.rows += r
        (_keys, values, _), run = searcher.score_of(chosen, test, per_query=True)
        cv.runs.append(run.with_columns(pl.lit(f, dtype=pl.Int64).alias("fold")))
        cv.values.append(values)
        cv.fold_rows.append({"fold": f, "train_queries": len(train),
                             "test_queries": len(test), **_row(point, searcher.names),
                             f"train {label}": train_score,
                             f"test {label}": float(np.mean(values)) if len(values) else 0.0})
    return cv


def _label(metric) -> str:
    from trunc_accessor.metrics.names import parse_many

    named = parse_many([metric])
    if len(named) != 1:
        raise InputError(f"metric= must name one metric, not {metric!r}")
    return named[0].label
