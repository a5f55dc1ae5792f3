"""The package type-checks: mypy (pinned in the test extra, configured in pyproject.toml)
passes on trunc_accessor. The package ships py.typed, so users' type checkers read its
annotations."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT


def test_mypy_passes_on_the_package():
    pytest.importorskip("mypy")
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    assert (ROOT / "trunc_accessor" / "py.typed").exists()
