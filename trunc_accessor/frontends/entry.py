"""``trunc_accessor.ir(run)``: the ``.ir`` namespace of a run, typed for type checkers.

``run.ir`` is an attribute registered on pandas', Polars' and Dask's classes at run time,
which their type stubs do not know; ``ir(run)`` returns the same namespace object, with an
overload per library, so that ``ir(polars_run).ndcg(qrels, k=10)`` is seen to return a
Polars DataFrame and a wrong argument (``k="ten"``) is flagged before the code runs.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, overload

from trunc_accessor.errors import InputTypeError, ParameterError

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd
    import polars as pl

    from trunc_accessor.frontends.dask import DaskIR
    from trunc_accessor.frontends.pandas import PandasIR
    from trunc_accessor.frontends.polars import LazyPolarsIR, PolarsIR


@overload
def ir(run: pl.DataFrame) -> PolarsIR: ...
@overload
def ir(run: pl.LazyFrame, *, batch_rows: int | None = None,
       n_jobs: int | None = None) -> LazyPolarsIR: ...
@overload
def ir(run: dd.DataFrame) -> DaskIR: ...
@overload
def ir(run: pd.DataFrame) -> PandasIR: ...
def ir(run: Any, *, batch_rows: int | None = None, n_jobs: int | None = None) -> Any:
    """The ``.ir`` namespace of ``run``: ``ir(run).ndcg(qrels, k=10)`` is
    ``run.ir.ndcg(qrels, k=10)``, with the types of the run's library.

    Parameters
    ----------
    run : pandas DataFrame, Polars DataFrame or LazyFrame, or Dask DataFrame
        A long-format run (qid, docid, score[, rank]).
    batch_rows : int, optional
        LazyFrame runs only: run rows per query batch (default 4,000,000; memory is bounded
        by the batches in flight).
    n_jobs : int, optional
        LazyFrame runs only: worker processes scoring batches at once (default: the cores
        Polars uses, or the environment variable ``TRUNC_ACCESSOR_N_JOBS``; ``1``: this
        process only; ``-1``: every core). Runs under 2M rows, and runs held in memory
        (``DataFrame.lazy()``), are scored in this process.

    Returns
    -------
    The namespace of the run's library: its metric methods return a pandas Series, a
    Polars DataFrame, a LazyFrame or a Dask Series; ``evaluate`` and the other tools a
    frame of that library.

    Raises
    ------
    InputTypeError
        When ``run`` is none of these (its type is named).

    >>> import polars as pl
    >>> import trunc_accessor as ta
    >>> run, qrels = ta.load_example()
    >>> values = ta.ir(pl.from_pandas(run)).ndcg(qrels, k=10)  # a Polars DataFrame
    >>> round(values["ndcg@10"].mean(), 4)  # trec_eval: ndcg_cut_10 0.3016
    0.3016
    """
    import polars as pl

    if (batch_rows is not None or n_jobs is not None) and not isinstance(run, pl.LazyFrame):
        raise ParameterError("ir(run, batch_rows=, n_jobs=): these apply to a Polars LazyFrame "
                             f"run, not to a {type(run).__module__}.{type(run).__qualname__}")
    if isinstance(run, pl.DataFrame):
        from trunc_accessor.frontends.polars import PolarsIR

        return PolarsIR(run)
    if isinstance(run, pl.LazyFrame):
        from trunc_accessor.engine import workers
        from trunc_accessor.engine.options import check_batch_rows
        from trunc_accessor.frontends.polars import LazyPolarsIR

        return LazyPolarsIR(run,
                            batch_rows=None if batch_rows is None else check_batch_rows(batch_rows),
                            n_jobs=None if n_jobs is None else workers.jobs(n_jobs))
    pandas_frame = getattr(sys.modules.get("pandas"), "DataFrame", None)
    if pandas_frame is not None and isinstance(run, pandas_frame):
        from trunc_accessor.frontends.pandas import PandasIR

        return PandasIR(run)
    dask_frame = getattr(sys.modules.get("dask.dataframe"), "DataFrame", None)
    if dask_frame is not None and isinstance(run, dask_frame):
        from trunc_accessor.frontends.dask import DaskIR

        return DaskIR(run)
    raise InputTypeError(
        f"ir(run): run must be a pandas DataFrame, a Polars DataFrame or LazyFrame, or a Dask "
        f"DataFrame, not {type(run).__module__}.{type(run).__qualname__}")
