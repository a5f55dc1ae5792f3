"""Condensed lists (Sakai, "Alternatives to bpref", SIGIR 2007; trec_eval -J): a
preparation without its documents that lack a judgment of grade ≥ 0, derived from the
preparation itself, so that one measure of a call can be scored on condensed lists while the
others see the full rankings."""
from __future__ import annotations

import numpy as np

from trunc_accessor.core.prepared import Prepared, _offsets


def condensed(prep: Prepared) -> Prepared:
    """``prep`` with only the rows judged with a grade ≥ 0, the rest of each ranking moved
    up: the same rankings as preparing the run with ``judged_only=True`` (removing rows keeps
    the order of the others, and documents tied before stay tied). Cached on ``prep``."""
    if "condensed" in prep._cache:
        return prep._cache["condensed"]
    with np.errstate(invalid="ignore"):
        keep = np.flatnonzero(prep.grade >= 0)
    if keep.size == len(prep.grade):
        prep._cache["condensed"] = prep
        return prep
    seg = prep.seg[keep]
    if prep.singleton_groups:
        gid, first = np.arange(len(keep), dtype=np.int64), None
    else:
        old = prep.gid[keep]
        boundary = np.ones(len(keep), dtype=bool)
        boundary[1:] = old[1:] != old[:-1]  # a new ranking starts a new group too
        gid, first = np.cumsum(boundary) - 1, np.flatnonzero(boundary)
    out = Prepared(keys=prep.keys, offsets=_offsets(seg, prep.n_segments), seg_q=prep.seg_q,
                   seg=seg, grade=prep.grade[keep], gid=gid, q_offsets=prep.q_offsets,
                   q_grades=prep.q_grades, max_grade=prep.max_grade, ties=prep.ties,
                   g_first=first)
    if prep.aspects is not None:  # the subtopic pairs of the kept rows
        out.aspects = prep.aspects.remap(keep, len(prep.seg))  # type: ignore[attr-defined]
    out._cache["condensed"] = out
    prep._cache["condensed"] = out
    return out
