"""Writes ``trunc_accessor/frontends/_generated.py``: one annotated method per built-in metric.

Type checkers and IDEs cannot see methods set on a class at run time, so the metric methods
of the ``.ir`` namespaces are written out as Python source from the registry (name,
parameters with their annotations and defaults, docstring). Run after adding or changing a
metric::

    python -m trunc_accessor.frontends._codegen

``tests/frontends/test_namespaces_typed.py`` fails when the file differs from what this
writes.
"""
from __future__ import annotations

from pathlib import Path

from trunc_accessor.frontends.methods import COMMON, annotation
from trunc_accessor.metrics.docs import method_doc
from trunc_accessor.metrics.registry import REGISTRY, Metric

TARGET = Path(__file__).with_name("_generated.py")
COMMAND = "python -m trunc_accessor.frontends._codegen"

_HEADER = f'''"""The metric methods of the ``.ir`` namespaces, one per built-in metric.

GENERATED from the metric registry by ``{COMMAND}``: do not edit by hand.
``Values`` is what a metric method returns in the caller's library (pandas: a Series
indexed by qid; Polars: a DataFrame; a LazyFrame stays lazy; Dask: a Dask Series).
"""
# ruff: noqa: E501
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from trunc_accessor._typing import Frame
from trunc_accessor.frontends.namespace import Namespace, Out, Values


class Accessor(Namespace[Values, Out]):
    """The ``.ir`` methods: the tools of ``Namespace`` and a method per built-in metric."""
'''


def _docstring(doc: str) -> str:
    """``doc`` as a docstring literal at method indentation, whose value is ``doc`` once
    ``inspect.cleandoc`` has removed the indentation."""
    lines = doc.strip("\n").splitlines()
    body = "\n".join(("        " + line) if line.strip() else "" for line in lines)
    quote = '"""' if '"""' not in doc else "'''"
    prefix = "r" if "\\" in doc else ""
    if body.endswith(quote[0]) or body.endswith("\\"):
        body += "\n        "
    return f"        {prefix}{quote}{body.lstrip()}{quote}"


_PASSED = ("ties", "by", "queries", "relevance_level", "judged_only", "undefined")


def _literal(value: object) -> str:
    """A default as source (strings in double quotes, as the rest of the package)."""
    if isinstance(value, str):
        return '"' + repr(value)[1:-1].replace('"', '\\"') + '"' if "'" not in value \
            else repr(value)
    return repr(value)


def _method(metric: Metric) -> str:
    params = [f"{p.name}: {annotation(p)} = {_literal(p.default)}" for p in metric.params]
    common = [f"{n}: {a} = {_literal(d)}" for n, d, a in COMMON]
    values = ", ".join(f'"{p.name}": {p.name}' for p in metric.params)
    assert [n for n, _, _ in COMMON] == list(_PASSED), "COMMON changed: update _method"
    lines = [f"    def {metric.name}(", "        self,", "        qrels: Frame,"]
    lines += [f"        {p}," for p in params]
    lines += ["        *,"] + [f"        {c}," for c in common] + ["    ) -> Values:"]
    lines += [_docstring(method_doc(metric)),
              f'        return self._metric("{metric.name}", {{{values}}}, qrels,',
              "                            ties=ties, by=by, queries=queries,",
              "                            relevance_level=relevance_level,",
              "                            judged_only=judged_only, undefined=undefined)"]
    return "\n".join(lines)


def render() -> str:
    """The source of ``_generated.py`` for the metrics registered now (built-in ones only)."""
    methods = [_method(m) for m in REGISTRY.values() if not m.user]
    return _HEADER + "\n" + "\n\n".join(methods) + "\n"


def main() -> None:
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
