"""Do the judges agree? Agreement between two or more sets of relevance judgments (qrels).

Each judge is a qrels frame (qid, docid, rel and their aliases; pandas or Polars); the
statistics are taken over the (qid, docid) pairs the judges labelled. ``missing`` says what
happens to a pair some judge did not label: ``"keep"`` (the default of ``agreement``
and ``krippendorff_alpha``: kept as a missing label; Krippendorff's α uses every
pairable value, i.e. every pair at least two judges labelled, as Krippendorff (2011)
defines it and the ``krippendorff`` package computes it, Cohen's κ the pairs both judges
labelled, Fleiss' κ the pairs every judge labelled), ``"drop"`` (the default of the
other functions: left out, with an ``AgreementWarning``
counting what each judge lacks; over three or more judges this also leaves out pairs two
judges share, and changes α) or ``"nonrelevant"`` (the absent label is grade 0, as
trec_eval reads an unjudged document). ``coverage`` counts the pairs each judge labels
and lacks.

``relevance_level`` binarises the labels (``rel >= level`` → 1, else 0) before any statistic;
without it the graded scale is used, its categories being the grades the judges use
(sorted; ``grades=`` gives the scale explicitly). ``by="qid"`` gives one value per query.
Every statistic is computed from sums over queries, so the per-query values, the pooled
value and the bootstrap intervals over queries (``agreement``) come from one pass
(``label_stats``). A statistic that is undefined (κ when both judges use one grade only:
chance agreement 1) is NaN, with a warning saying for how many queries.

* ``agreement``: the table: observed agreement, Cohen's κ (Cohen 1960) unweighted and
  with linear and quadratic weights (Cohen 1968) for every pair of judges, Fleiss' κ
  (Fleiss 1971) and Krippendorff's α (Krippendorff 2011) at the nominal, ordinal, interval
  and ratio levels over all judges, with percentile bootstrap intervals over queries;
* ``cohen_kappa``, ``fleiss_kappa``, ``krippendorff_alpha``: one statistic;
* ``confusion_matrix``, ``per_grade`` (precision, recall, F1 of one judge against a
  reference), ``bland_altman`` (bias and limits of agreement of graded labels);
* ``align`` (the labels side by side), ``coverage``;
* ``leaderboard_agreement``: do two sets of qrels
  rank the systems alike; the plots of ``trunc_accessor.judges.plot``.

References: J. Cohen, "A coefficient of agreement for nominal scales", Educational and
Psychological Measurement 20(1), 1960 (κ = (p_o − p_e)/(1 − p_e)); J. Cohen, "Weighted
kappa", Psychological Bulletin 70(4), 1968 (κ_w = 1 − Σ w·p_o / Σ w·p_e); J. L. Fleiss,
"Measuring nominal scale agreement among many raters", Psychological Bulletin 76(5), 1971;
K. Krippendorff, "Computing Krippendorff's alpha-reliability", University of Pennsylvania,
2011 (α = 1 − D_o/D_e and the δ² of each level); J. M. Bland and D. G. Altman, "Statistical
methods for assessing agreement between two methods of clinical measurement", Lancet
1(8476), 1986.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.errors import InputError
from trunc_accessor.io.examples import load_judges
from trunc_accessor.judges import label_stats as ls
from trunc_accessor.judges.detail import bland_altman, confusion_matrix, per_grade
from trunc_accessor.judges.judgments import (
    ALL_STATISTICS,
    LEVELS,
    PAIR_STATISTICS,
    _check_by,
    _check_interval,
    _frame,
    _Labels,
    _per_query,
    _ratio_refusal,
    _read,
    _say_undefined,
    _statistic,
)
from trunc_accessor.judges.leaderboard import LeaderboardAgreement, leaderboard_agreement
from trunc_accessor.judges.plot import bland_altman_plot, confusion_heatmap, leaderboard_scatter
from trunc_accessor.stats._common import _check_choice
from trunc_accessor.warn import AgreementWarning, warn

__all__ = ["LeaderboardAgreement", "agreement", "align", "bland_altman", "bland_altman_plot",
           "cohen_kappa", "confusion_heatmap", "confusion_matrix", "coverage", "fleiss_kappa",
           "krippendorff_alpha", "leaderboard_agreement", "leaderboard_scatter", "load_judges",
           "per_grade"]


def agreement(*qrels: Frame | Mapping[str, Frame], names: Sequence[str] | None = None,
              statistics: Sequence[str] | None = None, relevance_level: float | None = None,
              grades: Sequence[float] | None = None, by: str | None = None,
              missing: str = "keep", confidence: float | None = 0.95,
              n_resamples: int = 1000, seed: int | None = 0) -> Result:
    """Agreement between judges, one row per statistic (and pair of judges).

    ``qrels``: two or more qrels frames (pandas or Polars) as separate arguments or as one
    list (judges named judge_1, judge_2, … unless ``names=``), or one mapping {judge name:
    qrels}. ``statistics`` (default: all that apply; Fleiss' κ from three judges on, α at
    the ratio level only when no grade is negative, else left out with a warning):

    * between every pair of judges: ``agreement`` (observed share of equal labels p_o),
      ``cohen_kappa`` (Cohen 1960: (p_o − p_e)/(1 − p_e)), ``cohen_kappa_linear`` and
      ``cohen_kappa_quadratic`` (Cohen 1968: 1 − Σ w·O / Σ w·E, weights |i − j| or
      (i − j)² over the categories' positions in the sorted scale), as
      ``sklearn.metrics.cohen_kappa_score``;
    * over all judges: ``fleiss_kappa`` (Fleiss 1971; the pairs every judge labelled),
      ``alpha_nominal``, ``alpha_ordinal``, ``alpha_interval``, ``alpha_ratio``
      (Krippendorff's α, Krippendorff 2011, with that level's distance), as the
      ``krippendorff`` package (with the default ``missing="keep"``: over every pairable
      value). ``alpha_ratio`` refuses negative grades (an InputError): ratio data have an
      absolute zero, and ((c − k)/(c + k))² is undefined where c = −k.

    Pooled (``by=None``): columns statistic, judges, value, ci_low, ci_high (percentile
    bootstrap over queries, ``n_resamples`` resamples drawn with ``default_rng(seed)``;
    NaN with ``confidence=None``), n_pairs, n_queries. ``by="qid"``: qid, statistic,
    judges, value, n_pairs. The caller's library (the first judge's). ``relevance_level``,
    ``grades``, ``missing``: see the module. Undefined values are NaN (null in Polars),
    with an ``AgreementWarning``.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2], "docid": list("abcdef"),
    ...                   "rel": [0, 1, 2, 0, 1, 1]})
    >>> b = a.assign(rel=[0, 1, 1, 0, 1, 0])
    >>> t = agreement({"human": a, "llm": b}, statistics=["cohen_kappa", "alpha_ordinal"])
    >>> t[["statistic", "judges", "value", "n_pairs"]].round(4)
           statistic        judges   value  n_pairs
    0    cohen_kappa  human vs llm  0.4286        6
    1  alpha_ordinal    human, llm  0.6627        6
    """
    _check_by(by)
    _check_interval(confidence, n_resamples, seed)
    lab = _read(qrels, names, function="agreement", missing=missing,
                relevance_level=relevance_level, grades=grades)
    m = len(lab.names)
    ratio_refused = _ratio_refusal(lab, "agreement")
    if statistics is None:
        statistics = [s for s in PAIR_STATISTICS + ALL_STATISTICS
                      if (s != "fleiss_kappa" or m >= 3)
                      and (s != "alpha_ratio" or ratio_refused is None)]
        if ratio_refused is not None:
            warn(ratio_refused.replace("level='ratio' needs", "alpha_ratio is left out: it "
                                       "needs", 1), AgreementWarning)
    for s in statistics:
        _check_choice("statistics", s, PAIR_STATISTICS + ALL_STATISTICS)
    if "alpha_ratio" in statistics and ratio_refused is not None:
        raise InputError(ratio_refused)
    rows: dict[str, list] = {k: [] for k in ("statistic", "judges", "value", "ci_low",
                                             "ci_high", "n_pairs", "n_queries", "qid")}
    undefined = []
    for name in statistics:
        pairs = itertools.combinations(range(m), 2) if name in PAIR_STATISTICS \
            else [tuple(range(m))]
        for pair in pairs:
            judges = (" vs ".join if name in PAIR_STATISTICS else ", ".join)(
                [lab.names[i] for i in pair])
            sums, finish, count = _statistic(lab, name, pair)
            if by == "qid":
                values = finish(sums)
                rows["qid"] += lab.qids.to_list()
            else:
                used = count > 0
                values = np.atleast_1d(finish(sums.sum(axis=0)))
                low = high = np.array([np.nan])
                if confidence is not None:
                    low, high = ls.bootstrap_interval(sums[used], finish, confidence,
                                                      n_resamples, seed)
                rows["ci_low"] += np.atleast_1d(low).tolist()
                rows["ci_high"] += np.atleast_1d(high).tolist()
                rows["n_queries"].append(int(used.sum()))
                count = np.array([count.sum()])
            undefined.append((f"{name} ({judges})", values))
            rows["statistic"] += [name] * len(values)
            rows["judges"] += [judges] * len(values)
            rows["value"] += values.tolist()
            rows["n_pairs"] += count.astype(np.int64).tolist()
    _say_undefined("agreement", undefined, lab, by)
    keep = (["qid", "statistic", "judges", "value", "n_pairs"] if by == "qid" else
            ["statistic", "judges", "value", "ci_low", "ci_high", "n_pairs", "n_queries"])
    out = {(lab.qid_name if k == "qid" else k): rows[k] for k in keep}
    return _frame(out, lab.polars)


def _one(lab: _Labels, name: str, pair: tuple[int, ...], by, function: str):
    sums, finish, _count = _statistic(lab, name, pair)
    values = finish(sums) if by == "qid" else finish(sums.sum(axis=0))
    _say_undefined(function, [(name, values)], lab, by)
    return _per_query(lab, name, values) if by == "qid" else float(values)


def cohen_kappa(reference: Frame | Mapping[str, Frame], other: Frame | None = None, *,
                weights: str | None = None, relevance_level: float | None = None,
                grades: Sequence[float] | None = None, by: str | None = None,
                missing: str = "drop", names: Sequence[str] | None = None) -> Any:
    """Cohen's κ between two judges (Cohen 1960; weighted, Cohen 1968), as
    ``sklearn.metrics.cohen_kappa_score(reference, other, weights=weights,
    labels=categories)``.

    κ = 1 − Σ w_ij O_ij / Σ w_ij E_ij over the confusion matrix O of the shared pairs and the
    chance matrix E_ij = (row i total)(column j total)/n; w = 1 − I (``weights=None``: the
    classic (p_o − p_e)/(1 − p_e)), |i − j| (``"linear"``) or (i − j)² (``"quadratic"``),
    i and j being positions in the sorted scale (the grades used, or ``grades=``; the same
    scale for every query). A float; ``by="qid"``: per query (pandas Series indexed by qid,
    Polars frame). NaN where undefined (one grade only), with a warning.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abcdef"), "rel": [0, 0, 1, 1, 2, 2]})
    >>> b = a.assign(rel=[0, 1, 1, 1, 2, 1])
    >>> round(cohen_kappa(a, b), 4), round(cohen_kappa(a, b, weights="quadratic"), 4)
    (0.5, 0.6667)
    """
    _check_by(by)
    if weights is not None and weights not in ("linear", "quadratic"):
        raise InputError(f"weights= must be None, 'linear' or 'quadratic', not {weights!r}")
    args = (reference,) if other is None else (reference, other)
    lab = _read(args, names, function="cohen_kappa", missing=missing, two=True,
                relevance_level=relevance_level, grades=grades)
    name = {None: "cohen_kappa", "linear": "cohen_kappa_linear",
            "quadratic": "cohen_kappa_quadratic"}[weights]
    return _one(lab, name, (0, 1), by, "cohen_kappa")


def fleiss_kappa(*qrels: Frame | Mapping[str, Frame], relevance_level: float | None = None,
                 grades: Sequence[float] | None = None, by: str | None = None,
                 missing: str = "drop", names: Sequence[str] | None = None) -> Any:
    """Fleiss' κ over m ≥ 2 judges (Fleiss, Psychological Bulletin 76(5), 1971), as
    ``statsmodels.stats.inter_rater.fleiss_kappa`` of the pairs × grades count table.

    κ = (P̄ − P_e)/(1 − P_e) with P_i = (Σ_j n_ij² − m)/(m(m − 1)) the agreement on pair i
    (n_ij judges gave it grade j), P̄ their mean and P_e = Σ_j p_j², p_j the share of labels
    of grade j. Uses the pairs every judge labelled (also with ``missing="keep"``).

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abcd"), "rel": [0, 1, 1, 0]})
    >>> round(fleiss_kappa(a, a.assign(rel=[0, 1, 0, 0]), a), 4)
    0.6571
    """
    _check_by(by)
    lab = _read(qrels, names, function="fleiss_kappa", missing=missing,
                relevance_level=relevance_level, grades=grades)
    return _one(lab, "fleiss_kappa", tuple(range(len(lab.names))), by, "fleiss_kappa")


def krippendorff_alpha(*qrels: Frame | Mapping[str, Frame], level: str = "nominal",
                       relevance_level: float | None = None, by: str | None = None,
                       missing: str = "keep", names: Sequence[str] | None = None) -> Any:
    """Krippendorff's α over any number of judges (Krippendorff, "Computing Krippendorff's
    alpha-reliability", 2011), as ``krippendorff.alpha(reliability_data,
    level_of_measurement=level)`` (NaN where a judge gave no label).

    α = 1 − D_o/D_e = 1 − Σ o_ck δ²_ck / Σ e_ck δ²_ck over the coincidence matrix o (each
    ordered pair of labels of one judged pair adds 1/(m_u − 1), m_u its labels) and
    e_ck = n_c(n_k − [c = k])/(n − 1). δ²: ``"nominal"`` [c ≠ k], ``"ordinal"``
    (Σ_{g=c..k} n_g − (n_c + n_k)/2)², ``"interval"`` (c − k)², ``"ratio"``
    ((c − k)/(c + k))², on the grades' values. The ratio level needs grades ≥ 0 (ratio data
    have an absolute zero; the distance is undefined where c = −k): negative grades such as
    TREC's spam −2 are refused; map them first or use the interval or ordinal level.
    ``missing="keep"`` (default) uses every pairable value, as the definition does: a pair
    some judge did not label still counts with the labels it has (a pair with one label adds
    nothing); ``missing="drop"`` keeps only the pairs every judge labelled.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abcd"), "rel": [0, 1, 2, 3]})
    >>> b = a.assign(rel=[0, 1, 3, 3])
    >>> round(krippendorff_alpha(a, b), 4), round(krippendorff_alpha(a, b, level="interval"), 4)
    (0.6957, 0.9263)
    """
    _check_by(by)
    _check_choice("level", level, LEVELS)
    lab = _read(qrels, names, function="krippendorff_alpha", missing=missing,
                relevance_level=relevance_level)
    if level == "ratio" and (refused := _ratio_refusal(lab, "krippendorff_alpha")):
        raise InputError(refused)
    return _one(lab, f"alpha_{level}", tuple(range(len(lab.names))), by,
                "krippendorff_alpha")


def align(*qrels: Frame | Mapping[str, Frame], names: Sequence[str] | None = None,
          missing: str = "drop", relevance_level: float | None = None) -> Result:
    """The judges' labels side by side: one row per judged (qid, docid) pair, one column
    per judge (its grade; with ``relevance_level`` 0/1; NaN/null where it gave none, with
    ``missing="keep"``), pairs sorted by qid. What every statistic here is computed from.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("ab"), "rel": [0, 2]})
    >>> align({"human": a, "llm": a.assign(rel=[1, 2])})
       qid docid  human  llm
    0    1     a    0.0  1.0
    1    1     b    2.0  2.0
    """
    lab = _read(qrels, names, function="align", missing=missing,
                relevance_level=relevance_level)
    clash = {lab.qid_name, lab.docid_name} & set(lab.names)
    if clash:
        raise InputError(f"align: judge name(s) {sorted(clash)} are the names of the key "
                         "columns; name the judges otherwise")
    keys = lab.keys.rename({"qid": lab.qid_name, "docid": lab.docid_name})
    out = keys.with_columns(pl.Series(n, lab.values[:, i]) for i, n in enumerate(lab.names))
    if lab.polars:
        return out.fill_nan(None)
    from trunc_accessor.core.frames import to_pandas
    return to_pandas(out)


def coverage(*qrels: Frame | Mapping[str, Frame], names: Sequence[str] | None = None) -> Result:
    """Which pairs each judge labelled: one row per judge with ``pairs`` (it labelled),
    ``queries``, ``lacking`` (pairs another judge labelled and it did not) and ``only``
    (pairs no other judge labelled). ``missing=`` of the other functions decides what the
    lacking pairs do.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abc"), "rel": [0, 2, 1]})
    >>> coverage({"human": a, "llm": a.iloc[:2]})
       judge  pairs  queries  lacking  only
    0  human      3        1        0     1
    1    llm      2        1        1     0
    """
    lab = _read(qrels, names, function="coverage", missing="keep")
    present = ~np.isnan(lab.values)
    alone = present & (present.sum(axis=1, keepdims=True) == 1)
    queries = [len(np.unique(lab.q[present[:, j]])) for j in range(len(lab.names))]
    return _frame({"judge": lab.names, "pairs": present.sum(axis=0).astype(np.int64),
                   "queries": np.array(queries, dtype=np.int64),
                   "lacking": (~present).sum(axis=0).astype(np.int64),
                   "only": alone.sum(axis=0).astype(np.int64)}, lab.polars)
