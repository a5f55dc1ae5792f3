"""Effort plots render without a display (Agg backend): CRP curves per query (Ferro et al.
Figure 2) and the effort/gain scatter with the paper's quadrant grid (Figures 7–10)."""
from __future__ import annotations

import runpy
import sys

import matplotlib
import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import ROOT
from tests.metrics.test_twist import PAPER_CRP, paper_frames
from trunc_accessor import plot

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_plot_crp_draws_run_ideal_full_scale_and_rb(library):
    run, qrels = paper_frames()
    if library != "pandas":
        run = pl.from_pandas(run)
        run = run.lazy() if library == "lazy" else run
    fig = run.ir.plot_crp(qrels, qids=["B", "A"])
    assert isinstance(fig, matplotlib.figure.Figure)
    assert [ax.get_title() for ax in fig.axes] == ["qid B", "qid A"]
    ax = fig.axes[0]
    lines = {line.get_label().removesuffix(" (off the panel)"): line for line in ax.get_lines()}
    assert set(lines) == {"ideal", "full scale", "worst", "run", "RB = 7"}
    # the y-axis follows the run's curve; references beyond it are said to run off the panel
    low, high = ax.get_ylim()
    assert low <= min(PAPER_CRP["B"]) and high >= max(PAPER_CRP["B"])
    off = [line.get_label() for line in ax.get_lines() if "off the panel" in line.get_label()]
    refs = PAPER_CRP["full-scale"] + PAPER_CRP["worst"]
    assert bool(off) == (min(refs) < low or max(refs) > high)
    assert list(lines["worst"].get_ydata()) == PAPER_CRP["worst"]
    assert list(lines["run"].get_ydata()) == PAPER_CRP["B"]
    assert list(lines["full scale"].get_ydata()) == PAPER_CRP["full-scale"]
    assert list(lines["RB = 7"].get_xdata()) == [7, 7]
    fig.canvas.draw()


def test_plot_crp_systems_and_undefined_queries():
    run, qrels = paper_frames()
    both = pd.concat([run.assign(system="S1"), run.assign(system="S2", score=-run.score)])
    qrels = pd.concat([qrels, pd.DataFrame({"qid": ["nil"], "docid": ["z"], "rel": [0]})])
    fig = both.ir.plot_crp(qrels, by="system", qids=["ideal", "nil", "B"], ncols=2, depth=20)
    assert len(fig.axes) == 3
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert {"S1", "S2"} <= set(labels)
    assert len(fig.axes[0].get_lines()[-2].get_xdata()) == 20  # depth pads to 20 ranks
    assert "R = 0" in fig.axes[1].texts[0].get_text()
    with pytest.raises(ValueError, match="no ranking"):
        both.ir.plot_crp(qrels, by="system", qids=["nope"])


def test_effort_gain_per_query_and_per_system():
    rng = np.random.default_rng(0)
    values = pd.DataFrame({"system": np.repeat(["a", "b"], 20), "qid": list(range(20)) * 2,
                           "ap": rng.random(40), "twist": rng.random(40)}
                          ).set_index(["system", "qid"])
    values.iloc[3] = np.nan  # an undefined query is left out
    ax = plot.effort_gain(values)
    assert ax.collections[0].get_offsets().shape == (39, 2)
    assert ax.get_xlim() == (0.0, 1.0)
    # the grid: Twist bounds of Figure 6 and the gain quartiles
    xs = sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_xdata()[0] ==
                line.get_xdata()[1] and line.get_linestyle() == "-")
    assert xs == [0.25, 0.5, 0.75]
    ys = sorted(line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == "--")
    assert ys == pytest.approx(np.quantile(values["ap"].dropna(), [0.25, 0.5, 0.75]))
    shares = [t.get_text() for t in ax.texts if t.get_text().endswith("%")]
    assert sum(int(s[:-1]) for s in shares) == pytest.approx(100, abs=len(shares))
    assert {"huge effort", "low effort"} <= {t.get_text() for t in ax.texts}
    # per system, coloured, from Polars
    means = ta.aggregate(pl.from_pandas(values.reset_index()).drop("qid"), by="system")
    ax = plot.effort_gain(means, hue="system", annotate=False)
    assert len(ax.collections) == 2 and ax.get_legend() is not None
    ax.figure.canvas.draw()
    with pytest.raises(ValueError, match="no column 'ndcg'"):
        plot.effort_gain(values, gain="ndcg")


def test_effort_gain_on_a_real_run():
    run, qrels = ta.load_example()
    values = run.ir.evaluate(qrels, ["ap", "twist"], ties="trec_eval")
    ax = plot.effort_gain(values, gain="ap", effort="twist")
    assert ax.collections[0].get_offsets().shape == (3, 2)


def test_matplotlib_missing_gives_a_clear_error(monkeypatch):
    run, qrels = paper_frames()
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"trunc_accessor\[plots\]"):
        run.ir.plot_crp(qrels, qids=["A"])
    with pytest.raises(ImportError, match="pip install"):
        plot.effort_gain(pd.DataFrame({"ap": [0.1], "twist": [0.2]}))


def test_effort_example_renders_the_crp_figure_as_png(tmp_path):
    """examples/effort.py renders docs/crp.png (here into a temporary file)."""
    out = tmp_path / "crp.png"
    runpy.run_path(str(ROOT / "examples" / "effort.py"), run_name="example")["main"](out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
