"""The shortcuts of the segment arrays give the arrays of the plain definitions: the judged
part built from its groups' bounds equals restricting the rankings to every row of the tie
groups that hold a judged document, and the per-query descending order of judged gains
counted by value equals a lexicographic sort."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trunc_accessor.engine.evaluation import prepare_call
from trunc_accessor.metrics import _order
from trunc_accessor.metrics._order import descending_within

PREPARED_ARRAYS = ("seg", "pos", "grade", "gid", "g_seg", "g_start", "g_size")


@st.composite
def _run_and_qrels(draw):
    n_q = draw(st.integers(1, 4))
    run, qrels = [], []
    for q in range(n_q):
        n = draw(st.integers(0, 12))
        scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))  # many ties
        for d, s in enumerate(scores):
            run.append((f"q{q}", f"d{d}", float(s)))
            grade = draw(st.sampled_from([None, 0, 1, 2]))
            if grade is not None:
                qrels.append((f"q{q}", f"d{d}", grade))
        qrels.append((f"q{q}", "unretrieved", 1))
    return (pl.DataFrame(run, schema=["qid", "docid", "score"], orient="row"),
            pl.DataFrame(qrels, schema=["qid", "docid", "rel"], orient="row"))


@pytest.mark.filterwarnings("ignore:the run has no rows")
@settings(max_examples=150, deadline=None)
@given(_run_and_qrels(), st.sampled_from(["average", "first"]))
def test_judged_part_equals_restricting_to_whole_tie_groups(frames, ties):
    run, qrels = frames
    prep, _ = prepare_call(run, qrels, ties=ties)
    judged = np.flatnonzero(~np.isnan(prep.grade))
    part = prep.judged_part()
    plain = prep.restrict(prep.group_rows(judged))
    for name in PREPARED_ARRAYS:
        got, want = getattr(part, name), getattr(plain, name)
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_judged_part_of_a_tie_group_holding_one_judged_document():
    # d1 is judged; d0 and d2 tie with it and come along; d3 (alone, unjudged) does not
    run = pl.DataFrame({"qid": ["a"] * 4, "docid": ["d0", "d1", "d2", "d3"],
                        "score": [2.0, 2.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["a"], "docid": ["d1"], "rel": [1]})
    part = prepare_call(run, qrels)[0].judged_part()
    assert part.pos.tolist() == [1, 2, 3]
    assert part.g_size.tolist() == [3] and part.g_start.tolist() == [0]
    assert np.isnan(part.grade).sum() == 2


def _segments_and_values(draw, values):
    pairs = draw(st.lists(st.tuples(st.integers(0, 6), values), max_size=80))
    pairs.sort(key=lambda p: p[0])
    seg = np.array([p[0] for p in pairs], dtype=np.int64)
    v = np.array([p[1] for p in pairs], dtype=np.float64)
    n_seg = (int(seg.max()) + 1 if len(seg) else 0) + draw(st.integers(0, 3))
    return seg, v, n_seg


GAINS = st.sampled_from([0.0, -0.0, 1.0, 2.0, 3.0, 15.0, 7.5, 0.1, -2.0, 1e300, 2.0**40])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_descending_within_equals_a_lexicographic_sort(data):
    seg, v, n_seg = _segments_and_values(data.draw, GAINS)
    np.testing.assert_array_equal(descending_within(v, seg, n_seg), v[np.lexsort((-v, seg))])


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_descending_within_with_more_values_than_it_counts(data):
    seg, v, n_seg = _segments_and_values(
        data.draw, st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 1)))
    _order_limit = _order.DISTINCT_GAINS
    try:
        _order.DISTINCT_GAINS = 3  # the sort's branch, on small examples
        got = descending_within(v, seg, n_seg)
    finally:
        _order.DISTINCT_GAINS = _order_limit
    np.testing.assert_array_equal(got, v[np.lexsort((-v, seg))])


def _best_first_by_sorting(v, seg, depth):
    ordered = v[np.lexsort((-v, seg))]
    place = np.arange(len(v)) - np.searchsorted(seg, seg) + 1
    keep = (ordered > 0) & (place <= (depth if depth is not None else len(v)))
    return ordered[keep], seg[keep], place[keep]


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from([None, 1, 2, 5]), st.booleans())
def test_best_first_keeps_the_positive_values_of_the_first_places(data, depth, sort):
    seg, v, n_seg = _segments_and_values(data.draw, GAINS)
    limit = _order.DISTINCT_GAINS
    try:
        if sort:
            _order.DISTINCT_GAINS = 0  # the sort's branch
        got = _order.best_first(v, seg, n_seg, depth)
    finally:
        _order.DISTINCT_GAINS = limit
    for g, w in zip(got, _best_first_by_sorting(v, seg, depth)):
        np.testing.assert_array_equal(g, w)


def test_ideal_dcg_of_trec_graded_judgments():
    # q1: grades 3, 2, 0, 1 and an unjudged-looking -1 (no gain); q2: nothing relevant
    qrels = pl.DataFrame({"qid": ["q1"] * 5 + ["q2"],
                          "docid": ["a", "b", "c", "d", "e", "f"],
                          "rel": [3, 2, 0, 1, -1, 0]})
    run = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["a", "f"], "score": [1.0, 1.0]})
    from trunc_accessor.metrics.dcg import ideal_dcg

    prep = prepare_call(run, qrels)[0]
    full = 3 + 2 / np.log2(3) + 1 / np.log2(4)
    np.testing.assert_allclose(ideal_dcg(prep, None, None), [full, 0.0], rtol=1e-15)
    np.testing.assert_allclose(ideal_dcg(prep, 2, None), [3 + 2 / np.log2(3), 0.0], rtol=1e-15)
    np.testing.assert_allclose(ideal_dcg(prep, 1, "exponential"), [7.0, 0.0], rtol=1e-15)
