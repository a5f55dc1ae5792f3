"""The pieces the C/W/L user models share (Moffat, Bailey, Scholer & Thomas, ACM TOIS 2017;
the framework, the list the user model runs over, the gains and the ties are described in
``trunc_accessor.metrics.user_models``): the citations and notes of their declarations, their
parameters (T, min_grade, max_grade, depth), the gains of cwl_eval, the window of positions
weighted, and the cascade value of the NERR measures with its refusal of order-dependent ties.
"""
from __future__ import annotations

import math

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics._order import mixed_groups, require_order_free
from trunc_accessor.metrics.cascade import _segment_scan_product
from trunc_accessor.metrics.params import (
    Param,
    check_k,
    check_positive,
    check_positive_or_none,
    is_real,
)

CWL = ("Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into "
       "the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); "
       "Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', "
       "SIGIR 2019 (cwl_eval, which ir_measures runs)")
UNDEFINED = ("Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) "
             "and whenever no retrieved grade lies above min_grade; the gains do not depend on "
             "relevance_level, so R = 0 is scored like any other query.")
ADAPTIVE_TIES = ("Refused where the order matters: the weights depend on the gains read "
                 "before{what}, and the mean over a tie's orders has no closed form; under "
                 "ties='average' a tie that mixes gains, is reached with positive probability "
                 "and has at least two positions in the weighted part of the list raises a "
                 "ValueError naming the query (pass ties='first'). Other ties take the group "
                 "mean gain, which is then exact.")


def check_grade(x):
    """A finite grade (the bottom of the gain scale)."""
    if not is_real(x) or not math.isfinite(x):
        raise ValueError(f"must be a finite number, not {x!r}")
    return float(x)


T_PARAM = Param("T", 1.0, check_positive,
                "T: the gain the user sets out to find, in units of the top grade's gain")
MIN_GRADE = Param("min_grade", 0.0, check_grade,
                  "grades at or below it gain 0 (ir_measures' min_rel)")
MAX_GRADE = Param("max_grade", None, check_positive_or_none,
                  "grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels")
DEPTH = Param("depth", 1000, check_k,
              "length of the list the user model runs over: the ranking cut there and padded "
              "with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end")


# --------------------------------------------------------------------------- shared pieces
def cwl_gains(prep: Prepared, min_grade: float, max_grade, name: str) -> np.ndarray:
    """g = (clip(grade, min_grade, max_grade) − min_grade)/(max_grade − min_grade) per row,
    negative grades as 0 first, unjudged 0 (ir_measures' cwl_eval gains)."""
    if max_grade is not None and max_grade <= min_grade:
        raise ParameterError(f"{name}: max_grade={max_grade:g} must exceed min_grade="
                             f"{min_grade:g} (gains run from 0 at min_grade to 1 at max_grade)")
    top = float(prep.max_grade) if max_grade is None else float(max_grade)
    if top <= min_grade:  # no grade above the bottom of the scale: nothing gains
        return np.zeros(len(prep.grade))
    grade = np.where(np.isnan(prep.grade), min_grade, np.maximum(prep.grade, 0.0))
    return (np.clip(grade, min_grade, top) - min_grade) / (top - min_grade)


def _window(prep: Prepared, M):
    """Rows at positions ≤ M (all for None) and each ranking's length n' = min(n, M)."""
    if M is None:
        return np.arange(len(prep.seg)), prep.length.astype(np.float64)
    rows = np.flatnonzero(prep.pos <= M)
    return rows, np.minimum(prep.length, M).astype(np.float64)


def _m(k, depth):
    """The last weighted position: min(k, depth), None when both are None."""
    known = [v for v in (k, depth) if v is not None]
    return min(known) if known else None


def _refuse_mixed(prep: Prepared, g: np.ndarray, reached: np.ndarray, M, name: str,
                  why: str) -> None:
    """Under ties="average": raise for a tie group whose gains differ, that the user reaches
    (``reached``: per group) and that has at least two positions ≤ M."""
    if prep.ties != "average" or prep.singleton_groups:
        return
    mixed = mixed_groups(prep, g)
    if M is not None:
        mixed &= prep.g_start + 2 <= M
    require_order_free(prep, mixed & reached, name, why)


def _cascade_value(prep: Prepared, name: str, raw: np.ndarray, g_rows: np.ndarray,
                   rows: np.ndarray, discount: np.ndarray, tail, M) -> np.ndarray:
    """M = Σ_i E_i g_i / Σ_i E_i with E_i = discount_i · Π_{j<i}(1 − g_j) over the rows of the
    window (``discount`` per row), plus the gain-0 padding from n' + 1 to M, whose E_i sum is
    Π_{j≤n'}(1 − g_j) · tail(n') (``tail``: per segment). ``raw``: every row's own gain (the
    tie test), ``g_rows``: the window's gains, tie-group means under ties="average"."""
    seg = prep.seg[rows]
    before, through, _ = _segment_scan_product(1.0 - g_rows, seg, prep.n_segments)
    if prep.ties == "average" and not prep.singleton_groups:
        reached = np.zeros(prep.n_groups, dtype=bool)
        first = prep.group_first_row
        # a group's first row: its E before it (groups beyond the window count as unreached)
        at = np.full(len(prep.seg), -1, dtype=np.int64)
        at[rows] = np.arange(len(rows))
        inside = at[first] >= 0
        reached[inside] = before[at[first[inside]]] > 0
        _refuse_mixed(prep, raw, reached, M, name,
                      "its weights are normalised by a sum that the order changes")
    E = discount * before
    num = np.bincount(seg, weights=E * g_rows, minlength=prep.n_segments)
    den = np.bincount(seg, weights=E, minlength=prep.n_segments)
    with np.errstate(invalid="ignore"):
        den = den + np.where(through > 0, through * tail, 0.0)
        return np.where(np.isinf(den), 0.0, num / den)

