"""Score normalisation before fusion, per query per run, as ranx 0.3.21 does it
(Bassani & Romelli, "ranx.fuse: A Python Library for Metasearch", CIKM 2022).

Each run's scores for one query, s₁…sₙ (a ranking of n documents, C candidates for the
query over all runs), become:

* ``"min-max"``: (s − min) / max(max − min, 10⁻⁹) (Lee 1997);
* ``"min-max-inverted"``: (max − s) / max(max − min, 10⁻⁹), and the ranking is reversed;
* ``"max"``: s / max(max, 10⁻⁹) (ranx's floor: a query whose scores are all negative is
  divided by 10⁻⁹, as in ranx);
* ``"sum"``: (s − min) / max(Σs − n·min, 10⁻⁹) (Montague & Aslam 2001);
* ``"zmuv"``: (s − mean) / max(std, 10⁻⁹), the population standard deviation (Montague &
  Aslam 2001);
* ``"rank"``: 1 − (i − 1)/n for the document at position i (Renda & Straccia 2003);
* ``"borda"``: (C − i + 1)/C at position i, and every candidate the run did not retrieve
  gets (C − n + 1)/(2C), the mean of the points of the positions left (Renda & Straccia
  2003); the run then holds every candidate, tied below its own documents;
* ``None`` (or ``"none"``): the scores as given.

With ``ties="average"`` the position-based values (``rank``, ``borda``) of tied documents
are the mean over the positions their tie group occupies (the expectation over the orders
of the tie); the others depend on scores only.

The result is a ``Table``: per (run, query) the entries of its *positional ranking*
(the ranking itself; reversed for ``min-max-inverted``; extended for ``borda``), with the
normalised value, the position, the ranking's length and the tie group of each entry.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trunc_accessor.core.prepared import _positions
from trunc_accessor.errors import InputError
from trunc_accessor.fusion._stack import Stack

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", None)
_NORM_ALIASES = {"min-max": "min-max", "min_max": "min-max", "minmax": "min-max",
                 "min-max-inverted": "min-max-inverted", "min_max_inverted": "min-max-inverted",
                 "max": "max", "sum": "sum", "zmuv": "zmuv", "z-score": "zmuv",
                 "rank": "rank", "borda": "borda", "none": None}
SCORE_NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv")
FLOOR = 1e-9  # ranx's smallest denominator


def check_norm(norm):
    """The canonical name of a normalisation (ranx's spellings accepted), or None."""
    if norm is None:
        return None
    if isinstance(norm, str) and norm.lower() in _NORM_ALIASES:
        return _NORM_ALIASES[norm.lower()]
    raise InputError(f"norm= must be one of {[n for n in NORMS if n]} or None, not {norm!r}")


@dataclass(eq=False)
class Table:
    """Normalised runs (module doc). Entries are ordered by segment (run·Q + query), then
    position; ``gid`` numbers tie groups (each entry its own unless ``ties="average"``)."""

    st: Stack
    seg: np.ndarray       # (M,) segment of each entry
    cand: np.ndarray      # (M,) candidate
    value: np.ndarray     # (M,) normalised score
    pos: np.ndarray       # (M,) 1-based position in the positional ranking
    offsets: np.ndarray   # (R·Q + 1,)
    gid: np.ndarray       # (M,) tie group
    norm: str | None
    singleton_groups: bool  # every entry its own tie group
    raw: np.ndarray | None = None  # (M,) position-based values before tie averaging (None:
    #                                not averaged, or score-based: ``value`` is the same)

    @property
    def system(self) -> np.ndarray:
        return self.seg // max(self.st.n_q, 1)

    @property
    def query(self) -> np.ndarray:
        return self.seg % max(self.st.n_q, 1)

    @property
    def seg_len(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def length(self) -> np.ndarray:
        """The length of each entry's positional ranking."""
        return self.seg_len[self.seg]

    def group_mean(self, values: np.ndarray) -> np.ndarray:
        """Each entry's value replaced by its tie group's mean (the identity when every
        entry is its own group)."""
        if self.singleton_groups:
            return values
        sums = np.bincount(self.gid, weights=values)
        counts = np.bincount(self.gid)
        return (sums / np.maximum(counts, 1))[self.gid]

    def group_first_pos(self) -> np.ndarray:
        """Each entry's tie group's first position (equal for tied entries)."""
        if self.singleton_groups:
            return self.pos
        first = np.full(int(self.gid.max()) + 1 if len(self.gid) else 0, np.iinfo(np.int64).max)
        np.minimum.at(first, self.gid, self.pos)
        return first[self.gid]


_REDUCE = {"min": np.minimum, "max": np.maximum, "sum": np.add}


def _segment_stats(st: Stack, names: tuple[str, ...]):
    """Per segment (empty ones get 0): the ``names`` among min, max and sum, and the
    count n."""
    counts = np.diff(st.offsets)
    nonempty = np.flatnonzero(counts > 0)
    starts = st.offsets[:-1][nonempty]
    out = {"n": counts.astype(np.float64)}
    for name in names:
        v = np.zeros(len(counts))
        if len(starts):
            v[nonempty] = _REDUCE[name].reduceat(st.score, starts)
        out[name] = v
    return out


def _score_values(st: Stack, norm: str) -> np.ndarray:
    s, counts = st.score, np.diff(st.offsets)

    def per_row(per_seg):  # rows are in segment order
        return np.repeat(per_seg, counts)

    if norm == "zmuv":  # the population standard deviation, from the deviations about the mean
        stats = _segment_stats(st, ("sum",))
        n = np.maximum(stats["n"], 1)
        dev = s - per_row(stats["sum"] / n)
        var = np.bincount(st.seg, weights=dev * dev, minlength=len(n)) / n
        dev /= per_row(np.maximum(np.sqrt(var), FLOOR))
        return dev
    stats = _segment_stats(st, ("min", "max", "sum") if norm == "sum" else ("min", "max"))
    lo, hi = stats["min"], stats["max"]
    if norm in ("min-max", "min-max-inverted"):
        den = per_row(np.maximum(hi - lo, FLOOR))
        return (s - per_row(lo)) / den if norm == "min-max" else (per_row(hi) - s) / den
    if norm == "max":
        return s / per_row(np.maximum(hi, FLOOR))
    return (s - per_row(lo)) / per_row(np.maximum(stats["sum"] - lo * stats["n"], FLOOR))


def normalise(st: Stack, norm: str | None) -> Table:
    """The normalised runs as a ``Table`` (module doc)."""
    norm = check_norm(norm)
    seg, cand, pos, gid, offsets = st.seg, st.cand, st.pos, st.gid, st.offsets
    length = np.diff(offsets)[seg] if len(seg) else np.zeros(0, dtype=np.int64)
    if norm in SCORE_NORMS:
        value = _score_values(st, norm)
    elif norm == "rank":
        value = 1.0 - (pos - 1) / length
    elif norm == "borda":
        value = 1.0 - (pos - 1) / st.q_counts()[st.query]
    else:
        value = st.score.copy()
    table = Table(st, seg, cand, value, pos, offsets, gid, norm, st.singleton_groups)
    if norm in ("rank", "borda"):
        table.value = table.group_mean(value)
        if not table.singleton_groups:
            table.raw = value
    if norm == "min-max-inverted":  # the ranking reversed: position i becomes n + 1 - i
        rev = np.lexsort((-pos, seg))
        table = Table(st, seg[rev], cand[rev], table.value[rev], (length + 1 - pos)[rev],
                      offsets, gid[rev], norm, st.singleton_groups)
    if norm == "borda":
        table = _borda_fill(table)
    return table


def _borda_fill(table: Table) -> Table:
    """Add, for every run and query, the candidates the run did not retrieve: after its own
    documents, all tied (one tie group under ``ties="average"``; otherwise in trec_eval's
    order, docid descending), each worth (C − n + 1)/(2C)."""
    st = table.st
    R, Q, C = st.n_runs, st.n_q, st.n_cand
    retrieved = np.zeros(R * C, dtype=bool)
    retrieved[table.system * C + table.cand] = True
    missing = np.flatnonzero(~retrieved)
    if not len(missing):
        return table
    f_sys, f_cand = missing // C, missing % C
    f_q = st.cand_q[f_cand]
    f_seg = f_sys * Q + f_q
    n_ret = table.seg_len[f_seg]
    n_c = st.q_counts()[f_q]
    f_value = 0.5 - (n_ret - 1) / (2.0 * n_c)
    seg = np.concatenate([table.seg, f_seg])
    cand = np.concatenate([table.cand, f_cand])
    value = np.concatenate([table.value, f_value])
    raw = None if table.raw is None else np.concatenate([table.raw, f_value])
    big = np.int64(C + 1)
    key = np.concatenate([table.pos, big + (C - f_cand)])  # after the run's own, docid desc
    order = np.lexsort((key, seg))
    seg, cand, value = seg[order], cand[order], value[order]
    raw = None if raw is None else raw[order]
    offsets, pos = _positions(seg, R * Q)
    base = int(table.gid.max()) + 1 if len(table.gid) else 0
    if st.ties == "average":
        f_gid = base + f_seg  # one group per (run, query) block of unretrieved candidates
    else:
        f_gid = base + np.arange(len(missing))
    gid = np.concatenate([table.gid, f_gid])[order]
    return Table(st, seg, cand, value, pos.astype(np.int64), offsets, gid, table.norm,
                 st.ties != "average", raw)
