"""Formal-property checker: the seven properties of Amigó, Mizzaro & Spina (SIGIR 2022, §2).

``check(metric)`` searches *exhaustively* a finite space of rankings (truncated rankings of
every length up to ``max_length``, the empty one included) and collections, and reports for
each property whether a counterexample exists there. **"holds" means "no counterexample in
the space searched", not a proof**; the ``space`` column says what was searched. Every
candidate of a space is one query (qid) of one run frame, scored in a single call of the
evaluation engine (``trunc_accessor.engine.evaluation.compute``, ``ties="first"``); the pairs
a property compares are then compared with NumPy.

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

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.params import is_real
from trunc_accessor.metrics.parse import parse
from trunc_accessor.metrics.registry import Measure, get_metric
from trunc_accessor.properties.search import (
    _confidence,
    _deepness,
    _priority,
    _recall,
    _redundancy,
    _register_all,
    _shallowness,
    _Space,
    _top_weightedness,
)

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
