"""The package's house: floors that only look down, and no import circles.

The package is built in layers, from the bottom up (``LAYERS``): the base modules (``errors``,
``warn``, ``_typing``), ``core`` (frames to a prepared run), ``metrics``, ``engine``, ``io``,
``stats`` and ``properties``, ``plot``, ``judges``, ``fusion``, ``frontends``, and the package's own
``__init__``/``__main__`` on top. The rule:

* a module imports modules of its own subpackage and of the layers below it, never above;
* no module imports itself back through others (no circle). A package's ``__init__``
  importing its own children is no circle (Python imports a package before its children),
  but a child importing names from its package's ``__init__`` while that ``__init__``
  imports the child is one;
* both rules count every import: at module level or deferred inside a function, a method or
  an ``if`` block (``TYPE_CHECKING`` included), ``import x`` and ``from x import y``,
  relative and absolute, and a package module looked up by its name (``sys.modules``,
  ``importlib.import_module``);
* each subpackage imports alone, in a fresh interpreter, loading nothing above it;
* a subpackage's ``__init__`` only re-exports (its code lives in modules);
* the top level holds only ``__init__``, ``__main__``, ``_typing``, ``errors`` and ``warn``.

So a floor can be read, tested and replaced knowing only the floors under it. A deferred import
that delays loading an optional dependency (matplotlib, SciPy, Dask) is fine when it points
down. That ``import trunc_accessor`` loads no pandas, SciPy, matplotlib or Dask is checked by
``tests/frontends/test_cli.py::test_import_and_command_line_load_no_pandas_scipy_matplotlib_or_dask``.
"""
from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

import trunc_accessor as ta

PACKAGE = Path(ta.__file__).parent
NAME = PACKAGE.name

# the floors, bottom first; a module may import its own floor's subpackage and the floors below
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "warn", "_typing"),
    ("core",),
    ("metrics",),
    ("engine",),
    ("io",),
    ("stats", "properties"),  # siblings: neither imports the other
    ("plot",),
    ("judges",),
    ("fusion",),
    ("frontends",),
    ("__init__", "__main__"),
)
SUBPACKAGES = tuple(s for floor in LAYERS[1:-1] for s in floor)

# Known upward edges, each to be removed by the change named beside it; nothing else may be
# added here. (importer, imported)
# Upward edges allowed, each with its reason (none now: the typed namespaces look metrics
# declared at run time up in the registry, so the metrics layer never reaches up).
ALLOWED_UPWARD: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    path: Path
    line: int
    deferred: bool  # inside a function, a method or an if/try block
    by_name: bool = False  # a module looked up by its name: sys.modules, import_module

    def __str__(self) -> str:
        where = f"{self.path.relative_to(PACKAGE.parent)}:{self.line}"
        how = ", deferred" if self.deferred else ""
        how += ", looked up by name" if self.by_name else ""
        return f"{self.importer} → {self.imported} ({where}{how})"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    base = PACKAGE.parent / dotted.replace(".", "/")
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _targets(node: ast.Import | ast.ImportFrom, package: list[str]) -> list[str]:
    """The package modules one import statement loads (its names that are modules, and the
    module it imports names from when some name is not a module)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == NAME]
    if node.level:  # relative: from . import x, from ..core import y
        base = package[:len(package) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] != NAME:
        return []
    modules = [f"{source}.{a.name}" for a in node.names if _is_module(f"{source}.{a.name}")]
    return modules + ([source] if len(modules) < len(node.names) else [])


def _named(node: ast.AST) -> str | None:
    """The package module a call or subscript names as a string: ``sys.modules[...]``,
    ``sys.modules.get(...)``, ``importlib.import_module(...)``, ``__import__(...)``."""
    def modules(n):
        return isinstance(n, ast.Attribute) and n.attr == "modules"

    arg = None
    if isinstance(node, ast.Subscript) and modules(node.value):
        arg = node.slice
    elif isinstance(node, ast.Call) and node.args:
        f = node.func
        if (isinstance(f, ast.Attribute) and (f.attr == "import_module" or (
                f.attr == "get" and modules(f.value)))) or (
                isinstance(f, ast.Name) and f.id in ("import_module", "__import__")):
            arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) \
            and arg.value.split(".")[0] == NAME and _is_module(arg.value):
        return arg.value
    return None


@cache
def import_graph() -> tuple[Edge, ...]:
    """Every import of a package module by a package module, wherever it stands, and every
    package module looked up by its name (``sys.modules``, ``import_module``): a way round
    an import is a dependency too."""
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        tree = ast.parse(path.read_text(), str(path))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges += [Edge(name, target, path, node.lineno, id(node) not in top)
                          for target in _targets(node, package) if target != name]
            elif isinstance(node, ast.Call | ast.Subscript) and _named(node) not in (None, name):
                edges.append(Edge(name, str(_named(node)), path, node.lineno,
                                  id(node) not in top, by_name=True))
    return tuple(edges)


def floor(module: str) -> int:
    """The layer a module stands on (its subpackage's, or its own for a top-level file)."""
    parts = module.split(".")
    own = parts[1] if len(parts) > 1 else "__init__"
    for i, names in enumerate(LAYERS):
        if own in names:
            return i
    raise AssertionError(f"{module}: on no floor; add its subpackage to LAYERS")


def _room(module: str) -> str:
    """Its subpackage, or its floor for a top-level file: where imports are free."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in SUBPACKAGES else f"floor {floor(module)}"


def goes_up(importer: str, imported: str) -> bool:
    return _room(imported) != _room(importer) and floor(imported) >= floor(importer)


def upward(edges) -> list[Edge]:
    return [e for e in edges if goes_up(e.importer, e.imported)
            and (e.importer, e.imported) not in ALLOWED_UPWARD]


def circles(edges) -> list[list[Edge]]:
    """One circle through each strongly connected group of modules (Tarjan), as its edges."""
    graph: dict[str, list[Edge]] = {}
    for e in edges:
        graph.setdefault(e.importer, []).append(e)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for e in graph.get(v, ()):
            w = e.imported
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            strong(v)
    found = []
    for group in groups:  # a shortest way back to the group's first module
        start = min(group)
        paths: dict[str, list[Edge]] = {start: []}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for e in graph.get(v, ()):
                if e.imported == start:
                    found.append(paths[v] + [e])
                    queue = []
                    break
                if e.imported in group and e.imported not in paths:
                    paths[e.imported] = paths[v] + [e]
                    queue.append(e.imported)
    return found


# --------------------------------------------------------------------------- the graph itself
def test_the_graph_sees_every_kind_of_import():
    """The checks below are only as good as the graph: it holds deferred imports (in functions,
    methods, if blocks), relative and absolute ones, ``import x`` and ``from x import y``, and
    modules looked up by name."""
    edges = import_graph()
    got = {(e.importer, e.imported, e.deferred) for e in edges}
    assert (f"{NAME}.io.read", f"{NAME}.io.parse", False) in got  # from x import y, top
    assert (f"{NAME}.io.read", f"{NAME}.io.irds", True) in got  # from pkg import module, in a def
    assert (NAME, f"{NAME}.metrics", False) in got  # from pkg import module (a package)
    code = ("from __future__ import annotations\n"
            "from typing import TYPE_CHECKING\n"
            "from . import x\n"
            "import trunc_accessor.core.frames\n"
            "if TYPE_CHECKING:\n"
            "    from ..core.keys import key_dtype\n"
            "class A:\n"
            "    def f(self):\n"
            "        from trunc_accessor.metrics import registry, not_a_module\n"
            "        import numpy\n")
    node_edges = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            node_edges += _targets(node, [NAME, "engine"])
    assert node_edges == [f"{NAME}.engine", f"{NAME}.core.frames", f"{NAME}.core.keys",
                          f"{NAME}.metrics.registry", f"{NAME}.metrics"]
    code = ("m = sys.modules.get('trunc_accessor.frontends.namespace')\n"
            "def f():\n"
            "    importlib.import_module('trunc_accessor.stats')\n"
            "    return sys.modules['trunc_accessor.io.read'], sys.modules.get('numpy')\n")
    named = [_named(node) for node in ast.walk(ast.parse(code))]
    assert sorted(filter(None, named)) == [f"{NAME}.frontends.namespace", f"{NAME}.io.read",
                                           f"{NAME}.stats"]


def test_the_checks_catch_an_upward_import_and_a_circle():
    def e(a, b, line=1):
        return Edge(".".join(filter(None, (NAME, a))), ".".join(filter(None, (NAME, b))),
                    PACKAGE / "x.py", line, True)

    edges = [e("engine.evaluation", "frontends.pandas", 7), e("core.frames", "errors"),
             e("frontends.cli.ndeval", "frontends.namespace"), e("errors", "warn"),
             e("frontends.cli.trec_eval", ""), e("__main__", ""), e("core", "core.frames"),
             e("core.keys", "metrics"), e("metrics.user", "frontends.namespace")]
    found = upward(edges)
    assert [(x.importer, x.imported) for x in found] == [
        (f"{NAME}.engine.evaluation", f"{NAME}.frontends.pandas"),
        (f"{NAME}.frontends.cli.trec_eval", NAME), (f"{NAME}.core.keys", f"{NAME}.metrics"),
        (f"{NAME}.metrics.user", f"{NAME}.frontends.namespace")]
    assert str(found[0]) == (f"{NAME}.engine.evaluation → {NAME}.frontends.pandas "
                             f"({NAME}/x.py:7, deferred)")
    loop = [e("io.read", "io.irds"), e("io.irds", "io.parse"), e("io.parse", "io.read"),
            e("fusion", "fusion.optimize"), e("io.read", "core.frames")]
    [circle] = circles(loop)
    assert [x.importer for x in circle] == [f"{NAME}.io.irds", f"{NAME}.io.parse",
                                            f"{NAME}.io.read"]
    assert circles(loop[:2] + loop[3:]) == []
    assert circles([e("fusion", "fusion.optimize"), e("fusion.optimize", "fusion")])


# --------------------------------------------------------------------------- the rules
def test_every_import_goes_down_or_stays_on_its_floor():
    found = upward(import_graph())
    assert not found, ("imports that go up a floor (" + " < ".join("/".join(f) for f in LAYERS)
                       + "):\n" + "\n".join(map(str, found)))


def test_the_allowed_upward_imports_still_exist():
    """The allow-list shrinks with the code: an exception that no longer happens goes."""
    edges = {(e.importer, e.imported) for e in import_graph()}
    assert ALLOWED_UPWARD <= edges, ALLOWED_UPWARD - edges


def test_no_import_circle():
    """(An allowed upward edge is left out: it is known, and goes with its removal.)"""
    found = circles([e for e in import_graph()
                     if (e.importer, e.imported) not in ALLOWED_UPWARD])
    assert not found, "import circles:\n" + "\n\n".join(
        "\n".join(map(str, circle)) for circle in found)


_ALONE = """
import importlib, json, sys, types
root = types.ModuleType({name!r})
root.__path__ = [{path!r}]  # the package without its __init__: nothing from the top floor
sys.modules[{name!r}] = root
for module in {modules!r}:
    importlib.import_module(module)
print(json.dumps(sorted(m for m in sys.modules if m.startswith({name!r} + "."))))
"""


@pytest.mark.parametrize("sub", [*SUBPACKAGES, "frontends.cli"])
def test_each_subpackage_imports_alone(sub):
    """Imported in a fresh interpreter, first as users do (the package's ``__init__`` first);
    then, with the package's ``__init__`` left out, every module of the subpackage loads
    only its own floor and those below (which also catches what the source does not spell
    out as an import)."""
    module = f"{NAME}.{sub}"
    done = subprocess.run([sys.executable, "-c", f"import {module}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = sorted(_module_name(p) for p in (PACKAGE / sub.replace(".", "/")).rglob("*.py"))
    code = _ALONE.format(name=NAME, path=str(PACKAGE), modules=modules)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    above = [m for m in json.loads(done.stdout) if goes_up(module, m)]
    assert not above, f"the modules of {module} load {above}"


def test_every_module_lives_in_a_subpackage():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "_typing.py", "errors.py", "warn.py"], top
    assert sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()) == \
        sorted(SUBPACKAGES), "every subpackage stands on a floor of LAYERS"
    for sub in SUBPACKAGES:
        doc = importlib.import_module(f"{NAME}.{sub}").__doc__
        assert doc and len(doc.split()) > 10, f"{sub}: say what it owns"


def test_a_package_init_only_re_exports():
    """A subpackage's ``__init__`` holds its docstring, imports and ``__all__``: code lives in
    modules (so that a child never has to import its own package's ``__init__``)."""
    for path in sorted(PACKAGE.glob("*/**/__init__.py")):
        for node in ast.parse(path.read_text()).body:
            plain = isinstance(node, ast.Import | ast.ImportFrom) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)) or (
                isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets]
                == ["__all__"])
            assert plain, (f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: "
                           f"{type(node).__name__} in a package's __init__; move it to a module")
