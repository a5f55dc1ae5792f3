"""Risk-sensitive measures against references from outside the library: gdeval.pl 1.3's own
output with ``-baseline`` and ``-riskAlpha`` on the TREC 2012 Web track runs
(tests/data/gdeval_risk, see its ORIGIN), SciPy's t-tests on the same differences for TRisk,
and ZRisk/GeoRisk written out here term by term from Dinçer, Macdonald & Ounis (SIGIR 2016)
on small matrices."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, ROOT, need
from trunc_accessor import InputError

scipy_stats = pytest.importorskip("scipy.stats")

GDEVAL = ROOT / "tests" / "data" / "gdeval_risk"
WEB = DATA / "trec_web_2012"
MEASURES = {"ndcg@20": 'nDCG(dcg="exp-log2")@20', "err@20": "ERR@20"}
ALPHAS = (0, 1, 5, 10)
SYSTEMS = ("ql-cata", "rm-cata", "ql-catb", "rm-catb")
PRINTED = 0.5e-5 + 1e-12  # gdeval prints %.5f


def _run(name: str, keep=None) -> pd.DataFrame:
    run = ta.read_run(need(WEB / f"{name}.run.gz"))[["qid", "docid", "score"]]
    if keep is not None:
        run = run[keep(run["qid"].astype(int))]
    return run.assign(system=name)


def _gdeval(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """gdeval's CSV: (per topic, indexed by topic as text; the amean row)."""
    out = pd.read_csv(need(GDEVAL / name), dtype={"topic": str})
    return out[out.topic != "amean"].set_index("topic"), out[out.topic == "amean"].iloc[0]


@pytest.fixture(scope="module")
def qrels():
    return ta.read_qrels(need(WEB / "qrels.adhoc.txt.gz"))


@pytest.fixture(scope="module")
def web(qrels):
    """Every system's risk against ql-cata, per query and summarised, for every α."""
    runs = pd.concat([_run(s) for s in SYSTEMS], ignore_index=True)
    kw = dict(baseline="ql-cata", alpha=list(ALPHAS), ties="trec_eval")
    return (runs.ir.urisk(qrels, list(MEASURES.values()), by_query=True, **kw),
            runs.ir.urisk(qrels, list(MEASURES.values()), **kw))


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("system", ["rm-cata", "ql-catb", "rm-catb"])
def test_urisk_per_topic_and_mean_equal_gdeval_baseline_risk_alpha(web, system, alpha):
    per_query, summary = web
    topics, amean = _gdeval(f"{system}.base-ql-cata.a{alpha}.csv")
    assert amean["runid"] == f"indri (rel to. indri; rs=1+a; a={alpha})"
    for column, spelled in MEASURES.items():
        mine = per_query[(per_query.system == system) & (per_query.metric == spelled)
                         & (per_query.alpha == alpha)].set_index("qid")
        assert sorted(mine.index) == sorted(topics.index)
        diff = (mine["urisk"] - topics.loc[mine.index, column]).abs()
        assert diff.max() <= PRINTED, diff.idxmax()
        row = summary[(summary.system == system) & (summary.metric == spelled)
                      & (summary.alpha == alpha)].iloc[0]
        assert abs(row["urisk"] - amean[column]) <= PRINTED
        assert row["n"] == 50


def test_urisk_at_depth_10_against_another_baseline_equals_gdeval_k10(qrels):
    runs = pd.concat([_run("rm-cata"), _run("rm-catb")], ignore_index=True)
    topics, amean = _gdeval("rm-catb.base-rm-cata.k10.a5.csv")
    got = runs.ir.urisk(qrels, ['nDCG(dcg="exp-log2")@10', "ERR@10"], baseline="rm-cata",
                        alpha=5, ties="trec_eval", by_query=True)
    for column, spelled in (("ndcg@10", 'nDCG(dcg="exp-log2")@10'), ("err@10", "ERR@10")):
        mine = got[got.metric == spelled].set_index("qid")["urisk"]
        assert (mine - topics.loc[mine.index, column]).abs().max() <= PRINTED
        assert abs(mine.mean() - amean[column]) <= PRINTED


@pytest.fixture(scope="module")
def partial(qrels):
    """rm-cata without topics 151-155 against ql-cata without 153-157 (as in ORIGIN)."""
    run = _run("rm-cata", lambda q: (q < 151) | (q > 155))
    base = _run("ql-cata", lambda q: (q < 153) | (q > 157))
    return pd.concat([run, base], ignore_index=True)


def test_unanswered_topics_skipped_as_gdeval_without_c(partial, qrels):
    """Without -c gdeval scores the topics the run answered, each against the baseline's
    value, 0 where the baseline did not answer it (156, 157)."""
    topics, amean = _gdeval("rm-cata.part.base-ql-cata.part.a5.csv")
    got = partial.ir.urisk(qrels, list(MEASURES.values()), baseline="ql-cata", alpha=5,
                           ties="trec_eval", missing="skip", by_query=True)
    for column, spelled in MEASURES.items():
        mine = got[got.metric == spelled].set_index("qid")["urisk"]
        assert sorted(mine.index) == sorted(topics.index) and len(mine) == 45
        assert (mine - topics.loc[mine.index, column]).abs().max() <= PRINTED
        assert abs(mine.mean() - amean[column]) <= PRINTED


def test_unanswered_topics_empty_as_gdeval_c_but_for_its_carried_baseline(partial, qrels):
    """With -c every judged topic counts, an unanswered one as an empty ranking (0). Where
    neither the run nor the baseline answered a topic (153-155), gdeval.pl 1.3 reuses the
    baseline value of the previous unanswered topic (its variable is declared outside the
    loop): the library scores 0 − 0 = 0 there, and agrees everywhere else."""
    topics, amean = _gdeval("rm-cata.part.base-ql-cata.part.c.a5.csv")
    got = partial.ir.urisk(qrels, list(MEASURES.values()), baseline="ql-cata", alpha=5,
                           ties="trec_eval", by_query=True)
    both_missing = ["153", "154", "155"]
    for column, spelled in MEASURES.items():
        mine = got[got.metric == spelled].set_index("qid")["urisk"]
        assert len(mine) == 50 and sorted(mine.index) == sorted(topics.index)
        carried = topics.loc[both_missing, column]
        assert (carried == topics.loc["152", column]).all() and (carried < 0).all()
        assert (mine[both_missing] == 0).all()
        rest = mine.drop(both_missing)
        assert (rest - topics.loc[rest.index, column]).abs().max() <= PRINTED
        # the means differ by exactly the carried values
        assert abs(mine.mean() - (amean[column] - carried.sum() / 50)) <= PRINTED + 3e-7


@pytest.mark.parametrize("alpha", [0, 1, 5])
def test_trisk_is_scipys_t_test_on_the_weighted_differences(qrels, alpha):
    runs = pd.concat([_run("ql-cata"), _run("rm-catb")], ignore_index=True)
    values = runs.ir.evaluate(qrels, ["ERR@20"], by="system", ties="trec_eval")["ERR@20"]
    x, b = values.loc["rm-catb"].to_numpy(), values.loc["ql-cata"].to_numpy()
    d = x - b
    weighted = np.where(d < 0, (1 + alpha) * d, d)
    want = scipy_stats.ttest_1samp(weighted, 0.0)
    if alpha == 0:
        paired = scipy_stats.ttest_rel(x, b)
        assert want.statistic == pytest.approx(paired.statistic, rel=1e-12)
    got = runs.ir.urisk(qrels, "ERR@20", baseline="ql-cata", alpha=alpha, ties="trec_eval")
    row = got.iloc[0]
    assert row["trisk"] == pytest.approx(want.statistic, rel=1e-12)
    assert row["p_value"] == pytest.approx(want.pvalue, rel=1e-10)
    assert row["se"] == pytest.approx(weighted.std(ddof=1) / math.sqrt(len(d)), rel=1e-12)
    assert (row["wins"], row["ties"], row["losses"]) == (
        (d > 0).sum(), (d == 0).sum(), (d < 0).sum())
    per = runs.ir.urisk(qrels, "ERR@20", baseline="ql-cata", alpha=alpha, ties="trec_eval",
                        by_query=True)
    np.testing.assert_allclose(per["trisk"], weighted / weighted.std(ddof=1), rtol=1e-12)
    np.testing.assert_allclose(per["delta"], d, rtol=0, atol=0)


def _printed(name: str) -> pd.DataFrame:
    """gdeval.pl's per-topic values of one run, as it printed them (qid, ndcg@20, err@20)."""
    return _gdeval(name)[0].drop(columns="runid").rename_axis("qid").reset_index()


def test_urisk_and_trisk_equal_jforests_on_gdevals_printed_values():
    """jforests' getEstimates/T_measure (Dinçer and Macdonald's implementation) on the
    values gdeval.pl printed: URisk, the sample variance of the weighted differences and
    TRisk = √(c / variance) · URisk."""
    want = pd.read_csv(need(ROOT / "tests" / "data" / "jforests_trisk" / "trisk.csv"))
    for (system, alpha), rows in want.groupby(["run", "alpha"]):
        per = {"ql-cata": _printed("ql-cata.csv"), system: _printed(f"{system}.csv")}
        got = ta.stats.urisk(per, "ql-cata", alpha=alpha).set_index("metric")
        for _, row in rows.iterrows():
            mine = got.loc[row["measure"]]
            assert mine["urisk"] == pytest.approx(row["urisk"], rel=1e-9, abs=1e-15)
            assert (mine["se"] ** 2 * mine["n"]) == pytest.approx(row["paired_var"], rel=1e-9)
            assert mine["trisk"] == pytest.approx(row["trisk"], rel=1e-9)


def test_urisk_from_per_query_frames_pandas_polars_mapping_agree():
    per = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "qid": ["1", "2", "3", "4"] * 2,
                        "ap": [0.5, 0.2, 0.4, 0.9, 0.3, 0.4, 0.4, 0.1]})
    indexed = per.set_index(["system", "qid"])
    want = ta.stats.urisk(indexed, "b", alpha=[0, 2])
    d = np.array([0.2, -0.2, 0.0, 0.8])
    w2 = np.where(d < 0, 3 * d, d)
    assert want["urisk"].tolist() == pytest.approx([d.mean(), w2.mean()])
    from_polars = ta.stats.urisk(pl.from_pandas(per), "b", alpha=[0, 2], by="system")
    assert isinstance(from_polars, pl.DataFrame)
    np.testing.assert_allclose(from_polars["trisk"].to_numpy(), want["trisk"])
    mapping = {s: f.drop(columns="system") for s, f in per.groupby("system")}
    np.testing.assert_allclose(ta.urisk(mapping, "b", alpha=[0, 2])["trisk"], want["trisk"])


# ---------------------------------------------------------------------------- ZRisk, GeoRisk

def _zrisk_by_hand(matrix: list[list[float]], alpha: float) -> list[tuple[float, float]]:
    """(ZRisk, GeoRisk) of every column of a topics × systems matrix, term by term."""
    c, r = len(matrix), len(matrix[0])
    row_total = [sum(row) for row in matrix]
    col_total = [sum(matrix[i][j] for i in range(c)) for j in range(r)]
    grand = sum(row_total)
    out = []
    for j in range(r):
        z = 0.0
        for i in range(c):
            e = row_total[i] * col_total[j] / grand
            term = 0.0 if e == 0 else (matrix[i][j] - e) / math.sqrt(e)
            z += (1 + alpha) * term if matrix[i][j] < e else term
        phi = 0.5 * (1 + math.erf(z / c / math.sqrt(2)))
        out.append((z, math.sqrt(col_total[j] / c * phi)))
    return out


MATRIX = [[0.42, 0.30, 0.55], [0.10, 0.25, 0.05], [0.0, 0.0, 0.0], [0.61, 0.70, 0.40],
          [0.33, 0.12, 0.20]]


def _per_query(matrix, systems=("s1", "s2", "s3")) -> pd.DataFrame:
    return pd.DataFrame([{"system": s, "qid": f"q{i}", "ndcg": row[j]}
                         for i, row in enumerate(matrix) for j, s in enumerate(systems)])


@pytest.mark.parametrize("alpha", [0, 1, 5])
def test_zrisk_and_georisk_equal_the_formulas_written_out(alpha):
    got = ta.stats.georisk(_per_query(MATRIX), alpha=alpha, by="system")
    want = _zrisk_by_hand(MATRIX, alpha)
    assert got["zrisk"].tolist() == pytest.approx([z for z, _ in want], rel=1e-12)
    assert got["georisk"].tolist() == pytest.approx([g for _, g in want], rel=1e-12)
    assert got["n"].tolist() == [5, 5, 5]


def test_georisk_with_named_baselines_scores_each_system_on_its_own_matrix():
    """baselines=["s1", "s2"]: s3 is scored on the matrix of s1, s2 and s3 (here all), and
    a fourth system s4 on s1, s2 and s4 only."""
    extra = [[0.5], [0.0], [0.0], [0.9], [0.1]]
    four = [a + b for a, b in zip(MATRIX, extra)]
    got = ta.stats.georisk(_per_query(four, ("s1", "s2", "s3", "s4")), alpha=5,
                           baselines=["s1", "s2"], by="system").set_index("system")
    assert list(got.index) == ["s3", "s4"]
    assert got.loc["s3", "zrisk"] == pytest.approx(_zrisk_by_hand(MATRIX, 5)[2][0])
    only = [[r[0], r[1], r[3]] for r in four]
    assert got.loc["s4", "georisk"] == pytest.approx(_zrisk_by_hand(only, 5)[2][1])


def test_georisk_accessor_on_the_web_runs_equals_the_formulas(qrels):
    runs = pd.concat([_run(s) for s in SYSTEMS], ignore_index=True)
    got = runs.ir.georisk(qrels, "ERR@20", alpha=5, ties="trec_eval")
    values = runs.ir.evaluate(qrels, ["ERR@20"], by="system", ties="trec_eval")["ERR@20"]
    matrix = values.unstack("system")[list(got["system"])].to_numpy().tolist()
    want = _zrisk_by_hand(matrix, 5)
    assert got["georisk"].tolist() == pytest.approx([g for _, g in want], rel=1e-12)


# ---------------------------------------------------------------------------- frontends

def test_risk_same_on_polars_lazy_and_dask_runs_and_frames_untouched(qrels):
    dd = pytest.importorskip("dask.dataframe")
    runs = pd.concat([_run("ql-cata", lambda q: q < 160), _run("rm-catb", lambda q: q < 160)],
                     ignore_index=True)
    before = runs.copy()
    kw = dict(baseline="ql-cata", alpha=5, ties="trec_eval")
    want = runs.ir.urisk(qrels, "ERR@20", **kw)
    assert runs.equals(before)
    lazy = pl.from_pandas(runs).lazy().ir.urisk(qrels, "ERR@20", **kw)
    assert lazy["trisk"].to_list() == pytest.approx(want["trisk"].tolist())
    dask = dd.from_pandas(runs, npartitions=2).ir.urisk(qrels, "ERR@20", **kw)
    assert dask["trisk"].tolist() == pytest.approx(want["trisk"].tolist())
    geo = dd.from_pandas(runs, npartitions=2).ir.georisk(qrels, "ERR@20", alpha=5)
    assert geo["georisk"].tolist() == pytest.approx(
        runs.ir.georisk(qrels, "ERR@20", alpha=5)["georisk"].tolist())


def test_missing_skip_same_on_pandas_polars_and_dask(partial, qrels):
    dd = pytest.importorskip("dask.dataframe")
    kw = dict(baseline="ql-cata", alpha=5, ties="trec_eval", missing="skip")
    want = partial.ir.urisk(qrels, "ERR@20", **kw)
    assert want["n"].item() == 45
    for frame in (pl.from_pandas(partial), pl.from_pandas(partial).lazy(),
                  dd.from_pandas(partial, npartitions=3)):
        got = frame.ir.urisk(qrels, "ERR@20", **kw)
        assert got["n"][0] == 45 and got["urisk"][0] == pytest.approx(want["urisk"].item())


def test_baseline_given_as_a_second_run(qrels):
    run, base = _run("rm-catb").drop(columns="system"), _run("ql-cata").drop(columns="system")
    got = run.ir.urisk(qrels, "ERR@20", baseline=base, alpha=5, ties="trec_eval")
    both = pd.concat([_run("rm-catb"), _run("ql-cata")], ignore_index=True)
    want = both.ir.urisk(qrels, "ERR@20", baseline="ql-cata", alpha=5, ties="trec_eval")
    assert (got["system"].item(), got["baseline"].item()) == ("run", "baseline")
    assert got["urisk"].item() == pytest.approx(want["urisk"].item(), rel=1e-15)


# ---------------------------------------------------------------------------- refusals

@pytest.mark.parametrize("alpha", [-1, float("nan"), float("inf"), True, "5", [], [1, -2]])
def test_bad_alpha_refused_before_any_evaluation(alpha):
    runs = pd.DataFrame({"system": ["a", "b"], "qid": "1", "docid": "d", "score": 1.0})
    with pytest.raises(InputError, match="alpha="):
        runs.ir.urisk("not qrels", "ERR@20", baseline="a", alpha=alpha)
    with pytest.raises(InputError, match="alpha="):
        runs.ir.georisk("not qrels", "ERR@20", alpha=alpha)
    with pytest.raises(InputError, match="alpha="):
        ta.stats.urisk(_per_query(MATRIX), "s1", alpha=alpha)


def test_unknown_baseline_refused_before_any_evaluation():
    runs = pd.DataFrame({"system": ["a", "b"], "qid": "1", "docid": "d", "score": 1.0})
    for frame in (runs, pl.from_pandas(runs), pl.from_pandas(runs).lazy()):
        with pytest.raises(InputError, match=r"baseline 'c' is not a system.*\['a', 'b'\]"):
            frame.ir.urisk("not qrels", "ERR@20", baseline="c")
        with pytest.raises(InputError, match="baseline 'c' is not a system"):
            frame.ir.georisk("not qrels", "ERR@20", baselines=["a", "c"])


def test_bad_arguments_name_what_is_at_fault():
    per = _per_query(MATRIX)
    with pytest.raises(InputError, match=r"baseline='nope'"):
        ta.stats.urisk(per, "nope", by="system")
    with pytest.raises(InputError, match="only the baseline"):
        ta.stats.urisk(per[per.system == "s1"], "s1", by="system")
    with pytest.raises(InputError, match="baselines=.*'s1'"):
        ta.stats.georisk(per, baselines="s1", by="system")
    with pytest.raises(InputError, match="a system besides"):
        ta.stats.georisk(per, baselines=["s1", "s2", "s3"], by="system")
    negative = per.assign(ndcg=per["ndcg"] - 0.2)
    with pytest.raises(InputError, match=r"system 's1'.*qid 'q1'"):
        ta.stats.georisk(negative, by="system")
    runs = pd.DataFrame({"system": ["a", "baseline"], "qid": "1", "docid": "d", "score": 1.0})
    qrels = pd.DataFrame({"qid": ["1"], "docid": ["d"], "rel": [1]})
    with pytest.raises(InputError, match="missing="):
        runs.ir.urisk(qrels, "P@1", baseline="a", missing="all")
    with pytest.raises(InputError, match="by='sys'"):
        runs.ir.urisk(qrels, "P@1", baseline="a", by="sys")
    with pytest.raises(InputError, match="already has a system named 'baseline'"):
        runs.ir.urisk(qrels, "P@1", baseline=runs.drop(columns="system"))


def test_no_peer_names_a_risk_measure():
    """ir_measures and ranx have no risk-sensitive measure to name these after."""
    ir_measures = pytest.importorskip("ir_measures")
    ranx_metrics = pytest.importorskip("ranx.metrics")
    for name in ("URisk", "TRisk", "ZRisk", "GeoRisk"):
        with pytest.raises(Exception):  # noqa: B017 - whatever ir_measures raises
            ir_measures.parse_measure(name)
    assert not [n for n in dir(ranx_metrics) if "risk" in n.lower()]
