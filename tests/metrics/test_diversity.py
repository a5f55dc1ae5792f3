"""Diversity measures (α-nDCG, ERR-IA, NRBP, P-IA, MAP-IA, S-recall) against ndeval's own
output on the TREC 2012 Web track runs, against pyndeval (ir_measures' provider) on the
same runs and on random inputs, and ties="average" against brute force over tie orders."""
from __future__ import annotations

import gzip
import io
import itertools
import math
import warnings
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests.conftest import DATA, ROOT, need
from trunc_accessor.frontends.cli import trec_eval as cli

WEB = DATA / "trec_web_2012"
RUNS = ["ql-cata", "ql-catb", "rm-cata", "rm-catb"]
STORED = ROOT / "tests" / "data" / "ndeval"
# ndeval's CSV columns and the library's measures
COLUMNS = {f"{n}@{k}": f"{o}@{k}" for n, o in (("ERR-IA", "err_ia"), ("nERR-IA", "nerr_ia"),
                                               ("alpha-DCG", "alpha_dcg"),
                                               ("alpha-nDCG", "alpha_ndcg"),
                                               ("P-IA", "p_ia"), ("strec", "s_recall"))
           for k in (5, 10, 20)}
COLUMNS.update({"NRBP": "nrbp", "nNRBP": "nnrbp", "MAP-IA": "map_ia"})
DIVERSITY = ["alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia", "nrbp", "nnrbp", "p_ia",
             "s_recall", "map_ia"]


@pytest.fixture(scope="module")
def web_qrels():
    return ta.read_qrels(need(WEB / "qrels-for-ndeval.txt.gz"))


def _ndeval_csv(path) -> pd.DataFrame:
    table = pd.read_csv(need(path), dtype={"topic": str})
    return table[table.topic != "amean"].set_index("topic")


def _close_to_printed(ours: pd.Series, printed: pd.Series) -> float:
    """Largest |ours − printed| beyond ndeval's rounding to 6 decimals (0 when within)."""
    diff = (ours.reindex(printed.index).astype(float) - printed).abs()
    return float(np.maximum(diff - 5e-7 - 1e-12, 0).max())


@pytest.mark.parametrize("name", RUNS)
def test_every_topic_equals_ndeval_traditional(web_qrels, name):
    """`ndeval -c -traditional` (score, then docno descending = ties="trec_eval")."""
    run = ta.read_run(need(WEB / f"{name}.run.gz"))
    expected = _ndeval_csv(WEB / f"{name}.ndeval.csv")
    res = run.ir.evaluate(web_qrels, list(COLUMNS.values()), ties="trec_eval")
    assert len(res) == len(expected) == 50
    for column, label in COLUMNS.items():
        assert _close_to_printed(res[label], expected[column]) == 0, column


def test_rank_order_equals_ndeval_without_traditional(web_qrels):
    """ndeval without -traditional orders by the rank column: ties="first" on the rank."""
    run = ta.read_run(need(WEB / "ql-cata.run.gz"), keep_rank=True)
    expected = _ndeval_csv(STORED / "ql-cata.rank.csv")
    res = run.ir.evaluate(web_qrels, list(COLUMNS.values()), ties="first")
    for column, label in COLUMNS.items():
        assert _close_to_printed(res[label], expected[column]) == 0, column


def test_alpha_beta_and_depth_equal_ndeval(web_qrels):
    """`ndeval -c -traditional -alpha 0.3 -beta 0.8 -M 100`."""
    run = ta.read_run(need(WEB / "rm-catb.run.gz"), library="polars")
    run = (run.with_columns(pl.col("docid").alias("_d"))
           .sort(["qid", "score", "_d"], descending=[False, True, True])
           .filter(pl.int_range(pl.len()).over("qid") < 100).drop("_d"))
    expected = _ndeval_csv(STORED / "rm-catb.a0.3.b0.8.M100.csv")
    measures = {c: (f"{m.split('@')[0]}(alpha=0.3{',beta=0.8' if 'nrbp' in m else ''})"
                    + (f"@{m.split('@')[1]}" if "@" in m else ""))
                if m.split("@")[0] not in ("p_ia", "s_recall", "map_ia") else m
                for c, m in COLUMNS.items()}
    res = run.ir.evaluate(web_qrels, list(measures.values()), ties="trec_eval",
                          names="canonical").to_pandas().set_index("qid")
    res.index = res.index.astype(str)
    labels = dict(zip(measures, [c for c in res.columns]))
    for column in COLUMNS:
        assert _close_to_printed(res[labels[column]], expected[column]) == 0, column


def _cli(*argv) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        status = cli.main(list(argv))
    assert status == 0
    return out.getvalue()


def test_command_line_prints_ndeval_line_for_line(tmp_path):
    qrels = str(need(WEB / "qrels-for-ndeval.txt.gz"))
    for name in RUNS:
        text = _cli("--format", "ndeval", "-c", "-traditional", qrels, str(WEB / f"{name}.run.gz"))
        assert text == (WEB / f"{name}.ndeval.csv").read_text(), name
    assert _cli("--format", "ndeval", "-c", qrels, str(WEB / "ql-cata.run.gz")) \
        == (STORED / "ql-cata.rank.csv").read_text()
    assert _cli("--format", "ndeval", "-c", "-traditional", "-alpha", "0.3", "-beta", "0.8",
                "-M", "100", qrels, str(WEB / "rm-catb.run.gz")) \
        == (STORED / "rm-catb.a0.3.b0.8.M100.csv").read_text()
    # a run with topics 151-174 only: without -c the mean is over those, with -c over all 50
    with gzip.open(WEB / "ql-catb.run.gz", "rt") as fh:
        part = [line for line in fh if int(line.split()[0]) < 175]
    path = tmp_path / "part.run"
    path.write_text("".join(part))
    assert _cli("--format", "ndeval", "-traditional", qrels, str(path)) \
        == (STORED / "ql-catb.topics151-174.csv").read_text()
    assert cli.main_ndeval(["-traditional", "-c", qrels, str(path)]) == 0


def test_command_line_diversity_measures_in_trec_eval_mode(capsys):
    qrels = str(need(WEB / "qrels-for-ndeval.txt.gz"))
    assert cli.main(["-m", "alpha_nDCG@20", "-m", "ERR_IA@20", qrels,
                     str(WEB / "ql-cata.run.gz")]) == 0
    out = {line.split()[0]: float(line.split()[2])
           for line in capsys.readouterr().out.splitlines()}
    amean = pd.read_csv(WEB / "ql-cata.ndeval.csv").set_index("topic").loc["amean"]
    assert abs(out["alpha_nDCG@20"] - amean["alpha-nDCG@20"]) < 5e-5
    assert abs(out["ERR_IA@20"] - amean["ERR-IA@20"]) < 5e-5
    assert cli.main(["-alpha", "0.3", qrels, str(WEB / "ql-cata.run.gz")]) == 2
    assert "--format ndeval" in capsys.readouterr().err


# --------------------------------------------------------------------------- pyndeval
IRM = {"alpha_nDCG": "alpha_ndcg", "alpha_DCG": "alpha_dcg", "ERR_IA": "err_ia",
       "nERR_IA": "nerr_ia", "P_IA": "p_ia", "StRecall": "s_recall"}


def _irm_measures(ir_measures, alpha=0.5, beta=0.5, ks=(2, 5, 10, 20)):
    m = ir_measures.measures
    out = [m.NRBP(alpha=alpha, beta=beta), m.nNRBP(alpha=alpha, beta=beta), m.AP_IA]
    for k in ks:  # not k = 1: ndeval leaves ERR-IA@1 and α-DCG@1 undivided (values up to S)
        out += [m.alpha_nDCG(alpha=alpha) @ k, m.alpha_DCG(alpha=alpha) @ k, m.ERR_IA @ k,
                m.nERR_IA @ k, m.P_IA @ k, m.StRecall @ k]
    return out


def _ours_for(measure) -> str:
    name = measure.NAME
    params = dict(measure.params)
    k = params.pop("cutoff", None)
    if name in ("NRBP", "nNRBP"):
        return f"{name.lower()}(alpha={params['alpha']},beta={params['beta']})"
    if name == "AP_IA":
        return "map_ia"
    has_alpha = "alpha" in params and params["alpha"] is not None
    inner = f"(alpha={params['alpha']})" if has_alpha else ""
    return f"{IRM[name]}@{k}{inner}"


def _vs_pyndeval(run: pd.DataFrame, qrels: pd.DataFrame, measures, ours=None) -> float:
    """Largest difference to ir_measures/pyndeval per query. pyndeval orders tied scores
    by docid ascending: the run is given to the library in that order (ties="first").
    ``ours``: other qrels for the library (the same judgments with a weight column)."""
    import ir_measures

    qi = qrels.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance",
                               "subtopic": "iteration"}).astype({"iteration": str})
    ri = run.rename(columns={"qid": "query_id", "docid": "doc_id"})
    # one call per (alpha, beta): ir_measures 0.4.3 hands its second pyndeval invocation an
    # exhausted run, so measures of different parameters in one call come back as zeros
    calls: dict = {}
    for m in measures:
        p = dict(m.params)
        calls.setdefault((p.get("alpha"), p.get("beta")), []).append(m)
    got = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for group in calls.values():
            got.update({(str(m.measure), m.query_id): m.value
                        for m in ir_measures.iter_calc(group, qi, ri)})
    ordered = run.sort_values(["qid", "score", "docid"], ascending=[True, False, True])
    labels = {str(m): _ours_for(m) for m in measures}
    res = ordered.ir.evaluate(qrels if ours is None else ours, list(labels.values()),
                              ties="first", names="canonical")
    worst = 0.0
    for (mname, qid), value in got.items():
        ours = float(res.loc[qid, res.columns[list(labels).index(mname)]])
        worst = max(worst, abs(ours - value))
    return worst


def test_web_track_runs_equal_pyndeval(web_qrels):
    import ir_measures

    run = ta.read_run(need(WEB / "rm-catb.run.gz")).drop(columns="system")
    assert _vs_pyndeval(run, web_qrels, _irm_measures(ir_measures)) < 1e-9


def test_alpha_beta_equal_pyndeval(web_qrels):
    import ir_measures

    run = ta.read_run(need(WEB / "ql-cata.run.gz")).drop(columns="system")
    run = run[run.qid.astype(int) < 165]
    assert _vs_pyndeval(run, web_qrels, _irm_measures(ir_measures, 0.3, 0.8, ks=(5, 20))) < 1e-9


@st.composite
def diversity_case(draw, ties=False):
    """Small diversity qrels (2 queries, ≤ 4 subtopics, grades 0-2) and a run (≤ 8 documents
    a query; with ``ties``, scores drawn from a few values)."""
    qrels, run = [], []
    for q in ("q1", "q2"):
        n_docs = draw(st.integers(1, 8))
        docs = [f"d{i}" for i in range(n_docs + 2)]
        n_sub = draw(st.integers(1, 4))
        for d in docs:
            for s in range(1, n_sub + 1):
                if draw(st.booleans()):
                    qrels.append((q, s, d, draw(st.integers(0, 2))))
        scores = st.integers(0, 3) if ties else st.floats(0, 1, allow_nan=False)
        for d in draw(st.permutations(docs))[:n_docs]:
            run.append((q, d, float(draw(scores))))
    qrels_df = pd.DataFrame(qrels, columns=["qid", "subtopic", "docid", "rel"])
    run_df = pd.DataFrame(run, columns=["qid", "docid", "score"])
    return run_df, qrels_df


@pytest.mark.filterwarnings("ignore::trunc_accessor.DroppedQueriesWarning")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diversity_case())
def test_random_inputs_equal_pyndeval(case):
    import ir_measures

    run, qrels = case
    if not (qrels.rel > 0).any() or run.duplicated(["qid", "score"]).any():
        return  # pyndeval needs a relevant judgment; its tie order is checked elsewhere
    assert _vs_pyndeval(run, qrels, _irm_measures(ir_measures, ks=(2, 3, 5))) < 1e-9


# --------------------------------------------------------------------------- ties
def _brute_force(run: pd.DataFrame, qrels: pd.DataFrame, measures: list[str]) -> pd.DataFrame:
    """The mean over every order of the tied documents of each query: each order given as a
    rank column (ties="first")."""
    per_query = []
    for qid, part in run.groupby("qid"):
        groups = [list(g.docid) for _, g in part.groupby("score", sort=True)][::-1]
        rankings = []  # every order as its own system of one frame: one evaluate call
        for n, orders in enumerate(itertools.product(*(itertools.permutations(g)
                                                       for g in groups))):
            docs = [d for order in orders for d in order]
            rankings.append(pd.DataFrame({"order": n, "qid": qid, "docid": docs, "score": 0.0,
                                          "rank": range(1, len(docs) + 1)}))
        values = pd.concat(rankings).ir.evaluate(qrels[qrels.qid == qid], measures,
                                                 ties="first", undefined="nan", by="order")
        per_query.append(values.groupby(level="qid").mean())
    return pd.concat(per_query)


@pytest.mark.filterwarnings("ignore::trunc_accessor.DroppedQueriesWarning")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diversity_case(ties=True), st.sampled_from([0.5, 0.3, 1.0]))
def test_brute_force_tie_average(case, alpha):
    run, qrels = case
    for q in ("q1", "q2"):
        sizes = run[run.qid == q].groupby("score").size()
        if math.prod(math.factorial(int(s)) for s in sizes) > 720:
            return
    measures = [f"alpha_ndcg@3(alpha={alpha})", f"alpha_dcg@2(alpha={alpha})",
                f"err_ia@4(alpha={alpha})", f"nerr_ia(alpha={alpha})",
                f"nrbp(alpha={alpha},beta=0.7)", f"nnrbp(alpha={alpha})", "p_ia@3",
                "s_recall@2", "s_recall@5", "map_ia"]
    expected = _brute_force(run, qrels, measures)
    got = run.ir.evaluate(qrels, measures, undefined="nan")
    pd.testing.assert_frame_equal(got.loc[expected.index], expected, check_exact=False,
                                  rtol=1e-9, atol=1e-12, check_names=False)


# --------------------------------------------------------------------------- frames
def test_frames_libraries_and_aliases(web_qrels):
    run = ta.read_run(need(WEB / "ql-cata.run.gz"))
    run = run[run.qid.isin(["151", "152", "153"])]
    measures = ["alpha_ndcg@10", "err_ia@20", "map_ia", "s_recall@5"]
    expected = run.ir.evaluate(web_qrels, measures)
    polars = pl.from_pandas(run).ir.evaluate(pl.from_pandas(web_qrels), measures)
    assert np.allclose(polars.to_pandas().set_index("qid").loc[expected.index], expected)
    lazy = (pl.from_pandas(run).lazy().ir.evaluate(pl.from_pandas(web_qrels).lazy(), measures)
            .collect())
    assert np.allclose(lazy.to_pandas().set_index("qid").loc[expected.index], expected)
    for alias in ("iteration", "intent", "aspect"):
        renamed = web_qrels.rename(columns={"subtopic": alias})
        assert np.allclose(run.ir.evaluate(renamed, measures), expected)
    strings = web_qrels.astype({"subtopic": str})
    assert np.allclose(run.ir.evaluate(strings, measures), expected)
    before = web_qrels.copy()
    run.ir.evaluate(web_qrels, measures)
    pd.testing.assert_frame_equal(web_qrels, before)


def test_dask_frames(web_qrels):
    dd = pytest.importorskip("dask.dataframe")
    run = ta.read_run(need(WEB / "ql-cata.run.gz"))
    run = run[run.qid.isin(["151", "152", "153", "154"])]
    measures = ["alpha_ndcg@10", "nnrbp", "p_ia@5"]
    expected = run.ir.evaluate(web_qrels, measures)
    got = dd.from_pandas(run, npartitions=2).ir.evaluate(web_qrels, measures).compute()
    assert np.allclose(got.loc[expected.index], expected)


def test_adhoc_measures_read_relevant_to_any_subtopic(web_qrels):
    """On diversity qrels, P@10 and AP count a document relevant to any subtopic: the same as
    pytrec_eval on qrels made by hand (each document's largest grade)."""
    import pytrec_eval

    run = ta.read_run(need(WEB / "rm-cata.run.gz"))
    adhoc = web_qrels.groupby(["qid", "docid"], as_index=False).rel.max()
    qd: dict = {}
    for q, d, r in adhoc.itertuples(index=False):
        qd.setdefault(q, {})[d] = int(r)
    rd: dict = {}
    for q, d, s in run[["qid", "docid", "score"]].itertuples(index=False):
        rd.setdefault(q, {})[d] = float(s)
    want = pytrec_eval.RelevanceEvaluator(qd, {"map", "P_10"}).evaluate(rd)
    with pytest.warns(UserWarning, match="relevant to any subtopic"):
        res = run.ir.evaluate(web_qrels, ["ap", "precision@10", "alpha_ndcg@10"],
                              ties="trec_eval9")
    for q, v in want.items():
        assert abs(res.loc[q, "ap"] - v["map"]) < 1e-9
        assert abs(res.loc[q, "precision@10"] - v["P_10"]) < 1e-9


def test_read_qrels_detects_subtopics(tmp_path):
    q = ta.read_qrels(need(WEB / "qrels.diversity.txt.gz"))
    assert q.columns.tolist() == ["qid", "subtopic", "docid", "rel"]
    assert str(q.subtopic.dtype) == "int64" and q.rel.min() == -2
    adhoc = ta.read_qrels(need(WEB / "qrels.adhoc.txt.gz"))
    assert adhoc.columns.tolist() == ["qid", "docid", "rel"]
    kept = ta.read_qrels(need(WEB / "qrels.adhoc.txt.gz"), subtopics=True, library="polars")
    assert kept.columns == ["qid", "subtopic", "docid", "rel"]
    assert ta.read_qrels(need(WEB / "qrels.diversity.txt.gz"), subtopics=False).shape[1] == 3
    three = tmp_path / "three.txt"
    three.write_text("1 d1 1\n1 d2 0\n")
    with pytest.raises(ValueError, match="no subtopic field"):
        ta.read_qrels(three, subtopics=True)
    with pytest.raises(ValueError, match="subtopics="):
        ta.read_qrels(three, subtopics="yes")


def test_spam_grades_count_as_not_relevant(web_qrels):
    """qrels.diversity keeps spam as −2, qrels-for-ndeval turns it into 0 (and drops eight
    subtopics without a relevant document): the same values."""
    run = ta.read_run(need(WEB / "ql-catb.run.gz"))
    raw = ta.read_qrels(need(WEB / "qrels.diversity.txt.gz"))
    measures = ["alpha_ndcg@20", "nerr_ia@20", "map_ia", "p_ia@10", "s_recall@20", "nnrbp"]
    a = run.ir.evaluate(raw, measures, ties="trec_eval")
    b = run.ir.evaluate(web_qrels, measures, ties="trec_eval")
    assert np.allclose(a, b.loc[a.index], atol=1e-12)


def test_bad_input_is_named():
    run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(ValueError, match="needs diversity qrels"):
        run.ir.alpha_ndcg(pd.DataFrame({"qid": [1], "docid": ["a"], "rel": [1]}))
    conflict = pd.DataFrame({"qid": 1, "subtopic": [1, 1], "docid": "a", "rel": [1, 2]})
    with pytest.raises(ValueError, match="conflicting grades .* for subtopic 1"):
        run.ir.alpha_ndcg(conflict)
    missing = pd.DataFrame({"qid": 1, "subtopic": [1, None], "docid": ["a", "b"], "rel": 1})
    with pytest.raises(ValueError, match="'subtopic' has a missing value"):
        run.ir.alpha_ndcg(missing)
    with pytest.raises(ValueError, match="alpha"):
        run.ir.alpha_ndcg(conflict.head(1), alpha=1.5)


def test_no_relevant_subtopic_is_undefined():
    run = pd.DataFrame({"qid": [1, 2], "docid": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"qid": [1, 2], "subtopic": [1, 1], "docid": ["a", "b"], "rel": [1, 0]})
    res = run.ir.evaluate(qrels, DIVERSITY, undefined="nan")
    assert res.loc[1].notna().all() and res.loc[2].isna().all()
    assert (run.ir.evaluate(qrels, DIVERSITY).loc[2] == 0).all()


def test_subtopic_weights_are_intent_aware_sums(web_qrels):
    """With a weight column, P-IA@k and MAP-IA are Σ_s P(s|q)·measure_s (Agrawal et al. 2009),
    each measure_s by pytrec_eval on the qrels of subtopic s alone; equal weights change
    nothing."""
    import pytrec_eval

    run = ta.read_run(need(WEB / "rm-cata.run.gz"))
    run = run[run.qid.isin([str(q) for q in range(151, 161)])]
    qrels = web_qrels[web_qrels.qid.isin(run.qid.unique())]
    rng = np.random.default_rng(7)
    subs = qrels[["qid", "subtopic"]].drop_duplicates()
    subs["weight"] = rng.random(len(subs)) + 0.05
    weighted = qrels.merge(subs, on=["qid", "subtopic"])
    plain = run.ir.evaluate(qrels, DIVERSITY, ties="trec_eval9")
    assert np.allclose(run.ir.evaluate(qrels.assign(weight=3.0), DIVERSITY, ties="trec_eval9"),
                       plain)
    res = run.ir.evaluate(weighted, ["p_ia@10", "map_ia"], ties="trec_eval9")
    rd: dict = {}
    for q, d, s in run[["qid", "docid", "score"]].itertuples(index=False):
        rd.setdefault(q, {})[d] = float(s)
    expected: dict = {}
    for (q, s), part in weighted.groupby(["qid", "subtopic"]):
        if not (part.rel > 0).any():
            continue  # a subtopic without a relevant document does not count
        qd = {q: {d: int(r > 0) for d, r in zip(part.docid, part.rel)}}
        v = pytrec_eval.RelevanceEvaluator(qd, {"P_10", "map"}).evaluate({q: rd[q]})[q]
        w = float(part.weight.iloc[0])
        e = expected.setdefault(q, [0.0, 0.0, 0.0])
        e[0] += w * v["P_10"]
        e[1] += w * v["map"]
        e[2] += w
    for q, (p10, ap, total) in expected.items():
        assert abs(res.loc[q, "p_ia@10"] - p10 / total) < 1e-9
        assert abs(res.loc[q, "map_ia"] - ap / total) < 1e-9
    bad = weighted.assign(weight=-1.0)
    with pytest.raises(ValueError, match="'weight' must hold finite weights"):
        run.ir.p_ia(bad)
    two = weighted.copy()
    two.loc[two.index[0], "weight"] = 99.0
    with pytest.raises(ValueError, match="several weights"):
        run.ir.p_ia(two)


@pytest.mark.filterwarnings("ignore::trunc_accessor.DroppedQueriesWarning")
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diversity_case(ties=True), st.lists(st.floats(0.1, 5), min_size=4, max_size=4))
def test_brute_force_tie_average_with_weights(case, weights):
    run, qrels = case
    for q in ("q1", "q2"):
        sizes = run[run.qid == q].groupby("score").size()
        if math.prod(math.factorial(int(s)) for s in sizes) > 720:
            return
    qrels = qrels.assign(weight=[weights[s - 1] for s in qrels.subtopic])
    measures = ["alpha_ndcg@3", "err_ia@4", "nerr_ia", "nnrbp", "p_ia@3", "s_recall@2",
                "map_ia"]
    expected = _brute_force(run, qrels, measures)
    got = run.ir.evaluate(qrels, measures, undefined="nan")
    pd.testing.assert_frame_equal(got.loc[expected.index], expected, check_exact=False,
                                  rtol=1e-9, atol=1e-12, check_names=False)


def test_cutoff_tools_take_the_diversity_measures():
    """cutoff_curve at depth d equals the measure of the run truncated at d (the
    preparation's prefixes carry the subtopic pairs)."""
    runs, qrels = ta.load_example("web2012")
    run = runs[runs.system == "rm-catb"].drop(columns="system")
    for measure in ("alpha_ndcg@20", "nerr_ia@10", "map_ia", "s_recall@5"):
        curve = run.ir.cutoff_curve(qrels, measure, max_depth=25, ties="first")
        for depth in (1, 7, 25):
            truncated = run.groupby("qid").head(depth)
            expected = truncated.ir.evaluate(qrels, [measure], ties="first")[measure]
            got = curve[curve.depth == depth].set_index("qid")["value"]
            assert np.allclose(got.reindex(expected.index), expected), (measure, depth)


# --------------------------------------------------------------------------- empty rankings
EVERY_FORM = ["alpha_ndcg", "alpha_ndcg@5", "alpha_dcg", "alpha_dcg@5", "err_ia", "err_ia@5",
              "nerr_ia", "nerr_ia@5", "nrbp", "nnrbp", "p_ia@5", "s_recall", "s_recall@5",
              "map_ia"]


def test_empty_ranking_of_a_query_with_relevant_subtopics_scores_zero():
    """A qid of the qrels that the run does not answer scores 0 in every diversity measure,
    with and without a cut-off (ndeval -c counts such a topic as 0; pyndeval, which cannot
    take an empty ranking, gives 0 to a ranking of non-relevant documents, the same
    ranking's value), and stays in the mean under undefined="nan". P-IA without a cut-off
    is 0/0 there, as P without a cut-off."""
    import ir_measures

    qrels = pd.DataFrame({"qid": ["1", "1", "2", "2"], "subtopic": [1, 2, 1, 2],
                          "docid": ["a", "a", "b", "c"], "rel": 1})
    run = pd.DataFrame({"qid": ["1"], "docid": ["a"], "score": [2.0]})
    junk = pd.DataFrame({"qid": ["2"], "docid": ["zz"], "score": [1.0]})
    # pyndeval's values for a ranking of one non-relevant document
    assert _vs_pyndeval(junk, qrels, _irm_measures(ir_measures, ks=(2, 5))) < 1e-9
    peer = junk.ir.evaluate(qrels, EVERY_FORM, undefined="nan", queries=["2"])
    assert (peer.loc["2"] == 0).all()
    for frame in (run, pl.from_pandas(run)):
        res = frame.ir.evaluate(qrels, EVERY_FORM + ["p_ia"], undefined="nan",
                                ties="average")
        res = res.to_pandas().set_index("qid") if isinstance(res, pl.DataFrame) else res
        assert (res.loc["2", EVERY_FORM] == 0).all(), res.loc["2"]
        assert np.isnan(res.loc["2", "p_ia"])
    res = run.ir.evaluate(qrels, EVERY_FORM, undefined="nan")
    assert np.allclose(res.mean(), res.loc["1"] / 2)  # the query stays in the mean
    # a system of a by= run that lacks the qid: the same
    two = pd.concat([run.assign(sys="x"), pd.DataFrame({"qid": ["2"], "docid": ["b"],
                                                          "score": [1.0], "sys": "y"})])
    res = two.ir.evaluate(qrels, EVERY_FORM, undefined="nan", by="sys")
    assert (res.loc[("x", "2")] == 0).all() and (res.loc[("y", "1")] == 0).all()


# --------------------------------------------------------------------------- weights
def _weighted_sums(run, weighted):
    """Σ_s w_s·P@10_s / Σ_s w_s and the same for AP (Agrawal et al.'s intent-aware forms),
    each per-subtopic measure by pytrec_eval; the sums in exact rationals."""
    from fractions import Fraction

    import pytrec_eval

    rd: dict = {}
    for q, d, s in run[["qid", "docid", "score"]].itertuples(index=False):
        rd.setdefault(q, {})[d] = float(s)
    acc: dict = {}
    for (q, _), part in weighted.groupby(["qid", "subtopic"]):
        if not (part.rel > 0).any():
            continue
        qd = {q: {d: int(r > 0) for d, r in zip(part.docid, part.rel)}}
        v = pytrec_eval.RelevanceEvaluator(qd, {"P_10", "map"}).evaluate({q: rd[q]})[q]
        w = Fraction(float(part.weight.iloc[0]))
        e = acc.setdefault(q, [Fraction(0), Fraction(0), Fraction(0)])
        e[0] += w * Fraction(v["P_10"])
        e[1] += w * Fraction(v["map"])
        e[2] += w
    return {q: (float(p / t), float(a / t)) for q, (p, a, t) in acc.items()}


def test_weights_of_any_size_are_scaled_without_overflow(web_qrels):
    """Equal weights near the largest float, tiny or subnormal give pyndeval's unweighted
    values; unequal weights near the largest float or among the subnormals give the
    intent-aware sums Σ_s w_s·measure_s / Σ_s w_s (pytrec_eval per subtopic)."""
    import ir_measures

    run = ta.read_run(need(WEB / "rm-catb.run.gz")).drop(columns="system")
    run = run[run.qid.isin([str(q) for q in range(151, 156)])]
    qrels = web_qrels[web_qrels.qid.isin(run.qid.unique())]
    measures = _irm_measures(ir_measures, ks=(5, 20))
    for w in (1e308, 1.7976931348623157e308, 1e-308, 5e-324):
        assert _vs_pyndeval(run, qrels, measures, ours=qrels.assign(weight=w)) < 1e-9, w
    rng = np.random.default_rng(3)
    subs = qrels[["qid", "subtopic"]].drop_duplicates()
    for scale in (2.5e307, 1e-318):  # the first: each query's sum overflows
        subs = subs.assign(weight=(rng.integers(1, 8, len(subs)) * scale))
        weighted = qrels.merge(subs, on=["qid", "subtopic"])
        res = run.ir.evaluate(weighted, DIVERSITY + ["p_ia@10"], ties="trec_eval9",
                              undefined="nan")
        assert res.notna().all().all(), scale
        for q, (p10, ap) in _weighted_sums(run, weighted).items():
            assert abs(res.loc[q, "p_ia@10"] - p10) < 1e-9, (scale, q)
            assert abs(res.loc[q, "map_ia"] - ap) < 1e-9, (scale, q)


@pytest.mark.parametrize("weight, match", [
    (-1.0, "finite weights ≥ 0"), (np.nan, "finite weights ≥ 0"),
    (np.inf, "finite weights ≥ 0"), (-np.inf, "finite weights ≥ 0"),
    (0.0, "qid 1 with a relevant document weight 0")])
def test_weights_that_cannot_be_scaled_are_refused(weight, match):
    run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2], "docid": ["a", "b"], "rel": 1,
                          "weight": weight})
    for frame in (qrels, pl.from_pandas(qrels, nan_to_null=False)):
        with pytest.raises(ta.InputError, match=match):
            run.ir.alpha_ndcg(frame)
    # one subtopic of weight 0 beside a positive one is a valid intent distribution
    ok = qrels.assign(weight=[0.0, 1.0])
    assert run.ir.p_ia(ok, k=2).iloc[0] == 0.5


# --------------------------------------------------------------------------- subtopic ids
def test_subtopic_ids_beyond_int64_are_ids(web_qrels):
    """Subtopic ids of 64 bits and more (uint64 ≥ 2^63, whole floats ≥ 2^63, 128-bit
    integers) are ids as any other: pyndeval, given the same ids as text, agrees."""
    import ir_measures

    run = ta.read_run(need(WEB / "ql-cata.run.gz")).drop(columns="system")
    run = run[run.qid.isin([str(q) for q in range(151, 155)])]
    qrels = web_qrels[web_qrels.qid.isin(run.qid.unique())]
    measures = _irm_measures(ir_measures, ks=(5, 20))
    s = qrels.subtopic.astype(np.uint64)
    for ids in (s + np.uint64(2 ** 63), s.astype(np.float64) * 2.0 ** 63,
                s.astype(np.float64) * 2.0 ** 62, s.astype(np.float64) * 1e300):
        ours = qrels.assign(subtopic=ids)
        assert _vs_pyndeval(run, ours, measures) < 1e-9, ids.dtype
        assert _vs_pyndeval(run, ours, measures, ours=pl.from_pandas(ours)) < 1e-9
    if hasattr(pl, "Int128"):
        big = pl.from_pandas(qrels).with_columns(
            pl.col("subtopic").cast(pl.Int128) * (2 ** 70))
        text = big.with_columns(pl.col("subtopic").cast(pl.String)).to_pandas()
        assert _vs_pyndeval(run, text, measures, ours=big) < 1e-9


@pytest.mark.parametrize("values, match", [
    ([[1], [2]], "'subtopic' must hold subtopic ids .* not List"),
    ([True, False], "'subtopic' must hold subtopic ids .* not Boolean"),
    ([np.inf, 1.0], "'subtopic' holds an infinite value"),
    ([{"a": 1}, {"a": 2}], "'subtopic' must hold subtopic ids .* not Struct")])
def test_subtopic_columns_that_are_not_ids_are_refused(values, match):
    run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"qid": [1, 1], "docid": ["a", "b"], "rel": [1, 1],
                          "aspect": values})
    for frame in (qrels, qrels.lazy(), qrels.to_pandas()):
        with pytest.raises(ta.InputError, match=match.replace("subtopic'", "aspect'")):
            run.ir.alpha_ndcg(frame)


@pytest.mark.parametrize("values", [["x", "y"], [[1.0], [2.0]], [True, False]])
def test_weight_columns_that_are_not_numbers_are_refused(values):
    run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"qid": [1, 1], "subtopic": [1, 2], "docid": ["a", "b"],
                          "rel": [1, 1], "weight": values})
    for frame in (qrels, qrels.to_pandas()):
        with pytest.raises(ta.InputError, match="'weight' must hold numeric subtopic weights"):
            run.ir.p_ia(frame)


# --------------------------------------------------------------------------- greedy ideal cost
def test_greedy_ideal_work_is_sized_per_query(monkeypatch):
    """One query with many relevant documents beside many small ones: the greedy ideal's
    dense arrays are sized per block of similar queries, so the cells it allocates and the
    steps it takes stay within 8·Σ_q D_q²·S_q (ndeval's cost: D_q²·S_q per query, D_q the
    relevant documents and S_q the subtopics of query q), not n_q·max D²·max S; the values
    equal pyndeval's."""
    import ir_measures

    import trunc_accessor.metrics._novelty as nov

    blocks = []
    real = nov._ideal_blocks

    def recording(n_docs, n_subs):
        out = real(n_docs, n_subs)
        blocks.extend(out)
        return out

    monkeypatch.setattr(nov, "_ideal_blocks", recording)
    rng = np.random.default_rng(11)
    rows = []
    for q in range(60):
        n_docs, n_sub = (120, 6) if q == 0 else (int(rng.integers(1, 9)), int(rng.integers(1, 4)))
        for d in range(n_docs):
            for s in range(1, n_sub + 1):
                if rng.random() < 0.5:
                    rows.append((f"q{q}", s, f"d{d}", int(rng.integers(0, 3))))
    qrels = pd.DataFrame(rows, columns=["qid", "subtopic", "docid", "rel"])
    docs = qrels[["qid", "docid"]].drop_duplicates()
    run = docs.assign(score=rng.permutation(len(docs)) / len(docs))
    assert _vs_pyndeval(run, qrels, _irm_measures(ir_measures, ks=(5, 20))) < 1e-9
    relevant = qrels[qrels.rel > 0]
    D = relevant.groupby("qid").docid.nunique()
    S = qrels[qrels.rel > 0].groupby("qid").subtopic.max()  # subtopics are numbered 1…S
    ndeval_cost = int((D ** 2 * S.reindex(D.index)).sum())
    assert blocks and sum(len(qs) for qs, _, _ in blocks) == len(D)
    cells = sum(len(qs) * d * s for qs, d, s in blocks)
    steps = sum(len(qs) * d * d * s for qs, d, s in blocks)
    assert steps <= 8 * ndeval_cost
    assert cells <= 4 * int((D * S.reindex(D.index)).sum())
    dense = len(D) * D.max() ** 2 * S.max()  # one array for every query at once
    assert steps * 10 < dense
