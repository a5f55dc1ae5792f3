"""The metric declaration modules stay readable: each at most 400 lines, each function at
most 60 lines of code (its docstring aside) and of cyclomatic complexity at most 15."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

METRICS = Path(__file__).resolve().parents[2] / "trunc_accessor" / "metrics"
MODULES = ("registry", "params", "parse", "docs", "dialects", "names", "trec_dialect",
           "prefix", "standard", "dcg", "rbp")


@pytest.mark.parametrize("module", MODULES)
def test_module_and_functions_are_short(module):
    path = METRICS / f"{module}.py"
    text = path.read_text()
    assert len(text.splitlines()) <= 400, f"{module}.py has {len(text.splitlines())} lines"
    long = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # the docstring
            lines = (body[-1].end_lineno - body[0].lineno + 1) if body else 0
            if lines > 60:
                long.append((node.name, lines))
    assert not long, f"functions of {module}.py over 60 lines: {long}"


def test_functions_are_simple():
    pytest.importorskip("ruff")
    paths = [str(METRICS / f"{m}.py") for m in MODULES]
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "C901", "--config",
         "lint.mccabe.max-complexity=15", "--output-format", "concise", *paths],
        capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
