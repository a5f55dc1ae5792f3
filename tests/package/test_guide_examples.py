"""Every example of the guides runs as pasted, on the data shipped with the package.

The convention, for docs/guides/*.md, docs/index.md, docs/metrics/families.md and README.md:

* a ```python block holding ``>>> `` prompts is a doctest: its outputs are checked (ELLIPSIS
  and NORMALIZE_WHITESPACE);
* any other ```python block is executed as it stands;
* the blocks of one page run in order in one namespace (a later block may use the names an
  earlier one defined), in an empty temporary directory as the working directory, so a page
  that reads a file writes it first;
* a block is skipped only with a marker on the line right before its fence (blank lines
  between are allowed), ``<!-- no-run: the reason -->``, for what cannot run here (the
  network, say). Every marker must give a reason.

Plots draw on matplotlib's Agg backend and are closed after each page; metrics a page declares
are removed after it, so that other tests see the registry as shipped.
"""
from __future__ import annotations

import doctest
import re
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGES = [*sorted((ROOT / "docs" / "guides").glob("*.md")), ROOT / "docs" / "index.md",
         ROOT / "docs" / "metrics" / "families.md", ROOT / "README.md"]
# a fence may be indented (a block inside a list item): its lines lose that indentation
FENCE = re.compile(r"^([ \t]*)```python[ \t]*\n(.*?)^\1```[ \t]*$", re.MULTILINE | re.DOTALL)
NO_RUN = re.compile(r"<!--\s*no-run:\s*(.*?)\s*-->\s*$")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def blocks(text: str):
    """(line number, source, skip reason or None) of each ```python block of a page."""
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").splitlines()
        reason = None
        if before:
            marker = NO_RUN.search(before[-1])
            if marker:
                reason = marker.group(1)
                assert reason, f"line {line}: a no-run marker gives its reason"
        yield line, textwrap.dedent(m.group(2)), reason


def run_page(path: Path, keep_going: bool = False) -> list[str]:
    """Run the page's blocks in order in one namespace; raise on the first failure (with
    ``keep_going``: return every failure, to mend a page in one pass)."""
    failures: list[str] = []
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(ROOT))
    namespace: dict = {"__name__": "__main__"}
    parser = doctest.DocTestParser()
    for line, source, reason in blocks(text):
        if reason is not None:
            continue
        where = f"{name}:{line}"
        if re.search(r"^\s*>>> ", source, re.MULTILINE):
            test = parser.get_doctest(source, namespace, where, name, line)
            runner = doctest.DocTestRunner(optionflags=FLAGS)
            report: list[str] = []
            runner.run(test, out=report.append, clear_globs=False)
            namespace.update(test.globs)  # DocTest works on a copy of the namespace
            if runner.failures:
                failures.append(f"{where}: doctest failed\n" + "".join(report))
        else:
            try:
                exec(compile(source, where, "exec"), namespace)
            except Exception as e:
                failures.append(f"{where}: the block raised {e!r}")
                if not keep_going:
                    raise AssertionError(failures[-1]) from e
        if failures and not keep_going:
            pytest.fail(failures[-1], pytrace=False)
    return failures


@pytest.mark.parametrize("path", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_examples_run(path, tmp_path, monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from trunc_accessor.metrics.registry import REGISTRY, unregister

    declared = set(REGISTRY)
    monkeypatch.chdir(tmp_path)
    try:
        run_page(path)
    finally:
        plt.close("all")
        for name in set(REGISTRY) - declared:  # metrics a page declared (ta.metric, define)
            unregister(name)


def test_markers_are_rare_and_explained():
    """Markers skip what cannot run here; each names its reason."""
    skipped = [(p.name, line, reason) for p in PAGES
               for line, _, reason in blocks(p.read_text()) if reason is not None]
    assert all(reason for _, _, reason in skipped)
    total = sum(1 for p in PAGES for _ in blocks(p.read_text()))
    assert len(skipped) <= max(3, total // 10), skipped


def test_harness_reads_doctests_blocks_and_markers(tmp_path):
    """The harness itself: a doctest whose output differs fails, a marker skips its block
    only, and later blocks see earlier names."""
    page = tmp_path / "page.md"
    page.write_text("x\n\n```python\na = 2\n```\n\n<!-- no-run: needs the network -->\n"
                    "```python\nraise RuntimeError\n```\n\n```python\n>>> a + 1\n3\n```\n")
    assert [r for _, _, r in blocks(page.read_text())] == [None, "needs the network", None]
    run_page_at(page)
    page.write_text("```python\n>>> 1 + 1\n3\n```\n")
    with pytest.raises(pytest.fail.Exception):
        run_page_at(page)


def run_page_at(page: Path) -> None:
    """run_page for a file outside the repository (the harness's own test)."""
    global ROOT
    saved = ROOT
    ROOT = page.parent
    try:
        run_page(page)
    finally:
        ROOT = saved
