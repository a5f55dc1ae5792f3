"""Bounds for any measure under incomplete judgments: the value of a measure when every
unjudged retrieved document of a ranking is judged non-relevant (grade 0) and when every one
is judged relevant at a grade (the qrels' largest by default).

A bound is the measure on *completed* judgments: the qrels of each ranking extended with its
own unjudged retrieved documents (the holes) at the fill grade, so the filled documents are
judged from then on (Judged@k is 1 and bpref counts them as judged non-relevant at grade 0).
Both completions are derived from the call's one preparation (``filled``: the grades of the
holes set, and each ranking given its own judged grades: its query's plus its holes, since
two rankings of one query hold different holes); the measure's own kernel then runs on it,
so every frontend and every batch computes bounds as it computes the measure.

``Bound`` is the measure that answers one side: ``lo`` is the smaller and ``hi`` the larger
of the two completions' values (a measure that falls as a document's grade rises, such as
num_nonrel_judged_ret, has its 0-completion on top; an undefined value is ordered as 0).
Both completions share one grade scale, whose top is the larger of the qrels' largest grade
and the fill grade (for the measures that read it: ERR, graded RBP, …). Where the measure
is monotone in every retrieved document's grade, [lo, hi] is exactly the range of the
measure over every labelling of the holes with grades between 0 and the fill grade;
``NOT_MONOTONE`` lists the measures of the library for which it is not (a hole judged
relevant also raises R, the ideal ranking or the judged non-relevant count, which can lower
the value), for which [lo, hi] is the range between the two extreme completions only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.params import checked
from trunc_accessor.metrics.registry import Measure

SIDES = ("lo", "hi")

#: The measures whose value can fall when one retrieved document's grade rises, so that
#: their bounds are the two extreme completions and not the range over every labelling
#: (found and checked by enumerating every labelling of small rankings): a relevant hole
#: raises R (recall@k, AP, R-precision, relative precision, the interpolated precisions),
#: the ideal ranking (nDCG and its relatives, trec_eval's G, compat, BPM, OIE), the judged
#: non-relevant documents above the relevant ones (bpref, accuracy), the query's largest
#: grade by which trec_eval's rbp divides every gain (trec_rbp), or moves the relevant
#: documents' span (Twist and the CRP family). infAP on completed judgments is AP; the
#: sampled-pool estimators (xinfAP, infNDCG, statAP, statR-prec) inherit AP's, nDCG's and
#: R-precision's reasons; expected exposure's target and GERR's exposures move with every
#: grade (ee_d, ee_r, ee_l).
NOT_MONOTONE = frozenset({
    "accuracy", "ap", "ap_prime", "binary_g", "bpm", "bpref", "compat", "ee_d", "ee_l",
    "ee_r", "f1", "infap",
    "infndcg", "interpolated_precision_11pt", "iprec_at_recall", "ndcg", "ndcg_prime",
    "ndcg_rel", "normalized_g", "oie", "recall", "recovery_ratio", "relative_precision",
    "rndcg", "rprec", "rprec_mult", "space_ratio", "space_ratio_minus", "space_ratio_plus",
    "stat_ap", "stat_rprec", "trec_rbp", "twist", "xinfap"})


def check_fill(grade) -> float | None:
    """``bounds``' ``grade=``: None (the qrels' largest grade) or a finite number > 0."""
    def check(v):
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ValueError("must be a number")
        v = float(v)
        if not np.isfinite(v) or v <= 0:
            raise ValueError("must be a finite number > 0")
        return v
    return checked("grade", check, grade)


@dataclass(frozen=True)
class Bound(Measure):
    """One side (``"lo"``/``"hi"``) of a measure's bounds with the holes filled at ``fill``
    (None: the largest grade of the qrels)."""

    side: str = "lo"
    fill: float | None = None

    @classmethod
    def of(cls, measure: Measure, side: str, fill: float | None) -> Bound:
        if measure.metric.subtopics:
            raise ParameterError(
                f"bounds: {measure.label} reads the qrels' subtopics, and an unjudged document "
                "has no subtopic to fill; bounds are for the ad hoc measures")
        return cls(measure.metric, measure.params, measure.level, measure.judged_only, side, fill)

    @property
    def base(self) -> Measure:
        return Measure(self.metric, self.params, self.level, self.judged_only)

    @property
    def label(self) -> str:
        fill = "" if self.fill is None else f",grade={self.fill:g}"
        return f"{self.base.label}[{self.side}{fill}]"

    def __repr__(self) -> str:
        return f"Bound({self.label})"

    def compute(self, prep: Prepared, relevance_level: float) -> np.ndarray:
        if "sample" in prep.extra:  # a completion judges each retrieval of a hole apart
            raise ParameterError(
                "bounds complete one ranking per query, and the run has a 'sample' column "
                "of sampled rankings; bound each sample with by='sample', or drop the column")
        zero, top = completions(prep, self.base, self.fill, relevance_level)
        # an undefined value (NaN) is ordered as 0, the value undefined="zero" gives it
        swap = np.nan_to_num(top) < np.nan_to_num(zero)
        if self.side == "lo":
            return np.where(swap, top, zero)
        return np.where(swap, zero, top)


def completions(prep: Prepared, measure: Measure, fill: float | None,
                relevance_level: float) -> tuple[np.ndarray, np.ndarray]:
    """The measure on the 0-completion and on the ``fill``-completion of ``prep`` (cached
    on it, so the two sides of one measure share both runs of the kernel)."""
    key = ("bounds", measure, fill, relevance_level)
    if key not in prep._cache:
        grade = float(prep.max_grade if fill is None else fill)
        # both on one grade scale, up to the fill grade (measures that read the top grade)
        prep._cache[key] = tuple(
            np.asarray(measure.compute(filled(prep, g, grade), relevance_level),
                       dtype=np.float64) for g in (0.0, grade))
    return prep._cache[key]


def filled(prep: Prepared, grade: float, top: float) -> Prepared:
    """``prep`` with every unjudged retrieved document judged at ``grade``, on a grade
    scale reaching at least ``top`` (``completed``). Cached."""
    key = ("filled", float(grade), float(top))
    if key not in prep._cache:
        prep._cache[key] = completed(prep, np.float64(grade), float(top))
    return prep._cache[key]


def completed(prep: Prepared, hole_grades: np.ndarray | np.float64, top: float) -> Prepared:
    """``prep`` with its unjudged retrieved documents (its holes, in row order) judged at
    ``hole_grades`` (one grade, or one per hole; ``top`` the largest): their row grades set,
    and each ranking given its own judged grades (its query's, then its holes), so the
    completion of one ranking never reaches another's."""
    n_seg = prep.n_segments
    holes = np.isnan(prep.grade)
    judged = np.diff(prep.q_offsets)[prep.seg_q]
    hole_seg = prep.seg[holes]  # rows are in segment order: nondecreasing
    n_holes = np.bincount(hole_seg, minlength=n_seg)
    offsets = np.zeros(n_seg + 1, dtype=np.int64)
    np.cumsum(judged + n_holes, out=offsets[1:])
    q_grades = np.empty(offsets[-1], dtype=np.float64)
    seg_rep = np.repeat(np.arange(n_seg), judged)
    within = np.arange(len(seg_rep)) - np.repeat(np.cumsum(judged) - judged, judged)
    q_grades[offsets[seg_rep] + within] = prep.q_grades[prep.q_offsets[prep.seg_q][seg_rep]
                                                         + within]
    hole_within = np.arange(len(hole_seg)) - np.repeat(np.cumsum(n_holes) - n_holes, n_holes)
    q_grades[offsets[hole_seg] + judged[hole_seg] + hole_within] = hole_grades
    grade = prep.grade.copy()
    grade[holes] = hole_grades
    done = Prepared(keys=prep.keys, offsets=prep.offsets, seg_q=np.arange(n_seg), seg=prep.seg,
                    grade=grade, gid=prep.gid, q_offsets=offsets, q_grades=q_grades,
                    max_grade=max(float(prep.max_grade), top), ties=prep.ties,
                    _g_seg=prep._g_seg, _g_start=prep._g_start, _g_size=prep._g_size,
                    g_first=prep.g_first, _pos=prep._pos)
    if prep.extra:
        old = prep.q_offsets[prep.seg_q][seg_rep] + within
        new = offsets[seg_rep] + within
        done.extra = {k: _completed_extra(k, row, judged_values, holes, old, new,
                                          offsets[hole_seg] + judged[hole_seg] + hole_within)
                      for k, (row, judged_values) in prep.extra.items()}
    return done


def _completed_extra(name: str, row: np.ndarray, judged: np.ndarray, holes: np.ndarray,
                     old: np.ndarray, new: np.ndarray, hole_at: np.ndarray):
    """A qrels column the sampled-pool estimators read (core.prepare.EXTRA), completed as
    the grades are: each ranking's judgments, then its holes, judged for certain — inclusion
    probability 1 (statAP), a stratum of their own, wholly judged (sample_eval's estimators).
    A column of the run (a sample code: no judgments) is kept as it is."""
    if len(judged) == 0 and name not in ("stratum", "inclusion"):
        return row, judged
    fill = 1.0 if name == "inclusion" else (float(np.nanmax(judged)) + 1.0 if len(judged)
                                            else 0.0)
    row = row.copy()
    row[holes] = fill
    out = np.empty(len(new) + len(hole_at), dtype=np.float64)
    out[new] = judged[old]
    out[hole_at] = fill
    return row, out


def bound_names(named, fill: float | None) -> list:
    """The columns of ``bounds``: for each measure its value as judged, then its lo and hi
    (``label``, ``label_lo``, ``label_hi``)."""
    from trunc_accessor.metrics.registry import Named

    out = []
    for n in named:
        if n.measure is None:
            continue
        out += [n, *(Named(f"{n.label}_{side}", Bound.of(n.measure, side, fill), n.summary)
                     for side in SIDES)]
    return out
