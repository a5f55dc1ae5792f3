"""Tie-aware values equal the brute-force mean over every order of the tied documents.

Random multi-query runs with heavy ties (scores drawn from four values) are evaluated
through the pandas accessor; the expected value of each query is the mean, over all
permutations of its tie groups, of the naive reference definition in tests/reference.py.
"""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import reference as ref
from tests.conftest import DATA, need
from tests.strategies import GRADES, assert_matches_brute_force, frames_of, random_queries
from trunc_accessor import single


# (metric string for the accessor, reference function, reference params)
def _cases(k, p, gains):
    return [
        (f"precision@{k}", ref.precision, {"k": k}), ("precision", ref.precision, {}),
        (f"recall@{k}", ref.recall, {"k": k}), ("recall", ref.recall, {}),
        (f"f1@{k}", ref.f1, {"k": k}), ("f1", ref.f1, {}),
        (f"success@{k}", ref.success, {"k": k}), ("success", ref.success, {}),
        (f"ap@{k}", ref.ap, {"k": k}), ("ap", ref.ap, {}),
        (f"rr@{k}", ref.rr, {"k": k}), ("rr", ref.rr, {}),
        (("dcg", {"k": k, "gains": gains}), ref.dcg, {"k": k, "gains": gains}),
        (("ndcg", {"k": k, "gains": gains}), ref.ndcg, {"k": k, "gains": gains}),
        ("ndcg", ref.ndcg, {}), ("rprec", ref.rprec, {}), ("bpref", ref.bpref, {}),
        (f"rbp(p={p})", ref.rbp, {"p": p}), (f"rbp_residual(p={p})", ref.rbp_residual, {"p": p}),
    ]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=random_queries(), k=st.integers(1, 7), p=st.sampled_from([0.3, 0.8]),
       level=st.sampled_from([1, 2]), gains=st.sampled_from([None, "exponential", {1: 3, 2: 9}]),
       seed=st.integers(0, 10**6))
def test_tie_aware_equals_brute_force_mean(queries, k, p, level, gains, seed):
    run, qrels = frames_of(queries, random.Random(seed))
    assert_matches_brute_force(run, qrels, queries, _cases(k, p, gains), level)


@settings(max_examples=60, deadline=None)
@given(grades=st.lists(GRADES, min_size=0, max_size=7),
       scores=st.lists(st.integers(0, 2), min_size=7, max_size=7), k=st.integers(1, 8))
def test_single_ranking_functions_equal_brute_force(grades, scores, k):
    s = sorted((float(x) for x in scores[: len(grades)]), reverse=True)
    judged = [g for g in grades if g is not None] + [1, 2]
    for name, params in (("ap", {"k": k}), ("rr", {"k": k}), ("ndcg", {"k": k}),
                         ("success", {"k": k}), ("bpref", {}), ("precision", {"k": k})):
        want = ref.brute_force_mean(ref.FUNCTIONS[name], grades, s, judged, 1, **params)
        got = getattr(single, name)(grades, scores=s, qrels_grades=judged, **params)
        assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, abs=1e-12)


def test_rank_column_orders_and_scores_group():
    """With a rank column, order = rank; tie groups = adjacent equal scores in that order."""
    run = pd.DataFrame({"qid": ["1"] * 4, "docid": list("abcd"),
                        "score": [1.0, 1.0, 0.5, 0.5], "rank": [4, 3, 2, 1]})
    qrels = pd.DataFrame({"qid": ["1"], "docid": ["a"], "rel": [1]})
    # rank order: d c b a, scores .5 .5 1 1 -> groups {d, c}, {b, a}; a at 3 or 4
    assert run.ir.rr(qrels).iloc[0] == pytest.approx((1 / 3 + 1 / 4) / 2)
    assert run.ir.rr(qrels, ties="first").iloc[0] == pytest.approx(1 / 4)
    # trec_eval ignores rank: score desc, then docid desc -> b, a, d, c
    assert run.ir.rr(qrels, ties="trec_eval").iloc[0] == pytest.approx(1 / 2)


def test_large_tie_group_is_exact_and_finite():
    """One tie group of 2000 documents, 3 relevant: closed forms stay exact."""
    n, rel_at = 2000, {5, 700, 1999}
    grades = [1 if i in rel_at else 0 for i in range(n)]
    got_rr = single.rr(grades, scores=[1.0] * n)
    # E[1/min] for 3 uniform positions among n: sum_x C(n-x, 2)/C(n, 3) / x
    want_rr = sum(math.comb(n - x, 2) / math.comb(n, 3) / x for x in range(1, n + 1))
    assert got_rr == pytest.approx(want_rr, rel=1e-9)
    got_p = single.precision(grades, scores=[1.0] * n, k=10)
    assert got_p == pytest.approx(3 / n, rel=1e-12)  # each slot holds 3/n relevant
    got_s = single.success(grades, scores=[1.0] * n, k=10)
    assert got_s == pytest.approx(1 - math.comb(n - 3, 10) / math.comb(n, 10), rel=1e-9)


# ----------------------------------------------------------------------- scikit-learn
def _sklearn_rows():
    path = need(DATA / "tie_aware" / "sklearn_tie_averaged_dcg.tsv")
    rows = [line.split("\t") for line in path.read_text().splitlines()
            if line and not line.startswith("#")]
    header, body = rows[0], rows[1:]
    return [dict(zip(header, r)) for r in body]


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_dcg_equals_scikit_learn_tie_averaged(library):
    inputs = json.loads(need(DATA / "tie_aware" / "inputs.json").read_text())
    run_rows, qrels_rows = [], []
    for qid, d in inputs.items():
        for i, (y, s) in enumerate(zip(d["y_true"], d["y_score"])):
            run_rows.append((qid, f"d{i}", s))
            qrels_rows.append((qid, f"d{i}", y))
    run = pl.DataFrame(run_rows, schema=["qid", "docid", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["qid", "docid", "rel"], orient="row")
    if library == "pandas":
        run, qrels = run.to_pandas(), qrels.to_pandas()
    checked = 0
    for row in _sklearn_rows():
        if row["ignore_ties"] != "False" and row["query"] != "q3":  # q3 has no ties
            continue
        k = None if row["k"] == "all" else int(row["k"])
        res = run.ir.evaluate(qrels, [("dcg", {"k": k}), ("ndcg", {"k": k})])
        if library == "polars":
            res = res.to_pandas().set_index("qid")
        got = res.loc[row["query"]]
        assert got.iloc[0] == pytest.approx(float(row["dcg"]), abs=1e-9), row
        assert got.iloc[1] == pytest.approx(float(row["ndcg"]), abs=1e-9), row
        checked += 1
    assert checked >= 30


def test_random_orders_average_to_the_tie_aware_value():
    """A sanity check at scale: a Monte-Carlo mean over random tie orders converges."""
    rng = np.random.default_rng(7)
    grades = list(rng.integers(0, 3, 40))
    scores = sorted(rng.integers(0, 4, 40).astype(float), reverse=True)
    judged = grades + [2, 2, 1]
    exact = single.ap(grades, scores=scores, qrels_grades=judged)
    samples = []
    for _ in range(4000):
        order = []
        for s in sorted(set(scores), reverse=True):
            grp = [g for g, sc in zip(grades, scores) if sc == s]
            rng.shuffle(grp)
            order += grp
        samples.append(ref.ap(order, judged, 1))
    assert abs(np.mean(samples) - exact) < 4 * np.std(samples) / math.sqrt(len(samples))


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_segment_order_is_a_stable_sort(data):
    """ordering.segment_order (a stable sort of packed 64-bit words, words equal but for
    dropped bits sorted again) equals a stable lexicographic sort by (segment, key), NaN
    last, -0.0 equal to 0.0."""
    from trunc_accessor.core.ordering import segment_order

    n = data.draw(st.integers(0, 40))
    seg = np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=np.int64)
    values = st.sampled_from([0.0, -0.0, 1.0, -1.0, 1.0 + 2.0 ** -50, 1e-300, -5e300,
                              math.inf, -math.inf, math.nan])
    key = np.array(data.draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64)
    if data.draw(st.booleans()):  # integer keys: ranks (whose range fits beside the
        # segment: sorted exactly) or keys far apart that differ in their lowest bits
        wide = st.sampled_from([0, 1, -1, 7, 2**62, 2**62 + 1, -2**62, -2**62 - 1])
        key = (np.array(data.draw(st.lists(wide, min_size=n, max_size=n)), dtype=np.int64)
               if data.draw(st.booleans())
               else np.clip(np.nan_to_num(key), -7, 7).astype(np.int64))
    descending = data.draw(st.booleans())
    signed = -key if descending else key
    nan = np.isnan(key) if key.dtype.kind == "f" else np.zeros(n, dtype=bool)
    want = np.lexsort((np.arange(n), np.where(nan, 0, signed) + 0, nan, seg))
    assert segment_order(seg, key, descending).tolist() == want.tolist()
