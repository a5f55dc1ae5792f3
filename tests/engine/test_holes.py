"""``run.ir.sample_holes``: the measures on random completions of the unjudged retrieved
documents, checked against completions made by hand (probabilities 0 and 1) and against the
exact expectation over every labelling of a small ranking's holes."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor.errors import InputError
from trunc_accessor.metrics.registry import REGISTRY

ADHOC = sorted(n for n, m in REGISTRY.items() if not m.subtopics and not m.user)


@pytest.fixture(scope="module")
def small():
    """trec_eval's run cut to its top 20 (holes in two of its three rankings) and qrels."""
    run, qrels = ta.load_example()
    run = run[run.groupby("qid").cumcount() < 20]
    joined = run.merge(qrels, on=["qid", "docid"], how="left")
    holes = joined.loc[joined["rel"].isna(), ["qid", "docid"]]
    assert len(holes) >= 5
    return run, qrels, holes


@pytest.mark.parametrize("p", [0.0, 1.0])
def test_certain_probabilities_give_the_completion_made_by_hand(small, p):
    run, qrels, holes = small
    top = qrels["rel"].max()
    completed = pd.concat([qrels, holes.assign(rel=top * p)], ignore_index=True)
    draws = run.ir.sample_holes(qrels, ADHOC, holes.assign(p=p), draws=2)
    expected = run.ir.evaluate(completed, ADHOC)
    for d in (0, 1):
        got = draws[draws["draw"] == d].set_index("qid")[ADHOC]
        np.testing.assert_allclose(got.to_numpy(), expected.loc[got.index].to_numpy(),
                                   rtol=1e-12, atol=1e-12)


def test_the_mean_of_the_draws_estimates_the_exact_expectation():
    """Three holes with probabilities 0.2, 0.5, 0.9: the exact expectation is the sum over
    the 8 labellings, each weighted by its probability and scored on qrels completed by
    hand; the mean of 4,000 draws lies within 4 standard errors of it."""
    run = pd.DataFrame({"qid": "q", "docid": [f"d{i}" for i in range(6)],
                        "score": [6.0, 5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"qid": "q", "docid": ["d0", "d2", "d4", "x"], "rel": [0, 1, 0, 1]})
    holes, probs = ["d1", "d3", "d5"], [0.2, 0.5, 0.9]
    metrics = ["P@3", "ap", "ndcg", "rbp(p=0.8)", "bpref", "rr"]
    exact = pd.Series(0.0, index=metrics)
    for labels in itertools.product([0, 1], repeat=3):
        weight = np.prod([p if lab else 1 - p for p, lab in zip(probs, labels)])
        done = pd.concat([qrels, pd.DataFrame({"qid": "q", "docid": holes, "rel": labels})])
        exact += weight * run.ir.evaluate(done, metrics).loc["q"]
    draws = run.ir.sample_holes(qrels, metrics, pd.DataFrame(
        {"qid": "q", "docid": holes, "p": probs}), draws=4000, seed=1)
    mean, se = draws[metrics].mean(), draws[metrics].std() / np.sqrt(4000)
    assert ((mean - exact).abs() <= 4 * se + 1e-12).all(), (mean - exact) / se


def test_draws_are_reproducible_and_agree_on_polars(small):
    run, qrels, holes = small
    probs = holes.assign(p=0.4)
    a = run.ir.sample_holes(qrels, ["ndcg@10", "P@10"], probs, draws=50, seed=7)
    b = run.ir.sample_holes(qrels, ["ndcg@10", "P@10"], probs, draws=50, seed=7)
    pd.testing.assert_frame_equal(a, b)
    polars = pl.from_pandas(run).ir.sample_holes(pl.from_pandas(qrels), ["ndcg@10", "P@10"],
                                                 pl.from_pandas(probs), draws=50, seed=7)
    lazy = pl.from_pandas(run).lazy().ir.sample_holes(qrels, ["ndcg@10", "P@10"], probs,
                                                      draws=50, seed=7).collect()
    for other in (polars, lazy):
        pd.testing.assert_frame_equal(other.to_pandas(), a, check_dtype=False)


@pytest.mark.parametrize(("probs", "match"), [
    (lambda h: h.assign(p=0.5).iloc[1:], "no p for 1 unjudged"),
    (lambda h: h.assign(p=1.5), r"in \[0, 1\]"),
    (lambda h: h.assign(prob=0.5), "lack the columns"),
])
def test_bad_probabilities_are_refused(small, probs, match):
    run, qrels, holes = small
    with pytest.raises(InputError, match=match):
        run.ir.sample_holes(qrels, "P@10", probs(holes))


@pytest.mark.parametrize(("kw", "match"), [({"draws": 0}, "draws"), ({"seed": 1.5}, "seed")])
def test_bad_draw_options_are_refused(small, kw, match):
    run, qrels, holes = small
    with pytest.raises(InputError, match=match):
        run.ir.sample_holes(qrels, "P@10", holes.assign(p=0.5), **kw)


def test_dask_runs_are_refused(small):
    import dask.dataframe as dd

    run, qrels, holes = small
    with pytest.raises(InputError, match="compute the Dask run first"):
        dd.from_pandas(run, npartitions=1).ir.sample_holes(qrels, "P@10", holes.assign(p=0.5))
