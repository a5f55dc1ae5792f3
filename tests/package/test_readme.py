"""The README stays in step with the code: its metric table names every metric with its
parameters, and its two set-up commands are the ones .ci/run and the example use."""
from __future__ import annotations

import re

from tests.conftest import ROOT
from trunc_accessor.metrics.registry import REGISTRY


def test_metric_table_lists_every_metric_and_parameter():
    readme = (ROOT / "README.md").read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)`.*$", readme, re.MULTILINE)}
    builtin = {name: m for name, m in REGISTRY.items() if not m.user}
    assert set(rows) == set(builtin)
    for name, metric in builtin.items():
        for p in metric.params:
            assert f"`{p.name}={p.default!r}`" in rows[name], (name, p.name)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci in readme
    assert "python examples/quickstart.py" in readme
    assert (ROOT / "examples" / "quickstart.py").exists()


def test_examples_run():
    """The README's examples run on the shipped data (as its first command does)."""
    import runpy

    for name in ("quickstart.py", "truncation.py"):
        runpy.run_path(str(ROOT / "examples" / name), run_name="__main__")
