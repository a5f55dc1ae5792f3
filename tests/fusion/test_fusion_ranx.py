"""Fusion against ranx 0.3.21: every method × normalisation on random runs without ties,
the trained methods' learnt parameters, and optimize_fusion's grid scores and choices.

ranx's answers are read from tests/data/fusion/ranx_fusion.json.gz, written by
tests/make_fusion_fixtures.py (ranx compiles its Numba kernels for minutes on first use, and
loading them takes seconds even then); test_live_ranx_small_case runs ranx itself on other
runs when TRUNC_ACCESSOR_LIVE_RANX=1.
"""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import trunc_accessor as ta
from tests.make_fusion_fixtures import METHODS, N_SEGMENTS, NORMS, OUT, WEIGHTS

DATA = json.loads(gzip.decompress(Path(OUT).read_bytes()))
LEARNT = {"posfuse": "probs", "probfuse": "probs", "segfuse": "probs", "slidefuse": "probs",
          "mapfuse": "map_scores", "bayesfuse": "log_odds"}
TOL = 1e-12


def frames(entry: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    runs = pl.DataFrame([(f"r{i}", q, d, s) for i, run in enumerate(entry["runs"])
                         for q, docs in run.items() for d, s in docs.items()],
                        schema=["system", "qid", "docid", "score"], orient="row")
    qrels = pl.DataFrame([(q, d, g) for q, docs in entry["qrels"].items() for d, g in docs.items()],
                         schema=["qid", "docid", "rel"], orient="row")
    return runs, qrels


def ours(runs, qrels, method: str, norm, learnt: list | None = None):
    params = dict(METHODS[method])
    if "weights" in params:  # ranx's list follows its runs' order: r0, r1, r2
        params["weights"] = dict(zip(["r0", "r1", "r2"], params["weights"]))
    if method in LEARNT:
        fit = {"n_segments": N_SEGMENTS} if method == "probfuse" else {}
        model = ta.fit_fusion(runs, qrels, method, norm, **fit, **params)
        mine = model.params[LEARNT[method]]
        if learnt is not None:
            for i, theirs in enumerate(learnt):
                np.testing.assert_allclose(np.asarray(mine[f"r{i}"], dtype=float), theirs,
                                           rtol=TOL, atol=TOL, err_msg=f"{method} learnt r{i}")
        return model.apply(runs)
    return ta.fuse(runs, method, norm, **params)


def check(got: pl.DataFrame, expected: dict, what: str) -> None:
    for q, docs in expected.items():
        mine = got.filter(pl.col("qid") == q)
        assert sorted(mine["docid"].to_list()) == sorted(docs), what
        theirs = np.array([docs[d] for d in mine["docid"]])
        np.testing.assert_allclose(mine["score"].to_numpy(), theirs, rtol=TOL, atol=TOL,
                                   err_msg=f"{what} q={q}")
        # the same fused ranking: ranx's scores do not rise along ours
        assert np.all(np.diff(theirs) <= TOL * np.maximum(1, np.abs(theirs[1:]))), what
    assert set(got["qid"].unique()) <= set(expected), what


@pytest.mark.parametrize("set_name", ["partial", "full"])
@pytest.mark.parametrize("norm", NORMS, ids=str)
def test_every_method_equals_ranx(set_name, norm):
    entry = DATA["sets"][set_name]
    runs, qrels = frames(entry)
    done = 0
    for method in METHODS:
        key = f"{method}|{norm}"
        if key in entry["skipped"]:
            continue
        check(ours(runs, qrels, method, norm, entry["learnt"].get(key)), entry["fused"][key], key)
        done += 1
    assert done == sum(1 for k in entry["fused"] if k.endswith(f"|{norm}"))


def test_skipped_pairs_are_what_this_library_defines():
    """ranx's position-based methods after its borda normalisation read a hash-seed order;
    here that normalisation keeps each run's own ranking (its unretrieved candidates
    follow): on runs that rank every candidate, the same as no normalisation."""
    entry = DATA["sets"]["full"]
    runs, _ = frames(entry)
    assert all(k.endswith("|borda") for k in entry["skipped"])
    for method in ("rrf", "isr", "rbc", "bordafuse", "condorcet"):
        params = METHODS[method]
        assert ta.fuse(runs, method, "borda", **params).equals(
            ta.fuse(runs, method, None, **params)), method
    partial = DATA["sets"]["partial"]["skipped"]
    assert {k.split("|")[0] for k in partial if not k.endswith("|borda")} == {
        "condorcet", "w_condorcet"}


def _tied(runs, qrels, method, point: dict) -> bool:
    """Does the fused run at this grid point tie documents of different grades in its top
    10? Ties are scores within 1e-12 of each other: sums that are equal in exact arithmetic
    differ in their last bits between two implementations. (ranx's nDCG@10 then depends on
    the order its unstable sort gives them; ours on docid.)"""
    params = dict(point)
    if "weights" in params:
        params["weights"] = dict(zip(["r0", "r1", "r2"], params["weights"]))
    fused = ta.fuse(runs, method, "min-max", **params)  # in rank order
    gap = (pl.col("score").shift() - pl.col("score")).over("qid")
    groups = (fused.join(qrels, on=["qid", "docid"], how="left", maintain_order="left")
              .with_columns(pl.col("rel").fill_null(0).clip(0, None),
                            (gap.fill_null(1.0) > TOL).cum_sum().alias("group"))
              .group_by("qid", "group")
              .agg(pl.col("rank").min().alias("top"), pl.col("rel").n_unique().alias("grades")))
    return groups.filter((pl.col("top") <= 10) & (pl.col("grades") > 1)).height > 0


def _grid(runs, qrels, method) -> tuple[dict, object]:
    search = ta.optimize_fusion(runs, qrels, method, "min-max", metric="ndcg@10", ties="first")
    params = [c for c in search.grid.columns if c not in ("fold", "ndcg@10")]
    mine = {tuple(float(row[c]) for c in params): row["ndcg@10"]
            for row in search.grid.iter_rows(named=True)}
    return mine, search


SCORE_BASED = ("wsum", "wmnz", "mixed", "gmnz")  # their fused runs here have no tied scores


def test_optimize_fusion_equals_ranx_score_based():
    """Every grid point's nDCG@10 and the choice equal ranx's optimize_fusion report (our
    weight grid is a superset: ranx drops the vectors whose float sum is not exactly 1.0)."""
    entry = DATA["sets"]["full"]
    runs, qrels = frames(entry)
    for method in SCORE_BASED:
        theirs = entry["optimize"][method]
        mine, search = _grid(runs, qrels, method)
        report = {tuple(c): v for c, v in theirs["report"]}
        assert set(report) <= set(mine) and len(mine) - len(report) in (0, 4), method
        for key, value in report.items():
            assert mine[key] == pytest.approx(value, abs=TOL), f"{method} {key}"
        best = theirs["best"]
        if "weights" in best:
            assert tuple(search.best["weights"].values()) == tuple(best["weights"]), method
        else:
            assert search.best["gamma"] == best["gamma"]


def test_optimize_fusion_equals_ranx_where_ties_do_not_decide():
    """Position-based methods' fused runs tie documents (equal positions in different runs),
    and ranx's nDCG@10 then depends on the order of its unstable sort: on sampled grid
    points whose fused top 10 ties no documents of different grades, equal to ranx's."""
    entry = DATA["sets"]["full"]
    runs, qrels = frames(entry)
    compared = 0
    for method, theirs in entry["optimize"].items():
        if method in SCORE_BASED:
            continue
        mine, _ = _grid(runs, qrels, method)
        report = {tuple(c): v for c, v in theirs["report"]}
        assert set(report) <= set(mine), method
        name = {"rrf": "k", "rbc": "phi", "logn_isr": "sigma", "probfuse": "n_segments",
                "slidefuse": "w"}.get(method, "weights")
        keys = list(report)
        for key in keys[::max(1, len(keys) // 6)]:
            point = {name: list(key) if name == "weights" else key[0]}
            if method in ("probfuse", "slidefuse"):
                fit = {name: int(key[0])}
                point = dict(ta.fit_fusion(runs, qrels, method, "min-max", **fit).params)
            if not _tied(runs, qrels, method, point):
                assert mine[key] == pytest.approx(report[key], abs=TOL), f"{method} {key}"
                compared += 1
    assert compared >= 10


@pytest.mark.skipif(not os.environ.get("TRUNC_ACCESSOR_LIVE_RANX"),
                    reason="set TRUNC_ACCESSOR_LIVE_RANX=1 to run ranx itself: it takes 7-10 s "
                    "with a warm Numba cache and minutes with a cold one (the stored answers "
                    "are compared above)")
def test_live_ranx_small_case():
    """ranx run now on runs made here (not the stored ones)."""
    pytest.importorskip("ranx")
    from ranx import Run
    from ranx import fuse as ranx_fuse

    rng = np.random.default_rng(7)
    raw = [{f"q{q}": {f"d{d}": float(s) for d, s in zip(
        rng.choice(12, size=6, replace=False), rng.permutation(20)[:6] + rng.random())}
        for q in range(3)} for _ in range(3)]
    runs = pl.DataFrame([(f"r{i}", q, d, s) for i, run in enumerate(raw)
                         for q, docs in run.items() for d, s in docs.items()],
                        schema=["system", "qid", "docid", "score"], orient="row")
    for method, norm, params in (("rrf", "min-max", {}), ("mnz", "zmuv", {}),
                                 ("wsum", "sum", {"weights": [0.5, 0.3, 0.2]}),
                                 ("bordafuse", None, {}), ("isr", "rank", {})):
        theirs = ranx_fuse([Run(r) for r in raw], norm=norm, method=method, params=params)
        expected = {q: dict(docs) for q, docs in theirs.run.items()}
        mine = {f"r{i}": runs.filter(pl.col("system") == f"r{i}").drop("system")
                for i in range(3)}  # a mapping of runs: a list of weights follows its order
        check(ta.fuse(mine, method, norm, **params), expected, f"{method}|{norm}")


def test_weight_list_follows_the_runs_order_as_ranx():
    """ranx reads a list of weights in the order its runs are listed: runs given as a
    mapping in another order than sorted, with the list in that order, fuse as ranx fused
    [r0, r1, r2] with WEIGHTS; a list with one long frame, whose systems come in no order,
    is refused (it used to follow the sorted names and fuse another run)."""
    entry = DATA["sets"]["partial"]
    runs, _ = frames(entry)
    order = ["r2", "r0", "r1"]
    mapping = {n: runs.filter(pl.col("system") == n).drop("system") for n in order}
    listed = [WEIGHTS[int(n[1])] for n in order]
    for method in ("wsum", "wmnz", "mixed", "w_bordafuse"):
        for norm in ("min-max", "zmuv"):
            check(ta.fuse(mapping, method, norm, weights=listed),
                  entry["fused"][f"{method}|{norm}"], f"{method}|{norm}")
            with pytest.raises(ta.ParameterError, match=r"weights= is a sequence.*mapping"):
                ta.fuse(runs, method, norm, weights=listed)
            with pytest.raises(ta.ParameterError, match=r"weights= is a sequence"):
                ta.fuse(runs.lazy(), method, norm, weights=np.array(listed))


def test_per_run_sequences_elsewhere_follow_the_runs_order_or_are_refused():
    """The siblings of weights=: learnt parameters given by hand, fit_fusion's stored
    weights, and optimize_fusion's grid and fixed weights."""
    entry = DATA["sets"]["full"]
    runs, qrels = frames(entry)
    order = ["r1", "r2", "r0"]
    mapping = {n: runs.filter(pl.col("system") == n).drop("system") for n in order}
    listed = [WEIGHTS[int(n[1])] for n in order]
    # learnt probabilities in ranx's run order, by hand
    probs = [np.asarray(entry["learnt"]["posfuse|min-max"][int(n[1])]) for n in order]
    check(ta.fuse(mapping, "posfuse", "min-max", probs=probs),
          entry["fused"]["posfuse|min-max"], "posfuse by hand")
    with pytest.raises(ta.ParameterError, match=r"probs= is a sequence"):
        ta.fuse(runs, "posfuse", "min-max", probs=probs)
    # a model stores the weights by name, so it applies to runs in any form
    model = ta.fit_fusion(mapping, qrels, "wsum", "min-max", weights=listed)
    assert model.params["weights"] == dict(zip(order, listed))
    check(model.apply(runs), entry["fused"]["wsum|min-max"], "model from a list")
    with pytest.raises(ta.ParameterError, match=r"weights= is a sequence"):
        ta.fit_fusion(runs, qrels, "wsum", "min-max", weights=listed)
    # optimize_fusion: a grid of lists follows the mapping's order; refused with a frame
    search = ta.optimize_fusion(mapping, qrels, "wsum", "min-max", metric="ndcg@10",
                                grid={"weights": [listed, [1 / 3] * 3]})
    row = search.grid.filter(pl.col("weight[r0]") == WEIGHTS[0])
    fused = ta.fuse(runs, "wsum", "min-max", weights=dict(zip(["r0", "r1", "r2"], WEIGHTS)))
    assert row["ndcg@10"].item() == pytest.approx(
        fused.ir.evaluate(qrels, "ndcg@10")["ndcg@10"].mean(), abs=TOL)
    assert set(search.best["weights"]) == set(order)
    with pytest.raises(ta.ParameterError, match=r"weights= is a sequence"):
        ta.optimize_fusion(runs, qrels, "wsum", grid={"weights": [listed]})
    with pytest.raises(ta.ParameterError, match=r"weights= is a sequence"):
        ta.optimize_fusion(runs, qrels, "w_condorcet", weights=listed)


def test_best_score_is_ranx_s_best_in_sample_score():
    """Without folds= there is no held-out query, so score is None; best_score is the
    chosen point's mean on the queries it was chosen on: ranx's best reported score."""
    entry = DATA["sets"]["full"]
    runs, qrels = frames(entry)
    for method in SCORE_BASED:
        search = ta.optimize_fusion(runs, qrels, method, "min-max", metric="ndcg@10")
        report = entry["optimize"][method]["report"]
        assert search.best_score == pytest.approx(max(v for _, v in report), abs=TOL)
        assert search.score is None and search.folds is None
        assert f"in-sample ndcg@10 {search.best_score:.4f}" in repr(search)
        fused = ta.fuse(runs, search.model)
        assert search.best_score == pytest.approx(
            fused.ir.evaluate(qrels, "ndcg@10")["ndcg@10"].mean(), abs=TOL)


CRANFIELD = json.loads(gzip.decompress((Path(OUT).parent / "ranx_probfuse_cranfield.json.gz")
                                       .read_bytes()))


@pytest.mark.parametrize("depth", [None, 100], ids=["full", "depth100"])
def test_probfuse_on_cranfield_halves_equals_ranx(depth):
    """ProbFuse trained on half of Cranfield's queries and applied to the other half, at
    full depth (22 to 1,000 documents per ranking) and at depth 100: ranx's probabilities
    and fused scores. A ranking of n documents is cut into segments of ⌈n/x⌉ positions
    (Lillis et al. 2006; ranx), so with x = 10 a 1,000-document ranking has segments of 100
    documents that share one value: the fused run's top is a tie of tens of documents (the
    same in ranx), and its tie-averaged nDCG@10 collapses; at depth 100, or with segments of
    about ten documents (x = 100 at full depth), it does not."""
    from tests.make_fusion_cranfield_fixture import at_depth, cranfield

    runs, train_qrels, test_qrels, _, test_q = cranfield()
    runs = at_depth(runs, depth)
    theirs = CRANFIELD["depths"][str(depth)]
    model = ta.fit_fusion(runs, train_qrels, "probfuse", None, n_segments=10)
    for name, probs in zip(CRANFIELD["systems"], theirs["probs"]):
        np.testing.assert_allclose(model.params["probs"][name], probs, rtol=1e-12, atol=1e-15)
    stored = test_q[:20]
    fused = pl.from_pandas(model.apply(runs[runs["qid"].isin(stored)]))
    check(fused, theirs["fused"], f"probfuse depth={depth}")
    # the cause of the collapse: the fused top ties many documents at full depth
    top = fused.filter(pl.col("score") == pl.col("score").max().over("qid"))
    tied = top.group_by("qid").len()["len"].median()
    ndcg = model.apply(runs[runs["qid"].isin(test_q)]).ir.evaluate(test_qrels, "ndcg@10")
    if depth is None:
        assert tied > 20 and ndcg["ndcg@10"].mean() < 0.1
        finer = ta.fit_fusion(runs, train_qrels, "probfuse", None, n_segments=100)
        again = finer.apply(runs[runs["qid"].isin(test_q)]).ir.evaluate(test_qrels, "ndcg@10")
        assert again["ndcg@10"].mean() > 0.3
    else:
        assert tied <= 10 and ndcg["ndcg@10"].mean() > 0.3
