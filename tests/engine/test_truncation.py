"""truncate, truncate_at (Liu Table 2), cutoff_curve and optimal_cutoff (Amigó §4.2),
against naive evaluation of every prefix (tests/reference.py, tests/metrics/test_terminal.py)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference as ref
from tests.metrics.test_terminal import ap_prime, ndcg_prime, rbp_prime, rr_prime
from tests.strategies import frames_of, random_queries
from trunc_accessor import InputError

CURVE_CASES = [
    ("rbp_prime(p=0.6)", lambda r, j, lv: rbp_prime(r, j, lv, p=0.6)),
    ("ap_prime", ap_prime), ("rr_prime", rr_prime), ("ndcg_prime", ndcg_prime),
    ("precision@3", lambda r, j, lv: ref.precision(r, j, lv, k=3)),
    ("ap", ref.ap),
]


def _naive_curve(fn, grades, scores, judged, level, ties):
    """{depth: value} at the allowed cut-offs, by brute force over tie orders."""
    n = len(grades)
    if ties == "first":
        cuts = list(range(n + 1))
    else:
        cuts = [0] + [i for i in range(1, n + 1) if i == n or scores[i] != scores[i - 1]]
    out = {}
    for d in cuts:
        if ties == "first":
            out[d] = fn(grades[:d], judged, level)
        else:
            vals = [fn(list(o)[:d], judged, level) for o in ref.tie_orders(grades, scores)]
            out[d] = math.nan if any(math.isnan(v) for v in vals) else sum(vals) / len(vals)
    return out


@settings(max_examples=60, deadline=None)
@given(queries=random_queries(grades=st.sampled_from([None, 0, 1, 2]), max_extra=2,
                               max_extra_grade=2, sort_scores=True),
       ties=st.sampled_from(["average", "first"]))
def test_curve_and_optimum_equal_naive_prefix_evaluation(queries, ties):
    run, qrels = frames_of(queries)
    qids = [q[0] for q in queries]
    for spec, fn in CURVE_CASES:
        curve = run.ir.cutoff_curve(qrels, spec, ties=ties, queries=qids, undefined="nan")
        best = run.ir.optimal_cutoff(qrels, spec, ties=ties, queries=qids, undefined="nan")
        zero = run.ir.cutoff_curve(qrels, spec, ties=ties, queries=qids)
        assert (zero["value"].to_numpy() == curve["value"].fillna(0.0).to_numpy()).all()
        for qid, grades, scores, extra in queries:
            judged = [g for g in grades if g is not None] + extra
            want = _naive_curve(fn, grades, scores, judged, 1, ties)
            got = curve[curve.qid == qid].set_index("depth")["value"]
            assert list(got.index) == list(want), (spec, qid)
            for d, v in want.items():
                assert ((math.isnan(v) and math.isnan(got[d]))
                        or got[d] == pytest.approx(v, abs=1e-12))
            defined = {d: v for d, v in want.items() if not math.isnan(v)}
            if not defined:
                assert math.isnan(best.loc[qid, "value"])
                continue
            top = max(defined.values())
            shortest = min(d for d, v in defined.items() if v >= top - 1e-12)
            assert best.loc[qid, "depth"] == shortest, (spec, qid, dict(defined))
            assert best.loc[qid, "value"] == pytest.approx(top, abs=1e-12)


def test_oracle_truncated_run_scores_the_optimum():
    run, qrels = ta.load_example()
    best = run.ir.optimal_cutoff(qrels, "rbp_prime", p=0.5, ties="trec_eval")
    cut = run.ir.truncate(best["depth"])
    rescored = cut.ir.rbp_prime(qrels, p=0.5, ties="first")
    assert np.allclose(rescored.to_numpy(), best["value"].to_numpy())
    assert (cut.groupby("qid").size() == best["depth"]).all()
    plain = run.ir.rbp_prime(qrels, p=0.5, ties="trec_eval")
    assert (best["value"] >= plain - 1e-15).all()   # the full run is one of the candidates


def test_truncate_keeps_columns_order_and_frames():
    run = pd.DataFrame({"qid": ["a", "a", "b", "a", "b"], "docid": list("vwxyz"),
                        "score": [1.0, 3.0, 2.0, 2.0, 5.0], "extra": range(5)},
                       index=[10, 11, 12, 13, 14])
    before = run.copy(deep=True)
    cut = run.ir.truncate(1)
    assert cut.index.tolist() == [11, 14] and list(cut.columns) == list(run.columns)
    pd.testing.assert_frame_equal(run, before)
    per_q = run.ir.truncate(pd.Series({"a": 2, "b": 0}).rename_axis("qid"))
    assert per_q.index.tolist() == [11, 13]
    assert run.ir.truncate(0).empty
    p = pl.from_pandas(run)
    assert p.ir.truncate(1)["docid"].to_list() == ["w", "z"]
    lazy = p.lazy().ir.truncate(pl.DataFrame({"qid": ["a"], "depth": [2]}))
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect()["docid"].to_list() == ["w", "x", "y", "z"]  # b not named: whole
    ranked = run.assign(rank=[3, 1, 2, 2, 1])
    assert ranked.ir.truncate(1).index.tolist() == [11, 14]


@pytest.mark.parametrize("bad,pattern", [
    (-1, "≥ 0"), (1.5, "whole number"), ("3", "whole number"),
    (pd.Series({"a": 1.5}).rename_axis("qid"), "not a whole number"),
    (pd.Series({"a": 1}).rename_axis("topic"), "index must be"),
    (pl.DataFrame({"qid": ["a"], "k": [1]}), "lack column"),
])
def test_truncate_rejects_bad_depths(bad, pattern):
    run = pd.DataFrame({"qid": ["a", "a"], "docid": ["v", "w"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match=pattern):
        run.ir.truncate(bad)


def test_truncate_at_nil_marker_liu_table_2():
    run = pd.DataFrame({
        "qid": ["1"] * 4 + ["2"] * 3 + ["3"] * 2,
        "docid": ["a", "b", "NIL", "c", "NIL", "d", "e", "f", "g"],
        "score": [4.0, 3, 2, 1, 3, 2, 1, 2, 1]})
    cut = run.ir.truncate_at("NIL")
    assert cut.groupby("qid").docid.apply(list).to_dict() == {"1": ["a", "b"], "3": ["f", "g"]}
    qrels = pd.DataFrame({"qid": ["1", "2", "3"], "docid": ["a", "zz", "f"], "rel": [1, 0, 1]})
    scores = cut.ir.rbp_prime(qrels, p=0.5)
    assert scores["2"] == 1.0      # NIL first on a nil-answer query: the empty ranking, r_t = 1
    assert scores["1"] == pytest.approx(0.5 + 1.0 * 0.25)  # "10" + terminal r_t = 1
    lazy = pl.from_pandas(run).lazy().ir.truncate_at("NIL").collect()
    assert lazy["docid"].to_list() == ["a", "b", "f", "g"]


def test_polars_curve_and_optimum_match_pandas():
    run, qrels = ta.load_example()
    a = run.ir.cutoff_curve(qrels, "ndcg_prime", max_depth=20)
    b = pl.from_pandas(run).ir.cutoff_curve(qrels, "ndcg_prime", max_depth=20)
    c = pl.from_pandas(run).lazy().ir.cutoff_curve(qrels, "ndcg_prime", max_depth=20).collect()
    assert b.equals(c)
    assert np.allclose(a["value"].to_numpy(), b["value"].to_numpy())
    assert a.depth.max() <= 20 and set(a.qid) == {"301", "302", "303"}


def test_truncate_cuts_each_sampled_ranking_of_a_stochastic_run_on_its_own():
    """A run with a ``sample`` column holds several sampled rankings per query (expected
    exposure): truncate and truncate_at cut each one, as cutting every sample's frame alone
    does, on every frontend (they used to cut the samples' rows of a query as one ranking)."""
    import dask.dataframe as dd

    rng = np.random.default_rng(3)
    rows = [(q, s, f"d{d}", float(rng.integers(0, 4))) for q in ("1", "2") for s in range(3)
            for d in rng.permutation(6)]
    run = pd.DataFrame(rows, columns=["qid", "sample", "docid", "score"])
    for cut in (lambda r: r.ir.truncate(2), lambda r: r.ir.truncate_at("d3")):
        alone = pd.concat([cut(part) for _, part in run.groupby("sample")]).sort_index()
        pd.testing.assert_frame_equal(cut(run), alone)
        pd.testing.assert_frame_equal(cut(pl.from_pandas(run)).to_pandas(),
                                      alone.reset_index(drop=True), check_dtype=False)
        pd.testing.assert_frame_equal(cut(dd.from_pandas(run, npartitions=2)).compute()
                                      .sort_index(), alone, check_dtype=False)
