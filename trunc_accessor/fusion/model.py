"""Fusing runs and fitting a fusion: ``fuse``, ``normalize``, ``fit_fusion`` and the
``FusionModel`` it answers, with the checks of each method's parameters (``optimize`` searches
them; ``trunc_accessor.fusion`` describes the choices about ties, missing documents and the
fused order)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Runs
from trunc_accessor.core import numbers
from trunc_accessor.engine import batches
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.fusion import _stack
from trunc_accessor.fusion._stack import (
    as_library,
    check_fusion_ties,
    fused_frame,
    schema_of,
    source,
)
from trunc_accessor.fusion.learn import Judged, estimate, hits, map_scores, qrels_frame
from trunc_accessor.fusion.methods import (
    REQUIRED,
    Method,
    _padded,
    _per_run,
    as_mapping,
    check_missing,
    check_per_run_forms,
    fused_scores,
    get_method,
    weights_array,
)
from trunc_accessor.fusion.normalization import SCORE_NORMS, check_norm, normalise
from trunc_accessor.metrics.conventions import check_level


# --------------------------------------------------------------------------- parameters
def _real(name, value, lo=None, hi=None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ParameterError(f"{name}= must be a number, not {value!r}")
    v = float(value)
    if not np.isfinite(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = f" in [{lo}, {hi}]" if lo is not None and hi is not None else (
            f" ≥ {lo}" if lo is not None else "")
        raise ParameterError(f"{name}= must be a finite number{rng}, not {value!r}")
    return v


MAX_SEGMENTS = 10 ** 6  # ProbFuse's model holds this many probabilities per run


def _segments(value) -> int:
    """ProbFuse's ``n_segments``: a whole number in [1, MAX_SEGMENTS]."""
    x = numbers.whole_number(value, "n_segments", 1)
    if x > MAX_SEGMENTS:
        raise ParameterError(
            f"n_segments must be a whole number ≤ {MAX_SEGMENTS:,} (the model holds "
            f"n_segments probabilities per run; more segments than a ranking has documents "
            f"hold one position each, the rest none), not {value!r}")
    return x


_CHECKS = {
    "k": lambda v: _real("k", v, 0),
    "phi": lambda v: _real("phi", v, 0, 1),
    "gamma": lambda v: _real("gamma", v),
    "sigma": lambda v: _real("sigma", v, 0, 1),
    "w": lambda v: numbers.whole_number(v, "w", 0),
    "n_segments": lambda v: _segments(v),
}


def check_params(m: Method, params: dict, *, fitting: bool = False) -> dict:
    """The method's parameters: defaults, then ``params`` (checked); a required one that is
    missing is left out (see ``require``)."""
    allowed = dict(m.params)
    if m.learnt:
        allowed[m.learnt] = REQUIRED
    if fitting:
        allowed.update(m.fit_params)
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ParameterError(f"{m.name} takes {sorted(allowed) or 'no parameters'}, not "
                             f"{unknown}")
    out = {k: v for k, v in allowed.items() if v is not REQUIRED}
    for k, v in params.items():
        out[k] = _CHECKS[k](v) if k in _CHECKS else v
    return out


def require(m: Method, p: dict) -> None:
    """Raise for a required or learnt parameter that ``p`` lacks."""
    for k, v in m.params.items():
        if v is REQUIRED and k not in p:
            hint = ("optimize_fusion(runs, qrels, ...) chooses them by a metric"
                    if k == "weights" else "optimize_fusion can choose it")
            raise ParameterError(f"{m.name} needs {k}= ({hint})")
    if m.learnt and m.learnt not in p:
        raise ParameterError(
            f"{m.name} learns {m.learnt} from judged queries: model = fit_fusion(train_runs, "
            f"train_qrels, method={m.name!r}, ...) then model.apply(runs) (or pass "
            f"{m.learnt}= per system, as fit_fusion's model holds them)")


def complete(m: Method, p: dict, names: list) -> dict:
    """The internal parameters: weights and learnt arrays in the runs' order."""
    require(m, p)
    out = dict(p)
    if "weights" in p:
        out["_weights"] = weights_array(p["weights"], names)
    if m.learnt in ("probs", "log_odds"):
        out["_learnt"] = _padded(_per_run(p[m.learnt], names, m.learnt), m.learnt)
    if m.learnt == "map_scores":
        out["map_scores"] = np.array([_real("map_scores", x) for x in
                                      _per_run(p["map_scores"], names, "map_scores")])
    return out


def _setup(method, norm, ties, missing, depth):
    m = get_method(method)
    return (m, check_norm(norm), check_fusion_ties(ties), check_missing(missing, m),
            _stack.check_depth(depth))


def _table(src, norm, ties):
    st = _stack.stack(src, ties, finite=norm in SCORE_NORMS)
    return st, normalise(st, norm)


# --------------------------------------------------------------------------- fuse
def fuse(runs: Runs, method: str | FusionModel = "rrf", norm: str | None = "min-max", *,
         by: str | Sequence[str] = "system", ties: str = "average", missing: str = "method",
         depth: int | None = None, **params: Any) -> Frame:
    """Fuse several runs into one (metasearch), per query.

    Parameters
    ----------
    runs : DataFrame or mapping
        One long frame (pandas, Polars or LazyFrame; columns qid, docid, score[, rank])
        whose ``by`` column(s) tell the runs apart, or a mapping {name: run frame}.
    method : str or FusionModel
        One of ranx 0.3.21's methods, by its name here or ranx's: ``combsum`` (``sum``),
        ``combmnz`` (``mnz``), ``combanz``, ``combgmnz`` (``gamma=``), ``combmax``,
        ``combmin``, ``combmed``, ``wsum`` (``weights=``), ``wmnz``, ``mixed``, ``rrf``
        (``k=60``), ``isr``, ``log_isr``, ``logn_isr`` (``sigma=0.01``), ``bordafuse``,
        ``w_bordafuse``, ``condorcet``, ``w_condorcet``, ``rbc`` (``phi=``), and the
        trained ``posfuse``, ``probfuse``, ``segfuse``, ``slidefuse`` (``w=``),
        ``mapfuse``, ``bayesfuse`` (their learnt parameter from ``fit_fusion``); or a
        ``FusionModel`` (then ``norm``, ``ties`` and the parameters are the model's).
    norm : str or None, default "min-max"
        ``min-max``, ``min-max-inverted``, ``max``, ``sum``, ``zmuv``, ``rank``,
        ``borda`` or None, per query per run (see ``trunc_accessor.fusion.normalization``).
    by : str or list, default "system"
        The column(s) that name the runs of a long frame.
    ties : {"average", "first", "trec_eval"}
        Tied scores, for position-based methods and normalisations (module doc).
    missing : {"method", "min"}
        A document a run did not retrieve: the method's own rule, or the run's lowest
        value for the query (module doc).
    depth : int, optional
        Keep the first ``depth`` documents of each fused ranking.
    **params
        The method's parameters; ``weights`` and learnt ones as a mapping {run: value},
        or, when ``runs`` is a mapping {name: run}, as a sequence in that mapping's order
        (ranx's: a list follows the order of the runs). A sequence with one long frame is
        refused: its systems come in no order of their own.

    Returns
    -------
    A run frame (qid, docid, score, rank; the qid and docid columns keep their names) of
    the runs' library; from a LazyFrame, a LazyFrame computed when collected. Every
    document any run retrieved is ranked; rank 1 is the highest fused score, equal scores
    by docid descending.

    >>> import polars as pl, trunc_accessor as ta
    >>> runs = pl.DataFrame({"system": ["a", "a", "b", "b"], "qid": ["q1"] * 4,
    ...                      "docid": ["d1", "d2", "d2", "d3"], "score": [2.0, 1.0, 5.0, 4.0]})
    >>> fused = ta.fuse(runs, "rrf")
    >>> fused["docid"].to_list(), [round(x, 5) for x in fused["score"]]
    (['d2', 'd1', 'd3'], [0.03252, 0.01639, 0.01613])
    """
    if isinstance(method, FusionModel):
        if params:
            raise InputError(f"fuse with a FusionModel takes no parameters, not {sorted(params)}")
        return method.apply(runs, by=by, depth=depth)
    _stack.check_runs_type(runs)
    m, norm, ties, missing, depth = _setup(method, norm, ties, missing, depth)
    given = check_params(m, params)
    require(m, given)
    check_per_run_forms(given, isinstance(runs, Mapping))
    src = source(runs, by)

    def compute():
        st, tab = _table(src, norm, ties)
        p = complete(m, given, st.names)
        return fused_frame(st, fused_scores(tab, m, p, missing), depth)

    if src.library == "lazy":
        return batches.defer(compute, schema_of(src))
    return as_library(compute(), src.library)


def normalize(runs: Runs, norm: str | None = "min-max", *,
              by: str | Sequence[str] = "system", ties: str = "average") -> Frame:
    """The runs normalised per query per run, as the fusion methods see them (ranx's
    ``normalize``; the formulas are in ``trunc_accessor.fusion.normalization``).

    Returns a long frame of the runs' library: the system column(s) (the ``by`` columns,
    or ``system`` for a mapping of runs), qid, docid, ``score`` (normalised) and ``rank``
    (the position in the run's ranking: reversed by ``min-max-inverted``; after ``borda``
    the candidates the run did not retrieve follow its own, tied).

    >>> import polars as pl, trunc_accessor as ta
    >>> runs = pl.DataFrame({"system": ["a", "a", "b"], "qid": ["q1"] * 3,
    ...                      "docid": ["d1", "d2", "d1"], "score": [3.0, 1.0, 0.5]})
    >>> ta.fusion.normalize(runs, "min-max")["score"].to_list()
    [1.0, 0.0, 0.0]
    """
    _stack.check_runs_type(runs)
    norm, ties = check_norm(norm), check_fusion_ties(ties)
    src = source(runs, by, min_runs=1)

    def compute():
        st, tab = _table(src, norm, ties)
        if src.names is None:
            systems = pl.DataFrame([pl.Series(b, [x[j] if len(src.by) > 1 else x
                                                  for x in st.names])
                                    for j, b in enumerate(src.by)], schema=sys_schema)
        else:
            systems = pl.DataFrame({"system": [str(x) for x in st.names]})
        columns = systems[tab.system].get_columns()
        return pl.DataFrame([
            *columns,
            st.qids.gather(pl.Series(tab.query)).alias(st.qid_name),
            st.docids(tab.cand).alias(st.docid_name),
            pl.Series("score", tab.value, dtype=pl.Float64),
            pl.Series("rank", tab.pos, dtype=pl.Int64),
        ])

    schema = (src.frame.collect_schema() if isinstance(src.frame, pl.LazyFrame)
              else src.frame.schema)
    sys_schema = ({b: schema[b] for b in src.by} if src.names is None
                  else {"system": pl.String})
    if src.library == "lazy":
        return batches.defer(compute, {**sys_schema, **schema_of(src)})
    return as_library(compute(), src.library)


# --------------------------------------------------------------------------- models
@dataclass(frozen=True, eq=False)
class FusionModel:
    """A fusion method with all its parameters (learnt ones included, per run name), from
    ``fit_fusion`` or ``optimize_fusion``; ``apply`` fuses runs of the same
    names (other queries, e.g. held-out ones)."""

    method: str
    norm: str | None
    ties: str
    missing: str
    params: dict = field(default_factory=dict)
    systems: tuple = ()

    def apply(self, runs: Runs, *, by: str | Sequence[str] = "system",
              depth: int | None = None) -> Frame:
        """Fuse ``runs`` (as ``fuse``) with this model's method and parameters."""
        return fuse(runs, self.method, self.norm, by=by, ties=self.ties, missing=self.missing,
                    depth=depth, **self.params)

    def __repr__(self) -> str:
        shown = {k: (v if not isinstance(v, dict) else f"{{{len(v)} runs}}")
                 for k, v in self.params.items()}
        return (f"FusionModel({self.method!r}, norm={self.norm!r}, ties={self.ties!r}, "
                f"missing={self.missing!r}, params={shown})")


def learn_params(tab, judged: Judged, m: Method, fit_params: dict, *, train=None,
                 level=1.0, h=None) -> dict:
    """The learnt parameter of ``m`` ({run: values}) from the judged queries ``train`` (a
    Series of qids; default every qrels query)."""
    train = judged.qids if train is None else train
    mask = tab.st.qids.cast(judged.qid_dtype).is_in(train.cast(judged.qid_dtype).to_list())
    mask = mask.to_numpy()
    h = h if h is not None else hits(tab, judged, level)
    fit = dict(fit_params, _n_train=len(train))
    if m.name == "mapfuse":
        fit["_map"] = map_scores(tab, judged.restrict(train), mask, tab.st.ties, level)
    return estimate(tab, h, mask, m, fit, tab.st.names)


def fit_fusion(runs: Runs, qrels: Frame, method: str, norm: str | None = "min-max", *,
               by: str | Sequence[str] = "system", ties: str = "average",
               missing: str = "method", relevance_level: float = 1,
               **params: Any) -> FusionModel:
    """Learn a trained method's parameters from judged queries: the training queries are
    the ``qrels``' (ranx's ``*_train`` functions; see ``learn`` for what each method
    estimates). Returns a ``FusionModel`` whose ``apply`` fuses other queries.

    ``probfuse`` needs ``n_segments=``; other parameters (``w=`` of ``slidefuse``,
    ``weights=``, ``k=``, …) are stored as given. Methods with nothing to learn are stored
    after their parameters are checked (weights and other tuning parameters are chosen
    by ``optimize_fusion``). ``relevance_level``: a number > 0, grades ≥ it are
    relevant (an unjudged document is never relevant, as for every metric).

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield")
    >>> two = runs[runs["system"].isin(["bm25", "tfidf"])]
    >>> model = ta.fit_fusion(two, qrels, "posfuse", norm=None)
    >>> model.method, sorted(model.params["probs"])
    ('posfuse', ['bm25', 'tfidf'])
    """
    _stack.check_runs_type(runs)
    m, norm, ties, missing, _ = _setup(method, norm, ties, missing, None)
    level = check_level(relevance_level)
    given = check_params(m, params, fitting=True)
    check_per_run_forms(given, isinstance(runs, Mapping))
    fit_params = {k: given.pop(k) for k in list(given) if k in m.fit_params}
    for k, v in m.fit_params.items():
        if v is REQUIRED and k not in fit_params and m.learnt not in given:
            raise ParameterError(f"{m.name} needs {k}= to learn from the qrels "
                                 "(optimize_fusion can choose it)")
    st, tab = _table(source(runs, by), norm, ties)
    if m.learnt and m.learnt not in given:
        given[m.learnt] = learn_params(tab, Judged(st, qrels_frame(qrels)), m, fit_params,
                                       level=level)
    complete(m, given, st.names)
    return FusionModel(m.name, norm, ties, missing, as_mapping(given, st.names),
                       tuple(st.names))

