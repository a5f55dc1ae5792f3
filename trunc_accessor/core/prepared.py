"""The arrays every metric kernel reads (``Prepared``): flat NumPy arrays over
segments (one segment = one ranking = one (by…, qid)) in ranking order, with the tie groups,
each document's grade and each query's judged grades; ``build`` makes one from them,
``empty`` the call with nothing to score. ``prepare`` fills them from frames."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import polars as pl

from trunc_accessor.errors import ParameterError

TIES = ("average", "first", "trec_eval", "trec_eval9")
# orders a preset (``like=``, ``.presets``) asks for and no ``ties=`` names: score
# descending, then docid ascending ("score_docid"; ir_measures' msmarco, judged, compat and
# pyndeval providers), or the input order ("score_input": the rank column ignored; its
# cwl_eval, gdeval and accuracy providers). Every position is its own tie group.
PRESET_ORDERS = ("score_docid", "score_input")


def check_ties(ties: str, preset_orders: bool = False) -> str:
    """``ties=`` as given by a user (one of ``TIES``); ``preset_orders``: the orders of
    ``PRESET_ORDERS`` too (the engine's own calls)."""
    allowed = TIES + PRESET_ORDERS if preset_orders else TIES
    if not isinstance(ties, str) or ties not in allowed:
        raise ParameterError(f"ties= must be one of {TIES}, not {ties!r}")
    return ties


@dataclass(eq=False)
class Prepared:
    """Segment arrays for a set of rankings (see module docstring).

    Row arrays (length N, ranking order, segments contiguous):
      ``seg`` segment index, ``pos`` 1-based position (derived from ``offsets`` on first
      read), ``grade`` the judged grade
      (NaN for an unjudged document, negative grades kept as given),
      ``gid`` tie-group index.
    Group arrays (length G): ``g_seg``, ``g_start`` (positions before the group in its
    ranking, t_i of McSherry & Najork), ``g_size``; ``build`` gives instead each
    group's first row (``g_first``), from which they are derived when a kernel first reads
    them (most kernels read only the groups holding a judged document, through
    ``judged_part``, so at 10M rows three arrays of G are not made at all).
    Segment arrays (length Q): ``offsets`` (Q+1), ``seg_q`` index of the segment's qid.
    Qid arrays: ``q_offsets`` (n_qids+1) into ``q_grades``, the judged grades of each qid.
    """

    keys: pl.DataFrame
    offsets: np.ndarray
    seg_q: np.ndarray
    seg: np.ndarray
    grade: np.ndarray
    gid: np.ndarray
    q_offsets: np.ndarray
    q_grades: np.ndarray
    max_grade: float
    ties: str
    _g_seg: np.ndarray | None = None  # None: derived from g_first when first read
    _g_start: np.ndarray | None = None
    _g_size: np.ndarray | None = None
    g_first: np.ndarray | None = None  # each group's first row (None, with no group
    # arrays given: every row is its own group)
    _pos: np.ndarray | None = None  # None: derived from seg and offsets when first read
    _cache: dict = field(default_factory=dict, repr=False)
    aspects: object = None  # the subtopic pairs of diversity qrels (core.aspects.Aspects)
    # the qrels' columns beside the grade (a sampled pool's stratum, inclusion
    # probabilities): name -> (value per row, NaN when unjudged; value per judgment, in the
    # order of q_grades)
    extra: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ sizes
    @property
    def n_segments(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_groups(self) -> int:
        if self._g_size is not None:
            return len(self._g_size)
        return len(self.g_first) if self.g_first is not None else len(self.seg)

    @property
    def pos(self) -> np.ndarray:
        """1-based position of each row in its ranking."""
        if self._pos is None:
            self._pos = ranking_positions(self.offsets, len(self.seg))
        return self._pos

    def positions_of(self, rows: np.ndarray) -> np.ndarray:
        """``pos[rows]``, without making the whole array when it is derived."""
        if self._pos is not None:
            return self._pos[rows]
        return rows - self.offsets[self.seg[rows]] + 1

    def groups_of(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``g_seg``, ``g_start`` and ``g_size`` of the groups ``g``, without making the
        whole arrays when they are derived from ``g_first``."""
        if self._g_seg is not None and self._g_start is not None and self._g_size is not None:
            return self._g_seg[g], self._g_start[g], self._g_size[g]
        first = self.g_first
        if first is None:  # every row its own group
            return self.seg[g], self.positions_of(g) - 1, np.ones(len(g), dtype=np.int64)
        row = first[g]
        after = np.minimum(g + 1, len(first) - 1)
        end = np.where(g + 1 < len(first), first[after], len(self.seg))
        if self._pos is not None:
            return self.seg[row], self._pos[row] - 1, end - row
        seg = self.seg[row]  # one read of the rows' segments (positions_of reads them too)
        return seg, row - self.offsets[seg], end - row

    @property
    def g_seg(self) -> np.ndarray:
        if self._g_seg is None:
            self._g_seg = self.seg if self.g_first is None else self.seg[self.g_first]
        return self._g_seg

    @property
    def g_start(self) -> np.ndarray:
        if self._g_start is None:
            self._g_start = (self.pos - 1 if self.g_first is None
                             else self.positions_of(self.g_first) - 1)
        return self._g_start

    @property
    def g_size(self) -> np.ndarray:
        if self._g_size is None:
            self._g_size = group_sizes(self.g_first, len(self.seg))
        return self._g_size

    @cached_property
    def length(self) -> np.ndarray:
        """n, the number of retrieved documents of each ranking."""
        return np.diff(self.offsets)

    @cached_property
    def singleton_groups(self) -> bool:
        return self.n_groups == len(self.seg)

    @cached_property
    def group_first_row(self) -> np.ndarray:
        """The row index of each tie group's first row (a group's rows are contiguous; also
        in a ``restrict``-ed preparation, unlike ``offsets[g_seg] + g_start``)."""
        if self.g_first is not None:
            return self.g_first
        if self.singleton_groups:
            return np.arange(len(self.seg))
        first = np.ones(len(self.gid), dtype=bool)
        first[1:] = self.gid[1:] != self.gid[:-1]
        return np.flatnonzero(first)

    @cached_property
    def q_seg(self) -> np.ndarray:
        """For each judged row (q_grades), the index of its qid."""
        return np.repeat(np.arange(len(self.q_offsets) - 1), np.diff(self.q_offsets))

    # ------------------------------------------------------------------ reductions
    def seg_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of a row array over each segment (0 for an empty ranking)."""
        return np.bincount(self.seg, weights=values, minlength=self.n_segments)

    def group_sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.gid, weights=values, minlength=self.n_groups)

    def group_mean(self, values: np.ndarray) -> np.ndarray:
        """Each row's value replaced by the mean over its tie group (McSherry & Najork:
        the expected value at a position of a tied group under a uniform order)."""
        if self.singleton_groups:
            return values.astype(np.float64, copy=False)
        return (self.group_sum(values) / self.g_size)[self.gid]

    def qid_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of a judged-row array per qid, broadcast to segments."""
        per_qid = np.bincount(self.q_seg, weights=values, minlength=len(self.q_offsets) - 1)
        return per_qid[self.seg_q]

    def before_group(self, per_group: np.ndarray) -> np.ndarray:
        """For each group, the sum of `per_group` over the earlier groups of its ranking."""
        c = np.cumsum(per_group) - per_group
        first = np.searchsorted(self.g_seg, np.arange(self.n_segments))
        start = np.zeros(self.n_segments, dtype=c.dtype)
        nonempty = first < self.n_groups
        start[nonempty] = c[first[nonempty]]
        return c - start[self.g_seg]

    # ------------------------------------------------------------------ sparse parts
    def group_rows(self, rows: np.ndarray) -> np.ndarray:
        """Every row of the tie groups that hold the given rows (sorted row indices)."""
        if self.singleton_groups or rows.size == 0:
            return rows
        g = self.gid[rows]
        g = g[np.r_[True, g[1:] != g[:-1]]]
        g_seg, g_start, size = self.groups_of(g)
        first = self.offsets[g_seg] + g_start
        ends = np.cumsum(size)
        return np.repeat(first - (ends - size), size) + np.arange(ends[-1] if ends.size else 0)

    def restrict(self, rows: np.ndarray) -> Prepared:
        """The rankings with only ``rows`` (whole tie groups, sorted): positions, groups
        and segment numbers stay those of the full rankings. For sums over rows or groups
        in which the left-out groups contribute nothing (the groups without a relevant
        document, for AP, P@k, DCG, RR, RBP), the restricted preparation gives the same
        per-segment values at the cost of the kept rows only. Not for kernels that index
        rows through ``offsets`` or use ranking lengths as row counts."""
        gid = self.gid[rows]
        boundary = np.ones(len(rows), dtype=bool)
        boundary[1:] = gid[1:] != gid[:-1]
        g_seg, g_start, g_size = self.groups_of(gid[boundary])
        return Prepared(keys=self.keys, offsets=self.offsets, seg_q=self.seg_q,
                        seg=self.seg[rows], _pos=self.positions_of(rows), grade=self.grade[rows],
                        gid=np.cumsum(boundary) - 1, _g_seg=g_seg, _g_start=g_start,
                        _g_size=g_size,
                        q_offsets=self.q_offsets, q_grades=self.q_grades,
                        max_grade=self.max_grade, ties=self.ties,
                        extra={k: (r[rows], q) for k, (r, q) in self.extra.items()})

    def judged_part(self) -> Prepared:
        """This preparation restricted to the tie groups that hold a judged document (see
        ``restrict``): what AP, P@k, R@k, DCG, RR, RBP and success need, since an
        unjudged document has no gain and is not relevant. Cached."""
        if "judged_part" not in self._cache:
            judged = np.flatnonzero(~np.isnan(self.grade))
            if judged.size == len(self.grade):
                self._cache["judged_part"] = self
            else:
                part = self._whole_groups(judged)
                part._cache["judged_part"] = part
                self._cache["judged_part"] = part
        return self._cache["judged_part"]

    def _whole_groups(self, rows: np.ndarray) -> Prepared:
        """``restrict(group_rows(rows))``, built from the groups' first rows and sizes: the
        kept rows' segments, positions and group numbers repeat their group's, so of the
        full-length arrays only the group index, group bounds, segment of each group and
        the grades are read (each read of a 10M-row array at scattered rows costs about as
        much as the whole restricted part's arithmetic)."""
        if self.singleton_groups or rows.size == 0:
            return self.restrict(rows)
        g = self.gid[rows]
        g = g[np.r_[True, g[1:] != g[:-1]]]
        g_seg, g_start, size = self.groups_of(g)
        ends = np.cumsum(size)
        local = np.arange(ends[-1]) - np.repeat(ends - size, size)  # offset in its group
        kept = np.repeat(self.offsets[g_seg] + g_start, size) + local
        return Prepared(keys=self.keys, offsets=self.offsets, seg_q=self.seg_q,
                        seg=np.repeat(g_seg, size), _pos=np.repeat(g_start, size) + local + 1,
                        grade=self.grade[kept], gid=np.repeat(np.arange(len(g)), size),
                        _g_seg=g_seg, _g_start=g_start, _g_size=size,
                        q_offsets=self.q_offsets, q_grades=self.q_grades,
                        max_grade=self.max_grade, ties=self.ties,
                        extra={k: (r[kept], q) for k, (r, q) in self.extra.items()})

    # ------------------------------------------------------------------ relevance
    def relevant(self, level: float) -> np.ndarray:
        """Binary relevance of each retrieved row: grade ≥ level (unjudged: 0)."""
        key = ("rel", level)
        if key not in self._cache:
            with np.errstate(invalid="ignore"):
                self._cache[key] = (self.grade >= level).astype(np.float64)
        return self._cache[key]

    def num_relevant(self, level: float) -> np.ndarray:
        """R of each segment: the number of the qid's judged documents with grade ≥ level."""
        key = ("R", level)
        if key not in self._cache:
            self._cache[key] = self.qid_sum((self.q_grades >= level).astype(np.float64))
        return self._cache[key]

    def gain(self) -> np.ndarray:
        """Grade as gain, negative and unjudged as 0."""
        if "gain" not in self._cache:
            self._cache["gain"] = np.where(np.isnan(self.grade), 0.0, np.maximum(self.grade, 0.0))
        return self._cache["gain"]


    # ------------------------------------------------------------------ prefixes
    def cut_points(self, max_depth=None) -> tuple[np.ndarray, np.ndarray]:
        """(segment, depth) of every allowed truncation of every ranking: depth 0 and the
        end of every tie group (with ties="first"/"trec_eval" every position; with
        ties="average" a system that tied documents cannot stop between them), up to
        ``max_depth``."""
        ends = self.g_start + self.g_size
        keep = ends <= max_depth if max_depth is not None else np.ones(len(ends), dtype=bool)
        segs = np.concatenate([np.arange(self.n_segments), self.g_seg[keep]])
        depths = np.concatenate([np.zeros(self.n_segments, dtype=np.int64), ends[keep]])
        order = np.lexsort((depths, segs))
        return segs[order], depths[order]

    def prefixes(self, segs: np.ndarray, depths: np.ndarray, keys: pl.DataFrame) -> Prepared:
        """A Prepared whose rankings are the first ``depths[i]`` positions of ranking
        ``segs[i]`` (depths at tie-group ends): one kernel call then scores every prefix.
        Costs Σ depths rows."""
        lengths = depths.astype(np.int64)
        new_seg = np.repeat(np.arange(len(segs)), lengths)
        starts = np.zeros(len(segs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        within = np.arange(starts[-1]) - starts[new_seg]
        src = self.offsets[segs][new_seg] + within
        gid_src = self.gid[src]
        boundary = np.ones(len(src), dtype=bool)
        boundary[1:] = (new_seg[1:] != new_seg[:-1]) | (gid_src[1:] != gid_src[:-1])
        gid = np.cumsum(boundary) - 1
        first = np.flatnonzero(boundary)
        out = Prepared(keys=keys, offsets=starts, seg_q=self.seg_q[segs], seg=new_seg,
                       _pos=within + 1, grade=self.grade[src], gid=gid, _g_seg=new_seg[first],
                       _g_start=within[first], _g_size=group_sizes(first, len(src)),
                       q_offsets=self.q_offsets, q_grades=self.q_grades,
                       max_grade=self.max_grade, ties=self.ties,
                       extra={k: (r[src], q) for k, (r, q) in self.extra.items()})
        if self.aspects is not None:  # the subtopic pairs of the prefixes' rows
            out.aspects = self.aspects.remap(src, len(self.seg))  # type: ignore[attr-defined]
        return out

# --------------------------------------------------------------------------- build
def _offsets(seg: np.ndarray, n_segments: int) -> np.ndarray:
    """Where each segment's rows start (rows in segment order), and the end."""
    offsets = np.zeros(n_segments + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg, minlength=n_segments), out=offsets[1:])
    return offsets


def ranking_positions(offsets: np.ndarray, n: int) -> np.ndarray:
    """1, 2, … restarting at each ranking, for rows in segment order: ones, with each
    ranking's first row set to 1 − (length of the ranking before it), then a running sum."""
    counts = np.diff(offsets)
    pos = np.ones(n, dtype=np.int64)
    nonempty = counts > 0
    firsts, lengths = offsets[:-1][nonempty], counts[nonempty]
    pos[firsts[1:]] = 1 - lengths[:-1]
    np.cumsum(pos, out=pos)
    return pos


def _positions(seg: np.ndarray, n_segments: int) -> tuple[np.ndarray, np.ndarray]:
    offsets = _offsets(seg, n_segments)
    return offsets, ranking_positions(offsets, len(seg))


def score_boundaries(score: np.ndarray) -> np.ndarray:
    """True where a row's score differs from the previous row's (and at row 0)."""
    boundary = np.empty(len(score), dtype=bool)
    if len(score):
        boundary[0] = True
        np.not_equal(score[1:], score[:-1], out=boundary[1:])
    return boundary


def _groups(seg: np.ndarray, boundary: np.ndarray | None):
    """Tie groups: maximal runs of equal score inside a ranking (``boundary``: where the
    score changes, see ``score_boundaries``; None: every position its own group).
    Returns ``gid`` (each row's group) and each group's first row (None: every row is
    its own group)."""
    if boundary is None or len(seg) == 0:
        return np.arange(len(seg), dtype=np.int64), None
    boundary[1:] |= seg[1:] != seg[:-1]
    gid = np.cumsum(boundary)
    gid -= 1
    return gid, np.flatnonzero(boundary)


def group_sizes(g_first: np.ndarray | None, n: int) -> np.ndarray:
    """The size of each tie group from its first rows (``_groups``) and the row count;
    None: n groups of 1 (broadcast, read-only)."""
    if g_first is None:
        return np.broadcast_to(np.int64(1), (n,))
    size = np.empty(len(g_first), dtype=np.int64)
    np.subtract(g_first[1:], g_first[:-1], out=size[:-1])
    size[-1:] = n - g_first[-1:]
    return size


def build(keys: pl.DataFrame, seg_q: np.ndarray, seg: np.ndarray, grade: np.ndarray,
          score: np.ndarray | None, q_offsets: np.ndarray, q_grades: np.ndarray,
          max_grade: float, ties: str, boundary: np.ndarray | None = None) -> Prepared:
    """Assemble a ``Prepared`` from rows already in ranking order. Tie groups
    (``ties="average"``) come from ``score``, or from its ``boundary`` array when the caller
    has dropped the scores (it is consumed)."""
    if ties != "average":
        boundary = None
    elif boundary is None and score is not None:
        boundary = score_boundaries(score)
    gid, g_first = _groups(seg, boundary)
    # positions and, with every row its own group, the group arrays are derived on first
    # read (most kernels read only the judged groups' rows: judged_part)
    return Prepared(keys=keys, offsets=_offsets(seg, len(seg_q)), seg_q=seg_q, seg=seg,
                    grade=grade, gid=gid, q_offsets=q_offsets, q_grades=q_grades,
                    max_grade=max_grade, ties=ties, g_first=g_first)


def empty(keys: pl.DataFrame, ties: str) -> Prepared:
    """A preparation with no ranking (nothing to score): every kernel answers nothing."""
    z = np.zeros(0, dtype=np.int64)
    return build(keys.clear(), z, z, np.zeros(0), None, np.zeros(1, dtype=np.int64),
                 np.zeros(0), 0.0, ties)
