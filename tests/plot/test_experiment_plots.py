"""Plots comparing systems (trunc_accessor.plot) render without a display (Agg backend) and
draw what the numbers say: per-topic differences, per-query distributions, interpolated
precision-recall and cut-off curves, and the metric-agreement scatter with Kendall's τ."""
from __future__ import annotations

import re
import runpy
import sys

import matplotlib
import numpy as np
import polars as pl
import pytest
from matplotlib.colors import to_rgba
from scipy.stats import kendalltau

import trunc_accessor as ta
from tests.conftest import ROOT
from trunc_accessor import plot
from trunc_accessor.plot import experiment as plot_experiment

matplotlib.use("Agg")

METRICS = ["nDCG@10", "map"]


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.fixture(scope="module")
def per_query(cranfield):
    runs, qrels = cranfield
    return runs.ir.evaluate(qrels, METRICS, by="system")


def _deltas(per_query, system, baseline, metric):
    values = per_query[metric].unstack("system")
    return (values[system] - values[baseline]).dropna().to_numpy()


def _sign_colours(ax):
    colours = {to_rgba(c): k for k, c in plot_experiment.DIFFERENCE_COLOURS.items()}
    return [colours[tuple(p.get_facecolor())] for p in ax.patches]


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_topic_differences_one_bar_per_query_coloured_by_sign(per_query, library):
    frame = per_query if library == "pandas" else pl.from_pandas(per_query.reset_index())
    ax = plot.topic_differences(frame, "tfidf", "bm25", "nDCG@10")
    delta = _deltas(per_query, "tfidf", "bm25", "nDCG@10")
    assert len(ax.patches) == len(delta) == 225
    heights = np.array([p.get_height() for p in ax.patches])
    order = np.argsort([p.get_x() for p in ax.patches])
    np.testing.assert_allclose(heights[order], np.sort(delta)[::-1])  # sorted, gains first
    expected = np.where(heights > 0, "better", np.where(heights < 0, "worse", "tie"))
    assert _sign_colours(ax) == list(expected)
    wins, ties, losses = (delta > 0).sum(), (delta == 0).sum(), (delta < 0).sum()
    assert min(wins, ties, losses) > 0  # all three colours really occur
    title = ax.get_title()
    assert f"W/T/L = {wins}/{ties}/{losses}" in title
    assert f"mean Δ = {delta.mean():+.4f}" in title
    assert any(np.allclose(line.get_ydata(), 0) for line in ax.lines)  # the zero line


def test_topic_differences_agrees_with_experiment(cranfield):
    runs, qrels = cranfield
    table, per = ta.experiment(runs, qrels, ["nDCG@10"], baseline="bm25", per_query=True)
    row = table[(table.system == "bm25_stem") & (table.metric == "nDCG@10")].iloc[0]
    ax = plot.topic_differences(per, "bm25_stem", "bm25", "nDCG@10")
    assert (f"W/T/L = {int(row.wins)}/{int(row.ties)}/{int(row.losses)}"
            in ax.get_title())
    assert f"mean Δ = {row.delta:+.4f}" in ax.get_title()


def test_topic_differences_draws_into_given_axes_and_rejects_unknown(per_query):
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    assert plot.topic_differences(per_query, "tfidf", "bm25", "map", ax=ax) is ax
    with pytest.raises(ValueError, match="no system"):
        plot.topic_differences(per_query, "nope", "bm25", "map")
    with pytest.raises(ValueError, match="no column"):
        plot.topic_differences(per_query, "tfidf", "bm25", "P@5")


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_query_distributions_one_box_per_system_means_marked(per_query, library):
    frame = per_query if library == "pandas" else pl.from_pandas(per_query.reset_index())
    ax = plot.query_distributions(frame, "map")
    systems = list(dict.fromkeys(per_query.index.get_level_values("system")))
    assert len(systems) == 7
    assert len(ax.patches) == len(systems)  # patch_artist boxes
    assert [t.get_text() for t in ax.get_xticklabels()] == systems
    means = ax.collections[-1].get_offsets()
    expected = per_query["map"].groupby(level="system", sort=False).mean()[systems]
    np.testing.assert_allclose(np.asarray(means)[:, 1], expected.to_numpy())


def test_query_distributions_violin_and_subset(per_query):
    from matplotlib.collections import PolyCollection

    ax = plot.query_distributions(per_query, "nDCG@10", kind="violin",
                                  systems=["tfidf", "bm25"])
    bodies = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bodies) == 2
    assert [t.get_text() for t in ax.get_xticklabels()] == ["tfidf", "bm25"]
    with pytest.raises(ValueError, match="kind"):
        plot.query_distributions(per_query, "map", kind="bar")


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_precision_recall_eleven_points_per_system(cranfield, library):
    runs, qrels = cranfield
    if library == "polars":
        runs, qrels = pl.from_pandas(runs), pl.from_pandas(qrels)
    ax = plot.precision_recall(runs, qrels)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(labels) == sorted(set(cranfield[0]["system"]))
    assert len(ax.lines) == 7
    for line in ax.lines:
        np.testing.assert_allclose(line.get_xdata(), np.linspace(0, 1, 11))
    # the bm25 curve is the mean of the interpolated precision at each level, tie-aware
    # as evaluate's default
    bm25 = ax.lines[labels.index("bm25")].get_ydata()
    r0, q = cranfield
    values = r0[r0.system == "bm25"].ir.evaluate(
        q, ["iprec_at_recall(recall=0)", "iprec_at_recall(recall=0.5)"])
    np.testing.assert_allclose([bm25[0], bm25[5]], values.mean().to_numpy())
    assert np.all(np.diff(bm25) <= 1e-12)  # interpolated precision never rises


def test_precision_recall_averages_ties_by_default():
    """The default ties="average", as everywhere else: each point is the mean over every
    order of the tied documents, here enumerated (3!·2!·4! = 288 orders) and each order
    scored by pytrec_eval (R = 5, where trec_eval 9's and 10's recall cuts agree)."""
    import itertools

    import pandas as pd
    import pytrec_eval

    rel = [1, 0, 1, 0, 1, 0, 0, 1, 0, 0]  # docs d0..d9; d10 relevant, not retrieved
    score = [5, 5, 5, 4, 4, 3, 3, 3, 3, 2]
    groups = [[0, 1, 2], [3, 4], [5, 6, 7, 8], [9]]
    qrels_d, run_d = {}, {}
    for n, order in enumerate(itertools.product(*(itertools.permutations(g) for g in groups))):
        ranking = [d for g in order for d in g]
        run_d[f"o{n}"] = {f"d{d}": float(10 - i) for i, d in enumerate(ranking)}
        qrels_d[f"o{n}"] = {**{f"d{d}": rel[d] for d in range(10)}, "d10": 1}
    levels = [f"iprec_at_recall_{r / 10:.2f}" for r in range(11)]
    got = pytrec_eval.RelevanceEvaluator(qrels_d, {"iprec_at_recall"}).evaluate(run_d)
    want = [np.mean([got[q][m] for q in got]) for m in levels]
    assert len(got) == 288
    runs = pd.DataFrame({"system": "s", "qid": "1", "docid": [f"d{d}" for d in range(10)],
                         "score": np.asarray(score, dtype=float)})
    qrels = pd.DataFrame({"qid": "1", "docid": [f"d{d}" for d in range(11)],
                          "rel": rel + [1]})
    ax = plot.precision_recall(runs, qrels)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), want, rtol=0, atol=1e-12)
    trec = plot.precision_recall(runs, qrels, ties="trec_eval").lines[0].get_ydata()
    assert np.abs(trec - want).max() > 0.01  # one order is not the mean over them


def test_precision_recall_systems_and_levels(cranfield):
    runs, qrels = cranfield
    ax = plot.precision_recall(runs, qrels, systems=["tfidf", "bm25"], levels=[0.2, 0.8])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["tfidf", "bm25"]
    assert all(len(line.get_xdata()) == 2 for line in ax.lines)
    with pytest.raises(ValueError, match="no system"):
        plot.precision_recall(runs, qrels, systems=["nope"])


@pytest.mark.parametrize("metric", ["precision", "ndcg", "recall"])
def test_cutoff_curves_points_per_cutoff(cranfield, metric):
    runs, qrels = cranfield
    cutoffs = (1, 5, 10, 20)
    ax = plot.cutoff_curves(runs, qrels, metric, cutoffs=cutoffs)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(ax.lines) == len(labels) == 7
    for line in ax.lines:
        assert list(line.get_xdata()) == list(cutoffs)
    tfidf = ax.lines[labels.index("tfidf")].get_ydata()
    expected = runs[runs.system == "tfidf"].ir.evaluate(
        qrels, [f"{metric}@{k}" for k in cutoffs]).mean().to_numpy()
    np.testing.assert_allclose(tfidf, expected)


def _tau_in_title(ax):
    return float(re.search(r"τ = (-?[0-9.]+)", ax.get_title()).group(1))


@pytest.mark.parametrize("source", ["per_query", "table", "polars_table"])
def test_metric_scatter_points_names_and_kendall_tau(cranfield, per_query, source):
    runs, qrels = cranfield
    if source == "per_query":
        data = per_query
    else:
        data = ta.experiment(runs, qrels, METRICS, baseline="bm25")
        data = pl.from_pandas(data) if source == "polars_table" else data
    ax = plot.metric_scatter(data, "nDCG@10", "map")
    (points,) = ax.collections
    xy = np.asarray(points.get_offsets())
    assert len(xy) == 7
    means = per_query.groupby(level="system").mean()
    names = [t.get_text() for t in ax.texts]
    assert sorted(names) == sorted(means.index)
    np.testing.assert_allclose(xy, means.loc[names, METRICS].to_numpy())
    tau = kendalltau(means["nDCG@10"], means["map"]).statistic
    assert _tau_in_title(ax) == pytest.approx(tau, abs=5e-4)


def test_every_plot_accepts_an_existing_axes(cranfield, per_query):
    import matplotlib.pyplot as plt

    runs, qrels = cranfield
    _, axes = plt.subplots(2, 3)
    calls = [
        lambda ax: plot.topic_differences(per_query, "tfidf", "bm25", "map", ax=ax),
        lambda ax: plot.query_distributions(per_query, "map", ax=ax),
        lambda ax: plot.precision_recall(runs, qrels, ax=ax),
        lambda ax: plot.cutoff_curves(runs, qrels, ax=ax, cutoffs=(1, 10)),
        lambda ax: plot.metric_scatter(per_query, "map", "nDCG@10", ax=ax),
    ]
    for call, ax in zip(calls, axes.flat):
        assert call(ax) is ax
    assert len(plt.get_fignums()) == 1


def test_compare_systems_example_writes_report_and_plots(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [
        "compare_systems.py", "--report", str(tmp_path / "r.md"),
        "--differences", str(tmp_path / "d.png"), "--pr", str(tmp_path / "pr.png"),
        "--depth", "100"])
    runpy.run_path(str(ROOT / "examples" / "compare_systems.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "| tfidf |" in out
    # --depth 100: bm25's MAP over its top 100 (make_cranfield_runs.py --depth 100 gives
    # 0.2655; 0.2717 at the shipped depth), nDCG@10 unchanged
    assert "| bm25 (baseline) | 0.3103 | 0.2655 |" in out
    assert (tmp_path / "r.md").read_text().startswith("| system |")
    for name in ("d.png", "pr.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_systems_example_runs_from_an_empty_folder(tmp_path, monkeypatch, capsys):
    """Copied elsewhere, the example writes next to the working directory (it wrote into
    the project's docs/ before), creating the folders it is given."""
    import shutil

    script = tmp_path / "compare_systems.py"
    shutil.copy(ROOT / "examples" / "compare_systems.py", script)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["compare_systems.py", "--report", "out/new/r.md",
                                      "--depth", "100"])
    runpy.run_path(str(script), run_name="__main__")
    for name in ("topic_differences.png", "pr_curves.png", "out/new/r.md"):
        assert (tmp_path / name).exists(), name
    assert "| bm25 (baseline) |" in capsys.readouterr().out


def _wrong_arguments(cranfield, per_query):
    """(function, good keyword arguments, [(parameter, wrong value)]) for every ta.plot
    function: wrong types for its frames and parameters."""
    runs, qrels = cranfield
    bm25 = runs[runs.system == "bm25"]
    table = ta.experiment(runs, qrels, METRICS, baseline="bm25")
    effort = bm25.ir.evaluate(qrels, ["ap", "twist"], ties="trec_eval")
    names = [[1, 2, 3], {"a": 1}]
    return [
        (plot.precision_recall, {"runs": runs, "qrels": qrels},
         [("runs", [1, 2, 3]), ("runs", "x"), ("runs", None), ("levels", "x"),
          ("levels", ["x"]), ("levels", -1), ("levels", float("nan")), ("levels", object()),
          ("systems", 5), ("systems", [[1]]), ("by", [1]), ("ax", 5)]),
        (plot.cutoff_curves, {"runs": runs, "qrels": qrels},
         [("runs", [1, 2, 3]), ("runs", 5), ("metric", 5), ("cutoffs", "abc"),
          ("cutoffs", [1.5]), ("cutoffs", 5), ("systems", 5), ("by", [1]), ("ax", "x")]),
        (plot.effort_gain, {"frame": effort},
         [("frame", [1, 2, 3])] + [(p, v) for p in ("gain", "effort", "hue") for v in names]
         + [("ax", 5)]),
        (plot.interval_plot, {"table": table, "metric": "map"},
         [("table", [1, 2, 3]), ("metric", [1]), ("by", [1]), ("ax", 5)]),
        (plot.metric_scatter, {"table_or_per_query": per_query, "metric_x": "map",
                               "metric_y": "nDCG@10"},
         [("table_or_per_query", 5), ("metric_x", [1]), ("metric_y", {"a": 1}), ("by", [1]),
          ("ax", 5)]),
        (plot.query_distributions, {"per_query": per_query, "metric": "map"},
         [("per_query", [1, 2, 3]), ("metric", [1]), ("by", [1]), ("systems", 5),
          ("ax", 5)]),
        (plot.topic_differences, {"per_query": per_query, "system": "tfidf",
                                  "baseline": "bm25", "metric": "map"},
         [("per_query", [1, 2, 3]), ("system", [1]), ("baseline", {"a": 1}), ("metric", [1]),
          ("by", [1]), ("ax", 5)]),
        (plot.plot_crp, {"run": bm25.drop(columns="system"), "qrels": qrels, "qids": ["1"]},
         [("run", [1, 2, 3]), ("qids", 2.5), ("ncols", "x"), ("ncols", None), ("ncols", 0),
          ("figsize", 5), ("figsize", "x"), ("figsize", (1, -2))]),
    ]


def test_wrong_argument_types_are_value_errors_naming_the_parameter(cranfield, per_query):
    """ta.plot.cutoff_curves([1, 2, 3], …) and precision_recall([1, 2, 3], …) raised
    AttributeError; every plot function now refuses a wrong type of frame or parameter with
    the library's ValueError (InputError or ParameterError) naming the parameter, before
    drawing anything."""
    import matplotlib.pyplot as plt

    from trunc_accessor.errors import InputError, ParameterError

    for function, good, wrong in _wrong_arguments(cranfield, per_query):
        function(**good)  # the good arguments draw
        plt.close("all")
        for param, value in wrong:
            with pytest.raises((InputError, ParameterError)) as info:
                function(**{**good, param: value})
            assert param in str(info.value), (function.__name__, param, info.value)
            assert not plt.get_fignums(), (function.__name__, param)  # nothing drawn
    with pytest.raises(ValueError, match="runs must be a pandas or Polars DataFrame"):
        plot.cutoff_curves([1, 2, 3], cranfield[1])
    with pytest.raises(ValueError, match="runs must be a pandas or Polars DataFrame"):
        plot.precision_recall([1, 2, 3], cranfield[1])


@pytest.mark.parametrize("levels", [10 ** 10, 10_002, np.linspace(0, 1, 10_002)])
def test_precision_recall_refuses_more_than_10001_levels_before_the_work(cranfield, levels):
    """Each recall level is a measure evaluated on every query: levels=10**10 asked NumPy
    for 74.5 GiB (a MemoryError) before anything was refused. Up to 10,001 levels (a level
    every 0.0001) are drawn; more are refused at once, naming levels."""
    import time

    runs, qrels = cranfield
    start = time.perf_counter()
    with pytest.raises(ta.InputError, match=r"precision_recall: levels .* 10,001"):
        plot.precision_recall(runs, qrels, levels=levels)
    assert time.perf_counter() - start < 1.0


def test_plot_crp_refuses_a_figure_too_large_to_draw(cranfield):
    """figsize=(1e9, 1e9) passed the check (two numbers > 0) and failed inside Matplotlib
    with a TypeError from its renderer; Matplotlib draws fewer than 2**23 pixels a side, so
    a side beyond that at the figure's dpi is an InputError naming figsize."""
    import matplotlib

    runs, qrels = cranfield
    bm25 = runs[runs.system == "bm25"].drop(columns="system")
    limit = 2 ** 23 / matplotlib.rcParams["figure.dpi"]
    for figsize in ((1e9, 1e9), (4.0, limit * 1.01)):
        with pytest.raises(ta.InputError, match=r"plot_crp: figsize .* 2\*\*23 pixels"):
            plot.plot_crp(bm25, qrels, qids=["1"], figsize=figsize)
    plot.plot_crp(bm25, qrels, qids=["1"], figsize=(4.0, 3.0))
