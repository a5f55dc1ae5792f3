"""The package stays in pieces one can read: every function has at most 60 lines of body
(its docstring not counted) and a cyclomatic complexity of at most 15 (ruff's C901, the
McCabe count), and every module at most 400 lines. The few that are still larger are named
below, each with the reason; an entry that no longer exceeds its limit fails the test too,
so that the list only shrinks."""
from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "trunc_accessor"
MAX_BODY_LINES = 60
MAX_COMPLEXITY = 15
MAX_MODULE_LINES = 400

# (module path relative to the repository, function name) → why it is still long
LONG_FUNCTIONS: dict[tuple[str, str], str] = {
}
COMPLEX_FUNCTIONS: dict[tuple[str, str], str] = {
}
LONG_MODULES = {
    "trunc_accessor/frontends/_generated.py": "generated: one written-out method per metric",
}


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


def _rel(path) -> str:
    return path.relative_to(ROOT).as_posix()


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement after the docstring to the function's last line."""
    body = node.body
    if (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        body = body[1:]
    if not body:
        return 0
    return (node.end_lineno or node.lineno) - body[0].lineno + 1


def _check_allow_list(found: dict, allowed: dict, what: str, limit: int) -> None:
    over = sorted(f"{key}: {size}" for key, size in found.items() if key not in allowed)
    assert not over, (f"{what} over {limit}: {over}; cut them into named helpers (or, "
                      "for a reason, add them to the allow-list with it)")
    stale = sorted(str(key) for key in allowed if key not in found)
    assert not stale, (f"within the limit now, remove from the allow-list of {what}: "
                       f"{stale}")


def test_body_lines_skip_the_docstring():
    tree = ast.parse('def f():\n    """Doc\n    string."""\n    a = 1\n    return a\n\n'
                     'def g():\n    """Only a docstring."""\n')
    f, g = tree.body
    assert body_lines(f) == 2 and body_lines(g) == 0


def test_functions_are_short():
    found = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = body_lines(node)
                if n > MAX_BODY_LINES:
                    found[(_rel(path), node.name)] = n
    _check_allow_list(found, LONG_FUNCTIONS, "function bodies (lines)", MAX_BODY_LINES)


def test_functions_are_simple():
    """ruff's C901 (McCabe) with max-complexity 15, read from its JSON output."""
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--exit-zero",
                           "--select", "C901", "--config",
                           f"lint.mccabe.max-complexity = {MAX_COMPLEXITY}",
                           "--output-format", "json", str(PACKAGE)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    if "No module named ruff" in done.stderr:
        pytest.fail('ruff is missing: python -m pip install -e ".[test]"')
    assert done.returncode == 0, done.stderr[-2000:]
    found = {}
    for d in json.loads(done.stdout):
        assert d["code"] == "C901", d
        name = d["message"].split("`")[1]
        found[(_rel(ROOT / d["filename"]), name)] = d["message"]
    _check_allow_list(found, COMPLEX_FUNCTIONS, "complexity", MAX_COMPLEXITY)


def test_modules_are_short():
    found = {}
    for path in _modules():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_MODULE_LINES:
            found[_rel(path)] = n
    _check_allow_list(found, LONG_MODULES, "modules (lines)", MAX_MODULE_LINES)
