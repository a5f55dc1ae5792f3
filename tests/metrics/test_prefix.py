"""Prefix kernels (trunc_accessor/metrics/prefix.py): ``cutoff_curve`` and
``optimal_cutoff`` in one pass per metric.

Oracles: every prefix rescored by the metric's own kernel (``truncation.rescored_values``,
the previous implementation of the curves, kept as the fallback), for every metric with a
prefix kernel and every tie mode, on random runs with ties and on the shipped collections;
and, for a selection, naive one-ranking definitions averaged over every tie order
(tests/reference*.py). ERR′, RBU and the RBP residual on the judged tie groups are checked
against their previous implementations (tests/reference_previous.py) and brute force."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference as ref
from tests import reference_cascade as refc
from tests import reference_previous as prev
from tests import reference_utility as refu
from tests.engine.test_truncation import _naive_curve
from tests.strategies import frames_of, random_queries
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine import truncation
from trunc_accessor.metrics import cascade, cascade_utility, prefix, rbp
from trunc_accessor.metrics.registry import REGISTRY

TIES = ("average", "first", "trec_eval", "trec_eval9")

# parameter sets per metric with a prefix kernel: defaults, cut-offs that fall inside tie
# groups, graded gains, max_grade above the qrels' largest grade (3), the terminal depth=
PARAMS = {
    "precision": [{}, {"k": 1}, {"k": 3}], "recall": [{}, {"k": 2}], "f1": [{}, {"k": 3}],
    "success": [{}, {"k": 1}, {"k": 3}], "ap": [{}, {"k": 3}], "rr": [{}, {"k": 2}],
    "dcg": [{}, {"k": 3, "gains": "exponential"}, {"log_base": 10.0, "min_grade": 2}],
    "ndcg": [{}, {"k": 3, "gains": {1: 0.5, 3: 10}}, {"min_grade": 2}],
    "rprec": [{}], "bpref": [{}],
    "rbp": [{}, {"p": 0.5, "graded": True}, {"graded": True, "max_grade": 5}],
    "rbp_residual": [{}, {"p": 0.3}, {"p": 0.99}],
    "rr_prime": [{}, {"depth": 3}],
    "rbp_prime": [{}, {"p": 0.5, "graded": True, "depth": 4}],
    "ndcg_prime": [{}, {"graded": True, "depth": 3}],
    "ap_prime": [{}, {"graded": True, "max_grade": 4, "depth": 2}],
    "err": [{}, {"k": 3, "max_grade": 4}],
    "err_prime": [{}, {"graded": True, "depth": 3}],
    "rbu": [{}, {"p": 0.5, "e": 0.1, "max_grade": 4}], "erru": [{}, {"e": 0.2}],
    "flat_utility": [{}, {"graded": True, "e": 0.3}], "dcgu": [{}, {"graded": True}],
    "rbpu": [{}, {"p": 0.5, "graded": True}], "f_measure": [{}],
    "num_ret": [{}], "num_q": [{}], "num_rel": [{}], "num_rel_ret": [{}, {"k": 2}],
    "num_nonrel_judged_ret": [{}], "judged": [{}, {"k": 3}], "unjudged": [{}, {"k": 3}],
    "set_precision": [{}], "set_recall": [{}], "set_f": [{}, {"beta": 4.0}], "set_ap": [{}],
    "set_relative_precision": [{}], "relative_precision": [{}, {"k": 2}],
    "rprec_mult": [{}, {"mult": 0.5}, {"mult": 2.0}],
    "utility": [{}, {"a": 2, "b": -0.5, "c": 1, "d": 0.25, "collection_size": 20}],
    "binary_g": [{}], "trec_rbp": [{}, {"p": 0.5, "gains": {1: 3, 2: -1}}],
    "trec_rbp_residual": [{}],
}


def _prepared(run, qrels, ties, **kw):
    with warnings.catch_warnings():  # random runs may retrieve no judged document
        warnings.simplefilter("ignore", ta.TruncAccessorWarning)
        return engine.prepare_call(run, qrels, ties=ties, **kw)[0]


def _assert_same_curves(prep, level, max_depth, names=None):
    """Every measure's curve by its prefix kernel equals every prefix rescored."""
    segs, depths = prep.cut_points(max_depth)
    keys = prep.keys[segs]
    for name in names or PARAMS:
        for params in PARAMS[name]:
            m = REGISTRY[name].measure(**params)
            assert prefix.for_metric(m.metric) is not None, name
            new = truncation.curve(prep, m, level, max_depth, undefined="nan")
            assert new["depth"].to_list() == depths.tolist()
            got = new["value"].to_numpy()
            want = truncation.rescored_values(prep, m, level, segs, depths, keys)
            where = f"{m.label}, ties={prep.ties}, level={level}, max_depth={max_depth}"
            assert np.array_equal(np.isnan(got), np.isnan(want)), where
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=where)


def test_every_prefix_kernel_is_tested_and_the_fallback_list_is_true():
    builtin = {name for name, m in REGISTRY.items() if not m.user}
    with_kernel = {name for name in builtin if prefix.for_metric(REGISTRY[name]) is not None}
    assert with_kernel == set(PARAMS)  # every prefix kernel is checked below
    assert set(prefix.FALLBACK) <= builtin - with_kernel  # the documented list is true


@settings(max_examples=40, deadline=None)
@given(queries=random_queries(max_len=8), ties=st.sampled_from(TIES),
       level=st.sampled_from([1, 2]), max_depth=st.sampled_from([None, None, 1, 3, 5]))
def test_prefix_kernels_equal_every_prefix_rescored(queries, ties, level, max_depth):
    run, qrels = frames_of(queries, rng=np.random.default_rng(len(queries)))
    prep = _prepared(run, qrels, ties, queries=[q[0] for q in queries])
    _assert_same_curves(prep, level, max_depth)


@pytest.fixture(scope="module")
def real_runs():
    """Cranfield (seven systems, ties kept, graded qrels) on two queries and robust03's run
    (1,000 documents a topic, binary qrels) on two topics, as one run with a system column."""
    runs, qrels = ta.load_example("cranfield")
    runs = runs[runs.qid.isin(runs.qid.unique()[:2])]
    robust, robust_qrels = ta.load_example("robust03")
    robust = robust[robust.qid.isin(robust.qid.unique()[:2])].assign(system="uic0301")
    both = [(runs, qrels, "c"), (robust, robust_qrels, "r")]
    run = pd.concat([r.assign(qid=tag + r.qid) for r, _, tag in both], ignore_index=True)
    qrels = pd.concat([q.assign(qid=tag + q.qid) for _, q, tag in both], ignore_index=True)
    return run, qrels


@pytest.mark.parametrize("ties", TIES)
def test_prefix_kernels_on_real_collections(real_runs, ties):
    """Every metric, every cut-off to depth 150, as the rescored prefixes."""
    run, qrels = real_runs
    prep = _prepared(run, qrels, ties, by="system")
    _assert_same_curves(prep, 2, 150)


# naive definitions averaged over every tie order (tests/reference*.py); max_grade=3 is the
# qrels' largest possible grade, given to both sides
NAIVE = [
    ("recall@2", lambda r, j, lv: ref.recall(r, j, lv, k=2)),
    ("success@2", lambda r, j, lv: ref.success(r, j, lv, k=2)),
    ("rr", ref.rr), ("dcg", ref.dcg), ("ndcg@3", lambda r, j, lv: ref.ndcg(r, j, lv, k=3)),
    ("rprec", ref.rprec), ("bpref", ref.bpref),
    ("rbp_residual(p=0.5)", lambda r, j, lv: ref.rbp_residual(r, j, lv, p=0.5)),
    ("err(max_grade=3)", lambda r, j, lv: refc.err(r, j, lv, max_grade=3)),
    ("err_prime(max_grade=3)", lambda r, j, lv: refc.err_prime(r, j, lv, max_grade=3)),
    ("rbu(max_grade=3,p=0.5)", lambda r, j, lv: refc.rbu(r, j, lv, p=0.5, max_grade=3)),
    ("erru(max_grade=3)", lambda r, j, lv: refc.erru(r, j, lv, max_grade=3)),
    ("flat_utility", refu.flat_utility), ("dcgu", refu.dcgu), ("rbpu", refu.rbpu),
    ("f_measure", refu.f_measure),
]


@settings(max_examples=20, deadline=None)
@given(queries=random_queries(grades=st.sampled_from([None, 0, 1, 2, 3]), max_len=6,
                               max_extra=2, sort_scores=True),
       ties=st.sampled_from(["average", "first"]))
def test_curves_equal_naive_prefix_evaluation_over_tie_orders(queries, ties):
    run, qrels = frames_of(queries)
    qids = [q[0] for q in queries]
    for spec, fn in NAIVE:
        curve = run.ir.cutoff_curve(qrels, spec, ties=ties, queries=qids, undefined="nan")
        for qid, grades, scores, extra in queries:
            judged = [g for g in grades if g is not None] + extra
            want = _naive_curve(fn, grades, scores, judged, 1, ties)
            got = curve[curve.qid == qid].set_index("depth")["value"]
            assert list(got.index) == list(want), (spec, qid)
            for d, v in want.items():
                assert (math.isnan(v) and math.isnan(got[d])) or \
                    got[d] == pytest.approx(v, rel=1e-9, abs=1e-12), (spec, qid, d)


@settings(max_examples=60, deadline=None)
@given(queries=random_queries(max_len=10, max_score=4), ties=st.sampled_from(TIES),
       level=st.sampled_from([1, 2]), p=st.sampled_from([0.1, 0.5, 0.8, 0.999]),
       e=st.sampled_from([0.0, 0.05]), graded=st.booleans(),
       max_grade=st.sampled_from([None, 3, 6]), depth=st.sampled_from([None, 2]))
def test_judged_part_kernels_equal_their_previous_implementations(queries, ties, level, p, e,
                                                                  graded, max_grade, depth):
    """ERR′ and RBU on the tie groups holding a judged document, and the RBP residual in
    closed form over the judged groups, as the previous full-ranking kernels."""
    run, qrels = frames_of(queries, rng=np.random.default_rng(0))
    prep = _prepared(run, qrels, ties, queries=[q[0] for q in queries])
    pairs = [
        (cascade.err_prime(prep, level, graded, max_grade, depth),
         prev.err_prime(prep, level, graded, max_grade, depth)),
        (cascade_utility.rbu(prep, level, p, e, max_grade), prev.rbu(prep, level, p, e, max_grade)),
        (rbp.rbp_residual(prep, level, p), prev.rbp_residual(prep, level, p)),
    ]
    for got, want in pairs:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_rbp_residual_in_closed_form_keeps_tiny_residuals():
    """A fully judged ranking leaves p^n, however small (no 1 − Σ cancellation); an
    unjudged run of documents between judged ones is weighed as brute force does."""
    from trunc_accessor import single

    assert single.rbp_residual([1] * 300, p=0.5) == 0.5 ** 300
    grades = [1, None, None, 0, None, -1, 2] + [None] * 50 + [0]
    want = ref.rbp_residual(grades, [], 1, p=0.9)
    assert single.rbp_residual(grades, p=0.9) == pytest.approx(want, rel=1e-14)


def test_fallback_metrics_still_give_their_curves():
    """A metric without a prefix kernel is scored by rescoring every prefix (the same
    frame as before); the oracle: that metric evaluated on the truncated runs."""
    run, qrels = ta.load_example()
    curve = run.ir.cutoff_curve(qrels, "infap", max_depth=12, ties="first")
    for d in (0, 5, 12):
        cut = run.ir.truncate(d)
        want = cut.ir.infap(qrels, ties="first", queries=["301", "302", "303"])
        got = curve[curve.depth == d].set_index("qid")["value"]
        assert np.allclose(got.loc[want.index].to_numpy(), want.to_numpy())
