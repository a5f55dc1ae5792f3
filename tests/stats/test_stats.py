"""trunc_accessor.stats against scipy.stats and statsmodels (the references), on seeded random
data with ties, zero differences and undefined values, and on the shipped example."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import stats
from trunc_accessor.stats import significance

scipy_stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")

TOL = 1e-12


def make(n_systems=4, n_queries=30, seed=0, grid=None, nan_frac=0.0, drop_frac=0.0):
    """Per-query frame indexed by (system, qid), metrics m1, m2. ``grid`` rounds values to
    multiples of 1/grid (ties and zero differences); NaNs and absent queries on request."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_systems):
        base = rng.uniform(0, 1, (n_queries, 2)) * 0.6 + 0.1 * s
        for q in range(n_queries):
            if drop_frac and rng.uniform() < drop_frac:
                continue
            v = base[q].copy()
            if grid:
                v = np.round(v * grid) / grid
            if nan_frac:
                v[rng.uniform(size=2) < nan_frac] = np.nan
            rows.append((f"sys{s}", f"q{q:03d}", *v))
    df = pd.DataFrame(rows, columns=["system", "qid", "m1", "m2"])
    return df.set_index(["system", "qid"])


def pair_values(df, metric, a, b, undefined="skip"):
    x = df.loc[a, metric]
    y = df.loc[b, metric]
    both = x.index.intersection(y.index, sort=False)
    x, y = x.loc[both].to_numpy(), y.loc[both].to_numpy()
    if undefined == "zero":
        x, y = np.nan_to_num(x), np.nan_to_num(y)
    ok = ~np.isnan(x) & ~np.isnan(y)
    return x[ok], y[ok]


def close(a, b, tol=TOL):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol,
                       equal_nan=True)


DATASETS = [{"seed": 1}, {"seed": 2, "grid": 10}, {"seed": 3, "grid": 5, "nan_frac": 0.1},
            {"seed": 4, "grid": 20, "drop_frac": 0.1, "nan_frac": 0.05}]


# ------------------------------------------------------------------ corrections

@pytest.mark.parametrize("method", stats.CORRECTIONS)
@pytest.mark.parametrize("seed", range(12))
def test_corrections_equal_statsmodels(method, seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 40))
    p = rng.uniform(0, 1, m) ** 3
    if seed % 3 == 0:  # ties among p-values
        p = np.round(p, 2)
    ours = stats.multipletests(p, method)
    if method == "none":
        assert close(ours, p)
        return
    reject, ref, _, _ = multitest.multipletests(p, alpha=0.05, method=method)
    assert close(ours, ref)
    assert np.array_equal(ours <= 0.05, reject)


def test_corrections_leave_nan_out():
    p = np.array([0.01, np.nan, 0.04, 0.03])
    ours = stats.multipletests(p, "holm")
    ref = multitest.multipletests(p[~np.isnan(p)], method="holm")[1]
    assert np.isnan(ours[1])
    assert close(ours[[0, 2, 3]], ref)


@pytest.mark.parametrize("correction", stats.CORRECTIONS)
def test_compare_corrections_per_family(correction):
    df = make(n_systems=4, seed=5)
    for family in ("metric", "all"):
        out = stats.compare(df, correction=correction, family=family)
        if family == "all":
            groups = [np.ones(len(out), bool)]
        else:
            groups = [(out.metric == m).to_numpy() for m in ("m1", "m2")]
        for sel in groups:
            p = out.p_value.to_numpy()[sel]
            ref = p if correction == "none" else multitest.multipletests(p, method=correction)[1]
            assert close(out.p_adjusted.to_numpy()[sel], ref)
        assert (out.significant == (out.p_adjusted <= 0.05)).all()


# ------------------------------------------------------------------ analytic tests

@pytest.mark.parametrize("kw", DATASETS)
@pytest.mark.parametrize("undefined", ["skip", "zero"])
def test_t_wilcoxon_sign_equal_scipy(kw, undefined):
    df = make(**kw)
    outs = {t: stats.compare(df, test=t, undefined=undefined, confidence=0.9)
            for t in ("t", "wilcoxon", "sign")}
    for k, row in outs["t"].iterrows():
        x, y = pair_values(df, row.metric, row.system, row.other, undefined)
        d = x - y
        assert row.n == d.size
        t = scipy_stats.ttest_rel(x, y)
        ci = t.confidence_interval(0.9)
        assert close([row.p_value, row.ci_low, row.ci_high], [t.pvalue, ci.low, ci.high])
        w = outs["wilcoxon"].loc[k]
        assert close(w.p_value, scipy_stats.wilcoxon(d).pvalue)
        s = outs["sign"].loc[k]
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        assert close(s.p_value, scipy_stats.binomtest(wins, wins + losses).pvalue)
        assert (s.wins, s.ties, s.losses) == (wins, int((d == 0).sum()), losses)
        assert close([row.mean_system, row.mean_other, row.delta], [x.mean(), y.mean(), d.mean()])
        assert close(row.effect_size, d.mean() / d.std(ddof=1))


def test_baseline_direction_and_columns():
    df = make(n_systems=3, seed=6)
    out = stats.compare(df, baseline="sys1")
    assert list(out.columns) == ["metric", "system", "baseline", "n", "mean_system",
                                 "mean_other", "delta", "ci_low", "ci_high", "p_value",
                                 "p_adjusted", "significant", "wins", "ties", "losses",
                                 "effect_size"]
    assert set(out.system) == {"sys0", "sys2"} and set(out.baseline) == {"sys1"}
    assert len(out) == 4
    allpairs = stats.compare(df)
    assert list(zip(allpairs.system, allpairs.other))[:3] == [
        ("sys0", "sys1"), ("sys0", "sys2"), ("sys1", "sys2")]
    r = out[(out.metric == "m1") & (out.system == "sys2")].iloc[0]
    x, y = pair_values(df, "m1", "sys2", "sys1")
    assert close(r.delta, (x - y).mean())


# ------------------------------------------------------------------ randomisation test

@pytest.mark.parametrize("kw", DATASETS)
def test_randomization_equal_scipy_permutation_test(kw):
    """Same sign flips as scipy (same seed): p-values equal to 1e-12 (pairs of every query
    set, with ties and zero differences). On grid data scipy's own tie tolerance
    (100 eps |observed|) can miss resampled means equal to the observed one in exact arithmetic
    (rounding noise of the sum), which ours counts; there scipy gets a statistic rounded to 12
    decimals, so that its ties are exact too."""
    df = make(n_queries=25, **kw)
    out = stats.compare(df, test="randomization", n_resamples=3000, seed=7)

    def statistic(x, axis):
        m = np.mean(x, axis=axis)
        return np.round(m, 12) if kw.get("grid") else m

    for _, row in out.iterrows():
        x, y = pair_values(df, row.metric, row.system, row.other)
        ref = scipy_stats.permutation_test(
            (x - y,), statistic, permutation_type="samples", vectorized=True,
            n_resamples=3000, rng=np.random.default_rng(7))
        assert close(row.p_value, ref.pvalue), (row.system, row.other, row.metric)


def test_randomization_exact_and_chunked(monkeypatch):
    """2**n <= n_resamples: the exact distribution (scipy's exact test, no +1); resampling in
    chunks draws the same stream as scipy's single call."""
    df = make(n_queries=9, seed=8, grid=10)
    out = stats.compare(df, test="randomization", n_resamples=600)
    for _, row in out.iterrows():
        x, y = pair_values(df, row.metric, row.system, row.other)
        ref = scipy_stats.permutation_test((x - y,), lambda v, axis: np.round(v.mean(axis), 12),
                                           permutation_type="samples", vectorized=True,
                                           n_resamples=600)
        assert close(row.p_value, ref.pvalue)
    df = make(n_queries=40, seed=9)
    whole = stats.compare(df, test="randomization", n_resamples=1000, seed=3)
    monkeypatch.setattr(significance, "_BATCH_ELEMENTS", 200)
    chunked = stats.compare(df, test="randomization", n_resamples=1000, seed=3)
    pd.testing.assert_frame_equal(whole, chunked)


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_resampling_reproducible(test):
    df = make(n_queries=30, seed=10)
    a = stats.compare(df, test=test, n_resamples=2000, seed=11)
    b = stats.compare(df, test=test, n_resamples=2000, seed=11)
    c = stats.compare(df, test=test, n_resamples=2000, seed=12)
    pd.testing.assert_frame_equal(a, b)
    assert not np.array_equal(a.p_value, c.p_value)
    # both approximate the t-test p-value on these near-normal differences (loose sanity check)
    t = stats.compare(df, test="t")
    assert np.all(np.abs(a.p_value - t.p_value) < 0.1)


# ------------------------------------------------------------------ bootstrap test and CIs

def test_bootstrap_test_formula():
    """p = (1 + #{|mean*_b - mean| >= |mean|}) / (B + 1) with indices
    default_rng(seed).integers(0, n, (B, n)): a plain re-implementation."""
    df = make(n_queries=20, seed=13, grid=10, nan_frac=0.1)
    out = stats.compare(df, test="bootstrap", n_resamples=500, seed=5)
    for _, row in out.iterrows():
        x, y = pair_values(df, row.metric, row.system, row.other)
        d = x - y
        idx = np.random.default_rng(5).integers(0, d.size, (500, d.size))
        means = d[idx].mean(axis=1)
        gamma = 100 * np.finfo(float).eps * max(abs(d.mean()), np.abs(d).mean())
        count = np.sum(np.abs(means - d.mean()) >= np.abs(d.mean()) - gamma)
        assert close(row.p_value, (count + 1) / 501)


@pytest.mark.parametrize("ci,method", [("bootstrap-percentile", "percentile"),
                                       ("bootstrap-bca", "BCa"), ("bootstrap", "BCa")])
@pytest.mark.parametrize("kw", DATASETS[1:])
def test_bootstrap_ci_equal_scipy(ci, method, kw):
    df = make(n_queries=20, **kw)
    out = stats.compare(df, ci=ci, n_resamples=999, seed=4, confidence=0.9)
    for _, row in out.iterrows():
        x, y = pair_values(df, row.metric, row.system, row.other)
        ref = scipy_stats.bootstrap((x - y,), np.mean, n_resamples=999, method=method,
                                    confidence_level=0.9, rng=np.random.default_rng(4))
        assert close([row.ci_low, row.ci_high],
                     [ref.confidence_interval.low, ref.confidence_interval.high])


# ------------------------------------------------------------------ inputs and undefined values

def test_pandas_polars_mapping_same_numbers():
    df = make(n_systems=3, seed=14, grid=10, nan_frac=0.1, drop_frac=0.1)
    ref = stats.compare(df, test="randomization", n_resamples=500, ci="bootstrap")
    pol = pl.from_pandas(df.reset_index())
    out_pl = stats.compare(pol, test="randomization", n_resamples=500, ci="bootstrap")
    assert isinstance(out_pl, pl.DataFrame)
    pd.testing.assert_frame_equal(out_pl.to_pandas(), ref, check_dtype=False)
    mapping = {s: df.loc[s] for s in ("sys0", "sys1", "sys2")}
    pd.testing.assert_frame_equal(stats.compare(mapping, test="randomization", n_resamples=500,
                                                ci="bootstrap"), ref)
    pmap = {s: pl.from_pandas(df.loc[s].reset_index()) for s in mapping}
    out = stats.compare(pmap, test="randomization", n_resamples=500, ci="bootstrap")
    assert isinstance(out, pl.DataFrame)
    pd.testing.assert_frame_equal(out.to_pandas(), ref, check_dtype=False)
    # a frame with system and qid as columns, and by= naming another level
    pd.testing.assert_frame_equal(stats.compare(df.reset_index(), test="randomization",
                                                n_resamples=500, ci="bootstrap"), ref)
    swapped = df.rename_axis(["run", "qid"]).swaplevel().sort_index()
    out = stats.compare(swapped, by="run", test="randomization", n_resamples=500, ci="bootstrap")
    assert set(out.columns) >= {"system", "other"} and len(out) == len(ref)


def test_undefined_skip_and_zero():
    df = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 3,
                       "qid": ["1", "2", "3", "4", "1", "2", "3"],
                       "ap": [0.5, np.nan, 0.2, 0.9, 0.3, 0.4, 0.2]}).set_index(["system", "qid"])
    skip = stats.compare(df, test="sign").iloc[0]
    zero = stats.compare(df, test="sign", undefined="zero").iloc[0]
    # q4 is absent from b: never paired; q2 is undefined for a: dropped or counted as 0
    assert (skip.n, skip.wins, skip.ties, skip.losses) == (2, 1, 1, 0)
    assert (zero.n, zero.wins, zero.ties, zero.losses) == (3, 1, 1, 1)
    assert close([skip.mean_system, skip.mean_other], [0.35, 0.25])
    assert close([zero.mean_system, zero.delta], [0.7 / 3, (0.2 - 0.4) / 3])
    assert close(zero.effect_size, np.mean([0.2, 0, -0.4]) / np.std([0.2, 0, -0.4], ddof=1))


def test_degenerate_pairs_are_nan_and_not_significant():
    df = pd.DataFrame({"system": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"],
                       "p": [0.5, 0.5, 0.5, 0.5]}).set_index(["system", "qid"])
    for test in stats.TESTS:
        row = stats.compare(df, test=test).iloc[0]
        assert not row.significant
        assert (row.wins, row.ties, row.losses) == (0, 2, 0)
        assert np.isnan(row.effect_size)
        if test in ("t", "wilcoxon", "sign", "bootstrap"):  # bootstrap: < 4 queries
            assert np.isnan(row.p_value)
        else:
            assert row.p_value == 1.0


# ------------------------------------------------------------------ Tukey HSD

@pytest.mark.parametrize("undefined", ["skip", "zero"])
def test_tukey_hsd_equal_scipy(undefined):
    df = make(n_systems=5, seed=15, grid=10, nan_frac=0.05)
    out = stats.tukey_hsd(df, undefined=undefined, confidence=0.9)
    for metric in ("m1", "m2"):
        wide = df[metric].unstack("system")
        if undefined == "zero":
            wide = wide.fillna(0)
        wide = wide.dropna()
        ref = scipy_stats.tukey_hsd(*[wide[s].to_numpy() for s in wide.columns])
        ci = ref.confidence_interval(0.9)
        sub = out[out.metric == metric]
        for _, row in sub.iterrows():
            i, j = int(row.system[3:]), int(row.other[3:])
            assert row.n == len(wide)
            assert close([row.p_value, row.ci_low, row.ci_high],
                         [ref.pvalue[i, j], ci.low[i, j], ci.high[i, j]])
            assert close(row.delta, wide.iloc[:, i].mean() - wide.iloc[:, j].mean())


def test_randomized_tukey_hsd_matches_plain_loop():
    df = make(n_systems=4, n_queries=15, seed=16, grid=10)
    out = stats.randomized_tukey_hsd(df, n_resamples=300, seed=2)
    x = df["m1"].unstack("system").to_numpy()
    rng = np.random.default_rng(2)
    maxima = []
    for _ in range(300):
        perm = rng.permuted(np.tile(np.arange(4), (1, 15, 1)), axis=-1)[0]
        m = np.take_along_axis(x, perm, axis=1).mean(axis=0)
        maxima.append(m.max() - m.min())
    maxima = np.array(maxima)
    sub = out[out.metric == "m1"]
    for _, row in sub.iterrows():
        gamma = 100 * np.finfo(float).eps * max(abs(row.delta), np.abs(x).mean())
        # (1 + count) / (B + 1): the observed assignment is one of the resamples
        expected = (np.sum(maxima >= abs(row.delta) - gamma) + 1) / (300 + 1)
        assert close(row.p_value, expected) and row.p_value > 0
    again = stats.randomized_tukey_hsd(df, n_resamples=300, seed=2)
    pd.testing.assert_frame_equal(out, again)
    # Larger differences have smaller p-values
    order = np.argsort(np.abs(sub.delta.to_numpy()))
    assert np.all(np.diff(sub.p_value.to_numpy()[order]) <= 0)


def test_randomized_tukey_hsd_at_the_issues_scale():
    """10,000 resamples over 250 queries × 20 systems (one metric) run vectorised (timing is
    not asserted here); the most separated pairs are significant, adjacent ones are not."""
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(250, 20)) + np.linspace(0, 0.2, 20)
    df = pd.DataFrame({"system": np.repeat([f"s{i:02d}" for i in range(20)], 250),
                       "qid": np.tile([f"q{i}" for i in range(250)], 20),
                       "ap": x.T.ravel()}).set_index(["system", "qid"])
    out = stats.randomized_tukey_hsd(df, n_resamples=10000, seed=0)
    assert len(out) == 190
    row = out[(out.system == "s00") & (out.other == "s19") | (out.system == "s19")
              & (out.other == "s00")]
    assert len(row) == 1 and row.p_value.iloc[0] < 0.01
    cmp = stats.compare(df, test="randomization", n_resamples=10000, correction="holm")
    assert len(cmp) == 190 and cmp.p_value.between(0, 1).all()


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("kwargs,name", [
    ({"test": "z"}, "test="), ({"correction": "sidak"}, "correction="),
    ({"alpha": 1.5}, "alpha="), ({"confidence": 0}, "confidence="),
    ({"n_resamples": 0}, "n_resamples="), ({"seed": "x"}, "seed="),
    ({"undefined": "drop"}, "undefined="), ({"ci": "normal"}, "ci="),
    ({"family": "each"}, "family="), ({"by": "nope"}, "by="),
])
def test_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        stats.compare(make(n_systems=2, n_queries=5), **kwargs)


def test_unknown_baseline_names_it_and_the_systems():
    with pytest.raises(ValueError, match=r"baseline='zz'.*sys0.*sys1"):
        stats.compare(make(n_systems=2, n_queries=5), baseline="zz")


def test_bad_inputs():
    with pytest.raises(ValueError, match="per_query"):
        stats.compare([1, 2, 3])
    df = make(n_systems=2, n_queries=5).reset_index()
    with pytest.raises(ValueError, match="several rows"):
        stats.compare(pd.concat([df, df.iloc[:1]]))
    with pytest.raises(ValueError):
        stats.tukey_hsd(df[df.system == "sys0"])


def test_missing_scipy_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    with pytest.raises(ImportError, match=r'pip install "trunc_accessor\[stats\]"'):
        stats.compare(make(n_systems=2, n_queries=5))


# ------------------------------------------------------------------ the shipped example

def test_example_data():
    run, qrels = ta.load_example()
    two = pd.concat([run.assign(system="a"),
                     run.assign(system="b", score=run.score.sample(frac=1, random_state=0).values)])
    res = two.ir.evaluate(qrels, ["ap", "ndcg@10"], by="system")
    out = stats.compare(res, baseline="b", test="randomization")
    assert len(out) == 2 and (out.n == 3).all()
    # 3 queries: 2**3 = 8 sign flips, the exact test; a beats the shuffled run on every query
    ap = out[out.metric == "ap"].iloc[0]
    assert (ap.wins, ap.ties, ap.losses) == (3, 0, 0)
    assert ap.p_value == pytest.approx(0.25)  # 2 * 1/8: only the observed signs are as extreme
    for test in stats.TESTS:
        out = stats.compare(res, baseline="b", test=test)
        x, y = res.loc["a", "ap"].to_numpy(), res.loc["b", "ap"].to_numpy()
        assert close(out.delta.iloc[0], (x - y).mean())
    pol = two.pipe(pl.from_pandas).ir.evaluate(pl.from_pandas(qrels), ["ap", "ndcg@10"],
                                               by="system")
    out_pl = stats.compare(pol, baseline="b", test="t")
    pd.testing.assert_frame_equal(out_pl.to_pandas(),
                                  stats.compare(res, baseline="b", test="t"), check_dtype=False)


def test_input_order_does_not_matter():
    """Queries are taken in sorted qid order, so row order does not change the resamples."""
    df = make(n_systems=3, seed=17, drop_frac=0.1)
    shuffled = df.sample(frac=1, random_state=1).sort_index(level="system", sort_remaining=False)
    kw = {"test": "randomization", "n_resamples": 500, "ci": "bootstrap-bca"}
    pd.testing.assert_frame_equal(stats.compare(df, **kw), stats.compare(shuffled, **kw))


def test_compare_docstring_renders_one_row_per_parameter():
    """The docs site renders compare's numpy docstring with mkdocstrings (griffe): every
    parameter of the signature has its own row, with its own text and the signature's
    default, and the Returns section says what is returned (it rendered the seed row with
    n_resamples' text, confidence with ci's, and a Returns of "required")."""
    import inspect

    griffe = pytest.importorskip("griffe")
    from griffe import DocstringSectionKind

    fn = griffe.load("trunc_accessor.stats.significance", docstring_parser="numpy")["compare"]
    sections = fn.docstring.parse("numpy")
    params = next(s for s in sections if s.kind is DocstringSectionKind.parameters).value
    signature = inspect.signature(stats.compare).parameters
    assert [p.name for p in params] == list(signature)
    texts = [p.description for p in params]
    assert len(set(texts)) == len(texts)
    for p in params:
        default = signature[p.name].default
        if default is not inspect.Parameter.empty:
            assert p.default == repr(default).replace("'", '"'), p.name
    assert params[[p.name for p in params].index("seed")].description.startswith("Seed")
    assert "Confidence level" in params[[p.name for p in params].index("confidence")].description
    returns = next(s for s in sections if s.kind is DocstringSectionKind.returns).value
    assert len(returns) == 1 and returns[0].description.startswith("Columns metric")


def test_tukey_hsd_says_which_systems_lack_queries():
    """tukey_hsd and randomized_tukey_hsd use the queries every system has; a query one
    system has no row for used to vanish silently. They now warn naming the system and how
    many queries it lacks (compare's warning, with their rule), and the numbers are still
    scipy.stats.tukey_hsd's over the complete queries."""
    df = make(n_systems=3, n_queries=20, seed=21, grid=10)
    gone = [("sys1", q) for q in sorted(df.loc["sys1"].index)[:4]]
    short = df.drop(index=gone)
    with pytest.warns(ta.DroppedQueriesWarning,
                      match=r"tukey_hsd: some systems lack queries .*'sys1' 4 of 20.*"
                            r"only the queries every system has"):
        out = stats.tukey_hsd(short)
    wide = short["m1"].unstack("system").dropna()
    ref = scipy_stats.tukey_hsd(*[wide[s].to_numpy() for s in wide.columns])
    row = out[out.metric == "m1"].iloc[0]
    assert row.n == 16 and close(row.p_value, ref.pvalue[0, 1])
    with pytest.warns(ta.DroppedQueriesWarning, match=r"randomized_tukey_hsd: .*'sys1' 4 of 20"):
        stats.randomized_tukey_hsd(short, n_resamples=50)
    with pytest.warns(ta.DroppedQueriesWarning, match=r"compare: .*'sys1' 4 of 20"):
        assert (stats.compare(short, baseline="sys0")["n"] == [16, 20, 16, 20]).all()
