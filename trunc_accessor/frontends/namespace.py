"""One accessor method per registered metric, shared by every frontend.

A frontend class defines ``_evaluate(qrels, measures, by, queries, ties, relevance_level,
single)``, ``_truncate``, ``_curve`` and ``_crp(qrels, kind, depth, by, queries, ties,
relevance_level)``; ``install`` adds ``evaluate``, the truncation and effort tools and a
method per metric (``ndcg``, ``ap``, …) whose signature and docstring come from the metric's
registration.
"""
from __future__ import annotations

import inspect

import polars as pl

from trunc_accessor import metrics as _metrics  # noqa: F401  (registers the metrics)
from trunc_accessor.core import frames
from trunc_accessor.core.columns import is_pandas
from trunc_accessor.engine import presets
from trunc_accessor.errors import InputError, InputTypeError
from trunc_accessor.metrics.docs import method_doc
from trunc_accessor.metrics.names import parse_many
from trunc_accessor.metrics.parse import parse
from trunc_accessor.metrics.registry import REGISTRY, Metric, Named

_COMMON = (("ties", "average"), ("by", None), ("queries", None), ("relevance_level", 1),
           ("judged_only", False), ("undefined", "zero"))
# what the generated signatures say each argument is (help(), IDEs, the docs)
_COMMON_TYPES = {"ties": "str", "by": "str | list[str] | None", "queries": "list | None",
                 "relevance_level": "float", "judged_only": "bool", "undefined": "str"}


def annotation(p) -> str:
    """The annotation of a metric parameter, from its default (None: a number or None)."""
    if p.default is None:
        return "int | None" if p.name in ("k", "depth") else "float | None"
    if isinstance(p.default, bool):
        return "bool"
    return {int: "int", float: "float", str: "str", tuple: "tuple"}.get(type(p.default), "Any")


def _metric_method(metric: Metric):
    kind = inspect.Parameter
    params = [kind("self", kind.POSITIONAL_OR_KEYWORD),
              kind("qrels", kind.POSITIONAL_OR_KEYWORD,
                   annotation="pandas or Polars DataFrame (qid, docid, rel)")]
    params += [kind(p.name, kind.POSITIONAL_OR_KEYWORD, default=p.default,
                    annotation=annotation(p)) for p in metric.params]
    params += [kind(n, kind.KEYWORD_ONLY, default=d, annotation=_COMMON_TYPES[n])
               for n, d in _COMMON]
    signature = inspect.Signature(params, return_annotation="per-query values in the run's "
                                  "library (pandas Series, Polars DataFrame or LazyFrame)")

    def method(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        a = dict(bound.arguments)
        a.pop("self")
        qrels = a.pop("qrels")
        common = {n: a.pop(n) for n, _ in _COMMON}
        measure = metric.measure(**a)
        return self._evaluate(qrels, [Named(measure.label, measure)], single=True, **common)

    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__name__ = method.__qualname__ = metric.name
    method.__doc__ = method_doc(metric)
    return method


def evaluate(self, qrels, metrics, *, ties=None, by=None, queries=None, relevance_level=1,
             judged_only=False, undefined=None, names="as_written",
             ignore_identical_ids=False, like=None):
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

    Returns
    -------
    One wide per-query frame, a column per metric. pandas: a DataFrame indexed by qid (or
    by…, qid); Polars: key columns then metric columns. Two spellings of one metric are
    computed once. The system score is the column mean; see ``trunc_accessor.aggregate``.
    """
    presets.check_like(like)
    named = parse_many(_official(metrics, qrels))
    if ignore_identical_ids:
        self = _with_frame(self, frames.drop_identical_ids(self._frame))
    if names == "canonical":
        named = list({n.measure.label: Named(n.measure.label, n.measure, n.summary)
                      for n in named}.values())
    elif names != "as_written":
        raise InputError(f"names= must be 'as_written' or 'canonical', not {names!r}")
    ties, undefined = presets.settings(like, ties, undefined)
    return self._evaluate(qrels, named, single=False, ties=ties, by=by, queries=queries,
                          relevance_level=relevance_level, judged_only=judged_only,
                          undefined=undefined, like=like)


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


def fuse(self, method="rrf", norm="min-max", *, by="system", ties="average", missing="method",
         depth=None, **params):
    """Fuse the runs of this long frame (its ``by`` column tells them apart) into one run:
    every method and normalisation of ranx (CombSUM … BayesFuse; min-max … borda), with
    ``ties=`` for the position-based ones. See ``trunc_accessor.fuse``.

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield")
    >>> fused = runs[runs["system"].isin(["bm25", "tfidf"])].ir.fuse("rrf")
    >>> fused.columns.tolist()
    ['qid', 'docid', 'score', 'rank']
    """
    from trunc_accessor.fusion import fuse as _fuse

    return _fuse(self._frame, method, norm, by=by, ties=ties, missing=missing, depth=depth,
                 **params)


def _measure(metric, params: dict):
    m = parse(metric)
    return m.metric.measure(**{**m.kwargs, **params}) if params else m


def truncate(self, k, *, by=None):
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


def truncate_at(self, marker="NIL", *, by=None):
    """Liu et al. 2016, Table 2: where a ranking holds the document ``marker`` ("no more
    answers") at rank i, keep a₁…a_{i−1}; a ranking that starts with it becomes empty (and,
    its qid being judged, is scored as an empty ranking). Rankings without it are unchanged.
    Pass ``depth=`` to the terminal metrics to tell full-length rankings apart.
    ``marker`` has the docid column's type (a string, or an integer for integer docids)."""
    if marker is None:
        raise InputTypeError("truncate_at: marker must be a docid such as 'NIL', not None")
    return self._truncate(depth=None, marker=marker, by=by)


def cutoff_curve(self, qrels, metric, *, max_depth=None, ties="average", by=None, queries=None,
                 relevance_level=1, undefined="zero", **params):
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
    return self._curve(qrels, _measure(metric, params), optimal=False, max_depth=max_depth,
                       ties=ties, by=by, queries=queries, relevance_level=relevance_level,
                       undefined=undefined)


def optimal_cutoff(self, qrels, metric, *, max_depth=None, ties="average", by=None,
                   queries=None, relevance_level=1, undefined="zero", **params):
    """Per ranking, the cut-off depth that maximises the metric and the value there
    (Amigó, Mizzaro & Spina 2022, §4.2: the oracle truncation); ties between depths go to
    the shortest. pandas: a DataFrame indexed by qid (or by…, qid) with columns depth and
    value; Polars: key columns, depth, value. ``run.ir.truncate(best["depth"])`` (pandas) or
    ``run.ir.truncate(best)`` (Polars) gives the oracle-truncated run. An undefined value
    counts as 0 (``undefined="zero"``, so such a ranking's best depth is 0 when every value
    is undefined); with ``undefined="nan"`` undefined values are never optimal and a ranking
    whose values are all undefined gets a missing depth (and is left whole by ``truncate``)."""
    return self._curve(qrels, _measure(metric, params), optimal=True, max_depth=max_depth,
                       ties=ties, by=by, queries=queries, relevance_level=relevance_level,
                       undefined=undefined)


def crp(self, qrels, *, depth=None, ties="average", by=None, queries=None, relevance_level=1):
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
    return self._crp(qrels, "curve", depth=depth, ties=ties, by=by, queries=queries,
                     relevance_level=relevance_level)


def crp_archetype(self, qrels, *, depth=None, ties="average", by=None, queries=None,
                  relevance_level=1):
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
    return self._crp(qrels, "archetype", depth=depth, ties=ties, by=by, queries=queries,
                     relevance_level=relevance_level)


def plot_crp(self, qrels, qids=None, *, depth=None, ties="average", by=None,
             relevance_level=1, ncols=3, figsize=None):
    """CRP curves, one panel per query (Ferro et al. Figure 2 style), with the ideal run
    (CRP = 0), the full-scale run of the same length and the recall base RB marked; one
    curve per system with ``by=``. Needs matplotlib (the ``plots`` extra). Returns the
    matplotlib Figure (never shown). See ``trunc_accessor.plot.plot_crp``."""
    from trunc_accessor.plot.figures import plot_crp as _plot

    return _plot(self._frame, qrels, qids=qids, depth=depth, ties=ties, by=by,
                 relevance_level=relevance_level, ncols=ncols, figsize=figsize)


def rbo(self, other, p=0.9, *, depth=None):
    """Rank-biased overlap with ``other`` (another run frame), per query (Webber, Moffat &
    Zobel, TOIS 2010): ``rbo_min`` (eq. 11), ``rbo_ext`` (eq. 32, rankings of different
    lengths) and the ``residual`` (eq. 13). Rankings are ordered as everywhere (rank
    ascending, else score descending, equal scores in input order); ``depth`` keeps the top
    of each. See ``trunc_accessor.agreement.rbo``."""
    from trunc_accessor.engine.evaluation import _eager
    from trunc_accessor.stats.agreement import rbo as _rbo

    return _rbo(_eager(self._frame), _eager(other), p=p, depth=depth)


def overlap(self, other, k):
    """|top-k ∩ top-k| / k with ``other`` (another run frame), per query. See
    ``trunc_accessor.agreement.overlap``."""
    from trunc_accessor.engine.evaluation import _eager
    from trunc_accessor.stats.agreement import overlap as _overlap

    return _overlap(_eager(self._frame), _eager(other), k)


_INSTALLED: list[type] = []  # the frontend classes, for metrics declared later


def add_metric(metric: Metric) -> None:
    """Give every frontend class built so far the method of ``metric`` (a user metric
    declared after import: ``trunc_accessor.metrics.user.define``)."""
    for cls in _INSTALLED:
        setattr(cls, metric.name, _metric_method(metric))


#: The accessor's methods that are not metrics (every frontend has them): a metric may not
#: take one of these names.
METHODS = {"evaluate": evaluate, "truncate": truncate, "truncate_at": truncate_at,
           "cutoff_curve": cutoff_curve, "optimal_cutoff": optimal_cutoff, "crp": crp,
           "crp_archetype": crp_archetype, "plot_crp": plot_crp, "rbo": rbo,
           "overlap": overlap, "fuse": fuse}


def remove_metric(name: str) -> None:
    """Take the method of an unregistered metric off every frontend class."""
    for cls in _INSTALLED:
        if name in vars(cls):
            delattr(cls, name)


def accessor_attributes() -> set[str]:
    """Every attribute of the accessor classes (pandas, Polars eager and lazy, Dask) that is
    not a metric's method: the methods above and what the classes built so far define."""
    names = set(METHODS)
    for cls in _INSTALLED:
        names.update(dir(cls))
    return names - set(REGISTRY)


def install(cls):
    _INSTALLED.append(cls)
    for name, method in METHODS.items():
        setattr(cls, name, method)
    for name, metric in REGISTRY.items():
        setattr(cls, name, _metric_method(metric))
    return cls
