"""trunc_accessor: IR evaluation inside pandas and Polars.

Importing the package registers the ``.ir`` accessor on pandas DataFrames and on Polars
DataFrames and LazyFrames::

    import trunc_accessor
    run, qrels = trunc_accessor.load_example()
    run.ir.ndcg(qrels, k=10)                 # per-query values
    run.ir.evaluate(qrels, ["ndcg@10", "ap", "rbp(p=0.8)"])
    trunc_accessor.ir(run).ndcg(qrels, k=10)  # the same, typed for type checkers

Metrics are tie-aware by default (the exact mean over every order of tied scores,
McSherry & Najork 2008); ``ties="trec_eval"`` reproduces trec_eval. Per-ranking functions
live in ``trunc_accessor.single``.
"""
from __future__ import annotations

import importlib
import sys

from trunc_accessor import metrics as _metrics  # noqa: F401  (registers the metrics)
from trunc_accessor.engine.aggregate import aggregate
from trunc_accessor.errors import InputError, InputTypeError, ParameterError
from trunc_accessor.frontends import polars as _polars_accessor  # noqa: F401  (registers pl.DataFrame.ir)
from trunc_accessor.frontends.entry import ir
from trunc_accessor.io.examples import example_path, load_example
from trunc_accessor.io.read import read_qrels, read_run
from trunc_accessor.io.write import write_run
from trunc_accessor.metrics.parse import parse
from trunc_accessor.metrics.registry import REGISTRY, Measure
from trunc_accessor.metrics.user import define, metric
from trunc_accessor.warn import (
    AgreementWarning,
    DroppedQueriesWarning,
    EmptyResultWarning,
    EmptyRunWarning,
    IdentifierWarning,
    InconsistentEstimateWarning,
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
    "agreement": ("trunc_accessor.stats.agreement", None),  # Kendall's tau, tau_AP, RBO
    "judges": ("trunc_accessor.judges", None),  # agreement between qrels: kappa, alpha, …
    "plot": ("trunc_accessor.plot", None),  # effort-gain and CRP plots (matplotlib)
    "stats": ("trunc_accessor.stats", None),  # paired tests, corrections, intervals (SciPy)
    "properties": ("trunc_accessor.properties", None),  # formal properties of metrics
    "single": ("trunc_accessor.frontends.single", None),  # metrics of one ranking as grades
    "compare": ("trunc_accessor.stats.significance", "compare"),
    "experiment": ("trunc_accessor.stats.experiment", "experiment"),
    "report": ("trunc_accessor.stats.report", "report"),
    "reproducibility": ("trunc_accessor.stats.reproduce", "reproducibility"),
    "replicability": ("trunc_accessor.stats.reproduce", "replicability"),
    "urisk": ("trunc_accessor.stats.risk", "urisk"),  # URisk, TRisk against a baseline
    "georisk": ("trunc_accessor.stats.risk", "georisk"),  # ZRisk, GeoRisk: several
    "evaluate_parquet": ("trunc_accessor.frontends.parquet", "evaluate_parquet"),
    "fusion": ("trunc_accessor.fusion", None),  # fusion of runs (ranx's methods)
    "fuse": ("trunc_accessor.fusion", "fuse"),
    "fit_fusion": ("trunc_accessor.fusion", "fit_fusion"),
    "optimize_fusion": ("trunc_accessor.fusion", "optimize_fusion"),
    "official_measures": ("trunc_accessor.io.irds", "official_measures"),
    # expected exposure of sampled rankings (Diaz et al. 2020), per query and per document
    "expected_exposure": ("trunc_accessor.metrics.exposure_frames", "expected_exposure"),
    "exposure_vectors": ("trunc_accessor.metrics.exposure_frames", "exposure_vectors"),
    "awrf": ("trunc_accessor.metrics.exposure_frames", "awrf"),
}

__all__ = [
    "AgreementWarning",
    "DroppedQueriesWarning",
    "EmptyResultWarning",
    "EmptyRunWarning",
    "IdentifierWarning",
    "InconsistentEstimateWarning",
    "InputError",
    "InputTypeError",
    "Measure",
    "ParameterError",
    "SubtopicWarning",
    "TruncAccessorWarning",
    "UndefinedTieOrderWarning",
    "aggregate",
    "agreement",
    "awrf",
    "compare",
    "define",
    "evaluate_parquet",
    "example_path",
    "expected_exposure",
    "experiment",
    "exposure_vectors",
    "fit_fusion",
    "fuse",
    "fusion",
    "georisk",
    "ir",
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
    "replicability",
    "report",
    "reproducibility",
    "stats",
    "urisk",
    "write_run",
]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'trunc_accessor' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = importlib.import_module(module)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    from trunc_accessor.frontends import pandas as _pandas_accessor  # noqa: F401  (registers DataFrame.ir)


def _register_dask_now() -> None:
    try:
        from trunc_accessor.frontends import dask as _dask_accessor  # noqa: F401  (registers dd.DataFrame.ir)
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
