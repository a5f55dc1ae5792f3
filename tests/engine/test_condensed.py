"""Condensed lists (Sakai 2007; trec_eval -J) for every measure of the registry: the call's
``judged_only=True``, a measure's own ``judged_only`` (ir_measures' spelling) and the
single-ranking functions' ``judged_only=`` all equal the measure on a run condensed by hand
(its rows without a judgment of grade ≥ 0 dropped), and agree with ir_measures where it
offers ``judged_only=True``."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, need
from trunc_accessor.metrics.parse import parse
from trunc_accessor.metrics.registry import REGISTRY

TE = DATA / "trec_eval"


def _adhoc_spellings() -> list[str]:
    out = []
    for name, metric in sorted(REGISTRY.items()):
        if metric.subtopics or metric.user:
            continue
        out.append(name)
        if any(p.name == "k" for p in metric.params):
            out.append(f"{name}@10")
    return out


ADHOC = _adhoc_spellings()
DIVERSITY = sorted(f"{n}@10" if any(p.name == "k" for p in m.params) else n
                   for n, m in REGISTRY.items() if m.subtopics and not m.user)


def _hand_condensed(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    judged = qrels.loc[qrels["rel"] >= 0, ["qid", "docid"]].drop_duplicates()
    return run.merge(judged, on=["qid", "docid"])[run.columns]


def _three_ways(run, qrels, spellings, ties):
    """The call's judged_only, the measures' own, and the hand-condensed run."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = run.ir.evaluate(qrels, spellings, judged_only=True, ties=ties)
        by_hand = _hand_condensed(run, qrels).ir.evaluate(qrels, spellings, ties=ties)
        own = run.ir.evaluate(qrels, [parse(s).condensed() for s in spellings] + spellings,
                              names="canonical", ties=ties)
    return whole, by_hand, own


def _order_free(run, qrels, spelling) -> bool:
    """Whether the measure takes ties="average" on these rankings (some have no closed
    form for ties of mixed grades and refuse)."""
    try:
        run.ir.evaluate(qrels, [spelling], ties="average")
    except ta.ParameterError:
        return False
    return True


@pytest.fixture(scope="module")
def adhoc():
    """trec_eval's run (three topics, 500 documents each) against its qrels graded −1 to 2
    (−1: in the pool, not judged), cut to the top 100, with ties added (scores rounded);
    every measure in trec_eval's order of ties, and those that take it tie-averaged."""
    run = ta.read_run(need(TE / "results.test"))
    run = run[run.groupby("qid").cumcount() < 100].assign(score=lambda f: f["score"].round(1))
    qrels = ta.read_qrels(need(TE / "qrels.rel_level"))
    averaged = [s for s in ADHOC if _order_free(run, qrels, s)]
    return (run, qrels, {"trec_eval": _three_ways(run, qrels, ADHOC, "trec_eval"),
                         "average": _three_ways(run, qrels, averaged, "average")})


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
@pytest.mark.parametrize("spelling", ADHOC)
def test_judged_only_equals_the_hand_condensed_run(adhoc, spelling, ties):
    whole, by_hand, own = adhoc[2][ties]
    if spelling not in whole:
        pytest.skip(f"{spelling} refuses ties='average' on ties of mixed grades")
    np.testing.assert_allclose(whole[spelling], by_hand[spelling], rtol=1e-12, atol=1e-12)
    label = parse(spelling).condensed().label
    np.testing.assert_allclose(own[label], by_hand[spelling], rtol=1e-12, atol=1e-12)


def test_the_condensed_run_differs_from_the_full_one(adhoc):
    """The fixture exercises condensation: some measures change when it is applied."""
    run, qrels, ways = adhoc
    whole = ways["trec_eval"][0]
    full = run.ir.evaluate(qrels, ADHOC, ties="trec_eval")
    assert (~np.isclose(full, whole)).any(axis=0).sum() >= 20


@pytest.mark.parametrize("spelling", DIVERSITY)
def test_judged_only_of_diversity_measures_equals_the_hand_condensed_run(spelling):
    runs, qrels = ta.load_example("web2012", depth=20)
    judged = qrels.groupby(["qid", "docid"], as_index=False)["rel"].max()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = runs.ir.evaluate(qrels, [spelling], by="system", judged_only=True)
        own = runs.ir.evaluate(qrels, [parse(spelling).condensed()], by="system",
                               names="canonical")
        by_hand = _hand_condensed(runs, judged).ir.evaluate(qrels, [spelling], by="system")
    np.testing.assert_allclose(whole[spelling], by_hand[spelling].reindex(whole.index),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(own.iloc[:, 0], whole[spelling], rtol=1e-12, atol=1e-12)


def test_judged_only_agrees_on_every_frontend(adhoc):
    import dask.dataframe as dd

    run, qrels, ways = adhoc
    whole = ways["trec_eval"][0]
    prun, pqrels = pl.from_pandas(run), pl.from_pandas(qrels)
    kw = {"judged_only": True, "ties": "trec_eval"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        polars = prun.ir.evaluate(pqrels, ADHOC, **kw)
        lazy = prun.lazy().ir.evaluate(pqrels, ADHOC, **kw).collect()
        dask = dd.from_pandas(run, npartitions=2).ir.evaluate(qrels, ADHOC, **kw).compute()
    for other in (polars.to_pandas().set_index("qid"), lazy.to_pandas().set_index("qid"),
                  dask.sort_index()):
        np.testing.assert_allclose(other[ADHOC].to_numpy(), whole[ADHOC].to_numpy(),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", [n for n, m in sorted(REGISTRY.items())
                                  if not m.subtopics and not m.user])
def test_single_ranking_judged_only_equals_the_accessor(adhoc, name):
    """One topic's ranking as grades (None: unjudged), against the accessor on that topic
    alone (so the largest grade, which some measures read, is the topic's)."""
    from trunc_accessor.frontends import single

    run, qrels = adhoc[0], adhoc[1]
    ranking = run[run["qid"] == "303"].sort_values(["score", "docid"], ascending=False)
    judged = qrels[qrels["qid"] == "303"]
    grades = ranking["docid"].map(judged.set_index("docid")["rel"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = getattr(single, name)(
            [None if np.isnan(g) else g for g in grades], scores=ranking["score"].tolist(),
            qrels_grades=judged["rel"].tolist(), judged_only=True, ties="first")
        expected = ranking.ir.evaluate(judged, [name], judged_only=True, ties="trec_eval")
    assert value == pytest.approx(expected.loc["303", name], rel=1e-12, abs=1e-12)


IRM = ["P@10", "P(rel=2)@5", "AP", "AP@100", "nDCG@10", "nDCG", "R@100", "RR", "Rprec",
       "SetP", "SetF", "SetAP", "Success@10", "IPrec@0.2"]
# (its diversity measures offer judged_only=True too, but its pyndeval provider fails on it,
# whatever the run's form: they are checked against the hand-condensed run above)


def test_per_measure_judged_only_equals_ir_measures():
    """ir_measures' ``judged_only=True`` (its pytrec_eval provider) on the measures that
    offer it, on graded qrels with a grade −2 (spam)."""
    irm = pytest.importorskip("ir_measures")
    runs, qrels = ta.load_example("web2012", depth=20)
    run = runs[runs["system"] == "ql-cata"].drop(columns="system")
    names = [n.replace("@", "(judged_only=True)@", 1) if "@" in n and "(" not in n
             else n.replace(")", ",judged_only=True)") if "(" in n
             else f"{n}(judged_only=True)" for n in IRM]
    irm_qrels = qrels.rename(columns={"qid": "query_id", "docid": "doc_id",
                                      "rel": "relevance", "subtopic": "iteration"})
    irm_run = run.rename(columns={"qid": "query_id", "docid": "doc_id"})
    expected = {(str(m), r.query_id): r.value for m_name in names
                for m in [irm.parse_measure(m_name)]
                for r in irm.iter_calc([m], irm_qrels, irm_run)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = run.ir.evaluate(qrels, names, like="ir_measures")
        full = run.ir.evaluate(qrels, IRM, like="ir_measures")
    assert (~np.isclose(ours.to_numpy(), full.to_numpy())).any(axis=0).sum() >= 5
    checked = 0
    for name in names:
        measure = str(irm.parse_measure(name))
        for qid, value in ours[name].items():
            if (measure, qid) in expected:
                assert value == pytest.approx(expected[(measure, qid)], abs=1e-9), (name, qid)
                checked += 1
    assert checked >= len(names) * 5


def test_judged_only_is_a_measure_parameter_in_every_spelling_and_label(adhoc):
    """``ndcg@10(judged_only=True)`` (ours), ``nDCG(judged_only=True)@10`` (ir_measures')
    and the canonical label, which parses back to the same measure."""
    run, qrels, ways = adhoc
    whole = ways["trec_eval"][0]
    res = run.ir.evaluate(qrels, ["ndcg@10(judged_only=True)", "nDCG(judged_only=True)@10",
                                  ("rbp", {"p": 0.5})], ties="trec_eval")
    np.testing.assert_array_equal(res["ndcg@10(judged_only=True)"], whole["ndcg@10"])
    np.testing.assert_array_equal(res["nDCG(judged_only=True)@10"], whole["ndcg@10"])
    label = parse("nDCG(judged_only=True)@10").label
    assert label == "ndcg@10(judged_only=True)" and parse(label) == parse("ndcg@10").condensed()
    with pytest.raises(ta.ParameterError, match="judged_only must be True or False"):
        run.ir.evaluate(qrels, ["ndcg@10(judged_only=1)"])
