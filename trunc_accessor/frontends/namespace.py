"""The methods every ``.ir`` namespace shares.

``Namespace`` holds the tools (``evaluate``, ``truncate``, ``cutoff_curve``, ``crp``, ``fuse``,
…); ``trunc_accessor.frontends._generated.Accessor`` adds one written-out, annotated method per
built-in metric (``ndcg``, ``ap``, …), generated from the registry by
``python -m trunc_accessor.frontends._codegen``. A frontend class subclasses
``Accessor[Values, Out]`` (``Values``: what a metric method returns, ``Out``: what a tool
returns) and meets the ``Frontend`` protocol below: ``_evaluate(qrels, named, *, single,
options, by, queries)``, ``_truncate(depth, marker, by)``, ``_curve(qrels, measure, *,
optimal, max_depth, options, by, queries)`` and ``_crp(qrels, kind, *, depth, options, by,
queries)``. The public methods here are the frontends' edge: they check the call's options once
(``trunc_accessor.engine.options``) and hand the checked ``Options`` down.
A metric declared later (``trunc_accessor.metrics.user.define``) is looked up in the
registry when ``run.ir.NAME`` is asked for, so the metrics layer never reaches up here; how
a metric becomes a method is ``trunc_accessor.frontends.methods``.
"""
from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import polars as pl

from trunc_accessor import metrics as _metrics  # noqa: F401  (registers the metrics)
from trunc_accessor._typing import Figure, Frame, Metrics
from trunc_accessor.core import frames
from trunc_accessor.core.columns import is_pandas
from trunc_accessor.engine import options as _options
from trunc_accessor.engine.options import Options
from trunc_accessor.errors import InputError, InputTypeError
from trunc_accessor.frontends.incomplete import Incomplete
from trunc_accessor.frontends.methods import Resolving, metric_method, reserve, user_metric
from trunc_accessor.frontends.risk import Risk
from trunc_accessor.metrics.names import parse_many
from trunc_accessor.metrics.parse import parse
from trunc_accessor.metrics.registry import REGISTRY, Measure, Named

#: What a metric method returns (pandas: Series; Polars: DataFrame; lazy: LazyFrame; Dask:
#: a Dask Series), and what the tools return (the frame type of the caller's library).
Values = TypeVar("Values")
Out = TypeVar("Out")

class Frontend(Protocol):
    """What a frontend class provides under the shared methods of ``Namespace``: the run's
    frame and four calls in its own library, each given options already checked."""

    _frame: Any

    def _evaluate(self, qrels: Frame, named: list[Named], *, single: bool, options: Options,
                  by: str | Sequence[str] | None, queries: Iterable[Any] | None) -> Any:
        """Per-query values of ``named`` (one column per measure; ``single``: a metric
        method's answer, one column)."""

    def _truncate(self, depth: Any, marker: Any, by: str | Sequence[str] | None) -> Any:
        """The run cut at ``depth`` per ranking (a number or per-ranking depths)."""

    def _curve(self, qrels: Frame, measure: Measure, *, optimal: bool, max_depth: int | None,
               options: Options, by: str | Sequence[str] | None,
               queries: Iterable[Any] | None) -> Any:
        """The measure at every cut-off depth, or (``optimal``) the best depth per ranking."""

    def _crp(self, qrels: Frame, kind: str, *, depth: int | None, options: Options,
             by: str | Sequence[str] | None, queries: Iterable[Any] | None) -> Any:
        """Twist's CRP curves (``kind="curve"``) or their archetypes (``"archetype"``)."""


class Namespace(Incomplete[Out], Risk[Out], Generic[Values, Out], metaclass=Resolving):
    """The ``.ir`` methods shared by every frontend (see the module doc)."""

    _frame: Any
    _evaluate: Callable[..., Any]
    _truncate: Callable[..., Any]
    _curve: Callable[..., Any]
    _crp: Callable[..., Any]

    def _metric(self, name: str, params: dict[str, Any], qrels: Frame, **common: Any) -> Values:
        """The values of the registered metric ``name`` with ``params`` (one column)."""
        measure = REGISTRY[name].measure(**params)
        by, queries = common.pop("by"), common.pop("queries")
        return self._evaluate(qrels, [Named(measure.label, measure)], single=True,
                              options=_options.options(**common), by=by, queries=queries)

    def __dir__(self) -> list[str]:
        """The attributes, with the metrics declared at run time (tab completion)."""
        return sorted({*super().__dir__(), *(n for n, m in REGISTRY.items() if m.user)})

    if not TYPE_CHECKING:  # type checkers see the written-out methods only
        def __getattr__(self, name):
            """``run.ir.NAME`` of a metric declared at run time (looked up on every call, so
            a metric declared again, or unregistered, is seen at once)."""
            metric = user_metric(name) if not name.startswith("_") else None
            if metric is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            return types.MethodType(metric_method(metric), self)

    def evaluate(self, qrels: Frame, metrics: Metrics, *, ties: str | None = None,
                 by: str | Sequence[str] | None = None, queries: Iterable[Any] | None = None,
                 relevance_level: float = 1, judged_only: bool = False,
                 undefined: str | None = None, names: str = "as_written",
                 ignore_identical_ids: bool = False, like: str | None = None,
                 source: str | None = None) -> Out:
        """Many metrics in one call, sharing one preparation (join, order, tie groups).

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        metrics : str, list, or ir_measures measure objects
            Names in any of four dialects: ours (``"ndcg@10"``, ``"rbp(p=0.5)"``, ``"rbp'"``,
            ``(name, {param: value})`` pairs), trec_eval's (``"map"``, ``"P_10"``, ``"P.5,10"``,
            ``"ndcg_cut_10"``, ``"all_trec"``), ir_measures'/PyTerrier's (``"nDCG@10"``,
            ``"P(rel=2)@5"``, ``"RBP(p=0.8,rel=2)"``) and ranx's (``"mrr"``, ``"hit_rate@10"``,
            ``"precision@5-l2"``); see ``trunc-accessor --list``. ``"official"``: trec_eval's
            official measures, or, for qrels read with ``read_qrels("irds:<id>")``, the
            dataset's official measures when its documentation names some.
        ties : {"average", "first", "trec_eval", "trec_eval9"}, optional
            As on every metric method; default "average", or the order ``like=`` names.
        by, queries, relevance_level
            As on every metric method.
        judged_only : bool, default False
            Remove documents without a judgment of grade ≥ 0 before scoring (trec_eval -J,
            condensed lists).
        undefined : {"zero", "nan"}, optional
            A value the metric leaves undefined (AP, nDCG or recall of a query with no relevant
            document, …) is 0 (the default), as trec_eval, pytrec_eval, ir_measures and ranx
            give it, so that the mean over queries is theirs; "nan": NaN (pandas) / null
            (Polars), left out of means. Metrics defined everywhere (the terminal-document
            metrics) are unchanged.
        names : {"as_written", "canonical"}
            Column names: the names as written (a trec_eval cut-off list ``"P.5,10"`` gives
            ``P_5`` and ``P_10``), or this library's canonical labels (``"precision@10"``).
        ignore_identical_ids : bool, default False
            Leave out the run's rows whose docid equals their qid (compared as strings), as
            BEIR's evaluation does for ArguAna and Quora, whose queries are also documents.
        like : {"trec_eval", "pytrec_eval", "ir_measures", "ranx"}, optional
            Give that program's numbers: sets the order of tied scores, undefined values (0),
            which queries are scored and how qrels that judge a document once per subtopic are
            read, as that program does. "trec_eval": ``ties="trec_eval"``, every judged query
            (its ``-c``), such qrels refused (trec_eval stops on them). "pytrec_eval":
            ``ties="trec_eval9"``, only the queries each ranking answers (pytrec_eval returns
            no value for the others), a document's last qrels line wins. "ir_measures": each
            measure in the order of the ir_measures provider that computes it (pytrec_eval's
            for AP, nDCG, P, R, RR…; score then docid ascending for RR@k, Judged@k, Compat and
            the diversity measures; score then the frame's order for RBP(rel=…), the C/W/L
            measures, ERR and Accuracy; tie-averaged for RBP without rel=), every judged
            query, a document's last qrels line wins. "ranx": every judged query (ranx'
            ``make_comparable=True``), a document's last qrels line wins; ranx orders equal
            scores by an unstable sort that no option reproduces, so ``ties=`` stays yours
            (default "average"). ``ties=``/``undefined=`` that contradict the preset are
            refused. ``trunc_accessor.aggregate`` of the result gives trec_eval's and
            ir_measures' summary (counts such as ``num_rel_ret`` summed over queries, the rest
            averaged); ranx averages every measure, ``hits`` included, so for ranx's summary
            take the column means. pytrec_eval returns per-query values only.
        source : str, optional
            A qrels column saying who judged each pair: the measures on each source's judgments
            and on their union "all", stacked under a key of that name (``core.sources``).

        Returns
        -------
        One wide per-query frame, a column per metric. pandas: a DataFrame indexed by qid (or
        by…, qid); Polars: key columns then metric columns. Two spellings of one metric are
        computed once. The system score is the column mean; see ``trunc_accessor.aggregate``.
        """
        options = _options.options(ties=ties, relevance_level=relevance_level,
                                   undefined=undefined, judged_only=judged_only, like=like)
        if source is not None:  # (options checked: each source's call checks them again)
            return self._by_source(qrels, metrics, source, ties=ties, by=by, queries=queries,
                relevance_level=relevance_level, judged_only=judged_only, undefined=undefined,
                names=names, like=like, ignore_identical_ids=ignore_identical_ids)
        names = _options.check_names(names)
        named = parse_many(_official(metrics, qrels))
        if ignore_identical_ids:
            self = _with_frame(self, frames.drop_identical_ids(self._frame))
        if names == "canonical":
            # (parse_many gives measures only: trec_eval's runid and relstring are left out)
            named = list({n.measure.label: Named(n.measure.label, n.measure, n.summary)
                          for n in named if n.measure is not None}.values())
        return self._evaluate(qrels, named, single=False, options=options, by=by,
                              queries=queries)

    def fuse(self, method: str = "rrf", norm: str = "min-max", *, by: str = "system",
             ties: str = "average", missing: str = "method", depth: int | None = None,
             **params: Any) -> Frame:
        """Fuse the runs of this long frame (its ``by`` column tells them apart) into one run:
        every method and normalisation of ranx (CombSUM … BayesFuse; min-max … borda), with
        ``ties=`` for the position-based ones. See ``trunc_accessor.fuse``.

        >>> import trunc_accessor as ta
        >>> runs, qrels = ta.load_example("cranfield")
        >>> fused = runs[runs["system"].isin(["bm25", "tfidf"])].ir.fuse("rrf")
        >>> fused.columns.tolist()
        ['qid', 'docid', 'score', 'rank']
        """
        from trunc_accessor.fusion.model import fuse as _fuse

        return _fuse(self._frame, method, norm, by=by, ties=ties, missing=missing, depth=depth,
                     **params)

    def truncate(self, k: int | Frame, *, by: str | Sequence[str] | None = None) -> Out:
        """Keep the first ``k`` documents of every ranking (the length of a ranking is
        the system's decision).

        ``k``: a whole number ≥ 0, or per-ranking depths: a pandas Series indexed by qid (or by…,
        qid), or a frame with those keys and a ``depth`` column, as ``optimal_cutoff`` returns;
        rankings it does not name (or whose depth is missing) are kept whole. The order is the
        ranking's (rank ascending, else score descending, equal values in input order). Returns
        a frame of the same kind with the same columns and row order (a LazyFrame stays lazy).

        >>> import trunc_accessor as ta
        >>> run, qrels = ta.load_example()
        >>> run.ir.truncate(10).groupby("qid").size().tolist()
        [10, 10, 10]
        """
        return self._truncate(depth=k, marker=None, by=by)

    def truncate_at(self, marker: str | int = "NIL", *,
                    by: str | Sequence[str] | None = None) -> Out:
        """Liu et al. 2016, Table 2: where a ranking holds the document ``marker`` ("no more
        answers") at rank i, keep a₁…a_{i−1}; a ranking that starts with it becomes empty (and,
        its qid being judged, is scored as an empty ranking). Rankings without it are unchanged.
        Pass ``depth=`` to the terminal metrics to tell full-length rankings apart.
        ``marker`` has the docid column's type (a string, or an integer for integer docids)."""
        if marker is None:
            raise InputTypeError("truncate_at: marker must be a docid such as 'NIL', not None")
        return self._truncate(depth=None, marker=marker, by=by)

    def cutoff_curve(self, qrels: Frame, metric: str | Measure, *, max_depth: int | None = None,
                     ties: str = "average", by: str | Sequence[str] | None = None,
                     queries: Iterable[Any] | None = None, relevance_level: float = 1,
                     undefined: str = "zero", **params: Any) -> Out:
        """The metric at every cut-off of every ranking: long format (by…, qid, depth, value),
        depth 0 (the empty ranking) to n.

        With ``ties="average"`` the cut-offs are the ends of tie groups (a system that tied
        documents cannot stop between them); with "first"/"trec_eval" every position.
        ``metric``: a string (``"rbp_prime"``, ``"ndcg@10"``) or Measure, and ``**params`` its
        parameters. One pass over each ranking gives every cut-off (running sums and products
        of the metric's terms, and the closed forms of the terminal metrics of Liu et al. 2016),
        so the work is linear in the ranking's length; the values are those of the metric
        evaluated on each truncated ranking. A few metrics have no such form (interpolated
        precision, infAP, OIE, compat, trec_eval's G, ndcg_rel and Rndcg, the Twist family,
        metrics of your own): their every prefix is scored (Σ depth, quadratic in the ranking's
        length), and ``max_depth`` bounds that work. ``undefined``: as in ``evaluate`` ("zero":
        an undefined value is 0; "nan": null/NaN)."""
        return self._checked_curve(qrels, metric, params, optimal=False, max_depth=max_depth,
                                   ties=ties, by=by, queries=queries,
                                   relevance_level=relevance_level, undefined=undefined)

    def optimal_cutoff(self, qrels: Frame, metric: str | Measure, *,
                       max_depth: int | None = None, ties: str = "average",
                       by: str | Sequence[str] | None = None,
                       queries: Iterable[Any] | None = None, relevance_level: float = 1,
                       undefined: str = "zero", **params: Any) -> Out:
        """Per ranking, the cut-off depth that maximises the metric and the value there
        (Amigó, Mizzaro & Spina 2022, §4.2: the oracle truncation); ties between depths go to
        the shortest. pandas: a DataFrame indexed by qid (or by…, qid) with columns depth and
        value; Polars: key columns, depth, value. ``run.ir.truncate(best["depth"])`` (pandas) or
        ``run.ir.truncate(best)`` (Polars) gives the oracle-truncated run. An undefined value
        counts as 0 (``undefined="zero"``, so such a ranking's best depth is 0 when every value
        is undefined); with ``undefined="nan"`` undefined values are never optimal and a ranking
        whose values are all undefined gets a missing depth (and is left whole by ``truncate``)."""
        return self._checked_curve(qrels, metric, params, optimal=True, max_depth=max_depth,
                                   ties=ties, by=by, queries=queries,
                                   relevance_level=relevance_level, undefined=undefined)

    def _checked_curve(self, qrels: Frame, metric: str | Measure, params: dict[str, Any], *,
                       optimal: bool, max_depth: int | None, ties: str,
                       by: str | Sequence[str] | None, queries: Iterable[Any] | None,
                       relevance_level: float, undefined: str) -> Out:
        """``cutoff_curve``/``optimal_cutoff`` with the measure and the options checked."""
        measure = _measure(metric, params)
        options = _options.options(ties=ties, relevance_level=relevance_level,
                                   undefined=undefined)
        return self._curve(qrels, measure, optimal=optimal,
                           max_depth=_options.check_depth(max_depth, "max_depth"),
                           options=options, by=by, queries=queries)

    def crp(self, qrels: Frame, *, depth: int | None = None, ties: str = "average",
            by: str | Sequence[str] | None = None, queries: Iterable[Any] | None = None,
            relevance_level: float = 1) -> Out:
        """Relative position and cumulated relative position at every rank (Ferro et al.,
        Definitions 1–2): long format (by…, qid, position, grade, rp, crp).

        ``rp`` is the misplacement of the document at that rank with respect to its grade's
        interval in the ideal run (0 inside it, negative above it, positive below it) and ``crp``
        its running sum; ``grade`` is the document's grade (null if unjudged). ``depth=N`` pads
        a shorter ranking with non-relevant documents (rows with a null grade) and cuts a longer
        one to N, as MATTERS does. R = 0: rp and crp are null. An empty ranking has no rows
        (unless ``depth`` pads it). With ``ties="average"`` rp and crp are the exact means over
        the orders of tied documents (grade is the grade in the frame's order).
        With ``depth=N`` the frame has N rows per ranking (padding included), so its size grows
        with N; the Twist metrics and ``crp_archetype`` do not materialise the padding and cost
        the same for any depth.
        pandas: a DataFrame; Polars: a frame (a LazyFrame stays lazy).

        >>> import trunc_accessor as ta
        >>> run, qrels = ta.load_example()
        >>> run.ir.crp(qrels).columns.tolist()
        ['qid', 'position', 'grade', 'rp', 'crp']
        """
        return self._checked_crp(qrels, "curve", depth=depth, ties=ties, by=by,
                                 queries=queries, relevance_level=relevance_level)

    def crp_archetype(self, qrels: Frame, *, depth: int | None = None, ties: str = "average",
                      by: str | Sequence[str] | None = None,
                      queries: Iterable[Any] | None = None, relevance_level: float = 1) -> Out:
        """The run archetype of every ranking's CRP curve (Ferro et al. Figures 3–6): "ideal",
        "worst", "full-scale", "excellent", "ups-and-downs", "typical A" or "typical B", with the
        recall_base RB, the length L (after ``depth``) and the first crossing (null if none).

        Rules, first match wins: ideal: CRP is 0 at every rank; worst: no relevant document
        retrieved (the empty ranking included); full-scale: L ≥ 2·RB and the curve is the
        full-scale run's (the ideal run reversed); excellent: CRP turns positive at a rank
        x ≤ RB and stays positive; ups-and-downs: turns positive at x < RB, then drops to ≤ 0
        again; typical A: first turns positive after RB; typical B: the rest (relevant documents
        retrieved, CRP never positive). Crossings as the recovery ratio (MATTERS: CRP = 0 counts
        as below the axis). Null when R = 0. Under ``ties="average"`` this raises when a tie
        group mixes grades (as ``twist``): pass ties="first" or "trec_eval".
        pandas: a DataFrame indexed by qid (or by…, qid); Polars: key columns first.
        """
        return self._checked_crp(qrels, "archetype", depth=depth, ties=ties, by=by,
                                 queries=queries, relevance_level=relevance_level)

    def _checked_crp(self, qrels: Frame, kind: str, *, depth: int | None, ties: str,
                     by: str | Sequence[str] | None, queries: Iterable[Any] | None,
                     relevance_level: float) -> Out:
        """``crp``/``crp_archetype`` with the options checked."""
        options = _options.options(ties=ties, relevance_level=relevance_level)
        return self._crp(qrels, kind, depth=_options.check_depth(depth), options=options,
                         by=by, queries=queries)

    def plot_crp(self, qrels: Frame, qids: Any = None, *, depth: int | None = None,
                 ties: str = "average", by: str | Sequence[str] | None = None,
                 relevance_level: float = 1, ncols: int = 3,
                 figsize: tuple[float, float] | None = None) -> Figure:
        """CRP curves, one panel per query (Ferro et al. Figure 2 style), with the ideal run
        (CRP = 0), the full-scale run of the same length and the recall base RB marked; one
        curve per system with ``by=``. Needs matplotlib (the ``plots`` extra). Returns the
        matplotlib Figure (never shown). See ``trunc_accessor.plot.plot_crp``."""
        from trunc_accessor.plot.curves import plot_crp as _plot

        return _plot(self._frame, qrels, qids=qids, depth=depth, ties=ties, by=by,
                     relevance_level=relevance_level, ncols=ncols, figsize=figsize)

    def rbo(self, other: Frame, p: float = 0.9, *, depth: int | None = None) -> Frame:
        """Rank-biased overlap with ``other`` (another run frame), per query (Webber, Moffat &
        Zobel, TOIS 2010): ``rbo_min`` (eq. 11), ``rbo_ext`` (eq. 32, rankings of different
        lengths) and the ``residual`` (eq. 13); rankings ordered as everywhere, ``depth`` keeps
        the top of each. See ``trunc_accessor.agreement.rbo``."""
        from trunc_accessor.engine.evaluation import _eager
        from trunc_accessor.stats.rbo import rbo as _rbo

        return _rbo(_eager(self._frame), _eager(other), p=p, depth=depth)

    def overlap(self, other: Frame, k: int) -> Frame:
        """|top-k ∩ top-k| / k with ``other`` (another run frame), per query (``agreement``)."""
        from trunc_accessor.engine.evaluation import _eager
        from trunc_accessor.stats.rbo import overlap as _overlap

        return _overlap(_eager(self._frame), _eager(other), k)


def _official(metrics, qrels):
    """``"official"`` (alone or in a list) for qrels read from ir_datasets whose dataset
    names official measures: those measures."""
    from trunc_accessor.io.irds import official_of

    def is_official(m):
        return isinstance(m, str) and m == "official"

    listed = isinstance(metrics, (list, tuple))
    if not (is_official(metrics) or (listed and any(is_official(m) for m in metrics))):
        return metrics
    found = official_of(qrels)
    if not found:
        return metrics
    if not listed:
        return found
    return [x for m in metrics for x in (found if is_official(m) else [m])]


def _with_frame(accessor, frame):
    """A copy of an accessor object over another frame."""
    import copy

    if not (is_pandas(frame) or isinstance(frame, (pl.DataFrame, pl.LazyFrame))):
        raise InputError("ignore_identical_ids works on pandas and Polars runs; filter the "
                         "run first (rows whose docid equals their qid)")
    clone = copy.copy(accessor)
    clone._frame = frame
    return clone


def _measure(metric, params: dict):
    m = parse(metric)
    return m.metric.measure(**{**m.kwargs, **params}) if params else m


reserve(Namespace)
