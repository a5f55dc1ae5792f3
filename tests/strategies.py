"""Shared test scaffolding: random multi-query runs with heavy ties (hypothesis), their
frames, and the brute-force expected value of a naive reference per query."""
from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

from tests import reference as ref

GRADES = st.sampled_from([None, None, -1, 0, 1, 1, 2, 3])


@st.composite
def random_queries(draw, grades=GRADES, max_queries=3, max_len=6, max_score=3, max_extra=3,
                   max_extra_grade=3, sort_scores=False):
    """[(qid, grades, scores, extra judged grades not retrieved)]; scores drawn from a few
    values so that ties are frequent (sorted descending with ``sort_scores``)."""
    queries = []
    for q in range(draw(st.integers(1, max_queries))):
        n = draw(st.integers(0, max_len))
        g = draw(st.lists(grades, min_size=n, max_size=n))
        s = [float(x) for x in draw(st.lists(st.integers(0, max_score), min_size=n, max_size=n))]
        if sort_scores:
            s.sort(reverse=True)
        extra = draw(st.lists(st.integers(0, max_extra_grade), max_size=max_extra))
        queries.append((f"q{q}", g, s, extra))
    return queries


def frames_of(queries, rng=None):
    """(run, qrels) pandas frames of ``random_queries``; ``rng`` shuffles the run's rows
    (input order must not matter for ties="average")."""
    run_rows, qrels_rows = [], []
    for qid, grades, scores, extra in queries:
        for i, (g, s) in enumerate(zip(grades, scores)):
            run_rows.append((qid, f"d{i}", s))
            if g is not None:
                qrels_rows.append((qid, f"d{i}", g))
        qrels_rows += [(qid, f"x{j}", g) for j, g in enumerate(extra)]
    if rng is not None:
        rng.shuffle(run_rows)
    run = pd.DataFrame(run_rows, columns=["qid", "docid", "score"]).astype(
        {"qid": str, "docid": str, "score": float})
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docid", "rel"]).astype(
        {"qid": str, "docid": str, "rel": int})
    return run, qrels


def expected_values(queries, run, fn, level, params, mode):
    """{qid: value} of the naive reference ``fn``: the mean over every tie order
    (mode "average") or the value of the order as given (score descending, stable)."""
    out = {}
    for qid, grades, scores, extra in queries:
        by_doc = {f"d{i}": (g, s) for i, (g, s) in enumerate(zip(grades, scores))}
        order = list(run.loc[run.qid == qid, "docid"])      # input order
        order.sort(key=lambda d: -by_doc[d][1])              # stable, score descending
        g_sorted = [by_doc[d][0] for d in order]
        s_sorted = [by_doc[d][1] for d in order]
        judged = [g for g in grades if g is not None] + list(extra)
        if mode == "average":
            out[qid] = ref.brute_force_mean(fn, g_sorted, s_sorted, judged, level, **params)
        else:
            out[qid] = fn(g_sorted, judged, level, **params)
    return out


def assert_matches_brute_force(run, qrels, queries, cases, level, modes=("average", "first")):
    """Evaluate every (metric spec, reference, params) case through the pandas accessor and
    compare each query with :func:`expected_values` (NaN where the reference is undefined)."""
    import math
    import warnings

    import pytest

    import trunc_accessor as ta

    qids = [q[0] for q in queries]
    for mode in modes:
        with warnings.catch_warnings():  # random runs may retrieve no judged document
            warnings.simplefilter("ignore", ta.IdentifierWarning)
            res = run.ir.evaluate(qrels, [c[0] for c in cases], ties=mode, queries=qids,
                                  relevance_level=level, names="canonical",
                                  undefined="nan")
        for spec, fn, params in cases:
            label = ta.parse(spec).label
            for qid, want in expected_values(queries, run, fn, level, params, mode).items():
                got = res.loc[qid, label]
                if math.isnan(want):
                    assert math.isnan(got), (mode, label, qid, got)
                else:
                    assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (mode, label, qid)


def in_library(library: str, run, qrels):
    """pandas (run, qrels) as the frames of ``library``: "pandas", "polars" or a lazy
    Polars run ("lazy"/"polars-lazy"; the qrels stay eager)."""
    import polars as pl

    if library == "pandas":
        return run, qrels
    run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
    return (run.lazy(), qrels) if "lazy" in library else (run, qrels)
