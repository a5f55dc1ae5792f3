"""The documentation site covers the public API: every public function and class has its
reference entry, every registered metric its generated page; the site builds in strict mode
where mkdocs is installed (CI builds it: .ci/run)."""
from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import trunc_accessor as ta

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MODULES = ("stats.significance", "stats.paired", "stats.tukey", "stats.anova", "stats.mixed",
           "stats.agreement",
           "stats.rbo", "stats.experiment", "stats.report", "plot.curves", "plot.experiment",
           "properties.checker", "judges.interrater", "judges.detail",
           "judges.plot", "judges.leaderboard",
           "stats.design", "stats.sample_size", "stats.meta", "plot.power", "plot.forest",
           "stats.reproduce", "stats.reproduce_order")


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


def test_family_tables_list_every_metric_and_parameter():
    """docs/metrics/families.md has one table row per built-in metric (its name linked to
    the metric's generated page), with every parameter and its default."""
    page = (DOCS / "metrics" / "families.md").read_text()
    rows = {m.group(1): m.group(0)
            for m in re.finditer(r"^\| \[`(\w+)`\]\(\1\.md\).*$", page, re.MULTILINE)}
    builtin = {name: m for name, m in ta.REGISTRY.items() if not m.user}
    assert set(rows) == set(builtin)
    for name, metric in builtin.items():
        for p in metric.params:
            assert f"`{p.name}={p.default!r}`" in rows[name], (name, p.name)


def test_every_metric_gets_a_page_with_its_names_and_an_example():
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]') builds "
                        "the pages; CI installs it before the suite")
    hooks = _hooks()
    dialects = hooks._dialect_names()
    for metric in ta.REGISTRY.values():
        page = hooks.metric_page(metric, dialects.get(metric.name, {}))
        assert page.startswith(f"# `{metric.name}`") and "## Example" in page, metric.name
        assert "SPEC" not in page, metric.name
    assert "`map`" in hooks.metric_page(ta.REGISTRY["ap"], dialects["ap"])
    assert dialects["ap"]["trec_eval"] == ["map", "gm_map", "map_cut_N"]
    assert dialects["binary_g"]["trec_eval"] == ["binG"]


def _hooks():
    sys.path.insert(0, str(DOCS))
    try:
        import hooks
    finally:
        sys.path.remove(str(DOCS))
    return hooks


# .ci/run builds the site strictly, from this checkout, in a fresh venv (.ci/docs highest)
# and names the folder here: the test then reads that site instead of building it again
BUILT_SITE = os.environ.get("TRUNC_ACCESSOR_BUILT_SITE", "")


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None
                    and not Path(BUILT_SITE or ".no-site").is_dir(), reason="mkdocs is not "
                    "installed (pip install -e '.[docs]'); CI builds the site")
def test_site_builds_in_strict_mode(tmp_path):
    """``python -m mkdocs`` from the checkout: the pages generated from the registry, the
    docstrings and the checkout's own package, whatever copy of it is installed (or the
    site .ci/run has just built that way)."""
    site = Path(BUILT_SITE) if BUILT_SITE and Path(BUILT_SITE).is_dir() else tmp_path / "site"
    if site == tmp_path / "site":
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                               str(site)], cwd=ROOT, capture_output=True, text=True,
                              timeout=300, check=False, env={**os.environ,
                                                             "NO_MKDOCS_2_WARNING": "1"})
        assert done.returncode == 0, done.stderr[-3000:]
    assert (site / "metrics" / "ap" / "index.html").exists()
    assert (site / "notebooks" / "01_quickstart" / "index.html").exists()
    assert (site / "changelog" / "index.html").exists()
    # ir_measures' registry table, on the ir_measures guide
    guide = (site / "guides" / "from-ir_measures" / "index.html").read_text()
    assert "SetP, SetRelP" in guide and "ir_measures-registry -->" not in guide


# --------------------------------------------------------------------------- rendered text
# a Sphinx role (:func:`x`) shows raw on a Markdown site: docstrings use plain backticks
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|data|obj|exc|ref|doc|term|const|any):`")


def _pages() -> list[Path]:
    return [*sorted(DOCS.rglob("*.md")), ROOT / "README.md", ROOT / "CHANGELOG.md"]


def _docstrings():
    """(where, docstring) of every module, class and function of the package."""
    for path in sorted((ROOT / "trunc_accessor").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    name = getattr(node, "name", "module")
                    yield f"{path.relative_to(ROOT)}:{name}", doc


def test_no_sphinx_roles_in_docstrings_or_pages():
    found = [where for where, doc in _docstrings() if ROLE.search(doc)]
    found += [str(p.relative_to(ROOT)) for p in _pages() if ROLE.search(p.read_text())]
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        if any(ROLE.search("".join(c["source"])) for c in cells if c["cell_type"] == "markdown"):
            found.append(str(nb.relative_to(ROOT)))
    assert not found, f"Sphinx roles, shown raw on the site: {found}"


def test_docstrings_hold_no_markdown_reference_links():
    """``[a][b]`` outside a code span is a Markdown reference link: mkdocs-autorefs looks ``b``
    up, and an unknown target fails the strict build (BPM's ``[G_i < T][i < k]`` did)."""
    found = []
    for where, doc in _docstrings():
        text = re.sub(r"``.*?``", "", doc, flags=re.DOTALL)
        text = "\n".join(line for line in text.splitlines()
                         if not line.lstrip().startswith((">>>", "...")))
        found += [(where, m.group(0)) for m in re.finditer(r"\[[^\]]*\]\s?\[[^\]]*\]", text)]
    assert not found, found


def test_cli_page_is_a_table_of_every_option():
    pytest.importorskip("mkdocs")
    from trunc_accessor.frontends.cli import trec_eval as cli

    page = _hooks().cli_page()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    for action in cli.build_parser(ta.__version__)._actions:  # --version included
        spellings = action.option_strings or [action.metavar]
        assert any(all(f"`{s}" in row for s in spellings) for row in rows), spellings
    prose = re.sub(r"```.*?```", "", page, flags=re.DOTALL)  # fenced blocks aside
    assert "``" not in prose and "usage: trunc-accessor" in page


def test_metrics_index_ranx_column_is_what_the_parser_accepts():
    """Every ranx metric name (read from ranx itself) that the parser accepts is listed in the
    index's ranx column of the metric it parses to, and nothing else is listed there."""
    pytest.importorskip("mkdocs")
    ranx_metrics = pytest.importorskip("ranx.metrics")
    from ranx.meta.evaluate import extract_metric_and_params

    from trunc_accessor.metrics.names import parse_named

    ranx_names = re.findall(r'metric == "([^"]+)"', inspect.getsource(ranx_metrics.metric_switch))
    assert {"precision", "recall", "f1", "mrr", "ndcg_burges"} <= set(ranx_names)
    accepted = {}
    for name in ranx_names:
        spelling = name + ".95" if name == "rbp" else name  # ranx's RBP needs its p
        extract_metric_and_params(spelling)  # a spelling ranx takes
        try:
            named = parse_named(spelling)
        except ValueError:
            continue
        accepted[spelling] = named[0].measure.metric.name
    hooks = _hooks()
    column = {name: metric for metric, d in hooks._dialect_names().items()
              for name in d.get("ranx", [])}
    assert column == accepted
    index = hooks.index_page(ta.REGISTRY, hooks._dialect_names())
    for name, metric in accepted.items():
        row = next(line for line in index.splitlines() if line.startswith(f"| [`{metric}`]"))
        assert f"`{name}`" in row.split(" | ")[4], (name, row)


def test_ci_builds_the_site_in_fresh_venvs_on_today_and_floor_versions():
    """The site is built as a fresh machine builds it: a new venv (never the packages this
    machine holds) with the versions resolved today, and another with the docs extra's
    floors; the README's command is the one that works from a checkout."""
    docs = (ROOT / ".ci" / "docs").read_text()
    assert 'venv --quiet' in docs and "--refresh" in docs and '-e ".[docs]"' in docs
    assert '-m mkdocs build --strict' in docs
    assert "bash .ci/docs highest" in (ROOT / ".ci" / "run").read_text()
    assert "bash .ci/docs lowest-direct" in (ROOT / ".ci" / "lowest").read_text()
    assert 'python -m pip install -e ".[docs]" && python -m mkdocs build --strict' in (
        ROOT / "README.md").read_text()


def test_site_pages_do_not_send_readers_to_the_readme():
    """The site stands alone: its pages, the notebooks' text and the docstrings it renders
    link to site pages, never to "the README" (nor to the project's internal notes)."""
    hooks = _hooks() if importlib.util.find_spec("mkdocs") else None
    texts = {str(p.relative_to(ROOT)): p.read_text() for p in sorted(DOCS.rglob("*.md"))}
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        texts[nb.name] = "\n".join("".join(c["source"]) for c in cells
                                   if c["cell_type"] == "markdown")
    texts.update(_docstrings())
    if hooks is not None:
        texts["cli.md"] = hooks.cli_page()
        texts["metrics/index.md"] = hooks.index_page(ta.REGISTRY, hooks._dialect_names())
    found = [(where, word) for where, text in texts.items()
             for word, pattern in (("README", r"\bREADME"), ("SPEC", r"\bSPEC\b"),
                                   ("../shared", r"\.\./shared"))
             if re.search(pattern, text)]
    assert not found, found
