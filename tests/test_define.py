"""User-defined metrics (trunc_accessor.define): one declaration gives the accessor method
(pandas, Polars, lazy), the evaluate string with parameters, the single-ranking function and
parameter checks; a per-ranking function is averaged exactly over tie orders."""
from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from trunc_accessor import single
from trunc_accessor.registry import REGISTRY
from trunc_accessor.user_metrics import define, metric

from .strategies import frames_of, random_queries


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
            from trunc_accessor.registry import unregister
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
