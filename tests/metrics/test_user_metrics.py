"""User-defined metrics (trunc_accessor.define): one declaration gives the accessor method
(pandas, Polars, lazy), the evaluate string with parameters, the single-ranking function and
parameter checks; a per-ranking function is averaged exactly over tie orders."""
from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests.strategies import frames_of, random_queries
from trunc_accessor import single
from trunc_accessor.metrics.registry import REGISTRY
from trunc_accessor.metrics.user import define, metric


def plain_ap(grades, judged, level, k=None):
    """Average precision written plainly, per ranking (the textbook definition)."""
    R = sum(g >= level for g in judged)
    if R == 0:
        return float("nan")
    hits, total = 0, 0.0
    for i, g in enumerate(grades[:k] if k else grades, 1):
        if g >= level:
            hits += 1
            total += hits / i
    return total / R


@pytest.fixture(autouse=True, scope="module")
def declared():
    define(plain_ap, "user_ap", params={"k": None}, aliases=("uap",),
           undefined="Undefined when R = 0.")
    yield
    for name in ("user_ap", "dup", "vec_len", "scaled"):
        if name in REGISTRY:
            from trunc_accessor.metrics.registry import unregister
            unregister(name)


def test_every_channel_gives_the_builtin_values():
    """The per-ranking AP equals the library's AP (trec_eval's, checked elsewhere against
    trec_eval's stored outputs) through every channel."""
    run, qrels = ta.load_example()
    want = run.ir.ap(qrels, ties="trec_eval", k=100)
    assert np.allclose(run.ir.user_ap(qrels, ties="trec_eval", k=100), want, rtol=1e-12)
    res = run.ir.evaluate(qrels, ["user_ap@100", "uap(k=100)"], ties="trec_eval")
    assert np.allclose(res["user_ap@100"], want) and np.allclose(res["uap(k=100)"], want)
    polars = pl.from_pandas(run).ir.user_ap(qrels, ties="trec_eval", k=100)
    lazy = pl.from_pandas(run).lazy().ir.user_ap(qrels, ties="trec_eval", k=100).collect()
    assert polars.equals(lazy) and np.allclose(polars["user_ap@100"].to_numpy(), want)
    assert single.user_ap([1, 0, 1], R=3) == pytest.approx(single.ap([1, 0, 1], R=3))
    assert "user_ap" in {m["name"] for m in ta.metrics_table()}
    assert "Undefined when R = 0." in run.ir.user_ap.__doc__


@settings(max_examples=60, deadline=None)
@given(queries=random_queries(), k=st.sampled_from([None, 1, 3]), level=st.sampled_from([1, 2]))
def test_ties_average_is_the_exact_mean_over_orders(queries, k, level):
    """Under ties="average" the per-ranking function is averaged over every order of the
    tied documents: equal to McSherry & Najork's closed form of AP (the built-in kernel)."""
    run, qrels = frames_of(queries)
    qids = [q[0] for q in queries]
    ours = run.ir.evaluate(qrels, [("user_ap", {"k": k}), ("ap", {"k": k})], queries=qids,
                           relevance_level=level, undefined="nan", names="canonical")
    a, b = ours.iloc[:, 0].to_numpy(), ours.iloc[:, 1].to_numpy()
    assert np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_parameters_are_checked_where_declared():
    run, qrels = ta.load_example()
    with pytest.raises(ta.ParameterError, match="k must be"):
        run.ir.user_ap(qrels, k=0)
    with pytest.raises(ta.ParameterError, match="k must be"):
        run.ir.evaluate(qrels, ["user_ap@-1"])

    @metric("scaled", params={"factor": 2.0, "squared": False})
    def scaled(grades, judged, factor, squared):
        value = factor * float(np.nansum(grades))
        return value ** 2 if squared else value

    assert single.scaled([1, 2]) == 6.0 and single.scaled([1, 2], factor=1, squared=True) == 9
    with pytest.raises(ta.ParameterError, match="factor must be a finite number"):
        single.scaled([1], factor="x")
    with pytest.raises(ta.ParameterError, match="squared must be True or False"):
        run.ir.scaled(qrels, squared=1)


def test_declaration_errors_name_the_fault():
    with pytest.raises(ta.ParameterError, match="built-in metric's name"):
        define(plain_ap, "ap")
    with pytest.raises(ta.ParameterError, match="built-in metric's name"):
        define(plain_ap, "dup", aliases=("map",))
    with pytest.raises(ta.ParameterError, match="unexpected keyword argument 'p'"):
        define(plain_ap, "dup", params={"p": 0.5})
    with pytest.raises(ta.ParameterError, match="identifier"):
        define(plain_ap, "not a name")
    with pytest.raises(ta.ParameterError, match="must be a number in the open interval"):
        define(lambda grades, judged, p: 0.0, "dup", params={"p": 2.0})


def test_redefinition_replaces_and_vectorised_kernels():
    run, qrels = ta.load_example()
    define(lambda grades, judged: float(len(grades)), "dup")
    assert run.ir.dup(qrels).tolist() == [500.0] * 3
    define(lambda grades, judged: 1.0, "dup")  # a notebook cell run again
    assert run.ir.dup(qrels).tolist() == [1.0] * 3 and single.dup([0]) == 1.0

    def vec_len(prep, level):
        """Ranking length, from the prepared arrays."""
        return prep.length.astype(float)

    define(vec_len, "vec_len", vectorised=True)
    assert run.ir.vec_len(qrels).tolist() == [500.0] * 3


def test_too_many_tie_orders_is_refused_with_the_way_out():
    grades = [1, 0] * 20
    with pytest.raises(ta.ParameterError, match="ties='first'"):
        single.user_ap(grades, scores=[1.0] * 40)
    assert not math.isnan(single.user_ap(grades, scores=[1.0] * 40, ties="first"))


def _frontends(run):
    """The run in every frontend: pandas, Polars, lazy Polars, Dask."""
    import dask.dataframe as dd

    frame = pl.from_pandas(run)
    return {"pandas": run, "polars": frame, "lazy": frame.lazy(),
            "dask": dd.from_pandas(run, npartitions=2)}


def _values(res):
    if isinstance(res, pl.LazyFrame):
        res = res.collect()
    if hasattr(res, "compute"):
        res = res.compute()
    if isinstance(res, pl.DataFrame):
        return res.to_pandas().set_index("qid")
    return res


@pytest.mark.parametrize("name", ["P_10", "ndcg_cut_10", "p_10", "NDCG_CUT_10", "P_IA", "SetP",
                                  "setp", "nDCG", "hits", "ndcg_burges", "official", "all_trec",
                                  "success_5", "iprec_at_recall_0", "relstring", "gm_map"])
def test_a_name_another_dialect_reads_is_refused(name):
    """run.ir.P_10 would be the user's function while evaluate(["P_10"]) and -m P_10 are
    trec_eval's precision under the same column label: such names (in any letter case, as
    the registry's are case-insensitive) are refused, as names and as aliases, and nothing
    is registered."""
    run, qrels = ta.load_example()
    before = set(REGISTRY)
    owners = "(trec_eval|ir_measures|ranx|a built-in)"
    with pytest.raises(ta.ParameterError, match=rf"define: '{name}' is {owners}"):
        define(plain_ap, name)
    with pytest.raises(ta.ParameterError, match=rf"'{name}' is {owners}"):
        define(plain_ap, "dialect_free", aliases=(name,))
    assert set(REGISTRY) == before and not hasattr(run.ir, "dialect_free")
    if name == "P_10":  # what the name means everywhere: trec_eval's P_10
        assert (run.ir.evaluate(qrels, ["P_10"])["P_10"] == run.ir.precision(qrels, k=10)).all()


@pytest.mark.parametrize("name", ["qid", "query_id", "topic", "QID"])
def test_a_qid_column_name_is_refused(name):
    """A metric named like a qid column would replace the result's key column (a Polars
    evaluate gave a frame whose qid column held the metric's values)."""
    with pytest.raises(ta.ParameterError, match="qid column"):
        define(plain_ap, name)
    with pytest.raises(ta.ParameterError, match="qid column"):
        define(plain_ap, "qid_free", aliases=(name,))
    assert "qid_free" not in REGISTRY


def test_a_metric_labelled_like_the_qid_column_is_refused_at_the_call():
    """The call checks it too (a metric registered below define's checks): the result
    would hold two qid columns."""
    from trunc_accessor.metrics.registry import register, unregister

    run, qrels = ta.load_example()
    register("query_id", user=True)(lambda prep, level: np.zeros(prep.n_segments))
    try:
        renamed = run.rename(columns={"qid": "query_id"})
        for library, frame in _frontends(renamed).items():
            with pytest.raises(ta.InputError, match="'query_id' would have the name of the "
                                                    "result's qid column"):
                _values(frame.ir.evaluate(qrels, ["query_id", "ap"]))
    finally:
        unregister("query_id")


ACCESSOR_METHODS = ["evaluate", "truncate", "truncate_at", "cutoff_curve", "optimal_cutoff",
                    "crp", "crp_archetype", "plot_crp", "rbo", "overlap", "fuse", "bounds",
                    "sample_holes", "urisk", "georisk"]


@pytest.mark.parametrize("name", ACCESSOR_METHODS + ["_frame", "_evaluate", "__init__"])
def test_an_accessor_method_name_is_refused_on_every_frontend(name):
    """define / @ta.metric with the name of an accessor method replaced the method on every
    frontend (run.ir.evaluate(...) then raised "TypeError: too many positional arguments");
    it is refused before anything changes, and every frontend's methods still work."""
    run, qrels = ta.load_example()
    frames = _frontends(run)
    with pytest.raises(ta.ParameterError, match="accessor method|starts with a letter"):
        define(plain_ap, name)
    with pytest.raises(ta.ParameterError, match="accessor method|starts with a letter"):
        metric(name)(plain_ap)
    assert name not in REGISTRY
    want = run.ir.ap(qrels)
    for library, frame in frames.items():
        got = _values(frame.ir.evaluate(qrels, ["ap"]))["ap"]
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())


def test_every_accessor_attribute_is_covered():
    """The refused names are every attribute of every frontend's accessor class that is
    not a metric's method."""
    import dask.dataframe as dd

    from trunc_accessor.frontends.methods import accessor_attributes

    run, _ = ta.load_example()
    classes = [type(run.ir), type(pl.from_pandas(run).ir), type(pl.from_pandas(run).lazy().ir),
               type(dd.from_pandas(run, npartitions=1).ir)]
    public = {a for cls in classes for a in dir(cls) if not a.startswith("_")}
    assert public - set(REGISTRY) == set(ACCESSOR_METHODS)
    assert set(ACCESSOR_METHODS) <= accessor_attributes()


def test_unregister_takes_the_method_off_every_frontend():
    """unregister removed the name from the registry but left run.ir.NAME, which went on
    computing the removed metric."""
    from trunc_accessor.metrics.registry import unregister

    run, qrels = ta.load_example()
    define(lambda grades, judged: 1.0, "short_lived")
    frames = _frontends(run)
    assert all(hasattr(f.ir, "short_lived") for f in frames.values())
    unregister("short_lived")
    for library, frame in frames.items():
        assert not hasattr(frame.ir, "short_lived"), library
    with pytest.raises(AttributeError):
        single.short_lived([1])


def _first_grade_over_rank_two(grades, judged):
    """Undefined when the first document is not relevant; else 1 / rank of the second
    relevant document (0 if none)."""
    if len(grades) == 0 or not grades[0] >= 1:
        return float("nan")
    hits = [i for i, g in enumerate(grades, 1) if g >= 1]
    return 1.0 / hits[1] if len(hits) > 1 else 0.0


def test_a_value_undefined_in_some_tie_orders_is_undefined_and_said():
    """A per-ranking function undefined (NaN) in some orders of a tie and defined in others:
    the mean over the orders is undefined (NaN; 0 under undefined="zero"), and an
    UndefinedTieOrderWarning names the rankings. Queries defined in every order keep the
    brute-force mean; those undefined in every order are plainly undefined, unsaid."""
    import pandas as pd

    from tests.reference import tie_orders

    define(_first_grade_over_rank_two, "second_hit")
    try:
        # qid a: tie at the top of a relevant and a non-relevant document (partly undefined);
        # b: relevant document alone first (defined in every order); c: never defined
        run = pd.DataFrame({
            "qid": ["a"] * 3 + ["b"] * 4 + ["c"] * 2,
            "docid": ["a1", "a2", "a3", "b1", "b2", "b3", "b4", "c1", "c2"],
            "score": [2.0, 2.0, 1.0, 3.0, 2.0, 2.0, 2.0, 1.0, 1.0]})
        qrels = pd.DataFrame({"qid": ["a", "a", "b", "b", "b", "c"],
                              "docid": ["a1", "a3", "b1", "b3", "b4", "c1"],
                              "rel": [1, 1, 1, 1, 0, 0]})
        grades = {"a": [1, 0, 1], "b": [1, 0, 1, 0], "c": [0, 0]}
        scores = {q: run.loc[run.qid == q, "score"].tolist() for q in grades}
        brute = {q: [_first_grade_over_rank_two(np.asarray(o, float), None)
                     for o in tie_orders(grades[q], scores[q])] for q in grades}
        assert 0 < sum(map(math.isnan, brute["a"])) < len(brute["a"])
        assert not any(map(math.isnan, brute["b"])) and all(map(math.isnan, brute["c"]))
        with pytest.warns(ta.UndefinedTieOrderWarning, match=r"1 ranking\(s\).*qid='a'") as rec:
            nan = run.ir.second_hit(qrels, undefined="nan")
        assert len([w for w in rec if w.category is ta.UndefinedTieOrderWarning]) == 1
        assert math.isnan(nan["a"]) and math.isnan(nan["c"])
        assert nan["b"] == pytest.approx(math.fsum(brute["b"]) / len(brute["b"]), abs=1e-15)
        with pytest.warns(ta.UndefinedTieOrderWarning, match="0 under undefined='zero'"):
            zero = run.ir.second_hit(qrels)
        assert zero["a"] == 0.0 and zero["c"] == 0.0 and zero["b"] == nan["b"]
        # one order: no tie to average, nothing to say
        with warnings.catch_warnings():
            warnings.simplefilter("error", ta.UndefinedTieOrderWarning)
            first = run.ir.second_hit(qrels, ties="first", undefined="nan")
        assert first["a"] == pytest.approx(1 / 3)  # a1 (relevant) first, a3 at rank 3
    finally:
        from trunc_accessor.metrics.registry import unregister

        unregister("second_hit")


def test_too_many_tie_orders_is_refused_before_any_work_and_fast():
    """100,000 tied documents of two grades: refused in well under a second (the count of
    orders stops once past 10,000; it formed factorials of the whole group, 6.5 s), before
    the function runs on any ranking."""
    import time

    import pandas as pd

    calls = []
    define(lambda grades, judged: calls.append(1) or 1.0, "counted")
    try:
        n = 100_000
        big = pd.DataFrame({"qid": "2", "docid": [f"d{i}" for i in range(n)], "score": 1.0})
        small = pd.DataFrame({"qid": "1", "docid": ["x"], "score": 1.0})
        run = pd.concat([small, big])  # the small ranking comes first
        qrels = pd.DataFrame({"qid": ["1", "2", "2"], "docid": ["x", "d0", "d1"],
                              "rel": [1, 1, 0]})
        start = time.perf_counter()
        with pytest.raises(ta.ParameterError, match=r"qid='2' has more than 10,000"):
            run.ir.counted(qrels)
        assert time.perf_counter() - start < 1.5
        assert calls == []  # refused before the function ran on qid 1
        # at the budget's edge: C(n, 1) orders for one relevant among n tied documents
        from trunc_accessor.metrics.user import _distinct_orders

        assert _distinct_orders(np.array([1.0] + [0.0] * 9_999), 10_000) == 10_000
        assert _distinct_orders(np.array([1.0] + [0.0] * 10_000), 10_000) == 10_001
        assert _distinct_orders(np.array([1.0, 1.0, 0.0, 0.0, np.nan]), 10_000) == \
            math.factorial(5) // (2 * 2)
    finally:
        from trunc_accessor.metrics.registry import unregister

        unregister("counted")
