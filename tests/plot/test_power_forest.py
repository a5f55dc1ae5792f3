"""The power curve and the forest plot as PNGs (Agg backend): axis labels, one line per
curve, one row per collection and model, and the arguments each refuses."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import InputError

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the Agg backend

pytest.importorskip("scipy")


def _per_query(collections=3, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(collections):
        for q in range(12):
            base = rng.uniform(0, 0.6)
            for s, shift in (("a", 0.0), ("b", 0.03 * (c + 1)), ("c", 0.01)):
                rows.append((f"c{c}", f"q{q}", s, base + shift + rng.normal(0, 0.05)))
    return pd.DataFrame(rows, columns=["collection", "qid", "system", "ap"])


def _png(ax, tmp_path, name):
    path = tmp_path / f"{name}.png"
    ax.figure.savefig(path, dpi=80)
    assert path.read_bytes()[:4] == b"\x89PNG"
    plt.close(ax.figure)


def test_power_curve_draws_one_line_per_difference(tmp_path):
    table = _per_query(collections=1).drop(columns="collection")
    curve = ta.stats.power_curve(pl.from_pandas(table), [0.02, 0.05, 0.1], n=[10, 20, 40])
    ax = ta.plot.power_curve(curve)
    assert ax.get_xlabel() == "topics (n)" and ax.get_ylabel() == "power"
    lines = ax.get_lines()
    assert len(lines) == 3 + 1  # three differences and the target
    assert list(lines[0].get_xdata()) == [10, 20, 40]
    assert [t.get_text() for t in ax.get_legend().get_texts()][:3] == \
        ["min_diff = 0.02", "min_diff = 0.05", "min_diff = 0.1"]
    _png(ax, tmp_path, "power_n")
    ax = ta.plot.power_curve(curve, x="min_diff", target=None)
    assert ax.get_xlabel() == "minimum detectable difference" and len(ax.get_lines()) == 3
    _png(ax, tmp_path, "power_diff")


def test_forest_plot_has_a_row_per_collection_and_model(tmp_path):
    effects = ta.stats.collection_effects(_per_query(4), "b", "a")
    meta = ta.stats.meta_analysis(effects)
    ax = ta.plot.forest_plot(meta)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:4] == ["c0", "c1", "c2", "c3"] and labels[4] == "fixed effect"
    assert labels[5].startswith("random effects (τ² = ")
    assert len(ax.get_yticks()) == 6 and ax.get_xlabel() == "ap: effect"
    assert len(ax.collections[1].get_offsets()) == 4  # the squares
    _png(ax, tmp_path, "forest")


@pytest.mark.parametrize(("call", "word"), [
    (lambda: ta.plot.power_curve(pd.DataFrame({"n": [1]})), "no column"),
    (lambda: ta.plot.power_curve(pd.DataFrame(), x="topics"), "x must be"),
    (lambda: ta.plot.power_curve(pd.DataFrame(), target=1.5), "target"),
    (lambda: ta.plot.forest_plot(pd.DataFrame({"kind": []})), "no column"),
    (lambda: ta.plot.forest_plot(pd.DataFrame(), xlabel=3), "xlabel"),
    (lambda: ta.plot.forest_plot(pd.DataFrame(), ax="left"), "ax must be"),
])
def test_plot_arguments_are_checked(call, word):
    with pytest.raises(InputError, match=word):
        call()
