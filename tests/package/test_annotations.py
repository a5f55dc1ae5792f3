"""Every public callable is annotated, parameters and return, so that users' type checkers
(the package ships py.typed) check their calls: the names of ``trunc_accessor.__all__``,
the ``__all__`` of the public subpackages and modules (``stats``, ``plot``, ``judges``,
``fusion``, ``io``, ``agreement``, ``single``), the public methods of the classes among
them, and the public methods of every ``.ir`` namespace."""
from __future__ import annotations

import importlib
import inspect

import pytest

import trunc_accessor as ta

SUBPACKAGES = ("core", "metrics", "engine", "io", "stats", "plot", "judges", "fusion",
               "frontends")


def _public() -> dict[str, object]:
    """Qualified name → object of every public name."""
    found: dict[str, object] = {f"trunc_accessor.{n}": getattr(ta, n) for n in ta.__all__}
    modules = [importlib.import_module(f"trunc_accessor.{s}") for s in SUBPACKAGES]
    modules += [getattr(ta, n) for n in (*ta.__all__, "single")
                if inspect.ismodule(getattr(ta, n))]
    for module in modules:
        for name in getattr(module, "__all__", ()):
            found[f"{module.__name__}.{name}"] = getattr(module, name)
    return found


def _missing(obj: object, where: str) -> list[str]:
    """``where: parameter`` (or ``where: return``) for each annotation ``obj`` lacks."""
    if inspect.ismodule(obj):
        return []
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return []
        out = []
        for name, member in vars(obj).items():
            if name.startswith("_") and name != "__init__":
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if isinstance(member, property):
                member = member.fget
            if inspect.isfunction(member):
                out += _missing(member, f"{where}.{name}")
        return out
    if not callable(obj):
        return []
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # a builtin without a signature
        return []
    out = [f"{where}: {p.name}" for p in signature.parameters.values()
           if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty \
            and getattr(obj, "__name__", "") != "__init__":
        out.append(f"{where}: return")
    return out


def _namespaces() -> list[type]:
    import dask.dataframe as dd
    import polars as pl

    run, _ = ta.load_example()
    frame = pl.from_pandas(run)
    return [type(run.ir), type(frame.ir), type(frame.lazy().ir),
            type(dd.from_pandas(run, npartitions=1).ir)]


def test_every_public_callable_is_annotated():
    missing = []
    for where, obj in _public().items():
        missing += _missing(obj, where)
    assert not missing, "not annotated:\n" + "\n".join(sorted(set(missing)))


@pytest.mark.parametrize("cls", _namespaces(), ids=lambda c: c.__name__)
def test_every_namespace_method_is_annotated(cls):
    missing = []
    for name in dir(cls):
        if not name.startswith("_"):
            missing += _missing(getattr(cls, name), f"{cls.__name__}.{name}")
    assert not missing, "not annotated:\n" + "\n".join(sorted(set(missing)))
