"""trunc_accessor.judges.leaderboard_agreement on the Cranfield runs under the assessors'
qrels and the shipped synthetic second judge: every number from outside the library —
per-query values from pytrec_eval (files parsed here), Kendall's τ and Spearman's ρ from
SciPy, τ_AP from a loop over Yilmaz et al.'s formula, paired t-tests from SciPy with
statsmodels' Holm correction, top-k overlap and rank changes by hand."""
from __future__ import annotations

import gzip
import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.stats

import trunc_accessor as ta
from tests.stats.test_agreement import tau_ap_loop

pytrec_eval = pytest.importorskip("pytrec_eval")
multitest = pytest.importorskip("statsmodels.stats.multitest")

DATA = Path(ta.example_path("cranfield"))
METRICS = {"ndcg@10": "ndcg_cut_10", "ap": "map"}


def _qrels(path: Path) -> dict:
    judged: dict = {}
    for line in path.read_text().splitlines():
        q, _, d, g = line.split()
        judged.setdefault(q, {})[d] = int(g)
    return judged


@pytest.fixture(scope="module")
def per_query() -> dict:
    """{qrels name: {metric: DataFrame queries × systems}} from pytrec_eval."""
    runs = {}
    for path in sorted(DATA.glob("*.run.gz")):
        run: dict = {}
        for line in gzip.decompress(path.read_bytes()).decode().splitlines():
            q, _, d, _, score, _ = line.split()
            run.setdefault(q, {})[d] = float(score)
        runs[path.name.removesuffix(".run.gz")] = run
    out = {}
    for name, file in (("assessors", "qrels.txt"),
                       ("second", "../judges/cranfield_second_judge.txt")):
        evaluator = pytrec_eval.RelevanceEvaluator(_qrels(DATA / file), set(METRICS.values()))
        values = {s: evaluator.evaluate(r) for s, r in runs.items()}
        out[name] = {m: pd.DataFrame({s: {q: v[t] for q, v in values[s].items()}
                                      for s in runs}) for m, t in METRICS.items()}
    return out


@pytest.fixture(scope="module")
def found():
    runs, _ = ta.load_example("cranfield")
    judges = ta.judges.load_judges("cranfield")
    return ta.judges.leaderboard_agreement(
        runs, judges["assessors"], judges["second"], list(METRICS), k=3,
        names=("assessors", "second"), ties="trec_eval9")


def test_means_and_rank_correlations_are_the_peers(found, per_query):
    systems = found.systems.set_index(["metric", "system"])
    summary = found.summary.set_index("metric")
    for metric in METRICS:
        a = per_query["assessors"][metric].mean()
        b = per_query["second"][metric].mean()
        names = list(a.index)
        got = systems.loc[metric].loc[names]
        assert np.allclose(got["mean_a"], a, atol=1e-12) and np.allclose(got["mean_b"], b,
                                                                           atol=1e-12)
        row = summary.loc[metric]
        assert row["kendall_tau"] == pytest.approx(scipy.stats.kendalltau(a, b).statistic,
                                                   abs=1e-12)
        assert row["spearman"] == pytest.approx(scipy.stats.spearmanr(a, b).statistic,
                                                abs=1e-12)
        assert row["tau_ap"] == pytest.approx(tau_ap_loop(list(a), list(b)), abs=1e-12)
        assert row["tau_ap_symmetric"] == pytest.approx(
            (tau_ap_loop(list(a), list(b)) + tau_ap_loop(list(b), list(a))) / 2, abs=1e-12)
        top_a, top_b = set(a.nlargest(3).index), set(b.nlargest(3).index)
        assert row["top_k_overlap"] == len(top_a & top_b) / 3 and row["k"] == 3
        change = scipy.stats.rankdata(-b.to_numpy()) - scipy.stats.rankdata(-a.to_numpy())
        assert np.array_equal(got["rank_change"], change)
        assert row["max_rank_change"] == np.abs(change).max()
        assert row["n_systems"] == 7 and row["n_queries"] == 225


def test_significance_under_each_qrels_is_scipys_t_test_with_holm(found, per_query):
    pairs = found.pairs.set_index(["metric", "system", "other"])
    for metric in METRICS:
        verdicts = {}
        for side, name in (("a", "assessors"), ("b", "second")):
            values = per_query[name][metric]
            keys = list(itertools.combinations(sorted(values.columns), 2))
            p = [scipy.stats.ttest_rel(values[x], values[y]).pvalue for x, y in keys]
            adjusted = multitest.multipletests(p, method="holm")[1]
            for (x, y), q in zip(keys, adjusted):
                row = pairs.loc[(metric, x, y)] if (metric, x, y) in pairs.index \
                    else pairs.loc[(metric, y, x)]
                assert row[f"p_adjusted_{side}"] == pytest.approx(q, abs=1e-9)
                assert row[f"significant_{side}"] == (q <= 0.05)
                delta = (values[x] - values[y]).mean()
                verdicts.setdefault((x, y), []).append((q <= 0.05, np.sign(delta)))
        changed = sum(sa != sb or (sa and da != db)
                      for (sa, da), (sb, db) in verdicts.values())
        assert found.summary.set_index("metric").loc[metric, "changed"] == changed


def test_polars_runs_give_polars_frames_and_the_same_numbers(found):
    runs, _ = ta.load_example("cranfield", library="polars")
    judges = ta.judges.load_judges("cranfield", library="polars")
    again = ta.judges.leaderboard_agreement(
        runs, judges["assessors"], judges["second"], list(METRICS), k=3,
        names=("assessors", "second"), ties="trec_eval9")
    assert isinstance(again.summary, pl.DataFrame) and again.names == ("assessors", "second")
    pd.testing.assert_frame_equal(again.summary.to_pandas(), found.summary,
                                  check_dtype=False)


def test_queries_judged_by_one_side_only_are_left_out_and_said():
    runs, qrels = ta.load_example("cranfield")
    fewer = qrels[qrels.qid.astype(int) <= 100]
    with pytest.warns(ta.DroppedQueriesWarning, match="125 queries judged only in 'a'"):
        found = ta.judges.leaderboard_agreement(runs, qrels, fewer, ["P@5"])
    row = found.summary.iloc[0]
    assert row["n_queries"] == 100 and row["kendall_tau"] == 1.0 and row["changed"] == 0
    assert row["max_rank_change"] == 0 and row["max_rank_change_system"] == ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = ta.judges.leaderboard_agreement(runs, qrels, fewer, ["P@5"], queries="all")
    assert found.summary.iloc[0]["n_queries"] == 225
    with pytest.raises(ta.InputError, match="names="):
        ta.judges.leaderboard_agreement(runs, qrels, qrels, ["P@5"], names=("x", "x"))
    with pytest.raises(ta.InputError, match="no query in common"):
        ta.judges.leaderboard_agreement(runs, qrels, qrels.assign(qid="999"), ["P@5"])


def test_undefined_values_follow_the_undefined_rule_in_the_means_too(cranfield):
    """undefined="skip" (default) leaves a value the metric leaves undefined (AP of a query
    whose grades are all 0 under one qrels) out of the systems' means, as compare leaves
    it out of the pairs; "zero" counts it as 0 in both. The means are NumPy's over
    pytrec_eval's per-query AP (pytrec_eval gives 0 where AP is undefined)."""
    runs, qrels = cranfield
    runs = runs[runs["system"].isin(["bm25", "tfidf", "ql_dirichlet"])]
    hole = sorted(qrels["qid"].unique())[0]
    zeroed = qrels.assign(rel=qrels["rel"].where(qrels["qid"] != hole, 0))
    judged: dict = {}
    for q, d, g in zip(zeroed["qid"], zeroed["docid"], zeroed["rel"]):
        judged.setdefault(str(q), {})[str(d)] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map"})
    for undefined in ("skip", "zero"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = ta.judges.leaderboard_agreement(runs, qrels, zeroed, ["ap"],
                                                    undefined=undefined)
        means = found.systems.set_index("system")["mean_b"]
        pairs = found.pairs.set_index(["system", "other"])
        for system, block in runs.groupby("system"):
            run: dict = {}
            for q, d, s in zip(block["qid"], block["docid"], block["score"]):
                run.setdefault(str(q), {})[str(d)] = float(s)
            values = {q: v["map"] for q, v in evaluator.evaluate(run).items()}
            values = [v for q, v in values.items() if undefined == "zero" or q != str(hole)]
            assert means[system] == pytest.approx(np.mean(values), abs=1e-6), system
        compared = ta.stats.compare(
            runs.ir.evaluate(zeroed, ["ap"], by="system", undefined="nan"),
            undefined=undefined).set_index(["system", "other"])
        assert np.allclose(pairs["delta_b"], compared.loc[pairs.index, "delta"], atol=1e-12)


def test_a_bad_mapping_of_runs_is_named_as_leaderboard_agreement_s(cranfield):
    """The mapping of runs is read by experiment's helper: its refusals name the function
    the user called, not experiment."""
    _, qrels = cranfield
    with pytest.raises(ta.InputError, match="^leaderboard_agreement: runs is an empty"):
        ta.judges.leaderboard_agreement({}, qrels, qrels, ["P@5"])
    mixed = {"a": pd.DataFrame({"qid": ["1"], "docid": ["d"], "score": [1.0]}),
             "b": pl.DataFrame({"qid": ["1"], "docid": ["d"], "score": [1.0]})}
    with pytest.raises(ta.InputError, match="^leaderboard_agreement: the runs of the mapping"):
        ta.judges.leaderboard_agreement(mixed, qrels, qrels, ["P@5"])
