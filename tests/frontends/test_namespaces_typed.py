"""The ``.ir`` namespaces are written out for type checkers: one annotated method per metric
in ``trunc_accessor/frontends/_generated.py`` (generated from the registry, checked in);
user metrics resolved through the registry
(the metrics layer never imports the frontends)."""
from __future__ import annotations

import ast
import inspect

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import ROOT
from trunc_accessor.frontends import _codegen
from trunc_accessor.frontends._generated import Accessor
from trunc_accessor.frontends.methods import COMMON
from trunc_accessor.metrics.docs import method_doc
from trunc_accessor.metrics.registry import REGISTRY

CLASSES = {"pandas": lambda: type(ta.load_example()[0].ir),
           "polars": lambda: type(pl.from_pandas(ta.load_example()[0]).ir),
           "lazy": lambda: type(pl.from_pandas(ta.load_example()[0]).lazy().ir),
           "dask": lambda: type(_dask(ta.load_example()[0]).ir)}


def _dask(run):
    import dask.dataframe as dd

    return dd.from_pandas(run, npartitions=2)


def test_the_generated_methods_are_what_the_registry_writes():
    """The checked-in source equals what the generator writes from the registry now."""
    on_disk = _codegen.TARGET.read_text(encoding="utf-8")
    assert on_disk == _codegen.render(), (
        f"{_codegen.TARGET.name} is out of date with the metric registry: regenerate it with "
        f"`{_codegen.COMMAND}` (from the repository root) and commit it")


@pytest.mark.parametrize("frontend", sorted(CLASSES))
def test_every_metric_is_a_written_out_method_of_every_namespace(frontend):
    """Each built-in metric is a method defined in the class body (so type checkers and IDEs
    see it), with the registry's parameters and defaults, annotations on every parameter and
    the return, and the registry's docstring."""
    cls = CLASSES[frontend]()
    assert issubclass(cls, Accessor)
    for name, metric in REGISTRY.items():
        if metric.user:
            continue
        assert name in vars(Accessor), name
        method = getattr(cls, name)
        sig = inspect.signature(method)
        expected = ["self", "qrels", *(p.name for p in metric.params), *(n for n, _, _ in COMMON)]
        assert list(sig.parameters) == expected
        for p in metric.params:
            assert sig.parameters[p.name].default == p.default
            assert sig.parameters[p.name].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        for n, default, _ in COMMON:
            assert sig.parameters[n].default == default
            assert sig.parameters[n].kind is inspect.Parameter.KEYWORD_ONLY
        assert all(p.annotation is not inspect.Parameter.empty
                   for p in list(sig.parameters.values())[1:])
        assert sig.return_annotation == "Values"
        assert inspect.getdoc(method) == inspect.cleandoc(method_doc(metric))


def test_written_out_methods_give_the_values_of_evaluate():
    """A written-out method binds its arguments as the registry's signature did: positional
    metric parameters, keyword-only common ones, the same values as evaluate."""
    run, qrels = ta.load_example()
    np.testing.assert_array_equal(run.ir.ndcg(qrels, 10, ties="trec_eval").to_numpy(),
                                  run.ir.evaluate(qrels, ["ndcg@10"], ties="trec_eval")
                                  ["ndcg@10"].to_numpy())
    with pytest.raises(TypeError):
        run.ir.ndcg(qrels, 10, "exponential", 2.0, None, "trec_eval")  # ties is keyword-only


def test_the_metrics_layer_never_imports_the_frontends():
    """A metric declared at run time reaches the namespaces through the registry; no module
    of trunc_accessor/metrics imports (or looks up in sys.modules) trunc_accessor.frontends."""
    for path in sorted((ROOT / "trunc_accessor" / "metrics").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("trunc_accessor.frontends"), \
                    f"{path.name}:{node.lineno}"
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("trunc_accessor.frontends")
                               for a in node.names), f"{path.name}:{node.lineno}"
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not node.value.startswith("trunc_accessor.frontends."), \
                    f"{path.name}:{node.lineno} names a frontend module"


def test_a_user_metric_is_a_method_of_every_namespace_class_and_object():
    """define() adds no attribute to any class: run.ir.NAME and pd.DataFrame.ir.NAME find it
    in the registry, with its signature and docstring, and lose it on unregister."""
    from trunc_accessor.metrics.registry import unregister
    from trunc_accessor.metrics.user import define

    run, qrels = ta.load_example()
    define(lambda grades, judged, k=None: float(len(grades) if k is None else min(k, len(grades))),
           "counted", params={"k": None}, doc="Documents retrieved (at most k).")
    try:
        for library, make in CLASSES.items():
            cls = make()
            assert "counted" not in vars(cls) and "counted" not in vars(Accessor)
            assert list(inspect.signature(cls.counted).parameters)[:3] == ["self", "qrels", "k"]
            assert "Documents retrieved" in cls.counted.__doc__
        assert "counted" in dir(run.ir)  # tab completion offers it
        assert run.ir.counted(qrels, 5).tolist() == [5.0, 5.0, 5.0]
        assert pl.from_pandas(run).ir.counted(qrels, k=3)["counted@3"].to_list() == [3.0] * 3
    finally:
        unregister("counted")
    assert not hasattr(run.ir, "counted") and not hasattr(pd.DataFrame.ir, "counted")
    assert "counted" not in dir(run.ir)
