"""The code base lints clean: ruff (pinned in the test extra, configured in pyproject.toml:
pycodestyle errors with the 100-character line, pyflakes and import order) finds nothing in
the package, the tests, the documentation hooks, the benchmarks, the examples and the notebooks. The
pre-commit configuration runs the same checks as CI."""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import ROOT

# what CI lints (through this test) and what the pre-commit hook runs
PATHS = ["trunc_accessor", "tests", "docs", "bench", "examples", "notebooks"]
LINT = ["python", "-m", "ruff", "check", *PATHS]


def _test_extra() -> list[str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["test"]


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, *LINT[1:]], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert "No module named ruff" not in done.stderr, (
        'ruff is missing: python -m pip install -e ".[test]"')
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


def test_the_linters_are_pinned_and_installed_at_the_pin():
    """ruff's and mypy's findings change from one version to the next: the test extra pins
    both exactly, and the copies running here are those versions."""
    from importlib.metadata import PackageNotFoundError, version

    pins = {m.group(1): m.group(2) for spec in _test_extra()
            if (m := re.fullmatch(r"(ruff|mypy)==([\w.]+)", spec))}
    assert set(pins) == {"ruff", "mypy"}, _test_extra()
    for name, pinned in pins.items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            pytest.fail(f'{name} is missing: python -m pip install -e ".[test]"')
        assert installed == pinned, (f"{name} {installed} is installed, the test extra pins "
                                     f"{pinned}: python -m pip install -e \".[test]\"")


def test_ruff_selects_import_order_and_the_line_length():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]
    assert config["line-length"] == 100
    assert set(config["lint"]["select"]) >= {"E", "F", "I"}


def test_pre_commit_runs_the_checks_ci_runs():
    """.pre-commit-config.yaml: local hooks (language system, nothing fetched) running the
    same ruff command as this test and mypy as tests/package/test_types.py runs it."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    hooks = {h["id"]: h for h in repo["hooks"]}
    assert set(hooks) == {"ruff", "mypy"}
    assert hooks["ruff"]["entry"].split() == LINT
    assert hooks["mypy"]["entry"].split() == ["python", "-m", "mypy"]
    for hook in hooks.values():
        assert hook["language"] == "system" and hook["pass_filenames"] is False, hook


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_no_tool_cache_is_tracked():
    """The tools' caches are ignored, not committed: a tracked .mypy_cache changes on every
    type check, so the pre-commit hook saw files modified and failed."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("needs git")
    done = subprocess.run(["git", "ls-files", "--", ".mypy_cache", ".ruff_cache",
                           ".pytest_cache", ".hypothesis", "*__pycache__*"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "", done.stdout[:2000]
    ignored = (ROOT / ".gitignore").read_text().split()
    assert {".mypy_cache/", ".ruff_cache/", ".pytest_cache/", ".hypothesis/"} <= set(ignored)
