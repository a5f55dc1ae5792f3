"""The ``.ir`` methods of risk-sensitive evaluation, shared by every frontend through
``trunc_accessor.frontends.namespace.Namespace``: ``urisk`` (URisk and TRisk against one
baseline) and ``georisk`` (ZRisk and GeoRisk against several), which evaluate the run's
systems and hand the per-query values to ``trunc_accessor.stats.risk``."""
from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Metrics
from trunc_accessor.core.columns import is_pandas
from trunc_accessor.errors import InputError
from trunc_accessor.warn import DroppedQueriesWarning

if TYPE_CHECKING:
    import pandas as pd

Out = TypeVar("Out")
MISSING = ("empty", "skip")
#: the name of a baseline given as a run frame, and of the run when it is one system
BASELINE, RUN = "baseline", "run"


class Risk(Generic[Out]):
    """``urisk`` and ``georisk``, on top of a frontend's ``evaluate``."""

    _frame: Any
    evaluate: Callable[..., Any]

    def urisk(self, qrels: Frame, metrics: Metrics, baseline: Any, *,
              alpha: float | Sequence[float] = 0.0, by: str | None = "system",
              by_query: bool = False, missing: str = "empty", undefined: str = "skip",
              ties: str | None = None, queries: Iterable[Any] | None = None,
              relevance_level: float = 1, judged_only: bool = False,
              like: str | None = None) -> Frame:
        """URisk and TRisk of each system against a baseline (Wang et al., SIGIR 2012;
        Dinçer, Macdonald & Ounis, SIGIR 2014): per query, the difference to the baseline,
        a loss weighted by 1 + α; URisk is their mean and TRisk = URisk / SE its t
        statistic. See ``trunc_accessor.stats.urisk`` for the definitions and the columns.

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        metrics : str, list, or ir_measures measure objects
            The underlying measures, as in ``evaluate``. gdeval.pl 1.3's nDCG@20 and ERR@20
            are ``'nDCG(dcg="exp-log2")@20'`` and ``"ERR@20"`` with ``ties="trec_eval"``.
        baseline : system name or run frame
            A system of the run's ``by`` column, or another run: then it is the system
            named "baseline" (and the run, without a ``by`` column, the system "run").
        alpha : float or list of float, default 0.0
            The risk weight α ≥ 0 (gdeval.pl's ``-riskAlpha``); a list: rows for each.
        by : str, optional, default "system"
            The run's system column.
        by_query : bool, default False
            The per-query table (δᵢ, δ'ᵢ as gdeval.pl prints it, tᵢ) instead of the summary.
        missing : {"empty", "skip"}, default "empty"
            A judged query a system returned nothing for: an empty ranking (gdeval.pl's
            ``-c``), or left out of that system's comparison (gdeval.pl without ``-c``).
            The baseline's unanswered queries are empty rankings either way, as gdeval.pl
            scores them.
        undefined : {"skip", "zero"}, default "skip"
            A query whose measure is undefined for the system or the baseline (nDCG of a
            query without a relevant document): left out, or counted as 0.
        ties, queries, relevance_level, judged_only, like
            As in ``evaluate`` (``like=`` scores undefined values 0, as its program does).

        Returns
        -------
        A frame in the run's library (pandas for a Dask run, computed): one row per metric,
        system and α (``by_query``: per query too).

        >>> import trunc_accessor as ta
        >>> runs, qrels = ta.load_example("web2012")
        >>> table = runs.ir.urisk(qrels, "ERR@20", baseline="ql-cata", alpha=5,
        ...                      ties="trec_eval")
        >>> table[["system", "urisk", "trisk"]].round(4)
            system   urisk   trisk
        0  ql-catb  0.0954  2.0415
        1  rm-cata -0.0319 -0.5702
        2  rm-catb  0.0403  0.8789
        """
        from trunc_accessor.stats.risk import check_alpha
        from trunc_accessor.stats.risk import urisk as _urisk

        alphas = check_alpha(alpha)
        if not isinstance(by_query, bool):
            raise InputError(f"by_query= must be True or False, not {by_query!r}")
        per, name, system = self._risk_values(qrels, metrics, baseline, by, missing,
                                              undefined, dict(
            ties=ties, queries=queries, relevance_level=relevance_level,
            judged_only=judged_only, like=like))
        with _quiet(missing):
            return _urisk(per, baseline=name, alpha=alphas, by=system, undefined=undefined,
                          by_query=by_query)

    def georisk(self, qrels: Frame, metrics: Metrics, *, alpha: float | Sequence[float] = 0.0,
                baselines: Sequence[Any] | None = None, by: str = "system",
                missing: str = "empty", undefined: str = "skip", ties: str | None = None,
                queries: Iterable[Any] | None = None, relevance_level: float = 1,
                judged_only: bool = False, like: str | None = None) -> Frame:
        """ZRisk and GeoRisk of each system against the others (Dinçer, Macdonald & Ounis,
        SIGIR 2016): the topics × systems matrix of a measure, each value compared with the
        value its row and column totals lead one to expect. See
        ``trunc_accessor.stats.georisk`` for the definitions and the columns.

        ``baselines``: None (every system of the run's ``by`` column forms the matrix) or
        the systems that serve as baselines (each other system is scored with them).
        ``missing``, ``undefined``, ``ties``, ``queries``, ``relevance_level``,
        ``judged_only``, ``like``: as in ``urisk``; a topic some system leaves out is left
        out of the matrix.

        >>> import trunc_accessor as ta
        >>> runs, qrels = ta.load_example("web2012")
        >>> runs.ir.georisk(qrels, "nDCG@20", alpha=5)[["system", "georisk"]].round(4)
            system  georisk
        0  ql-cata   0.1848
        1  ql-catb   0.3254
        2  rm-cata   0.1831
        3  rm-catb   0.3248
        """
        from trunc_accessor.stats.risk import check_alpha
        from trunc_accessor.stats.risk import georisk as _georisk

        alphas = check_alpha(alpha)
        listed = list(baselines) if isinstance(baselines, (list, tuple)) else []
        per, _, system = self._risk_values(qrels, metrics, None, by, missing, undefined,
                                           dict(ties=ties, queries=queries,
                                                relevance_level=relevance_level,
                                                judged_only=judged_only, like=like), listed)
        with _quiet(missing):
            return _georisk(per, alpha=alphas, baselines=baselines, by=system,
                            undefined=undefined)

    def _risk_values(self, qrels: Frame, metrics: Metrics, baseline: Any, by: str | None,
                     missing: str, undefined: str, kw: dict,
                     named: Sequence[Any] = ()) -> tuple[Any, Any, str]:
        """(the per-query values of the run's systems and of a baseline run, long, in the
        run's library; the baseline's system name; the system column)."""
        import pandas as pd

        if not isinstance(missing, str) or missing not in MISSING:
            raise InputError(f"missing= must be one of {list(MISSING)}, not {missing!r}")
        if not isinstance(undefined, str) or undefined not in ("skip", "zero"):
            raise InputError(f"undefined= must be 'skip' or 'zero', not {undefined!r}")
        other = baseline if _is_frame(baseline) else None
        names = _columns(self._frame)
        has_by = by is not None and by in names
        if other is None and not has_by:
            raise InputError(f"by={by!r} is not a column of the run (columns: {names}): name "
                             "the system column, or pass the baseline as a run frame")
        if has_by:  # the systems named, checked before the evaluation
            _check_named(self._frame, str(by), [baseline] if other is None and baseline
                         is not None else named)
        kw = {**kw, "undefined": None if kw["like"] is not None else "nan"}
        per = _long(self.evaluate(qrels, metrics, by=by if has_by else None, **kw))
        system = str(by) if has_by else "system"
        if not has_by:
            per.insert(0, system, RUN)
        if missing == "skip":  # the baseline's unanswered queries stay empty rankings
            keep = _answered(self._frame, per, system if has_by else None)
            per = per[keep | (per[system] == baseline).to_numpy()] if other is None \
                else per[keep]
        if other is not None:
            if has_by and (per[system].astype(str) == BASELINE).any():
                raise InputError(f"the run already has a system named {BASELINE!r}: rename "
                                 "it, or name the baseline by its system (baseline='...')")
            base = _long(other.ir.evaluate(qrels, metrics, **kw))  # its library's .ir
            per = pd.concat([per, base.assign(**{system: BASELINE})], ignore_index=True)
            baseline = BASELINE
        polars = isinstance(self._frame, (pl.DataFrame, pl.LazyFrame))
        return (pl.from_pandas(per) if polars else per), baseline, system


@contextlib.contextmanager
def _quiet(missing: str) -> Iterator[None]:
    """With ``missing="skip"`` the caller chose to leave unanswered queries out: the stats
    layer's warning about systems that lack queries (and how to score them) is not said."""
    with warnings.catch_warnings():
        if missing == "skip":
            warnings.filterwarnings("ignore", message=r"(urisk|georisk): some systems lack",
                                    category=DroppedQueriesWarning)
        yield


def _check_named(frame: Any, by: str, named: Sequence[Any]) -> None:
    """Each system ``named`` (a baseline) is in the run's ``by`` column (a Dask run's are
    checked once its values are computed)."""
    if not named or not (is_pandas(frame) or isinstance(frame, (pl.DataFrame, pl.LazyFrame))):
        return
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        systems = frame.lazy().select(pl.col(by).unique()).collect()[by].to_list()
    else:
        systems = frame[by].unique().tolist()
    for name in named:
        try:
            known = name in systems
        except (TypeError, ValueError):
            known = False
        if not known:
            raise InputError(f"baseline {name!r} is not a system of the run's {by!r} column "
                             f"(systems: {sorted(map(str, systems))})")


def _is_frame(x: Any) -> bool:
    return is_pandas(x) or isinstance(x, (pl.DataFrame, pl.LazyFrame)) or (
        hasattr(x, "dask") and hasattr(x, "compute"))


def _columns(frame: Any) -> list[str]:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect_schema().names()
    return [str(c) for c in frame.columns]


def _long(result: Any) -> pd.DataFrame:
    """``evaluate``'s answer as one pandas frame with plain columns (a Dask one computed)."""
    from trunc_accessor.core.results import plain

    if hasattr(result, "dask") and hasattr(result, "compute"):
        result = result.compute()
    return plain(result, "the per-query values")[0]


def _answered(frame: Any, per: pd.DataFrame, system: str | None) -> np.ndarray:
    """Which rows of ``per`` are queries the run answered (by its system, if any)."""
    import pandas as pd

    from trunc_accessor.core.results import query_column

    qid = query_column(_columns(frame), "the run")
    keys = [qid] if system is None else [system, qid]
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        pairs = frame.lazy().select(keys).unique().collect().to_pandas()
    else:
        pairs = frame[keys].drop_duplicates()
        pairs = pairs.compute() if hasattr(pairs, "compute") else pairs
    q = query_column(per.columns, "the per-query values")
    mine = per[[q] if system is None else [system, q]].astype(str)
    return pd.MultiIndex.from_frame(mine).isin(
        pd.MultiIndex.from_frame(pairs.astype(str).set_axis(mine.columns, axis=1)))
