"""Several judges' qrels read and lined up pair by pair, for
``trunc_accessor.judges.interrater`` and ``trunc_accessor.judges.detail``: each frame
validated as the evaluation validates qrels (the column
aliases of ``trunc_accessor.core.columns``, key types, missing values, conflicting
duplicates; ``trunc_accessor.core.frames.normalise``), the judged (qid, docid) pairs
joined, the ``missing=`` rule applied, the labels binarised (``relevance_level``) or coded on
the graded scale; then each statistic's sums per query (``label_stats``) and the answer
frames in the caller's library.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from trunc_accessor.core.columns import (
    DOCID_NAMES,
    QID_NAMES,
    REL_NAMES,
    Columns,
    _names,
    _pick,
    check_frame,
    is_pandas,
)
from trunc_accessor.core.frames import normalise, to_polars
from trunc_accessor.core.keys import _key_kind, key_dtype, qid_sort_keys
from trunc_accessor.errors import InputError, InputTypeError
from trunc_accessor.judges import label_stats as ls
from trunc_accessor.stats._common import _check_choice, _check_prob, _check_resampling
from trunc_accessor.warn import AgreementWarning, IdentifierWarning, warn

MISSING = ("drop", "nonrelevant", "keep")
LEVELS = ("nominal", "ordinal", "interval", "ratio")
WEIGHTS = {"cohen_kappa": None, "cohen_kappa_linear": "linear",
           "cohen_kappa_quadratic": "quadratic"}
#: The statistics of ``judges.agreement``: between two judges (every pair) or over all
#: judges.
PAIR_STATISTICS = ("agreement", *WEIGHTS)
ALL_STATISTICS = ("fleiss_kappa", *(f"alpha_{level}" for level in LEVELS))
#: Queries × categories² above which the per-query matrices would not fit comfortably.
MAX_CELLS = 50_000_000


@dataclass
class _Labels:
    """The judged pairs of all judges, sorted by query: ``values`` (N, m) grades as numbers
    (NaN: no label), ``codes`` their positions among ``categories`` (−1: no label), ``q`` the
    query code of each pair; ``qids`` one value per query."""

    names: list[str]
    qid_name: str
    docid_name: str
    keys: pl.DataFrame
    qids: pl.Series
    q: np.ndarray
    values: np.ndarray
    codes: np.ndarray
    categories: np.ndarray
    polars: bool

    @property
    def n_q(self) -> int:
        return len(self.qids)

    def grades(self) -> list:
        """The categories as the user wrote them (whole numbers as int)."""
        return _shown(self.categories)


def _shown(grades: np.ndarray) -> list:
    """Grades as a list, whole numbers as int."""
    return [int(g) for g in grades] if np.all(grades == np.round(grades)) \
        else [float(g) for g in grades]


def _judge_frames(args: tuple, names, function: str, two: bool) -> tuple[list, list[str]]:
    """The judges' frames and names: frames in order (separate arguments, or one list or
    tuple of them), or one mapping {name: frame}."""
    if len(args) == 1 and isinstance(args[0], Mapping):
        if names is not None:
            raise InputError(f"{function}: names= with a mapping; its keys name the judges")
        frames, names = list(args[0].values()), [str(k) for k in args[0]]
    else:
        frames = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) \
            else list(args)
        for i, frame in enumerate(frames):
            if not _is_frame(frame):
                raise InputTypeError(
                    f"{function}: judge {i + 1} is a {type(frame).__name__}, not a qrels "
                    "frame: pass the judges' qrels frames (pandas or Polars) as separate "
                    "arguments, as one list of frames, or as one mapping {judge name: qrels}")
        if names is None:
            names = ["reference", "other"] if two else [f"judge_{i + 1}"
                                                         for i in range(len(frames))]
        elif isinstance(names, str) or not isinstance(names, Sequence):
            raise InputTypeError(f"{function}: names= must be a list of judge names")
        names = list(names)
    if two and len(frames) != 2:
        raise InputError(f"{function}: compares two judges (reference, other), not "
                         f"{len(frames)}")
    if len(frames) < 2:
        raise InputError(f"{function}: needs at least two judges' qrels, got {len(frames)}")
    if len(names) != len(frames):
        raise InputError(f"{function}: {len(names)} names for {len(frames)} judges")
    if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise InputError(f"{function}: judge names must be distinct strings, not {names}")
    return frames, names


def _read(args: tuple, names, *, function: str, missing: str = "drop", relevance_level=None,
          grades=None, two: bool = False) -> _Labels:
    """Validate every judge's qrels (as the evaluation does: aliases, types, missing values,
    conflicting duplicates) and line their labels up, pair by pair."""
    _check_choice("missing", missing, MISSING)
    if relevance_level is not None:  # refused before the labels are read and joined
        if grades is not None:
            raise InputError(f"{function}: grades= and relevance_level= exclude each other "
                             "(binarised labels are 0 and 1)")
        if isinstance(relevance_level, bool) or not isinstance(
                relevance_level, (int, float, np.integer, np.floating)) \
                or not np.isfinite(relevance_level):
            raise InputError(f"{function}: relevance_level= must be a number, not "
                             f"{relevance_level!r}")
    frames, names = _judge_frames(args, names, function, two)
    picked = [_picked(frame, name) for frame, name in zip(frames, names)]
    tables = _qrels_tables(picked, names, function)
    units, values = _lined_up(tables, names, function, missing)
    present = ~np.isnan(values)
    values, categories = _categories(values, present, units, names, function,
                                     relevance_level, grades)
    q = units["qid"].rle_id().to_numpy().astype(np.int64)
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    if len(starts) * len(categories) ** 2 > MAX_CELLS:
        raise InputError(f"{function}: the labels take {len(categories)} distinct values over "
                         f"{len(starts)} queries: agreement statistics compare categories "
                         "(grades), not scores; round the labels or binarise them with "
                         "relevance_level=")
    codes = np.where(present, np.searchsorted(categories, np.where(present, values, 0)), -1)
    qids = units["qid"].gather(starts)
    return _Labels(names, picked[0][1][0], picked[0][1][1], units.select("qid", "docid"), qids, q,
                   values, codes.astype(np.int64), categories, _is_polars(frames[0]))


def _picked(frame, name) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """One judge's qrels as an eager Polars frame of its qid, docid and relevance columns
    (found under their aliases), and those columns' names."""
    label = f"judge {name!r}"
    check_frame(frame, label)
    cols = _names(frame, label)
    roles = tuple(_pick(kind, cols, None, aliases, label, frame) for kind, aliases in
                  (("qid", QID_NAMES), ("docid", DOCID_NAMES), ("relevance", REL_NAMES)))
    data = to_polars(frame, list(roles), label)
    return (data.collect() if isinstance(data, pl.LazyFrame) else data), roles


def _qrels_tables(picked: list, names: list, function: str) -> list[pl.DataFrame]:
    """Each judge's qrels checked as the evaluation checks qrels, with qid and docid of one
    type across the judges (strings, with a warning, when they mix strings and integers)."""
    kinds = [[_key_kind(d.schema[r[i]], f"judge {n!r} column {r[i]!r}")
              for (d, r), n in zip(picked, names)] for i in (0, 1)]
    types = [key_dtype(*k) for k in kinds]
    for what, k in zip(("qid", "docid"), kinds):
        real = {x for x in k if x != "null"}
        if "str" in real and len(real) > 1:
            warn(f"{function}: the judges' {what} columns mix strings and integers: they are "
                 "compared as strings (an integer as its decimal digits), so 7 matches '7' "
                 "but not '007'", IdentifierWarning)
    empty = pl.DataFrame(schema={"qid": types[0], "docid": types[1], "score": pl.Float64})
    tables = []
    for (data, (qid, docid, rel)), name in zip(picked, names):
        spec = Columns("qid", "docid", qid, docid, rel, (), False)
        try:
            tables.append(normalise(empty, data, spec, None).qrels)
        except InputError as e:
            raise type(e)(f"{function}: judge {name!r}: {e}") from None
    return tables


def _lined_up(tables: list, names: list, function: str,
              missing: str) -> tuple[pl.DataFrame, np.ndarray]:
    """The (qid, docid) pairs some judge labelled, in query order, and the (pairs × judges)
    labels, an absent label dropped, counted as 0 or kept as NaN (``missing``)."""
    units = tables[0].rename({"rel": "_j0"})
    for i, t in enumerate(tables[1:], 1):
        units = units.join(t.rename({"rel": f"_j{i}"}), on=["qid", "docid"], how="full",
                           coalesce=True)
    units = units.sort([*qid_sort_keys(units, "qid"), "docid"])
    values = units.select([f"_j{i}" for i in range(len(tables))]).to_numpy().astype(np.float64)
    lacking = np.isnan(values).sum(axis=0)
    if missing == "drop":
        keep = ~np.isnan(values).any(axis=1)
        if not keep.all():
            told = ", ".join(f"{n!r} {int(k)}" for n, k in zip(names, lacking) if k)
            warn(f"{function}: of the {len(values):,} (qid, docid) pairs some judge labelled, "
                 f"{int((~keep).sum()):,} lack a label and are left out (missing='drop'); "
                 f"pairs lacking per judge: {told}. missing='nonrelevant' counts an absent "
                 "label as grade 0, missing='keep' keeps it missing", AgreementWarning)
        units, values = units.filter(pl.Series(keep)), values[keep]
    elif missing == "nonrelevant":
        values = np.nan_to_num(values, nan=0.0)
    if not len(values):
        raise InputError(f"{function}: the judges {names} share no judged (qid, docid) pair")
    return units, values


def _categories(values: np.ndarray, present: np.ndarray, units: pl.DataFrame, names: list,
                function: str, relevance_level, grades) -> tuple[np.ndarray, np.ndarray]:
    """The labels (binarised at ``relevance_level`` if given) and the categories they are
    compared in: 0 and 1, the declared ``grades``, or the distinct labels seen."""
    if relevance_level is not None:  # checked by _read, before the labels were read
        values = np.where(present, (values >= relevance_level).astype(np.float64), np.nan)
        return values, np.array([0.0, 1.0])
    if grades is None:
        return values, np.unique(values[present])
    categories = _grade_scale(grades, function)
    outside = present & ~np.isin(values, categories)
    if outside.any():
        row, j = map(int, np.argwhere(outside)[0])
        where = units.row(row, named=True)
        raise InputError(f"{function}: judge {names[j]!r} gives grade {values[row, j]:g} "
                         f"to docid {where['docid']!r} of qid {where['qid']!r}, which is "
                         f"not in grades={_shown(categories)}")
    return values, categories


def _grade_scale(grades, function: str) -> np.ndarray:
    try:
        scale = np.asarray(list(grades), dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{function}: grades= must be a list of numbers, not "
                         f"{grades!r}") from None
    if scale.ndim != 1 or len(scale) < 1 or not np.isfinite(scale).all() \
            or len(np.unique(scale)) != len(scale):
        raise InputError(f"{function}: grades= must list distinct finite numbers, not "
                         f"{grades!r}")
    return np.sort(scale)


def _is_frame(frame) -> bool:
    return isinstance(frame, (pl.DataFrame, pl.LazyFrame)) or is_pandas(frame)


def _is_polars(frame) -> bool:
    return isinstance(frame, (pl.DataFrame, pl.LazyFrame))


# --------------------------------------------------------------------------- outputs
def _frame(columns: dict[str, Any], polars: bool):
    if polars:
        return pl.DataFrame(columns).with_columns(pl.selectors.float().fill_nan(None))
    import pandas as pd
    return pd.DataFrame(columns)


def _per_query(lab: _Labels, name: str, values: np.ndarray):
    """Per-query values: a pandas Series indexed by qid, or a Polars frame (qid, name)."""
    if lab.polars:
        return pl.DataFrame({lab.qid_name: lab.qids,
                             name: pl.Series(values, dtype=pl.Float64)}).fill_nan(None)
    import pandas as pd
    return pd.Series(values, index=pd.Index(lab.qids.to_list(), name=lab.qid_name), name=name)


def _say_undefined(function: str, what: list[tuple[str, np.ndarray]], lab: _Labels,
                   by: str | None) -> None:
    """One warning for the statistics that came out NaN (name, values) of this call."""
    told = []
    for name, values in what:
        bad = np.flatnonzero(np.isnan(np.atleast_1d(values)))
        if by is None and len(bad):
            told.append(name)
        elif len(bad):
            shown = ", ".join(repr(lab.qids[int(i)]) for i in bad[:3])
            told.append(f"{name} for {len(bad)} of {len(values)} queries (qid {shown}"
                        f"{', …' if len(bad) > 3 else ''})")
    if told:
        warn(f"{function}: undefined (NaN): {'; '.join(told)}. κ and α are undefined where "
             "the labels compared hold one grade only (chance agreement 1) or no pair has "
             "two labels", AgreementWarning)


def _check_by(by) -> None:
    if by is not None and by != "qid":
        raise InputError(f"by= must be None (pooled over all pairs) or 'qid', not {by!r}")


def _check_interval(confidence, n_resamples, seed) -> None:
    if confidence is not None:
        _check_prob("confidence", confidence)
    _check_resampling(n_resamples, seed)


def _ratio_refusal(lab: _Labels, function: str) -> str | None:
    """Why Krippendorff's α at the ratio level cannot be taken of these labels (None if it
    can): ratio data have an absolute zero and no negative values, and the ratio distance
    ((c − k)/(c + k))² is undefined where c + k = 0 with c ≠ k (TREC's spam grade −2
    against 2)."""
    present = lab.values[~np.isnan(lab.values)]
    if not len(present) or present.min() >= 0:
        return None
    row, j = map(int, np.argwhere(lab.values == present.min())[0])
    where = lab.keys.row(row, named=True)
    return (f"{function}: level='ratio' needs grades ≥ 0 (ratio data have an absolute zero; "
            f"((c − k)/(c + k))² is undefined where c = −k), but judge {lab.names[j]!r} gives "
            f"grade {present.min():g} to docid {where['docid']!r} of qid {where['qid']!r}. "
            "Map the negative grades first (e.g. TREC's spam −2 to 0), binarise with "
            "relevance_level=, or use level='interval' or 'ordinal'")


def _statistic(lab: _Labels, name: str, pair: tuple[int, ...]):
    """(sums per query, finish, pairs per query) of one statistic for the judges ``pair``."""
    c = len(lab.categories)
    if name in PAIR_STATISTICS:
        j, k = pair
        sums = ls.confusion(lab.q, lab.codes[:, j], lab.codes[:, k], lab.n_q, c)
        count = sums.sum(axis=(1, 2))
        if name == "agreement":
            return sums, ls.observed_agreement, count
        return sums, lambda s, w=WEIGHTS[name]: ls.cohen_kappa(s, w), count
    codes = lab.codes[:, list(pair)]
    if name == "fleiss_kappa":
        sums = ls.fleiss_sums(lab.q, codes, lab.n_q, c)
        m = len(pair)
        return sums, lambda s: ls.fleiss_kappa(s, m), sums[:, 1]
    level = name.removeprefix("alpha_")
    pairable = (codes >= 0).sum(axis=1) >= 2
    return (ls.coincidences(lab.q, codes, lab.n_q, c),
            lambda s: ls.krippendorff_alpha(s, lab.categories, level),
            np.bincount(lab.q[pairable], minlength=lab.n_q).astype(np.float64))


def _with_intervals(columns: dict, sums, finish, pick, stats: Sequence[str], confidence,
                    n_resamples, seed, used):
    """Add ``<stat>_ci_low``/``_ci_high`` columns (percentile bootstrap over queries)."""
    low, high = ls.bootstrap_interval(sums[used], finish, confidence, n_resamples, seed)
    for i, s in enumerate(stats):
        columns[f"{s}_ci_low"], columns[f"{s}_ci_high"] = pick(low, i), pick(high, i)
