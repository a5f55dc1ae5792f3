"""Topic set size design (Sakai, IRJ 2016) against independent references: statsmodels' exact
power (TTestPower, FTestAnovaPower), SciPy's chi distribution for the expected interval
width, statsmodels' two-way ANOVA for the residual variance V_E, the published Table 6.4 of
Nagata's λ approximations, and a seeded simulation of paired t-tests.

Sakai's published tables of topic set sizes (IRJ 2016, Tables 3–8; his book, chapter 6)
could not be found in a form the test could read (the papers' tables are not in the
reference text available); the Excel tools' procedure was taken from a public Python
transcription of samplesizeTTEST2/ANOVA2/CI2 (jerome-white/sakai-book, chapters/06), whose
arithmetic ``test_sakai_tools_as_transcribed`` repeats independently of the library.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest

from trunc_accessor import InputError, stats
from trunc_accessor.stats import sample_size

scipy_stats = pytest.importorskip("scipy.stats")
power_mod = pytest.importorskip("statsmodels.stats.power")


def _table(n_topics=40, n_systems=5, seed=0):
    """A per-query frame (system, qid, ap, p10) with topic and system effects."""
    rng = np.random.default_rng(seed)
    topic = rng.uniform(0, 0.5, n_topics)
    rows = []
    for s in range(n_systems):
        noise = rng.normal(0, 0.1, (n_topics, 2))
        for q in range(n_topics):
            rows.append((f"s{s}", f"q{q:02d}", topic[q] + 0.02 * s + noise[q, 0],
                         topic[q] + noise[q, 1]))
    return pd.DataFrame(rows, columns=["system", "qid", "ap", "p10"])


@pytest.mark.parametrize(("n", "d", "alpha"), [(5, 1.2, 0.05), (20, 0.5, 0.05),
                                               (60, 0.3, 0.01), (300, 0.1, 0.05)])
def test_ttest_power_is_statsmodels_noncentral_t(n, d, alpha):
    got = stats.ttest_power(n, d * 0.2, 0.04, alpha)  # σ_t = 0.2: minΔ_t = d
    want = power_mod.TTestPower().power(effect_size=d, nobs=n, alpha=alpha,
                                        alternative="two-sided")
    assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(("n", "m", "min_range", "var"), [(10, 3, 0.2, 0.05),
                                                          (40, 10, 0.1, 0.02),
                                                          (100, 2, 0.05, 0.03)])
def test_anova_power_is_statsmodels_noncentral_f(n, m, min_range, var):
    """statsmodels' Cohen f with N = m·n topics×systems: f² = λ/N = minD²/(2σ²m)."""
    got = stats.anova_power(n, min_range, var, m)
    want = power_mod.FTestAnovaPower().power(effect_size=min_range / math.sqrt(2 * var * m),
                                             nobs=m * n, alpha=0.05, k_groups=m)
    assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(("min_diff", "var", "alpha", "beta"), [(0.05, 0.02, 0.05, 0.2),
                                                                (0.1, 0.05, 0.01, 0.1),
                                                                (0.02, 0.01, 0.05, 0.3)])
def test_topics_for_ttest_is_smallest_n_of_statsmodels(min_diff, var, alpha, beta):
    want = power_mod.TTestPower().solve_power(effect_size=min_diff / math.sqrt(var),
                                              alpha=alpha, power=1 - beta)
    assert stats.topics_for_ttest(min_diff, var, alpha, beta) == math.ceil(want)


@pytest.mark.parametrize(("min_range", "var", "m"), [(0.1, 0.02, 10), (0.15, 0.05, 3),
                                                     (0.05, 0.01, 2)])
def test_topics_for_anova_is_smallest_n_of_statsmodels(min_range, var, m):
    total = power_mod.FTestAnovaPower().solve_power(
        effect_size=min_range / math.sqrt(2 * var * m), alpha=0.05, power=0.8, k_groups=m)
    assert stats.topics_for_anova(min_range, var, m) == math.ceil(total / m - 1e-9)


@pytest.mark.parametrize("n", [2, 3, 10, 57])
def test_ci_width_uses_the_chi_mean(n):
    """E[s] = σ·E[χ_{n−1}]/√(n − 1): SciPy's chi distribution, not the gamma ratio."""
    sigma = 0.3
    e_s = sigma * scipy_stats.chi(n - 1).mean() / math.sqrt(n - 1)
    want = 2 * scipy_stats.t.ppf(0.975, n - 1) * e_s / math.sqrt(n)
    assert stats.ci_width(n, sigma**2) == pytest.approx(want, rel=1e-10)
    assert stats.topics_for_ci(want * (1 + 1e-9), sigma**2) == n  # the width falls with n


def test_nagata_lambda_table_approximates_the_noncentral_chi2():
    """Sakai 2018 Table 6.4 (Nagata 2003), as transcribed in jerome-white/sakai-book
    etc/table-6.4.csv: λ ≈ x1 + x2·√φ_A reaches power 1 − β for a χ² test with φ_A degrees
    of freedom within 1% for φ_A from 4 to 99 (and within 8% below)."""
    published = {(0.01, 0.1): (10.439, 5.213), (0.01, 0.2): (7.736, 4.551),
                 (0.01, 0.3): (6.030, 4.077), (0.01, 0.4): (4.733, 3.675),
                 (0.01, 0.5): (3.653, 3.302), (0.05, 0.1): (7.049, 4.244),
                 (0.05, 0.2): (4.860, 3.584), (0.05, 0.3): (3.522, 3.112),
                 (0.05, 0.4): (2.543, 2.712), (0.05, 0.5): (1.765, 2.341)}
    assert sample_size.LAMBDA_APPROX == published
    from scipy.optimize import brentq

    for (alpha, beta), (x1, x2) in published.items():
        for phi in (1, 4, 9, 49, 99):
            c = scipy_stats.chi2.ppf(1 - alpha, phi)
            lam = brentq(lambda x: scipy_stats.ncx2.sf(c, phi, x) - (1 - beta), 1e-6, 500)
            assert abs((x1 + x2 * math.sqrt(phi)) / lam - 1) < (0.01 if phi >= 4 else 0.08)


def test_sakai_tools_as_transcribed():
    """samplesizeTTEST2/ANOVA2/CI2's arithmetic, written out here: the approximate power
    at the tool's n reaches 1 − β and one topic fewer does not; the approximations stay
    within 0.01 of the exact power and the sizes within 2 topics of the exact ones."""
    st = scipy_stats
    for min_diff, var in ((0.05, 0.02), (0.1, 0.1), (0.03, 0.005)):
        d = min_diff / math.sqrt(var)

        def approx(n):
            phi, w, lam = n - 1, st.t.ppf(0.975, n - 1), math.sqrt(n) * d
            c, s = 1 - 1 / (4 * phi), math.sqrt(1 + w * w / (2 * phi))
            return st.norm.cdf((-w * c - lam) / s) + 1 - st.norm.cdf((w * c - lam) / s)

        start = ((st.norm.ppf(0.975) - st.norm.ppf(0.2)) / d) ** 2 + st.norm.ppf(0.975) ** 2 / 2
        want = next(n for n in range(math.ceil(start), 10**6) if approx(n) >= 0.8)
        assert stats.topics_for_ttest(min_diff, var, method="sakai") == want
        assert abs(stats.topics_for_ttest(min_diff, var) - want) <= 2
        assert abs(stats.ttest_power(want, min_diff, var, method="sakai")
                   - stats.ttest_power(want, min_diff, var)) < 0.01
    for m in (2, 5, 20):
        delta = 0.1**2 / (2 * 0.02)

        def approx_f(n, m=m, delta=delta):
            pa, pe = m - 1, m * (n - 1)
            w, lam = st.f.ppf(0.95, pa, pe), n * delta
            ca, pa_ = (pa + 2 * lam) / (pa + lam), (pa + lam) ** 2 / (pa + 2 * lam)
            if ca / pa - w / pe <= 0:
                return 0.0
            u = (math.sqrt(w / pe) * math.sqrt(2 * pe - 1)
                 - math.sqrt(ca / pa) * math.sqrt(2 * pa_ - 1)) / math.sqrt(ca / pa - w / pe)
            return 1 - st.norm.cdf(u)

        want = next(n for n in range(2, 10**6) if approx_f(n) >= 0.8)
        assert stats.topics_for_anova(0.1, 0.02, m, method="sakai") == want
        assert abs(stats.topics_for_anova(0.1, 0.02, m) - want) <= 2
    # CI: ⌊n'⌋ upward while 2·t·(1 − 1/(4φ))·σ/√n > δ
    for delta, var in ((0.1, 0.02), (0.05, 0.05)):
        start = 4 * st.norm.ppf(0.975) ** 2 * var / delta**2
        want = next(n for n in range(math.floor(start), 10**6)
                    if st.t.ppf(0.975, n - 1) * (1 - 1 / (4 * (n - 1))) / math.sqrt(n)
                    <= delta / (2 * math.sqrt(var)))
        assert stats.topics_for_ci(delta, var, method="sakai") == want


def test_residual_variance_is_statsmodels_two_way_anova():
    smf = pytest.importorskip("statsmodels.formula.api")
    anova_lm = pytest.importorskip("statsmodels.stats.anova").anova_lm
    df = _table()
    got = stats.design_variance(df).set_index("metric")
    for metric in ("ap", "p10"):
        fit = smf.ols(f"{metric} ~ C(system) + C(qid)", data=df).fit()
        table = anova_lm(fit)
        assert got.loc[metric, "variance"] == pytest.approx(table.loc["Residual", "mean_sq"],
                                                            rel=1e-10)
        assert got.loc[metric, "df"] == table.loc["Residual", "df"]
        assert got.loc[metric, "variance_diff"] == pytest.approx(2 * fit.scale, rel=1e-10)


def test_pairwise_variances_average_to_twice_v_e():
    df = _table(seed=3)
    pairs = stats.design_variance(df, "pairwise")
    assert len(pairs) == 2 * 10  # two metrics × C(5, 2) pairs
    wide = df.pivot(index="qid", columns="system", values="ap")
    row = pairs[(pairs.metric == "ap") & (pairs.system == "s0") & (pairs.other == "s3")]
    assert row.variance_diff.item() == pytest.approx(np.var(wide.s0 - wide.s3, ddof=1))
    residual = stats.design_variance(df).set_index("metric")
    means = pairs.groupby("metric").variance_diff.mean()
    for metric in ("ap", "p10"):
        assert means[metric] == pytest.approx(residual.loc[metric, "variance_diff"], rel=1e-12)


def test_topic_set_size_frames_follow_the_caller():
    df = _table()
    before = df.copy()
    got = stats.topic_set_size(df, min_diff=0.05)
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is left as it was
    v = stats.design_variance(df).set_index("metric")
    for row in got.itertuples():
        assert row.n == stats.topics_for_ttest(0.05, v.loc[row.metric, "variance_diff"])
        assert row.power >= 0.8
    polars = stats.topic_set_size(pl.from_pandas(df), "anova", min_diff=0.1, systems=8)
    assert isinstance(polars, pl.DataFrame)
    assert polars["systems"].to_list() == [8, 8]
    assert polars["n"].to_list() == [stats.topics_for_anova(0.1, v.loc[m, "variance"], 8)
                                     for m in ("ap", "p10")]
    ci = stats.topic_set_size(df, "ci", delta=0.05, estimate="pairwise")
    assert len(ci) == 20 and (ci.expected_width <= 0.05).all()
    curve = stats.power_curve(df, [0.02, 0.05], n=[10, 50])
    assert len(curve) == 2 * 2 * 2
    first = curve.iloc[0]
    assert first.power == pytest.approx(
        stats.ttest_power(10, 0.02, v.loc[first.metric, "variance_diff"]))


def test_a_pair_with_identical_scores_has_no_size():
    """Two systems equal on every topic: their differences have variance 0, so no n (a
    missing value, NaN power) instead of an error that would hide the other pairs."""
    df = _table(n_systems=3)
    df.loc[df.system == "s2", "ap"] = df.loc[df.system == "s1", "ap"].to_numpy()
    got = stats.topic_set_size(df, min_diff=0.05, estimate="pairwise")
    same = got[(got.metric == "ap") & (got.system == "s1") & (got.other == "s2")]
    assert same.n.isna().all() and same.power.isna().all()
    assert got.n.notna().sum() == len(got) - 1
    curve = stats.power_curve(df, 0.05, n=20, estimate="pairwise")
    assert curve.power.isna().sum() == 1


def test_simulated_paired_t_tests_reject_at_the_computed_power():
    """Seeded simulation: 4,000 experiments of n normal paired differences with mean minD
    and variance σ_t²; the share the two-sided t-test rejects at α = 0.05 is within 3
    standard errors of the computed power."""
    rng = np.random.default_rng(20160601)
    min_diff, var = 0.05, 0.03
    n = stats.topics_for_ttest(min_diff, var)
    want = stats.ttest_power(n, min_diff, var)
    x = rng.normal(min_diff, math.sqrt(var), (4000, n))
    p = scipy_stats.ttest_1samp(x, 0.0, axis=1).pvalue
    share = float((p <= 0.05).mean())
    assert abs(share - want) < 3 * math.sqrt(want * (1 - want) / 4000)
    assert want >= 0.8


def test_simulated_anova_rejects_at_the_computed_power():
    """Seeded simulation of the least favourable means for a range minD (two systems at
    ±minD/2, the others at 0): the share of one-way ANOVAs (SciPy's f_oneway) rejecting at
    α = 0.05 is within 3 standard errors of the computed power."""
    rng = np.random.default_rng(2018)
    m, min_range, var = 4, 0.1, 0.02
    n = stats.topics_for_anova(min_range, var, m)
    want = stats.anova_power(n, min_range, var, m)
    means = [min_range / 2, -min_range / 2] + [0.0] * (m - 2)
    groups = [rng.normal(mu, math.sqrt(var), (3000, n)) for mu in means]
    share = float((scipy_stats.f_oneway(*groups, axis=1).pvalue <= 0.05).mean())
    assert abs(share - want) < 3 * math.sqrt(want * (1 - want) / 3000)


@pytest.mark.parametrize(("call", "word"), [
    (lambda: stats.ttest_power(1, 0.1, 0.1), "n="),
    (lambda: stats.ttest_power(10, 0.1, 0.1, alpha=1.0), "alpha="),
    (lambda: stats.topics_for_ttest(0.1, 0.1, beta=0), "beta="),
    (lambda: stats.topics_for_ttest(-0.1, 0.1), "min_diff="),
    (lambda: stats.topics_for_anova(0.1, 0.0, 3), "variance="),
    (lambda: stats.topics_for_anova(0.1, 0.1, 1), "systems="),
    (lambda: stats.topics_for_ci(0.1, 0.1, method="nagata"), "method="),
    (lambda: stats.topic_set_size(_table(), "anova", min_diff=0.1, estimate="pairwise"),
     "estimate='pairwise'"),
    (lambda: stats.topic_set_size(_table(), "ci", min_diff=0.1), "min_diff="),
    (lambda: stats.topic_set_size(_table(), "ttest", delta=0.1), "delta="),
    (lambda: stats.topic_set_size(_table(), "power", min_diff=0.1), "design="),
    (lambda: stats.topic_set_size(_table(n_topics=1), min_diff=0.1), "1 topic"),
    (lambda: stats.topic_set_size(_table(n_systems=1), min_diff=0.1), "two systems"),
    (lambda: stats.power_curve(_table(), 0.1, n=[1.5]), "n="),
    (lambda: stats.power_curve(_table(), 0.1, design="anova", systems=1), "systems="),
    (lambda: stats.power_curve(_table(), [], n=10), "min_diff= is empty"),
])
def test_bad_design_arguments_name_the_parameter(call, word):
    with pytest.raises(InputError, match=word.replace("(", r"\(").replace(")", r"\)")):
        call()


# --- unpaired designs (Sakai, "Topic set size design for paired and unpaired data", ICTIR
# 2018; his samplesize2SAMPLET and samplesize2SAMPLECI tools)

@pytest.mark.parametrize(("n", "d", "alpha"), [(5, 0.5, 0.05), (30, 0.3, 0.05), (80, 0.2, 0.01)])
def test_unpaired_power_is_statsmodels_two_sample_t(n, d, alpha):
    got = stats.ttest_power(n, d * 0.2, 0.04, alpha, paired=False)  # σ = 0.2
    want = power_mod.TTestIndPower().power(effect_size=d, nobs1=n, alpha=alpha, ratio=1.0,
                                           alternative="two-sided")
    assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(("min_diff", "var", "beta"), [(0.05, 0.05, 0.2), (0.1, 0.06, 0.1)])
def test_unpaired_topics_are_the_smallest_n_of_statsmodels(min_diff, var, beta):
    want = power_mod.TTestIndPower().solve_power(effect_size=min_diff / math.sqrt(var),
                                                 alpha=0.05, power=1 - beta, ratio=1.0)
    assert stats.topics_for_ttest(min_diff, var, beta=beta, paired=False) == math.ceil(want)


def test_unpaired_tools_as_transcribed():
    """samplesize2SAMPLET and samplesize2SAMPLECI's arithmetic, written out here (φ = 2n − 2,
    λ = √(n/2)·minΔ; the width condition t(1 − 1/(4φ))/√n ≤ δ/(2√2·σ), and with the gamma
    ratio t·Γ((φ + 1)/2)/(√(nφ)·Γ(φ/2)) ≤ δ/(4σ))."""
    st = scipy_stats
    for min_diff, var in ((0.05, 0.05), (0.1, 0.1)):
        d = min_diff / math.sqrt(var)

        def approx(n, d=d):
            phi, lam = 2 * n - 2, math.sqrt(n / 2) * d
            w = st.t.ppf(0.975, phi)
            c, s = 1 - 1 / (4 * phi), math.sqrt(1 + w * w / (2 * phi))
            return st.norm.cdf((-w * c - lam) / s) + 1 - st.norm.cdf((w * c - lam) / s)

        z = st.norm.ppf(0.975)
        start = 2 * ((z - st.norm.ppf(0.2)) / d) ** 2 + z**2 / 4
        want = next(n for n in range(math.ceil(start), 10**6) if approx(n) > 0.8)
        assert stats.topics_for_ttest(min_diff, var, method="sakai", paired=False) == want
    for delta, var in ((0.1, 0.05), (0.05, 0.02)):
        sigma = math.sqrt(var)
        start = 8 * st.norm.ppf(0.975) ** 2 * var / delta**2

        def fits_approx(n):
            phi = 2 * n - 2
            return (st.t.ppf(0.975, phi) * (1 - 1 / (4 * phi)) / math.sqrt(n)
                    <= delta / (2 * math.sqrt(2) * sigma))

        def fits_gamma(n):
            phi = 2 * n - 2
            ratio = math.exp(math.lgamma((phi + 1) / 2) - math.lgamma(phi / 2))
            return st.t.ppf(0.975, phi) * ratio / math.sqrt(n * phi) <= delta / (4 * sigma)

        first = next(n for n in range(math.floor(start), 10**6) if fits_approx(n))
        assert stats.topics_for_ci(delta, var, method="sakai", paired=False) == first
        assert stats.topics_for_ci(delta, var, paired=False) == next(
            n for n in range(2, 10**6) if fits_gamma(n))


def test_simulated_two_sample_t_tests_reject_at_the_computed_power():
    """Seeded simulation: 4,000 experiments of two independent samples of n topics (means 0
    and minD, variance σ²); the share scipy's ttest_ind rejects at α = 0.05 is within 3
    standard errors of the computed power, and the mean width of the 95% interval of the
    difference is within 3 standard errors of ci_width."""
    rng = np.random.default_rng(2018_0910)
    min_diff, var = 0.08, 0.05
    n = stats.topics_for_ttest(min_diff, var, paired=False)
    want = stats.ttest_power(n, min_diff, var, paired=False)
    a = rng.normal(0.0, math.sqrt(var), (4000, n))
    b = rng.normal(min_diff, math.sqrt(var), (4000, n))
    p = scipy_stats.ttest_ind(a, b, axis=1).pvalue
    share = float((p <= 0.05).mean())
    assert abs(share - want) < 3 * math.sqrt(want * (1 - want) / 4000)
    pooled = np.sqrt((a.var(axis=1, ddof=1) + b.var(axis=1, ddof=1)) / 2)
    widths = 2 * scipy_stats.t.ppf(0.975, 2 * n - 2) * pooled * math.sqrt(2 / n)
    assert abs(widths.mean() - stats.ci_width(n, var, paired=False)) < \
        3 * widths.std(ddof=1) / math.sqrt(4000)


def test_unpaired_designs_read_the_within_system_variance(cranfield):
    """variance_within is the systems' mean sample variance over the topics (pandas'
    own var per system); the unpaired designs size each sample from it."""
    runs, qrels = cranfield
    per = runs.ir.evaluate(qrels, ["ndcg@10"], by="system")
    want = per["ndcg@10"].groupby(level="system").var(ddof=1).mean()
    table = stats.design_variance(per)
    assert table["variance_within"].iloc[0] == pytest.approx(want, rel=1e-12)
    got = stats.topic_set_size(per, "ttest_unpaired", min_diff=0.05)
    assert got["n"].iloc[0] == stats.topics_for_ttest(0.05, want, paired=False)
    ci = stats.topic_set_size(per, "ci_unpaired", delta=0.1)
    assert ci["n"].iloc[0] == stats.topics_for_ci(0.1, want, paired=False)
    pair = stats.design_variance(per, estimate="pairwise").iloc[0]
    by_system = per["ndcg@10"].groupby(level="system", sort=False).var(ddof=1)
    assert pair["variance_within"] == pytest.approx(
        (by_system[pair["system"]] + by_system[pair["other"]]) / 2, rel=1e-12)
    with pytest.raises(ValueError, match="paired="):
        stats.ttest_power(10, 0.1, 0.05, paired="no")
