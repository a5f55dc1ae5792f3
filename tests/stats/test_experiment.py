"""ta.experiment: one evaluate call, stats.compare, one row per (system, metric); ta.report:
the table for the paper. Values come from evaluate/compare (checked against trec_eval and
scipy elsewhere) and from scipy's t interval here."""
from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

import trunc_accessor as ta

METRICS = ["nDCG@10", "map"]


@pytest.fixture(scope="module")
def with_baseline(cranfield):
    runs, qrels = cranfield
    return ta.experiment(runs, qrels, METRICS, baseline="bm25", per_query=True)


def test_rows_means_intervals_and_comparisons(cranfield, with_baseline):
    table, per = with_baseline
    runs, _ = cranfield
    systems = sorted(runs["system"].unique())
    assert len(table) == len(systems) * len(METRICS)
    assert set(table["system"]) == set(systems)
    for _, row in table.iterrows():
        v = per.loc[row["system"], row["metric"]].dropna().to_numpy()
        assert row["mean"] == pytest.approx(v.mean(), abs=1e-12)
        low, high = sps.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=sps.sem(v))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    compared = ta.stats.compare(per, baseline="bm25")
    merged = table.merge(compared, on=["system", "metric"], suffixes=("", "_c"))
    assert len(merged) == (len(systems) - 1) * len(METRICS)
    assert (merged["p_adjusted"] == merged["p_adjusted_c"]).all()
    assert (merged["significant"] == merged["significant_c"]).all()
    base = table[table["system"] == "bm25"]
    assert base["p_value"].isna().all() and not base["significant"].any()


def test_mapping_polars_and_all_pairs(cranfield):
    runs, qrels = cranfield
    by_name = {name: g.drop(columns=["system"]) for name, g in runs.groupby("system")}
    a = ta.experiment(by_name, qrels, ["map"], baseline="tfidf")
    b = ta.experiment(pl.from_pandas(runs), qrels, ["map"], baseline="tfidf")
    assert isinstance(b, pl.DataFrame)
    a = a.sort_values("system").reset_index(drop=True)
    b = b.to_pandas().sort_values("system").reset_index(drop=True)
    assert np.allclose(a["mean"], b["mean"]) and (a["significant"] == b["significant"]).all()
    pairs = ta.experiment(runs, qrels, ["map"])  # no baseline: who beats whom
    compared = ta.stats.compare(runs.ir.evaluate(qrels, ["map"], by="system"))
    wins = {(r.system if r.delta > 0 else r.other) for r in compared.itertuples() if r.significant}
    assert {s for s, beats in zip(pairs["system"], pairs["beats"]) if beats} == wins


def test_report_markdown_latex_html_styler(with_baseline, cranfield):
    table, _ = with_baseline
    md = ta.report(table)
    lines = md.splitlines()
    assert lines[0] == "| system | nDCG@10 | map |"
    best = table.loc[table.groupby("metric")["mean"].idxmax()]
    for _, row in best.iterrows():
        assert f"**{row['mean']:.4f}**" in md
    marked = {(m.group(1)) for m in re.finditer(r"^\| (\w+) \|.*†", md, re.MULTILINE)}
    significant = set(table.loc[table["significant"] & (table["delta"] > 0), "system"])
    assert marked == significant
    assert "paired t test, Holm correction, α = 0.05" in md.replace("Paired", "paired")
    tex = ta.report(table, "latex", interval=True)
    assert "\\toprule" in tex and "\\bottomrule" in tex and "$\\pm$" in tex
    assert tex.count("\\\\") == 1 + table["system"].nunique()
    html = ta.report(table, "html")
    assert html.count("<tr>") == 1 + table["system"].nunique() and "<b>" in html
    styler = ta.report(table, "styler")
    assert "font-weight: bold" in styler.to_html()
    runs, qrels = cranfield
    letters = ta.report(ta.experiment(runs, qrels, ["map"]))
    assert "(a)" in letters and "<sup>" in letters
    with pytest.raises(ValueError, match="format"):
        ta.report(table, "pdf")


def test_bad_baseline_is_named(cranfield):
    runs, qrels = cranfield
    with pytest.raises(ValueError, match="nope"):
        ta.experiment(runs, qrels, ["map"], baseline="nope")


def test_bootstrap_intervals_of_the_means_equal_scipy(cranfield):
    runs, qrels = cranfield
    for ci, method in (("bootstrap-percentile", "percentile"), ("bootstrap-bca", "BCa")):
        table, per = ta.experiment(runs, qrels, ["map"], baseline="bm25", ci=ci,
                                   n_resamples=2000, seed=3, per_query=True)
        for _, row in table.iterrows():
            v = per.loc[row["system"], "map"].dropna().to_numpy()
            ref = sps.bootstrap((v,), np.mean, method=method, n_resamples=2000,
                                rng=np.random.default_rng(3)).confidence_interval
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((ref.low, ref.high),
                                                                    abs=1e-12)


def test_metric_agreement_of_an_experiment_and_the_public_names(cranfield):
    runs, qrels = cranfield
    table = ta.experiment(runs, qrels, ["map", "P_10"])
    agreement = ta.agreement.metric_agreement(table)
    means = table.pivot(index="system", columns="metric", values="mean")
    tau = sps.kendalltau(means["map"], means["P_10"]).statistic
    assert agreement.loc[0, "kendall_tau"] == pytest.approx(tau, abs=1e-12)
    assert all(hasattr(ta, name) for name in ta.__all__)
    assert ta.compare is ta.stats.compare


def test_latex_table_compiles_with_booktabs(with_baseline, tmp_path):
    """The LaTeX table compiles (pdflatex with booktabs; skipped where TeX is not installed,
    e.g. apt-get install texlive-latex-recommended)."""
    import shutil
    import subprocess

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    table, _ = with_baseline
    body = ta.report(table, "latex", interval=True)
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n"
                   "\\usepackage{booktabs}\n\\begin{document}\n" + body + "\\end{document}\n")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "t.pdf").exists()


def test_the_query_column_alias_reaches_every_analysis_function(cranfield):
    """A run whose query column is query_id evaluates; its per-query frame then goes through
    compare, Tukey, experiment and the plots as one whose column is qid (one reader of
    result frames, the input frames' aliases)."""
    import warnings

    import pandas as pd
    import polars as pl

    runs, qrels = cranfield
    renamed = runs.rename(columns={"qid": "query_id"})
    rqrels = qrels.rename(columns={"qid": "query_id"})
    per = renamed.ir.evaluate(rqrels, ["ap", "ndcg@10"], by="system")
    want = ta.compare(runs.ir.evaluate(qrels, ["ap", "ndcg@10"], by="system"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for got in (ta.compare(per), ta.compare(per, by="system"),
                    ta.compare(pl.from_pandas(per.reset_index())).to_pandas()):
            pd.testing.assert_frame_equal(got, want)
        assert len(ta.stats.tukey_hsd(per)) == len(ta.stats.tukey_hsd(
            runs.ir.evaluate(qrels, ["ap", "ndcg@10"], by="system")))
        table = ta.experiment(renamed, rqrels, ["ap"], baseline="bm25")
        assert table.set_index("system").loc["bm25_stem", "delta"] == pytest.approx(
            want.query("metric == 'ap' and ((system == 'bm25_stem' and other == 'bm25') or "
                       "(system == 'bm25' and other == 'bm25_stem'))")["delta"].abs().iloc[0])
        ta.plot.topic_differences(per, "bm25_stem", "bm25", "ap")
        ta.plot.query_distributions(per, "ap")


# --------------------------------------------------------------------------- undefined, missing
def _no_relevant(qrels, qid):
    """The qrels with every grade of one query set to 0: AP and nDCG are undefined there."""
    return qrels.assign(rel=qrels["rel"].where(qrels["qid"] != qid, 0))


def test_undefined_skip_leaves_undefined_values_out_of_means_and_tests(cranfield):
    """experiment(undefined="skip"), the default, skips a value the metric leaves undefined
    (AP of a query with no relevant document): the mean, its interval, the paired t test
    and n are over the other queries (scipy on evaluate's values with undefined="nan"),
    where they used to arrive as evaluate's default 0 and count. "zero" counts them as 0.
    The caption then states n per metric."""
    runs, qrels = cranfield
    runs = runs[runs["system"].isin(["bm25", "tfidf", "ql_dirichlet"])]
    hole = sorted(qrels["qid"].unique())[0]
    qrels = _no_relevant(qrels, hole)
    n_all = qrels["qid"].nunique()
    per = runs.ir.evaluate(qrels, ["P@10", "map"], by="system", undefined="nan")
    for undefined in ("skip", "zero"):
        table = ta.experiment(runs, qrels, ["P@10", "map"], baseline="bm25",
                              undefined=undefined).set_index(["system", "metric"])
        for system in ("bm25", "tfidf"):
            v = per.loc[system, "map"].to_numpy()
            v = v[~np.isnan(v)] if undefined == "skip" else np.nan_to_num(v)
            row = table.loc[(system, "map")]
            assert row["n"] == len(v) == (n_all - 1 if undefined == "skip" else n_all)
            assert row["mean"] == pytest.approx(v.mean(), abs=1e-12)
            low, high = sps.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=sps.sem(v))
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12)
        x, y = per.loc["tfidf", "map"].to_numpy(), per.loc["bm25", "map"].to_numpy()
        if undefined == "skip":
            ok = ~np.isnan(x) & ~np.isnan(y)
            x, y = x[ok], y[ok]
        else:
            x, y = np.nan_to_num(x), np.nan_to_num(y)
        row = table.loc[("tfidf", "map")]
        assert row["n_paired"] == len(x)
        assert row["p_value"] == pytest.approx(sps.ttest_rel(x, y).pvalue, rel=1e-12)
        assert table.loc[("tfidf", "P@10"), "n"] == n_all
    caption = ta.report(ta.experiment(runs, qrels, ["P@10", "map"], baseline="bm25"))
    assert f"P@10: {n_all}; map: {n_all - 1}" in caption
    assert f"Means over {n_all} queries" not in caption


def test_compare_warns_of_queries_a_system_lacks_and_experiment_follows_one_rule(cranfield):
    """compare on per-query tables where one system lacks queries pairs the queries both
    have, and now says so (system, how many); experiment(missing="skip") follows the same
    rule on runs lacking those queries, experiment's default (empty rankings) the table
    evaluate gives, which has every judged query."""
    runs, qrels = cranfield
    runs = runs[runs["system"].isin(["bm25", "tfidf"])]
    gone = sorted(qrels["qid"].unique())[:20]
    per = runs.ir.evaluate(qrels, ["P@10"], by="system", undefined="nan")
    lacking = per.drop(index=[("tfidf", q) for q in gone])
    with pytest.warns(ta.DroppedQueriesWarning,
                      match=r"compare: some systems lack queries .*'tfidf' 20 of 225"):
        short = ta.stats.compare(lacking, baseline="bm25")
    assert short["n"].item() == 205
    x = lacking.loc["tfidf", "P@10"]
    y = per.loc["bm25", "P@10"].loc[x.index]
    assert short["p_value"].item() == pytest.approx(sps.ttest_rel(x, y).pvalue, rel=1e-12)
    partial = runs[~((runs["system"] == "tfidf") & runs["qid"].isin(gone))]
    with pytest.warns(ta.DroppedQueriesWarning) as said:
        skipped = ta.experiment(partial, qrels, ["P@10"], baseline="bm25", missing="skip")
    assert [str(w.message)[:11] for w in said] == ["experiment:"]  # said once, not twice
    row = skipped.set_index("system").loc["tfidf"]
    assert row["n_paired"] == 205 and row["p_value"] == short["p_value"].item()
    with pytest.warns(ta.DroppedQueriesWarning, match="tfidf 20 of 225"):
        empty = ta.experiment(partial, qrels, ["P@10"], baseline="bm25")
    full = ta.stats.compare(partial.ir.evaluate(qrels, ["P@10"], by="system"), baseline="bm25")
    assert empty.set_index("system").loc["tfidf", "n_paired"] == full["n"].item() == 225


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"ci": "bootstrap", "n_resamples": 0}, "n_resamples="),
    ({"ci": "bootstrap", "n_resamples": -1}, "n_resamples="),
    ({"ci": "bootstrap-bca", "seed": -1}, "seed="),
    ({"confidence": 1.5}, "confidence="),
    ({"alpha": 0}, "alpha="),
    ({"test": "z"}, "test="),
    ({"correction": "sidak"}, "correction="),
    ({"undefined": "nan"}, "undefined="),
    ({"family": "system"}, "family="),
])
def test_experiment_checks_compares_arguments_before_evaluating(cranfield, kwargs, name):
    """The arguments experiment hands to compare are checked in compare's one place, before
    the evaluation (qrels=None would fail there): an InputError naming the argument, never
    SciPy's or NumPy's ValueError. leaderboard_agreement, which calls compare too, checks
    them the same way."""
    runs, _ = cranfield
    with pytest.raises(ta.InputError, match=name):
        ta.experiment(runs, None, ["P@10"], baseline="bm25", **kwargs)
    with pytest.raises(ta.InputError, match=name):
        ta.stats.compare(runs.head(0).assign(qid="1", P=1.0)[["system", "qid", "P"]],
                         **kwargs)
    if not {"ci", "confidence", "family"} & set(kwargs):
        with pytest.raises(ta.InputError, match=name):
            ta.judges.leaderboard_agreement(runs, None, None, ["P@10"], **kwargs)


def test_experiment_bootstrap_intervals_draw_resamples_in_batches(cranfield):
    """A million BCa resamples of 46 queries: experiment draws them in compare's batches
    (peak memory well under the 368 MB one array of the resampled indices would take), and
    the interval is still scipy.stats.bootstrap's (same draws, batch= only)."""
    import tracemalloc

    runs, qrels = cranfield
    keep = sorted(qrels["qid"].unique())[:46]
    runs = runs[runs["system"].isin(["bm25", "tfidf"]) & runs["qid"].isin(keep)]
    qrels = qrels[qrels["qid"].isin(keep)]
    b = 1_000_000
    tracemalloc.start()
    try:
        table = ta.experiment(runs, qrels, ["P@10"], ci="bootstrap-percentile", n_resamples=b,
                              seed=3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 150e6, peak
    v = runs.ir.evaluate(qrels, ["P@10"], by="system").loc["bm25", "P@10"].to_numpy()
    ref = sps.bootstrap((v,), np.mean, method="percentile", n_resamples=b,
                        rng=np.random.default_rng(3), batch=4_000_000 // v.size)
    row = table.set_index("system").loc["bm25"]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (ref.confidence_interval.low, ref.confidence_interval.high), abs=1e-12)
