"""The notebooks in notebooks/ are documentation that runs: each executes top to bottom without
error, and the committed copy carries outputs produced by its current code."""
from __future__ import annotations

from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def _code_sources(nb) -> list[str]:
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def test_notebooks_exist():
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_notebook_has_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    # every code cell was executed and saved with its outputs (a cell such as an import may
    # legitimately print nothing, but it still carries its execution count)
    missing = [i for i, cell in enumerate(nb.cells)
               if cell.cell_type == "code" and cell.get("execution_count") is None]
    assert not missing, f"{path.name}: code cells {missing} were saved without being executed"
    assert any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), \
        f"{path.name}: saved without outputs"
    errors = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors, f"{path.name}: stored errors in code cells {errors}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path):
    pytest.importorskip("ipykernel")
    stored = nbformat.read(path, as_version=4)
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=120,
                                     resources={"metadata": {"path": str(NOTEBOOK_DIR)}})
    client.execute()  # raises CellExecutionError on any error
    # the stored outputs come from the code as it stands
    assert _code_sources(nb) == _code_sources(stored)
    # and every stored code cell that prints something now printed something then
    for i, (old, new) in enumerate(zip(stored.cells, nb.cells)):
        if new.cell_type == "code":
            assert bool(old.get("outputs")) == bool(new.outputs), \
                f"{path.name}: stored outputs of cell {i} do not match a fresh run"


def test_truncation_notebook_text_states_what_its_outputs_show():
    """02_truncation's prose against its own stored outputs: the ranking lengths it describes
    are the ones its cells print, and query 1 of the NIL example stops where the printed cut
    shows (one document after its only relevant one, not right after it)."""
    import ast
    import re

    nb = nbformat.read(NOTEBOOK_DIR / "02_truncation.ipynb", as_version=4)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    printed = "\n".join("".join(o.get("text", "")) for c in nb.cells if c.cell_type == "code"
                        for o in c.get("outputs", []) if o.get("output_type") == "stream")
    lo, hi, median = map(int, re.search(r"ranking lengths: (\d+) to (\d+) documents, "
                                        r"median (\d+)", printed).groups())
    if lo < hi:  # the shipped rankings differ in length: no page may say they are all 1,000
        assert not re.search(r"(?<!up to )1,000 documents each|rankings of\s+1,000", prose)
    rlo, rhi = map(int, re.search(r"Robust03 ranking lengths: (\d+) to (\d+)", printed).groups())
    if rlo < rhi:
        assert "100 topics, 1,000 documents each" not in prose
    cut = ast.literal_eval(re.search(r"\{'1': .*\}", printed).group(0))
    relevant_at = cut["1"].index("a")  # query 1's only relevant document (the qrels' "a")
    assert len(cut["1"]) == relevant_at + 2  # one document after it
    assert "stops one document after its only relevant one" in prose
    assert "stops right after" not in prose
