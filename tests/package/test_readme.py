"""The README stays in step with the code: its two set-up commands are the ones .ci/run and
the example use, and its examples run (the metric tables live in docs/metrics/families.md,
checked by test_docs)."""
from __future__ import annotations

from tests.conftest import ROOT


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
