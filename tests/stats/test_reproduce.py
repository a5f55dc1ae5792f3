"""Reproducibility and replicability measures against repro_eval 0.5 (irgroup/repro_eval, the
reference implementation of Breuer et al., SIGIR 2020), called here on the shipped Cranfield
runs written out as TREC run files: repro_eval reads them, scores them with ir_measures and
computes every measure itself. Pairs of the shipped systems stand for "original" and
"reproduced" runs."""
from __future__ import annotations

import math
import warnings

import ir_measures
import numpy as np
import pandas as pd
import polars as pl
import pytest
from repro_eval.Evaluator import RpdEvaluator, RplEvaluator
from repro_eval.measure.document_order import KTU, RBO
from repro_eval.util import break_ties, load_run

import trunc_accessor as ta
from trunc_accessor import DroppedQueriesWarning, InputError
from trunc_accessor.stats.reproduce_order import _discordant

METRICS = ["AP", "nDCG@10", "P@10", "RR", "Rprec", "Bpref", "R@100", "nDCG"]
# every ranking of these four is 100 long (repro_eval's KTU needs equal lengths) and each
# has tied scores (31 to 75 rows), which repro_eval orders by docid descending
B, A, B_REP, A_REP = "bm25_stem", "ql_dirichlet", "bm25l_stem", "bm25plus_stem"
# repro_eval 0.5 scores runs with ir_measures.calc, which ir_measures has from 0.4.1: on the
# test extra's floor of ir_measures (0.3.3, CI's floors run) its evaluators cannot run
SCORES_WITH_REPRO_EVAL = pytest.mark.skipif(
    not hasattr(ir_measures, "calc"), reason="repro_eval 0.5 needs ir_measures.calc "
    f"(ir_measures >= 0.4.1; {ir_measures.__version__} installed)")


def _write_run(run: pd.DataFrame, path) -> str:
    """A TREC run file sorted by score descending, equal scores by docid *ascending* (so that
    repro_eval's tie breaking, docid descending, has work to do)."""
    r = run.sort_values(["qid", "score", "docid"], ascending=[True, False, True])
    r = r.assign(q0="Q0", rank=r.groupby("qid").cumcount() + 1, tag="x")
    r[["qid", "q0", "docid", "rank", "score", "tag"]].to_csv(path, sep=" ", header=False,
                                                             index=False)
    return str(path)


def _write_qrels(qrels: pd.DataFrame, path) -> str:
    qrels.assign(it=0)[["qid", "it", "docid", "rel"]].to_csv(path, sep=" ", header=False,
                                                             index=False)
    return str(path)


def _system(runs, name):
    return runs[runs.system == name]


@pytest.fixture(scope="module")
def rpd(cranfield, tmp_path_factory):
    """repro_eval's RpdEvaluator on four Cranfield runs (top 100), evaluated."""
    runs, qrels = cranfield
    d = tmp_path_factory.mktemp("rpd")
    ev = RpdEvaluator(qrels_orig_path=_write_qrels(qrels, d / "qrels"),
                      **{f"run_{k}_path": _write_run(_system(runs, s), d / s)
                         for k, s in (("b_orig", B), ("a_orig", A), ("b_rep", B_REP),
                                      ("a_rep", A_REP))})
    ev.trim()
    ev.evaluate()
    return ev


@pytest.fixture(scope="module")
def table(cranfield):
    runs, qrels = cranfield
    return ta.reproducibility(runs, qrels, METRICS, baseline=(B, B_REP), advanced=(A, A_REP),
                              like="ir_measures", per_query=True)


def _row(table, run, metric):
    rows = table[(table.run == run) & (table.metric == metric)]
    assert len(rows) == 1
    return rows.iloc[0]


@SCORES_WITH_REPRO_EVAL
def test_effect_ratio_and_delta_ri_equal_repro_eval(rpd, table):
    er, dri = rpd.er(), rpd.dri()
    for metric in METRICS:
        row = _row(table[0], "advanced", metric)
        assert row.er == pytest.approx(er[metric], rel=1e-12), metric
        assert row.delta_ri == pytest.approx(dri[metric], rel=1e-12, abs=1e-15), metric
        assert math.isnan(_row(table[0], "baseline", metric).er)


@SCORES_WITH_REPRO_EVAL
def test_rmse_nrmse_and_paired_t_test_equal_repro_eval(rpd, table):
    rmse, nrmse, ttest = rpd.rmse(), rpd.nrmse(), rpd.ttest()
    for run in ("baseline", "advanced"):
        for metric in METRICS:
            row = _row(table[0], run, metric)
            assert row.rmse == pytest.approx(rmse[run][metric], rel=1e-12), (run, metric)
            assert row.nrmse == pytest.approx(nrmse[run][metric], rel=1e-12), (run, metric)
            assert row.p_value == pytest.approx(ttest[run][metric], rel=1e-9), (run, metric)
            assert row.n == 225


@SCORES_WITH_REPRO_EVAL
def test_means_equal_repro_eval_topic_scores(rpd, table):
    for run, orig, rep in (("baseline", rpd.run_b_orig_score, rpd.run_b_rep_score),
                           ("advanced", rpd.run_a_orig_score, rpd.run_a_rep_score)):
        for metric in METRICS:
            row = _row(table[0], run, metric)
            assert row.mean_original == pytest.approx(
                np.mean([v[metric] for v in orig.values()]), rel=1e-12)
            assert row.mean_reproduced == pytest.approx(
                np.mean([v[metric] for v in rep.values()]), rel=1e-12)


@SCORES_WITH_REPRO_EVAL
def test_ktu_and_rbo_per_query_and_mean_equal_repro_eval(rpd, table):
    ktu, rbo = rpd.ktu(per_topic=True), rpd.rbo(per_topic=True)
    ktu_mean, rbo_mean = rpd.ktu(), rpd.rbo()
    per = table[1]
    for run in ("baseline", "advanced"):
        mine = per[per.run == run].set_index("qid")
        assert sorted(mine.index) == sorted(ktu[run])
        for qid, value in ktu[run].items():
            assert mine.at[qid, "ktu"] == pytest.approx(value, abs=1e-13), (run, qid)
            assert mine.at[qid, "rbo"] == pytest.approx(rbo[run][qid], rel=1e-12), (run, qid)
        row = _row(table[0], run, "AP")
        assert row.ktu == pytest.approx(ktu_mean[run], abs=1e-13)
        assert row.rbo == pytest.approx(rbo_mean[run], rel=1e-12)


@SCORES_WITH_REPRO_EVAL
def test_rbo_at_other_depths_and_persistences_equals_repro_eval(cranfield, rpd):
    runs, _ = cranfield
    for depth, p in ((10, 0.9), (50, 0.8), (200, 0.99)):
        theirs = rpd.rbo(per_topic=True, depth=depth, p=p)["baseline"]
        mine = ta.stats.order_agreement(_system(runs, B), _system(runs, B_REP), depth=depth,
                                        p=p)
        for qid, value in theirs.items():
            assert mine.at[qid, "rbo"] == pytest.approx(value, rel=1e-12), (depth, p, qid)


def test_ties_are_broken_by_docid_descending_as_repro_eval(cranfield, tmp_path):
    """bm25_title ties 8,618 of its rows; the frames come shuffled (their row order must not
    matter) and the files sorted with ties by docid ascending: repro_eval reorders them
    docid descending, as trec_eval, and so do we."""
    runs, _ = cranfield
    title = _system(runs, "bm25_title").sample(frac=1.0, random_state=7)
    other = _system(runs, "bm25").sample(frac=1.0, random_state=8)
    theirs = RBO(load_run(_write_run(title, tmp_path / "t")),
                 load_run(_write_run(other, tmp_path / "o")), p=0.95, depth=1000,
                 pbar=False, per_topic=True)
    mine = ta.stats.order_agreement(title, other)
    assert len(theirs) == 225
    for qid, value in theirs.items():
        assert mine.at[qid, "rbo"] == pytest.approx(value, rel=1e-12), qid
    # the input order of tied rows would change the value (so the order is really chosen)
    kept = title.sort_values(["qid", "score", "docid"], ascending=[True, False, True])
    assert not np.allclose(ta.stats.order_agreement(kept.assign(score=-kept.groupby("qid")
                                                                .cumcount()), other)["rbo"],
                           mine["rbo"])


def test_ktu_of_rankings_of_different_lengths_is_over_the_common_length(cranfield, tmp_path):
    """bm25's rankings are 71 to 100 long, bm25_title's 22 to 100: repro_eval's KTU stops
    (scipy refuses samples of different sizes); ours compares the top n of each, n the
    shorter length, which is repro_eval's KTU of the runs cut to n."""
    runs, _ = cranfield
    short, long_ = _system(runs, "bm25_title"), _system(runs, "bm25")
    a = break_ties(load_run(_write_run(short, tmp_path / "s")))
    b = break_ties(load_run(_write_run(long_, tmp_path / "l")))
    with pytest.raises(ValueError):
        KTU(a, b, per_topic=True)
    cut_a, cut_b = {}, {}
    for qid in a:
        n = min(len(a[qid]), len(b[qid]))
        cut_a[qid], cut_b[qid] = dict(list(a[qid].items())[:n]), dict(list(b[qid].items())[:n])
    theirs = KTU(cut_a, cut_b, per_topic=True)
    mine = ta.stats.order_agreement(short, long_)
    for qid, value in theirs.items():
        assert mine.at[qid, "ktu"] == pytest.approx(value, abs=1e-13), qid


@SCORES_WITH_REPRO_EVAL
def test_a_query_missing_in_the_reproduction(cranfield, rpd, tmp_path):
    """Query 1 dropped from the reproduced baseline: the scores agree with repro_eval (a
    judged query the run lacks scores as an empty ranking there too); repro_eval leaves the
    query out of KTU and RBO, here it has RBO 0 and KTU NaN (with a warning): KTU's mean is
    then repro_eval's, RBO's mean counts the 0."""
    runs, qrels = cranfield
    rep = _system(runs, B_REP)
    rep = rep[rep.qid != "1"]
    path = _write_run(rep, tmp_path / "rep")
    mixed = pd.concat([_system(runs, B), rep])
    said = "reproduced baseline run 'bm25l_stem' lacks 1 of the original's 225"
    with pytest.warns(DroppedQueriesWarning, match=said):
        table, per = ta.reproducibility(mixed, qrels, METRICS, baseline=(B, B_REP),
                                        like="ir_measures", per_query=True)
    rep_score = rpd.evaluate(run_path=path)
    assert "1" in rep_score
    rmse = rpd.rmse(run_b_score=rep_score)["baseline"]
    ttest = rpd.ttest(run_b_score=rep_score)["baseline"]
    for metric in METRICS:
        row = _row(table, "baseline", metric)
        assert row.rmse == pytest.approx(rmse[metric], rel=1e-12)
        assert row.p_value == pytest.approx(ttest[metric], rel=1e-9)
    ktu = rpd.ktu(run_b_rep=load_run(path), per_topic=True)["baseline"]
    rbo = rpd.rbo(run_b_rep=load_run(path), per_topic=True)["baseline"]
    assert "1" not in ktu and len(ktu) == 224
    per = per.set_index("qid")
    assert per.at["1", "rbo"] == 0.0 and math.isnan(per.at["1", "ktu"])
    row = _row(table, "baseline", "AP")
    assert row.ktu == pytest.approx(np.mean(list(ktu.values())), abs=1e-13)
    assert row.rbo == pytest.approx(sum(rbo.values()) / 225, rel=1e-12)


@SCORES_WITH_REPRO_EVAL
def test_identical_runs_have_p_value_one_as_repro_eval(cranfield, rpd):
    runs, qrels = cranfield
    table = ta.reproducibility(runs, qrels, METRICS, baseline=(B, B), like="ir_measures")
    theirs = rpd.ttest(run_b_score=rpd.run_b_orig_score)["baseline"]
    assert set(theirs[m] for m in METRICS) == {1.0}
    assert (table.p_value == 1.0).all() and (table.rmse == 0).all()
    assert (table.ktu == 1.0).all()
    assert table.rbo.iloc[0] == pytest.approx(
        rpd.rbo(run_b_rep=rpd.run_b_orig)["baseline"], rel=1e-12)


@SCORES_WITH_REPRO_EVAL
def test_a_trec_run_reproduced_with_coarser_scores_equals_repro_eval(tmp_path):
    """The shipped TREC 2003 Robust run (uic0301, top 200 of 100 topics, scores 1000 − rank)
    against a "reproduction" printing its scores to tens (score // 10: tie groups of ten,
    which trec_eval's order and repro_eval's put in docid descending order): every score
    and order measure as repro_eval's, per query too."""
    run, qrels = ta.load_example("robust03", depth=200)
    coarse = run.assign(score=run.score // 10)
    ev = RpdEvaluator(qrels_orig_path=_write_qrels(qrels, tmp_path / "q"),
                      run_b_orig_path=_write_run(run, tmp_path / "o"),
                      run_b_rep_path=_write_run(coarse, tmp_path / "r"))
    ev.trim()
    ev.evaluate()
    runs = pd.concat([run, coarse.assign(system="coarse")])
    table, per = ta.reproducibility(runs, qrels, METRICS, baseline=("uic0301", "coarse"),
                                    like="ir_measures", per_query=True)
    rmse, ttest = ev.rmse()["baseline"], ev.ttest()["baseline"]
    for metric in METRICS:
        row = _row(table, "baseline", metric)
        assert row.rmse == pytest.approx(rmse[metric], rel=1e-12, abs=1e-15), metric
        assert row.p_value == pytest.approx(ttest[metric], rel=1e-9, nan_ok=True), metric
    assert table.rmse.max() > 0.001  # the coarser scores do change the rankings' values
    ktu, rbo = ev.ktu(per_topic=True)["baseline"], ev.rbo(per_topic=True)["baseline"]
    per = per.set_index("qid")
    assert len(per) == len(ktu) == 100
    for qid in ktu:
        assert per.at[qid, "ktu"] == pytest.approx(ktu[qid], abs=1e-13), qid
        assert per.at[qid, "rbo"] == pytest.approx(rbo[qid], rel=1e-12), qid
    assert per.ktu.max() < 1


@pytest.fixture(scope="module")
def halves(cranfield):
    """Cranfield as two collections: queries 1-112 (original) and 113-225 (replication)."""
    runs, qrels = cranfield
    first = runs.qid.astype(int) <= 112
    return (runs[first], qrels[qrels.qid.astype(int) <= 112],
            runs[~first], qrels[qrels.qid.astype(int) > 112])


@SCORES_WITH_REPRO_EVAL
def test_replicability_equals_repro_eval(halves, tmp_path):
    runs_1, qrels_1, runs_2, qrels_2 = halves
    ev = RplEvaluator(qrels_orig_path=_write_qrels(qrels_1, tmp_path / "q1"),
                      qrels_rpl_path=_write_qrels(qrels_2, tmp_path / "q2"),
                      **{f"run_{k}_path": _write_run(_system(r, s), tmp_path / k)
                         for k, r, s in (("b_orig", runs_1, B), ("a_orig", runs_1, A),
                                         ("b_rep", runs_2, B_REP), ("a_rep", runs_2, A_REP))})
    ev.trim()
    ev.evaluate()
    er, dri, ttest = ev.er(), ev.dri(), ev.ttest()
    mapping = {"b": _system(runs_1, B), "a": _system(runs_1, A),
               "b_rep": _system(runs_2, B_REP), "a_rep": _system(runs_2, A_REP)}
    table = ta.replicability(mapping, qrels_1, qrels_2, METRICS, baseline=("b", "b_rep"),
                             advanced=("a", "a_rep"), like="ir_measures")
    for metric in METRICS:
        adv = _row(table, "advanced", metric)
        assert adv.er == pytest.approx(er[metric], rel=1e-12), metric
        assert adv.delta_ri == pytest.approx(dri[metric], rel=1e-12, abs=1e-15), metric
        for run in ("baseline", "advanced"):
            row = _row(table, run, metric)
            assert row.p_value == pytest.approx(ttest[run][metric], rel=1e-9), (run, metric)
            assert (row.n_original, row.n_replicated) == (112, 113)
    assert "rmse" not in table.columns and "ktu" not in table.columns


def test_polars_runs_give_polars_tables_with_the_same_values(cranfield, table):
    runs, qrels = cranfield
    out, per = ta.reproducibility(pl.from_pandas(runs), pl.from_pandas(qrels), METRICS,
                                  baseline=(B, B_REP), advanced=(A, A_REP),
                                  like="ir_measures", per_query=True)
    assert isinstance(out, pl.DataFrame) and isinstance(per, pl.DataFrame)
    pd.testing.assert_frame_equal(out.to_pandas(), table[0], check_dtype=False)
    pd.testing.assert_frame_equal(per.to_pandas(), table[1], check_dtype=False)


def test_user_frames_are_not_modified(cranfield):
    runs, qrels = cranfield
    before_runs, before_qrels = runs.copy(), qrels.copy()
    ta.reproducibility(runs, qrels, ["AP"], baseline=(B, B_REP), advanced=(A, A_REP))
    pd.testing.assert_frame_equal(runs, before_runs)
    pd.testing.assert_frame_equal(qrels, before_qrels)


def test_discordant_pairs_equal_brute_force_counts():
    rng = np.random.default_rng(3)
    lengths = [0, 1, 2, 3, 7, 8, 9, 64, 100, 257]
    seg = np.repeat(np.arange(len(lengths)), lengths)
    t = np.concatenate([np.arange(n) for n in lengths])
    v = np.concatenate([rng.permutation(2 * n)[:n] for n in lengths]).astype(np.int64)
    got = _discordant(seg, t, v, len(lengths))
    start = 0
    for i, n in enumerate(lengths):
        w = v[start:start + n]
        assert got[i] == sum(int(w[a] > w[b]) for a in range(n) for b in range(a + 1, n))
        start += n


def test_a_bad_mapping_of_runs_is_named_as_reproducibility_s(cranfield):
    with pytest.raises(InputError, match="^reproducibility: runs is an empty mapping"):
        ta.reproducibility({}, cranfield[1], ["AP"], baseline=("a", "b"))


def test_a_run_row_without_a_system_name_is_refused(cranfield):
    """A row whose system is missing belongs to no run: refused, as experiment refuses it."""
    runs, qrels = cranfield
    nameless = runs.astype({"system": object})
    nameless.loc[nameless.index[0], "system"] = None
    for function in (ta.reproducibility, ta.replicability):
        args = (nameless, qrels) if function is ta.reproducibility else (nameless, qrels, qrels)
        with pytest.raises(InputError, match=f"^{function.__name__}: the system column "
                           "'system' has a missing value"):
            function(*args, ["AP"], baseline=("bm25", "tfidf"))


@pytest.mark.parametrize("kw, match", [
    ({"baseline": ("bm25", "nope")}, "reproduced baseline system 'nope'"),
    ({"baseline": ("bm25", "tfidf"), "advanced": ("nope", "tfidf")},
     "original advanced system 'nope'"),
    ({"baseline": "bm25"}, "baseline= must be a pair"),
    ({"baseline": ("bm25", "tfidf"), "advanced": ("a", "b", "c")}, "advanced= must be a pair"),
    ({"baseline": ("bm25", "tfidf"), "depth": 0}, "depth"),
    ({"baseline": ("bm25", "tfidf"), "p": 1.5}, "p must be"),
    ({"baseline": ("bm25", "tfidf"), "by": "team"}, "no 'team' column"),
])
def test_bad_arguments_are_refused_before_any_evaluation(cranfield, kw, match):
    runs, _ = cranfield
    # qrels that evaluate would refuse: the refusal seen is the argument's, made first
    with pytest.raises(InputError, match=match):
        ta.reproducibility(runs, "not qrels", ["AP"], **kw)


def test_replicability_refuses_bad_qrels_before_evaluating(cranfield):
    runs, qrels = cranfield
    with pytest.raises(InputError, match="qrels_replicated must be a pandas or Polars"):
        ta.replicability(runs, qrels, {"1": {"d": 1}}, ["AP"], baseline=(B, B_REP))
    with pytest.raises(InputError, match="the replicated baseline system 'nope' has no rows"):
        ta.replicability(runs, qrels, qrels, ["AP"], baseline=(B, "nope"))


def test_order_agreement_refuses_repeated_documents_and_bad_scores():
    run = pd.DataFrame({"qid": "1", "docid": ["a", "a"], "score": [2.0, 1.0]})
    ok = pd.DataFrame({"qid": "1", "docid": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="original ranks a document twice"):
        ta.stats.order_agreement(run, ok)
    with pytest.raises(InputError, match="reproduced column 'score' has missing"):
        ta.stats.order_agreement(ok, ok.assign(score=[1.0, np.nan]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = ta.stats.order_agreement(ok, ok)
    d = {"1": {"a": 2.0, "b": 1.0}}
    assert same.at["1", "ktu"] == KTU(d, d) == 1.0
    assert same.at["1", "rbo"] == pytest.approx(RBO(d, d, 0.95, 1000, False, False), rel=1e-12)
