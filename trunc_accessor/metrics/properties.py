"""Formal-property checker: the seven properties of Amigó, Mizzaro & Spina (SIGIR 2022, §2).

``check(metric)`` searches *exhaustively* a finite space of rankings (truncated rankings of
every length up to ``max_length``, the empty one included) and collections, and reports for
each property whether a counterexample exists there. **"holds" means "no counterexample in
the space searched", not a proof**; the ``space`` column says what was searched. Every
candidate of a space is one query (qid) of one run frame, scored in a single
``frame.ir.evaluate(qrels, [measure], ties="first", queries=...)`` call; the pairs a property
compares are then compared with NumPy.

The properties, as read here (``M`` the metric, 1 a relevant and 0 a non-relevant document,
``0^n`` n non-relevant documents; both sides of a comparison are always scored against the
*same* collection, i.e. the same multiset of judged grades):

1. **Priority**: for every ranking and every ``i < j`` with ``Rel(d_j) > Rel(d_i)``,
   ``M(d_{i↔j}) > M(d)``. Graded: grades ``0..top_grade``.
2. **Top-weightedness**: ``Rel(d_i) = Rel(d_j) < Rel(d_{i+1}) = Rel(d_{j+1})``, ``i < j``
   ⇒ ``M(d_{i↔i+1}) > M(d_{j↔j+1})`` (the printed formula repeats ``i`` on both sides; the
   right-hand swap is at ``j``). Graded: grades ``0..top_grade``.
3. **Deepness threshold**: ``M(1) > M(0^n 1^n)``. Read literally ("∃ n") it is met at
   ``n = 1`` by almost every metric, so it is read as "for every large enough n" and decided
   at the largest n searched, ``n = threshold_n``; the witness/counterexample also gives
   ``holds_from_n``, the smallest n0 with the inequality true for every n in n0..threshold_n.
4. **Shallowness threshold**: ``∃ m ∈ 1..threshold_n: M(1) < M(0^m 1^m)``, for every number of
   extra relevant documents (the witness is the pair at the smallest such m).
5. **Confidence**: ``M(d) > M(d + 0)`` for every binary ranking d of length
   ``0..max_length−1`` (the empty ranking included), exactly as printed (also when d holds
   no relevant document).
6. **Recall**: for every binary ranking holding a relevant document,
   ``M_D(d) > M_{D ∪ {d^r}}(d)``: one more relevant document, not retrieved, in the
   collection. The metric's own parameters stay fixed (OIE's ``collection_size``: the new
   relevant document takes the place of an unjudged one).
7. **Redundancy**: ``M(0^n 1) − M(0^{n+1}) > M(0^{n−1} 1 1) − M(0^{n−1} 1 0)`` for every
   ``n = 1..max_length−1``.

Collections: the judged documents are the retrieved ones (each judged with its grade, 0
included) plus ``c = 0..max_collection`` relevant documents that are not retrieved (graded
spaces: every multiset of c grades in ``1..top_grade``; Properties 3, 4 and 7 also judge as
non-relevant the 0-documents that one side retrieves and the other does not). Properties
3–7 are binary (the paper states them with d^r and d^¬r): grade scale 0..1; Properties 1–2
use the scale 0..top_grade (so an ERR-type stopping probability is (2^g − 1)/2^top_grade,
the library's convention of one scale per evaluation). Rankings are strings of grades,
best first ("0110"; "" is the empty ranking).

Strict inequalities are tested with a tolerance: ``a > b`` needs
``a − b > tol · max(1, |a|, |b|)`` (``tol = 1e-12``), so floating-point noise in an equality
is not taken as a strict improvement. Comparisons in which a value is undefined (NaN: AP
or nDCG with R = 0, …) are skipped and counted in ``space``.

>>> from trunc_accessor import properties
>>> res = properties.check("rbpu(graded=True)", max_length=4, threshold_n=20)
>>> res.set_index("property")["holds"].to_dict()  # doctest: +NORMALIZE_WHITESPACE
{'Priority': True, 'Top-weightedness': True, 'Deepness threshold': True,
 'Shallowness threshold': True, 'Confidence': True, 'Recall': False, 'Redundancy': False}
>>> cx = res.set_index("property").loc["Recall", "counterexample"]
>>> cx["rankings"], cx["unretrieved"], cx["R"], [round(v, 6) for v in cx["values"]]
(('1', '1'), ('', '1'), (1, 2), [0.19, 0.19])

With the default binary gain, RBPU cannot tell grade 2 from grade 1, and the graded search
of Priority says so (check it with ``top_grade=1`` for the binary reading):

>>> cx = properties.check("rbpu", max_length=3, properties=["priority"]).counterexample[0]
>>> cx["rankings"], [round(v, 6) for v in cx["values"]]
(('21', '12'), [0.342, 0.342])
>>> t = properties.table(["rr", "rbp"], max_length=6, threshold_n=20, top_grade=1)
>>> print(t.astype(int).T.to_string())  # doctest: +NORMALIZE_WHITESPACE
metric                 rr  rbp
Priority                0    1
Top-weightedness        0    1
Deepness threshold      1    1
Shallowness threshold   0    1
Confidence              0    0
Recall                  0    0
Redundancy              1    0

A verdict is only as good as the space: RR has no Top-weightedness counterexample among
rankings of length ≤ 4; the smallest is 10101 swapped at 1–2 and at 3–4: 11001 vs 10110,
both RR = 1.
"""
from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.params import is_real
from trunc_accessor.metrics.parse import parse
from trunc_accessor.metrics.registry import Measure, get_metric

__all__ = ["PROPERTIES", "check", "table"]

#: property key → the paper's name (Table 1 column)
PROPERTIES: dict[str, str] = {
    "priority": "Priority",
    "top_weightedness": "Top-weightedness",
    "deepness_threshold": "Deepness threshold",
    "shallowness_threshold": "Shallowness threshold",
    "confidence": "Confidence",
    "recall": "Recall",
    "redundancy": "Redundancy",
}
_GRADED = ("priority", "top_weightedness")


# --------------------------------------------------------------------------- candidates
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
        """Every candidate scored in one ``evaluate`` call (ties="first")."""
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
            res = run.ir.evaluate(  # type: ignore[attr-defined]  # the .ir namespace
                qrels, [measure], ties="first", undefined="nan",
                                  queries=list(range(len(self.keys))))
        col = next(c for c in res.columns if c != "qid")
        values = np.full(len(self.keys), np.nan)
        values[res["qid"].to_numpy()] = res[col].cast(pl.Float64).fill_null(np.nan).to_numpy()
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


# --------------------------------------------------------------------------- API
def _measure(metric, params) -> Measure:
    m = parse(metric)
    if m.metric.subtopics:
        raise ParameterError(
            f"{m.metric.name} is a diversity measure: it reads which subtopics each document "
            "is relevant to, and the seven properties are stated for graded rankings of one "
            "topic, so they are not checked for it")
    if params:
        level = m.level
        m = get_metric(m.metric.name).measure(**{**m.kwargs, **params}).with_level(level)
    return m


def _whole(name: str, value, minimum: int, why: str = "") -> int:
    """A whole number ≥ ``minimum`` (not a bool), else a ParameterError naming ``name``."""
    if not is_real(value) or not math.isfinite(value) or value != int(value) \
            or value < minimum:
        raise ParameterError(f"properties.check: {name} must be a whole number ≥ {minimum}"
                             f"{why}, not {value!r}")
    return int(value)


def _keys(properties) -> list[str]:
    if properties is None:
        return list(PROPERTIES)
    if isinstance(properties, str):
        properties = [properties]
    if not isinstance(properties, (Sequence, set, frozenset)):
        raise ParameterError(f"properties.check: properties must be a property's name or a "
                             f"list of them (known: {list(PROPERTIES)}), not {properties!r}")
    by_title = {v.lower(): k for k, v in PROPERTIES.items()}
    out: list = []
    for p in properties:
        key = p if isinstance(p, str) and p in PROPERTIES else by_title.get(str(p).lower())
        if key is None:
            raise ParameterError(f"unknown property {p!r}; known: {list(PROPERTIES)}")
        out.append(key)
    return out


def check(metric: Any, max_length: int = 6, max_collection: int = 2, *, top_grade: int = 2,
          threshold_n: int = 200, tol: float = 1e-12, properties: Sequence[str] | None = None,
          **params: Any) -> pd.DataFrame:
    """Check the seven properties of Amigó, Mizzaro & Spina (SIGIR 2022) for one metric.

    Parameters
    ----------
    metric : str, (name, params) pair or Measure
        Anything ``trunc_accessor.metrics.parse.parse`` accepts (``"rbp(p=0.9)"``,
        ``"precision@3"``, a user-registered metric's name).
    max_length : int, default 6
        Longest ranking searched (Properties 1, 2, 5, 6, 7).
    max_collection : int, default 2
        Most relevant judged documents outside the ranking (0..max_collection are searched;
        graded spaces: every multiset of that many grades 1..top_grade).
    top_grade : int, default 2
        Grades 0..top_grade for Priority and Top-weightedness (``top_grade=1``: binary, the
        setting of the paper's binary-relevance metrics P@N, AP, RR, F). The other
        properties are binary by definition.
    threshold_n : int, default 200
        Properties 3 and 4 compare ``1`` with ``0^n 1^n``: Deepness is decided at
        ``n = threshold_n`` ("for every large enough n"); Shallowness searches
        ``m = 1..threshold_n`` for a witness. 200 reaches the thresholds of RBP/RBPU with the
        paper's p = 0.98.
    tol : float, default 1e-12
        Relative tolerance of the strict inequalities.
    properties : iterable of str, optional
        A subset (keys of ``PROPERTIES`` or the paper's names); default all seven.
    **params
        The metric's parameters (``p=0.9``, ``beta=1.2``), overriding those in ``metric``.

    Returns
    -------
    pandas.DataFrame
        One row per property: ``property`` (the paper's name), ``holds`` (bool: no
        counterexample in the space searched — not a proof), ``counterexample`` (None, or a
        dict: ``rankings`` as grade strings best first, ``unretrieved`` the grades of the
        judged documents not retrieved, ``R``, ``values`` of the metric on each ranking in
        order, ``claim`` the inequality that failed, ``max_grade`` the grade scale's top;
        Redundancy adds ``n`` and ``differences``), ``witness`` (Properties 3 and 4 when
        they hold: the pair that decided, in the same form), ``space`` (what was searched).
    """
    max_length = _whole("max_length", max_length, 2)
    max_collection = _whole("max_collection", max_collection, 1,
                            " (Recall adds a relevant document)")
    top_grade = _whole("top_grade", top_grade, 1)
    threshold_n = _whole("threshold_n", threshold_n, 1)
    if not is_real(tol) or not math.isfinite(tol) or tol < 0:
        raise ParameterError(f"properties.check: tol must be a finite number ≥ 0, not {tol!r}")
    measure = _measure(metric, params)
    keys = _keys(properties)
    size = _estimated_rows(keys, int(top_grade), int(max_length), int(max_collection),
                           int(threshold_n))
    if size > MAX_ROWS:
        raise ParameterError(
            f"properties.check: the space asked for holds about {size:.3g} ranked documents "
            f"(about {size * BYTES_PER_ROW / 2 ** 30:.3g} GiB to score), more than "
            f"{MAX_ROWS:.0e}; lower max_length (rankings of every length up to it: "
            f"(top_grade + 1)^length each), threshold_n (its square counts) or "
            f"max_collection")
    binary = _Space(1)
    graded = _Space(top_grade) if top_grade > 1 else binary
    L, C, N = int(max_length), int(max_collection), int(threshold_n)
    # register every candidate first, so that each space is scored in one call
    jobs = {
        "priority": lambda: _priority(graded, measure, L, C, tol),
        "top_weightedness": lambda: _top_weightedness(graded, measure, L, C, tol),
        "deepness_threshold": lambda: _deepness(binary, measure, N, C, tol),
        "shallowness_threshold": lambda: _shallowness(binary, measure, N, C, tol),
        "confidence": lambda: _confidence(binary, measure, L, C, tol),
        "recall": lambda: _recall(binary, measure, L, C, tol),
        "redundancy": lambda: _redundancy(binary, measure, L, C, tol),
    }
    _register_all(keys, binary, graded, L, C, N)
    rows = []
    for key in keys:
        holds, cx, witness, text = jobs[key]()
        if key == "deepness_threshold":
            text = (f"1 vs 0^n 1^n, collection n non-relevant + n + c relevant, c = 0–{C}; "
                    f"decided at n = {N} (n = 1–{N} searched for holds_from_n)")
        elif key == "shallowness_threshold":
            text = (f"1 vs 0^m 1^m, collection m non-relevant + m + c relevant, c = 0–{C}; "
                    f"a witness m in 1–{N} needed for each c")
        rows.append({"property": PROPERTIES[key], "holds": bool(holds), "counterexample": cx,
                     "witness": witness, "space": text})
    return pd.DataFrame(rows, columns=["property", "holds", "counterexample", "witness",
                                       "space"])


MAX_ROWS = 5e7
"""The largest search space check() scores: ranked documents over every candidate."""
BYTES_PER_ROW = 200  # the candidates' Python tuples, the run frame and the preparation


def _estimated_rows(keys, top: int, L: int, C: int, N: int) -> float:
    """About how many ranked documents the requested properties score (before any is
    built): rankings of each length times their candidates, as _register_all adds them."""
    rows = 0.0
    if "priority" in keys or "top_weightedness" in keys:
        extras = sum(math.comb(top + c - 1, c) for c in range(C + 1))
        rows += sum((top + 1.0) ** n * extras * n * (1 + n * (n - 1) / 2)
                    for n in range(2, L + 1))
    if "deepness_threshold" in keys or "shallowness_threshold" in keys:
        rows += (C + 1.0) * (N * N + 2.0 * N)
    for key in ("confidence", "recall", "redundancy"):
        if key in keys:
            rows += sum(2.0 ** n * (C + 1) * (2 * n + 2) for n in range(L + 1))
    return rows


def _register_all(keys, binary, graded, L, C, N):
    """Add every candidate of the requested properties before anything is scored."""
    if "priority" in keys or "top_weightedness" in keys:
        extras = _extras(graded.top, C)
        for r in _rankings(graded.top, range(2, L + 1)):
            for e in extras:
                graded.add(r, e)
    if "deepness_threshold" in keys or "shallowness_threshold" in keys:
        _threshold_pairs(binary, N, C)
    if "confidence" in keys:
        for r in _rankings(1, range(L)):
            for c in range(C + 1):
                coll = Counter(r) + Counter({0: 1, 1: c})
                binary.add_in(r, coll)
                binary.add_in(r + (0,), coll)
    if "recall" in keys:
        for r in _rankings(1, range(1, L + 1)):
            if 1 in r:
                for c in range(C + 1):
                    binary.add(r, (1,) * c)
    if "redundancy" in keys:
        for n in range(1, L):
            for c in range(C + 1):
                coll = Counter({0: n + 1, 1: 2 + c})
                z = (0,) * (n - 1)
                for tail in ((0, 1), (0, 0), (1, 1), (1, 0)):
                    binary.add_in(z + tail, coll)


def table(metrics: Sequence[Any], **kw: Any) -> pd.DataFrame:
    """Metrics × properties frame of ``holds`` (like the paper's Table 1): one
    ``check`` per metric with the same keyword arguments; rows are named by the
    metric's canonical label (``"rbp(p=0.9)"``)."""
    if isinstance(metrics, (str, Measure)) or (isinstance(metrics, tuple) and len(metrics) == 2
                                                and isinstance(metrics[1], Mapping)):
        metrics = [metrics]
    if not isinstance(metrics, (Sequence, set, frozenset)) or isinstance(metrics, bytes):
        raise ParameterError(f"properties.table: metrics must be a list of metrics (names "
                             f"like 'ap' or 'rbp(p=0.9)'), not {metrics!r}")
    out = {}
    for m in metrics:
        res = check(m, **kw)
        out[parse(m).label] = res.set_index("property")["holds"]
    frame = pd.DataFrame(out).T
    frame.index.name = "metric"
    frame.columns.name = None
    return frame.astype(bool)
