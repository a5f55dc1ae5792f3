"""One place per metric: a metric's ``register(...)`` declares its names in ir_measures',
ranx' and trec_eval's dialects, its summary over queries and its prefix kernel, and the
parsers' tables, trec_eval's measure table and ``cutoff_curve`` are built from it."""
from __future__ import annotations

import numpy as np
import pytest

import trunc_accessor as ta
from trunc_accessor.engine import evaluation as engine
from trunc_accessor.engine import truncation
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics import names, prefix, standard, trec_dialect
from trunc_accessor.metrics.dialects import Spelling, TrecName
from trunc_accessor.metrics.params import K
from trunc_accessor.metrics.registry import REGISTRY, register, unregister

BUILTIN = sorted(name for name, m in REGISTRY.items() if not m.user)
# ir_measures' RBP without rel= is trectools' reading (the grades as gains, trectools_rbp):
# the library's rbp is ir_measures' RBP with a relevance level
IRM_FORMS = {"RBP": "RBP(rel=1)"}


def _one(spec, trec=False):
    found = names.parse_named(spec, trec)
    assert len(found) == 1, (spec, found)
    return found[0]


@pytest.mark.parametrize("name", BUILTIN)
def test_every_declared_dialect_name_parses_to_its_metric(name):
    """Each name a metric declares reads, through the parser users call (``evaluate``'s),
    as that metric with the parameters the name implies, summarised as declared."""
    metric = REGISTRY[name]
    own = {p.name for p in metric.params}
    for s in metric.ir_measures:
        at = s.at if s.at in own else None
        value = 0.5 if at == "recall" else 5
        spec = IRM_FORMS.get(s.name, s.name) + (f"@{value}" if at else "")
        named = _one(spec)
        want = metric.measure(**dict(s.fixed), **({at: value} if at else {}))
        assert named.measure is not None
        assert (named.measure.metric, named.measure.params) == (want.metric, want.params), spec
        assert named.summary == metric.aggregate, spec
    for s in metric.ranx:
        spec = s.name + ("@5" if "k" in own else "")
        named = _one(spec)
        want = metric.measure(**dict(s.fixed), **({"k": 5} if "k" in own else {}))
        assert named.measure == want, spec
    for t in metric.trec_eval:
        found = names.parse_named(t.name, trec=True)
        assert [n.measure.metric.name for n in found if n.measure] == [name] * len(found), t
        assert {n.summary for n in found} == {t.summary or metric.aggregate}, t
        if t.kind == "cutoffs":  # trec_eval prints name_k: that name reads back
            assert [n.label for n in found] == [f"{t.name}_{v}" for v in sorted(t.default)]
            for n in found:
                assert _one(n.label).measure == n.measure


def test_trec_eval_table_is_every_declared_name_in_trec_eval_order():
    """trec_eval's measure table (measures.c order) holds every name the metrics declare,
    and its groups name only measures of the table."""
    declared = {t.name for m in REGISTRY.values() for t in m.trec_eval}
    table = [m.name for m in trec_dialect.table()]
    assert set(table) == declared | set(trec_dialect.PRINTED)
    assert table == list(trec_dialect.TREC_ORDER)  # the library declares each, in order
    for group in trec_dialect.GROUPS.values():
        assert set(group) <= set(table)


def test_counts_are_summed_as_declared():
    """The counts declare aggregate="sum" (trec_eval sums num_ret, num_rel, …; sample_eval.pl
    its estimated counts inum_rel, inum_rel_ret; statAP's estimated R̂ likewise); the rest
    are averaged, gm_map and gm_bpref by the geometric mean their trec_eval name declares."""
    summed = {name for name, m in REGISTRY.items() if m.aggregate == "sum"}
    assert summed == {"num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret",
                      "inum_rel", "inum_rel_ret", "stat_num_rel"}
    for label, want in [("num_ret", "sum"), ("NumRelRet", "sum"),
                        ("map", "mean"), ("gm_map", "gmean"), ("gm_bpref", "gmean")]:
        assert names.summary_of_label(label) == want, label


def _relevant_retrieved(prep, level, k=None):
    """Relevant documents among the first k (a tie group counts its mean relevance)."""
    return standard.relevant_retrieved(prep, level, k)


def _relevant_retrieved_prefix(cuts, level, k=None):
    CALLS.append(len(cuts))
    return cuts.relevant_retrieved(level, k)


CALLS: list[int] = []


@pytest.fixture
def declared():
    """A metric declared with every dialect keyword, unregistered afterwards."""
    register("test_hits", params=(K,), user=True, ir_measures=("TestHits", "TH"),
             ranx=Spelling("test_hits_rx"), trec_eval=TrecName("test_hits", "cutoffs", "k",
                                                                  (5, 10)),
             aggregate="sum", prefix=_relevant_retrieved_prefix)(_relevant_retrieved)
    CALLS.clear()
    try:
        yield REGISTRY["test_hits"]
    finally:
        unregister("test_hits")


def test_a_declared_metric_is_found_by_every_dialect_and_the_prefix_machinery(declared):
    """A metric declared with ir_measures=, ranx=, trec_eval=, aggregate= and prefix= is
    read by each dialect's names (relevant retrieved at 5 = 5 · P@5, pytrec_eval's P_5),
    summed over queries, and scored at every cut-off by its prefix kernel; unregistering it
    takes every name away."""
    import pytrec_eval

    run, qrels = ta.load_example()
    run = run[run["system"] == run["system"].iloc[0]]
    specs = ["TestHits@5", "TH@5", "test_hits_rx@5", "test_hits_5", "test_hits@5"]
    got = run.ir.evaluate(qrels, specs, ties="trec_eval")
    q = {str(k): {str(d): int(r) for d, r in zip(g["docid"], g["rel"])}
         for k, g in qrels.groupby("qid")}
    r = {str(k): {str(d): float(s) for d, s in zip(g["docid"], g["score"])}
         for k, g in run.groupby("qid")}
    want = pytrec_eval.RelevanceEvaluator(q, {"P_5"}).evaluate(r)
    for spec in specs:
        for qid, value in got[spec].items():
            assert value == pytest.approx(5 * want[str(qid)]["P_5"], abs=1e-12), spec
    summed = [s for s in specs if s != "test_hits_rx@5"]  # ranx' names keep their mean
    assert {n.summary for s in summed for n in names.parse_named(s)} == {"sum"}
    assert [n.label for n in names.parse_named("test_hits", trec=True)] == ["test_hits_5",
                                                                           "test_hits_10"]

    prep = engine.prepare_call(run, qrels, ties="average")[0]
    measure = declared.measure(k=5)
    curve = truncation.curve(prep, measure, 1.0, undefined="nan")
    assert CALLS == [curve.height]  # one call of the prefix kernel for every cut-off
    assert prefix.for_metric(declared) is _relevant_retrieved_prefix
    segs, depths = prep.cut_points(None)
    rescored = truncation.rescored_values(prep, measure, 1.0, segs, depths, prep.keys[segs])
    np.testing.assert_allclose(curve["value"].to_numpy(), rescored, rtol=1e-12, atol=1e-14)

    unregister("test_hits")
    try:
        for spec in specs:
            with pytest.raises(ParameterError):
                names.parse_named(spec)
        assert "test_hits" not in trec_dialect.by_name()
        assert "TestHits" not in names.ir_measures_table()
    finally:  # the fixture unregisters it again
        register("test_hits", params=(K,), user=True)(_relevant_retrieved)


def test_a_dialect_name_belongs_to_one_metric():
    """A name another metric declares in that dialect is refused at declaration."""
    for taken in [dict(ir_measures="AP"), dict(ranx="mrr"), dict(trec_eval="map")]:
        with pytest.raises(RuntimeError, match="is 'ap'|is 'rr'"):
            register("test_taken", user=True, **taken)(_relevant_retrieved)
        assert "test_taken" not in REGISTRY


def test_an_alias_belongs_to_one_metric():
    """register gave an alias that already named another metric to the new one (any
    letter case), silently: "map" would have computed the new metric instead of AP."""
    from trunc_accessor.metrics.registry import get_metric

    for alias in ["map", "MAP", "Ndcg"]:
        with pytest.raises(RuntimeError, match="is 'ap'|is 'ndcg'"):
            register("test_taken", aliases=(alias,), user=True)(_relevant_retrieved)
        assert "test_taken" not in REGISTRY
    assert get_metric("map").name == "ap" and get_metric("ndcg").name == "ndcg"


@pytest.mark.parametrize("bad, match", [
    (dict(aggregate="median"), "aggregate must be 'mean' or 'sum'"),
    (dict(prefix="ap"), "prefix must be a function"),
    (dict(ir_measures=3), "Spelling or its name"),
])
def test_bad_declarations_are_refused(bad, match):
    with pytest.raises(ParameterError, match=match):
        register("test_bad", user=True, **bad)(_relevant_retrieved)
    assert "test_bad" not in REGISTRY
    with pytest.raises(ParameterError, match="kind must be one of"):
        TrecName("test_bad", "ladder")
    with pytest.raises(ParameterError, match="summary must be one of"):
        TrecName("test_bad", summary="median")
