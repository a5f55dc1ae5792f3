"""Twist (Ferro et al.): the paper's worked example (Definitions 1–2, Propositions 1–3), a
binary example (N = 8, RB = 3) under the crossing rule of the authors' MATTERS code (twist.m),
the archetypes (Figures 3–6), the space normalisers for runs of every length (against exhaustive
search), depth=, edge cases, ties (brute force where the value is exact, a clear error where it
is not), pandas, Polars and LazyFrame."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference as ref
from tests.strategies import assert_matches_brute_force, frames_of, random_queries
from trunc_accessor import single

NAN = float("nan")
METRICS = ["recovery_ratio", "space_ratio_plus", "space_ratio_minus", "space_ratio", "twist"]
PARTS = ["rho", "sigma_plus", "sigma_minus", "sigma", "tau"]

# --------------------------------------------------------------------------- naive reference


def _interval(g, ideal, level):
    """(min, max) rank of grade g in the ideal run (relevant grades best first)."""
    if g is None or g < level:
        return len(ideal) + 1, math.inf
    ranks = [i for i, x in enumerate(ideal, 1) if x == g]
    return ranks[0], ranks[-1]


def rp_vector(r, judged, level):
    """Definition 1, rank by rank."""
    ideal = sorted((g for g in judged if g >= level), reverse=True)
    out = []
    for j, g in enumerate(r, 1):
        lo, hi = _interval(g, ideal, level)
        out.append(j - lo if j < lo else (j - hi if j > hi else 0))
    return out


def twist_parts(r, judged, level, depth=None):
    """ρ, σ⁺, σ⁻, σ, τ of one ranking, written from Definitions 1–6 and the authors' MATTERS
    code (twist.m), which settles the crossing rule where the paper is ambiguous: the worst
    and full-scale runs of the same length are built and measured explicitly."""
    ideal = sorted((g for g in judged if g >= level), reverse=True)
    RB = len(ideal)
    if RB == 0:
        return dict.fromkeys(PARTS, NAN)
    r = list(r) if depth is None else (list(r) + [None] * depth)[:depth]
    L = len(r)
    rp = rp_vector(r, judged, level)
    crp = list(itertools.accumulate(rp))
    x = next((j for j in range(1, L) if (crp[j - 1] > 0) != (crp[j] > 0)), None)
    if x is not None:
        rho = RB / max(RB, x)
    else:
        rho = 1.0 if L and all(c == 0 for c in crp) else 0.0

    def spaces(run):
        v = rp_vector(run, judged, level)
        return sum(a for a in v if a > 0), -sum(a for a in v if a < 0)

    k = min(L, RB)
    full_scale = [None] * (L - k) + ideal[:k][::-1]
    s_plus, s_minus = spaces(r)
    max_plus, _ = spaces(full_scale)
    _, max_minus = spaces([None] * L)
    sp = 1 - s_plus / max_plus if max_plus else 1.0
    sm = 1 - s_minus / max_minus if max_minus else 1.0
    if L == 0:
        sm = 0.0
    sigma = 2 * sp * sm / (sp + sm) if sp + sm else 0.0
    return {"rho": rho, "sigma_plus": sp, "sigma_minus": sm, "sigma": sigma,
            "tau": (rho + sigma) / 2}


def _ref(part):
    def fn(r, judged, level, depth=None):
        return twist_parts(r, judged, level, depth)[part]
    return fn


# --------------------------------------------------------------------------- paper example
# Ferro et al., "Definition of the Twist measure": N = 15, RB = 7, hr > fr > pr > nr.
# (The printed full-scale vector has a stray 16th entry; its RP/CRP vectors are of this one.)
GRADE = {"hr": 3, "fr": 2, "pr": 1, "nr": 0}
PAPER_RUNS = {
    "ideal": "hr hr fr fr pr pr pr nr nr nr nr nr nr nr nr",
    "worst": "nr nr nr nr nr nr nr nr nr nr nr nr nr nr nr",
    "full-scale": "nr nr nr nr nr nr nr nr pr pr pr fr fr hr hr",
    "A": "hr hr fr nr pr fr nr nr nr pr nr nr nr nr nr",
    "B": "hr nr pr nr fr nr nr nr fr pr nr nr hr pr nr",
}
PAPER_RP = {
    "ideal": [0] * 15,
    "worst": [-7, -6, -5, -4, -3, -2, -1, 0, 0, 0, 0, 0, 0, 0, 0],
    "full-scale": [-7, -6, -5, -4, -3, -2, -1, 0, +2, +3, +4, +8, +9, +12, +13],
    "A": [0, 0, 0, -4, 0, +2, -1, 0, 0, +3, 0, 0, 0, 0, 0],
    "B": [0, -6, -2, -4, +1, -2, -1, 0, +5, +3, 0, 0, +11, +7, 0],
}
PAPER_CRP = {
    "ideal": [0] * 15,
    "worst": [-7, -13, -18, -22, -25, -27, -28, -28, -28, -28, -28, -28, -28, -28, -28],
    "full-scale": [-7, -13, -18, -22, -25, -27, -28, -28, -26, -23, -19, -11, -2, +10, +23],
    "A": [0, 0, 0, -4, -4, -2, -3, -3, -3, 0, 0, 0, 0, 0, 0],
    "B": [0, -6, -8, -12, -11, -13, -14, -14, -9, -6, -6, -6, +5, +12, +12],
}
PAPER_JUDGED = [3, 3, 2, 2, 1, 1, 1] + [0] * 15


def paper_frames():
    """One query per paper run; the judged documents h1 h2 f1 f2 p1 p2 p3 and n0…n14."""
    docs = {"hr": ["h1", "h2"], "fr": ["f1", "f2"], "pr": ["p1", "p2", "p3"],
            "nr": [f"n{i}" for i in range(15)]}
    qrels, run = [], []
    for q, seq in PAPER_RUNS.items():
        qrels += [(q, d, GRADE[g]) for g, names in docs.items() for d in names]
        unused = {g: iter(names) for g, names in docs.items()}
        run += [(q, next(unused[g]), 15.0 - j) for j, g in enumerate(seq.split())]
    return (pd.DataFrame(run, columns=["qid", "docid", "score"]),
            pd.DataFrame(qrels, columns=["qid", "docid", "rel"]))


def _as(library, run, qrels):
    if library == "pandas":
        return run, qrels
    run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
    return (run.lazy() if library == "lazy" else run), qrels


def _collect(frame):
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    return frame.to_pandas() if isinstance(frame, pl.DataFrame) else frame


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_paper_rp_and_crp_vectors(library):
    run, qrels = _as(library, *paper_frames())
    curve = _collect(run.ir.crp(qrels))
    assert list(curve.columns) == ["qid", "position", "grade", "rp", "crp"]
    for q, seq in PAPER_RUNS.items():
        rows = curve[curve.qid == q]
        assert rows.position.tolist() == list(range(1, 16))
        assert rows.rp.tolist() == PAPER_RP[q], q
        assert rows.crp.tolist() == PAPER_CRP[q], q
        assert rows.grade.tolist() == [GRADE[g] for g in seq.split()]
    fs = curve[curve.qid == "full-scale"].crp
    # Proposition 2: min = −RB(RB+1)/2 at RB, max = RB(N − RB) − ΣΔ_i ΣΔ_k = 56 − 33 at N
    assert (fs.min(), fs.idxmin() - fs.index[0] + 1) == (-28, 7)
    assert (fs.max(), fs.idxmax() - fs.index[0] + 1) == (23, 15)


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_paper_runs_ratios_and_archetypes(library):
    run, qrels = _as(library, *paper_frames())
    res = _collect(run.ir.evaluate(qrels, METRICS))
    res = res.set_index("qid") if "qid" in res.columns else res
    arch = _collect(run.ir.crp_archetype(qrels))
    arch = arch.set_index("qid") if "qid" in arch.columns else arch
    # ideal τ = 1, worst τ = 0 (Figure 6)
    assert res.loc["ideal"].tolist() == [1.0] * 5
    assert res.loc["worst"].tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]
    # full scale: first crossing at 13 (CRP −2 → +10), ρ = 7/13; σ⁺ = σ⁻ = 0; τ = 0.269
    assert res.loc["full-scale"].tolist() == pytest.approx([7 / 13, 0, 0, 0, 7 / 26])
    assert round(res.loc["full-scale", "twist"], 3) == 0.269
    # A: s⁺ = 5 of 51, s⁻ = 5 of 28, CRP never positive (ρ = 0)
    sp, sm = 1 - 5 / 51, 1 - 5 / 28
    assert res.loc["A"].tolist() == pytest.approx(
        [0, sp, sm, 2 * sp * sm / (sp + sm), sp * sm / (sp + sm)])
    # B: crossing at 12 (−6 → +5), ρ = 7/12; s⁺ = 27 of 51, s⁻ = 15 of 28
    sp, sm = 1 - 27 / 51, 1 - 15 / 28
    sigma = 2 * sp * sm / (sp + sm)
    assert res.loc["B"].tolist() == pytest.approx([7 / 12, sp, sm, sigma, (7 / 12 + sigma) / 2])
    assert arch["archetype"].to_dict() == {"ideal": "ideal", "worst": "worst",
                                           "full-scale": "full-scale", "A": "typical B",
                                           "B": "typical A"}
    assert arch.loc["B", "crossing"] == 12 and arch.loc["full-scale", "crossing"] == 13
    assert (arch["recall_base"] == 7).all() and (arch["length"] == 15).all()


def test_matters_example_binary_eight_ranks():
    """A binary run, N = 8, RB = 3, 0 1 0 1 0 0 1 0, worked by hand from Definitions 1–6
    with MATTERS' crossing rule (CRP = 0 counts as below)."""
    r = [0, 1, 0, 1, 0, 0, 1, 0]
    assert rp_vector(r, r, 1) == [-3, 0, -1, 1, 0, 0, 4, 0]
    values = [getattr(single, m)(r, R=3) for m in METRICS]
    assert values == pytest.approx([0.5, 7 / 12, 1 / 3, 0.424242, 0.462121], abs=1e-6)
    run = pd.DataFrame({"qid": "q", "docid": [f"d{i}" for i in range(8)],
                        "score": np.arange(8.0, 0, -1)})
    qrels = pd.DataFrame({"qid": "q", "docid": [f"d{i}" for i in range(8)], "rel": r})
    assert run.ir.crp(qrels).crp.tolist() == [-3, -3, -4, -3, -3, -3, 1, 1]
    assert run.ir.twist(qrels)["q"] == pytest.approx(0.462121, abs=1e-6)


# --------------------------------------------------------------------------- archetypes
def _archetype(grades, extra, **kw):
    """The archetype row of one ranking (None: unjudged) whose query also has the judged
    documents ``extra`` that it did not retrieve."""
    docs = [f"r{i}" for i in range(len(grades))]
    run = pd.DataFrame({"qid": "q", "docid": docs, "score": np.arange(len(grades), 0, -1.0)})
    qrels = pd.DataFrame([("q", d, g) for d, g in zip(docs, grades) if g is not None]
                         + [("q", f"x{i}", g) for i, g in enumerate(extra)],
                         columns=["qid", "docid", "rel"])
    run, qrels = run.astype({"qid": str, "docid": str}), qrels.astype({"qid": str, "docid": str})
    return run.ir.crp_archetype(qrels, **kw).loc["q"]


def test_excellent_and_ups_and_downs_need_graded_relevance():
    # hr [1], fr [2], pr [3, 5]: pr pr hr fr pr → CRP −2 −3 −1 +1 +1, crosses at 3 ≤ RB = 5
    grades = [1, 1, 3, 2, 1, 0, 0]
    a = _archetype(grades, [])
    assert (a.archetype, a.crossing, a.recall_base) == ("excellent", 3, 5)
    assert single.recovery_ratio(grades) == 1.0
    # hr [1], fr [2], pr [3, 8]: up at 3, a non-relevant document drops CRP again before RB
    grades = [1, 1, 3, 2, 0, 1, 1, 1, 1]
    assert list(itertools.accumulate(rp_vector(grades, grades, 1))) == [-2, -3, -1, 1, -3, -3,
                                                                       -3, -3, -2]
    a = _archetype(grades, [])
    assert (a.archetype, a.crossing) == ("ups-and-downs", 3)
    assert single.recovery_ratio(grades) == 1.0
    assert single.twist(grades) < 1.0


def test_ambiguous_archetypes():
    # CRP back to exactly 0 is not a crossing (MATTERS: 0 counts as below): typical B, ρ = 0
    assert list(itertools.accumulate(rp_vector([3, 2, 3, 2, 0], [3, 3, 2, 2], 1))) == [
        0, -1, 0, 0, 0]
    assert _archetype([3, 2, 3, 2, 0], []).archetype == "typical B"
    assert single.recovery_ratio([3, 2, 3, 2, 0]) == 0.0
    # the full-scale order in a run shorter than 2·RB is not "full-scale" (Definition 14)
    assert _archetype([0, 1, 1, 1], []).archetype == "typical B"
    assert _archetype([0, 0, 0, 1, 1, 1], []).archetype == "full-scale"
    # a truncated ranking without misplacement is ideal (τ = 1): stopping is not penalised…
    assert _archetype([1, 1], [1, 1, 1]).archetype == "ideal"
    assert single.twist([1, 1], R=5) == 1.0
    # …unless depth= pads it with non-relevant documents
    assert _archetype([1, 1], [1, 1, 1], depth=5).archetype == "typical B"
    assert single.twist([1, 1], R=5, depth=5) < 0.5
    # the empty ranking is the worst run, R = 0 has no archetype
    assert _archetype([], [1]).archetype == "worst"
    assert pd.isna(_archetype([0, 0], [0]).archetype)


# --------------------------------------------------------------------------- properties
graded_runs = st.tuples(
    st.lists(st.sampled_from([None, 0, 0, 1, 1, 2, 3]), max_size=12),   # the ranking
    st.lists(st.sampled_from([1, 1, 2, 3]), min_size=0, max_size=6),    # unretrieved relevant
)


@settings(max_examples=150, deadline=None)
@given(graded_runs, st.sampled_from([None, 3, 8]), st.sampled_from([1, 2]))
def test_values_in_unit_interval_and_archetype_bounds(case, depth, level):
    """Every value in [0, 1] for every run length (n < RB included), and the bounds the
    paper's Figures 4–6 give each archetype; the naive reference agrees."""
    grades, extra = case
    judged = [g for g in grades if g is not None] + extra
    R = sum(g >= level for g in judged)
    got = {m: getattr(single, m)(grades, qrels_grades=judged, depth=depth,
                                 relevance_level=level, undefined="nan") for m in METRICS}
    want = twist_parts(grades, judged, level, depth)
    for m, p in zip(METRICS, PARTS):
        if R == 0:
            assert math.isnan(got[m])
            continue
        assert 0.0 <= got[m] <= 1.0, (m, got[m])
        assert got[m] == pytest.approx(want[p], abs=1e-12), m
    if R == 0:
        return
    a = _archetype(grades, extra, depth=depth, relevance_level=level)
    rho, tau = got["recovery_ratio"], got["twist"]
    if a.archetype == "ideal":
        assert tau == 1.0
    elif a.archetype == "worst":
        assert tau == 0.0 and got["space_ratio_minus"] == 0.0
    elif a.archetype == "full-scale":
        assert got["space_ratio"] == 0.0 and rho < 1
    elif a.archetype in ("excellent", "ups-and-downs"):
        assert rho == 1.0
    elif a.archetype == "typical A":
        assert 0 < rho <= R / (R + 1)
    else:
        assert a.archetype == "typical B"
        assert rho == 0.0 and tau < 0.5  # Figure 6


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([1, 1, 2, 3]), min_size=1, max_size=8), st.integers(0, 12))
def test_full_scale_run_propositions(relevant, extra_length):
    """Definition 14 run of length N ≥ 2·RB: Proposition 2's values (its lower bound holds
    for every run), σ = 0, archetype "full-scale", and Proposition 3 / Figure 6: τ < 1/4
    when N ≥ 3·RB, with one exception (RB = 1, N = 3, below)."""
    RB = len(relevant)
    N = 2 * RB + extra_length
    ideal = sorted(relevant, reverse=True)
    fs = [0] * (N - RB) + ideal[::-1]
    judged = relevant + [0] * N
    crp = list(itertools.accumulate(rp_vector(fs, judged, 1)))
    counts = [ideal.count(g) for g in sorted(set(ideal), reverse=True)]
    top = RB * (N - RB) - sum(d * sum(counts[:i + 1]) for i, d in enumerate(counts))
    assert (min(crp), crp[RB - 1], max(crp), crp[-1]) == (-RB * (RB + 1) // 2,) * 2 + (top,) * 2
    assert single.space_ratio(fs, qrels_grades=judged) == 0.0
    assert _archetype(fs, relevant[:0] + [0] * N).archetype == "full-scale"
    tau = single.twist(fs, qrels_grades=judged)
    if N >= 3 * RB:
        assert tau < 0.25 or (RB, N, tau) == (1, 3, 0.25)
    rng = np.random.default_rng(RB * 100 + N)
    other = list(itertools.accumulate(rp_vector(list(rng.permutation(fs)), judged, 1)))
    assert min(crp) <= min(other)


def test_where_the_papers_propositions_are_off():
    """Two findings, kept as tests. (1) Proposition 3's proof puts the full-scale run's first
    crossing at N − RB + 1 + k, but Definition 3 (and MATTERS) take the rank *before* CRP
    turns non-negative, N − RB + k: with RB = 1 and N = 3·RB the run 0 0 1 has CRP −1 −1 +1,
    crossing 2, ρ = 1/2 and τ = 1/4, not below. For RB ≥ 2 (or N > 3) the bound is strict.
    (2) Proposition 2's upper bound max(CRP_fs) ≥ CRP_r[h] does not hold for every run: the
    full-scale run pays the whole backward space first. σ⁺ normalises by the forward space
    (Σ positive RP), which the full-scale run does maximise (test below), so it is not
    affected."""
    assert list(itertools.accumulate(rp_vector([0, 0, 1], [1], 1))) == [-1, -1, 1]
    assert single.recovery_ratio([0, 0, 1], R=1) == 0.5
    assert single.twist([0, 0, 1], R=1) == 0.25
    fs, run = [0, 0, 0, 0, 1, 1, 1], [1, 0, 0, 0, 0, 1, 1]
    assert max(itertools.accumulate(rp_vector(fs, fs, 1))) == 3          # RB(N − RB) − RB²
    assert max(itertools.accumulate(rp_vector(run, run, 1))) == 4


@pytest.mark.parametrize("relevant", [[1, 1, 1], [3, 2, 2, 1], [2, 1, 1]])
def test_space_normalisers_are_the_largest_spaces(relevant):
    """The normalisers are the largest spaces a run of the same length can have: for every length L
    (L < RB and L < 2·RB included) no run has more forward space than the full-scale run of
    length L, nor more backward space than the worst run: checked against every run over the
    query's documents (and non-relevant ones)."""
    classes = sorted(set(relevant)) + [0]
    for L in range(1, 2 * len(relevant) + 2):
        best_plus = best_minus = 0
        for run in itertools.product(classes, repeat=L):
            if any(run.count(g) > relevant.count(g) for g in set(relevant)):
                continue
            rp = rp_vector(list(run), relevant, 1)
            best_plus = max(best_plus, sum(v for v in rp if v > 0))
            best_minus = max(best_minus, -sum(v for v in rp if v < 0))
        k = min(L, len(relevant))
        fs = [0] * (L - k) + sorted(relevant, reverse=True)[:k][::-1]
        assert best_plus == sum(v for v in rp_vector(fs, relevant, 1) if v > 0), L
        assert best_minus == k * (len(relevant) + 1) - k * (k + 1) // 2, L


# --------------------------------------------------------------------------- edge cases
def test_edge_cases():
    # R = 0: undefined (NaN with undefined="nan", else 0), whatever the ranking
    for m in METRICS:
        assert math.isnan(getattr(single, m)([0, None, 0], R=0, undefined="nan"))
        assert math.isnan(getattr(single, m)([], R=0, undefined="nan"))
        assert getattr(single, m)([0, None, 0], R=0) == 0.0
    # n = 0: the worst run (ρ = σ⁻ = σ = τ = 0, σ⁺ = 1), the same with depth= padding
    for depth in (None, 4):
        assert [getattr(single, m)([], R=2, depth=depth) for m in METRICS] == [0, 1, 0, 0, 0]
    # n < RB (R = 5, L = 2): RP −5 0, CRP −5 −5: ρ = 0; s⁻ = 5 of 5 + 4; the full-scale run of
    # length 2 (two relevant documents) has no forward space: zero maximum space, σ⁺ = 1
    values = [getattr(single, m)([0, 1], R=5) for m in METRICS]
    assert values == pytest.approx([0, 1, 4 / 9, 8 / 13, 4 / 13])
    # n < 2·RB (binary R = 3, L = 4): the full-scale run nr rel rel rel has s⁺max = 1
    assert single.space_ratio_plus([1, 0, 0, 1], R=3) == 0.0
    assert single.space_ratio_plus([1, 1, 1, 0], R=3) == 1.0
    assert single.space_ratio_minus([1, 0, 0, 1], R=3) == pytest.approx(1 - 3 / 6)
    # zero maximum space both ways cannot happen with L ≥ 1; a one-document ranking
    assert [getattr(single, m)([1], R=4) for m in METRICS] == [1, 1, 1, 1, 1]
    assert [getattr(single, m)([0], R=4) for m in METRICS] == [0, 1, 0, 0, 0]


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_undefined_and_empty_through_the_accessor(library):
    run = pd.DataFrame({"qid": ["a", "a", "nil"], "docid": ["d1", "d2", "d3"],
                        "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["a", "nil", "empty"], "docid": ["d2", "d3", "d9"],
                          "rel": [1, 0, 2]})
    run, qrels = _as(library, run, qrels)
    res = _collect(run.ir.evaluate(qrels, METRICS, undefined="nan"))
    res = res.set_index("qid") if "qid" in res.columns else res
    assert res.loc["nil"].isna().all()                       # R = 0 (null in Polars)
    assert res.loc["empty"].tolist() == [0, 1, 0, 0, 0]      # nothing retrieved, R = 1
    assert res.loc["a"].tolist() == [0, 0, 0, 0, 0]  # nr rel: the full-scale run of length 2
    if library == "polars":
        assert run.ir.twist(qrels, undefined="nan").filter(
            pl.col("qid") == "nil")["twist"].null_count() == 1
        assert run.ir.twist(qrels).filter(pl.col("qid") == "nil")["twist"].to_list() == [0.0]
    curve = _collect(run.ir.crp(qrels))
    assert curve[curve.qid == "nil"][["rp", "crp"]].isna().all().all()
    assert "empty" not in set(curve.qid)                     # no rows: nothing retrieved
    padded = _collect(run.ir.crp(qrels, depth=3))
    assert padded[padded.qid == "empty"].crp.tolist() == [-1, -1, -1]
    assert padded[padded.qid == "a"].grade.isna().tolist() == [True, False, True]


# --------------------------------------------------------------------------- depth
def test_depth_pads_and_cuts_as_explicit_runs():
    r = [0, 2, 1, 0, 1, 0, 2, 0, 0, 1]
    judged = r + [2, 1]
    for m in METRICS:
        fn = getattr(single, m)
        assert fn(r, qrels_grades=judged, depth=14) == pytest.approx(
            fn(r + [0] * 4, qrels_grades=judged + [0] * 4))
        assert fn(r, qrels_grades=judged, depth=6) == pytest.approx(
            fn(r[:6], qrels_grades=judged))
        assert fn(r, qrels_grades=judged, depth=len(r)) == fn(r, qrels_grades=judged)
    run = pd.DataFrame({"qid": "q", "docid": [f"d{i}" for i in range(10)],
                        "score": np.arange(10.0, 0, -1)})
    qrels = pd.DataFrame({"qid": "q", "docid": [f"d{i}" for i in range(10)], "rel": r})
    cut = run.ir.crp(qrels, depth=4)
    assert cut.position.tolist() == [1, 2, 3, 4]
    assert run.ir.twist(qrels, depth=4)["q"] == run.ir.truncate(4).ir.twist(qrels)["q"]
    assert ta.parse("twist(depth=1000)").label == "twist(depth=1000)"
    with pytest.raises(ValueError, match="depth"):
        run.ir.crp(qrels, depth=0)
    with pytest.raises(ValueError, match="depth"):
        pl.from_pandas(run).lazy().ir.crp(qrels, depth=-1)


# --------------------------------------------------------------------------- large depth
# The metrics store a ranking over min(L, max(n, RB) + 1) ranks only (RP is 0 beyond); the
# reference below pads the grades list explicitly, as the implementation used to.


def _padded(grades, depth):
    """The ranking as ``depth=`` makes it: padded with non-relevant documents, or cut."""
    return (list(grades) + [0] * depth)[:depth]


def _padded_archetype(grades, extra, depth, **kw):
    """The archetype row of the padded (or cut) ranking with depth=None; the judged
    documents a cut removes stay in the qrels."""
    cut = [g for g in grades[depth:] if g is not None]
    return _arch_row(_archetype(_padded(grades, depth), list(extra) + cut, **kw))


def _arch_row(a):
    crossing = None if pd.isna(a.crossing) else int(a.crossing)
    return a.archetype, int(a.recall_base), int(a.length), crossing


@settings(max_examples=60, deadline=None)
@given(graded_runs, st.sampled_from([1, 2]), st.data())
def test_large_depth_equals_explicit_padding(case, level, data):
    """depth ∈ {n, n + 1, RB + 1, 2·RB + 3, 50, 1000}: every metric and the archetype equal
    those of the explicitly padded (or cut) ranking with depth=None, bit for bit."""
    grades, extra = case
    judged = [g for g in grades if g is not None] + extra
    RB = sum(g >= level for g in judged)
    n = len(grades)
    depth = data.draw(st.sampled_from(sorted({n, n + 1, RB + 1, 2 * RB + 3, 50, 1000} - {0})))
    kw = {"qrels_grades": judged, "relevance_level": level}
    for m in METRICS:
        fn = getattr(single, m)
        got, want = fn(grades, depth=depth, **kw), fn(_padded(grades, depth), **kw)
        assert got == want or (math.isnan(got) and math.isnan(want)), (m, depth, got, want)
    if RB == 0:
        return
    got = _arch_row(_archetype(grades, extra, depth=depth, relevance_level=level))
    assert got == _padded_archetype(grades, extra, depth, relevance_level=level)


def test_several_rankings_with_large_depth_align_by_ranking():
    """One frame: R = 0 first, a ranking compressed by depth=, one that is the full-scale
    run of length depth (uncompressed: the full-scale test runs on it alone) and a cut one;
    each equals its padded ranking scored alone."""
    D = 8
    rankings = {"a": [0, None], "b": [1, 0, 2], "c": [0, 0, 0, 0, 0, 1, 2, 2],
                "d": [2, 0, 1, 0, 0, 0, 0, 1, 0, 2, 1]}
    run = pd.DataFrame([(q, f"{q}{i}", -float(i)) for q, r in rankings.items()
                        for i in range(len(r))], columns=["qid", "docid", "score"])
    qrels = pd.DataFrame([(q, f"{q}{i}", g) for q, r in rankings.items()
                          for i, g in enumerate(r) if g is not None]
                         + [("b", "bx", 1), ("b", "by", 2)], columns=["qid", "docid", "rel"])
    res = run.ir.evaluate(qrels, [f"{m}(depth={D})" for m in METRICS], undefined="nan")
    arch = run.ir.crp_archetype(qrels, depth=D)
    assert res.loc["a"].isna().all() and pd.isna(arch.loc["a", "archetype"])
    assert arch.loc["c", "archetype"] == "full-scale"
    for q in "bcd":
        judged = qrels[qrels.qid == q].rel.tolist()
        want = [getattr(single, m)(_padded(rankings[q], D), qrels_grades=judged)
                for m in METRICS]
        assert res.loc[q].tolist() == want, q
        extra = qrels[(qrels.qid == q) & qrels.docid.isin(["bx", "by"])].rel.tolist()
        assert _arch_row(arch.loc[q]) == _padded_archetype(rankings[q], extra, D), q
    # one more rank of padding: "c" is no longer its full-scale run (that ends relevant)
    assert run.ir.crp_archetype(qrels, depth=D + 1).loc["c", "archetype"] == "typical A"


def test_huge_depth_is_cheap_and_exact():
    """[1, 0, 1] with RB = 2 (both relevant documents retrieved) and depth N: RP 0 −1 +1 then
    0, CRP 0 −1 0 0 …: it never turns positive and is not flat, so ρ = 0. s⁺ = 1, s⁻ = 1.
    s⁻max = (3 − 1) + (3 − 2) = 3, σ⁻ = 2/3. The full-scale run of length N has its two
    relevant documents (max = 2) at ranks N − 1 and N: s⁺max = (N − 3) + (N − 2) = 2N − 5,
    σ⁺ = 1 − 1/(2N − 5). σ = 2σ⁺σ⁻/(σ⁺ + σ⁻) (→ 4/5), τ = σ/2 (→ 2/5). The padded
    reference agrees at N = 10⁶; at N = 10¹² padding would take 8 TB per array."""
    from fractions import Fraction

    def analytic(N):
        sp, sm = 1 - Fraction(1, 2 * N - 5), Fraction(2, 3)
        sigma = 2 * sp * sm / (sp + sm)
        return [0.0, float(sp), float(sm), float(sigma), float(sigma / 2)]

    N = 10**6
    padded = [getattr(single, m)(_padded([1, 0, 1], N), qrels_grades=[1, 1]) for m in METRICS]
    assert padded == pytest.approx(analytic(N), abs=1e-15)
    assert [getattr(single, m)([1, 0, 1], R=2, depth=N) for m in METRICS] == padded
    for N in (10**7, 10**12):
        got = [getattr(single, m)([1, 0, 1], R=2, depth=N) for m in METRICS]
        assert got == pytest.approx(analytic(N), abs=1e-15)
    assert single.twist([1, 0, 1], R=2, depth=10**12) == pytest.approx(0.39999999999992,
                                                                        abs=1e-15)
    # through the accessor: three queries, depth 10¹²
    run = pd.DataFrame({"qid": ["q1", "q1", "q1", "q2", "q3", "q3"],
                        "docid": ["a", "b", "c", "d", "e", "f"],
                        "score": [3.0, 2.0, 1.0, 1.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q1", "q1", "q2", "q3", "q3"],
                          "docid": ["a", "c", "x", "e", "f"], "rel": [1, 1, 2, 1, 1]})
    res = run.ir.evaluate(qrels, [f"{m}(depth={10**12})" for m in METRICS])
    res.columns = METRICS
    assert res.loc["q1"].tolist() == pytest.approx(analytic(10**12), abs=1e-15)
    assert res.loc["q2"].tolist() == [0, 1, 0, 0, 0]   # nothing relevant retrieved: worst
    assert res.loc["q3"].tolist() == [1, 1, 1, 1, 1]   # ideal, padding changes nothing
    arch = run.ir.crp_archetype(qrels, depth=10**12)
    assert arch["archetype"].to_dict() == {"q1": "typical B", "q2": "worst", "q3": "ideal"}
    assert (arch["length"] == 10**12).all()
    for m in METRICS:
        assert getattr(run.ir, m)(qrels, depth=10**12).tolist() == res[m].tolist()


def test_several_twist_metrics_compute_the_curves_once(monkeypatch):
    from trunc_accessor.metrics import twist_curves as kernel

    calls = []
    real = kernel.curves
    monkeypatch.setattr(kernel, "curves", lambda *a, **k: calls.append(a[2:]) or real(*a, **k))
    run, qrels = paper_frames()
    run.ir.evaluate(qrels, METRICS + ["twist(depth=20)"])
    assert len(calls) == 2  # once per depth


# --------------------------------------------------------------------------- ties
EXACT = [("space_ratio_plus", _ref("sigma_plus"), {}),
         ("space_ratio_minus", _ref("sigma_minus"), {}),
         ("space_ratio_plus(depth=4)", _ref("sigma_plus"), {"depth": 4}),
         ("space_ratio_minus(depth=4)", _ref("sigma_minus"), {"depth": 4})]
ORDERED = [(m, _ref(p), {}) for m, p in zip(METRICS, PARTS)] + [
    ("twist(depth=5)", _ref("tau"), {"depth": 5})]


@settings(max_examples=80, deadline=None)
@given(queries=random_queries(max_len=7, sort_scores=True), level=st.sampled_from([1, 2]))
def test_tie_aware_space_ratios_and_crp_equal_brute_force(queries, level):
    """σ⁺, σ⁻ and CRP are linear in the expected misplacement at each rank: under
    ties="average" they are the exact means over every order of each tie; every metric
    under ties="first" is the naive reference of the order as given."""
    run, qrels = frames_of(queries)
    assert_matches_brute_force(run, qrels, queries, EXACT, level)
    assert_matches_brute_force(run, qrels, queries, ORDERED, level, modes=("first",))
    curve = run.ir.crp(qrels, relevance_level=level, queries=[q[0] for q in queries])
    for qid, grades, scores, extra in queries:
        judged = [g for g in grades if g is not None] + extra
        if not grades or not any(g >= level for g in judged):
            continue
        orders = list(ref.tie_orders(grades, scores))
        mean_crp = np.mean([list(itertools.accumulate(rp_vector(o, judged, level)))
                            for o in orders], axis=0)
        assert curve[curve.qid == qid].crp.to_numpy() == pytest.approx(mean_crp, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(queries=random_queries(max_len=7, sort_scores=True), level=st.sampled_from([1, 2]))
def test_non_linear_parts_raise_only_when_a_tie_mixes_grades(queries, level):
    run, qrels = frames_of(queries)
    qids = [q[0] for q in queries]

    def mixed(grades, scores):
        cls = [g if g is not None and g >= level else -1 for g in grades]
        return any(len({c for c, s in zip(cls, scores) if s == v}) > 1 for v in set(scores))

    def defined(grades, extra):  # R > 0
        return any(x >= level for x in [y for y in grades if y is not None] + extra)

    has_mixed = any(mixed(g, s) and defined(g, e) for _, g, s, e in queries)
    for m in ("twist", "recovery_ratio", "space_ratio"):
        if has_mixed:
            with pytest.raises(ValueError, match="ties='first'.*ties='trec_eval'"):
                run.ir.evaluate(qrels, [m, "ap"], queries=qids, relevance_level=level)
        else:  # ties among equally graded documents change nothing
            avg = run.ir.evaluate(qrels, [m], queries=qids, relevance_level=level)
            first = run.ir.evaluate(qrels, [m], queries=qids, relevance_level=level,
                                    ties="first")
            pd.testing.assert_frame_equal(avg, first)


@settings(max_examples=40, deadline=None)
@given(queries=random_queries(max_len=7), seed=st.integers(0, 2**31))
def test_trec_eval_order_ignores_row_order_and_by_equals_separate_runs(queries, seed):
    run, qrels = frames_of(queries)
    qids = [q[0] for q in queries]
    shuffled = run.sample(frac=1.0, random_state=seed % 2**32)
    a = run.ir.evaluate(qrels, METRICS, ties="trec_eval", queries=qids)
    pd.testing.assert_frame_equal(a, shuffled.ir.evaluate(qrels, METRICS, ties="trec_eval",
                                                          queries=qids))
    both = pd.concat([run.assign(system="A"), shuffled.assign(system="B")])
    res = both.ir.evaluate(qrels, METRICS, ties="trec_eval", queries=qids, by="system")
    if not run.empty:
        for name in ("A", "B"):
            assert np.allclose(res.loc[name].to_numpy(), a.to_numpy(), equal_nan=True,
                               rtol=0, atol=0)


def test_ties_error_message_and_other_metrics_unaffected():
    run = pd.DataFrame({"qid": "q7", "docid": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"qid": "q7", "docid": ["a", "b", "c"], "rel": [0, 1, 0]})
    with pytest.raises(ValueError) as err:
        run.ir.twist(qrels)
    msg = str(err.value)
    assert "qid='q7'" in msg and "ties='first'" in msg and "ties='trec_eval'" in msg
    with pytest.raises(ValueError, match="ties='first'"):
        run.ir.crp_archetype(qrels)
    with pytest.raises(ValueError, match="ties='first'"):
        single.twist([0, 1, 0], scores=[2, 1, 1])
    run.ir.evaluate(qrels, ["ap", "ndcg", "space_ratio_plus", "space_ratio_minus"])
    run.ir.crp(qrels)
    assert run.ir.twist(qrels, ties="first")["q7"] == single.twist([0, 1, 0])
    assert run.ir.twist(qrels, ties="trec_eval")["q7"] == single.twist([0, 0, 1])
    assert run.ir.twist(qrels, depth=1)["q7"] == 0.0  # the tie lies beyond depth: exact


def test_by_systems_and_polars_agree():
    run, qrels = paper_frames()
    both = pd.concat([run.assign(system="S1"), run.assign(system="S2")])
    res = both.ir.evaluate(qrels, METRICS, by="system")
    pd.testing.assert_frame_equal(res.loc["S1"], res.loc["S2"])
    pol = pl.from_pandas(both).ir.evaluate(pl.from_pandas(qrels), METRICS, by="system")
    assert pol.columns == ["system", "qid", *METRICS]
    arch = pl.from_pandas(both).ir.crp_archetype(qrels, by="system")
    assert arch.columns == ["system", "qid", "archetype", "recall_base", "length", "crossing"]
    assert arch.schema["archetype"] == pl.String and arch.height == 10
    pdarch = both.ir.crp_archetype(qrels, by="system")
    assert pdarch.index.names == ["system", "qid"]
    assert pdarch["archetype"].tolist() == arch["archetype"].to_list()
    curve = both.ir.crp(qrels, by="system")
    assert list(curve.columns) == ["system", "qid", "position", "grade", "rp", "crp"]
    lazy = pl.from_pandas(both).lazy().ir.crp(qrels, by="system")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema()["crp"] == pl.Float64
    assert lazy.collect().to_pandas().equals(curve)
