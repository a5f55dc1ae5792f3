"""trunc_accessor.properties: the seven formal properties of Amigó, Mizzaro & Spina
(SIGIR 2022, §2) checked by exhaustive search, against the claims of the paper's §3 prose
(Table 1's check marks did not survive the text copy) and against what tests/metrics/test_oie.py,
tests/metrics/test_utility.py and tests/metrics/test_terminal.py established by hand.

"holds" means "no counterexample in the space searched". Every counterexample and witness
the checker reports is recomputed here with trunc_accessor.single."""
from __future__ import annotations

import inspect
import math
from functools import cache

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor  # noqa: F401  (registers .ir)
from trunc_accessor import properties, single
from trunc_accessor.metrics.params import Param, check_nonnegative
from trunc_accessor.metrics.parse import parse
from trunc_accessor.metrics.registry import _ALIASES, REGISTRY, register

KW = {"max_length": 5, "max_collection": 2, "threshold_n": 200}
ALL = list(properties.PROPERTIES.values())
PRIO, TOPW, DEEP, SHAL, CONF, REC, RED = ALL


@cache
def _check(metric: str, top_grade: int = 1) -> pd.DataFrame:
    return properties.check(metric, top_grade=top_grade, **KW).set_index("property")


def _holds(metric, prop, top_grade=1) -> bool:
    return bool(_check(metric, top_grade).loc[prop, "holds"])


def _direct(metric: str, record: dict, i: int) -> float:
    """The metric on the record's i-th ranking, judged against its collection, computed by
    trunc_accessor.single (the grade scale's top given explicitly, as the checker uses one
    scale per space)."""
    m = parse(metric)
    grades = [int(c) for c in record["rankings"][i]]
    judged = grades + [int(c) for c in record["unretrieved"][i]]
    fn = getattr(single, m.metric.name)
    kw = dict(m.kwargs)
    if "max_grade" in inspect.signature(fn).parameters and kw.get("max_grade") is None:
        kw["max_grade"] = record["max_grade"]
    return fn(grades, qrels_grades=judged, ties="first", **kw)


def _assert_values(metric, record):
    assert record["R"] == tuple(sum(1 for c in r + u if int(c) >= 1)
                                for r, u in zip(record["rankings"], record["unretrieved"]))
    for i, v in enumerate(record["values"]):
        assert v == pytest.approx(_direct(metric, record, i), rel=1e-12, abs=1e-15), (metric, i)


def _not_strictly_greater(a, b, tol=1e-12):
    return not (a - b > tol * max(1.0, abs(a), abs(b)))


# --------------------------------------------------------------------------- the paper's claims
# (metric, property, what §3 says). Binary-relevance claims are checked with top_grade=1.
CLAIMS = [
    # §3.1: P@N, R@N, R-p, RR do not satisfy Priority; P@N and R@N satisfy Deepness and
    # Shallowness; R-p satisfies neither; RR satisfies Redundancy.
    ("precision@4", PRIO, False), ("precision@4", DEEP, True), ("precision@4", SHAL, True),
    ("recall@4", PRIO, False), ("recall@4", DEEP, True), ("recall@4", SHAL, True),
    ("rprec", PRIO, False), ("rprec", DEEP, False), ("rprec", SHAL, False),
    ("rr", PRIO, False), ("rr", RED, True),
    # F-measure: Recall; none of Priority, Top-weightedness, Deepness
    ("f_measure", REC, True), ("f_measure", PRIO, False), ("f_measure", TOPW, False),
    ("f_measure", DEEP, False),
    # AP satisfies Priority (and Top-weightedness, footnote 3); AP and nDCG not Deepness
    ("ap", PRIO, True), ("ap", TOPW, True), ("ap", DEEP, False), ("ndcg", DEEP, False),
    # ERR and RBP: Deepness; ERR Redundancy; RBP Shallowness; neither Recall
    ("err", DEEP, True), ("err", RED, True), ("rbp", DEEP, True), ("rbp", SHAL, True),
    ("err", REC, False), ("rbp", REC, False),
    # §3.3: every utility metric satisfies Confidence; flat utility not Top-weightedness;
    # DCGU not Recall; RBU Redundancy (Fig. 1 discussion); the rest inherited (see below)
    ("flat_utility", CONF, True), ("dcgu", CONF, True), ("rbpu", CONF, True),
    ("rbu", CONF, True), ("erru", CONF, True),
    ("flat_utility", TOPW, False), ("dcgu", REC, False), ("rbu", RED, True),
    # RBU = iRBU + effort: "capturing the first four properties" (three of them reproduced)
    ("rbu", PRIO, True), ("rbu", TOPW, True), ("rbu", DEEP, True),
    # §3.4: OIE, binary relevance: Priority, Top-weightedness, Shallowness (β = 1.05 <
    # (2m − 1)/m with m = 2), Confidence, Recall
    ("oie", PRIO, True), ("oie", TOPW, True), ("oie", SHAL, True), ("oie", CONF, True),
    ("oie", REC, True),
]


@pytest.mark.parametrize("metric,prop,claim", CLAIMS, ids=[f"{m}-{p}" for m, p, _ in CLAIMS])
def test_paper_claim_reproduced(metric, prop, claim):
    assert _holds(metric, prop) is claim
    row = _check(metric).loc[prop]
    record = row["counterexample"] if row["counterexample"] is not None else row["witness"]
    if record is not None:
        _assert_values(metric, record)


# repo tests (test_utility.py) established these by hand
@pytest.mark.parametrize("metric,prop,claim", [
    ("flat_utility", PRIO, False), ("dcgu(graded=True)", PRIO, True),
    ("rbpu(graded=True)", PRIO, True), ("dcgu(graded=True)", TOPW, True),
    ("rbpu(graded=True)", TOPW, True), ("flat_utility", DEEP, False), ("dcgu", DEEP, False),
    ("rbpu", DEEP, True), ("flat_utility", SHAL, True), ("dcgu", SHAL, True),
    ("rbpu", SHAL, True), ("flat_utility", REC, False), ("rbpu", REC, False),
    ("flat_utility", RED, False), ("dcgu", RED, False), ("rbpu", RED, False),
])
def test_utility_properties_as_established_by_hand(metric, prop, claim):
    top = 2 if "graded" in metric else 1
    assert _holds(metric, prop, top) is claim


@pytest.mark.parametrize("base", ["rr", "rbp", "ndcg", "ap", "err"])
def test_terminal_metrics_inherit_the_base_metric_properties(base):
    """§3.2: the terminal-document variants inherit the formal properties of the original
    metric (Priority, Top-weightedness, the thresholds, Redundancy all agree)."""
    for prop in (PRIO, TOPW, DEEP, SHAL, RED):
        assert _holds(f"{base}_prime", prop) == _holds(base, prop), prop


@pytest.mark.parametrize("base,effort", [("rbp", "rbpu"), ("err", "erru")])
def test_utility_metrics_inherit_the_base_metric_properties(base, effort):
    """§3.3: besides Confidence, the properties of RBPU / ERRU are those of RBP / ERR."""
    for prop in (PRIO, TOPW, DEEP, SHAL, REC, RED):
        assert _holds(effort, prop) == _holds(base, prop), prop
    assert not _holds(base, CONF) and _holds(effort, CONF)


# --------------------------------------------------------------------------- claims that fail
def test_oie_priority_fails_for_a_graded_swap():
    """test_oie.py::test_priority_graded_counterexample: P1 fails for OIE with graded
    relevance (its example has length 8). The checker finds a shorter one: 0021 → 0120
    (the 0 at position 2 swapped with the 1 at position 4). The products of the H(S,G)
    counts are 1·2·1·2 and 1·1·1·4, both 4: the two values are equal, not increasing."""
    assert _holds("oie", PRIO, top_grade=1)  # binary swaps always help (test_priority_binary)
    row = _check("oie", 2).loc[PRIO]
    assert not row["holds"]
    cx = row["counterexample"]
    _assert_values("oie", cx)
    a, b = cx["values"]
    assert _not_strictly_greater(a, b)
    better, worse = cx["rankings"]
    assert sorted(better) == sorted(worse) and len(better) == 4
    assert cx["rankings"] == ("0120", "0021") and cx["unretrieved"] == ("", "")
    assert a == pytest.approx(b, rel=1e-12)


def test_oie_redundancy_fails():
    """test_oie.py::test_redundancy_as_printed_is_not_satisfied: the second relevant document
    adds β·log 2/|D| more than the first."""
    cx = _check("oie").loc[RED, "counterexample"]
    assert not _holds("oie", RED)
    _assert_values("oie", cx)
    first, second = cx["differences"]
    assert second - first == pytest.approx(1.05 * math.log(2) / 20000, rel=1e-6)


def test_f_measure_confidence_and_redundancy_fail():
    """test_utility.py::test_confidence_f_measure and test_redundancy_not_satisfied: §3.1
    says F satisfies Confidence and Redundancy, but appending a non-relevant document to a
    ranking with nothing relevant leaves F = 0, and both redundancy differences are
    2/(n + 1 + R)."""
    cx = _check("f_measure").loc[CONF, "counterexample"]
    assert not _holds("f_measure", CONF)
    _assert_values("f_measure", cx)
    assert "1" not in cx["rankings"][0] and cx["values"] == (0.0, 0.0) and cx["R"][0] > 0
    cx = _check("f_measure").loc[RED, "counterexample"]
    assert not _holds("f_measure", RED)
    _assert_values("f_measure", cx)
    n, R = cx["n"], cx["R"][0]
    assert cx["differences"] == pytest.approx((2 / (n + 1 + R), 2 / (n + 1 + R)))


@pytest.mark.parametrize("metric", ["rr_prime", "rbp_prime", "ndcg_prime", "ap_prime",
                                    "err_prime"])
def test_terminal_confidence_fails_when_nothing_relevant_is_retrieved(metric):
    """test_terminal.py::test_confidence_appending_a_non_relevant_document: with r_t = 0
    (R > 0, nothing relevant retrieved) appending a non-relevant document changes nothing,
    so the printed P5 fails, though §3.2 says the terminal variants capture Confidence."""
    cx = _check(metric).loc[CONF, "counterexample"]
    assert not _holds(metric, CONF)
    _assert_values(metric, cx)
    assert "1" not in cx["rankings"][0] and cx["R"][0] > 0
    assert cx["values"][0] == cx["values"][1] == 0.0


# --------------------------------------------------------------------------- new findings
def test_f_measure_satisfies_shallowness():
    """§3.1 says F captures none of the first four properties; F does satisfy Shallowness:
    with R = 3, F(1) = 2/4 < F(000111) = 6/9."""
    row = _check("f_measure").loc[SHAL]
    assert row["holds"]
    w = row["witness"]
    _assert_values("f_measure", w)
    assert w["rankings"] == ("1", "000111") and w["R"] == (3, 3)
    assert w["values"] == pytest.approx((0.5, 2 / 3))


def test_oie_deepness_threshold_fails():
    """§3.4 says OIE satisfies the first five properties (for 1 < β < (2m − 1)/m), but with
    the collection holding the n relevant documents of 0^n 1^n, 0^n 1^n beats 1 for every
    n ≥ 2 (n = 1 is the only n where 1 wins: Shallowness with m = 2 is the very opposite
    of Deepness at n = 2) and for every |D| tried."""
    row = _check("oie").loc[DEEP]
    assert not row["holds"]
    cx = row["counterexample"]
    _assert_values("oie", cx)
    assert cx["n"] == KW["threshold_n"] and cx["holds_from_n"] is None
    for size in (20000, 10**9):
        for n in (2, 10, 100):
            judged = [1] * n + [0] * n
            one = single.oie([1], qrels_grades=judged, ties="first", collection_size=size)
            deep = single.oie([0] * n + [1] * n, qrels_grades=judged, ties="first",
                              collection_size=size)
            assert deep > one, (size, n)


def test_rbu_shallowness_fails():
    """RBU's gain is ERR's (only the first relevant document found counts fully; binary
    stopping probability 1/2), so n relevant documents after n non-relevant ones never
    beat one at rank 1: the "first four properties" of iRBU (§3.1) lose Shallowness."""
    row = _check("rbu").loc[SHAL]
    assert not row["holds"]
    _assert_values("rbu", row["counterexample"])
    a, b = row["counterexample"]["values"]
    assert a > b


# --------------------------------------------------------------------------- thresholds
@pytest.mark.parametrize("metric,p,bound", [("rbpu", 0.8, 7), ("rbpu", 0.98, 133),
                                            ("rbp", 0.8, 6)])
def test_deepness_threshold_onset(metric, p, bound):
    """holds_from_n: the smallest n0 with M(1) > M(0^n 1^n) for every n in n0..threshold_n,
    recomputed here n by n with single. test_utility.py's sufficient bound for RBPU
    (e = 1/20: p^n < (1 − p)(1 − e) + e, n ≥ 7 and 133 for p = .8, .98) is not tight: the
    exact onsets are 5 and 129. For RBP, p^n (1 − p^n) < 1 − p from n = 6 at p = .8."""
    res = properties.check(metric, p=p, threshold_n=200, properties=["deepness_threshold"])
    assert res["holds"][0]
    w = res["witness"][0]
    _assert_values(f"{metric}(p={p})", w)
    fn = getattr(single, metric)
    ok = [fn([1], p=p) > fn([0] * n + [1] * n, p=p) for n in range(1, 201)]
    n0 = max(n for n in range(1, 201) if not ok[n - 1]) + 1
    assert w["holds_from_n"] == n0 <= bound


def test_literal_deepness_is_met_at_n_1():
    """Property 3 read literally (∃ n) is met at n = 1 by nDCG; the checker decides at the
    largest n, where nDCG fails."""
    res = properties.check("ndcg", threshold_n=1, properties=["deepness_threshold"])
    assert res["holds"][0]
    assert not properties.check("ndcg", threshold_n=30,
                                properties=["deepness_threshold"])["holds"][0]


# --------------------------------------------------------------------------- user metric
@pytest.fixture
def toy_metric():
    name = "toy_hits_minus_effort"

    @register(name, params=(Param("e", 0.1, check_nonnegative, "effort per document"),))
    def _kernel(prep, level, e=0.1):
        """Toy: relevant documents retrieved minus e per retrieved document."""
        return prep.seg_sum(prep.relevant(level)) - e * prep.length

    yield name
    del REGISTRY[name]
    del _ALIASES[name]


def test_user_registered_metric(toy_metric):
    """A metric registered by the user: a flat count ignores the order (no Priority,
    Top-weightedness, Deepness, Recall, Redundancy), rewards more relevant documents
    (Shallowness) and charges each document (Confidence, only while e > 0)."""
    res = properties.check(toy_metric, **KW).set_index("property")["holds"].to_dict()
    assert res == {PRIO: False, TOPW: False, DEEP: False, SHAL: True, CONF: True,
                   REC: False, RED: False}
    res0 = properties.check(toy_metric, e=0.0, properties=["confidence"], **KW)
    assert not res0["holds"][0]
    cx = res0["counterexample"][0]
    assert cx["values"] == (0.0, 0.0) or cx["values"][0] == cx["values"][1]
    r = cx["rankings"][0]
    assert cx["values"][0] == r.count("1")


# --------------------------------------------------------------------------- API
def test_frame_shape_and_docstring():
    res = properties.check("rbp", **KW)
    assert list(res.columns) == ["property", "holds", "counterexample", "witness", "space"]
    assert list(res["property"]) == ALL
    assert res["holds"].dtype == bool
    assert all(isinstance(s, str) and s for s in res["space"])
    assert "no counterexample" in " ".join(properties.check.__doc__.split())  # as wrapped
    assert "no counterexample in" in " ".join(properties.__doc__.split())
    assert "no counterexample in" in " ".join(properties.checker.__doc__.split())


def test_params_spellings_agree():
    a = properties.check("rbp(p=0.5)", **KW)
    b = properties.check("rbp", p=0.5, **KW)
    c = properties.check(("rbp", {"p": 0.5}), **KW)
    assert list(a["holds"]) == list(b["holds"]) == list(c["holds"])
    assert a["counterexample"].tolist() == b["counterexample"].tolist()


def test_property_subset_and_errors():
    res = properties.check("ap", properties=["Priority", "recall"], **KW)
    assert list(res["property"]) == [PRIO, REC]
    with pytest.raises(ValueError, match="unknown property"):
        properties.check("ap", properties=["monotonicity"])
    with pytest.raises(ValueError):
        properties.check("ap", max_collection=0)


@pytest.mark.parametrize("param, value", [
    ("max_length", "x"), ("max_length", 2.5), ("max_length", None), ("max_length", 1),
    ("max_length", True), ("max_collection", "x"), ("max_collection", [1]),
    ("max_collection", float("nan")), ("top_grade", None), ("top_grade", 2.5),
    ("top_grade", float("inf")), ("threshold_n", "x"), ("threshold_n", float("nan")),
    ("tol", "x"), ("tol", None), ("tol", [1, 2, 3]), ("tol", -1.0), ("properties", 5),
    ("properties", [["x"]]), ("properties", object())])
def test_wrong_parameter_types_are_value_errors_naming_them(param, value):
    """properties.check("ap", max_length="x") raised TypeError ('<' not supported between
    str and int); wrong types of every parameter are the library's ParameterError (a
    ValueError) naming the parameter."""
    with pytest.raises(trunc_accessor.ParameterError) as info:
        properties.check("ap", **{**KW, param: value})
    assert param in str(info.value) or "property" in str(info.value), info.value


@pytest.mark.parametrize("metrics", [5, None, 2.5, object()])
def test_table_refuses_what_is_not_a_list_of_metrics(metrics):
    with pytest.raises(trunc_accessor.ParameterError, match="metrics must be a list of metrics"):
        properties.table(metrics, **KW)


def test_table():
    t = properties.table(["rr", "rbp(p=0.5)"], **KW)
    assert list(t.index) == ["rr", "rbp(p=0.5)"] and list(t.columns) == ALL
    assert t.dtypes.eq(bool).all()
    assert t.loc["rr", RED] and not t.loc["rr", PRIO]


def test_one_evaluate_call_per_space(monkeypatch):
    """Scoring is vectorised: one call of the evaluation engine for the binary space and one
    for the graded one, whatever the number of candidates."""
    from trunc_accessor.properties import search
    calls = []
    original = search.compute

    def counting(*a, **k):
        calls.append(a[3].ties)
        return original(*a, **k)

    monkeypatch.setattr(search, "compute", counting)
    properties.check("ndcg", **KW)
    assert calls == ["first", "first"]
    calls.clear()
    properties.check("ndcg", top_grade=1, **KW)
    assert calls == ["first"]


def test_the_checker_scores_through_the_engine_not_a_frontend():
    """The checker sits on its own floor above the engine and scores its candidates with
    ``trunc_accessor.engine.evaluation.compute``: no ``.ir`` accessor (a frontend, above
    it) is called."""
    acc = type(pl.DataFrame({"a": [1]}).ir)
    original = acc.evaluate
    calls = []

    def counting(self, *a, **k):
        calls.append(1)
        return original(self, *a, **k)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(acc, "evaluate", counting)
        properties.check("ndcg", **KW)
    assert calls == []
    assert properties.check.__module__ == "trunc_accessor.properties.checker"


def test_empty_ranking_is_a_candidate():
    """Truncation matters: Confidence starts from the empty ranking (the nil answer)."""
    cx = properties.check("rbp_prime", properties=["confidence"], **KW)["counterexample"][0]
    assert cx["rankings"] == ("", "0")
    res = properties.check("ap", properties=["confidence"], **KW)
    assert "undefined value skipped" in res["space"][0]  # AP with R = 0 is undefined
    assert np.isfinite(res["counterexample"][0]["values"]).all()
