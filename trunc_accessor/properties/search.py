"""The search behind the formal-property checker (``trunc_accessor.properties.checker``):
the candidate spaces (rankings judged against collections, each one query, all scored in one
call of the evaluation engine, ``trunc_accessor.engine.evaluation.compute``), the comparisons
of pairs of candidates, and one search per property of Amigó, Mizzaro & Spina (SIGIR 2022,
§2), each returning (holds, counterexample, witness, what was searched)."""
from __future__ import annotations

import itertools
import warnings
from collections import Counter
from collections.abc import Iterable

import numpy as np
import polars as pl

from trunc_accessor.engine.evaluation import compute
from trunc_accessor.engine.options import Options
from trunc_accessor.metrics.registry import Measure, Named

# every candidate ranked in the order written (its scores strictly decrease, so no tie), and
# a metric's undefined values kept as NaN: the comparisons skip them
OPTIONS = Options(ties="first", undefined="nan")


def _s(r) -> str:
    return "".join(str(int(g)) for g in r)


class _Space:
    """Candidates (ranking, judged grades not retrieved), each one qid; scored in one call."""

    def __init__(self, top: int):
        self.top = top
        self.ids: dict[tuple, int] = {}
        self.keys: list[tuple[tuple, tuple]] = []
        self.values: np.ndarray | None = None

    def add(self, ranking, unretrieved=()) -> int:
        key = (tuple(int(g) for g in ranking), tuple(sorted(int(g) for g in unretrieved)))
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.keys)
            self.keys.append(key)
        return i

    def add_in(self, ranking, collection: Counter) -> int:
        """The ranking judged against ``collection`` (a Counter grade → documents), which
        must hold the ranking's own grades."""
        rest = collection - Counter(ranking)
        assert sum(rest.values()) == sum(collection.values()) - len(ranking), (ranking, collection)
        return self.add(ranking, rest.elements())

    def score(self, measure: Measure) -> np.ndarray:
        """Every candidate scored in one ``compute`` call (ties="first")."""
        if self.values is not None and len(self.values) == len(self.keys):
            return self.values
        q_run, doc_run, score, q_rel, doc_rel, rel = [], [], [], [], [], []
        for qid, (r, extra) in enumerate(self.keys):
            n = len(r)
            for pos, g in enumerate(r):
                q_run.append(qid)
                doc_run.append(f"d{pos}")
                score.append(float(n - pos))
                q_rel.append(qid)
                doc_rel.append(f"d{pos}")
                rel.append(g)
            for k, g in enumerate(extra):
                q_rel.append(qid)
                doc_rel.append(f"x{k}")
                rel.append(g)
        run = pl.DataFrame({"qid": q_run, "docid": doc_run, "score": score},
                           schema={"qid": pl.Int64, "docid": pl.Utf8, "score": pl.Float64})
        qrels = pl.DataFrame({"qid": q_rel, "docid": doc_rel, "rel": rel},
                             schema={"qid": pl.Int64, "docid": pl.Utf8, "rel": pl.Int64})
        if qrels.height and qrels["rel"].max() != self.top:  # pin the grade scale's top
            raise AssertionError("the space must hold its top grade")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            keys, scored, cols = compute(run, qrels, [Named(measure.label, measure)], OPTIONS,
                                         queries=list(range(len(self.keys))))
        values = np.full(len(self.keys), np.nan)
        values[keys[cols.run_qid].to_numpy()] = np.asarray(scored[measure.label], dtype=float)
        self.values = values
        return values

    def describe(self, i: int) -> tuple[str, str, int]:
        r, extra = self.keys[i]
        R = sum(1 for g in r + extra if g >= 1)
        return _s(r), _s(extra), R


def _gt(a, b, tol):
    """a > b beyond floating-point noise (NaN compares False)."""
    with np.errstate(invalid="ignore"):
        return (a - b) > tol * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))


def _record(space: _Space, ids, values, claim: str, **extra) -> dict:
    rankings, unret, R = zip(*(space.describe(int(i)) for i in ids))
    out = {"rankings": tuple(rankings), "unretrieved": tuple(unret), "R": tuple(R),
           "values": tuple(float(v) for v in values), "claim": claim, "max_grade": space.top}
    out.update(extra)
    return out


def _pairwise(space: _Space, left, right, measure, tol, claim, lengths=None):
    """Claim M(left) > M(right) for every pair: (holds, counterexample, n_pairs, n_skipped)."""
    left, right = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
    v = space.score(measure)
    a, b = v[left], v[right]
    valid = ~(np.isnan(a) | np.isnan(b))
    bad = valid & ~_gt(a, b, tol)
    if not bad.any():
        return True, None, int(valid.sum()), int((~valid).sum())
    idx = np.flatnonzero(bad)
    if lengths is None:
        lengths = np.array([max(len(space.keys[a][0]), len(space.keys[b][0]))
                            for a, b in zip(left[idx], right[idx])])
    else:
        lengths = np.asarray(lengths)[idx]
    # shortest, then the worst; a difference within ``tol`` is an equality (0), so that
    # floating-point noise, which differs between numpy versions, never picks among equals
    # (lexsort is stable: equals keep the search order)
    diff = np.where(_gt(b[idx], a[idx], tol), a[idx] - b[idx], 0.0)
    k = idx[np.lexsort((diff, lengths))[0]]
    cx = _record(space, (left[k], right[k]), (a[k], b[k]), claim)
    return False, cx, int(valid.sum()), int((~valid).sum())


def _extras(top: int, max_collection: int):
    """Multisets of 0..max_collection relevant grades (1..top) outside the ranking."""
    out: list = []
    for c in range(max_collection + 1):
        out.extend(itertools.combinations_with_replacement(range(1, top + 1), c))
    return out


def _rankings(top: int, lengths: Iterable[int]):
    for n in lengths:
        yield from itertools.product(range(top + 1), repeat=n)


def _fmt_n(x: int) -> str:
    return f"{x:,}"


def _skipped(k: int) -> str:
    return f"; {k:,} with an undefined value skipped" if k else ""


def _register_all(keys, binary, graded, L, C, N):
    """Add every candidate of the requested properties before anything is scored."""
    if "priority" in keys or "top_weightedness" in keys:
        _add_graded_swaps(graded, L, C)
    if "deepness_threshold" in keys or "shallowness_threshold" in keys:
        _threshold_pairs(binary, N, C)
    if "confidence" in keys:
        _add_confidence(binary, L, C)
    if "recall" in keys:
        _add_recall(binary, L, C)
    if "redundancy" in keys:
        _add_redundancy(binary, L, C)


def _add_graded_swaps(graded: _Space, L: int, C: int) -> None:
    """Priority's and Top-weightedness' rankings: every graded ranking of length 2..L with
    every multiset of unretrieved relevant grades."""
    extras = _extras(graded.top, C)
    for r in _rankings(graded.top, range(2, L + 1)):
        for e in extras:
            graded.add(r, e)


def _add_confidence(binary: _Space, L: int, C: int) -> None:
    """Confidence: each binary ranking and it with one more non-relevant document, judged
    against the same collection."""
    for r in _rankings(1, range(L)):
        for c in range(C + 1):
            coll = Counter(r) + Counter({0: 1, 1: c})
            binary.add_in(r, coll)
            binary.add_in(r + (0,), coll)


def _add_recall(binary: _Space, L: int, C: int) -> None:
    """Recall: each binary ranking holding a relevant document, with 0..C relevant
    documents not retrieved."""
    for r in _rankings(1, range(1, L + 1)):
        if 1 in r:
            for c in range(C + 1):
                binary.add(r, (1,) * c)


def _add_redundancy(binary: _Space, L: int, C: int) -> None:
    """Redundancy: 0^(n-1) followed by 01, 00, 11 and 10, for n = 1..L-1."""
    for n in range(1, L):
        for c in range(C + 1):
            coll = Counter({0: n + 1, 1: 2 + c})
            z = (0,) * (n - 1)
            for tail in ((0, 1), (0, 0), (1, 1), (1, 0)):
                binary.add_in(z + tail, coll)


# --------------------------------------------------------------------------- properties
def _priority(space, measure, L, C, tol):
    left, right = [], []
    extras = _extras(space.top, C)
    n_rank = 0
    for r in _rankings(space.top, range(2, L + 1)):
        n_rank += 1
        for i, j in itertools.combinations(range(len(r)), 2):
            if r[j] > r[i]:
                s = list(r)
                s[i], s[j] = s[j], s[i]
                for e in extras:
                    left.append(space.add(s, e))
                    right.append(space.add(r, e))
    holds, cx, n, skip = _pairwise(space, left, right, measure, tol, "M(swapped) > M(ranking)")
    text = (f"grades 0–{space.top}, rankings of length 2–{L} ({_fmt_n(n_rank)}), "
            f"{len(extras)} sets of 0–{C} relevant documents not retrieved; "
            f"every swap i < j with Rel(d_j) > Rel(d_i): {_fmt_n(n)} pairs{_skipped(skip)}")
    return holds, cx, None, text


def _top_weightedness(space, measure, L, C, tol):
    left, right = [], []
    extras = _extras(space.top, C)
    for r in _rankings(space.top, range(4, L + 1)):
        for i in range(len(r) - 3):
            for j in range(i + 2, len(r) - 1):
                if r[i] == r[j] < r[i + 1] == r[j + 1]:
                    si, sj = list(r), list(r)
                    si[i], si[i + 1] = si[i + 1], si[i]
                    sj[j], sj[j + 1] = sj[j + 1], sj[j]
                    for e in extras:
                        left.append(space.add(si, e))
                        right.append(space.add(sj, e))
    holds, cx, n, skip = _pairwise(space, left, right, measure, tol,
                                   "M(swap at i, i+1) > M(swap at j, j+1), i < j")
    text = (f"grades 0–{space.top}, rankings of length 4–{L}, {len(extras)} sets of 0–{C} "
            f"relevant documents not retrieved; every i < j with Rel(d_i) = Rel(d_j) < "
            f"Rel(d_i+1) = Rel(d_j+1): {_fmt_n(n)} pairs{_skipped(skip)}")
    return holds, cx, None, text


def _threshold_pairs(space, N, C):
    """(n, c, id of "1", id of 0^n 1^n) against the collection n zeros, n + c ones."""
    rows = []
    for n in range(1, N + 1):
        for c in range(C + 1):
            coll = Counter({0: n, 1: n + c})
            rows.append((n, c, space.add_in((1,), coll), space.add_in((0,) * n + (1,) * n, coll)))
    return np.array(rows, dtype=np.int64)


def _deepness(space, measure, N, C, tol):
    rows = _threshold_pairs(space, N, C)
    v = space.score(measure)
    a, b = v[rows[:, 2]], v[rows[:, 3]]
    ok = _gt(a, b, tol)
    per_n = np.array([ok[rows[:, 0] == n].all() for n in range(1, N + 1)])
    false_at = np.flatnonzero(~per_n)
    holds_from = None if not per_n[-1] else (int(false_at[-1]) + 2 if len(false_at) else 1)
    last = np.flatnonzero(rows[:, 0] == N)
    claim = f"M(1) > M(0^n 1^n) at n = {N}"
    undefined = np.isnan(a[last]) | np.isnan(b[last])
    if per_n[-1] and not undefined.all():
        k = last[np.argmin(a[last] - b[last])]
        return True, None, _record(space, rows[k, 2:], (a[k], b[k]), claim, n=N,
                                   holds_from_n=holds_from), None
    k = last[np.argmin(np.where(ok[last], np.inf, rows[last, 1]))]
    cx = _record(space, rows[k, 2:], (a[k], b[k]), claim, n=N, holds_from_n=holds_from)
    return False, cx, None, None


def _shallowness(space, measure, N, C, tol):
    rows = _threshold_pairs(space, N, C)
    v = space.score(measure)
    a, b = v[rows[:, 2]], v[rows[:, 3]]
    ok = _gt(b, a, tol)
    witness_m = []
    for c in range(C + 1):
        sel = np.flatnonzero((rows[:, 1] == c) & ok)
        witness_m.append(int(rows[sel[0], 0]) if len(sel) else None)
    claim = "M(1) < M(0^m 1^m) for some m"
    if all(m is not None for m in witness_m):
        c = int(np.argmax(witness_m))
        k = np.flatnonzero((rows[:, 1] == c) & (rows[:, 0] == witness_m[c]))[0]
        return True, None, _record(space, rows[k, 2:], (a[k], b[k]), claim, m=witness_m[c]), None
    c = witness_m.index(None)
    sel = np.flatnonzero(rows[:, 1] == c)
    diff = np.where(np.isnan(b[sel] - a[sel]), -np.inf, b[sel] - a[sel])
    k = sel[np.argmax(diff)]  # the m that came closest
    cx = _record(space, rows[k, 2:], (a[k], b[k]), claim + f" (none in 1..{N}; closest m shown)",
                 m=int(rows[k, 0]))
    return False, cx, None, None


def _confidence(space, measure, L, C, tol):
    left, right = [], []
    for r in _rankings(1, range(L)):
        for c in range(C + 1):
            coll = Counter(r) + Counter({0: 1, 1: c})
            left.append(space.add_in(r, coll))
            right.append(space.add_in(r + (0,), coll))
    holds, cx, n, skip = _pairwise(space, left, right, measure, tol, "M(d) > M(d + 0)")
    text = (f"binary rankings d of length 0–{L - 1} (d + 0 up to {L}), 0–{C} relevant "
            f"documents not retrieved: {_fmt_n(n)} pairs{_skipped(skip)}")
    return holds, cx, None, text


def _recall(space, measure, L, C, tol):
    left, right = [], []
    for r in _rankings(1, range(1, L + 1)):
        if 1 not in r:
            continue
        for c in range(C):
            left.append(space.add(r, (1,) * c))
            right.append(space.add(r, (1,) * (c + 1)))
    holds, cx, n, skip = _pairwise(space, left, right, measure, tol,
                                   "M_D(d) > M_{D ∪ {d^r}}(d)")
    text = (f"binary rankings of length 1–{L} holding a relevant document, c → c + 1 relevant "
            f"documents not retrieved for c = 0–{C - 1}: {_fmt_n(n)} pairs{_skipped(skip)}")
    return holds, cx, None, text


def _redundancy(space, measure, L, C, tol):
    quads = []
    for n in range(1, L):
        for c in range(C + 1):
            coll = Counter({0: n + 1, 1: 2 + c})
            z = (0,) * (n - 1)
            quads.append([space.add_in(z + (0, 1), coll), space.add_in(z + (0, 0), coll),
                          space.add_in(z + (1, 1), coll), space.add_in(z + (1, 0), coll)])
    quads = np.array(quads, dtype=np.int64)
    v = space.score(measure)
    vals = v[quads]
    first, second = vals[:, 0] - vals[:, 1], vals[:, 2] - vals[:, 3]
    valid = ~np.isnan(vals).any(axis=1)
    scale = np.abs(vals).max(axis=1)
    with np.errstate(invalid="ignore"):
        ok = (first - second) > tol * np.maximum(1.0, scale)
    bad = valid & ~ok
    text = (f"n = 1–{L - 1} (rankings up to length {L}), 0–{C} relevant documents beyond "
            f"the two retrieved: {_fmt_n(int(valid.sum()))} comparisons"
            f"{_skipped(int((~valid).sum()))}")
    if not bad.any():
        return True, None, None, text
    k = np.flatnonzero(bad)[0]  # smallest n, then smallest c
    cx = _record(space, quads[k], vals[k],
                 "M(0^n 1) − M(0^(n+1)) > M(0^(n−1) 1 1) − M(0^(n−1) 1 0)",
                 n=int(k // (C + 1)) + 1, differences=(float(first[k]), float(second[k])))
    return False, cx, None, text
