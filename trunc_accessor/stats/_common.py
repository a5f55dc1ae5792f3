"""What the statistics modules share: reading per-query values into matrices (queries ×
systems per metric), the tidy output frame, argument checks, and SciPy on first use."""
from __future__ import annotations

import sys
from collections.abc import Mapping

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor.core import results
from trunc_accessor.errors import InputError
from trunc_accessor.warn import DroppedQueriesWarning, warn

_EPS_TIES = np.finfo(float).eps * 100  # scipy.stats.permutation_test's relative tolerance
_BATCH_ELEMENTS = 4_000_000  # resampling works in chunks of about this many numbers


def _scipy_stats():
    try:
        import scipy.stats
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError('trunc_accessor.stats needs scipy: pip install "trunc_accessor[stats]"'
                          ) from exc
    return scipy.stats


# ---------------------------------------------------------------------------- input handling

class _Data:
    """Per-query values as matrices: ``values[metric]`` is (queries × systems), NaN = absent
    or undefined; ``present`` marks which (query, system) rows the input had."""

    def __init__(self, systems, qids, metrics, values, present, polars):
        self.systems, self.qids, self.metrics = systems, qids, metrics
        self.values, self.present, self.polars = values, present, polars

    def matrix(self, metric, undefined):
        v = self.values[metric].copy()
        if undefined == "zero":  # trec_eval: an undefined value of a returned query counts as 0
            v[self.present & np.isnan(v)] = 0.0
        return v


def _normalise(per_query, by) -> _Data:
    if by is not None and not isinstance(by, str):
        raise InputError(f"by= must be the name of the system column/level, not {by!r}")
    if not isinstance(per_query, (pl.LazyFrame, pl.DataFrame, pd.DataFrame, Mapping)):
        raise InputError("per_query must be a pandas/Polars DataFrame of per-query values or a "
                         f"mapping {{system: frame}}, not {type(per_query).__name__}")
    index_names = [] if not isinstance(per_query, pd.DataFrame) \
        else [n for n in per_query.index.names if n is not None]
    long, polars, mapping = results.long_frame(per_query, "per_query")
    by = _system_column(long, by, index_names, mapping)
    _check_keys(long, by)
    metrics = _metric_columns(long, by)
    systems, qids, present, values = _matrices(long, by, metrics)
    return _Data(systems, qids, metrics, values, present, polars)


def _system_column(long, by, index_names, mapping):
    """The column naming the system: the mapping's keys, the first index level of a frame
    indexed by (system, qid), the one non-numeric column besides qid, or ``by``."""
    if mapping:
        return results.MAPPING_SYSTEM
    if by is None and len(index_names) > 1:
        return index_names[0]  # evaluate's pandas answer: indexed by (system, qid)
    if by is None:
        keys = [c for c in long.columns if c != "qid"
                and not pd.api.types.is_numeric_dtype(long[c])]
        if len(keys) != 1:
            if not keys and len(index_names) == 1:
                raise InputError("per_query has no system level: pass a frame indexed by "
                                 "(system, qid)")
            raise InputError("by= is needed: per_query has system key columns "
                             f"{keys} (expected exactly one non-numeric column besides qid)")
        return keys[0]
    if index_names and by not in long.columns:
        raise InputError(f"by={by!r} is not an index level of per_query (levels: "
                         f"{index_names})")
    return by


def _check_keys(long, by):
    """The system and qid columns exist and hold hashable scalars."""
    for col in (by, "qid"):
        if col not in long.columns:
            raise InputError(f"per_query has no {col!r} column/level (columns: "
                             f"{[c for c in long.columns if c != results.MAPPING_SYSTEM]})")
    for col in (by, "qid"):
        try:
            pd.unique(long[col])  # keys must be hashable scalars
        except TypeError:
            name = "system" if col == results.MAPPING_SYSTEM else repr(col)
            raise InputError(f"per_query column {name} holds values that cannot be keys "
                             "(lists, arrays, dicts): systems and qids are strings or "
                             "numbers") from None


def _metric_columns(long, by, extra=()):
    """The metric columns (every other column, each numeric and not boolean), once each
    (system, qid, *extra) has a single row."""
    keys = [by, "qid", *extra]
    metrics = [c for c in long.columns if c not in keys]
    bad = [c for c in metrics if not (pd.api.types.is_numeric_dtype(long[c])
                                      and not pd.api.types.is_bool_dtype(long[c]))]
    if bad:
        raise InputError(f"per_query columns {bad} are not numeric metric values")
    if not metrics:
        raise InputError("per_query has no metric columns")
    if long.duplicated(keys).any():
        dup = long.loc[long.duplicated(keys), keys].iloc[0].tolist()
        raise InputError(f"per_query has several rows for ({', '.join(['system', 'qid', *extra])}"
                         f") = {tuple(dup)}")
    return metrics


def _matrices(long, by, metrics):
    """Systems in order of appearance, qids sorted, the (queries × systems) presence mask
    and one (queries × systems) value matrix per metric (NaN where absent)."""
    systems = list(pd.unique(long[by]))
    qids = pd.Index(pd.unique(long["qid"]))
    try:  # a fixed query order (resamples depend on it), whatever the order of the input
        qids = qids.sort_values()
    except TypeError:  # mixed types: keep the order of first appearance
        pass
    qids = list(qids)
    s_pos = pd.Index(systems).get_indexer(long[by])
    q_pos = pd.Index(qids).get_indexer(long["qid"])
    present = np.zeros((len(qids), len(systems)), dtype=bool)
    present[q_pos, s_pos] = True
    values = {}
    for m in metrics:
        v = np.full((len(qids), len(systems)), np.nan)
        v[q_pos, s_pos] = long[m].to_numpy(dtype=float, na_value=np.nan)
        values[m] = v
    return systems, qids, present, values


def _say_lacking(data: _Data, function: str, rule: str) -> None:
    """Warn when some system lacks per-query rows that another system has, naming each such
    system and how many queries it lacks, and the ``rule`` the function applies to them."""
    lacking = (~data.present).sum(axis=0)
    if not lacking.any():
        return
    total = len(data.qids)
    shown = ", ".join(f"{s!r} {int(k)} of {total}" for s, k in zip(data.systems, lacking) if k)
    warn(f"{function}: some systems lack queries that other systems have ({shown}); {rule}. "
         "To score them, evaluate the runs with the qrels (run.ir.evaluate(qrels, metrics, "
         "by=...)): a judged query a system returned nothing for then scores as an empty "
         "ranking, as experiment's default missing='empty'", DroppedQueriesWarning)


def _output(rows: dict, polars: bool):
    df = pd.DataFrame(rows)
    if polars:
        return pl.from_pandas(df)
    return df


def _check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{name}= must be one of {list(choices)}, not {value!r}")


def _check_prob(name, value):
    if (isinstance(value, bool) or not isinstance(value, (int, float, np.floating))
            or not sys.float_info.min <= value < 1):
        raise InputError(f"{name}= must be a number strictly between 0 and 1 (a normal float), "
                         f"not {value!r}")


def _check_resampling(n_resamples, seed):
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer))
            or n_resamples < 1):
        raise InputError(f"n_resamples= must be a positive integer, not {n_resamples!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise InputError(f"seed= must be an integer ≥ 0 or None, not {seed!r}")
