"""The ``.ir`` methods about incomplete judgments and their provenance, shared by every
frontend through ``trunc_accessor.frontends.namespace.Namespace``: ``bounds`` (each measure
with the unjudged retrieved documents judged non-relevant and relevant,
``trunc_accessor.engine.bounds``) and ``evaluate``'s ``source=`` (the measures on the
judgments of each source and on their union, ``trunc_accessor.core.sources``);
``sample_holes`` (random completions, ``trunc_accessor.engine.holes``)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

import polars as pl

from trunc_accessor._typing import Frame, Metrics
from trunc_accessor.core import sources as _sources
from trunc_accessor.core.columns import is_pandas, normalise_by
from trunc_accessor.engine import bounds as _bounds
from trunc_accessor.engine import options as _options
from trunc_accessor.errors import InputError
from trunc_accessor.metrics.names import parse_many

Out = TypeVar("Out")


class Incomplete(Generic[Out]):
    """``bounds`` and ``evaluate(source=)``, on top of a frontend's ``_evaluate``."""

    _frame: Any
    _evaluate: Callable[..., Any]
    evaluate: Callable[..., Any]

    def sample_holes(self, qrels: Frame, metrics: Metrics, probabilities: Frame, *,
                     draws: int = 1000, seed: int | None = 0, grade: float | None = None,
                     ties: str | None = None, by: str | Sequence[str] | None = None,
                     queries: Iterable[Any] | None = None, relevance_level: float = 1,
                     undefined: str | None = None) -> Out:
        """Each measure on random completions of the unjudged retrieved documents.

        In each of ``draws`` draws, every unjudged document a ranking retrieved is judged
        relevant at ``grade`` (None: the largest grade of the qrels) with its probability
        ``p`` from ``probabilities``, independently of the others, and non-relevant (grade 0)
        otherwise; the measures are scored on each completed ranking, as ``bounds`` scores
        its two completions. A Monte Carlo estimate, reproducible with ``seed``: the mean of
        a ranking's draws estimates the measure's expectation under the probabilities
        (its standard error is the draws' standard deviation over √draws), and their
        quantiles give an interval for it; for the mean over queries, average each draw over
        the queries first (``groupby("draw")``), then take the quantiles. Every draw lies
        between ``bounds``' two completions where the measure is monotone.

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        metrics : str, list, or ir_measures measure objects
            As in ``bounds``.
        probabilities : DataFrame
            qid and docid (as the qrels name them) and ``p``, the probability that the
            document is relevant, in [0, 1]; every unjudged retrieved document needs one
            (pairs the qrels judge keep their judgment).
        draws : int, default 1000
            Completions drawn.
        seed : int, optional
            Seed of NumPy's random generator (None: fresh randomness).
        grade, ties, by, queries, relevance_level, undefined
            As in ``bounds``.

        Returns
        -------
        A long frame: the keys (by…, qid), ``draw`` (0 … draws − 1) and one column per
        measure. pandas: a DataFrame with those columns; Polars: a DataFrame (a LazyFrame
        for a LazyFrame run, computed eagerly). Dask runs are refused: compute them first.
        """
        from trunc_accessor.core.numbers import whole_number
        from trunc_accessor.engine.evaluation import _eager
        from trunc_accessor.engine.holes import sample

        options = _options.options(ties=ties, relevance_level=relevance_level,
                                   undefined=undefined)
        fill = _bounds.check_fill(grade)
        draws = whole_number(draws, "draws", minimum=1)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InputError(f"seed= must be a whole number or None, not {seed!r}")
        named = [n for n in parse_many(metrics) if n.measure is not None]
        frame = self._frame
        if not (is_pandas(frame) or isinstance(frame, (pl.DataFrame, pl.LazyFrame))):
            raise InputError("sample_holes works on pandas and Polars runs: compute the Dask "
                             "run first (.compute())")
        out = sample(_eager(frame), qrels, probabilities, named, options, grade=fill,
                     draws=draws, seed=seed, by=by, queries=queries)
        if is_pandas(frame):
            from trunc_accessor.core.frames import to_pandas

            return to_pandas(out)
        return out.lazy() if isinstance(frame, pl.LazyFrame) else out  # type: ignore[return-value]

    def _by_source(self, qrels: Frame, metrics: Metrics, source: str, **kw: Any) -> Any:
        """``evaluate`` on the judgments of each source and on their union ("all"), stacked
        with a key column named ``source`` first (pandas: the outer index level)."""
        if source in normalise_by(kw.get("by")):
            raise InputError(f"source={source!r} is also a by= column: the result keys its "
                             "rows by the source")
        parts = _sources.split(qrels, source)
        return _stack({name: self.evaluate(q, metrics, **kw) for name, q in parts.items()},
                      source)

    def bounds(self, qrels: Frame, metrics: Metrics, *, grade: float | None = None,
               ties: str | None = None, by: str | Sequence[str] | None = None,
               queries: Iterable[Any] | None = None, relevance_level: float = 1,
               undefined: str | None = None, like: str | None = None) -> Out:
        """Each measure as judged and its bounds over the unjudged retrieved documents.

        For every ranking, ``<m>_lo`` and ``<m>_hi`` are the smaller and the larger of two
        values of the measure: with every unjudged document the ranking retrieved judged
        non-relevant (grade 0), and with every one judged relevant at ``grade`` (None: the
        largest grade of the qrels). Each ranking's holes are filled for that ranking only,
        and only retrieved documents are filled. The bounds are values on completed
        judgments: a filled document is judged, so Judged@k is 1 on both sides and bpref
        and infAP count a hole filled at 0 as judged non-relevant; for the sampled-pool
        estimators a filled hole is judged for certain (a stratum of its own, wholly
        judged; inclusion probability 1), the rest of the sampling design kept. Where the
        measure is monotone in every document's grade (precision, DCG, RR, RBP, ERR, recall
        at full depth, …), [lo, hi] is the range of the measure over every grading of the holes
        between 0 and ``grade``; for the measures of
        ``trunc_accessor.engine.bounds.NOT_MONOTONE`` (AP, nDCG, R-precision, recall@k,
        bpref, …: a relevant hole also raises R or the ideal ranking) it is the range
        between the two extreme gradings only. The holes of different rankings are
        disjoint, so the mean of ``<m>_lo`` over queries is the lower bound of the mean,
        and likewise for ``<m>_hi``. The upper bound of RBP is RBP plus its residual
        (Moffat & Zobel 2008) without the p^n of the positions past the ranking. With a
        probability of relevance for each hole, ``sample_holes`` draws completions between
        these two.

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        metrics : str, list, or ir_measures measure objects
            As in ``evaluate`` (the diversity measures, which read subtopics, are refused).
        grade : float, optional
            The grade of a hole on the upper side; default the qrels' largest grade.
        ties, by, queries, relevance_level, undefined, like
            As in ``evaluate``.

        Returns
        -------
        One wide per-query frame as ``evaluate`` returns, with three columns per measure:
        ``<m>`` (as judged), ``<m>_lo`` and ``<m>_hi``.

        >>> import trunc_accessor as ta
        >>> run, qrels = ta.load_example()
        >>> run.ir.bounds(qrels, "P@5").columns.tolist()
        ['P@5', 'P@5_lo', 'P@5_hi']
        """
        options = _options.options(ties=ties, relevance_level=relevance_level,
                                   undefined=undefined, like=like)
        fill = _bounds.check_fill(grade)
        named = _bounds.bound_names(parse_many(metrics), fill)
        return self._evaluate(qrels, named, single=False, options=options, by=by,
                              queries=queries)


def _stack(results: dict, column: str) -> Any:
    """The results of one call per source, one under the other, keyed by ``column``."""
    first = next(iter(results.values()))
    if isinstance(first, (pl.DataFrame, pl.LazyFrame)):
        names = (first.collect_schema().names() if isinstance(first, pl.LazyFrame)
                 else first.columns)
        return pl.concat([r.select(pl.lit(k).alias(column), *names)
                          for k, r in results.items()])
    if is_pandas(first):
        import pandas as pd

        return pd.concat(results, names=[column])
    import dask.dataframe as dd  # a Dask result: the source as a column

    return dd.concat([r.assign(**{column: k}) for k, r in results.items()])
