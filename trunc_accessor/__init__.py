"""trunc_accessor: IR evaluation inside pandas and Polars.

Importing the package registers the ``.ir`` accessor on pandas DataFrames and on Polars
DataFrames and LazyFrames::

    import trunc_accessor
    run, qrels = trunc_accessor.load_example()
    run.ir.ndcg(qrels, k=10)                 # per-query values
    run.ir.evaluate(qrels, ["ndcg@10", "ap", "rbp(p=0.8)"])

Metrics are tie-aware by default (the exact mean over every order of tied scores,
McSherry & Najork 2008); ``ties="trec_eval"`` reproduces trec_eval. Per-ranking functions
live in :mod:`trunc_accessor.single`.
"""
from __future__ import annotations

from . import (
    agreement,  # Kendall's tau, tau_AP, rank-biased overlap
    plot,  # trunc_accessor.plot.effort_gain (matplotlib loads on use)
    stats,  # paired tests, corrections, intervals (scipy loads on use)
)
from . import metrics as _metrics  # noqa: F401  (registers the metrics)
from .accessors import pandas as _pandas_accessor  # noqa: F401  (registers DataFrame.ir)
from .accessors import polars as _polars_accessor  # noqa: F401  (registers pl.DataFrame.ir)
from .aggregate import aggregate
from .batches import evaluate_parquet
from .experiment import experiment, report
from .frames import InputError, InputTypeError
from .io import example_path, load_example, read_qrels, read_run, write_run
from .registry import REGISTRY, Measure, ParameterError, parse
from .stats import compare
from .warn import DroppedQueriesWarning, EmptyResultWarning, IdentifierWarning, TruncAccessorWarning

__version__ = "0.1.0"

__all__ = [
    "DroppedQueriesWarning",
    "EmptyResultWarning",
    "IdentifierWarning",
    "InputError",
    "InputTypeError",
    "Measure",
    "ParameterError",
    "TruncAccessorWarning",
    "aggregate",
    "agreement",
    "compare",
    "evaluate_parquet",
    "example_path",
    "experiment",
    "load_example",
    "metrics_table",
    "parse",
    "plot",
    "read_qrels",
    "read_run",
    "report",
    "stats",
    "write_run",
]


class _DaskHook:
    """A one-shot import hook: when ``dask.dataframe`` is first imported, register ``.ir``
    on its DataFrame (:mod:`trunc_accessor.accessors.dask`) right after the module runs."""

    def find_spec(self, name, path, target=None):
        if name != "dask.dataframe":
            return None
        import importlib.util
        import sys

        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run_module = loader.exec_module

        def exec_module(module):
            del loader.exec_module  # the loader's own method again
            run_module(module)
            if module.__name__ == name:
                _register_dask_now()

        loader.exec_module = exec_module
        return spec


def _register_dask_now() -> None:
    try:
        from .accessors import dask as _dask_accessor  # noqa: F401  (registers dd.DataFrame.ir)
    except Exception as error:  # noqa: BLE001 - never break the user's import of Dask
        import warnings

        warnings.warn(f"trunc_accessor: .ir is not registered on Dask DataFrames ({error!r})",
                      RuntimeWarning, stacklevel=2)


def _register_dask() -> None:
    """``.ir`` on Dask DataFrames without importing Dask here: at once if ``dask.dataframe``
    is loaded, else when it is first imported; nothing when Dask is not installed."""
    import importlib.util
    import sys

    if "dask.dataframe" in sys.modules:
        _register_dask_now()
        return
    try:
        installed = importlib.util.find_spec("dask") is not None
    except (ImportError, ValueError):  # e.g. sys.modules["dask"] = None: not usable
        installed = False
    if installed and not any(isinstance(f, _DaskHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _DaskHook())


_register_dask()


def metrics_table() -> list[dict]:
    """Every registered metric: name, aliases, parameters with defaults, one-line summary."""
    return [
        {"name": m.name, "aliases": list(m.aliases),
         "params": {p.name: p.default for p in m.params}, "summary": m.summary}
        for m in REGISTRY.values()
    ]
