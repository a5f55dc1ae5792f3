"""Invariants that hold for any run (hypothesis): bounds, agreement of the three tie modes
when no score ties, independence from row order, and by= equal to separate evaluations."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor  # noqa: F401  (registers .ir)

METRICS = ["precision@3", "precision", "recall@3", "recall", "f1@3", "f1", "ap", "ap@3", "rr",
           "ndcg", "ndcg@3", "rprec", "bpref", "success@2", "rbp(p=0.6)", "rbp_residual(p=0.6)",
           "dcg@3", "rr_prime", "rbp_prime(p=0.6)", "ndcg_prime", "ap_prime", "err", "err@3",
           "err_prime", "rbu(p=0.6)", "erru", "space_ratio_plus", "space_ratio_minus(depth=5)"]
BOUNDED = [m for m in METRICS if not m.startswith(("dcg", "rbu", "erru"))]


@st.composite
def runs(draw, distinct_scores=False):
    rows, qrels = [], []
    for q in range(draw(st.integers(1, 4))):
        n = draw(st.integers(0, 8))
        if distinct_scores:
            scores = draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n, unique=True))
        else:
            scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        for i, s in enumerate(scores):
            rows.append((f"q{q}", f"d{i}", float(s)))
        for i in range(draw(st.integers(0, 10))):
            qrels.append((f"q{q}", f"d{draw(st.integers(0, 12))}", draw(st.integers(-1, 3))))
    run = pd.DataFrame(rows, columns=["qid", "docid", "score"]).astype(
        {"qid": str, "docid": str, "score": float})
    qr = pd.DataFrame(qrels, columns=["qid", "docid", "rel"]).drop_duplicates(["qid", "docid"])
    qr = pd.concat([qr, pd.DataFrame({"qid": ["q0"], "docid": ["zz"], "rel": [1]})])
    return run, qr.astype({"qid": str, "docid": str, "rel": int})


def _eval(run, qrels, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return run.ir.evaluate(qrels, METRICS, queries=["q0", "q1", "q2", "q3"], **kw)


@settings(max_examples=80, deadline=None)
@given(data=runs(), seed=st.integers(0, 2**31))
def test_bounds_and_row_order_independence(data, seed):
    run, qrels = data
    res = _eval(run, qrels)
    vals = res[BOUNDED].to_numpy()
    ok = np.isnan(vals) | ((vals >= -1e-12) & (vals <= 1 + 1e-12))
    assert ok.all(), res[BOUNDED]
    shuffled = run.sample(frac=1.0, random_state=seed % 2**32)
    for ties in ("average", "trec_eval"):
        a, b = _eval(run, qrels, ties=ties), _eval(shuffled, qrels, ties=ties)
        assert np.allclose(a.to_numpy(), b.to_numpy(), equal_nan=True, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=runs(distinct_scores=True))
def test_without_ties_all_modes_agree(data):
    run, qrels = data
    a = _eval(run, qrels, ties="average")
    for ties in ("first", "trec_eval"):
        assert np.allclose(a.to_numpy(), _eval(run, qrels, ties=ties).to_numpy(),
                           equal_nan=True, rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(a=runs(), b=runs())
def test_by_equals_separate_evaluations(a, b):
    run_a, qrels = a
    run_b, _ = b
    both = pd.concat([run_a.assign(system="A"), run_b.assign(system="B")], ignore_index=True)
    res = _eval(both, qrels, by="system")
    for name, run in (("A", run_a), ("B", run_b)):
        # by= groups are those present in the run: a system with no rows is not there
        if run.empty:
            assert name not in res.index.get_level_values("system")
            continue
        alone = _eval(run, qrels)
        assert np.allclose(res.loc[name].to_numpy(), alone.to_numpy(), equal_nan=True,
                           rtol=0, atol=1e-12)


def test_tie_aware_value_lies_between_best_and_worst_order():
    """One ranking whose four documents all tie: the mean lies between the extremes."""
    run = pd.DataFrame({"qid": ["1"] * 4, "docid": list("abcd"), "score": [1.0] * 4})
    qrels = pd.DataFrame({"qid": ["1", "1"], "docid": ["a", "d"], "rel": [1, 1]})
    avg = run.ir.ap(qrels).iloc[0]
    best = (1 + 1) / 2
    worst = (1 / 3 + 2 / 4) / 2
    assert worst < avg < best
    assert not math.isnan(avg)
