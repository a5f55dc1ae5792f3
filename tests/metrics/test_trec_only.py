"""trec_eval's remaining all_trec measures (utility, binG, G, ndcg_rel, Rndcg, rbp,
rbp_resid): per query equal to trec_eval 10's stored outputs, equal to plain-Python
transcriptions of its C functions (tests/reference_trec_only.py) on random rankings, and
exact under ties="average" (brute force over tie orders) or refused where no closed form
exists."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference_trec_only as ref
from tests.conftest import DATA, need, read_trec_eval_output
from trunc_accessor import single

TE = DATA / "trec_eval"
NAMES = {"utility": "utility", "binG": "binary_g", "G": "normalized_g", "ndcg_rel": "ndcg_rel",
         "Rndcg": "rndcg", "rbp": "trec_rbp", "rbp_resid": "trec_rbp_residual"}
STORED = [("out.test.aq", "qrels.test", "results.test", 1),
          ("out.test.aql", "qrels.rel_level", "results.test", 2),
          ("generated/out.comment.test.aq.v10.0", "qrels.comment.test", "results.comment.test", 1)]


@pytest.mark.parametrize("out,qrels_file,run_file,level", STORED)
def test_equal_to_trec_eval_10_outputs(out, qrels_file, run_file, level):
    expected = read_trec_eval_output(TE / out)
    run = ta.read_run(need(TE / run_file))
    qrels = ta.read_qrels(need(TE / qrels_file))
    with pytest.warns(ta.TruncAccessorWarning) if "comment" in out else _nothing():
        res = run.ir.evaluate(qrels, list(NAMES.values()), ties="trec_eval",
                              relevance_level=level)
    checked = 0
    for (name, qid), want in expected.items():
        if name in NAMES and qid in res.index:
            assert res.loc[qid, NAMES[name]] == pytest.approx(want, abs=5e-5), (name, qid)
            checked += 1
    assert checked >= 21


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_utility_parameters_as_meas_params():
    """trec_eval -q -mutility.2,-1,0,0 (out.test.meas_params)."""
    expected = read_trec_eval_output(TE / "out.test.meas_params")
    run = ta.read_run(need(TE / "results.test"))
    qrels = ta.read_qrels(need(TE / "qrels.test"))
    res = run.ir.utility(qrels, a=2, b=-1, c=0, d=0)
    for qid in ("301", "302", "303"):
        assert res[qid] == expected[("utility_2,-1,0,0", qid)]


GRADES = st.sampled_from([None, None, -1, 0, 0, 1, 1, 2, 3])


def _trec_rel(g):
    return -1 if g is None else (-2 if g < 0 else int(g))


@settings(max_examples=200, deadline=None)
@given(grades=st.lists(GRADES, max_size=9), extra=st.lists(st.sampled_from([0, 1, 2, 3]),
       max_size=4), level=st.sampled_from([1, 2]), p=st.sampled_from([0.5, 0.9]),
       pairs=st.sampled_from([(), ((1, 3.0), (2, 9.0)), ((1, 0.0),), ((3, 1.0),)]))
def test_equal_to_a_transcription_of_trec_eval(grades, extra, level, p, pairs):
    judged = [g for g in grades if g is not None] + extra
    ranking = [_trec_rel(g) for g in grades]
    gains = dict(pairs) or None
    kw = {"qrels_grades": judged, "relevance_level": level, "ties": "first",
          "undefined": "zero"}
    checks = [
        (single.utility(grades, **kw, a=2, b=-1, c=-0.5), ref.utility(ranking, judged, level, 2,
                                                                      -1, -0.5)),
        (single.binary_g(grades, **kw), ref.bin_g(ranking, judged, level)),
        (single.normalized_g(grades, **kw, gains=gains),
         ref.g_measure(ranking, judged, level, pairs)),
        (single.ndcg_rel(grades, **kw, gains=gains), ref.ndcg_rel(ranking, judged, level, pairs)),
        (single.trec_rbp(grades, **kw, p=p, gains=gains),
         ref.rbp(ranking, judged, level, p, pairs)),
        (single.trec_rbp_residual(grades, **kw, p=p), ref.rbp_resid(ranking, judged, level, p)),
    ]
    want_r = ref.rndcg(ranking, judged, level, pairs)
    checks.append((single.rndcg(grades, **kw, gains=gains), 0.0 if math.isnan(want_r) else want_r))
    for i, (got, want) in enumerate(checks):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (i, got, want)


def _orders(grades, scores):
    """Every order of the tied documents (groups of equal scores), as lists of grades."""
    groups = [list(g) for _, g in itertools.groupby(zip(scores, grades), key=lambda x: x[0])]
    for combo in itertools.product(*(itertools.permutations([x[1] for x in g]) for g in groups)):
        yield [x for part in combo for x in part]


@settings(max_examples=120, deadline=None)
@given(grades=st.lists(GRADES, max_size=7), extra=st.lists(st.sampled_from([0, 1, 2]),
       max_size=3), level=st.sampled_from([1, 2]), data=st.data())
def test_exact_mean_over_tie_orders(grades, extra, level, data):
    scores = sorted(data.draw(st.lists(st.integers(0, 2), min_size=len(grades),
                                       max_size=len(grades))), reverse=True)
    judged = [g for g in grades if g is not None] + extra
    for name, fn in (("binary_g", ref.bin_g), ("rndcg", ref.rndcg), ("trec_rbp", ref.rbp),
                     ("trec_rbp_residual", ref.rbp_resid), ("utility", ref.utility)):
        values = [fn([_trec_rel(g) for g in order], judged, level)
                  for order in _orders(grades, scores)]
        want = sum(values) / len(values) if not any(math.isnan(v) for v in values) else math.nan
        got = getattr(single, name)(grades, scores=scores, qrels_grades=judged,
                                    relevance_level=level, undefined="nan")
        if name == "rndcg" and not any(g >= level for g in judged):
            assert math.isnan(got)
            continue
        if name == "binary_g" and not any(g >= level for g in judged):
            assert math.isnan(got)
            continue
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), name


def test_g_and_ndcg_rel_refuse_a_tie_that_mixes_gains():
    for name in ("normalized_g", "ndcg_rel"):
        with pytest.raises(ta.ParameterError, match="ties='first'"):
            getattr(single, name)([1, 0, 2], scores=[1, 1, 0])
        # equal gains in a tie change nothing: accepted, equal to the order as given
        assert getattr(single, name)([1, 1, 0], scores=[1, 1, 0]) == getattr(single, name)(
            [1, 1, 0], ties="first")


def test_parameters_are_checked():
    for call in (lambda: single.trec_rbp([1], p=1.5), lambda: single.utility([1], a="x"),
                 lambda: single.utility([1], collection_size=-1),
                 lambda: single.normalized_g([1], gains={1: float("nan")})):
        with pytest.raises(ta.ParameterError):
            call()


def test_a_whole_run_with_ties_matches_a_few_brute_forced_queries(cranfield):
    runs, qrels = cranfield
    run = runs[runs["system"] == "bm25"]
    res = run.ir.evaluate(qrels, ["binary_g", "rndcg", "trec_rbp"], undefined="nan")
    ordered = run.sort_values(["qid", "score"], ascending=[True, False])
    grade_of = {(q, d): r for q, d, r in qrels.itertuples(index=False)}
    tried = 0
    for qid, rows in ordered.groupby("qid"):
        all_scores = rows["score"].to_numpy()
        tied = np.flatnonzero(all_scores[1:] == all_scores[:-1])
        if not len(tied) or tried >= 5:
            continue
        # 8 real documents around a real tie: the tie-aware value against brute force
        start = max(0, int(tied[0]) - 3)
        scores = all_scores[start:start + 8].tolist()
        grades = [grade_of.get((qid, d)) for d in rows["docid"].tolist()[start:start + 8]]
        judged = [g for (q, _), g in grade_of.items() if q == qid]
        got = single.rndcg(grades, scores=scores, qrels_grades=judged, undefined="nan")
        vals = [ref.rndcg([_trec_rel(g) for g in o], judged, 1) for o in _orders(grades, scores)]
        assert got == pytest.approx(np.mean(vals), rel=1e-12)
        tried += 1
    assert tried >= 1
    assert res.notna().all().all()
    assert isinstance(res, pd.DataFrame)
