"""One judge against a reference, grade by grade: the confusion matrix, per-grade precision,
recall and F1, and Bland–Altman's bias and limits of agreement of graded labels. Pairs,
``missing=``, ``relevance_level`` and ``grades`` as in ``judges``; pooled or per query
(``by="qid"``); percentile bootstrap intervals over queries with ``confidence=``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from trunc_accessor._typing import Frame, Result
from trunc_accessor.errors import InputError
from trunc_accessor.judges import label_stats as ls
from trunc_accessor.judges.judgments import (
    _check_by,
    _check_interval,
    _frame,
    _read,
    _statistic,
    _with_intervals,
)

__all__ = ["bland_altman", "confusion_matrix", "per_grade"]


def confusion_matrix(reference: Frame | Mapping[str, Frame], other: Frame | None = None, *,
                     relevance_level: float | None = None,
                     grades: Sequence[float] | None = None, by: str | None = None,
                     missing: str = "drop", normalize: str | None = None,
                     names: Sequence[str] | None = None) -> Result:
    """How often the reference's grade i meets the other judge's grade j, as
    ``sklearn.metrics.confusion_matrix(reference, other, labels=categories,
    normalize=normalize)``.

    Pooled, pandas: a DataFrame, rows the reference's grades (index named after it), columns
    the other's; Polars: a column of the reference's grades and one column ``other=j`` per
    grade. ``normalize``: None (counts), ``"true"`` (rows sum to 1), ``"pred"`` (columns) or
    ``"all"``; an empty row or column gives 0, as scikit-learn. ``by="qid"``: a long frame
    qid, reference grade, other grade, count (every cell of every query).

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abcd"), "rel": [0, 1, 1, 2]})
    >>> confusion_matrix({"human": a, "llm": a.assign(rel=[0, 1, 2, 2])})
    ... # doctest: +NORMALIZE_WHITESPACE
    llm    0  1  2
    human
    0      1  0  0
    1      0  1  1
    2      0  0  1
    """
    _check_by(by)
    if normalize not in (None, "true", "pred", "all"):
        raise InputError(f"normalize= must be None, 'true', 'pred' or 'all', not "
                         f"{normalize!r}")
    args = (reference,) if other is None else (reference, other)
    lab = _read(args, names, function="confusion_matrix", missing=missing, two=True,
                relevance_level=relevance_level, grades=grades)
    conf, _f, _n = _statistic(lab, "agreement", (0, 1))
    ref, oth = lab.names
    shown = lab.grades()
    c = len(shown)
    if by == "qid":
        cells = conf.reshape(lab.n_q, -1)
        # cells in the order of conf: query, then the reference's grade, then the other's
        qids = lab.qids.gather(np.repeat(np.arange(lab.n_q), c * c))
        data = {lab.qid_name: qids if lab.polars else qids.to_list(),
                ref: [g for g in shown for _ in range(c)] * lab.n_q,
                oth: shown * (c * lab.n_q), "count": cells.ravel().astype(np.int64)}
        return _frame(data, lab.polars)
    matrix = conf.sum(axis=0)
    if normalize is not None:
        axis = {"true": 1, "pred": 0, "all": None}[normalize]
        with np.errstate(divide="ignore", invalid="ignore"):
            matrix = np.nan_to_num(matrix / matrix.sum(axis=axis, keepdims=axis is not None))
    else:
        matrix = matrix.astype(np.int64)
    if lab.polars:
        return pl.DataFrame({ref: shown, **{f"{oth}={g}": matrix[:, i]
                                            for i, g in enumerate(shown)}})
    import pandas as pd
    return pd.DataFrame(matrix, index=pd.Index(shown, name=ref),
                        columns=pd.Index(shown, name=oth))


def per_grade(reference: Frame | Mapping[str, Frame], other: Frame | None = None, *,
              relevance_level: float | None = None, grades: Sequence[float] | None = None,
              by: str | None = None, missing: str = "drop", confidence: float | None = None,
              n_resamples: int = 1000, seed: int | None = 0,
              names: Sequence[str] | None = None) -> Result:
    """Precision, recall and F1 of the other judge's labels against the reference, per grade,
    as ``sklearn.metrics.precision_recall_fscore_support(reference, other,
    labels=categories, zero_division=np.nan)``.

    For grade g: precision = pairs both give g / pairs the other gives g, recall = … / pairs
    the reference gives g (``support``), F1 = 2·tp/(support + predicted); NaN where the
    denominator is 0. Columns grade, precision, recall, f1, support, predicted (``by="qid"``:
    first qid); ``confidence``: adds ``precision_ci_low`` … ``f1_ci_high``, percentile
    bootstrap intervals over queries (pooled only).

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abcd"), "rel": [0, 1, 1, 2]})
    >>> per_grade(a, a.assign(rel=[0, 1, 2, 2])).round(3)
       grade  precision  recall     f1  support  predicted
    0      0        1.0     1.0  1.000        1          1
    1      1        1.0     0.5  0.667        2          1
    2      2        0.5     1.0  0.667        1          2
    """
    _check_by(by)
    _check_interval(confidence, n_resamples, seed)
    args = (reference,) if other is None else (reference, other)
    lab = _read(args, names, function="per_grade", missing=missing, two=True,
                relevance_level=relevance_level, grades=grades)
    conf, _f, count = _statistic(lab, "agreement", (0, 1))
    shown = lab.grades()
    scores = ls.grade_scores(conf if by == "qid" else conf.sum(axis=0))  # (..., 5, C)
    cols: dict[str, Any] = {}
    if by == "qid":
        cols[lab.qid_name] = lab.qids.gather(np.repeat(np.arange(lab.n_q), len(shown)))
        cols[lab.qid_name] = cols[lab.qid_name] if lab.polars else cols[lab.qid_name].to_list()
        scores = np.moveaxis(scores, -1, -2).reshape(-1, 5)  # rows (qid, grade)
        cols["grade"] = shown * lab.n_q
    else:
        scores = scores.T
        cols["grade"] = shown
    for i, s in enumerate(("precision", "recall", "f1", "support", "predicted")):
        cols[s] = scores[:, i].astype(np.int64) if i >= 3 else scores[:, i]
    if confidence is not None and by is None:
        _with_intervals(cols, conf, ls.grade_scores, lambda v, i: v[i],
                        ("precision", "recall", "f1"), confidence, n_resamples, seed,
                        count > 0)
    return _frame(cols, lab.polars)


def bland_altman(reference: Frame | Mapping[str, Frame], other: Frame | None = None, *,
                 relevance_level: float | None = None, by: str | None = None,
                 missing: str = "drop", z: float = 1.96, ddof: int = 1,
                 confidence: float | None = None, n_resamples: int = 1000,
                 seed: int | None = 0, names: Sequence[str] | None = None) -> Result:
    """Bland–Altman agreement of graded labels (Bland & Altman, Lancet 1986): the
    differences d = other − reference over the shared pairs, their mean (``bias``: how much
    higher the other judge grades), standard deviation ``sd`` (``ddof=1``, the sample sd
    of the paper; ``ddof=0`` as ``statsmodels.graphics.agreement.mean_diff_plot``) and the
    limits of agreement bias ∓ z·sd (``loa_low``, ``loa_high``; z = 1.96).

    One row (``by="qid"``: per query) with n, bias, sd, loa_low, loa_high; ``confidence``
    adds percentile bootstrap intervals over queries of each (pooled only). The plot is
    ``bland_altman_plot``.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"qid": 1, "docid": list("abcd"), "rel": [0, 1, 1, 2]})
    >>> bland_altman(a, a.assign(rel=[0, 1, 2, 3])).round(4)
       n  bias      sd  loa_low  loa_high
    0  4   0.5  0.5774  -0.6316    1.6316
    """
    _check_by(by)
    _check_interval(confidence, n_resamples, seed)
    if isinstance(z, bool) or not isinstance(z, (int, float)) or not z > 0:
        raise InputError(f"bland_altman: z= must be a positive number, not {z!r}")
    if ddof not in (0, 1):
        raise InputError(f"bland_altman: ddof= must be 0 or 1, not {ddof!r}")
    args = (reference,) if other is None else (reference, other)
    lab = _read(args, names, function="bland_altman", missing=missing, two=True,
                relevance_level=relevance_level)
    sums = ls.difference_sums(lab.q, lab.values[:, 0], lab.values[:, 1], lab.n_q)
    def finish(s):
        return ls.bland_altman(s, z, ddof)

    table = finish(sums) if by == "qid" else finish(sums.sum(axis=0))[None, :]
    names5 = ("n", "bias", "sd", "loa_low", "loa_high")
    cols: dict[str, Any] = {lab.qid_name: lab.qids} if by == "qid" else {}
    if by == "qid" and not lab.polars:
        cols[lab.qid_name] = lab.qids.to_list()
    cols.update({s: table[:, i].astype(np.int64) if s == "n" else table[:, i]
                 for i, s in enumerate(names5)})
    if confidence is not None and by is None:
        _with_intervals(cols, sums, finish, lambda v, i: [v[i + 1]], names5[1:], confidence,
                        n_resamples, seed, sums[:, 0] > 0)
    return _frame(cols, lab.polars)
