"""trunc_accessor: IR evaluation inside pandas and Polars.

Importing the package registers the ``.ir`` accessor on pandas DataFrames and on Polars
DataFrames and LazyFrames::

    import trunc_accessor
    run, qrels = trunc_accessor.load_example()
    run.ir.ndcg(qrels, k=10)                 # per-query values
    run.ir.evaluate(qrels, ["ndcg@10", "ap", "rbp(p=0.8)"])

Metrics are tie-aware by default (the exact mean over every order of tied scores,
McSherry & Najork 2008); ``ties="trec_eval"`` reproduces trec_eval. Per-ranking functions
live in ``trunc_accessor.single``.
"""
from __future__ import annotations

import importlib
import sys
import types

from . import _moved
from . import metrics as _metrics  # noqa: F401  (registers the metrics)
from .analysis.aggregate import aggregate
from .core.registry import REGISTRY, Measure, parse
from .errors import InputError, InputTypeError, ParameterError
from .frontends import polars as _polars_accessor  # noqa: F401  (registers pl.DataFrame.ir)
from .io import example_path, load_example, read_qrels, read_run, write_run
from .metrics.user import define, metric
from .warn import (
    AgreementWarning,
    DroppedQueriesWarning,
    EmptyResultWarning,
    EmptyRunWarning,
    IdentifierWarning,
    SubtopicWarning,
    TruncAccessorWarning,
    UndefinedTieOrderWarning,
)

# the one place the version is written: pyproject.toml reads it (tool.setuptools.dynamic), so
# the installed metadata (importlib.metadata.version) and --version say the same
__version__ = "0.1.0"

# Loaded on first use (PEP 562), so `import trunc_accessor` and the command line start
# without pandas, SciPy, matplotlib or Dask: name → (module, attribute or None for the module)
_LAZY = {
    "agreement": (".analysis.agreement", None),  # Kendall's tau, tau_AP, rank-biased overlap
    "judges": (".analysis.judges", None),  # agreement between qrels: kappa, alpha, leaderboards
    "plot": (".analysis.plot", None),  # effort-gain and CRP plots (matplotlib)
    "stats": (".analysis.stats", None),  # paired tests, corrections, intervals (SciPy)
    "properties": (".analysis.properties", None),
    "single": (".frontends.single", None),  # metrics of one ranking given as grades
    "compare": (".analysis.stats", "compare"),
    "experiment": (".analysis.experiment", "experiment"),
    "report": (".analysis.experiment", "report"),
    "evaluate_parquet": (".core.batches", "evaluate_parquet"),
    "fusion": (".analysis.fusion", None),  # fusion of runs (ranx's methods)
    "fuse": (".analysis.fusion", "fuse"),
    "fit_fusion": (".analysis.fusion", "fit_fusion"),
    "optimize_fusion": (".analysis.fusion", "optimize_fusion"),
    "official_measures": (".io.irds", "official_measures"),
}

__all__ = [
    "AgreementWarning",
    "DroppedQueriesWarning",
    "EmptyResultWarning",
    "EmptyRunWarning",
    "IdentifierWarning",
    "InputError",
    "InputTypeError",
    "Measure",
    "ParameterError",
    "SubtopicWarning",
    "TruncAccessorWarning",
    "UndefinedTieOrderWarning",
    "aggregate",
    "agreement",
    "compare",
    "define",
    "evaluate_parquet",
    "example_path",
    "experiment",
    "fit_fusion",
    "fuse",
    "fusion",
    "judges",
    "load_example",
    "metric",
    "metrics_table",
    "official_measures",
    "optimize_fusion",
    "parse",
    "plot",
    "read_qrels",
    "read_run",
    "report",
    "stats",
    "write_run",
]


def __getattr__(name: str):
    if name not in _LAZY:
        if name in _moved.MOVED:  # a module of the former flat layout (trunc_accessor.stats)
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module 'trunc_accessor' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = importlib.import_module(module, __name__)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


class _Package(types.ModuleType):
    """``ta.experiment`` and ``ta.aggregate`` are functions, and also the names of modules of
    the former flat layout: importing those modules by their old names
    (``import trunc_accessor.experiment``) must not rebind the functions."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and name in ("experiment", "aggregate"):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
_moved.install(__name__)


class _AfterImport:
    """A one-shot import hook: when ``target`` is first imported, run ``then()`` right after
    the module has run (to register ``.ir`` on pandas or Dask DataFrames without importing
    them here)."""

    def __init__(self, target: str, then):
        self.target, self.then = target, then

    def find_spec(self, name, path, target=None):
        if name != self.target:
            return None
        import importlib.util

        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run_module = loader.exec_module
        then = self.then

        def exec_module(module):
            try:
                del loader.exec_module  # the loader's own method again
            except AttributeError:
                pass
            run_module(module)
            if module.__name__ == name:
                then()

        loader.exec_module = exec_module
        return spec


def _register_pandas_now() -> None:
    from .frontends import pandas as _pandas_accessor  # noqa: F401  (registers DataFrame.ir)


def _register_dask_now() -> None:
    try:
        from .frontends import dask as _dask_accessor  # noqa: F401  (registers dd.DataFrame.ir)
    except Exception as error:  # noqa: BLE001 - never break the user's import of Dask
        import warnings

        warnings.warn(f"trunc_accessor: .ir is not registered on Dask DataFrames ({error!r})",
                      RuntimeWarning, stacklevel=2)


def _register_when_imported(module: str, register) -> None:
    """``.ir`` on a library's DataFrame without importing the library here: at once if
    ``module`` is loaded, else when it is first imported; nothing when it is not installed."""
    import importlib.util

    if module in sys.modules:
        register()
        return
    try:
        installed = importlib.util.find_spec(module.split(".")[0]) is not None
    except (ImportError, ValueError):  # e.g. sys.modules["dask"] = None: not usable
        installed = False
    if installed and not any(isinstance(f, _AfterImport) and f.target == module
                             for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(module, register))


_register_when_imported("pandas", _register_pandas_now)
_register_when_imported("dask.dataframe", _register_dask_now)


def metrics_table() -> list[dict]:
    """Every registered metric: name, aliases, parameters with defaults, one-line summary."""
    return [
        {"name": m.name, "aliases": list(m.aliases),
         "params": {p.name: p.default for p in m.params}, "summary": m.summary}
        for m in REGISTRY.values()
    ]
