"""Every measure in ir_measures' registry (0.4.3) parses here and, outside the diversity
family, equals ir_measures' value per query on a Cranfield run and a TREC 2012 Web track
run, each with thousands of score ties, in the tie order of the ir_measures provider that
computes it:

* pytrec_eval (AP, nDCG, P, R, RR, Rprec, Bpref, Success, Set*, infAP, IPrec, Num*): score
  descending, float32 scores, docid descending: ``ties="trec_eval9"``;
* cwl_eval (RBP with rel=; the C/W/L measures, tests/metrics/test_user_models.py): the run's own
  order among equal scores: ``ties="first"``;
* msmarco (RR@k), judged (Judged@k), compat (Compat): docid ascending among equal scores: the
  frame sorted so, with ``ties="first"``;
* gdeval (ERR, nDCG(dcg='exp-log2')): printed with 5 decimals, compared to 6e-6 (half a unit
  of the last digit, and a value at the half that Perl rounded down).

The C/W/L measures and Accuracy are checked in tests/metrics/test_user_models.py. The diversity
measures (alpha_nDCG, ERR_IA, NRBP, P_IA, AP_IA, StRecall, …) read subtopic qrels and are
checked with the diversity family.
"""
from __future__ import annotations

import logging

import pandas as pd
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, need
from trunc_accessor.metrics import names

irm = pytest.importorskip("ir_measures")
logging.getLogger("ir_measures").setLevel(logging.ERROR)

DIVERSITY = {"ERR_IA", "nERR_IA", "alpha_DCG", "α_DCG", "alpha_nDCG", "α_nDCG", "NRBP", "nNRBP",
             "AP_IA", "MAP_IA", "P_IA", "StRecall"}
CWL_AND_ACCURACY = {"INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11",
                    "Accuracy"}

PYTREC = ["AP", "AP@100", "AP(rel=2)", "nDCG@10", "nDCG", "P@10", "P(rel=2)@5", "R@100", "RR",
          "Rprec", "Bpref", "Success@10", "SetP", "SetRelP", "SetR", "SetF", "SetAP", "infAP",
          "IPrec@0.2", "NumRet", "NumRel", "NumRelRet", "NumQ"]
DOCID_ASC = ["RR@10", "Judged@10", "Compat(p=0.95)"]
CWL_RBP = ["RBP(rel=1)", "RBP(p=0.5,rel=2)"]
GDEVAL = ["ERR@20", "nDCG(dcg='exp-log2')@20"]


def test_every_registry_name_parses():
    """Each name of ir_measures' registry is a name here (the diversity ones once their
    family is in)."""
    registry = set(irm.measures.registry)
    assert CWL_AND_ACCURACY <= registry and DIVERSITY <= registry
    missing = registry - set(names.ir_measures_table()) - DIVERSITY
    assert not missing, missing


def _frames(run, qrels):
    return (run.rename(columns={"qid": "query_id", "docid": "doc_id"})[
                ["query_id", "doc_id", "score"]],
            qrels.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance"}))


def _compare(run: pd.DataFrame, qrels: pd.DataFrame, specs, ties, tol, where, queries=None):
    if queries is not None:
        run = run[run["qid"].isin(queries)]
        qrels = qrels[qrels["qid"].isin(queries)]
    irr, irq = _frames(run, qrels)
    want = {(str(m.measure), m.query_id): m.value
            for m in irm.iter_calc([irm.parse_measure(s) for s in specs], irq, irr)}
    got = run.ir.evaluate(qrels, specs, ties=ties)
    assert len(want) == len(specs) * run["qid"].nunique(), where
    for spec in specs:
        name = str(irm.parse_measure(spec))
        for qid, value in got[spec].items():
            assert value == pytest.approx(want[(name, str(qid))], abs=tol, rel=0), (where, spec,
                                                                                   qid)


def _check(run, qrels, where, few, shift=0.0):
    ascending = run.sort_values(["qid", "score", "docid"], ascending=[True, False, True],
                                kind="stable").assign(score=lambda r: r["score"] + shift)
    _compare(run, qrels, PYTREC, "trec_eval9", 1e-9, where)
    _compare(run, qrels, CWL_RBP, "first", 1e-9, where)
    _compare(ascending, qrels, DOCID_ASC, "first", 1e-9, where, few)  # pure Python: slow
    _compare(run, qrels, GDEVAL, "first", 6e-6, where, few)  # Perl; 5 decimals, ties at half


def test_cranfield(cranfield):
    runs, qrels = cranfield
    run = runs[runs["system"] == "bm25_title"][["qid", "docid", "score"]]  # 8,618 tied rows
    _check(run, qrels, "bm25_title", sorted(run["qid"].unique())[:60])


def test_web_track():
    """ql-cata: 3,741 rows tied on score. Indri's scores are negative: ir_measures' Compat
    gives a relevant document the run did not retrieve the score 0, which puts it ahead of
    every retrieved one in its ideal ranking, so Compat (and RR@10, Judged@10 with it) is
    compared on the scores shifted above 0, which keeps their order."""
    qrels = ta.read_qrels(need(DATA / "trec_web_2012" / "qrels.adhoc.txt.gz"))
    run = ta.read_run(need(DATA / "trec_web_2012" / "ql-cata.run.gz"))[["qid", "docid", "score"]]
    assert (run["score"] < 0).all()
    _check(run, qrels, "ql-cata", ["151", "156", "160", "171", "186", "192", "200"],
           shift=100.0)
