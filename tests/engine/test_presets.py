"""``like=``: one argument gives a peer's numbers. Each preset is checked against the peer
itself, called here (pytrec_eval, ir_measures, ranx), or against trec_eval's own output
files, per query and for the summary (``ta.aggregate``), on shipped collections with
thousands of tied scores: Robust 2003 (uic0301), Cranfield (bm25_title) and the TREC 2012
Web track (ql-cata, ql-catb; ad hoc and diversity qrels)."""
from __future__ import annotations

import logging
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, ROOT, need, read_trec_eval_output

logging.getLogger("ir_measures").setLevel(logging.ERROR)
WEB = DATA / "trec_web_2012"
TREC = DATA / "trec_eval"


# --------------------------------------------------------------------------- inputs
def _robust03():
    runs, qrels = ta.load_example("robust03")
    return runs[["qid", "docid", "score"]], qrels


def _cranfield():
    runs, qrels = ta.load_example("cranfield", depth=100)
    return runs[runs["system"] == "bm25_title"][["qid", "docid", "score"]], qrels


def _web(run="ql-cata", qrels="qrels.adhoc.txt.gz"):
    return (ta.read_run(need(WEB / f"{run}.run.gz"))[["qid", "docid", "score"]],
            ta.read_qrels(need(WEB / qrels)))


def rbp_inputs():
    """The (name, run, qrels) triples of tests/data/trectools_rbp (make_trectools_rbp.py)."""
    return [("robust03", *_robust03()), ("cranfield", *_cranfield()),
            ("ql-cata", *_web())]


def _few(run, n, skip=0):
    """The run cut to its first n queries after ``skip`` (the pure-Python peers are slow)."""
    qids = sorted(run["qid"].unique())[skip:skip + n]
    return run[run["qid"].isin(qids)]


def _ir_frames(run, qrels):
    irr = run.rename(columns={"qid": "query_id", "docid": "doc_id"})[
        ["query_id", "doc_id", "score"]]
    irq = qrels.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance",
                                "subtopic": "iteration"})
    if "iteration" in irq:
        irq["iteration"] = irq["iteration"].astype(str)
    return irr, irq


def _dicts(run, qrels):
    """pytrec_eval's and ranx' dicts, filled row by row (a later row of a document wins)."""
    rd, qd = {}, {}
    for q, d, s in run[["qid", "docid", "score"]].itertuples(index=False):
        rd.setdefault(str(q), {})[str(d)] = float(s)
    for q, d, r in qrels[["qid", "docid", "rel"]].itertuples(index=False):
        qd.setdefault(str(q), {})[str(d)] = int(r)
    return rd, qd


def _untied(run):
    """The run with distinct scores (rank order: score descending, docid ascending)."""
    run = run.sort_values(["qid", "score", "docid"], ascending=[True, False, True])
    return run.assign(score=-run.groupby("qid").cumcount().astype(float))


def _by_qid(values: pd.Series) -> dict:
    return {str(q): float(v) for q, v in values.items()}


# --------------------------------------------------------------------------- trec_eval
def _trec_all(path) -> dict:
    out = {}
    for line in need(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            try:
                out[parts[0]] = float(parts[2])
            except ValueError:
                pass
    return out


TREC_MEASURES = ["map", "gm_map", "Rprec", "bpref", "recip_rank", "P_5", "P_10", "P_100",
                 "ndcg_cut_10", "ndcg", "recall_100", "infAP", "iprec_at_recall_0.10",
                 "set_F", "success_10", "num_ret", "num_rel", "num_rel_ret"]


@pytest.mark.filterwarnings("ignore::trunc_accessor.DroppedQueriesWarning")  # as trec_eval
@pytest.mark.parametrize("qrels_name, run_name, out", [
    ("qrels.test", "results.trunc", "out.test.aqc"),  # topic 302 unanswered: -c scores it 0
    ("qrels.comment.test", "results.comment.test", "generated/out.comment.test.aq.v10.0"),
])
def test_like_trec_eval_equals_trec_eval_output(qrels_name, run_name, out):
    """like="trec_eval": trec_eval 10's values per query and its summary line (results.comment
    has 78 tied rows; results.trunc lacks a judged topic, which -c scores as empty)."""
    qrels = ta.read_qrels(need(TREC / qrels_name))
    run = ta.read_run(need(TREC / run_name))
    got = run.ir.evaluate(qrels, TREC_MEASURES, like="trec_eval")
    want = read_trec_eval_output(TREC / out)
    for m in TREC_MEASURES:
        if m == "gm_map":
            continue  # a summary only
        for qid, value in got[m].items():
            assert value == pytest.approx(want[(m, str(qid))], abs=1e-4), (m, qid)
    summary = ta.aggregate(got)
    for m, value in _trec_all(TREC / out).items():
        if m in summary:
            assert summary[m] == pytest.approx(value, abs=1e-4), m


def test_like_trec_eval_refuses_qrels_judging_a_document_twice():
    """trec_eval stops on qrels with a document twice ("duplicate docs", form_res_rels.c):
    the preset refuses diversity qrels for ad hoc measures, naming the document, and still
    computes the diversity measures, which read the subtopics."""
    run, qrels = _web("ql-catb", "qrels.diversity.txt.gz")
    with pytest.raises(ValueError, match=r"duplicate docs.*") as info:
        run.ir.evaluate(qrels, ["map", "alpha_ndcg@20"], like="trec_eval")
    assert "'151'" in str(info.value) and "clueweb09-en0000-00-03430" in str(info.value)
    alone = run.ir.evaluate(qrels, ["alpha_ndcg@20"], like="trec_eval")
    assert alone["alpha_ndcg@20"].equals(
        run.ir.evaluate(qrels, ["alpha_ndcg@20"], ties="trec_eval")["alpha_ndcg@20"])


# --------------------------------------------------------------------------- pytrec_eval
PYTREC = {"map": "map", "P_5": "P", "P_10": "P", "ndcg_cut_10": "ndcg_cut", "ndcg": "ndcg",
          "recip_rank": "recip_rank", "bpref": "bpref", "Rprec": "Rprec",
          "recall_100": "recall", "iprec_at_recall_0.10": "iprec_at_recall", "set_F": "set_F",
          "infAP": "infAP", "num_ret": "num_ret", "num_rel_ret": "num_rel_ret",
          "success_10": "success"}


def _check_pytrec(run, qrels):
    import pytrec_eval

    rd, qd = _dicts(run, qrels)
    want = pytrec_eval.RelevanceEvaluator(qd, set(PYTREC.values())).evaluate(rd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.SubtopicWarning)
        got = run.ir.evaluate(qrels, list(PYTREC), like="pytrec_eval")
    assert sorted(map(str, got.index)) == sorted(want)  # the queries pytrec_eval answers
    for m in PYTREC:
        for qid, value in got[m].items():
            assert value == pytest.approx(want[str(qid)][m], abs=1e-12), (m, qid)
    summary = ta.aggregate(got)
    for m in PYTREC:
        values = [v[m] for v in want.values()]
        expected = sum(values) if m.startswith("num_") else np.mean(values)
        assert summary[m] == pytest.approx(expected, abs=1e-12), m


@pytest.mark.parametrize("source", ["robust03", "cranfield", "ql-cata"])
def test_like_pytrec_eval_equals_pytrec_eval(source):
    """like="pytrec_eval" on runs with ties, the run lacking five judged queries: pytrec_eval
    returns no value for those, so neither does the preset, and the means agree."""
    run, qrels = {"robust03": _robust03, "cranfield": _cranfield, "ql-cata": _web}[source]()
    run = run[~run["qid"].isin(sorted(run["qid"].unique())[:5])]
    _check_pytrec(run, qrels)


def test_like_pytrec_eval_reads_a_documents_last_qrels_line():
    """Diversity qrels (one line per subtopic) built into pytrec_eval's dict line by line keep
    each document's last line; like="pytrec_eval" reads them so, and says so."""
    run, qrels = _web("ql-catb", "qrels.diversity.txt.gz")
    assert qrels.duplicated(["qid", "docid"]).any()
    _check_pytrec(run, qrels)
    with pytest.warns(ta.SubtopicWarning, match="last line"):
        run.ir.evaluate(qrels, ["map"], like="pytrec_eval")


# --------------------------------------------------------------------------- ir_measures
IRM_TREC9 = ["AP", "AP@100", "AP(rel=2)", "nDCG@10", "nDCG", "P@10", "P(rel=2)@5", "R@100",
             "RR", "Rprec", "Bpref", "Success@10", "SetP", "SetR", "SetF", "infAP",
             "IPrec@0.2", "NumRet", "NumRel", "NumRelRet", "NumQ"]
IRM_OTHERS = ["RR@10", "Judged@10", "Compat(p=0.95)", "RBP(rel=1)", "RBP(p=0.5,rel=2)",
              "INST(T=1.0,max_rel=4)", "BPM(T=2.0,max_rel=4)@20", "ERR@20"]
GDEVAL = {"ERR@20"}  # gdeval prints 5 decimals (a value at the half that Perl rounded down)


def _check_ir_measures(run, qrels, specs):
    irm = pytest.importorskip("ir_measures")
    irr, irq = _ir_frames(run, qrels)
    measures = [irm.parse_measure(s) for s in specs]
    want = {(str(m.measure), m.query_id): m.value for m in irm.iter_calc(measures, irq, irr)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.SubtopicWarning)
        got = run.ir.evaluate(qrels, specs, like="ir_measures")
    assert len(got) == qrels["qid"].nunique()
    for spec, measure in zip(specs, measures):
        tol = 6e-6 if spec in GDEVAL else 1e-9
        for qid, value in got[spec].items():
            assert value == pytest.approx(want[(str(measure), str(qid))], abs=tol), (spec, qid)
    summary, aggregate = ta.aggregate(got), irm.calc_aggregate(measures, irq, irr)
    for spec, measure in zip(specs, measures):
        tol = 6e-6 if spec in GDEVAL else 1e-9
        assert summary[spec] == pytest.approx(aggregate[measure], abs=tol), spec


@pytest.mark.parametrize("source", ["robust03", "cranfield", "ql-cata"])
def test_like_ir_measures_equals_ir_measures(source):
    """like="ir_measures": each measure in its provider's order (pytrec_eval, msmarco,
    judged, compat, cwl_eval, gdeval), per query and for calc_aggregate (counts summed)."""
    run, qrels = {"robust03": _robust03, "cranfield": _cranfield, "ql-cata": _web}[source]()
    if source == "ql-cata":  # Indri's scores are negative: compat gives an unretrieved
        run = run.assign(score=run["score"] + 100.0)  # relevant document 0; keep it below
    run = _few(run, 12, skip=3)
    qrels = qrels[qrels["qid"].isin(run["qid"].unique()) | (qrels["qid"] == qrels["qid"].max())]
    _check_ir_measures(run, qrels, IRM_TREC9 + IRM_OTHERS)


def test_like_ir_measures_on_diversity_qrels():
    """ir_measures (subtopic as `iteration`): ad hoc measures read each document's last line
    (pytrec_eval's dict), RR@k a document relevant on any line (msmarco), the diversity
    measures the subtopics (pyndeval); one call gives them all. The library's default reads
    the largest grade, which differs on these qrels (P@5, RR, nDCG@10 lower here)."""
    run, qrels = _web("ql-catb", "qrels.diversity.txt.gz")
    run = _few(run, 15)
    qrels = qrels[qrels["qid"].isin(run["qid"].unique())]
    specs = ["P@5", "RR", "nDCG@10", "AP", "RR@10", "Judged@10", "RBP(rel=1)",
             "alpha_nDCG@20", "ERR_IA@20", "AP_IA", "StRecall@20"]
    _check_ir_measures(run, qrels, specs)
    with pytest.warns(ta.SubtopicWarning, match="largest grade"):
        default = run.ir.evaluate(qrels, ["P@5", "RR", "nDCG@10"], ties="trec_eval9").mean()
    with pytest.warns(ta.SubtopicWarning, match="last line"):
        like = run.ir.evaluate(qrels, ["P@5", "RR", "nDCG@10"], like="ir_measures").mean()
    assert (like < default).all()


# --------------------------------------------------------------------------- ranx
RANX = ["ndcg@10", "map@100", "mrr", "precision@5", "recall@100", "hits@10", "hit_rate@10",
        "r-precision", "ndcg_burges@10", "precision@5-l2", "f1@10", "bpref", "dcg@10"]


@pytest.mark.parametrize("source", ["robust03", "cranfield", "ql-cata"])
def test_like_ranx_equals_ranx_without_ties(source):
    """like="ranx" on runs without tied scores (ranx orders ties by an unstable sort, which
    no option reproduces): ranx' values per query (make_comparable=True: every judged query,
    the five the run lacks as empty rankings; a negative grade judged non-relevant, which
    bpref counts on the Web track's qrels) and its means (hits@k averaged, as ranx does)."""
    ranx = pytest.importorskip("ranx")
    run, qrels = {"robust03": _robust03, "cranfield": _cranfield, "ql-cata": _web}[source]()
    run = _untied(run[~run["qid"].isin(sorted(run["qid"].unique())[:5])])
    rd, qd = _dicts(run, qrels)
    qrels_obj, run_obj = ranx.Qrels(qd), ranx.Run(rd)
    want = ranx.evaluate(qrels_obj, run_obj, RANX, return_mean=False, make_comparable=True)
    got = run.ir.evaluate(qrels, RANX, like="ranx")
    order = list(qrels_obj.keys())
    assert sorted(_by_qid(got[RANX[0]])) == sorted(order)
    summary = ta.aggregate(got)
    for m in RANX:
        values = got[m].rename(index=str).reindex(order).to_numpy()
        assert np.allclose(values, want[m], rtol=0, atol=1e-12), m
        assert summary[m] == pytest.approx(float(np.mean(want[m])), abs=1e-12), m


def test_like_ranx_keeps_ties_as_given():
    """ranx' order among equal scores is not reproducible: like="ranx" leaves ties= to the
    caller (default "average", the exact mean over tie orders)."""
    run, qrels = _cranfield()
    run = _few(run, 20)
    average = run.ir.evaluate(qrels, ["ndcg@10"], like="ranx")
    assert average.equals(run.ir.evaluate(qrels, ["ndcg@10"]))
    first = run.ir.evaluate(qrels, ["ndcg@10"], like="ranx", ties="first")
    assert first.equals(run.ir.evaluate(qrels, ["ndcg@10"], ties="first"))


# --------------------------------------------------------------------------- the argument
def test_like_refusals_name_the_parameter():
    """A preset is a bundle: an unknown name, or ties=/undefined= against it, is refused
    (before any frame is read); the orders only presets use are no ties= value."""
    run, qrels = _cranfield()
    with pytest.raises(ta.ParameterError, match=r"like= must be one of .*'trec-eval'"):
        run.ir.evaluate("not read", ["ap"], like="trec-eval")
    with pytest.raises(ta.ParameterError, match=r"ties='average' contradicts like='trec_eval'"):
        run.ir.evaluate(qrels, ["ap"], like="trec_eval", ties="average")
    with pytest.raises(ta.ParameterError, match=r"ties='trec_eval9' contradicts "
                                                r"like='ir_measures'.*provider"):
        run.ir.evaluate(qrels, ["ap"], like="ir_measures", ties="trec_eval9")
    with pytest.raises(ta.ParameterError, match=r"undefined='nan' contradicts "
                                                r"like='pytrec_eval'"):
        run.ir.evaluate(qrels, ["ap"], like="pytrec_eval", undefined="nan")
    with pytest.raises(ta.ParameterError, match="ties= must be one of"):
        run.ir.evaluate(qrels, ["ap"], ties="score_docid")
    agreed = run.ir.evaluate(qrels, ["ap"], like="pytrec_eval", ties="trec_eval9",
                             undefined="zero")
    assert agreed.equals(run.ir.evaluate(qrels, ["ap"], like="pytrec_eval"))


def test_like_in_every_frontend():
    """Polars (eager and lazy) and Dask give the pandas accessor's values with a preset,
    pytrec_eval's unanswered queries left out in each."""
    run, qrels = _cranfield()
    run = _few(run, 30, skip=2)  # qids 1 and 2 are judged, unanswered
    specs = ["AP", "RR@10", "RBP(rel=1)", "Judged@10"]
    for like in ("ir_measures", "pytrec_eval"):
        want = run.ir.evaluate(qrels, specs, like=like)
        eager = pl.from_pandas(run).ir.evaluate(pl.from_pandas(qrels), specs, like=like)
        lazy = pl.from_pandas(run).lazy().ir.evaluate(pl.from_pandas(qrels), specs,
                                                      like=like).collect()
        for frame in (eager, lazy):
            got = frame.to_pandas().set_index("qid")
            assert got.index.tolist() == want.index.tolist(), like
            assert np.allclose(got[specs].to_numpy(), want[specs].to_numpy()), like
    dd = pytest.importorskip("dask.dataframe")
    want = run.ir.evaluate(qrels, ["AP", "RR@10"], like="pytrec_eval")
    got = dd.from_pandas(run, npartitions=3).ir.evaluate(qrels, ["AP", "RR@10"],
                                                         like="pytrec_eval").compute()
    assert sorted(got.index) == sorted(want.index)
    assert np.allclose(got.loc[want.index].to_numpy(), want.to_numpy())


# --------------------------------------------------------------------------- RBP
def _stored_rbp() -> pd.DataFrame:
    return pd.read_csv(ROOT / "tests" / "data" / "trectools_rbp" / "rbp.tsv", sep="\t",
                       dtype={"qid": str})


@pytest.mark.parametrize("name", ["robust03", "cranfield", "ql-cata"])
def test_ir_measures_rbp_without_rel_is_trectools(name):
    """ir_measures' `RBP` without rel= (computed only by its trectools provider): the grades
    as gains, tied documents' weights averaged; the values trectools gave (stored, with the
    script that made them), per query, with and without like="ir_measures"."""
    stored = _stored_rbp()
    run, qrels = {n: (r, q) for n, r, q in rbp_inputs()}[name]
    for p in (0.8, 0.5):
        want = stored[(stored["run"] == name) & (stored["p"] == p)].set_index("qid")["value"]
        for kw in ({}, {"like": "ir_measures"}):
            got = _by_qid(run.ir.evaluate(qrels, [f"RBP(p={p})"], **kw)[f"RBP(p={p})"])
            assert sorted(got) == sorted(want.index)
            for qid, value in want.items():
                assert got[qid] == pytest.approx(value, rel=1e-12, abs=1e-15), (name, p, qid)


def test_ir_measures_rbp_without_rel_equals_trectools_live():
    """The same against ir_measures' trectools provider, where trectools is installed."""
    pytest.importorskip("trectools")
    irm = pytest.importorskip("ir_measures")
    run, qrels = _cranfield()
    irr, irq = _ir_frames(run, qrels)
    provider = irm.providers.registry["trectools"]
    want = {m.query_id: m.value for m in provider.iter_calc([irm.parse_measure("RBP")], irq, irr)}
    got = _by_qid(run.ir.evaluate(qrels, ["RBP"])["RBP"])
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_rbp_readings_under_their_own_names():
    """Each peer's RBP under its name: ir_measures' `RBP` (trectools: the grade), `RBP(rel=2)`
    (cwl_eval: binary at grade 2), trec_eval's `rbp` (trec_rbp) and the library's
    rbp(graded=True) (grade / largest grade) on one ranking of grades 4, 0, 2."""
    run = pd.DataFrame({"qid": "1", "docid": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": "1", "docid": ["a", "b", "c"], "rel": [4, 0, 2]})
    got = run.ir.evaluate(qrels, ["RBP(p=0.5)", "RBP(p=0.5,rel=2)", "rbp(p=0.5,graded=True)"])
    row = got.iloc[0]
    assert row["RBP(p=0.5)"] == pytest.approx(0.5 * (4 + 0.25 * 2))
    assert row["RBP(p=0.5,rel=2)"] == pytest.approx(0.5 * (1 + 0.25))
    assert row["rbp(p=0.5,graded=True)"] == pytest.approx(0.5 * (1 + 0.25 * 0.5))


def test_curves_and_crp_say_how_they_read_diversity_qrels():
    """cutoff_curve, optimal_cutoff, crp and crp_archetype read diversity qrels as evaluate
    does (each document's largest grade) and now say so, as evaluate always did; a diversity
    measure's curve reads the subtopics and says nothing."""
    runs, qrels = ta.load_example("web2012")
    run = runs[runs["system"] == "ql-cata"]
    for call in (lambda: run.ir.cutoff_curve(qrels, "ap", max_depth=5),
                 lambda: run.ir.optimal_cutoff(qrels, "ap"),
                 lambda: run.ir.crp(qrels),
                 lambda: run.ir.crp_archetype(qrels, ties="first")):
        with pytest.warns(ta.SubtopicWarning, match="largest grade"):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.SubtopicWarning)
        run.ir.cutoff_curve(qrels, "alpha_ndcg@5")


def test_like_pytrec_eval_with_judged_only_keeps_answered_queries():
    """pytrec_eval's judged_docs_only_flag still returns a query whose retrieved documents are
    all unjudged (values 0): like="pytrec_eval" with judged_only=True keeps it too."""
    import pytrec_eval

    run = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docid": ["a", "b", "x", "y"],
                        "score": [2.0, 1.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["1", "1", "2", "3"], "docid": ["a", "b", "z", "w"],
                          "rel": [1, 0, 1, 1]})
    rd, qd = _dicts(run, qrels)
    want = pytrec_eval.RelevanceEvaluator(qd, {"map", "P_5"},
                                          judged_docs_only_flag=1).evaluate(rd)
    got = run.ir.evaluate(qrels, ["map", "P_5"], like="pytrec_eval", judged_only=True)
    assert {q: dict(v) for q, v in got.to_dict(orient="index").items()} == want


def test_like_ir_measures_says_each_note_once():
    """A preset that prepares the frames once per order says what it noticed (here: a run
    qid without judgments, dropped) once, not once per preparation."""
    run = pd.DataFrame({"qid": ["1", "1", "2", "9"], "docid": ["a", "b", "x", "y"],
                        "score": [2.0, 1.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["a", "b", "z"], "rel": [1, 0, 1]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run.ir.evaluate(qrels, ["AP", "RR@10", "RBP(rel=1)", "Judged@10"], like="ir_measures")
    assert [type(w.message) for w in caught] == [ta.DroppedQueriesWarning]
