"""Every raise a user can cause is one of the library's errors (trunc_accessor.errors).

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import pytest

import trunc_accessor as ta


def test_every_raise_a_user_can_cause_is_a_library_error():
    """Walk the package's raise statements: ValueError/TypeError only inside parameter
    checkers (``check_*``, whose message the registry wraps in a ParameterError naming the
    parameter); internal invariants (AssertionError) and misuse of the registration API by
    a developer (RuntimeError in ``register``) are the only other exceptions. The calls
    into Polars, NumPy, pandas, SciPy and ir_datasets that can fail on input are covered by
    the hostile-input sweeps below (and, for ir_datasets, test_irds)."""
    import ast
    from pathlib import Path

    package = Path(ta.__file__).parent
    stray = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, ast.Raise) or node.exc is None:
                    continue
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                name = getattr(exc, "id", getattr(exc, "attr", None))
                if name in ("ValueError", "TypeError", "KeyError", "IndexError",
                            "OverflowError", "ZeroDivisionError"):
                    if not fn.name.lstrip("_").startswith("check"):
                        stray.append(f"{path.relative_to(package)}:{node.lineno} {fn.name}")
                elif name == "RuntimeError" and fn.name not in (
                        "register", "deco", "_claim_dialect_names"):
                    stray.append(f"{path.relative_to(package)}:{node.lineno} {fn.name}")
    assert not stray, stray
    run, qrels = ta.load_example()
    with pytest.raises(ta.ParameterError, match="ties="):
        run.ir.ap(qrels, ties="avg")
