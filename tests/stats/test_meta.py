"""Meta-analysis across collections against independent references: metafor's published
results on the BCG vaccine trials (dat.bcg), statsmodels' ``combine_effects`` (DerSimonian–
Laird and its "iterated" Paule–Mandel estimator), a direct maximisation of the restricted
likelihood with scipy.optimize, and per-collection effects computed here with pandas."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest

from trunc_accessor import InputError, stats

scipy_stats = pytest.importorskip("scipy.stats")
meta_sm = pytest.importorskip("statsmodels.stats.meta_analysis")

# The 13 BCG vaccine trials (Colditz et al., JAMA 1994), as metafor's dat.bcg: TB cases and
# non-cases in the vaccinated (tpos, tneg) and control (cpos, cneg) groups.
BCG = [(4, 119, 11, 128), (6, 300, 29, 274), (3, 228, 11, 209), (62, 13536, 248, 12619),
       (33, 5036, 47, 5761), (180, 1361, 372, 1079), (8, 2537, 10, 619),
       (505, 87886, 499, 87892), (29, 7470, 45, 7232), (17, 1699, 65, 1600),
       (186, 50448, 141, 27197), (5, 2493, 3, 2338), (27, 16886, 29, 17825)]


def _bcg():
    """Log risk ratios and their variances, as metafor's escalc(measure="RR")."""
    tp, tn, cp, cn = np.array(BCG, float).T
    y = np.log((tp / (tp + tn)) / (cp / (cp + cn)))
    v = 1 / tp - 1 / (tp + tn) + 1 / cp - 1 / (cp + cn)
    return pd.DataFrame({"collection": [f"trial{i + 1}" for i in range(13)], "value": y,
                         "variance": v})


def _combined(frame, kind):
    return frame[frame.kind == kind].iloc[0]


@pytest.mark.parametrize(("method", "want"), [
    # Viechtbauer, "Conducting meta-analyses in R with the metafor package", J. Stat. Softw.
    # 36(3), 2010, section 3 (rma with REML on dat.bcg), and metafor's rma.uni reference
    # for method="DL" and "FE" on the same data: estimate, se, ci.lb, ci.ub, tau², I², H²
    ("REML", (-0.7145, 0.1798, -1.0669, -0.3622, 0.3132, 0.9222, 12.86)),
    ("DL", (-0.7141, 0.1787, -1.0644, -0.3638, 0.3088, 0.9212, 12.69)),
])
def test_bcg_trials_give_metafors_published_results(method, want):
    got = _combined(stats.meta_analysis(_bcg(), method), "random")
    est, se, lo, hi, tau2, i2, h2 = want
    assert round(got.effect, 4) == est and round(got.se, 4) == se
    assert round(got.ci_low, 4) == lo and round(got.ci_high, 4) == hi
    assert round(got.tau2, 4) == tau2 and round(got.I2, 4) == i2 and round(got.H2, 2) == h2
    assert round(got.Q, 4) == 152.2330 and got.Q_df == 12
    fixed = _combined(stats.meta_analysis(_bcg(), "FE"), "fixed")
    assert (round(fixed.effect, 4), round(fixed.se, 4)) == (-0.4303, 0.0405)


@pytest.mark.parametrize(("method", "sm_method"), [("DL", "dl"), ("PM", "iterated")])
def test_random_effects_are_statsmodels_combine_effects(method, sm_method):
    """On heterogeneous effects (Q > k − 1; below that statsmodels' DL leaves τ² negative
    where DerSimonian and Laird truncate it at 0, as here)."""
    rng = np.random.default_rng(7)
    y, v = rng.normal(0.05, 0.1, 8), rng.uniform(0.0002, 0.002, 8)
    frame = pd.DataFrame({"collection": list("abcdefgh"), "value": y, "variance": v})
    got = stats.meta_analysis(frame, method)
    ref = meta_sm.combine_effects(y, v, method_re=sm_method)
    random, fixed = _combined(got, "random"), _combined(got, "fixed")
    assert random.tau2 == pytest.approx(ref.tau2, rel=1e-6)
    assert random.effect == pytest.approx(ref.mean_effect_re, rel=1e-6)
    assert random.se == pytest.approx(ref.sd_eff_w_re, rel=1e-6)
    assert fixed.effect == pytest.approx(ref.mean_effect_fe, rel=1e-12)
    assert fixed.Q == pytest.approx(ref.q, rel=1e-12)
    rows = got[got.kind == "collection"]
    assert np.allclose(rows.weight_random, ref.weights_rel_re, rtol=1e-6)
    assert np.allclose(rows.weight_fixed, ref.weights_rel_fe, rtol=1e-12)
    homogeneous = frame.assign(value=0.05 + 1e-4 * np.arange(8))
    assert _combined(stats.meta_analysis(homogeneous, method), "random").tau2 == 0.0


def test_reml_maximises_the_restricted_likelihood():
    """τ̂² of REML against a bounded scalar maximisation of the restricted log-likelihood
    −½Σlog(v + τ²) − ½log Σ1/(v + τ²) − ½Σ(y − μ̂)²/(v + τ²), written here."""
    from scipy.optimize import minimize_scalar

    rng = np.random.default_rng(11)
    for k in (3, 6, 15):
        y, v = rng.normal(0, 0.3, k), rng.uniform(0.01, 0.05, k)

        def negative(t, y=y, v=v):
            w = 1 / (v + t)
            mu = (w * y).sum() / w.sum()
            return 0.5 * (np.log(v + t).sum() + math.log(w.sum()) + (w * (y - mu) ** 2).sum())

        best = minimize_scalar(negative, bounds=(0, 10), method="bounded",
                               options={"xatol": 1e-12})
        frame = pd.DataFrame({"collection": range(k), "value": y, "variance": v})
        got = _combined(stats.meta_analysis(frame), "random").tau2
        assert got == pytest.approx(best.x, abs=1e-7)


def _per_query():
    """Three collections with 12, 15 and 9 queries (qids repeat across collections),
    systems a and b, metrics ap and p10; b is a plus a collection-dependent shift."""
    rng = np.random.default_rng(5)
    rows = []
    for c, (nq, shift) in enumerate(((12, 0.02), (15, 0.05), (9, -0.01))):
        for q in range(nq):
            base = rng.uniform(0, 0.6, 2)
            rows.append((f"c{c}", str(q), "a", *base))
            rows.append((f"c{c}", str(q), "b", *(base + shift + rng.normal(0, 0.05, 2))))
    return pd.DataFrame(rows, columns=["collection", "qid", "system", "ap", "p10"])


def test_collection_effects_are_paired_mean_differences():
    df = _per_query()
    before = df.copy()
    got = stats.collection_effects(df, "b", "a")
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is left as it was
    wide = df.pivot_table(index=["collection", "qid"], columns="system", values="ap")
    d = (wide["b"] - wide["a"]).groupby(level="collection")
    ap = got[got.metric == "ap"].set_index("collection")
    assert np.allclose(ap.value, d.mean()) and np.allclose(ap.variance, d.var() / d.count())
    assert ap.n.tolist() == [12, 15, 9]
    smd = stats.collection_effects(df, "b", "a", effect="smd")
    smd = smd[smd.metric == "ap"].set_index("collection")
    n = d.count()
    j = 1 - 3 / (4 * (n - 1) - 1)
    dz = d.mean() / d.std()
    assert np.allclose(smd.value, j * dz)
    assert np.allclose(smd.variance, j**2 * (1 / n + dz**2 / (2 * n)))
    combined = stats.meta_analysis(got)
    assert combined.metric.tolist().count("ap") == 5  # 3 collections + fixed + random


def test_polars_in_polars_out():
    df = pl.from_pandas(_per_query())
    effects = stats.collection_effects(df, "b", "a")
    assert isinstance(effects, pl.DataFrame)
    combined = stats.meta_analysis(effects, "DL")
    assert isinstance(combined, pl.DataFrame)
    assert combined.filter(pl.col("kind") == "random").height == 2


@pytest.mark.parametrize(("call", "word"), [
    (lambda: stats.collection_effects(_per_query(), "b", "a", collection="track"),
     "collection='track'"),
    (lambda: stats.collection_effects(_per_query(), "z", "a"), "system='z'"),
    (lambda: stats.collection_effects(_per_query(), "b", "a", effect="g"), "effect="),
    (lambda: stats.collection_effects(_per_query(), "a", "a"), "the same system"),
    (lambda: stats.collection_effects(_per_query().iloc[:2 * 12 + 2], "b", "a"),
     "collection 'c1' has 1 query"),
    (lambda: stats.meta_analysis(_bcg().iloc[:1]), "at least 2 collections"),
    (lambda: stats.meta_analysis(_bcg().assign(variance=0.0)), "'trial1'"),
    (lambda: stats.meta_analysis(_bcg(), method="HS"), "method="),
    (lambda: stats.meta_analysis(_bcg(), alpha=0), "alpha="),
    (lambda: stats.meta_analysis(_bcg(), value="yi"), "value='yi'"),
    (lambda: stats.meta_analysis(pd.concat([_bcg(), _bcg()])), "several rows"),
])
def test_bad_meta_arguments_name_the_culprit(call, word):
    with pytest.raises(InputError, match=word):
        call()
