"""Hostile input, generated: awkward column names, identifiers of every type, null and odd
by= keys, parameters outside their domains, empty inputs, broken files.

Every test asserts, for the entry point it drives, either the correct values (from the naive
references of tests/reference.py, brute-forced over tie orders) or a ValueError/TypeError
whose message names the argument, column, query or document at fault; and that the user's
frames come back unchanged. Memory bounds are in tests/core/test_memory.py.
"""
from __future__ import annotations

import copy
import math
import re
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests import reference as ref
from tests.strategies import random_queries
from trunc_accessor import single
from trunc_accessor.core.frames import to_pandas
from trunc_accessor.metrics.registry import REGISTRY

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LIBRARIES = ("pandas", "polars", "lazy")

# metric string → (reference function, its parameters)
CHECKED = {"ap": (ref.ap, {}), "ndcg@2": (ref.ndcg, {"k": 2}), "rr": (ref.rr, {}),
           "precision@2": (ref.precision, {"k": 2}), "bpref": (ref.bpref, {}),
           "rbp(p=0.5)": (ref.rbp, {"p": 0.5})}

# names the engine used (or uses) for working columns, result columns, and other traps
HOSTILE_NAMES = ["rel", "_seg", "_q", "_sys", "__sys", "qid_right", "rel_right", "docid_right",
                 "score_right", "_right", "value", "depth", "position", "grade", "rp", "crp",
                 "archetype", "recall_base", "ap", "ndcg@2", "__row", "__depth", "___depth",
                 "index", "level_0", "len", "literal", "system", "", " ", "qid ", "Q0",
                 "runid", "tag", "docno", "topic", "rank"]
# columns that carry a meaning in a run (aliases, rank): not junk
MEANINGFUL = {"qid", "docid", "score", "rank", "docno", "doc_id", "query_id", "topic"}


# ----------------------------------------------------------------------------- helpers
def snapshot(frame):
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    return frame.clone() if isinstance(frame, pl.DataFrame) else copy.deepcopy(frame)


def assert_unchanged(frame, snap) -> None:
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, pl.DataFrame):
        assert frame.schema == snap.schema and frame.equals(snap, null_equal=True)
    else:
        pd.testing.assert_frame_equal(frame, snap, check_exact=True)


def as_library(library: str, frame: pd.DataFrame):
    if library == "pandas":
        return frame
    out = pl.from_pandas(frame)
    out.columns = list(frame.columns)  # Arrow renames an empty first name
    return out.lazy() if library == "lazy" else out


def collect(result):
    return result.collect() if isinstance(result, pl.LazyFrame) else result


def outcome(fn):
    """("ok", value) or ("error", exception) for ValueError/TypeError; anything else (an
    AttributeError, a Polars or Arrow exception, an OverflowError…) fails the test."""
    try:
        return "ok", fn()
    except (ValueError, TypeError) as e:
        return "error", e


def is_key(column: pd.Series, key) -> pd.Series:
    """Rows of ``column`` holding system key ``key`` (a missing key matches NaN and None)."""
    key = norm_key(key)
    return column.map(lambda v: norm_key(v) is None if key is None else norm_key(v) == key
                      ).astype(bool)


def flat(result) -> pd.DataFrame:
    """Any frontend's frame as a pandas frame with the keys as columns."""
    if isinstance(result, pl.DataFrame):
        return to_pandas(result)
    return result.reset_index(drop=list(result.index.names) == [None])


def norm_key(v):
    """A system key as compared here: NaN and None are the same missing key."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return v.item() if isinstance(v, np.generic) else v


def rows_of(result, keys: list[str]) -> dict:
    """{(key values…): {column: value}} of a per-query result from any frontend."""
    result = collect(result)
    if isinstance(result, pl.DataFrame):
        result = to_pandas(result).set_index(keys)
    if isinstance(result, pd.Series):
        result = result.to_frame()
    out = {}
    for idx, row in result.iterrows():
        idx = idx if isinstance(idx, tuple) else (idx,)
        out[tuple(norm_key(v) for v in idx)] = {c: float(v) for c, v in row.items()}
    return out


def brute(queries, fn, params, level=1, unjudged=False):
    """{qid: the mean over tie orders of the reference} (every retrieved document unjudged
    with ``unjudged``: what a run whose ids match nothing in the qrels must score)."""
    out = {}
    for qid, grades, scores, extra in queries:
        order = sorted(range(len(grades)), key=lambda i: -scores[i])
        g = [None if unjudged else grades[i] for i in order]
        s = [scores[i] for i in order]
        judged = [x for x in grades if x is not None] + list(extra)
        out[qid] = ref.brute_force_mean(fn, g, s, judged, level, **params)
    return out


def scored_qids(queries) -> set:
    """The qids with a qrels row: the queries scored (no queries= given)."""
    return {q for q, g, _, e in queries if e or any(x is not None for x in g)}


def answers_nothing_scored(queries) -> bool:
    """A run with rows, none for a scored qid (an error: the files do not belong together)."""
    answered = {q for q, g, _, _ in queries if g}
    return bool(answered) and not answered & scored_qids(queries)


def close(got: float, want: float) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


def names_fault(error: Exception, *names: str) -> bool:
    """Does the message name (quoted or plain) one of ``names``?"""
    text = str(error)
    return any(repr(n) in text or (n and re.search(rf"\b{re.escape(n)}\b", text)) for n in names)


def two_systems(queries, scores_b):
    """(run, qrels) pandas frames: system "A" ranks by the queries' scores, "B" by
    ``scores_b``; both retrieve the same documents."""
    rows, qrels = [], []
    for (qid, grades, scores, extra), sb in zip(queries, scores_b):
        for i, g in enumerate(grades):
            rows.append(("A", qid, f"d{i}", scores[i]))
            rows.append(("B", qid, f"d{i}", sb[i]))
            if g is not None:
                qrels.append((qid, f"d{i}", g))
        qrels += [(qid, f"x{j}", g) for j, g in enumerate(extra)]
    run = pd.DataFrame(rows, columns=["sys", "qid", "docid", "score"]).astype({"score": float})
    qrels = pd.DataFrame(qrels, columns=["qid", "docid", "rel"]).astype({"rel": int})
    return run, qrels


@st.composite
def queries_and_b_scores(draw):
    queries = draw(random_queries(max_queries=3, max_len=5))
    scores_b = [[float(x) for x in draw(st.lists(st.integers(0, 2), min_size=len(g),
                                                 max_size=len(g)))]
                for _, g, _, _ in queries]
    assume(any(x is not None for _, g, _, e in queries for x in g + e))  # some qrels row
    return queries, scores_b


SYSTEM_KEYS = st.sampled_from([("A", "B"), ("A", None), (None, "B"), (1, 2), (2.5, float("nan")),
                               (True, False), ("", " "), ("NIL", "rel")])


# ----------------------------------------------------------------------------- 1. names
@SETTINGS
@given(data=queries_and_b_scores(), by_name=st.one_of(st.sampled_from(HOSTILE_NAMES),
                                                      st.text(max_size=5)),
       junk=st.lists(st.sampled_from(HOSTILE_NAMES), max_size=4, unique=True),
       keys=SYSTEM_KEYS, library=st.sampled_from(LIBRARIES))
def test_any_by_name_and_extra_columns_leave_the_values_alone(data, by_name, junk, keys, library):
    """A by= column of any name (and junk columns beside it: a system label called "rel",
    engine-like names) changes no value; keys come back unchanged, nulls as systems of
    their own; a by= name equal to an output column is an error naming it."""
    queries, scores_b = data
    run, qrels = two_systems(queries, scores_b)
    assume(by_name not in ("qid", "docid", "score"))
    key_of = dict(zip("AB", keys))
    run[by_name] = run.pop("sys").map(key_of)
    rng = np.random.default_rng(len(run))
    for j in junk:
        if j != by_name and j not in MEANINGFUL:
            run[j] = rng.integers(0, 3, len(run))
    frame = as_library(library, run)
    before = snapshot(frame)
    kind, res = outcome(lambda: collect(frame.ir.evaluate(qrels, list(CHECKED), by=by_name,
                                                               undefined="nan")))
    assert_unchanged(frame, before)
    if by_name in CHECKED or by_name == "rank":
        # an output label, or a column the run's roles claim (rank orders the run)
        assert kind == "error" and names_fault(res, by_name), res
        return
    if answers_nothing_scored(queries):  # the run and the qrels share no qid: an error
        assert kind == "error" and "qid" in str(res), res
        return
    assert kind == "ok", res
    got = rows_of(res, [by_name, "qid"])
    if run.empty:  # no system in the run: nothing to score
        assert not got
        return
    assert {k[0] for k in got} == {norm_key(key_of["A"]), norm_key(key_of["B"])}
    assert len(got) == 2 * len(scored_qids(queries))
    for system, scores in (("A", None), ("B", scores_b)):
        qs = queries if scores is None else [(q, g, s, e) for (q, g, _, e), s in
                                             zip(queries, scores)]
        qs = [q for q in qs if q[0] in scored_qids(queries)]
        for spec, (fn, params) in CHECKED.items():
            for qid, want in brute(qs, fn, params).items():
                value = got[(norm_key(key_of[system]), qid)][spec]
                assert close(value, want), (system, spec, qid, value, want)


@SETTINGS
@given(data=queries_and_b_scores(), by_name=st.sampled_from(HOSTILE_NAMES + ["s"]),
       keys=SYSTEM_KEYS, library=st.sampled_from(LIBRARIES))
def test_every_entry_point_treats_a_by_key_as_a_system(data, by_name, keys, library):
    """cutoff_curve, optimal_cutoff, crp, crp_archetype, truncate and truncate_at with a
    hostile by= name: each system's answer is the answer for that system alone, or a
    ValueError that names the clashing column."""
    queries, scores_b = data
    run, qrels = two_systems(queries, scores_b)
    assume(by_name not in MEANINGFUL)
    key_of = dict(zip("AB", keys))
    run[by_name] = run.pop("sys").map(key_of)
    frame = as_library(library, run)
    before = snapshot(frame)
    calls = {
        "curve": (lambda f, **kw: f.ir.cutoff_curve(qrels, "rr", ties="first", **kw),
                  ("depth", "value")),
        "optimal": (lambda f, **kw: f.ir.optimal_cutoff(qrels, "rbp_prime", ties="first", **kw),
                    ("depth", "value")),
        "crp": (lambda f, **kw: f.ir.crp(qrels, ties="first", **kw),
                ("position", "grade", "rp", "crp")),
        "archetype": (lambda f, **kw: f.ir.crp_archetype(qrels, ties="first", **kw),
                      ("archetype", "recall_base", "length", "crossing")),
    }
    for name, (call, outputs) in calls.items():
        kind, res = outcome(lambda call=call: collect(call(frame, by=by_name)))
        assert_unchanged(frame, before)
        if by_name in outputs:
            assert kind == "error" and names_fault(res, by_name), (name, res)
            continue
        if answers_nothing_scored(queries):
            assert kind == "error" and "qid" in str(res), (name, res)
            continue
        assert kind == "ok", (name, res)
        res = flat(res)
        if run.empty:  # with by=, no system in the run: nothing to score
            assert res.empty
            continue
        for system in "AB":
            alone = run[is_key(run[by_name], key_of[system])].drop(columns=[by_name])
            want = collect(call(as_library(library, alone)))
            want = flat(want)
            mine = res[is_key(res[by_name], key_of[system])].drop(
                columns=[by_name]).reset_index(drop=True)
            pd.testing.assert_frame_equal(mine, want.reset_index(drop=True), check_dtype=False)
    for depth in (0, 1, 2):
        kept = collect(frame.ir.truncate(depth, by=by_name))
        kept = kept.to_pandas() if isinstance(kept, pl.DataFrame) else kept
        counts = kept.groupby([kept[by_name].map(norm_key).astype(object), "qid"],
                              dropna=False).size()
        assert (counts <= depth).all()
        n_all = run.groupby([run[by_name].map(norm_key).astype(object), "qid"],
                            dropna=False).size()
        assert counts.sum() == np.minimum(n_all, depth).sum()
    assert_unchanged(frame, before)


# ----------------------------------------------------------------------------- 2. ids
# a logical id i written in several ways; two ways match iff their decimal strings agree
ID_FORMS = {
    "int": (lambda i: i, "int"),
    "str": (lambda i: str(i), "str"),
    "zero-padded": (lambda i: f"{i:03d}", "str"),
    "spaced": (lambda i: f" {i}", "str"),
    "categorical": (lambda i: str(i), "str"),
    "uint64-big": (lambda i: np.uint64(2 ** 63 + i), "int"),
    "str-big": (lambda i: str(2 ** 63 + i), "str"),
}


def id_text(form: str, i: int) -> str:
    value = ID_FORMS[form][0](i)
    return str(int(value)) if ID_FORMS[form][1] == "int" else value


def id_column(form: str, ids):
    values = [ID_FORMS[form][0](i) for i in ids]
    if form == "categorical":
        return pd.Categorical(values)
    if form == "uint64-big":
        return np.array(values, dtype=np.uint64)
    if form == "int":
        return np.array(values, dtype=np.int64)
    return pd.array(values, dtype=object)


@SETTINGS
@given(queries=random_queries(max_queries=3, max_len=5),
       forms=st.tuples(*[st.sampled_from(sorted(ID_FORMS))] * 4),
       library=st.sampled_from(("pandas", "polars")))
def test_identifier_types_match_by_their_decimal_text_or_warn(queries, forms, library):
    """qid/docid of any type in run and qrels: compared as integers when both are integers,
    else as strings; values are the reference's for the ids that match, and an
    IdentifierWarning comes when the types differ or a run retrieved nothing judged."""
    run_q, run_d, qrels_q, qrels_d = forms
    rows, judged = [], []
    for q, (_, grades, scores, extra) in enumerate(queries, 1):
        for i, g in enumerate(grades):
            rows.append((q, i, scores[i]))
            if g is not None:
                judged.append((q, i, g))
        judged += [(q, 100 + j, g) for j, g in enumerate(extra)]
    assume(judged)
    run = pd.DataFrame({"qid": id_column(run_q, [r[0] for r in rows]),
                        "docid": id_column(run_d, [r[1] for r in rows]),
                        "score": [r[2] for r in rows]})
    qrels = pd.DataFrame({"qid": id_column(qrels_q, [j[0] for j in judged]),
                          "docid": id_column(qrels_d, [j[1] for j in judged]),
                          "rel": [j[2] for j in judged]})
    run_f, qrels_f = as_library(library, run), as_library(library, qrels)
    before = snapshot(run_f), snapshot(qrels_f)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kind, res = outcome(lambda: run_f.ir.evaluate(qrels_f, list(CHECKED), undefined="nan"))
    assert_unchanged(run_f, before[0])
    assert_unchanged(qrels_f, before[1])
    id_warnings = [w for w in caught if issubclass(w.category, ta.IdentifierWarning)]
    assert all(w.filename == __file__ for w in id_warnings)  # the caller's line

    qids_match = id_text(run_q, 1) == id_text(qrels_q, 1)
    docs_match = id_text(run_d, 0) == id_text(qrels_d, 0)
    types_differ = any((ID_FORMS[a][1] == "str") != (ID_FORMS[b][1] == "str")
                       for a, b in ((run_q, qrels_q), (run_d, qrels_d)))
    if rows and (not qids_match or answers_nothing_scored(queries)):
        assert kind == "error" and "qid" in str(res), res   # no run qid is a judged one
        return
    assert kind == "ok", res
    answered = [(g, e) for _, g, _, e in queries if g]
    retrieved_judged_query = any(any(x is not None for x in g) or e for g, e in answered)
    judged_retrieved = docs_match and any(x is not None for g, _ in answered for x in g)
    nothing_judged = retrieved_judged_query and not judged_retrieved
    if rows:  # (an empty run's columns may carry no type at all)
        assert (len(id_warnings) == 1) == (types_differ or nothing_judged), (forms, id_warnings)
    assert len(id_warnings) <= 1
    got = {(k[0] if isinstance(k[0], str) else str(int(k[0]))): v
           for k, v in rows_of(res, ["qid"]).items()}
    for spec, (fn, params) in CHECKED.items():
        want = brute(queries, fn, params, unjudged=not docs_match)
        for q, (qid, *_rest) in enumerate(queries, 1):
            if qid not in scored_qids(queries):
                continue
            value = got[id_text(qrels_q, q)][spec]   # the result's qids are the qrels'
            assert close(value, want[qid]), (spec, q, forms)


BAD_CELLS = [None, np.nan, 1.5, b"x", ("t",), 7, "7", True, float("inf"), 1 + 2j]


@SETTINGS
@given(queries=random_queries(max_queries=2, max_len=4), cell=st.sampled_from(BAD_CELLS),
       where=st.sampled_from([("run", "qid"), ("run", "docid"), ("run", "score"),
                              ("qrels", "qid"), ("qrels", "docid"), ("qrels", "rel")]),
       library=st.sampled_from(("pandas", "polars")))
def test_a_bad_cell_is_named_or_harmless(queries, cell, where, library):
    """One cell of another type (None, NaN, a float id, bytes, a tuple, an int among
    strings, complex, inf) in an id, score or grade column: the call either gives the
    reference values (the cell is a valid value of that column) or an error naming the
    column."""
    from tests.strategies import frames_of

    run, qrels = frames_of(queries)
    assume(len(run) and len(qrels))
    # frames refused before any cell is changed (e.g. no qid of the run in the qrels) say
    # nothing about the cell
    assume(outcome(lambda: run.ir.evaluate(qrels, list(CHECKED), undefined="nan"))[0] == "ok")
    frame_name, column = where
    target = run if frame_name == "run" else qrels
    target = target.astype({column: object})
    target.iloc[0, target.columns.get_loc(column)] = cell
    if frame_name == "run":
        run = target
    else:
        qrels = target
    if library == "polars":
        kind, converted = outcome(lambda: (pl.from_pandas(run), pl.from_pandas(qrels)))
        assume(kind == "ok")          # pandas→Polars cannot hold the cell: nothing to test
        run_f, qrels_f = converted
    else:
        run_f, qrels_f = run, qrels
    before = snapshot(run_f), snapshot(qrels_f)
    kind, res = outcome(lambda: run_f.ir.evaluate(qrels_f, list(CHECKED), undefined="nan"))
    assert_unchanged(run_f, before[0])
    assert_unchanged(qrels_f, before[1])
    if kind == "error":
        named = {"rel": ("rel", "grade"), "score": ("score",)}.get(column, (column,))
        assert names_fault(res, *named), (where, cell, res)
        return
    # accepted: only a valid member of the column (a string id among string ids, a real
    # number as a score or grade)
    if column in ("qid", "docid"):  # a string id, or the column's only value
        assert isinstance(cell, str) or len(target) == 1 and real(cell), (where, cell)
    else:  # grades may be booleans (binary qrels): True is 1
        assert (real(cell) or column == "rel" and isinstance(cell, bool)) \
            and not math.isnan(cell), (where, cell)


# ----------------------------------------------------------------------------- 3. by=
@SETTINGS
@given(by=st.sampled_from([["s", "s"], [["s"]], 5, {"s"}, ("s",), "missing", ["s", None],
                           b"s", ["s", "t"], [], None, "lst", "obj"]),
       library=st.sampled_from(LIBRARIES))
def test_by_argument_forms(by, library):
    """by= is a column name or a list/tuple of distinct names of scalar columns; anything
    else is an error naming by= or the column."""
    run, qrels = ta.load_example()
    run = run.head(30).assign(s="x", t=1)
    run["lst"] = [[1]] * len(run)
    frame = as_library(library, run.drop(columns=["lst"]) if library != "pandas" and by != "lst"
                       else run)
    kind, res = outcome(lambda: collect(frame.ir.ap(qrels, by=by)))
    if by in (("s",), ["s", "t"], [], None):
        assert kind == "ok", res
        want = collect(as_library(library, run[["qid", "docid", "score"]]).ir.ap(qrels))
        got = rows_of(res, [*(by or []), "qid"])
        base = rows_of(want, ["qid"])
        assert {k[-1]: v for k, v in got.items()} == {k[0]: v for k, v in base.items()}
    else:
        assert kind == "error", (by, res)
        assert "by=" in str(res) or names_fault(res, "missing", "lst", "obj"), res


# ----------------------------------------------------------------------------- 4. parameters
def whole(x, low):
    return (isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
            or isinstance(x, (float, np.floating)) and math.isfinite(x) and x == int(x)) \
        and x >= low


def real(x):
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(
        x, (bool, np.bool_))


# each parameter's domain, written from the docs (not from the library's checks)
DOMAINS = {
    "k": lambda x: x is None or (whole(x, 1) and x <= 2 ** 53),
    "depth": lambda x: x is None or (whole(x, 1) and x <= 2 ** 53),
    "p": lambda x: real(x) and 2.2250738585072014e-308 <= x < 1,
    "e": lambda x: real(x) and math.isfinite(x) and x >= 0,
    # the top of the grade scale: at least the largest grade of the data (1 here)
    "max_grade": lambda x: x is None or (real(x) and math.isfinite(x) and x >= 1),
    "graded": lambda x: isinstance(x, (bool, np.bool_)),
    "gains": lambda x: x is None or x in ("exponential", "linear") if not isinstance(x, dict)
    else all(real(a) and real(b) and math.isfinite(a) and math.isfinite(b)
             for a, b in x.items()),
    "collection_size": lambda x: whole(x, 1),
    "beta": lambda x: real(x) and math.isfinite(x) and x > 0,
    "alpha": lambda x: real(x) and math.isfinite(x) and 0 <= x <= 1,  # diversity's α
    "log_base": lambda x: real(x) and math.isfinite(x) and x > 1,
    "normalize": lambda x: isinstance(x, (bool, np.bool_)),
    "recall": lambda x: real(x) and math.isfinite(x) and 0 <= x <= 1,
    "mult": lambda x: real(x) and math.isfinite(x) and x > 0,
    "min_grade": lambda x: x is None or (real(x) and math.isfinite(x) and x > 0),
    "recalls": lambda x: isinstance(x, (list, tuple)) and len(x) > 0
    and all(real(v) and math.isfinite(v) and 0 <= v <= 1 for v in x),
    **dict.fromkeys("abcd", lambda x: real(x) and math.isfinite(x)),  # utility's weights
    # expected exposure: its user model, GERR's utility, expeval's -C and -B
    "model": lambda x: isinstance(x, str) and x in ("gerr", "rbp"),
    "u": lambda x: real(x) and math.isfinite(x) and 0 <= x <= 1,
    "complete": lambda x: isinstance(x, (bool, np.bool_)),
    "binarize": lambda x: isinstance(x, (bool, np.bool_)),
}
# a parameter whose domain depends on its metric: (metric, parameter) → domain
METRIC_DOMAINS = {("utility", "collection_size"): lambda x: whole(x, 0),
                  # sample_eval.pl's 11 recall levels: 0, 0.1, …, 1
                  ("inf_iprec_at_recall", "recall"): lambda x: real(x) and math.isfinite(x)
                  and 0 <= x <= 1 and abs(x * 10 - round(x * 10)) < 1e-9,
                  # NRBP's patience β is a probability
                  **dict.fromkeys([("nrbp", "beta"), ("nnrbp", "beta")],
                                  lambda x: real(x) and math.isfinite(x) and 0 <= x <= 1)}
# the C/W/L measures: T > 0 (INST: ≥ 1/4), min_grade any finite grade (ir_measures' min_rel)
DOMAINS["T"] = lambda x: real(x) and math.isfinite(x) and x > 0
METRIC_DOMAINS[("inst", "T")] = lambda x: real(x) and math.isfinite(x) and x >= 0.25
for _cwl in ("insq", "inst", "bpm", "sdcg", "nerr8", "nerr9", "nerr10", "nerr11"):
    METRIC_DOMAINS[(_cwl, "min_grade")] = lambda x: real(x) and math.isfinite(x)
ODD_VALUES = [None, 0, -1, 1, 3, 0.5, 2.5, 2.0, float("inf"), -float("inf"), float("nan"), 1e300,
              2 ** 60, True, False, "x", "exponential", 1 + 1j, [1], {1: 2.0}, {1: float("nan")},
              {"a": 1}, np.float64(0.25), np.int64(4), np.nan, 10 ** 30, 10 ** 9]
PARAMS = [(m.name, p.name) for m in REGISTRY.values() for p in m.params]


@pytest.fixture(scope="module")
def small():
    run, qrels = ta.load_example()
    return run.groupby("qid").head(40), qrels


@pytest.mark.parametrize("metric,param", PARAMS)
def test_every_parameter_rejects_values_outside_its_domain(small, metric, param):
    """Through the method, the (name, params) pair, the string form and the single-ranking
    function: a value inside the documented domain is accepted, any other is a
    ValueError/TypeError naming the parameter (never an OverflowError or AttributeError)."""
    run, qrels = small
    grades: list = [1, 0, 1, None]
    extra: dict = {"R": 4}
    if REGISTRY[metric].subtopics:  # a diversity measure: subtopic qrels, subtopic sets
        qrels = qrels.assign(subtopic=1)
        grades, extra = [{1}, set(), {1}, None], {"judged": [{1}]}
    for value in ODD_VALUES:
        accepted = METRIC_DOMAINS.get((metric, param), DOMAINS[param])(value)
        if metric == "oie" and param == "collection_size" and accepted and value < 1000:
            accepted = False  # too small for these rankings: an error naming the query
        kw = {param: value}
        if metric == "oie" and param != "collection_size":
            kw["collection_size"] = 10 ** 6
        channels = {
            "method": lambda kw=kw: getattr(run.ir, metric)(qrels, ties="first", **kw),
            "pair": lambda kw=kw: run.ir.evaluate(qrels, [(metric, kw)], ties="first"),
            "single": lambda kw=kw: getattr(single, metric)(grades, **extra, **kw),
        }
        if isinstance(value, (int, float, str, type(None), np.integer, np.floating)) \
                and not isinstance(value, bool):
            text = ",".join(f"{k}={(v.item() if isinstance(v, np.generic) else v)!r}"
                            for k, v in kw.items())
            channels["string"] = lambda text=text: run.ir.evaluate(
                qrels, [f"{metric}({text})"], ties="first")
        for channel, call in channels.items():
            if channel == "single" and metric == "oie" and param == "collection_size":
                continue
            kind, res = outcome(call)
            if channel == "string" and isinstance(value, float) and not math.isfinite(value):
                # inf/nan have no literal: the string form cannot say them
                assert kind == "error"
                continue
            assert (kind == "ok") == accepted, (channel, metric, param, value, res)
            if kind == "error":
                assert names_fault(res, param), (channel, value, res)
            elif channel != "single":
                values = np.asarray(res, dtype=np.float64).ravel()
                assert not np.isposinf(values).any() or metric in ("dcg",), (channel, values)


@given(level=st.sampled_from([0, -1, 0.5, 1, 2, float("inf"), float("nan"), "1", None, True,
                              1 + 0j, np.float64(1.5), 10 ** 400 if False else 1e308]),
       library=st.sampled_from(LIBRARIES))
@SETTINGS
def test_relevance_level_is_a_finite_positive_number(small, level, library):
    """relevance_level > 0 and finite: grades at or above it are relevant; unjudged
    documents count as grade 0, so 0 or below would call them relevant and is refused."""
    run, qrels = small
    frame = as_library(library, run)
    accepted = real(level) and math.isfinite(level) and level > 0
    for call in (lambda: collect(frame.ir.ap(qrels, relevance_level=level)),
                 lambda: single.ap([1, 0, 2], R=2, relevance_level=level),
                 lambda: collect(frame.ir.cutoff_curve(qrels, "rr", relevance_level=level,
                                                       max_depth=3))):
        kind, res = outcome(call)
        assert (kind == "ok") == accepted, (level, res)
        if kind == "error":
            assert "relevance_level" in str(res)


@given(spec=st.one_of(
    st.builds(lambda n, a, b: f"{n}({a}=0.5,{b}=0.7)", st.sampled_from(["rbp", "rbu", "rbpu"]),
              st.sampled_from(["p", "e"]), st.sampled_from(["p", "e"])),
    st.builds(lambda n, k, j: f"{n}@{k}(k={j})", st.sampled_from(["precision", "ndcg", "ap"]),
              st.integers(1, 20), st.integers(1, 20)),
    st.text(max_size=12)))
@SETTINGS
def test_metric_strings_name_what_is_wrong(small, spec):
    """A metric string either parses (and evaluates) or is a ValueError quoting it; a
    parameter given twice (also as @k and k=) is named."""
    run, qrels = small
    kind, res = outcome(lambda: ta.parse(spec))
    if kind == "ok":
        assert isinstance(run.ir.evaluate(qrels, [spec], ties="first"), pd.DataFrame)
        return
    twice = re.match(r"^\w+(?:@\d+)?\((\w)=[^,]*,(\w)=", spec)
    if twice and twice.group(1) == twice.group(2) or re.match(r"^\w+@\d+\(k=", spec):
        assert "twice" in str(res), (spec, res)
    assert isinstance(res, ValueError)


@given(value=st.sampled_from([[1, 2], {"a": 1}, (1, 2), "qid", 5, None, pd.Series([1]),
                              np.arange(3)]),
       arg=st.sampled_from(["qrels", "metrics", "queries", "ties"]))
@SETTINGS
def test_arguments_of_the_wrong_type(small, value, arg):
    """qrels given as a Series/dict/list, metrics or queries of odd types, unknown ties:
    a ValueError/TypeError naming the argument, never an AttributeError."""
    run, qrels = small
    kw = {"qrels": qrels, "metrics": ["ap"]}
    kw[arg] = value
    before = snapshot(run)
    kind, res = outcome(lambda: run.ir.evaluate(**kw))
    assert_unchanged(run, before)
    if kind == "error":
        assert names_fault(res, arg, arg + "=") or "metric" in str(res), (arg, res)
    else:  # e.g. queries=[1, 2]: extra qids to score; ties=None: the default (or like='s)
        assert arg in ("queries", "metrics") or (arg == "ties" and value is None)


# ----------------------------------------------------------------------------- 6. empty
@SETTINGS
@given(library=st.sampled_from(LIBRARIES), by=st.sampled_from([None, "system"]),
       call=st.sampled_from(["evaluate", "metric", "curve", "optimal", "crp", "archetype"]))
def test_empty_qrels_give_an_empty_result_and_one_warning_here(library, by, call):
    """Empty qrels (no queries= either): an empty result of the documented columns and
    dtypes, and exactly one EmptyResultWarning located at this file's calling line."""
    run, qrels = ta.load_example()
    frame = as_library(library, run.head(20))
    empty_qrels = qrels.head(0)
    calls = {
        "evaluate": (lambda: frame.ir.evaluate(empty_qrels, ["ap", "ndcg@10"], by=by),
                     ["ap", "ndcg@10"]),
        "metric": (lambda: frame.ir.rbp_prime(empty_qrels, by=by), ["rbp_prime"]),
        "curve": (lambda: frame.ir.cutoff_curve(empty_qrels, "ap", by=by), ["depth", "value"]),
        "optimal": (lambda: frame.ir.optimal_cutoff(empty_qrels, "ap", by=by),
                    ["depth", "value"]),
        "crp": (lambda: frame.ir.crp(empty_qrels, by=by), ["position", "grade", "rp", "crp"]),
        "archetype": (lambda: frame.ir.crp_archetype(empty_qrels, by=by),
                      ["archetype", "recall_base", "length", "crossing"]),
    }
    fn, columns = calls[call]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = collect(fn())
    ours = [w for w in caught if issubclass(w.category, ta.TruncAccessorWarning)]
    assert len(ours) == 1 and issubclass(ours[0].category, ta.EmptyResultWarning)
    assert ours[0].filename == __file__
    keys = [*([by] if by else []), "qid"]
    if isinstance(res, pl.DataFrame):
        assert res.height == 0 and res.columns == keys + columns
        assert res.schema["qid"] == pl.String
    else:
        assert len(res) == 0
        names = list(res.index.names) + (list(res.columns) if isinstance(res, pd.DataFrame)
                                         else [res.name])
        assert [n for n in names if n is not None] == keys + columns or \
            list(res.columns) == keys + columns


def test_every_library_warning_points_at_the_caller():
    run, qrels = ta.load_example()
    extra = pd.concat([run, run.head(3).assign(qid="999")])
    with pytest.warns(ta.DroppedQueriesWarning) as rec:
        extra.ir.ap(qrels)
    assert rec[0].filename == __file__
    with pytest.warns(ta.IdentifierWarning) as rec:
        pl.from_pandas(run.assign(docid="x" + run.docid)).lazy().ir.ap(qrels).collect()
    assert rec[0].filename == __file__
    assert issubclass(ta.IdentifierWarning, ta.TruncAccessorWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.TruncAccessorWarning)
        with pytest.raises(ta.DroppedQueriesWarning):
            extra.ir.ap(qrels)


# ----------------------------------------------------------------------------- truncation
@SETTINGS
@given(k=st.sampled_from(ODD_VALUES), marker=st.sampled_from(["NIL", 5, None, b"NIL", 2.5, True]),
       library=st.sampled_from(LIBRARIES))
def test_truncation_arguments(k, marker, library):
    """truncate's k is a whole number ≥ 0 (or per-query depths); truncate_at's marker has
    the docid column's type; max_depth is a whole number ≥ 1 or None."""
    run, qrels = ta.load_example()
    run = run.groupby("qid").head(8)
    frame = as_library(library, run)
    before = snapshot(frame)
    kind, res = outcome(lambda: collect(frame.ir.truncate(k)))
    assert (kind == "ok") == (whole(k, 0) and k < 2 ** 63), (k, res)
    if kind == "ok":
        assert len(res) == sum(min(len(g), int(k)) for _, g in run.groupby("qid"))
    else:
        assert "k" in str(res)
    kind, res = outcome(lambda: collect(frame.ir.truncate_at(marker)))
    assert (kind == "ok") == isinstance(marker, str), (marker, res)
    if kind == "error":
        assert "marker" in str(res)
    kind, res = outcome(lambda: collect(frame.ir.optimal_cutoff(qrels, "rr", max_depth=k)))
    assert (kind == "ok") == DOMAINS["depth"](k), (k, res)
    if kind == "error":
        assert "max_depth" in str(res)
    assert_unchanged(frame, before)


# ----------------------------------------------------------------------------- single
@SETTINGS
@given(grades=st.one_of(st.lists(st.sampled_from([0, 1, 2, None, np.nan, "1", 1 + 1j, True,
                                                  float("inf"), [1]]), max_size=5),
                        st.sampled_from(["101", 5, None, {1: 2}])),
       R=st.sampled_from([None, 0, 2, 2.0, 2.5, -1, 10 ** 12, "3", float("nan")]))
def test_single_ranking_arguments(grades, R):
    """single.<metric>(grades, R=…): grades are numbers or None (unjudged), R a whole number
    (at least the relevant documents ranked, at most 10^7 more): else an error naming
    grades or R."""
    kind, res = outcome(lambda: single.ap(grades, R=R, undefined="nan"))
    ok_grades = isinstance(grades, list) and all(
        g is None or (real(g) and not (isinstance(g, float) and math.isinf(g))) for g in grades)
    if not ok_grades:
        assert kind == "error" and "grades" in str(res), (grades, res)
        return
    relevant = sum(1 for g in grades if g is not None and not math.isnan(g) and g >= 1)
    ok_r = R is None or (whole(R, relevant) and R - relevant <= 10 ** 7)
    assert (kind == "ok") == ok_r, (grades, R, res)
    if kind == "error":
        assert "R" in str(res)
    else:
        clean = [None if g is None or math.isnan(g) else g for g in grades]
        judged = [g for g in clean if g is not None]
        if R is not None:
            judged += [1] * (int(R) - relevant)
        assert close(res, ref.ap(clean, judged, 1))


# ----------------------------------------------------------------------------- aggregate
@given(values=st.sampled_from(["series", "frame", "polars", "list", "dict", "none"]),
       by=st.sampled_from([None, "system", "nope", ["system", "system"], 3]),
       undefined=st.sampled_from(["skip", "zero", "drop", None]))
@SETTINGS
def test_aggregate_arguments(values, by, undefined):
    run, qrels = ta.load_example()
    both = pd.concat([run.assign(system="a"), run.assign(system=None)])
    per_query = both.ir.evaluate(qrels, ["ap"], by="system")
    given_values = {"series": per_query["ap"], "frame": per_query,
                    "polars": pl.from_pandas(per_query.reset_index()), "list": [1, 2],
                    "dict": {"ap": [1]}, "none": None}[values]
    kind, res = outcome(lambda: ta.aggregate(given_values, by=by, undefined=undefined))
    ok = (values in ("series", "frame", "polars") and by in (None, "system")
          and undefined in ("skip", "zero"))
    assert (kind == "ok") == ok, (values, by, undefined, res)
    if kind == "ok" and by == "system":
        means = res.to_pandas().set_index("system")["ap"] if isinstance(res, pl.DataFrame) \
            else (res["ap"] if isinstance(res, pd.DataFrame) else res)
        assert len(means) == 2  # the null system is a system of its own
        assert np.allclose(sorted(means.to_numpy()), [per_query["ap"].mean()] * 2)


# ----------------------------------------------------------------------------- readers
LINE_PARTS = st.sampled_from(["301", "Q0", "d1", "d2", "1", "2", "0.5", "-3", "nan", "inf", "x",
                              "#", "", "\t", "1e5", "tag"])


@SETTINGS
@given(lines=st.lists(st.lists(LINE_PARTS, max_size=7).map(" ".join), max_size=8),
       junk=st.sampled_from([b"", b"\xff\xfe", "ü".encode(), b"\x00"]))
def test_readers_read_or_name_the_line(tmp_path_factory, lines, junk):
    """read_run/read_qrels on generated files: the frame holds every data line, or the error
    names the line at fault."""
    path = tmp_path_factory.mktemp("files") / "f.txt"
    path.write_bytes(b"\n".join([ln.encode() for ln in lines] + [junk]))
    bad_bytes = junk == b"\xff\xfe"
    if not bad_bytes:
        lines = [*lines, junk.decode()]
    data = [ln.split() for ln in lines if ln.split() and not ln.split()[0].startswith("#")]
    # qrels: the first data line's fields decide the layout, and every line has exactly
    # those (as trec_eval reads qrels): 3 `qid docid rel`, 5 `qid iter docid stratum rel`,
    # else 4 `qid iter docid rel` (a first line of 6 or more is an error at that line)
    first = len(data[0]) if data else 0
    qrels_rule = (3, (2,), 3) if first == 3 else (5, (4,), 5) if first == 5 else (4, (3,), 4)
    for reader, n_min, numeric, n_max in ((ta.read_run, 5, (3, 4), None),
                                          (ta.read_qrels, *qrels_rule)):
        kind, res = outcome(lambda reader=reader: reader(path))
        bad_line = next((i for i, ln in enumerate(lines, 1) if ln.split()
                         and not ln.split()[0].startswith("#")
                         and (len(ln.split()) < n_min
                              or (n_max is not None and len(ln.split()) > n_max) or any(
                             not _finite(ln.split()[j]) for j in numeric))), None)
        if bad_line is not None or bad_bytes:
            assert kind == "error" and re.search(r"line \d+", str(res)), (lines, res)
            if bad_line is not None and not bad_bytes:
                assert f"line {bad_line}" in str(res)
        else:
            assert kind == "ok", res
            assert len(res) == len(data)


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
