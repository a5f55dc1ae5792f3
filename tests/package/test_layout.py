"""The package's house: subpackages by the reader's question, no import cycles, each
subpackage importable on its own; the former layouts' module names are gone."""
from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import trunc_accessor as ta

PACKAGE = Path(ta.__file__).parent
SUBPACKAGES = ("core", "metrics", "engine", "io", "stats", "plot", "judges", "fusion", "frontends")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _exists(dotted: str) -> bool:
    base = PACKAGE.parent / dotted.replace(".", "/")
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def import_graph() -> dict[str, set[str]]:
    """Module → the package modules it imports when it is imported (module-level relative
    imports; imports inside functions run later and cannot form an import-time cycle)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        name = _module_name(path)
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.parse(path.read_text()).body:
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            base = here[:len(here) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
            subs = [f"{target}.{a.name}" for a in node.names if _exists(f"{target}.{a.name}")]
            for dep in subs + ([target] if node.module or not subs else []):
                if dep != name and _exists(dep):
                    graph[name].add(dep)
    return graph


def test_no_import_cycle():
    graph = import_graph()
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for dep in sorted(graph.get(node, ())):
            # a package's __init__ importing its own children is not a cycle
            if node.startswith(dep + ".") and dep in path:
                continue
            if state.get(dep) == 1:
                cycle.extend(path[path.index(dep):] + [dep])
                return True
            if state.get(dep) is None and visit(dep, path + [dep]):
                return True
        state[node] = 2
        return False

    for module in sorted(graph):
        if state.get(module) is None and visit(module, [module]):
            break
    assert not cycle, " → ".join(cycle)


@pytest.mark.parametrize("sub", SUBPACKAGES)
def test_each_subpackage_imports_alone(sub):
    done = subprocess.run([sys.executable, "-c", f"import trunc_accessor.{sub}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_every_module_lives_in_a_subpackage():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "_typing.py", "errors.py",
                   "warn.py"], top
    for sub in SUBPACKAGES:
        doc = importlib.import_module(f"trunc_accessor.{sub}").__doc__
        assert doc and len(doc.split()) > 10, f"{sub}: say what it owns"


def test_the_former_flat_layouts_names_are_gone():
    for old in ("frames", "registry", "cli", "accessors", "user_metrics", "analysis"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"trunc_accessor.{old}")
