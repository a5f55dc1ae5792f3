"""``run.ir.bounds``: each measure with the unjudged retrieved documents judged 0 and judged
at the top grade, checked against brute force (every labelling of the holes of small
rankings, evaluated through the ordinary path on completed qrels) and against trec_eval's
rbp and rbp_resid."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, need, read_trec_eval_output
from trunc_accessor.engine.bounds import NOT_MONOTONE
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.registry import REGISTRY

GRADES = (0, 1, 2)
HOLES = 3


def _spellings() -> list[tuple[str, str]]:
    """(metric name, spelling) of every ad hoc metric of the registry: its defaults, a
    cut-off where it takes one, and a recall level for the interpolated precision."""
    out = []
    for name, metric in sorted(REGISTRY.items()):
        if metric.subtopics or metric.user:
            continue
        out.append((name, name))
        if any(p.name == "k" for p in metric.params):
            out.append((name, f"{name}@3"))
    out.append(("iprec_at_recall", "iprec_at_recall(recall=0.5)"))
    return out


def _cases(n_cases: int, seed: int):
    """Small queries: 3–7 retrieved documents (distinct scores), three of them unjudged,
    and one or two judged documents the ranking misses; grades 0–2. Returns the run and
    qrels of every labelling of the holes (qid "c<i>l<j>") and of each case as judged
    (qid "c<i>")."""
    rng = np.random.default_rng(seed)
    runs, qrels = [], []
    labellings = list(itertools.product(GRADES, repeat=HOLES))
    for c in range(n_cases):
        n_ret = int(rng.integers(HOLES, 8))
        holes = set(rng.choice(n_ret, HOLES, replace=False).tolist())
        docs = [f"d{j}" for j in range(n_ret)]
        judged = {d: int(rng.integers(0, 3)) for j, d in enumerate(docs) if j not in holes}
        judged.update({f"u{e}": int(rng.integers(0, 3)) for e in range(rng.integers(1, 3))})
        ranking = pd.DataFrame({"docid": docs, "score": rng.permutation(n_ret) + 1.0})
        hole_docs = [docs[j] for j in sorted(holes)]
        for qid, grades in [(f"c{c}", judged), *(
                (f"c{c}l{i}", {**judged, **dict(zip(hole_docs, lab))})
                for i, lab in enumerate(labellings))]:
            runs.append(ranking.assign(qid=qid))
            qrels.append(pd.DataFrame({"qid": qid, "docid": list(grades),
                                       "rel": list(grades.values())}))
    # one frame each: the largest grade (2) is the same for every query
    return pd.concat(runs, ignore_index=True), pd.concat(qrels, ignore_index=True), len(
        labellings)


@pytest.fixture(scope="module")
def brute():
    """{(name, spelling): [(min, lo, max, hi) per case]} over 60 small cases."""
    run, qrels, n_lab = _cases(60, seed=0)
    spellings = _spellings()
    columns = [s for _, s in spellings]
    every = run.ir.evaluate(qrels, columns)
    bounds = run.ir.bounds(qrels, columns)
    out = {}
    for key in spellings:
        s = key[1]
        rows = []
        for c in range(60):
            values = every.loc[[f"c{c}l{i}" for i in range(n_lab)], s]
            b = bounds.loc[f"c{c}"]
            rows.append((values.min(), b[f"{s}_lo"], values.max(), b[f"{s}_hi"]))
        out[key] = rows
    return out


def _outside(rows) -> bool:
    return any(not (np.isclose(mn, lo, atol=1e-12) and np.isclose(mx, hi, atol=1e-12))
               for mn, lo, mx, hi in rows)


def test_bounds_are_the_range_over_every_labelling_of_the_holes_for_monotone_measures(brute):
    wrong = sorted(s for (name, s), rows in brute.items()
                   if name not in NOT_MONOTONE and _outside(rows))
    assert wrong == []


def test_every_measure_said_not_monotone_has_a_labelling_outside_its_bounds(brute):
    claimed = {name for name, _ in brute} & NOT_MONOTONE
    found = {name for (name, _), rows in brute.items() if _outside(rows)}
    assert NOT_MONOTONE <= set(REGISTRY)
    assert claimed == NOT_MONOTONE
    assert found == NOT_MONOTONE


def test_bounds_of_every_measure_hold_the_two_extreme_completions(brute):
    """Whatever the measure, lo ≤ hi, and both are values some labelling reaches."""
    for rows in brute.values():
        for mn, lo, mx, hi in rows:
            assert lo <= hi + 1e-12
            assert mn - 1e-12 <= lo and hi <= mx + 1e-12


def test_upper_bound_of_rbp_is_trec_eval_rbp_plus_rbp_resid():
    """trec_eval's rbp_resid (p = 0.9) is the weight of the unjudged documents plus p^n; the
    rankings hold 500 documents, so p^n (1e-23) is below the printed precision."""
    run = ta.read_run(need(DATA / "trec_eval" / "results.test"))
    qrels = ta.read_qrels(need(DATA / "trec_eval" / "qrels.test"))
    printed = read_trec_eval_output(DATA / "trec_eval" / "out.test.aq")
    b = run.ir.bounds(qrels, ["rbp(p=0.9)", "trec_rbp"], ties="trec_eval")
    qids = sorted({q for m, q in printed if m == "rbp"})
    assert len(qids) == 3 and (run.groupby("qid").size() == 500).all()
    for qid in qids:
        expected = printed[("rbp", qid)] + printed[("rbp_resid", qid)]
        assert abs(b.loc[qid, "rbp(p=0.9)_hi"] - expected) <= 1e-4, qid
        assert abs(b.loc[qid, "trec_rbp_hi"] - expected) <= 1e-4, qid
        assert abs(b.loc[qid, "rbp(p=0.9)_lo"] - printed[("rbp", qid)]) <= 5e-5, qid


def test_bounds_fill_each_ranking_with_its_own_holes_only():
    """Two systems on one query: the document only system A retrieved is not filled into
    B's judgments (B's recall keeps its denominator)."""
    run = pd.DataFrame({"system": ["A", "A", "B", "B"], "qid": "q", "docid": ["x", "h", "x", "y"],
                        "score": [2.0, 1.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": "q", "docid": ["x", "y"], "rel": [1, 0]})
    b = run.ir.bounds(qrels, ["recall", "P@2"], by="system")
    assert b.loc[("A", "q"), ["recall_lo", "recall_hi", "P@2_lo", "P@2_hi"]].tolist() == [
        1.0, 1.0, 0.5, 1.0]
    assert b.loc[("B", "q"), ["recall_lo", "recall_hi", "P@2_lo", "P@2_hi"]].tolist() == [
        1.0, 1.0, 0.5, 0.5]


def test_bounds_are_values_on_completed_judgments():
    """A filled document is judged: Judged@k is 1 on both sides, bpref counts a hole filled
    at 0 as judged non-relevant."""
    run = pd.DataFrame({"qid": "q", "docid": ["h", "r", "n"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": "q", "docid": ["r", "n"], "rel": [1, 0]})
    b = run.ir.bounds(qrels, ["judged@3", "bpref"]).loc["q"]
    assert b["judged@3"] == pytest.approx(2 / 3)
    assert (b["judged@3_lo"], b["judged@3_hi"]) == (1.0, 1.0)
    completed_0 = pd.concat([qrels, pd.DataFrame({"qid": ["q"], "docid": ["h"], "rel": [0]})])
    completed_1 = completed_0.assign(rel=[1, 0, 1])
    assert b["bpref"] == 1.0  # as judged, the unjudged h is ignored
    assert b["bpref_lo"] == run.ir.bpref(completed_0)["q"] == 0.0
    assert b["bpref_hi"] == run.ir.bpref(completed_1)["q"] == 1.0


def test_bounds_take_a_fill_grade():
    run = pd.DataFrame({"qid": "q", "docid": ["h", "r"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"qid": "q", "docid": ["r", "z"], "rel": [1, 3]})
    b = run.ir.bounds(qrels, ["dcg"], grade=1).loc["q"]
    completed = pd.concat([qrels, pd.DataFrame({"qid": ["q"], "docid": ["h"], "rel": [1]})])
    assert b["dcg_hi"] == pytest.approx(run.ir.dcg(completed)["q"])
    top = run.ir.bounds(qrels, ["dcg"]).loc["q"]
    assert top["dcg_hi"] == pytest.approx(run.ir.dcg(completed.assign(rel=[1, 3, 3]))["q"])


def test_both_completions_share_the_fill_grade_scale():
    """ERR reads the top of the grade scale: with grade=4 above the qrels' largest (2), the
    0-completion is scored on the scale 0–4 too."""
    run = pd.DataFrame({"qid": "q", "docid": ["r", "h", "n"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"qid": "q", "docid": ["r", "n"], "rel": [2, 0]})
    b = run.ir.bounds(qrels, ["err"], grade=4).loc["q"]
    zero = pd.concat([qrels, pd.DataFrame({"qid": ["q"], "docid": ["h"], "rel": [0]})])
    assert b["err_lo"] == pytest.approx(run.ir.err(zero, max_grade=4)["q"])
    assert b["err_hi"] == pytest.approx(run.ir.err(zero.assign(rel=[2, 0, 4]))["q"])
    assert b["err_lo"] < run.ir.err(zero)["q"]  # the scale 0–2 would give more


def test_bounds_agree_on_every_frontend():
    import dask.dataframe as dd

    run, qrels = ta.load_example()
    expected = run.ir.bounds(qrels, ["ndcg@10", "rbp"])
    polars = pl.from_pandas(run).ir.bounds(pl.from_pandas(qrels), ["ndcg@10", "rbp"])
    lazy = pl.from_pandas(run).lazy().ir.bounds(pl.from_pandas(qrels), ["ndcg@10", "rbp"])
    dask = dd.from_pandas(run, npartitions=2).ir.bounds(qrels, ["ndcg@10", "rbp"]).compute()
    for other in (polars.to_pandas().set_index("qid"),
                  lazy.collect().to_pandas().set_index("qid"), dask.sort_index()):
        pd.testing.assert_frame_equal(other, expected, check_dtype=False, check_names=False,
                                      check_index_type=False)


@pytest.mark.parametrize("grade", [0, -1, float("nan"), "2", True])
def test_bounds_refuse_a_fill_grade_that_is_not_a_positive_number(grade):
    run, qrels = ta.load_example()
    with pytest.raises(ParameterError, match="grade"):
        run.ir.bounds(qrels, "P@5", grade=grade)


def test_bounds_refuse_diversity_measures():
    run, qrels = ta.load_example()
    with pytest.raises(ParameterError, match="alpha_ndcg@10.*subtopics"):
        run.ir.bounds(qrels, "alpha_ndcg@10")


SAMPLED = ["xinfap", "infndcg", "ip@5", "inum_rel_ret", "inum_rel"]
STAT = ["stat_ap", "stat_p@5", "stat_rprec", "stat_num_rel"]


@pytest.mark.parametrize(("column", "metrics"), [("stratum", SAMPLED), ("inclusion", STAT)])
def test_bounds_of_sampled_pool_estimators_keep_the_sampling_design(column, metrics):
    """The completions keep the qrels' strata / inclusion probabilities (they were dropped,
    so statAP's bounds were AP's and left out its own value); the holes are judged for
    certain: a stratum of their own, wholly judged, or inclusion probability 1. Each side
    equals evaluate on qrels completed by hand that way."""
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(12)]
    qrels = pd.DataFrame({"qid": "1", "docid": docs[:9], "rel": [1, 0, -1, 2, 0, -1, 1, 0, 1],
                          "stratum": ["a", "a", "a", "b", "b", "b", "c", "c", "c"],
                          "inclusion": [1.0, 0.5, 0.5, 0.25, 0.25, 0.5, 0.2, 1.0, 0.4]})
    qrels = qrels.drop(columns="inclusion" if column == "stratum" else "stratum")
    if column == "inclusion":
        qrels = qrels[qrels.rel >= 0]  # statAP: every qrels line is a sampled judgment
    run = pd.DataFrame({"qid": "1", "docid": rng.permutation(docs),
                        "score": np.arange(12, 0, -1, dtype=float)})
    got = run.ir.bounds(qrels, metrics)
    holes = sorted(set(docs) - set(qrels.docid))
    ends = []
    for grade in (0, 2):
        filled = pd.DataFrame({"qid": "1", "docid": holes, "rel": grade,
                               column: "zz" if column == "stratum" else 1.0})
        ends.append(run.ir.evaluate(pd.concat([qrels, filled]), metrics))
    alone = run.ir.evaluate(qrels, metrics)
    for m in metrics:
        lo, hi = sorted(float(e[m].iloc[0]) for e in ends)
        assert got[f"{m}_lo"].iloc[0] == pytest.approx(lo, abs=1e-12), m
        assert got[f"{m}_hi"].iloc[0] == pytest.approx(hi, abs=1e-12), m
        assert got[m].iloc[0] == pytest.approx(float(alone[m].iloc[0]), abs=1e-12), m
    no_holes = run[~run.docid.isin(holes)]
    tight = no_holes.ir.bounds(qrels, metrics)
    for m in metrics:  # nothing to complete: both sides are the value
        assert tight[f"{m}_lo"].iloc[0] == pytest.approx(tight[m].iloc[0], abs=1e-12), m
        assert tight[f"{m}_hi"].iloc[0] == pytest.approx(tight[m].iloc[0], abs=1e-12), m
