"""Two-way ANOVA without replication, its Tukey HSD and intervals, and the mixed model,
against Sakai's worked example (as elinor asserts it), statsmodels' ``anova_lm`` and
``MixedLM``, and scipy's studentised range distribution."""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import InputError
from trunc_accessor.warn import DroppedQueriesWarning

scipy_stats = pytest.importorskip("scipy.stats")
smf = pytest.importorskip("statsmodels.formula.api")
sm_anova = pytest.importorskip("statsmodels.stats.anova")

# ORIGIN: Sakai, "情報アクセス評価方法論" (Information Access Evaluation Methodology), Table 5.1:
# 20 topics × 3 systems, as stored in kampersanda/elinor's test-data/sakai-book/X.csv, Y.csv,
# Z.csv (column ndcg@5, queries Q1..Q20).
SAKAI = {
    "X": [0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30,
          0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20, 0.10],
    "Y": [0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30,
          0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30, 0.20],
    "Z": [0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40,
          0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40, 0.30],
}
QIDS = [f"Q{i}" for i in range(1, 21)]


def sakai_forms():
    """The same matrix as a wide pandas frame, a long Polars frame and evaluate's shape."""
    wide = pd.DataFrame(SAKAI, index=pd.Index(QIDS, name="qid"))
    long = wide.reset_index().melt(id_vars="qid", var_name="system", value_name="ndcg@5")
    indexed = long.set_index(["system", "qid"])
    return [("wide", wide, {"wide": True}), ("polars", pl.from_pandas(long), {}),
            ("indexed", indexed, {})]


def as_pandas(frame):
    return frame.to_pandas() if isinstance(frame, pl.DataFrame) else frame


@pytest.mark.parametrize("name,frame,kw", sakai_forms(), ids=[f[0] for f in sakai_forms()])
def test_sakai_worked_example_reproduces_elinor(name, frame, kw):
    """Every number elinor asserts for this matrix (elinor-py's tests and the Rust doc test
    of TwoWayAnovaWithoutReplication, 4 decimals; F and p to 4 decimals as elinor-cli's
    README prints them), whatever the input form."""
    out = ta.stats.two_way_anova(frame, **kw)
    assert isinstance(out, pl.DataFrame) == isinstance(frame, pl.DataFrame)
    table = as_pandas(out).set_index("source")
    expected = {"system": (0.1083, 2, 0.0542, 2.4749, 0.0976),
                "topic": (1.0293, 19, 0.0542, 2.4754, 0.0086)}
    for source, (s, df, v, f, p) in expected.items():
        row = table.loc[source]
        assert row.sum_sq == pytest.approx(s, abs=1e-4)
        assert row.df == df
        assert row.mean_sq == pytest.approx(v, abs=1e-4)
        assert row.F == pytest.approx(f, abs=1e-4)
        assert row.p_value == pytest.approx(p, abs=1e-4)
    assert table.loc["residual"].sum_sq == pytest.approx(0.8317, abs=1e-4)
    assert table.loc["residual"].df == 38
    assert table.loc["residual"].mean_sq == pytest.approx(0.0219, abs=1e-4)
    assert table.loc["total"].sum_sq == pytest.approx(1.9693, abs=1e-4)
    assert (table.n_topics == 20).all() and (table.n_systems == 3).all()

    intervals = as_pandas(ta.stats.two_way_intervals(frame, **kw)).set_index("system")
    assert intervals["mean"].tolist() == pytest.approx([0.3450, 0.2700, 0.2450], abs=1e-4)
    assert intervals.margin.tolist() == pytest.approx([0.0670] * 3, abs=1e-4)  # 95% MOE

    hsd = as_pandas(ta.stats.two_way_tukey_hsd(frame, **kw))
    es = dict(zip(zip(hsd.system, hsd.other), hsd.effect_size))
    assert es[("X", "Y")] == pytest.approx(0.5070, abs=1e-4)
    assert es[("X", "Z")] == pytest.approx(0.6760, abs=1e-4)
    assert es[("Y", "Z")] == pytest.approx(0.1690, abs=1e-4)


def random_long(n_topics, n_systems, seed, grid=None):
    rng = np.random.default_rng(seed)
    topic = rng.normal(0, 0.15, n_topics)[:, None]
    system = np.linspace(0, 0.1, n_systems)[None, :]
    x = np.clip(0.4 + topic + system + rng.normal(0, 0.1, (n_topics, n_systems)), 0, 1)
    if grid:
        x = np.round(x * grid) / grid
    qids = [f"t{j:03d}" for j in range(n_topics)]
    systems = [f"s{i}" for i in range(n_systems)]
    return pd.DataFrame({"system": np.repeat(systems, n_topics), "qid": qids * n_systems,
                         "score": x.T.ravel()})


SHAPES = [(10, 2, 0, None), (25, 4, 1, 10), (40, 7, 2, None), (6, 3, 3, 5)]


def statsmodels_table(long):
    fit = smf.ols("score ~ C(system) + C(topic)", data=long.rename(columns={"qid": "topic"})
                  ).fit()
    return sm_anova.anova_lm(fit).rename(index={"C(system)": "system", "C(topic)": "topic",
                                                "Residual": "residual"})


@pytest.mark.parametrize("shape", SHAPES)
def test_anova_table_and_effect_sizes_match_statsmodels_anova_lm(shape):
    long = random_long(*shape)
    ref = statsmodels_table(long)
    ours = ta.stats.two_way_anova(long).set_index("source")
    for source in ("system", "topic", "residual"):
        assert ours.loc[source].sum_sq == pytest.approx(ref.loc[source, "sum_sq"], rel=1e-9)
        assert ours.loc[source].df == ref.loc[source, "df"]
        assert ours.loc[source].mean_sq == pytest.approx(ref.loc[source, "mean_sq"], rel=1e-9)
    n_obs = len(long)
    s_t, v_e = ref.sum_sq.sum(), ref.loc["residual", "mean_sq"]
    assert ours.loc["total"].sum_sq == pytest.approx(s_t, rel=1e-9)
    s_e = ref.loc["residual", "sum_sq"]
    for source in ("system", "topic"):
        s, df, f = ref.loc[source, ["sum_sq", "df", "F"]]
        row = ours.loc[source]
        assert row.F == pytest.approx(f, rel=1e-9)
        assert row.p_value == pytest.approx(ref.loc[source, "PR(>F)"], rel=1e-9, abs=1e-15)
        assert row.eta2 == pytest.approx(s / s_t, rel=1e-9)
        assert row.eta2_partial == pytest.approx(s / (s + s_e), rel=1e-9)
        # classical ω² (Hays; Olejnik & Algina 2003): (S − φ V_E) / (S_T + V_E)
        assert row.omega2_classical == pytest.approx((s - df * v_e) / (s_t + v_e), rel=1e-9)
        # Ferro & Silvello's ω²⟨fact⟩ from F: φ (F − 1) / (φ (F − 1) + N)
        fs = df * (f - 1) / (df * (f - 1) + n_obs)
        assert row.omega2_partial == pytest.approx(fs, rel=1e-9)
        # … which is partial ω², (S − φ V_E) / (S + (N − φ) V_E)
        assert fs == pytest.approx((s - df * v_e) / (s + (n_obs - df) * v_e), rel=1e-9)


@pytest.mark.parametrize("shape", SHAPES)
def test_two_way_tukey_hsd_is_the_studentized_range_of_the_anova_residual(shape):
    long = random_long(*shape)
    ref = statsmodels_table(long)
    v_e, phi = ref.loc["residual", "mean_sq"], ref.loc["residual", "df"]
    n, m = shape[0], shape[1]
    means = long.groupby("system").score.mean()
    hsd = ta.stats.two_way_tukey_hsd(long, confidence=0.9, alpha=0.1)
    q_crit = scipy_stats.studentized_range.ppf(0.9, m, phi)
    for row in hsd.itertuples():
        delta = means[row.system] - means[row.other]
        q = abs(delta) / np.sqrt(v_e / n)
        assert row.delta == pytest.approx(delta, abs=1e-12)
        assert row.p_value == pytest.approx(scipy_stats.studentized_range.sf(q, m, phi),
                                            rel=1e-7, abs=1e-12)
        half = q_crit * np.sqrt(v_e / n)
        assert (row.ci_low, row.ci_high) == pytest.approx((delta - half, delta + half),
                                                          rel=1e-9)
        assert row.significant == (row.p_value <= 0.1)
        assert row.effect_size == pytest.approx(delta / np.sqrt(v_e), rel=1e-9)
    tukey = ta.stats.tukey_hsd(long)  # the one-way test: same rows, same leading columns
    assert list(hsd.columns[:-1]) == list(tukey.columns)
    assert hsd[["system", "other"]].equals(tukey[["system", "other"]])


def test_two_way_tukey_hsd_of_two_systems_is_the_paired_t_test():
    long = random_long(15, 2, 7)
    x = long[long.system == "s0"].score.to_numpy()
    y = long[long.system == "s1"].score.to_numpy()
    row = ta.stats.two_way_tukey_hsd(long).iloc[0]
    assert row.p_value == pytest.approx(scipy_stats.ttest_rel(x, y).pvalue, rel=1e-6)


@pytest.mark.parametrize("shape", SHAPES[1:3])
def test_per_system_intervals_use_t_of_the_residual_degrees_of_freedom(shape):
    long = random_long(*shape)
    ref = statsmodels_table(long)
    v_e, phi = ref.loc["residual", "mean_sq"], ref.loc["residual", "df"]
    out = ta.stats.two_way_intervals(long, confidence=0.99)
    margin = scipy_stats.t.ppf(0.995, phi) * np.sqrt(v_e / shape[0])
    means = long.groupby("system", sort=False).score.mean()
    assert out.margin.tolist() == pytest.approx([margin] * shape[1], rel=1e-9)
    assert out.ci_low.tolist() == pytest.approx((means - margin).tolist(), rel=1e-9)
    assert out.effect_size.tolist() == pytest.approx(
        ((means - long.score.mean()) / np.sqrt(v_e)).tolist(), rel=1e-9)


def test_a_system_lacking_a_topic_drops_that_topic_with_a_warning():
    long = random_long(12, 3, 4)
    lacking = long.drop(index=long[(long.system == "s2") & (long.qid == "t005")].index)
    with pytest.warns(DroppedQueriesWarning, match="'s2' 1 of 12"):
        got = ta.stats.two_way_anova(lacking)
    complete = long[long.qid != "t005"]
    assert got.drop(columns="n_topics").equals(
        ta.stats.two_way_anova(complete).drop(columns="n_topics"))
    assert (got.n_topics == 11).all()
    with pytest.warns(DroppedQueriesWarning, match="'s2'"):
        ta.stats.two_way_tukey_hsd(lacking)


@pytest.mark.parametrize("shape", [(20, 3, 11, None), (30, 5, 12, 10)])
def test_mixed_model_on_balanced_data_agrees_with_the_anova(shape):
    """Fixed-effect system differences = the ANOVA's system mean differences; REML's
    residual variance = V_E and the topic variance = (V_B − V_E) / m (optimiser tolerance)."""
    long = random_long(*shape)
    ref = statsmodels_table(long)
    out = ta.stats.mixed_model(long)
    assert out.converged.all()
    fixed = out[out.kind == "fixed"].set_index("term").estimate
    means = long.groupby("system", sort=False).score.mean()
    assert fixed["intercept"] == pytest.approx(means.iloc[0], abs=1e-6)
    for system in means.index[1:]:
        assert fixed[system] == pytest.approx(means[system] - means.iloc[0], abs=1e-6)
    var = out[out.kind == "variance"].set_index("term").estimate
    v_e, v_b = ref.loc["residual", "mean_sq"], ref.loc["topic", "mean_sq"]
    assert var["residual"] == pytest.approx(v_e, rel=1e-4)
    assert var["topic"] == pytest.approx((v_b - v_e) / shape[1], rel=1e-3)
    icc = out[out.kind == "icc"].set_index("term").estimate
    assert icc["topic"] == pytest.approx(var["topic"] / (var["topic"] + var["residual"]))


def test_mixed_model_with_a_group_column_fits_crossed_variance_components():
    """group= adds a variance component: the same fit as statsmodels' own formula with one
    group for all rows, topics and shards as variance components."""
    rng = np.random.default_rng(5)
    rows = []
    topic_eff, shard_eff = rng.normal(0, 0.1, 15), rng.normal(0, 0.08, 4)
    for s, sys_eff in enumerate([0.0, 0.05, 0.1]):
        for t in range(15):
            for h in range(4):
                rows.append((f"s{s}", f"t{t}", f"h{h}", 0.4 + sys_eff + topic_eff[t]
                             + shard_eff[h] + rng.normal(0, 0.05)))
    long = pd.DataFrame(rows, columns=["system", "qid", "shard", "score"])
    out = ta.stats.mixed_model(long, group="shard")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' notes on its optimiser
        ref = smf.mixedlm("score ~ C(system)", long.assign(one=1), groups="one",
                          re_formula="0", vc_formula={"topic": "0 + C(qid)",
                                                      "shard": "0 + C(shard)"}).fit(reml=True)
    fixed = out[out.kind == "fixed"].estimate.to_numpy()
    assert fixed == pytest.approx(ref.fe_params.to_numpy(), abs=1e-6)
    var = out[out.kind == "variance"].set_index("term").estimate
    ref_vc = dict(zip(ref.model.exog_vc.names, ref.vcomp))
    assert var["topic"] == pytest.approx(ref_vc["topic"], rel=1e-3)
    assert var["group"] == pytest.approx(ref_vc["shard"], rel=1e-3)
    assert var["residual"] == pytest.approx(ref.scale, rel=1e-4)
    polars = ta.stats.mixed_model(pl.from_pandas(long), group="shard")
    assert isinstance(polars, pl.DataFrame) and polars.height == len(out)


def test_bad_arguments_are_refused_naming_them():
    long = random_long(8, 3, 0)
    with pytest.raises(InputError, match="wide="):
        ta.stats.two_way_anova(long, wide="yes")
    with pytest.raises(InputError, match="undefined="):
        ta.stats.two_way_tukey_hsd(long, undefined="drop")
    with pytest.raises(InputError, match="two systems"):
        ta.stats.two_way_anova(long[long.system == "s0"])
    with pytest.raises(InputError, match="group='shard'"):
        ta.stats.mixed_model(long, group="shard")
    with pytest.raises(InputError, match="several rows for .system, qid, grp"):
        ta.stats.mixed_model(pd.concat([long.assign(grp="a")] * 2), group="grp")
    with pytest.raises(InputError, match="columns \\['name'\\]"):
        ta.stats.two_way_anova(pd.DataFrame({"a": [0.1, 0.2], "name": ["x", "y"]}), wide=True)
    with pytest.raises(InputError, match="fewer than two topics"):
        ta.stats.mixed_model(long[long.qid == "t000"])


def test_mixed_model_without_statsmodels_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "statsmodels" or m.startswith("statsmodels.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "statsmodels", None)
    with pytest.raises(ImportError, match=r'pip install "trunc_accessor\[stats\]"'):
        ta.stats.mixed_model(random_long(5, 2, 0))


def test_below_two_complete_topics_every_statistic_is_nan():
    long = random_long(1, 3, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = ta.stats.two_way_anova(long)
        hsd = ta.stats.two_way_tukey_hsd(long)
    assert table.drop(columns=["metric", "source", "n_topics", "n_systems"]).isna().all().all()
    assert hsd.p_value.isna().all() and not hsd.significant.any()


def test_a_zero_residual_leaves_f_p_and_intervals_nan_without_errors():
    """Constant scores and an exactly additive matrix (system + topic effects only): V_E
    is 0 up to rounding, so F, p, partial ω², the HSD and the intervals are NaN, as
    compare's t test of constant differences; nothing raises or warns."""
    for x in (np.full((5, 3), 0.5), np.add.outer(np.arange(5) * 0.1, np.arange(3) * 0.05)):
        long = pd.DataFrame({"system": np.repeat(["a", "b", "c"], 5),
                             "qid": [f"q{j}" for j in range(5)] * 3, "v": x.T.ravel()})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            table = ta.stats.two_way_anova(long).set_index("source")
            hsd = ta.stats.two_way_tukey_hsd(long)
            intervals = ta.stats.two_way_intervals(long)
            ta.stats.mixed_model(long)
        assert table.loc["residual"].sum_sq == 0
        assert table[["F", "p_value", "omega2_partial"]].isna().all().all()
        assert hsd.p_value.isna().all() and not hsd.significant.any()
        assert intervals.margin.isna().all()


def test_mixed_model_refuses_a_system_without_values_naming_it():
    long = random_long(6, 3, 0)
    long.loc[long.system == "s1", "score"] = np.nan
    with pytest.raises(InputError, match="system 's1' has no value of metric 'score'"):
        ta.stats.mixed_model(long)


def test_mixed_model_uses_every_cell_when_systems_lack_topics():
    long = random_long(20, 3, 9)
    lacking = long.drop(index=long[(long.system == "s2") & long.qid.isin(["t001", "t007"])]
                        .index)
    with pytest.warns(DroppedQueriesWarning, match="every cell with a value is used"):
        out = ta.stats.mixed_model(lacking)
    ref = smf.mixedlm("score ~ C(system)", lacking, groups=lacking["qid"]).fit(reml=True)
    fixed = out[out.kind == "fixed"].estimate.to_numpy()
    assert fixed == pytest.approx(ref.fe_params.to_numpy(), abs=1e-6)
    var = out[out.kind == "variance"].set_index("term").estimate
    assert var["residual"] == pytest.approx(ref.scale, rel=1e-4)
    assert var["topic"] == pytest.approx(float(ref.cov_re.iloc[0, 0]), rel=1e-3)
