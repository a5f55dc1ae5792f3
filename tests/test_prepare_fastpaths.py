"""Preparation's fast paths give the exact answer: the 64-bit hash join of the qrels and
the hashed duplicate check fall back to exact passes on a collision, and rows already in
ranking order are used as they are. Values are checked against pytrec_eval (trec_eval
9.0.8, scores compared as float32: ties="trec_eval9")."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import prepare

pytrec_eval = pytest.importorskip("pytrec_eval")

OURS = {"ap": "map", "ndcg@10": "ndcg_cut_10", "rr": "recip_rank", "P@5": "P_5",
        "bpref": "bpref"}


def _pytrec(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    q = {}
    for qid, docid, rel in qrels[["qid", "docid", "rel"]].itertuples(index=False):
        q.setdefault(str(qid), {})[str(docid)] = int(rel)
    r = {}
    for qid, docid, score in run[["qid", "docid", "score"]].itertuples(index=False):
        r.setdefault(str(qid), {})[str(docid)] = float(score)
    ev = pytrec_eval.RelevanceEvaluator(q, set(OURS.values())).evaluate(r)
    return pd.DataFrame({ours: {qid: v[theirs] for qid, v in ev.items()}
                         for ours, theirs in OURS.items()})


def _check(values: pd.DataFrame, reference: pd.DataFrame) -> None:
    values = values.copy()
    values.index = values.index.astype(str)
    got = values.loc[reference.index, list(OURS)].fillna(0.0)  # trec_eval prints 0 at R = 0
    np.testing.assert_allclose(got.to_numpy(), reference.to_numpy(), atol=1e-6)


@pytest.fixture(scope="module")
def example():
    run, qrels = ta.load_example("trec_eval")
    return run[["qid", "docid", "score"]], qrels


def test_colliding_hashes_fall_back_to_exact_passes(example, monkeypatch):
    run, qrels = example
    reference = _pytrec(run, qrels)
    _check(run.ir.evaluate(qrels, list(OURS), ties="trec_eval9"), reference)
    # a hash with four values: almost every join key and duplicate key collides
    monkeypatch.setattr(prepare, "_hash",
                        lambda values, seed=0: (values.hash(seed) % 4).to_numpy())
    _check(run.ir.evaluate(qrels, list(OURS), ties="trec_eval9"), reference)
    with pytest.raises(ValueError, match="appears twice"):
        pd.concat([run, run.iloc[[3]]]).ir.evaluate(qrels, ["ap"])


@pytest.mark.parametrize("ties", ["average", "trec_eval9"])  # "first" keeps input order
def test_any_row_order_gives_the_same_values(example, ties):
    run, qrels = example
    expected = run.ir.evaluate(qrels, list(OURS), ties=ties)
    if ties == "trec_eval9":
        _check(expected, _pytrec(run, qrels))
    in_order = run.sort_values(["qid", "score", "docid"], ascending=[True, False, False])
    shuffled = run.sample(frac=1.0, random_state=7)
    for frame in (in_order, shuffled):
        pd.testing.assert_frame_equal(frame.ir.evaluate(qrels, list(OURS), ties=ties), expected)
        got = pl.from_pandas(frame).ir.evaluate(pl.from_pandas(qrels), list(OURS), ties=ties)
        np.testing.assert_array_equal(got.select(list(OURS)).to_numpy(),
                                      expected[list(OURS)].to_numpy())
