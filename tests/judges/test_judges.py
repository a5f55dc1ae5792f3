"""trunc_accessor.judges, label agreement: every statistic against a peer library on
hypothesis-generated label sets, exact to 1e-12 (Cohen's κ, confusion matrix, per-grade
precision/recall/F1: scikit-learn; Fleiss' κ: statsmodels; Krippendorff's α: the
`krippendorff` package; Bland–Altman: statsmodels' mean_diff_plot and NumPy; bootstrap
intervals: scipy.stats.bootstrap), on real label sets (the LLMJudge challenge's LLM judges;
TrecTools' robust03 pair, whose notebook prints the values asserted here), and the
documented edge cases (missing pairs, single-grade queries: NaN with a warning)."""
from __future__ import annotations

import gzip
import hashlib
import io
import itertools
import warnings
from importlib import resources

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor as ta

sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")

J = ta.judges
SETTINGS = settings(max_examples=20, deadline=None)
TOL = 1e-12
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def close(got, want) -> bool:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return got.shape == want.shape and bool(np.all(
        (np.isnan(got) & np.isnan(want)) | (np.abs(got - want) <= TOL)))


def quiet(fn, *args, **kw):
    """Call ``fn`` with warnings silenced (undefined values warn; the oracles warn too)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


# --------------------------------------------------------------------------- label sets
@st.composite
def label_sets(draw, judges=2, grades=(0, 1, 2, 3), missing=0.0):
    """(qid per pair, labels (n × judges) with NaN where a judge gave none)."""
    n = draw(st.integers(2, 40))
    n_q = draw(st.integers(1, 4))
    q = draw(st.lists(st.integers(0, n_q - 1), min_size=n, max_size=n))
    labels = draw(st.lists(st.lists(st.sampled_from(grades), min_size=judges,
                                    max_size=judges), min_size=n, max_size=n))
    values = np.array(labels, dtype=float)
    if missing:
        holes = draw(st.lists(st.lists(st.booleans(), min_size=judges, max_size=judges),
                              min_size=n, max_size=n))
        values[np.array(holes)] = np.nan
    return np.array([f"q{i}" for i in q]), values


def frames(qids, values, library="pandas"):
    """One qrels frame per judge; pairs a judge did not label are absent from its frame."""
    out = []
    for j in range(values.shape[1]):
        ok = ~np.isnan(values[:, j])
        frame = pd.DataFrame({"qid": qids[ok], "docid": [f"d{i}" for i in np.flatnonzero(ok)],
                              "rel": values[ok, j].astype(int)})
        out.append(pl.from_pandas(frame) if library == "polars" else frame)
    return out


def categories(values) -> list:
    return sorted(set(values[~np.isnan(values)].astype(int).tolist()))


# --------------------------------------------------------------------------- oracles
@SETTINGS
@given(label_sets(), st.sampled_from([None, "linear", "quadratic"]),
       st.sampled_from(["pandas", "polars"]))
def test_cohen_kappa_is_sklearns(data, weights, library):
    qids, values = data
    a, b = frames(qids, values, library)
    y1, y2 = values[:, 0].astype(int), values[:, 1].astype(int)
    want = quiet(sklearn_metrics.cohen_kappa_score, y1, y2, weights=weights)
    assert close(quiet(J.cohen_kappa, a, b, weights=weights), want)
    # binarised at a level: the same statistic of rel >= level
    want = quiet(sklearn_metrics.cohen_kappa_score, y1 >= 2, y2 >= 2, weights=weights)
    assert close(quiet(J.cohen_kappa, a, b, weights=weights, relevance_level=2), want)
    # per query, on the scale of the whole call (sklearn's labels=)
    per = quiet(J.cohen_kappa, a, b, weights=weights, by="qid")
    if library == "polars":
        assert isinstance(per, pl.DataFrame)
        per = per.to_pandas().set_index("qid")["cohen_kappa" + ("" if weights is None
                                                              else f"_{weights}")]
    labels = categories(values)
    for qid in sorted(set(qids)):
        m = qids == qid
        want = quiet(sklearn_metrics.cohen_kappa_score, y1[m], y2[m], weights=weights,
                     labels=labels)
        assert close(per[qid], want), qid


@SETTINGS
@given(label_sets(judges=3), st.integers(3, 5))
def test_fleiss_kappa_is_statsmodels(data, m):
    qids, values = data
    values = np.concatenate([values, values[:, :1][:, [0] * (m - 3)]], axis=1)[:, :m]
    judges = frames(qids, values)
    table = inter_rater.aggregate_raters(values.astype(int), n_cat=4)[0]
    assert close(quiet(J.fleiss_kappa, *judges), quiet(inter_rater.fleiss_kappa, table))
    per = quiet(J.fleiss_kappa, *judges, by="qid")
    for qid in sorted(set(qids)):
        sub = inter_rater.aggregate_raters(values[qids == qid].astype(int), n_cat=4)[0]
        assert close(per[qid], quiet(inter_rater.fleiss_kappa, sub)), qid


def _alpha(values, level):
    """krippendorff.alpha, NaN where the package refuses (one value, nothing pairable)."""
    try:
        return quiet(krippendorff.alpha, reliability_data=values.T, level_of_measurement=level)
    except ValueError:
        return np.nan


@SETTINGS
@given(label_sets(judges=3, grades=(0, 1, 2, 4), missing=0.3), st.sampled_from(LEVELS))
def test_krippendorff_alpha_is_the_packages_with_missing_labels(data, level):
    qids, values = data
    judges = frames(qids, values)
    if any(len(f) == 0 for f in judges):
        return
    got = quiet(J.krippendorff_alpha, *judges, level=level)  # default: missing="keep"
    assert close(got, _alpha(values, level))
    per = quiet(J.krippendorff_alpha, *judges, level=level, by="qid")
    for qid in per.index:
        assert close(per[qid], _alpha(values[qids == qid], level)), qid
    # missing="drop": the pairs every judge labelled
    full = ~np.isnan(values).any(axis=1)
    if full.any():
        got = quiet(J.krippendorff_alpha, *judges, level=level, missing="drop")
        assert close(got, _alpha(values[full], level))


def _three_judges_with_holes():
    """Three judges on 12 pairs of two queries; the third lacks four labels, the second
    one (pairs two judges still share)."""
    values = np.array([[0, 0, 1], [1, 1, np.nan], [2, 1, 2], [3, 3, np.nan], [0, 1, 0],
                       [2, 2, 2], [1, np.nan, 1], [3, 2, np.nan], [0, 0, 0], [2, 3, np.nan],
                       [1, 1, 2], [3, 3, 3]])
    qids = np.array(["q1"] * 6 + ["q2"] * 6)
    return qids, values


def test_krippendorff_alpha_default_uses_every_pairable_value_as_the_package():
    """α is defined over all pairable values (Krippendorff 2011): by default a pair that
    some judge did not label still counts with the labels it has, as krippendorff.alpha
    (NaN for the absent label) counts it, at every level; missing="drop" stays an option
    (the pairs every judge labelled). agreement's α rows follow the same default."""
    qids, values = _three_judges_with_holes()
    judges = frames(qids, values)
    full = ~np.isnan(values).any(axis=1)
    table = quiet(J.agreement, *judges, confidence=None).set_index("statistic")
    for level in LEVELS:
        want = _alpha(values, level)
        assert close(J.krippendorff_alpha(*judges, level=level), want), level
        assert close(table.loc[f"alpha_{level}", "value"], want), level
        assert close(quiet(J.krippendorff_alpha, *judges, level=level, missing="drop"),
                     _alpha(values[full], level)), level
    assert not np.isclose(_alpha(values, "nominal"), _alpha(values[full], "nominal"))
    # agreement's Cohen's κ per pair of judges: the pairs those two labelled (sklearn)
    both = ~np.isnan(values[:, 0]) & ~np.isnan(values[:, 2])
    want = sklearn_metrics.cohen_kappa_score(values[both, 0], values[both, 2])
    kappa = table.loc["cohen_kappa"].set_index("judges")["value"]
    assert close(kappa["judge_1 vs judge_3"], want)


def test_ratio_level_refuses_negative_grades():
    """Ratio data have an absolute zero: ((c − k)/(c + k))² is undefined at c = −k, so
    TREC's spam grade −2 against 2 must not count as perfect agreement. The ratio level
    refuses negative grades naming the judge, query and document; agreement leaves
    alpha_ratio out of its default statistics with a warning and refuses it on request."""
    a = pd.DataFrame({"qid": "1", "docid": list("abcd"), "rel": [2, 1, 0, 2]})
    b = a.assign(rel=[-2, 1, 0, 2])
    with pytest.raises(ta.InputError, match=r"level='ratio' needs grades ≥ 0.*'judge_2'.*"
                                            r"grade -2 to docid 'a' of qid '1'"):
        J.krippendorff_alpha(a, b, level="ratio")
    for level in ("nominal", "ordinal", "interval"):
        assert close(J.krippendorff_alpha(a, b, level=level),
                     _alpha(np.array([[2, -2], [1, 1], [0, 0], [2, 2]], float), level))
    with pytest.warns(ta.AgreementWarning, match="alpha_ratio is left out"):
        table = J.agreement(a, b, confidence=None)
    assert "alpha_ratio" not in set(table["statistic"])
    assert {"alpha_interval", "cohen_kappa"} <= set(table["statistic"])
    with pytest.raises(ta.InputError, match="level='ratio' needs grades ≥ 0"):
        J.agreement(a, b, statistics=["alpha_ratio"])
    # spam mapped to 0 first, or binarised: accepted
    assert np.isfinite(J.krippendorff_alpha(a, b.assign(rel=b.rel.clip(lower=0)),
                                            level="ratio"))
    assert np.isfinite(J.krippendorff_alpha(a, b, level="ratio", relevance_level=1))


def test_judges_accept_a_list_of_qrels_and_say_what_else_they_take():
    """A list (or tuple) of qrels frames is the judges in order, named judge_1, judge_2, …,
    for every function that takes several judges; anything else that is not a frame is
    refused with a message naming the three accepted forms."""
    qids, values = _three_judges_with_holes()
    values = np.concatenate([values, values[:, :1]], axis=1)
    judges = frames(qids, values)
    listed = quiet(J.agreement, judges, confidence=None)
    spread = quiet(J.agreement, *judges, confidence=None)
    pd.testing.assert_frame_equal(listed, spread)
    assert "judge_1, judge_2, judge_3, judge_4" in set(listed["judges"])
    assert close(quiet(J.fleiss_kappa, tuple(judges)), quiet(J.fleiss_kappa, *judges))
    assert close(J.krippendorff_alpha(judges), J.krippendorff_alpha(*judges))
    assert list(J.coverage(judges)["judge"]) == ["judge_1", "judge_2", "judge_3", "judge_4"]
    assert list(quiet(J.align, judges[:2], names=["x", "y"]).columns[2:]) == ["x", "y"]
    assert close(quiet(J.cohen_kappa, judges[:2]), quiet(J.cohen_kappa, *judges[:2]))
    assert quiet(J.confusion_matrix, judges[:2]).equals(quiet(J.confusion_matrix, *judges[:2]))
    for bad in ([judges[0], "qrels.txt"], [judges[0].to_dict()]):
        with pytest.raises(ta.InputError, match=r"not a qrels frame: pass the judges' qrels "
                                                r"frames .* separate arguments, as one list"):
            J.agreement(bad)
    with pytest.raises(ta.InputError, match="judge 1 is a str"):
        J.krippendorff_alpha("a.txt", "b.txt")
    with pytest.raises(ta.InputError, match="at least two judges' qrels, got 1"):
        J.agreement([judges[0]])


@SETTINGS
@given(label_sets(), st.sampled_from([None, "true", "pred", "all"]))
def test_confusion_matrix_and_per_grade_are_sklearns(data, normalize):
    qids, values = data
    a, b = frames(qids, values)
    y1, y2 = values[:, 0].astype(int), values[:, 1].astype(int)
    labels = categories(values)
    got = J.confusion_matrix(a, b, normalize=normalize)
    want = quiet(sklearn_metrics.confusion_matrix, y1, y2, labels=labels, normalize=normalize)
    assert list(got.index) == labels and list(got.columns) == labels
    assert close(got.to_numpy(dtype=float), want)
    table = J.per_grade(a, b)
    p, r, f, s = sklearn_metrics.precision_recall_fscore_support(
        y1, y2, labels=labels, zero_division=np.nan)
    assert table["grade"].tolist() == labels
    assert close(table["precision"], p) and close(table["recall"], r)
    assert close(table["f1"], f) and table["support"].tolist() == s.tolist()
    per = J.per_grade(a, b, by="qid")
    for qid in sorted(set(qids)):
        m = qids == qid
        p, r, f, s = sklearn_metrics.precision_recall_fscore_support(
            y1[m], y2[m], labels=labels, zero_division=np.nan)
        rows = per[per["qid"] == qid]
        assert close(rows["precision"], p) and close(rows["recall"], r) and close(rows["f1"], f)
    long = J.confusion_matrix(a, b, by="qid")
    for qid in sorted(set(qids)):
        m = qids == qid
        cells = long[long["qid"] == qid].pivot(index="reference", columns="other",
                                               values="count")
        assert close(cells.to_numpy(dtype=float), sklearn_metrics.confusion_matrix(
            y1[m], y2[m], labels=labels))


@SETTINGS
@given(label_sets(grades=(0, 1, 2, 3, 4)))
def test_bland_altman_is_the_papers_and_statsmodels(data):
    qids, values = data
    a, b = frames(qids, values)
    d = values[:, 1] - values[:, 0]
    row = J.bland_altman(a, b).iloc[0]
    sd = np.std(d, ddof=1)
    assert row["n"] == len(d) and close(row["bias"], d.mean()) and close(row["sd"], sd)
    assert close([row["loa_low"], row["loa_high"]], [d.mean() - 1.96 * sd, d.mean() + 1.96 * sd])
    per = J.bland_altman(a, b, by="qid").set_index("qid")
    for qid in sorted(set(qids)):
        dq = d[qids == qid]
        assert close(per.loc[qid, "bias"], dq.mean())
        assert close(per.loc[qid, "sd"], np.std(dq, ddof=1) if len(dq) > 1 else np.nan)


def test_bland_altman_lines_are_statsmodels_mean_diff_plot():
    """ddof=0 is statsmodels' choice: its plot's three lines are our bias and limits."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from statsmodels.graphics.agreement import mean_diff_plot

    judges = J.load_judges("llmjudge")
    a, b = judges["willia-umbrela1"], judges["Olz-gpt4o"]
    both = a.merge(b, on=["qid", "docid"])
    fig = mean_diff_plot(both["rel_y"].to_numpy(float), both["rel_x"].to_numpy(float))
    lines = [line.get_ydata()[0] for line in fig.axes[0].get_lines()]
    row = J.bland_altman(a, b, ddof=0).iloc[0]
    assert close([row["bias"], row["loa_low"], row["loa_high"]], lines)
    plt.close("all")


# --------------------------------------------------------------------------- the table
def _oracle_kappa(groups, idx):
    y1 = np.concatenate([groups[i][0] for i in idx])
    y2 = np.concatenate([groups[i][1] for i in idx])
    return sklearn_metrics.cohen_kappa_score(y1, y2)


def test_agreement_table_and_its_bootstrap_interval_are_scipys():
    """Pooled values as the peers give them on the real LLMJudge labels; the interval is
    scipy.stats.bootstrap's percentile interval of κ over resampled queries (the same
    draws: default_rng(seed).integers(0, n_queries, (B, n_queries)))."""
    import scipy.stats

    judges = J.load_judges("llmjudge")
    names = ["willia-umbrela1", "Olz-gpt4o", "h2oloo-zeroshot1"]
    table = J.agreement({n: judges[n] for n in names}, n_resamples=200, seed=7)
    wide = judges[names[0]]
    for n in names[1:]:
        wide = wide.merge(judges[n], on=["qid", "docid"], suffixes=("", f"_{n}"))
    labels = wide[["rel"] + [f"rel_{n}" for n in names[1:]]].to_numpy()
    row = table.set_index(["statistic", "judges"])["value"]
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        for weights, stat in ((None, "cohen_kappa"), ("linear", "cohen_kappa_linear"),
                              ("quadratic", "cohen_kappa_quadratic")):
            want = sklearn_metrics.cohen_kappa_score(labels[:, i], labels[:, j], weights=weights)
            assert close(row[stat, f"{a} vs {b}"], want)
        assert close(row["agreement", f"{a} vs {b}"], np.mean(labels[:, i] == labels[:, j]))
    everyone = ", ".join(names)
    counts = inter_rater.aggregate_raters(labels)[0]
    assert close(row["fleiss_kappa", everyone], inter_rater.fleiss_kappa(counts))
    for level in LEVELS:
        assert close(row[f"alpha_{level}", everyone], _alpha(labels.astype(float), level))
    assert (table["n_pairs"] == 4423).all() and (table["n_queries"] == 25).all()

    qids = sorted(wide["qid"].unique())
    groups = [(labels[wide["qid"] == q, 0], labels[wide["qid"] == q, 1]) for q in qids]
    res = scipy.stats.bootstrap((np.arange(len(qids)),), lambda idx: _oracle_kappa(groups, idx),
                                vectorized=False, n_resamples=200, method="percentile",
                                rng=np.random.default_rng(7))
    got = table[(table.statistic == "cohen_kappa") & (table.judges == f"{names[0]} vs {names[1]}")]
    assert close(got[["ci_low", "ci_high"]].to_numpy()[0],
                 [res.confidence_interval.low, res.confidence_interval.high])
    # per query, the same values as the single-statistic functions
    per = J.agreement({n: judges[n] for n in names[:2]}, by="qid", statistics=["cohen_kappa"])
    single = J.cohen_kappa(judges[names[0]], judges[names[1]], by="qid")
    assert close(per["value"], single.loc[per["qid"]].to_numpy())


def test_real_llm_judges_per_query_against_the_peers():
    judges = J.load_judges("llmjudge", library="polars")
    a, b = judges["Olz-gpt4o"], judges["RMITIR-llama70B"]
    per = J.krippendorff_alpha(a, b, level="ordinal", by="qid")
    assert isinstance(per, pl.DataFrame) and per.height == 25
    both = a.join(b, on=["qid", "docid"]).to_pandas()
    for qid, value in per.iter_rows():
        sub = both[both.qid == qid][["rel", "rel_right"]].to_numpy(float)
        assert close(value, _alpha(sub, "ordinal")), qid
    # RMITIR-llama70B's two labels of 5 sit on the scale the judges use: [0, 1, 2, 3, 5]
    assert J.confusion_matrix(a, b, names=["Olz", "RMITIR-llama70B"]).columns[1:] == [
        f"RMITIR-llama70B={g}" for g in (0, 1, 2, 3, 5)]
    assert close(J.cohen_kappa(a, b, weights="linear"), sklearn_metrics.cohen_kappa_score(
        both["rel"], both["rel_right"], weights="linear"))
    with pytest.raises(ta.InputError, match=r"grade 5 to docid .* not in grades"):
        J.cohen_kappa(a, b, grades=[0, 1, 2, 3])


def test_shipped_llm_judges_are_the_submitted_files():
    """Byte for byte the benchmark's files (git blob ids in data/llmjudge/ORIGIN)."""
    folder = resources.files("trunc_accessor").joinpath("data", "llmjudge")
    origin = folder.joinpath("ORIGIN").read_text()
    for name in ("willia-umbrela1", "Olz-gpt4o", "h2oloo-zeroshot1", "RMITIR-llama70B"):
        data = gzip.decompress(folder.joinpath(f"{name}.txt.gz").read_bytes())
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        line = next(x for x in origin.splitlines() if x.strip().startswith(f"{name}.txt.gz"))
        assert line.split()[-1] == blob, name
        assert len(data.splitlines()) == 4423


# --------------------------------------------------------------------------- TrecTools
def test_robust03_pair_reproduces_trectools_notebook():
    """TrecTools' examples/Example5_Agreement_QRels.ipynb compares robust03_qrels.txt with
    its modified copy and prints check_agreement 0.9999223578372, the confusion matrix
    [[122712, 10, 0], [0, 5667, 0], [0, 0, 407]] and check_kappa 0.999188229143584. The
    last is not Cohen's κ of the graded labels: TrecTools' check_kappa ("for binary data
    only") takes the mean grade (2 counting twice) as the share of relevant labels. It
    follows from our confusion matrix and observed agreement with that formula; Cohen's κ
    itself is sklearn's."""
    judges = J.load_judges("robust03")
    original, modified = judges["original"], judges["modified"]
    matrix = J.confusion_matrix(original, modified)
    assert matrix.to_numpy().tolist() == [[122712, 10, 0], [0, 5667, 0], [0, 0, 407]]
    table = J.agreement(judges, statistics=["agreement", "cohen_kappa"], confidence=None)
    p_o = table.loc[table.statistic == "agreement", "value"].item()
    assert abs(p_o - 0.9999223578372) < 1e-13
    counts = matrix.to_numpy(dtype=float)
    n, grades = counts.sum(), np.arange(3)
    share_a, share_b = counts.sum(1) @ grades / n, counts.sum(0) @ grades / n
    p_e = share_a * share_b + (1 - share_a) * (1 - share_b)
    assert abs((p_o - p_e) / (1 - p_e) - 0.999188229143584) < 1e-13
    both = original.merge(modified, on=["qid", "docid"])
    kappa = table.loc[table.statistic == "cohen_kappa", "value"].item()
    assert close(kappa, sklearn_metrics.cohen_kappa_score(both["rel_x"], both["rel_y"]))


def test_robust03_original_is_rebuilt_byte_for_byte():
    """load_judges("robust03") rebuilds TrecTools' robust03_qrels.txt from the shipped
    modified copy and the ten original lines: its git blob id is the original's."""
    folder = resources.files("trunc_accessor").joinpath("data", "robust03")
    modified = gzip.decompress(folder.joinpath("qrels.txt.gz").read_bytes())
    lines = folder.joinpath("qrels_original_labels.txt").read_bytes().splitlines(keepends=True)
    fix = {(line.split()[0], line.split()[2]): line for line in lines}
    original = b"".join(fix.get((line.split()[0], line.split()[2]), line)
                        for line in modified.splitlines(keepends=True))
    blob = hashlib.sha1(b"blob %d\0" % len(original) + original).hexdigest()
    assert blob == "c433f771895a3dd28f7894f81c6616c46b95616e"
    loaded = J.load_judges("robust03")["original"]
    want = pd.read_csv(io.BytesIO(original), sep=" ", header=None,
                       names=["qid", "it", "docid", "rel"], dtype={"qid": str})
    assert loaded["rel"].tolist() == want["rel"].tolist()
    assert (loaded["rel"] != J.load_judges("robust03")["modified"]["rel"]).sum() == 10


# --------------------------------------------------------------------------- auto-judge τ_AP
def test_tau_ap_reproduces_auto_judge_evaluate():
    """trec-auto-judge/auto-judge-evaluate tests/test_tau_ap_correlations.py (tauap_b, the
    symmetric τ_AP) and tests/test_correlations.py (pandas' Kendall τ) print these values
    for rankings of ten systems; ta.agreement (which leaderboard_agreement uses) gives
    them."""
    a = list(range(1, 11))
    cases = {  # b: (tauap_b, kendall)
        tuple(10 * x for x in a): (1.0, 1.0),
        tuple(a): (1.0, 1.0),
        (10, 20, 30, 40, 50, 60, 70, 80, 100, 90): (0.7777777777, 0.9555555555),
        (20, 10, 30, 40, 50, 60, 70, 80, 90, 100): (0.9753086, 0.9555555555),
        tuple(-10 * x for x in a): (-1.0, -1.0),
        tuple(-x for x in a): (-1.0, -1.0),
    }
    for b, (tau_ap, kendall) in cases.items():
        for x, y in ((a, b), (b, a)):
            assert ta.agreement.tau_ap(x, y, symmetric=True) == pytest.approx(tau_ap, abs=1e-7)
            assert ta.agreement.kendall_tau(x, y) == pytest.approx(kendall, abs=1e-9)
    # exactly (Yilmaz et al. 2008, eq. 2): a swap at the top loses 2/9 · 1, one at the
    # bottom 2/9 · 1/9
    top, bottom = (10, 20, 30, 40, 50, 60, 70, 80, 100, 90), (20, 10, 30, 40, 50, 60, 70,
                                                             80, 90, 100)
    assert ta.agreement.tau_ap(a, top) == pytest.approx(7 / 9, abs=1e-15)
    assert ta.agreement.tau_ap(a, bottom) == pytest.approx(1 - 2 / 81, abs=1e-15)


# --------------------------------------------------------------------------- edge cases
def test_missing_pairs_are_counted_and_handled_as_documented():
    a = pd.DataFrame({"qid": ["1"] * 4 + ["2"] * 2, "docid": list("abcdef"),
                      "rel": [0, 1, 2, 1, 0, 1]})
    b = pd.DataFrame({"qid": ["1"] * 3 + ["2"], "docid": list("abcx"), "rel": [0, 1, 1, 1]})
    cover = J.coverage({"a": a, "b": b}).set_index("judge")
    assert cover.loc["a"].tolist() == [6, 2, 1, 3] and cover.loc["b"].tolist() == [4, 2, 3, 1]
    with pytest.warns(ta.AgreementWarning, match=r"4 lack a label .* 'reference' 1, 'other' 3"):
        dropped = J.cohen_kappa(a, b)
    assert close(dropped, sklearn_metrics.cohen_kappa_score([0, 1, 2], [0, 1, 1]))
    zeros = J.cohen_kappa(a, b, missing="nonrelevant")
    assert close(zeros, sklearn_metrics.cohen_kappa_score([0, 1, 2, 1, 0, 1, 0],
                                                          [0, 1, 1, 0, 0, 0, 1]))
    aligned = J.align({"a": a, "b": b}, missing="keep")
    assert aligned.shape == (7, 4) and int(aligned["b"].isna().sum()) == 3
    assert len(J.align({"a": a, "b": b}, missing="nonrelevant")) == 7
    with pytest.warns(ta.AgreementWarning):
        assert len(J.align({"a": a, "b": b})) == 3
    with pytest.raises(ta.InputError, match="share no judged"):
        J.cohen_kappa(a, b.assign(qid="9"))


def test_single_grade_queries_are_nan_with_a_warning_never_a_crash():
    a = pd.DataFrame({"qid": [1, 1, 2, 2], "docid": list("abcd"), "rel": [1, 1, 0, 2]})
    b = pd.DataFrame({"qid": [1, 1, 2, 2], "docid": list("abcd"), "rel": [1, 1, 0, 1]})
    for fn, kw in ((J.cohen_kappa, {}), (J.cohen_kappa, {"weights": "quadratic"}),
                   (J.fleiss_kappa, {}), (J.krippendorff_alpha, {"level": "ordinal"})):
        with pytest.warns(ta.AgreementWarning, match=r"for 1 of 2 queries \(qid 1\)"):
            per = fn(a, b, by="qid", **kw)
        assert np.isnan(per[1]) and not np.isnan(per[2])
    same = a.assign(rel=1)
    with pytest.warns(ta.AgreementWarning, match="undefined"):
        assert np.isnan(J.cohen_kappa(same, same))
    with pytest.warns(ta.AgreementWarning):
        table = J.agreement(same, same, n_resamples=50)
    kappa = table[table.statistic == "cohen_kappa"].iloc[0]
    assert np.isnan(kappa["value"]) and np.isnan(kappa["ci_low"])
    assert table.loc[table.statistic == "agreement", "value"].item() == 1.0
    per = J.agreement(a, b, by="qid", statistics=["cohen_kappa"], names=["x", "y"])
    assert per.columns.tolist() == ["qid", "statistic", "judges", "value", "n_pairs"]


def test_polars_lazy_mixed_ids_and_bad_input():
    a = pl.DataFrame({"topic": [1, 1, 2], "doc_id": ["a", "b", "c"], "relevance": [0, 1, 2]})
    b = pd.DataFrame({"qid": ["1", "1", "2"], "docid": ["a", "b", "c"], "rel": [0, 1, 1]})
    with pytest.warns(ta.IdentifierWarning, match="compared as strings"):
        table = J.agreement(a.lazy(), b, statistics=["cohen_kappa"], confidence=None)
    assert isinstance(table, pl.DataFrame) and table["n_pairs"].item() == 3
    before = b.copy()
    J.cohen_kappa(b, b.assign(rel=[0, 0, 1]))
    pd.testing.assert_frame_equal(b, before)
    conflict = pd.concat([b, b.iloc[:1].assign(rel=2)])
    with pytest.raises(ta.InputError, match="judge 'other'.*conflicting grades"):
        J.cohen_kappa(b, conflict)
    with pytest.raises(ta.InputError, match="judge 'reference'.*no relevance column"):
        J.cohen_kappa(b.drop(columns="rel"), b)
    with pytest.raises(ta.InputError, match="two judges"):
        J.cohen_kappa({"x": b, "y": b, "z": b})
    with pytest.raises(ta.InputError, match="at least two"):
        J.fleiss_kappa(b)
    with pytest.raises(ta.InputError, match="distinct"):
        J.agreement(b, b, names=["x", "x"])
    with pytest.raises(ta.InputError, match="missing="):
        J.agreement(b, b, missing="zero")
    with pytest.raises(ta.InputError, match="level="):
        J.krippendorff_alpha(b, b, level="cardinal")
    with pytest.raises(ta.InputError, match="statistics="):
        J.agreement(b, b, statistics=["scotts_pi"])
    with pytest.raises(ta.InputError, match="exclude each other"):
        J.cohen_kappa(b, b, relevance_level=1, grades=[0, 1])
    with pytest.raises(ta.InputError, match="by="):
        J.cohen_kappa(b, b, by="docid")
    with pytest.raises(ta.InputError, match="confidence="):
        J.agreement(b, b, confidence=1.5)
    scores = pd.DataFrame({"qid": 1, "docid": np.arange(8000), "rel": np.arange(8000) / 7})
    with pytest.raises(ta.InputError, match="8000 distinct values .* relevance_level="):
        J.cohen_kappa(scores, scores)


@pytest.mark.parametrize("level", ["2", float("nan"), True])
def test_a_bad_relevance_level_is_refused_before_the_labels_are_read(level):
    """relevance_level= (and its clash with grades=) is an option of the call: refused
    before any judge's frame is read, so even a frame that would be refused is not."""
    unread = pd.DataFrame({"x": [1]})  # no qid, docid or grade column
    for fn in (J.cohen_kappa, J.fleiss_kappa, J.confusion_matrix):
        with pytest.raises(ta.InputError, match=r"relevance_level= must be a number, not "):
            fn(unread, unread, relevance_level=level)
    with pytest.raises(ta.InputError, match="exclude each other"):
        J.cohen_kappa(unread, unread, relevance_level=1, grades=[0, 1])


def test_alpha_and_bland_altman_intervals_are_scipys_percentile_bootstrap():
    """The bootstrap resamples queries for every statistic: Krippendorff's α (krippendorff)
    and the Bland–Altman bias (NumPy) recomputed on scipy.stats.bootstrap's resamples."""
    import scipy.stats

    judges = J.load_judges("llmjudge")
    a, b = judges["Olz-gpt4o"], judges["h2oloo-zeroshot1"]
    both = a.merge(b, on=["qid", "docid"])
    qids = sorted(both["qid"].unique())
    rows = [both.loc[both.qid == q, ["rel_x", "rel_y"]].to_numpy(float) for q in qids]

    def resampled(statistic):
        return scipy.stats.bootstrap(
            (np.arange(len(qids)),), lambda idx: statistic(np.concatenate([rows[i] for i in idx])),
            vectorized=False, n_resamples=150, method="percentile",
            rng=np.random.default_rng(3)).confidence_interval

    table = J.agreement(a, b, statistics=["alpha_interval"], n_resamples=150, seed=3)
    want = resampled(lambda x: krippendorff.alpha(x.T, level_of_measurement="interval"))
    assert close(table[["ci_low", "ci_high"]].to_numpy()[0], [want.low, want.high])
    ba = J.bland_altman(a, b, confidence=0.95, n_resamples=150, seed=3).iloc[0]
    want = resampled(lambda x: np.mean(x[:, 1] - x[:, 0]))
    assert close([ba["bias_ci_low"], ba["bias_ci_high"]], [want.low, want.high])


def test_cranfield_second_judge_is_the_scripts_stated_noise_model():
    """examples/make_second_judge.py writes the shipped file byte for byte, and the file is
    what its docstring says: every label within one grade of the assessors', on 0-4, 31 of
    1,837 pairs unlabelled."""
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    data = Path(ta.example_path("cranfield"))
    script = runpy.run_path(str(root / "examples" / "make_second_judge.py"))
    lines = (data / "qrels.txt").read_text().splitlines()
    shipped = (data.parent / "judges" / "cranfield_second_judge.txt").read_text()
    assert "".join(script["second_judge"](lines)) == shipped
    judges = J.load_judges("cranfield")
    both = judges["assessors"].merge(judges["second"], on=["qid", "docid"])
    step = both["rel_y"] - both["rel_x"]
    assert step.abs().max() == 1 and both["rel_y"].between(0, 4).all()
    assert len(judges["assessors"]) - len(both) == 31
    # one up with probability 0.30 where the scale allows it, one down with 0.15
    assert 0.25 < (step[both["rel_x"] < 4] > 0).mean() < 0.35
    assert 0.1 < (step[both["rel_x"] > 0] < 0).mean() < 0.2


def test_judges_notebook_states_the_differences_the_labels_hold():
    """notebooks/06_judges said a single pair differs by "up to about two grades either
    way" next to limits of −1.09/+1.79 and pairs at +3 and +5. The statement is now
    computed in a cell; its stored output holds the extremes and the share beyond the
    limits of agreement, recomputed here with pandas and the Bland–Altman formula."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "notebooks" / "06_judges.ipynb"
    cells = json.loads(path.read_text())["cells"]
    prose = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "two grades either way" not in prose
    printed = " ".join("".join(o.get("text", "")) for c in cells if c["cell_type"] == "code"
                       for o in c.get("outputs", []))
    judges = J.load_judges("llmjudge")
    both = judges["willia-umbrela1"].merge(judges["RMITIR-llama70B"], on=["qid", "docid"])
    d = (both["rel_y"] - both["rel_x"]).to_numpy(float)
    sd = d.std(ddof=1)
    low, high = d.mean() - 1.96 * sd, d.mean() + 1.96 * sd
    beyond = int(((d < low) | (d > high)).sum())
    assert (f"limits of agreement {low:+.2f} to {high:+.2f}; single pairs differ by "
            f"{d.min():+g} to {d.max():+g} grades, and {beyond:,} of {len(d):,} pairs") in printed


def test_bootstrap_of_a_wide_statistic_stays_in_bounded_memory(monkeypatch):
    """A statistic over many categories (300 grades: queries × categories² sums of 4.5
    million numbers) resampled 1,000 times went through one matrix product of 1,000 ×
    90,000 numbers (720 MB, 2.8 GB at peak); the products are now cut to about four million
    numbers. Cut much finer (a bound of 100 numbers), the interval is still
    scipy.stats.bootstrap's over the krippendorff package's α (same draws)."""
    import tracemalloc

    import scipy.stats

    from trunc_accessor.judges import label_stats

    rng = np.random.default_rng(5)
    n_q, per_q = 50, 12
    qids = np.repeat([f"q{i:02d}" for i in range(n_q)], per_q)
    a = rng.integers(0, 300, n_q * per_q)
    b = np.clip(a + rng.integers(-20, 21, a.size), 0, 299)
    judges = frames(qids, np.stack([a, b], axis=1).astype(float))
    tracemalloc.start()
    try:
        J.agreement(*judges, statistics=["alpha_interval"], n_resamples=1000, seed=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 300e6, peak

    values = np.stack([a % 6, b % 6], axis=1).astype(float)[: 12 * per_q]
    qids = qids[: 12 * per_q]
    monkeypatch.setattr(label_stats, "_BATCH_ELEMENTS", 100)  # 2 resamples per product
    table = J.agreement(*frames(qids, values), statistics=["alpha_interval"], n_resamples=40,
                        seed=1)
    rows = [values[qids == q] for q in sorted(set(qids))]
    want = scipy.stats.bootstrap(
        (np.arange(len(rows)),), lambda idx: _alpha(np.concatenate([rows[i] for i in idx]),
                                                    "interval"),
        vectorized=False, n_resamples=40, method="percentile",
        rng=np.random.default_rng(1)).confidence_interval
    assert close(table[["ci_low", "ci_high"]].to_numpy()[0], [want.low, want.high])
