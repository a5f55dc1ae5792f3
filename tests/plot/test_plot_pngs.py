"""Every plot looked at as the PNG the docs show: labels do not overlap each other (their
rendered bounding boxes), legends sit outside the data, small shares are not printed as
0 %, and the forest plot shows what the experiment table holds."""
from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

import trunc_accessor as ta

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the Agg backend


@pytest.fixture(scope="module")
def experiment(cranfield):
    runs, qrels = cranfield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ta.experiment(runs, qrels, ["nDCG@10", "map"], baseline="bm25", per_query=True)


def _rendered(ax, tmp_path, name):
    fig = ax.figure
    fig.savefig(tmp_path / f"{name}.png", dpi=90)
    assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    return fig.canvas.get_renderer()


def _overlaps(boxes) -> list:
    return [(a, b) for (a, ba), (b, bb) in combinations(boxes, 2) if ba.overlaps(bb)]


def _legend_outside(ax, renderer) -> bool:
    legend = ax.get_legend()
    box, axes = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    return box.x0 >= axes.x1 - 1 or box.x1 <= axes.x0 + 1 or box.y0 >= axes.y1 - 1 \
        or box.y1 <= axes.y0 + 1


def test_metric_scatter_labels_do_not_overlap(experiment, tmp_path):
    """bm25_stem and bm25plus_stem sit 0.0001 apart: their labels used to print on top of
    each other."""
    table, _ = experiment
    ax = ta.plot.metric_scatter(table, "nDCG@10", "map")
    renderer = _rendered(ax, tmp_path, "scatter")
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts]
    assert len(boxes) == 7 and not _overlaps(boxes)
    plt.close("all")


def test_forest_plot_of_means_and_differences(experiment, tmp_path):
    table, _ = experiment
    ax = ta.plot.interval_plot(table, "map")
    renderer = _rendered(ax, tmp_path, "forest")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "bm25 (baseline)" and len(labels) == 7
    ticks = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.get_yticklabels()]
    assert not _overlaps(ticks) and _legend_outside(ax, renderer)
    rows = table[table.metric == "map"]
    segments = ax.collections[0].get_segments()  # one interval per system, top to bottom
    for (_, row), seg in zip(rows.iterrows(), segments):
        assert seg[0][0] == pytest.approx(row["ci_low"]) and seg[1][0] == pytest.approx(
            row["ci_high"])
    ax = ta.plot.interval_plot(table, "map", kind="delta")
    renderer = _rendered(ax, tmp_path, "forest_delta")
    assert len(ax.get_yticklabels()) == 6 and ax.get_xlabel() == "map: difference to bm25"
    filled = sum(len(c.get_offsets()) for c in ax.collections[1:]
                 if c.get_label() == "significant")
    assert filled == int(rows["significant"].sum())
    with pytest.raises(ValueError, match="baseline"):
        ta.plot.interval_plot(table[table.system != "bm25"].drop(columns="baseline"), "map",
                              kind="delta")
    plt.close("all")


def test_distributions_legend_is_outside_the_data(experiment, tmp_path):
    _, per = experiment
    for kind in ("box", "violin"):
        ax = ta.plot.query_distributions(per, "map", kind=kind)
        renderer = _rendered(ax, tmp_path, f"dist_{kind}")
        assert _legend_outside(ax, renderer)
        ticks = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.get_xticklabels()]
        assert not _overlaps(ticks)
    plt.close("all")


def test_effort_gain_cells_print_small_shares_and_do_not_overlap(tmp_path):
    rng = np.random.default_rng(3)
    n = 600
    values = pd.DataFrame({"ap": rng.random(n), "twist": rng.random(n)})
    values.loc[0, "twist"] = 0.05  # alone in its cell after the next line moves the rest
    values.loc[1:, "twist"] = np.clip(values.loc[1:, "twist"], 0.3, 1.0)
    ax = ta.plot.effort_gain(values)
    renderer = _rendered(ax, tmp_path, "effort")
    texts = [t.get_text() for t in ax.texts if t.get_text().endswith("%")]
    assert "0%" not in texts and any(t.startswith("0.") for t in texts)  # 1/600 = 0.17 %
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts
             if t.get_text().endswith("%")]
    assert not _overlaps(boxes)
    plt.close("all")


def test_crp_panel_follows_the_runs_and_keeps_its_legend_outside(tmp_path, cranfield):
    runs, qrels = cranfield
    fig = runs[runs.system == "bm25"].ir.plot_crp(qrels, qids=["1"])
    ax = fig.axes[0]
    renderer = _rendered(ax, tmp_path, "crp")
    assert _legend_outside(ax, renderer)
    run_line = next(line for line in ax.get_lines() if line.get_label() == "run")
    low, high = ax.get_ylim()
    y = run_line.get_ydata()
    assert low <= min(y) and high >= max(y) and (high - low) < 3 * (max(y) - min(y) + 1)
    plt.close("all")


def _legend_in_figure(ax) -> bool:
    """The legend's rendered box lies within the figure (drawn at the figure's own dpi,
    as a plain savefig draws it)."""
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    return box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.x1 and box.y1 <= fig.bbox.y1


def test_legends_beside_the_axes_stay_inside_the_figure(experiment, tmp_path):
    """interval_plot's legend (and query_distributions', beside the Axes too) used to run
    past the figure's right edge, cut off by a plain savefig; the figure's layout now makes
    room for it, and the legend stays outside the data."""
    table, per = experiment
    for ax in (ta.plot.interval_plot(table, "map"),
               ta.plot.interval_plot(table, "map", kind="delta"),
               ta.plot.query_distributions(per, "map")):
        assert _legend_in_figure(ax)
        assert _legend_outside(ax, ax.figure.canvas.get_renderer())
    plt.close("all")
