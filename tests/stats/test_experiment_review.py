"""The experiment a reviewer accepts: the rule for queries a system lacks (said, and the
same as compare's with "skip"), several baselines, integer counts, p-values that are never
0, and a report that captions what was run from the table itself (through Polars and CSV)."""
from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import DroppedQueriesWarning, InputError


def _without_first_queries(runs, system="tfidf", k=20):
    drop = (runs["system"] == system) & runs["qid"].isin([str(i) for i in range(1, k + 1)])
    return runs[~drop]


def test_a_system_that_skips_judged_queries_is_said_and_counted(cranfield):
    runs, qrels = cranfield
    short = _without_first_queries(runs)
    with pytest.warns(DroppedQueriesWarning, match=r"tfidf 20 of 225.*empty rankings"):
        empty = ta.experiment(short, qrels, ["ap"], baseline="bm25_stem")
    row = empty.set_index("system").loc["tfidf"]
    assert row["n"] == 225 and row["n_paired"] == 225  # trec_eval -c: scored as empty
    with pytest.warns(DroppedQueriesWarning, match="left out"):
        skip = ta.experiment(short, qrels, ["ap"], baseline="bm25_stem", missing="skip")
    row = skip.set_index("system").loc["tfidf"]
    assert row["n"] == 205 and row["n_paired"] == 205
    # the same as compare on per-query frames that lack those rows
    per = runs.ir.evaluate(qrels, ["ap"], by="system")
    lacking = per.drop(index=[("tfidf", str(i)) for i in range(1, 21)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ta.compare(lacking, baseline="bm25_stem").set_index("system").loc["tfidf"]
    assert row["p_value"] == pytest.approx(want["p_value"], rel=1e-12)
    assert row["delta"] == pytest.approx(want["delta"], rel=1e-12)
    with pytest.raises(InputError, match="missing="):
        ta.experiment(runs, qrels, ["ap"], missing="zero")


def test_several_baselines_and_integer_counts(cranfield):
    """Each system against each baseline; the correction's family is every test of the
    metric, bm25 against tfidf counted once (statsmodels' Holm over the 11 distinct
    tests)."""
    from statsmodels.stats.multitest import multipletests

    runs, qrels = cranfield
    both = ta.experiment(runs, qrels, ["ap"], baseline=["bm25", "tfidf"])
    assert len(both) == 2 * 7 and set(both["baseline"]) == {"bm25", "tfidf"}
    adjusted_cols = ["p_adjusted", "significant"]
    for b in ("bm25", "tfidf"):
        one = ta.experiment(runs, qrels, ["ap"], baseline=b)
        block = both[both["baseline"] == b].reset_index(drop=True)
        same = [c for c in one.columns if c not in adjusted_cols]
        pd.testing.assert_frame_equal(block[same], one[same], check_dtype=True)
    tests = both[both.p_value.notna()]
    distinct = tests[~((tests.baseline == "tfidf") & (tests.system == "bm25"))]
    assert len(distinct) == 11
    want = dict(zip(zip(distinct.system, distinct.baseline),
                    multipletests(distinct.p_value, method="holm")[1]))
    want[("bm25", "tfidf")] = want[("tfidf", "bm25")]
    for s, b, got in zip(tests.system, tests.baseline, tests.p_adjusted):
        assert got == pytest.approx(want[(s, b)], rel=1e-12)
    mirrored = tests.set_index(["system", "baseline"])
    assert mirrored.loc[("bm25", "tfidf"), "p_value"] == \
        mirrored.loc[("tfidf", "bm25"), "p_value"]
    assert mirrored.loc[("bm25", "tfidf"), "delta"] == \
        pytest.approx(-mirrored.loc[("tfidf", "bm25"), "delta"], rel=1e-12)
    assert "family: every system against each of bm25, tfidf" in ta.report(
        both, baseline="bm25")
    for c in ("wins", "ties", "losses", "n_paired"):
        assert str(both[c].dtype) == "Int64", c
    row = both[(both.system == "bm25_stem") & (both.baseline == "bm25")].iloc[0]
    assert row["wins"] + row["ties"] + row["losses"] == row["n_paired"] == 225
    with pytest.raises(InputError, match="not one of the systems"):
        ta.experiment(runs, qrels, ["ap"], baseline=["bm25", "nope"])
    with pytest.raises(InputError, match="several baselines"):
        ta.report(both)
    assert "than tfidf" in ta.report(both, baseline="tfidf")


def test_randomized_tukey_p_values_are_never_zero(cranfield):
    runs, qrels = cranfield
    per = runs.ir.evaluate(qrels, ["ap"], by="system")
    out = ta.stats.randomized_tukey_hsd(per, n_resamples=999, seed=0)
    assert (out["p_value"] >= 1 / 1000).all()  # (1 + count) / (B + 1)
    row = out[((out.system == "bm25_stem") & (out.other == "bm25_title"))
              | ((out.system == "bm25_title") & (out.other == "bm25_stem"))].iloc[0]
    assert row["p_value"] == pytest.approx(1 / 1000)


def test_report_captions_what_was_run_through_polars_and_csv(cranfield):
    runs, qrels = cranfield
    table = ta.experiment(pl.from_pandas(runs), pl.from_pandas(qrels), ["map"], test="wilcoxon",
                          correction="bonferroni", alpha=0.01, ties="trec_eval")
    assert isinstance(table, pl.DataFrame)
    for t in (table, pd.read_csv(io.StringIO(table.to_pandas().to_csv(index=False)))):
        caption = ta.report(t).strip().splitlines()[-1]
        assert "Wilcoxon signed-rank test, Bonferroni correction, α = 0.01" in caption
        assert "broken as trec_eval 10" in caption and "empty ranking" in caption
    bare = table.drop(["test", "correction", "alpha"]).to_pandas()
    with pytest.raises(InputError, match="pass caption="):
        ta.report(bare)
    assert ta.report(bare, caption="Mine.").strip().endswith("Mine.")


def test_report_n_per_metric_intervals_baseline_and_styler(cranfield):
    runs, qrels = cranfield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedQueriesWarning)
        table = ta.experiment(_without_first_queries(runs), qrels, ["ap", "ndcg@10"],
                              baseline="bm25", missing="skip")
    text = ta.report(table)
    assert "(ap: 205–225; ndcg@10: 205–225)" in text
    assert "| bm25 (baseline) |" in text
    mean_text = ta.report(table, interval=True)
    assert "half the 95% Student t interval of each system's mean" in mean_text
    row = table.set_index("system").loc["bm25_stem"]
    ap = table[(table.system == "bm25_stem") & (table.metric == "ap")].iloc[0]
    assert f"{ap['mean']:.4f} ± {(ap['ci_high'] - ap['ci_low']) / 2:.4f}" in mean_text
    delta_text = ta.report(table, interval="delta")
    assert "interval of its difference to bm25" in delta_text
    assert f"± {(ap['delta_ci_high'] - ap['delta_ci_low']) / 2:.4f}" in delta_text
    assert row is not None
    plain = ta.experiment(runs, qrels, ["ap"])
    with pytest.raises(InputError, match="needs an experiment with a baseline"):
        ta.report(plain, interval="delta")
    pytest.importorskip("jinja2")
    html = ta.report(table, format="styler").to_html()
    assert "<sup>†</sup>" in html and "bm25 (baseline)" in html
    assert html.count("font-weight: bold") == 1  # one CSS rule for the best cells
    marks = ta.report(table, format="markdown").count("<sup>")
    assert html.count("<sup>") == marks


def test_wins_ties_losses_are_exact_counts(cranfield):
    runs, qrels = cranfield
    table, per = ta.experiment(runs, qrels, ["ap"], baseline="bm25", per_query=True)
    x = per["ap"].xs("bm25_stem", level="system")
    y = per["ap"].xs("bm25", level="system")
    d = (x - y.loc[x.index]).to_numpy()
    row = table[table.system == "bm25_stem"].iloc[0]
    assert (row["wins"], row["ties"], row["losses"]) == (int(np.sum(d > 0)), int(np.sum(d == 0)),
                                                         int(np.sum(d < 0)))


def test_experiment_per_source_is_one_experiment_per_judge_and_their_union(cranfield):
    """source=: the table of each judge's qrels and of their union (a pair judged twice at
    its largest grade, built here by hand), stacked under a source column."""
    runs, qrels = cranfield
    keep = qrels.qid.unique()[:60]
    runs, qrels = runs[runs.qid.isin(keep)], qrels[qrels.qid.isin(keep)]
    model = qrels.sample(frac=0.7, random_state=1).assign(
        rel=lambda q: (q.rel + (q.docid.str[-1] == "3")).clip(upper=4))
    both = pd.concat([qrels.assign(judge="human"), model.assign(judge="model")])
    union = (pd.concat([qrels, model]).groupby(["qid", "docid"], as_index=False)["rel"].max())
    table = ta.experiment(runs, both, ["ap"], baseline="bm25", source="judge")
    assert list(dict.fromkeys(table.source)) == ["human", "model", "all"]
    for name, q in (("human", qrels), ("model", model), ("all", union)):
        want = ta.experiment(runs, q, ["ap"], baseline="bm25")
        got = table[table.source == name].drop(columns="source").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want)
    polars_table, per = ta.experiment(pl.from_pandas(runs), pl.from_pandas(both), ["ap"],
                                      baseline="bm25", source="judge", per_query=True)
    assert polars_table.columns[0] == "source" and per.columns[0] == "source"
    assert polars_table.height == len(table)
    with pytest.raises(InputError, match="source='assessor'"):
        ta.experiment(runs, both, ["ap"], source="assessor")
