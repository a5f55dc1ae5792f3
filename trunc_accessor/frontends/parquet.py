"""Parquet files evaluated without loading them whole: ``evaluate_parquet`` scans the files
lazily and scores them a batch of whole queries at a time (the lazy Polars frontend)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Metrics, Result, Source
from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames
from trunc_accessor.engine import workers
from trunc_accessor.engine.options import check_batch_rows
from trunc_accessor.errors import InputError
from trunc_accessor.frontends.polars import LazyPolarsIR


def evaluate_parquet(source: Source | Sequence[Source], qrels: Frame, metrics: Metrics, *,
                     ties: str = "average", by: str | Sequence[str] | None = None,
                     queries: Sequence[Any] | None = None,
                     relevance_level: float = 1, judged_only: bool = False,
                     undefined: str = "zero", names: str = "as_written",
                     batch_rows: int | None = None, n_jobs: int | None = None,
                     output: str = "pandas") -> Result:
    """``run.ir.evaluate`` for a run stored as Parquet, read one batch of whole queries at a
    time, so that memory is bounded by the batch (``batch_rows`` run rows, default
    4,000,000), not by the run.

    ``source``: a path, a glob (``"runs/*.parquet"``) or a list of paths, as
    ``polars.scan_parquet`` takes them (cloud URLs included); the run's columns are found
    as for a frame (qid, docid, score[, rank], by… columns). A file sorted by qid is read
    fastest (each batch skips the other row groups). ``n_jobs``: worker processes scoring
    batches at once (default: the cores Polars uses, or the environment variable
    ``TRUNC_ACCESSOR_N_JOBS``; ``1``: this process only; ``-1``: every core); runs under 2M
    rows are scored in this process. With workers, batches are cut smaller (three per worker,
    at most ``batch_rows``) and memory is that of the batches in flight, about ``n_jobs`` of
    them. ``output``: ``"pandas"`` (a DataFrame
    indexed by qid, or by…, qid, as the pandas accessor returns) or ``"polars"``. The
    other arguments are those of ``evaluate``; the values equal an eager evaluation of the
    whole run.

    >>> import tempfile, os, trunc_accessor as ta
    >>> run, qrels = ta.load_example()
    >>> path = os.path.join(tempfile.mkdtemp(), "run.parquet")
    >>> run.to_parquet(path)
    >>> values = ta.evaluate_parquet(path, qrels, ["ap", "ndcg@10"], batch_rows=600)
    >>> round(float(values["ndcg@10"].mean()), 4)  # trec_eval: ndcg_cut_10 0.3016
    0.3016
    """
    if output not in ("pandas", "polars"):
        raise InputError(f"output= must be 'pandas' or 'polars', not {output!r}")
    if batch_rows is not None:
        batch_rows = check_batch_rows(batch_rows)
    if n_jobs is not None:
        n_jobs = workers.jobs(n_jobs)
    lazy = LazyPolarsIR(pl.scan_parquet(cast(Any, source)), batch_rows=batch_rows,
                        n_jobs=n_jobs)
    try:
        result = lazy.evaluate(
            qrels, metrics, ties=ties, by=by, queries=queries,
            relevance_level=relevance_level, judged_only=judged_only,
            undefined=undefined, names=names).collect()
    except pl.exceptions.SchemaError as e:
        raise InputError(f"evaluate_parquet: the Parquet files do not share one schema ({e}); "
                         f"write them with one type per column (e.g. qid as strings in "
                         f"every file)") from None
    if output == "polars":
        return result
    n_keys = len(_columns.normalise_by(by)) + 1
    keys = result.select(result.columns[:n_keys])
    values = {c: result[c].fill_null(np.nan).to_numpy() for c in result.columns[n_keys:]}
    return frames.result_pandas(keys, values, single=False)
