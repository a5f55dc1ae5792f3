"""The modules of the former flat layout, still importable under their old names.

``trunc_accessor.stats``, ``trunc_accessor.frames``, ``trunc_accessor.accessors.pandas``, …
moved into subpackages (core, metrics, frontends, analysis, io). An import finder maps each
old name to the module itself (not a copy: ``trunc_accessor.stats is
trunc_accessor.analysis.stats``), so code written against the old layout keeps working,
private names and monkeypatching included.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {  # old name (under trunc_accessor) → its module now
    "frames": "core.frames", "prepare": "core.prepare", "registry": "core.registry",
    "engine": "core.engine", "truncation": "core.truncation", "names": "core.names",
    "trec_dialect": "core.trec_dialect", "batches": "core.batches", "results": "core.results",
    "aggregate": "analysis.aggregate", "stats": "analysis.stats",
    "experiment": "analysis.experiment", "plot": "analysis.plot",
    "agreement": "analysis.agreement", "properties": "analysis.properties",
    "accessors": "frontends", "accessors.pandas": "frontends.pandas",
    "accessors.polars": "frontends.polars", "accessors.dask": "frontends.dask",
    "accessors._methods": "frontends._methods", "single": "frontends.single",
    "user_metrics": "metrics.user", "cli": "io.cli",
}


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module):
        # the target ran already; the import system set its __spec__ to the alias': restore
        # it, so that the module keeps its own name, package and loader
        module.__spec__ = self.spec


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, package: str):
        self.package = package

    def find_spec(self, name, path=None, target=None):
        prefix = self.package + "."
        if not name.startswith(prefix) or name[len(prefix):] not in MOVED:
            return None
        new = prefix + MOVED[name[len(prefix):]]
        return importlib.util.spec_from_loader(name, _Alias(new))


def install(package: str) -> None:
    if not any(isinstance(f, _Finder) and f.package == package for f in sys.meta_path):
        # first: a moved package's old name must not be searched on its new __path__ by the
        # path finder (that would run its modules a second time under the old names)
        sys.meta_path.insert(0, _Finder(package))
