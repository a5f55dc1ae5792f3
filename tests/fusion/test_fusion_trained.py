"""Fusion on real runs: TrecTools' Example6_Fusion_Run notebook (RRF of two TREC 2003
Robust runs, its printed P@25), and fit / apply / optimize_fusion with cross-validation on
the shipped Cranfield runs, checked against computations written out here."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import InputError

DATA = Path(__file__).resolve().parents[1] / "data" / "trectools_fusion"
# The notebook's qrels (trectools examples/robust03/qrel/robust03_qrels.txt) are the shipped
# robust03 qrels (trectools' unittests copy) with these ten judgments of topic 303 set to 0.
NOTEBOOK_QRELS_CHANGES = ["FBIS3-16217", "FBIS3-19093", "FBIS3-21007", "FBIS3-21026",
                          "FBIS3-23561", "FBIS3-23682", "FBIS3-23691", "FBIS3-24469",
                          "FBIS3-25018", "FBIS3-36274"]


def test_trectools_notebook_rrf_p25():
    """examples/Example6_Fusion_Run.ipynb: P@25 of aplrob03a 0.3392, UIUC03Rd1 0.2872 and
    of their reciprocal rank fusion (k = 60) 0.3436. TrecTools ranks each run by score
    descending and equal scores by docid ascending, then RRF; the same order and
    ties="first" give its number. The runs tie 6,001 and 3,031 scores, so the tie-averaged
    fusion (the default) is another number."""
    runs = ta.read_run([DATA / "input.aplrob03a.xz", DATA / "input.UIUC03Rd1.xz"],
                       library="polars")
    qrels = ta.read_qrels(ta.example_path("robust03/qrels.txt.gz"), library="polars")
    changed = (pl.col("qid") == "303") & pl.col("docid").is_in(NOTEBOOK_QRELS_CHANGES)
    assert qrels.filter(changed).height == 10
    qrels = qrels.with_columns(pl.when(changed).then(0).otherwise(pl.col("rel")).alias("rel"))

    def p25(run) -> float:
        return round(float(run.ir.evaluate(qrels, "P@25", ties="trec_eval")["P@25"].mean()), 4)

    assert p25(runs.filter(pl.col("system") == "aplrob03a")) == 0.3392
    assert p25(runs.filter(pl.col("system") == "UIUC03Rd1")) == 0.2872
    trectools_order = runs.sort(["system", "qid", "score", "docid"],
                                descending=[False, False, True, False])
    fused = ta.fuse(trectools_order, "rrf", ties="first", k=60, depth=1000)
    assert p25(fused) == 0.3436
    assert fused.group_by("qid").len()["len"].max() == 1000
    assert p25(ta.fuse(runs, "rrf", k=60, depth=1000)) != 0.3436  # the tie order decided


@pytest.fixture(scope="module")
def two_runs():
    runs, qrels = ta.load_example("cranfield")
    return runs[runs["system"].isin(["bm25_stem", "tfidf"])].reset_index(drop=True), qrels


def test_posfuse_fit_on_training_queries_apply_to_others(two_runs):
    runs, qrels = two_runs
    qids = sorted(qrels["qid"].unique(), key=int)
    train = qrels[qrels["qid"].isin(qids[::2])]
    model = ta.fit_fusion(runs, train, "posfuse", norm=None, ties="trec_eval")
    # P(relevant | position) per run over the training queries, written out with pandas
    judged = runs.merge(train, on=["qid", "docid"], how="left")
    judged = judged[judged["qid"].isin(train["qid"])]
    judged = judged.sort_values(["system", "qid", "score", "docid"],
                                ascending=[True, True, False, False])
    judged["position"] = judged.groupby(["system", "qid"]).cumcount()
    judged["hit"] = (judged["rel"].fillna(0) >= 1).astype(float)
    for system in ("bm25_stem", "tfidf"):
        expected = judged[judged["system"] == system].groupby("position")["hit"].mean()
        np.testing.assert_allclose(model.params["probs"][system], expected.to_numpy(),
                                   rtol=1e-12)
    test_runs = runs[~runs["qid"].isin(train["qid"])]
    fused = model.apply(test_runs)
    assert set(fused["qid"]) == set(test_runs["qid"])
    # the fused score of a document is the sum of its runs' probabilities at its positions
    row = fused.iloc[0]
    mine = judged.iloc[:0]
    for system in ("bm25_stem", "tfidf"):
        ranking = (test_runs[(test_runs["system"] == system) & (test_runs["qid"] == row["qid"])]
                   .sort_values(["score", "docid"], ascending=[False, False])["docid"].tolist())
        if row["docid"] in ranking:
            mine = pd.concat([mine, pd.DataFrame({"hit": [model.params["probs"][system][
                ranking.index(row["docid"])]]})])
    assert row["score"] == pytest.approx(mine["hit"].sum(), rel=1e-12)
    with pytest.raises(InputError, match="missing"):
        model.apply(test_runs.replace({"system": {"tfidf": "other"}}))


@pytest.mark.filterwarnings("ignore::trunc_accessor.DroppedQueriesWarning")
def test_optimize_fusion_cross_validated(two_runs):
    runs, qrels = two_runs
    search = ta.optimize_fusion(runs, qrels, "wsum", "min-max", metric="ndcg@10", step=0.25,
                                folds=3, seed=1)
    grid, folds = search.grid, search.folds
    assert list(grid.columns) == ["fold", "weight[bm25_stem]", "weight[tfidf]", "ndcg@10"]
    assert len(grid) == 4 * 5 and sorted(grid["fold"].unique()) == [0, 1, 2, 3]
    assert folds["test_queries"].sum() == qrels["qid"].nunique() == 225
    # each fold: the grid scores are the fused runs' nDCG@10 on its training queries, and
    # the point chosen is the best of them (the last of equals, as ranx)
    all_qids = set(qrels["qid"])
    for f in (1, 2, 3):
        held_out = set(search.run.loc[search.run["fold"] == f, "qid"])
        assert len(held_out) == folds.loc[folds["fold"] == f, "test_queries"].item()
        train = qrels[qrels["qid"].isin(all_qids - held_out)]
        rows = grid[grid["fold"] == f]
        for _, row in rows.iterrows():
            weights = {"bm25_stem": row["weight[bm25_stem]"], "tfidf": row["weight[tfidf]"]}
            fused = ta.fuse(runs, "wsum", "min-max", weights=weights)
            value = fused.ir.evaluate(train, "ndcg@10")["ndcg@10"].mean()
            assert row["ndcg@10"] == pytest.approx(value, abs=1e-12)
        best = rows[rows["ndcg@10"] == rows["ndcg@10"].max()].iloc[-1]
        chosen = folds[folds["fold"] == f].iloc[0]
        assert (chosen["weight[bm25_stem]"], chosen["weight[tfidf]"]) == (
            best["weight[bm25_stem]"], best["weight[tfidf]"])
        # the held-out queries are fused with the chosen weights
        again = ta.fuse(runs[runs["qid"].isin(held_out)], "wsum", "min-max", weights={
            "bm25_stem": best["weight[bm25_stem]"], "tfidf": best["weight[tfidf]"]})
        mine = search.run[search.run["fold"] == f].drop(columns="fold").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, again)
    # the cross-validated run answers every query once, with its fold's chosen model
    assert search.run["qid"].nunique() == 225
    per_query = search.run.ir.evaluate(qrels, "ndcg@10")["ndcg@10"]
    assert search.score == pytest.approx(per_query.mean(), abs=1e-12)
    assert set(search.best) == {"weights"} and search.model.method == "wsum"
    assert ta.fuse(runs, search.model).equals(search.model.apply(runs))


def test_optimize_errors(two_runs):
    runs, qrels = two_runs
    with pytest.raises(ta.ParameterError, match="combsum has no parameter to optimise"):
        ta.optimize_fusion(runs, qrels, "combsum")
    with pytest.raises(ta.ParameterError, match="folds=500 is more than the 225"):
        ta.optimize_fusion(runs, qrels, "rrf", folds=500, grid={"k": [60]})
    with pytest.raises(ta.ParameterError, match=r"grid= names \['phi'\]"):
        ta.optimize_fusion(runs, qrels, "rrf", grid={"phi": [0.5]})
    with pytest.raises(ta.ParameterError, match="step= must divide 1"):
        ta.optimize_fusion(runs, qrels, "wsum", step=0.3)
    search = ta.optimize_fusion(runs, qrels, "rrf", grid={"k": [0, 60]}, metric="P_10")
    assert list(search.grid["k"]) == [0, 60] and search.metric == "P_10"


@pytest.mark.parametrize("level", [0, -1, 0.0, float("nan")])
def test_relevance_level_not_positive_is_refused_before_the_runs_are_read(two_runs, level):
    """A level ≤ 0 would count judged non-relevant documents (grade 0) as relevant and
    unjudged ones as not: every metric refuses it, and so do fit_fusion and optimize_fusion,
    before reading the runs (a lazy frame with a column missing is not reached)."""
    runs, qrels = two_runs
    broken = pl.from_pandas(runs).lazy().drop("score")
    for call in (lambda r: ta.fit_fusion(r, qrels, "probfuse", n_segments=5,
                                         relevance_level=level),
                 lambda r: ta.fit_fusion(r, qrels, "mapfuse", relevance_level=level),
                 lambda r: ta.optimize_fusion(r, qrels, "rrf", grid={"k": [60]},
                                              relevance_level=level)):
        with pytest.raises(ta.ParameterError, match="relevance_level must be a finite number > 0"):
            call(broken)
        with pytest.raises(ta.ParameterError, match="relevance_level"):
            call(runs)


def test_default_weight_grid_is_counted_before_it_is_made():
    """The default weight grid holds C(1/step + R − 1, R − 1) vectors (brute force: every
    itertools.product of 0…1/step that sums to 1/step, in that order); beyond 200,000 it is
    refused at once, not after enumerating (1/step + 1)^R tuples (12 runs: 3·10¹² of them)."""
    import itertools
    import time

    from trunc_accessor.fusion.optimize import weight_grid, weight_grid_size

    for n_runs in (2, 3, 4, 5):
        for step in (1.0, 0.5, 0.25, 0.2, 0.1):
            n = round(1 / step)
            brute = [tuple(x / n for x in c) for c in itertools.product(range(n + 1),
                                                                         repeat=n_runs)
                     if sum(c) == n]
            assert weight_grid(n_runs, step) == brute
            assert weight_grid_size(n_runs, step) == len(brute)
    runs = pl.DataFrame({"system": [f"s{i:02d}" for i in range(12)], "qid": ["q"] * 12,
                         "docid": ["d"] * 12, "score": [1.0] * 12})
    qrels = pl.DataFrame({"qid": ["q"], "docid": ["d"], "rel": [1]})
    start = time.perf_counter()
    with pytest.raises(ta.ParameterError, match=r"352,716 weight vectors for 12 runs"):
        ta.optimize_fusion(runs, qrels, "wsum")
    with pytest.raises(ta.ParameterError, match=r"1,373,701 weight vectors for 4 runs"):
        weight_grid(4, 0.005)
    assert time.perf_counter() - start < 5
    assert len(weight_grid(4, 0.01)) == 176_851  # allowed: made directly, not filtered


def test_probfuse_segments_finer_than_the_rankings_learn_per_position_in_little_memory(
        two_runs):
    """ProbFuse with more segments than any ranking has documents: each segment holds one
    position (⌈n/x⌉ = 1), so p_r(k) = Σ over training queries of the hit at position k,
    over the number of training queries (0 past every ranking's end; ranx's
    estimate_segment_probs, written out here). The estimate works on the positions the
    runs hold: x = 10⁶ costs megabytes, not (runs × queries × x) counters (3.6 GB here)."""
    import tracemalloc

    runs, qrels = two_runs
    qids = sorted(qrels["qid"].unique(), key=int)[:40]
    runs = runs[runs["qid"].isin(qids)].groupby(["system", "qid"]).head(15)
    train = qrels[qrels["qid"].isin(qids)]
    x = 10 ** 6
    tracemalloc.start()
    try:
        model = ta.fit_fusion(runs, train, "probfuse", None, ties="first", n_segments=x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2 ** 20
    relevant = set(zip(train["qid"], train["docid"])) - set(
        zip(train.loc[train["rel"] < 1, "qid"], train.loc[train["rel"] < 1, "docid"]))
    for system, run in runs.groupby("system"):
        expected = np.zeros(x)
        for _, ranking in run.groupby("qid"):
            hits = [(q, d) in relevant for q, d in zip(ranking["qid"], ranking["docid"])]
            expected[:len(hits)] += hits
        expected /= len(qids)
        np.testing.assert_allclose(model.params["probs"][system], expected, rtol=1e-12)


@pytest.mark.parametrize("fit", [
    lambda runs, qrels: ta.fit_fusion(runs, qrels, "probfuse", n_segments=10 ** 12),
    lambda runs, qrels: ta.optimize_fusion(runs, qrels, "probfuse",
                                           grid={"n_segments": [10, 10 ** 12]}),
], ids=["fit_fusion", "optimize_fusion grid"])
def test_probfuse_segments_beyond_a_million_are_refused_naming_n_segments(two_runs, fit):
    """The model holds n_segments probabilities per run: 10¹² of them is refused at once
    (a ParameterError naming n_segments), not a NumPy MemoryError after the runs are read."""
    runs, qrels = two_runs
    with pytest.raises(ta.ParameterError, match=r"n_segments must be .* ≤ 1,000,000"):
        fit(runs, qrels)
