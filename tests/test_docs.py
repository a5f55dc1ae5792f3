"""The documentation site covers the public API: every public function and class has its
reference entry, every registered metric its generated page; the site builds in strict mode
where mkdocs is installed (CI builds it: .ci/run)."""
from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import trunc_accessor as ta

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MODULES = ("analysis.stats", "analysis.paired", "analysis.tukey", "analysis.agreement",
           "analysis.plot", "analysis.properties", "analysis.judges", "analysis.judges_detail",
           "analysis.judges_plot", "analysis.leaderboard")


def _documented() -> set[str]:
    text = "\n".join(p.read_text() for p in (DOCS / "reference").glob("*.md"))
    return set(re.findall(r"^::: ([\w.]+)", text, flags=re.MULTILINE))


def test_every_public_name_has_a_reference_entry():
    documented = _documented()
    missing = []
    for name in ta.__all__:
        obj = getattr(ta, name)
        if inspect.ismodule(obj) or name in ("REGISTRY",):
            continue
        where = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__name__', name)}"
        if f"trunc_accessor.{name}" not in documented and where not in documented:
            missing.append(name)
    import importlib

    for module in MODULES:
        mod = importlib.import_module(f"trunc_accessor.{module}")
        for name, obj in inspect.getmembers(mod, inspect.isfunction):
            if not name.startswith("_") and obj.__module__ == mod.__name__ \
                    and f"trunc_accessor.{module}.{name}" not in documented:
                missing.append(f"{module}.{name}")
    assert not missing, f"public names without a docs/reference entry: {missing}"


def test_every_metric_gets_a_page_with_its_names_and_an_example():
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]') builds "
                        "the pages; CI installs it before the suite")
    sys.path.insert(0, str(DOCS))
    try:
        import hooks
    finally:
        sys.path.remove(str(DOCS))
    dialects = hooks._dialect_names()
    for metric in ta.REGISTRY.values():
        page = hooks.metric_page(metric, dialects.get(metric.name, {}))
        assert page.startswith(f"# `{metric.name}`") and "## Example" in page, metric.name
        assert "SPEC" not in page, metric.name
    assert "`map`" in hooks.metric_page(ta.REGISTRY["ap"], dialects["ap"])
    assert dialects["ap"]["trec_eval"] == ["map", "gm_map", "map_cut_N"]
    assert dialects["binary_g"]["trec_eval"] == ["binG"]


@pytest.mark.skipif(shutil.which("mkdocs") is None, reason="mkdocs is not installed "
                    "(pip install -e '.[docs]'); CI builds the site")
def test_site_builds_in_strict_mode(tmp_path):
    done = subprocess.run([shutil.which("mkdocs"), "build", "--strict", "-q", "-d",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "metrics" / "ap" / "index.html").exists()
    assert (tmp_path / "site" / "notebooks" / "01_quickstart" / "index.html").exists()
