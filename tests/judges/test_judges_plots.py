"""The judges' figures looked at as the PNGs the docs show (as tests/plot/test_plot_pngs.py does):
the heat map prints scikit-learn's confusion counts in its cells and sklearn's κ in its
title, with no overlapping labels; the leaderboard scatter puts each system at its two means
with non-overlapping names and the identity line; the Bland–Altman plot draws the bias and
limits bland_altman reports, its legend outside the data."""
from __future__ import annotations

import numpy as np
import pytest

import trunc_accessor as ta
from tests.plot.test_plot_pngs import _legend_in_figure, _legend_outside, _overlaps, _rendered

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the Agg backend

sklearn_metrics = pytest.importorskip("sklearn.metrics")


@pytest.fixture(scope="module")
def llm():
    judges = ta.judges.load_judges("llmjudge")
    return {"umbrela": judges["willia-umbrela1"], "llama70B": judges["RMITIR-llama70B"]}


def test_heatmap_cells_are_sklearns_counts(llm, tmp_path):
    ax = ta.judges.confusion_heatmap(llm)
    renderer = _rendered(ax, tmp_path, "heatmap")
    both = llm["umbrela"].merge(llm["llama70B"], on=["qid", "docid"])
    labels = sorted(set(both["rel_x"]) | set(both["rel_y"]))
    want = sklearn_metrics.confusion_matrix(both["rel_x"], both["rel_y"], labels=labels)
    cells = [t for t in ax.texts]
    assert [t.get_text() for t in cells] == [f"{v:,}" for v in want.ravel()]
    assert [t.get_position() for t in cells] == [(j, i) for i in range(len(labels))
                                                 for j in range(len(labels))]
    kappa = sklearn_metrics.cohen_kappa_score(both["rel_x"], both["rel_y"])
    assert f"κ = {kappa:.3f}" in ax.get_title() and f"{len(both):,} pairs" in ax.get_title()
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(g) for g in labels]
    for ticks in (ax.get_xticklabels(), ax.get_yticklabels()):
        assert not _overlaps([(t.get_text(), t.get_window_extent(renderer)) for t in ticks])
    assert not _overlaps([(t.get_text(), t.get_window_extent(renderer)) for t in cells])
    ax = ta.judges.confusion_heatmap(llm, normalize="true")
    _rendered(ax, tmp_path, "heatmap_rows")
    share = sklearn_metrics.confusion_matrix(both["rel_x"], both["rel_y"], labels=labels,
                                             normalize="true")
    assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in share.ravel()]
    plt.close("all")


def test_leaderboard_scatter_points_labels_and_identity_line(tmp_path):
    runs, _ = ta.load_example("cranfield")
    judges = ta.judges.load_judges("cranfield")
    found = ta.judges.leaderboard_agreement(runs, judges["assessors"], judges["second"],
                                            ["nDCG@10"], names=("assessors", "second"))
    ax = ta.judges.leaderboard_scatter(found)
    renderer = _rendered(ax, tmp_path, "leaderboard")
    points = ax.collections[0].get_offsets()
    rows = found.systems
    assert np.allclose(points, rows[["mean_a", "mean_b"]].to_numpy())
    names = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts]
    assert sorted(n for n, _ in names) == sorted(rows["system"]) and not _overlaps(names)
    from matplotlib.transforms import Bbox

    pad = 2.5 * ax.figure.dpi / 72  # the markers (s=30 points²) have a radius of ~3 points
    markers = [Bbox.from_extents(cx - pad, cy - pad, cx + pad, cy + pad)
               for cx, cy in ax.transData.transform(points)]
    assert not any(box.overlaps(m) for _, box in names for m in markers)
    identity = ax.get_lines()[0]
    assert np.array_equal(identity.get_xdata(), identity.get_ydata())
    tau = found.summary["kendall_tau"].iloc[0]
    assert f"τ = {tau:.3f}" in ax.get_title()
    assert ax.get_xlabel() == "nDCG@10 under assessors (mean)"
    plt.close("all")


def test_bland_altman_plot_lines_and_bubbles(llm, tmp_path):
    ax = ta.judges.bland_altman_plot(llm)
    renderer = _rendered(ax, tmp_path, "bland_altman")
    row = ta.judges.bland_altman(llm).iloc[0]
    levels = [line.get_ydata()[0] for line in ax.get_lines()]
    assert np.allclose(levels, [0.0, row["bias"], row["loa_low"], row["loa_high"]])
    assert sum(int(t.get_text().replace(",", "")) for t in ax.texts) == row["n"]
    assert _legend_outside(ax, renderer)
    assert _legend_in_figure(ax)  # and not cut off by a plain savefig
    plt.close("all")
