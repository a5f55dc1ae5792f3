"""OIE (Amigó, Mizzaro & Spina, SIGIR 2022, §3.4): a direct O(|D|) oracle that
materialises every document of a small collection, hand-checked values, the paper's
calibration of β, tie groups as one rank, errors, empty rankings and nil-answer queries,
and the paper's formal properties (§2) with the exact conditions under which they hold."""
from __future__ import annotations

import math
import random

import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.strategies import frames_of, random_queries
from trunc_accessor import single

N = 20000  # the paper's |D|
LOG = math.log


# --------------------------------------------------------------------------- oracle
def oie_direct(retrieved, unretrieved, size, beta):
    """The three entropies of §3.4.1 over all `size` documents, by counting.

    retrieved: (rank, rel) per retrieved document, rank any comparable key (ties share it);
    unretrieved: the rels of the judged documents not retrieved; every other document of
    the collection is non-relevant. Non-retrieved documents have rank +∞."""
    docs = [(rk, max(rl, 0)) for rk, rl in retrieved]
    docs += [(math.inf, max(rl, 0)) for rl in unretrieved]
    assert len(docs) <= size
    docs += [(math.inf, 0)] * (size - len(docs))
    h_s = h_g = h_sg = 0.0
    for rk, rl in docs:
        h_s -= LOG(sum(1 for a, _ in docs if a <= rk) / size)
        h_g -= LOG(sum(1 for _, b in docs if b >= rl) / size)
        h_sg -= LOG(sum(1 for a, b in docs if a <= rk and b >= rl) / size)
    return (h_s + h_g - beta * h_sg) / size


def _oracle(queries, run, mode, size, beta):
    out = {}
    for qid, grades, scores, extra in queries:
        docs = {f"d{i}": (g, s) for i, (g, s) in enumerate(zip(grades, scores))}
        order = list(run.loc[run.qid == qid, "docid"])                  # input order
        if mode == "trec_eval":  # score descending, docid descending
            order.sort(key=lambda d: (docs[d][1], d), reverse=True)
        else:
            order.sort(key=lambda d: -docs[d][1])                      # stable
        if mode == "average":  # a tie group is one rank: rank(d') ≤ rank(d) ⇔ s' ≥ s
            retrieved = [(-docs[d][1], docs[d][0] or 0) for d in order]
        else:
            retrieved = [(i, docs[d][0] or 0) for i, d in enumerate(order, 1)]
        # judged documents of grade ≤ 0 not retrieved are like any other non-relevant one
        out[qid] = oie_direct(retrieved, [x for x in extra if x > 0], size, beta)
    return out


def _need(queries):
    return max(len(g) + sum(1 for x in extra if x > 0) for _, g, _, extra in queries)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=random_queries(max_queries=3, max_len=7), slack=st.integers(0, 12),
       beta=st.sampled_from([0.5, 1.0, 1.05, 1.4, 2.0]), seed=st.integers(0, 10**6))
def test_equals_direct_oracle(queries, slack, beta, seed):
    """Random multi-query runs (scores from four values, so heavy ties) through the pandas
    and Polars accessors, each tie mode, against the O(|D|) oracle."""
    run, qrels = frames_of(queries, random.Random(seed))
    qids = [q[0] for q in queries]
    size = max(_need(queries) + slack, 1)
    for mode in ("average", "first", "trec_eval"):
        want = _oracle(queries, run, mode, size, beta)
        got_pd = run.ir.oie(qrels, collection_size=size, beta=beta, ties=mode, queries=qids)
        got_pl = (pl.from_pandas(run).ir.oie(pl.from_pandas(qrels), collection_size=size,
                                             beta=beta, ties=mode, queries=qids)
                  .to_pandas().set_index("qid").iloc[:, 0])
        for qid, w in want.items():
            assert got_pd.loc[qid] == pytest.approx(w, rel=1e-9, abs=1e-13), (mode, qid)
            assert got_pl.loc[qid] == pytest.approx(w, rel=1e-9, abs=1e-13), (mode, qid)


# --------------------------------------------------------------------------- hand-checked
def test_hand_checked_small_collection():
    # |D| = 5; ranking 0 1; one more relevant document not retrieved; β = 1.05.
    # documents (rank, rel): (1,0) (2,1) (∞,1) (∞,0) (∞,0)
    # H(S):   counts 1 2 5 5 5           → (log 5 + log 2.5) / 5
    # H(G):   counts 5 2 2 5 5           → 2 log 2.5 / 5
    # H(S,G): counts 1 1 2 5 5           → (2 log 5 + log 2.5) / 5
    want = (LOG(5) + 3 * LOG(2.5) - 1.05 * (2 * LOG(5) + LOG(2.5))) / 5
    assert single.oie([0, 1], R=2, collection_size=5) == pytest.approx(want, rel=1e-12)
    assert want == pytest.approx(0.0032770, abs=1e-7)


def test_hand_checked_default_collection():
    # [1, 0, 0], R = 1, |D| = 20000: H(S) = H(S,G) = (3 log N − log 3!)/N, H(G) = log N / N
    hs = (3 * LOG(N) - LOG(6)) / N
    want = hs + LOG(N) / N - 1.05 * hs
    assert single.oie([1, 0, 0], R=1) == pytest.approx(want, rel=1e-12)
    # graded: grades 2, 0, 1 retrieved, a 2 not retrieved (C(2) = 2, C(1) = 3)
    # H(S)   = (log N + log N/2 + log N/3)/N
    # H(G)   = (2 log N/2 + log N/3)/N
    # H(S,G) = (log N [the 2 at 1] + log N/2 [the 0 at 2: 2 docs ranked ≤ 2]
    #           + log N/2 [the 1 at 3: the 2 and itself] + log N/2 [the 2 at ∞])/N
    hs = (LOG(N) + LOG(N / 2) + LOG(N / 3)) / N
    hg = (2 * LOG(N / 2) + LOG(N / 3)) / N
    hsg = (LOG(N) + 3 * LOG(N / 2)) / N
    got = single.oie([2, 0, 1], qrels_grades=[2, 0, 1, 2], beta=1.3)
    assert got == pytest.approx(hs + hg - 1.3 * hsg, rel=1e-12)


def test_paper_calibration_of_beta():
    """§3.4.2: with |D| = 20,000, β = 1.05 "is the parameter value for which retrieving the
    unique relevant document in the collection at position 20 is equivalent to returning
    nothing". Solve for that β from our values: OIE is linear in β, bisection is plenty.
    The paper states β to two decimals, so the solution must round to 1.05:
    |β* − 1.05| ≤ 0.005. By hand, β* = 1 + log(N/20) / Σ_{i=1}^{19} log(N/i) = 1.0464."""
    ranking = [0] * 19 + [1]

    def gap(beta):
        return single.oie(ranking, R=1, beta=beta) - single.oie([], R=1, beta=beta)

    lo, hi = 1.0, 2.0
    assert gap(lo) > 0 > gap(hi)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap(mid) > 0 else (lo, mid)
    beta = (lo + hi) / 2
    assert abs(beta - 1.05) <= 0.005
    assert beta == pytest.approx(1 + LOG(N / 20) / sum(LOG(N / i) for i in range(1, 20)),
                                 abs=1e-9)
    assert beta == pytest.approx(1.0464, abs=1e-4)


# --------------------------------------------------------------------------- ties
def test_tie_group_is_one_rank_by_hand():
    # |D| = 4, ranking {1, 0} tied, R = 1. Both share rank 1: (g,1) (g,0) (∞,0) (∞,0)
    # H(S):   counts 2 2 4 4 → 2 log 2 / 4;   H(G): counts 1 4 4 4 → log 4 / 4
    # H(S,G): counts 1 2 4 4 → (log 4 + log 2) / 4
    # OIE = (2 log 2 + 2 log 2 − 3β log 2) / 4 = log 2 · (4 − 3β) / 4
    for beta in (1.05, 1.5):
        want = LOG(2) * (4 - 3 * beta) / 4
        assert single.oie([1, 0], scores=[1, 1], R=1, collection_size=4,
                          beta=beta) == pytest.approx(want, rel=1e-12)
        assert single.oie([0, 1], scores=[1, 1], R=1, collection_size=4,
                          beta=beta) == pytest.approx(want, rel=1e-12)
    # with ties="first" each position is its own rank: (1 0) gives log 2 · (5 − 3β) / 4
    assert single.oie([1, 0], scores=[1, 1], R=1, collection_size=4,
                      ties="first") == pytest.approx(LOG(2) * (5 - 3 * 1.05) / 4, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(head=st.lists(st.sampled_from([0, 1, 2, None]), max_size=4),
       group=st.lists(st.sampled_from([0, 1, 2, None]), min_size=2, max_size=6),
       tail=st.lists(st.sampled_from([0, 1, 2, None]), max_size=4),
       perm_seed=st.integers(0, 10**6), library=st.sampled_from(["pandas", "polars"]))
def test_reordering_inside_a_tie_group_changes_nothing(head, group, tail, perm_seed, library):
    """A tie group in the middle of a ranking; the rows of the group in any input order
    give the same value, which is the shared-rank oracle's."""
    grades = head + group + tail
    scores = ([10.0 + len(head) - i for i in range(len(head))] + [5.0] * len(group)
              + [4.0 - i for i in range(len(tail))])
    docids = [f"d{i}" for i in range(len(grades))]
    qrels = pd.DataFrame([("q", d, g) for d, g in zip(docids, grades) if g is not None]
                         + [("q", "x", 2)], columns=["qid", "docid", "rel"])
    rows = list(zip(["q"] * len(grades), docids, scores))
    values = []
    for k in range(3):
        mid = rows[len(head): len(head) + len(group)]
        random.Random(perm_seed + k).shuffle(mid)
        run = pd.DataFrame(rows[: len(head)] + mid + rows[len(head) + len(group):],
                           columns=["qid", "docid", "score"])
        q = qrels
        if library == "polars":
            run, q = pl.from_pandas(run), pl.from_pandas(qrels)
            values.append(run.ir.oie(q, collection_size=40)["oie(collection_size=40)"][0])
        else:
            values.append(run.ir.oie(q, collection_size=40).iloc[0])
    want = oie_direct([(-s, g or 0) for s, g in zip(scores, grades)], [2], 40, 1.05)
    for v in values:
        assert v == pytest.approx(want, rel=1e-12, abs=1e-15)


# --------------------------------------------------------------------------- errors
def test_collection_too_small_names_the_query():
    run = pd.DataFrame({"qid": ["q1", "q2", "q2", "q2"], "docid": ["a", "b", "c", "d"],
                        "score": [1.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q1", "q2", "q2"], "docid": ["a", "y", "z"], "rel": [1, 1, 2]})
    # q2 needs 3 retrieved + 2 relevant not retrieved = 5 documents
    assert run.ir.oie(qrels, collection_size=5).loc["q2"] == pytest.approx(
        oie_direct([(1, 0), (2, 0), (3, 0)], [1, 2], 5, 1.05), rel=1e-12)
    with pytest.raises(ValueError, match=r"collection_size=4 .*'q2'.* 5 documents"):
        run.ir.oie(qrels, collection_size=4)
    both = pd.concat([run.assign(system="A"), run.assign(system="B")])
    with pytest.raises(ValueError, match=r"system='A', qid='q2'"):
        both.ir.oie(qrels, collection_size=4, by="system")
    with pytest.raises(ValueError, match="collection_size"):
        single.oie([1], collection_size=0)
    with pytest.raises(ValueError, match="beta"):
        single.oie([1], beta=-1)


# --------------------------------------------------------------------------- empty / nil
@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_empty_rankings_and_nil_queries(library):
    # q1 = [1, 0], R = 1; q2: nil query, 3 non-relevant documents retrieved;
    # q3: no rows in the run, judged grades 1 and 2; q4: queries= only (empty, R = 0)
    run = pd.DataFrame({"qid": ["q1", "q1", "q2", "q2", "q2"],
                        "docid": ["a", "b", "c", "d", "e"], "score": [2.0, 1.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q1", "q2", "q3", "q3"], "docid": ["a", "c", "x", "y"],
                          "rel": [1, 0, 1, 2]})
    b = 1.05
    want = {
        # H(S) = H(S,G) = (log N + log N/2)/N, H(G) = log N / N
        "q1": (1 - b) * (2 * LOG(N) - LOG(2)) / N + LOG(N) / N,
        # H(G) = 0, H(S) = H(S,G) = (3 log N − log 3!)/N
        "q2": (1 - b) * (3 * LOG(N) - LOG(6)) / N,
        # H(S) = 0, H(G) = H(S,G) = (log N + log N/2)/N (the 2 has C = 1, the 1 has C = 2)
        "q3": (1 - b) * (2 * LOG(N) - LOG(2)) / N,
        "q4": 0.0,
    }
    if library != "pandas":
        run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
    if library == "lazy":
        run = run.lazy()
    res = run.ir.evaluate(qrels, ["oie"], queries=["q4"])
    if library != "pandas":
        res = (res.collect() if library == "lazy" else res).to_pandas().set_index("qid")
    for qid, w in want.items():
        assert res.loc[qid, "oie"] == pytest.approx(w, rel=1e-12, abs=1e-15), qid


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 50), beta=st.floats(1.001, 2.0))
def test_nil_query_best_answer_is_nothing(n, beta):
    """R = 0: OIE = (1 − β)·H(S) < 0 = OIE(empty) for β > 1; returning nothing is optimal."""
    assert single.oie([], R=0, beta=beta) == 0.0
    got = single.oie([0] * n, R=0, beta=beta)
    assert got == pytest.approx((1 - beta) * sum(LOG(N / i) for i in range(1, n + 1)) / N,
                                rel=1e-10)
    assert got < 0


# --------------------------------------------------------------------------- properties
def _oie(r, judged, beta=1.05, size=N):
    return single.oie(r, qrels_grades=judged, collection_size=size, beta=beta, ties="first")


@settings(max_examples=80, deadline=None)
@given(r=st.lists(st.sampled_from([0, 1, 2, 3, None]), max_size=15),
       extra=st.lists(st.sampled_from([0, 1, 2, 3]), max_size=6),
       beta=st.floats(0.5, 2.0), size=st.sampled_from([30, 200, N]))
def test_confidence(r, extra, beta, size):
    """P5 (eq. 2). The appended non-relevant document moves from rank +∞ (counts |D|) to
    rank n + 1, where its H(S) and H(S,G) counts are both n + 1; no other count changes.
    So ΔOIE = (1 − β)·log(|D|/(n + 1))/|D| exactly: CONFIDENCE holds iff β > 1 (for
    n + 1 < |D|), which includes the paper's whole range 1 < β < (2m − 1)/m (§3.4.2)."""
    judged = [g for g in r if g is not None] + extra
    need = len(r) + 1 + sum(1 for g in extra if g > 0)
    assume(need < size)
    n = len(r)
    delta = _oie(r + [0], judged, beta, size) - _oie(r, judged, beta, size)
    assert delta == pytest.approx((1 - beta) * LOG(size / (n + 1)) / size, rel=1e-7, abs=1e-15)
    if beta > 1:
        assert delta < 0
    elif beta < 1:
        assert delta > 0


@st.composite
def binary_swaps(draw):
    r = draw(st.lists(st.sampled_from([0, 1]), min_size=2, max_size=15))
    i, j = sorted(draw(st.lists(st.integers(0, len(r) - 1), min_size=2, max_size=2,
                                unique=True)))
    r[i], r[j] = 0, 1
    return r, i, j


@settings(max_examples=80, deadline=None)
@given(case=binary_swaps(), missing=st.integers(0, 5), beta=st.floats(0.1, 2.0))
def test_priority_binary(case, missing, beta):
    """P1, binary relevance: moving the relevant document from position j up to i and the
    non-relevant one down multiplies the product of the H(S,G) counts by j/i (the counts of
    the relevant documents in between each rise by one), so ΔOIE = β·log(j/i)/|D| > 0."""
    r, i, j = case
    judged = r + [1] * missing
    s = list(r)
    s[i], s[j] = s[j], s[i]
    delta = _oie(s, judged, beta) - _oie(r, judged, beta)
    assert delta == pytest.approx(beta * LOG((j + 1) / (i + 1)) / N, rel=1e-7)
    assert delta > 0


@st.composite
def adjacent_swaps(draw):
    r = draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=2, max_size=15))
    i = draw(st.integers(0, len(r) - 2))
    a = draw(st.integers(0, 2))
    r[i], r[i + 1] = a, draw(st.integers(a + 1, 3))
    return r, i


@settings(max_examples=80, deadline=None)
@given(case=adjacent_swaps(), beta=st.floats(0.1, 2.0))
def test_priority_adjacent_graded(case, beta):
    """P1 with k = 1, graded: Rel(d_i) = a < Rel(d_{i+1}) = b. After the swap the b document
    keeps its count and the a document's count c = |{k ≤ i : Rel(d_k) ≥ a}| becomes c + 1;
    ΔOIE = β·log((c + 1)/c)/|D| > 0."""
    r, i = case
    c = sum(1 for g in r[: i + 1] if g >= r[i])
    s = list(r)
    s[i], s[i + 1] = s[i + 1], s[i]
    delta = _oie(s, r + [3], beta) - _oie(r, r + [3], beta)
    assert delta == pytest.approx(beta * LOG((c + 1) / c) / N, rel=1e-7)
    assert delta > 0


def test_priority_graded_counterexample():
    """P1 does not hold for every graded swap (Table 1 marks it for OIE): 0 0 0 3 3 2 1 0,
    swapping the 0 at position 2 with the 1 at position 7. The 1's H(S,G) count falls from
    4 (the 3, 3, 2 and itself) to 1 and the 0's rises from 2 to 7; no other count changes:
    the product 2·4 = 8 becomes 1·7 = 7, so ΔOIE = −β·log(8/7)/|D| < 0."""
    r = [0, 0, 0, 3, 3, 2, 1, 0]
    s = [0, 1, 0, 3, 3, 2, 0, 0]
    delta = _oie(s, r) - _oie(r, r)
    assert delta == pytest.approx(-1.05 * LOG(8 / 7) / N, rel=1e-9)


@st.composite
def top_weighted_cases(draw):
    n = draw(st.integers(4, 14))
    r = draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=n, max_size=n))
    i = draw(st.integers(0, n - 4))
    j = draw(st.integers(i + 2, n - 2))
    lo = draw(st.integers(0, 2))
    hi = draw(st.integers(lo + 1, 3))
    r[i], r[i + 1], r[j], r[j + 1] = lo, hi, lo, hi
    return r, i, j


@settings(max_examples=80, deadline=None)
@given(case=top_weighted_cases(), beta=st.floats(0.1, 2.0))
def test_top_weightedness(case, beta):
    """P2 (swap at j on the right; the printed formula repeats i): by the adjacent-swap
    identity above the swap at i gains β·log(1 + 1/c_i)/|D| and the one at j
    β·log(1 + 1/c_j)/|D| with c_j ≥ c_i + 1 (d_{i+1} counts for d_j), so the first is larger."""
    r, i, j = case

    def swapped(k):
        s = list(r)
        s[k], s[k + 1] = s[k + 1], s[k]
        return s

    assert _oie(swapped(i), r + [3], beta) > _oie(swapped(j), r + [3], beta)


def _shallowness_bound(m, size):
    """By hand, with R = m relevant documents in the collection: OIE = A − βB with
    [1]:       A = log N + m·log(N/m),             B = log N + (m − 1)·log(N/m)
    0^m 1^m:   A = Σ_{i≤2m} log(N/i) + m·log(N/m),  B = 2·Σ_{i≤m} log(N/i)
    (all divided by N), so 0^m 1^m is better iff β < ΔA/ΔB, which tends to (2m − 1)/m."""
    s2m = sum(LOG(size / i) for i in range(1, 2 * m + 1))
    sm = sum(LOG(size / i) for i in range(1, m + 1))
    return (s2m - LOG(size)) / (2 * sm - LOG(size) - (m - 1) * LOG(size / m))


@pytest.mark.parametrize("m", [2, 3, 5])
def test_shallowness_threshold(m):
    """P4 (eq. 1) with R = m: m relevant documents after m non-relevant ones beat one relevant
    document at rank 1 exactly when β < β*_m(|D|). β*_m(|D|) increases to (2m − 1)/m, the
    upper end of the paper's range (§3.4.2), which is therefore the |D| → ∞ limit: at
    |D| = 20,000 and m = 2 it is 1.388, and β = 1.05 satisfies the property."""
    prev = 1.0
    for size in (20000, 10**6, 10**9, 10**15):
        bound = _shallowness_bound(m, size)
        assert prev < bound < (2 * m - 1) / m
        prev = bound
        for beta in (bound - 1e-3, bound + 1e-3):
            short = _oie([1], [1] * m, beta, size)
            long = _oie([0] * m + [1] * m, [1] * m, beta, size)
            assert (long > short) == (beta < bound), (size, beta)
    assert _shallowness_bound(2, N) == pytest.approx(1.3881, abs=1e-4)
    assert (2 * m - 1) / m - _shallowness_bound(m, 10**15) < 0.1


@settings(max_examples=80, deadline=None)
@given(r=st.lists(st.sampled_from([0, 1, 2, 3, None]), min_size=1, max_size=15),
       extra=st.lists(st.sampled_from([0, 1, 2, 3]), max_size=25),
       grade=st.sampled_from([1, 2, 3]), binary=st.booleans(), at=st.integers(0, 14),
       beta=st.floats(1.0, 2.0), size=st.sampled_from([1000, 5000, N, 10**6]))
def test_recall(r, extra, grade, binary, at, beta, size):
    """P6: D ∪ {d^r} (|D| + 1 documents, the new one relevant and not retrieved) scores lower,
    for a ranking holding a relevant document and β ≥ 1, when the collection is large next to
    the judged set (here |D| ≥ 1000, up to 40 judged documents); see the next test for why
    a condition on |D| is needed."""
    r[at % len(r)] = 3  # the ranking holds a relevant document
    if binary:
        r = [None if g is None else min(g, 1) for g in r]
        extra = [min(g, 1) for g in extra]
        grade = 1
    judged = [g for g in r if g is not None] + extra
    assert _oie(r, judged + [grade], beta, size + 1) < _oie(r, judged, beta, size)


def test_recall_fails_in_an_all_relevant_collection():
    """P6 is not unconditional: a collection made only of relevant documents, [1] with R = |D|.
    H(G) = 0 (every count is |D|) and H(S) = H(S,G) = log|D|/|D|, so OIE = (1 − β)·log|D|/|D|,
    which rises from |D| = 3 to |D| = 4 for β > 1."""
    for size in (3, 4):
        assert _oie([1], [1] * size, 1.05, size) == pytest.approx(
            -0.05 * LOG(size) / size, rel=1e-12)
    assert _oie([1], [1] * 4, 1.05, 4) > _oie([1], [1] * 3, 1.05, 3)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), R=st.integers(2, 20), beta=st.floats(0.1, 2.0),
       size=st.sampled_from([100, N]))
def test_redundancy_as_printed_is_not_satisfied(n, R, beta, size):
    """P7 as printed compares M(0^n 1) − M(0^(n+1)) with M(0^(n−1) 1 1) − M(0^(n−1) 1 0).
    Only H(S,G) changes. The first relevant document found has count 1 (nothing relevant
    before it), the second count 2; not retrieving it leaves it at +∞ with count R and puts a
    non-relevant document at n + 1 with count n + 1. So the left difference is
    β·log(|D|/((n + 1)R))/|D| and the right one β·log(2|D|/((n + 1)R))/|D|: the second
    relevant document adds β·log 2/|D| *more*, and P7 fails for every β > 0, though
    Table 1 of the paper marks REDUNDANCY for OIE."""
    assume(n + 1 + R <= size)
    judged = [1] * R
    first = _oie([0] * n + [1], judged, beta, size) - _oie([0] * (n + 1), judged, beta, size)
    second = (_oie([0] * (n - 1) + [1, 1], judged, beta, size)
              - _oie([0] * (n - 1) + [1, 0], judged, beta, size))
    assert first == pytest.approx(beta * LOG(size / ((n + 1) * R)) / size, rel=1e-7, abs=1e-15)
    assert first - second == pytest.approx(-beta * LOG(2) / size, rel=1e-6)
