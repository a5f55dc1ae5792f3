"""Preparation's fast paths give the exact answer: the 64-bit hash join of the qrels and
the hashed duplicate check fall back to exact passes on a collision, and rows already in
ranking order are used as they are. Values are checked against pytrec_eval (trec_eval
9.0.8, scores compared as float32: ties="trec_eval9")."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from trunc_accessor.core import joins

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
    monkeypatch.setattr(joins, "hash_values",
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


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=60),
       st.data())
@settings(max_examples=150, deadline=None)
def test_lazy_group_arrays_equal_the_tie_groups_found_by_hand(rows, data):
    """Tie groups are kept as each group's first row; the group arrays derived from it, in
    whole or for some groups (groups_of), are the maximal runs of equal score in a ranking
    found by a plain loop."""
    from trunc_accessor.core.prepared import build
    rows = sorted(rows, key=lambda r: (r[0], -r[1]))
    seg = np.array([r[0] for r in rows])
    score = np.array([float(r[1]) for r in rows])
    n_seg = int(seg.max()) + 1
    prep = build(pl.DataFrame({"qid": range(n_seg)}), np.arange(n_seg), seg,
                 np.full(len(seg), np.nan), score, np.zeros(2, dtype=np.int64), np.zeros(0),
                 0.0, "average")
    expected, pos, positions = [], 0, []  # (segment, positions before, size) by hand
    for i in range(len(rows)):
        pos = pos + 1 if i and seg[i] == seg[i - 1] else 1
        positions.append(pos)
        if i and seg[i] == seg[i - 1] and score[i] == score[i - 1]:
            expected[-1][2] += 1
        else:
            expected.append([seg[i], pos - 1, 1])
    expected = np.array(expected)
    assert prep.n_groups == len(expected)
    some = np.array(sorted(data.draw(st.sets(st.integers(0, len(expected) - 1), min_size=1))))
    lazy = build(prep.keys, prep.seg_q, seg, prep.grade, score, prep.q_offsets,
                 prep.q_grades, 0.0, "average")
    for got in (lazy.groups_of(some), (prep.g_seg[some], prep.g_start[some], prep.g_size[some])):
        assert [list(a) for a in got] == [list(expected[some, j]) for j in range(3)]
    # ties="first": every row its own group, at its position
    first = build(prep.keys, prep.seg_q, seg, prep.grade, score, prep.q_offsets,
                  prep.q_grades, 0.0, "first")
    rows = np.arange(len(seg))
    by_hand = [list(seg), [p - 1 for p in positions], [1] * len(seg)]
    assert [list(a) for a in first.groups_of(rows)] == by_hand
    assert list(first.positions_of(rows)) == positions == list(first.pos) == list(prep.pos)
