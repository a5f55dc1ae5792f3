"""statAP, statP@k, statR-prec and R̂ (Aslam, Pavlu & Yilmaz, SIGIR 2006) against their
definitions: hand-worked cases, complete judgments (π = 1: AP, P@k, R-prec as pytrec_eval
computes them), and the mean over every sample of a small pool under the sampling design
(each document included independently with its probability): unbiased where the paper
says so, only approximately for the ratio statAP."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import trunc_accessor  # noqa: F401  (the accessor)
from trunc_accessor.errors import InputError, ParameterError

POOL = {"a": (1, 0.9), "b": (0, 0.5), "c": (1, 0.3), "d": (1, 0.6), "e": (0, 0.8),
        "f": (1, 0.25), "g": (0, 0.4)}  # document: (relevant, inclusion probability)
RUN = ["c", "x", "a", "b", "d", "y", "e", "g"]  # f is relevant and not retrieved; x, y unpooled


def _true_values(k: int):
    rel = [POOL.get(d, (0, 1))[0] for d in RUN]
    R = sum(r for r, _ in POOL.values())
    ap_sum = sum(sum(rel[:i + 1]) / (i + 1) for i, r in enumerate(rel) if r)
    return R, ap_sum / R, sum(rel[:k]) / k


def _all_samples() -> tuple[pd.DataFrame, np.ndarray]:
    """Every sample of the pool as one query each (unsampled documents: grade -1), and its
    probability."""
    docs = sorted(POOL)
    frames, probs = [], []
    for i, kept in enumerate(itertools.product([0, 1], repeat=len(docs))):
        p = 1.0
        for d, k in zip(docs, kept):
            p *= POOL[d][1] if k else 1 - POOL[d][1]
        probs.append(p)
        frames.append(pd.DataFrame({"qid": i, "docid": docs,
                                    "rel": [POOL[d][0] if k else -1 for d, k in zip(docs, kept)],
                                    "inclusion": [POOL[d][1] for d in docs]}))
    return pd.concat(frames, ignore_index=True), np.array(probs)


def test_statap_means_over_every_sample_are_unbiased_where_the_paper_says():
    qrels, prob = _all_samples()
    n = len(prob)
    run = pd.DataFrame({"qid": np.repeat(np.arange(n), len(RUN)), "docid": RUN * n,
                        "score": np.tile(np.arange(len(RUN), 0, -1), n).astype(float)})
    res = run.ir.evaluate(qrels, ["stat_num_rel", "stat_p@3", "stat_p@5", "stat_ap",
                                  "stat_rprec"], undefined="zero").sort_index()
    assert prob.sum() == pytest.approx(1.0)
    R, ap, p3 = _true_values(3)
    p5 = _true_values(5)[2]
    mean = {c: float(np.dot(prob, res[c].to_numpy())) for c in res.columns}
    assert mean["stat_num_rel"] == pytest.approx(R, rel=1e-12)
    assert mean["stat_p@3"] == pytest.approx(p3, rel=1e-12)
    assert mean["stat_p@5"] == pytest.approx(p5, rel=1e-12)
    numerator = float(np.dot(prob, (res["stat_ap"] * res["stat_num_rel"]).to_numpy()))
    assert numerator == pytest.approx(ap * R, rel=1e-12)  # the numerator: unbiased
    # the ratio and the estimated cut-off: close, not equal
    assert mean["stat_ap"] != pytest.approx(ap, rel=1e-6)
    assert mean["stat_ap"] == pytest.approx(ap, abs=0.15)
    assert mean["stat_rprec"] != pytest.approx(_true_values(R)[2], rel=1e-6)


def test_statap_hand_worked():
    qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c", "d"], "rel": [1, 0, 2, 1],
                          "inclusion": [1.0, 0.5, 0.25, 0.5]})
    run = pd.DataFrame({"qid": 1, "docid": ["b", "a", "e", "c"], "score": [4, 3, 2, 1]})
    res = run.ir.evaluate(qrels, ["stat_num_rel", "stat_ap", "stat_p@2", "stat_p@4",
                                  "stat_rprec"]).iloc[0]
    R = 1 / 1.0 + 1 / 0.25 + 1 / 0.5  # a, c, d relevant: 7
    assert res["stat_num_rel"] == pytest.approx(R)
    # a at rank 2: (1/1)/2 · (1 + 0); c at rank 4: (1/0.25)/4 · (1 + 1/1)
    assert res["stat_ap"] == pytest.approx((1 / 2 + 4 / 4 * 2) / R)
    assert res["stat_p@2"] == pytest.approx(1 / 2)
    assert res["stat_p@4"] == pytest.approx((1 + 4) / 4)
    assert res["stat_rprec"] == pytest.approx((1 + 4) / 7)  # k = R̂ = 7, ranking of 4


def test_statap_with_complete_judgments_is_ap_p_and_rprec_as_pytrec_eval_computes():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(34)
    qrels = {str(q): {f"d{i}": int(rng.integers(0, 3)) for i in range(30)} for q in range(5)}
    run = {str(q): {f"d{i}": float(rng.normal()) for i in range(0, 40, 2)} for q in range(5)}
    peer = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5", "Rprec"}).evaluate(run)
    q = pd.DataFrame([(k, d, g, 1.0) for k, v in qrels.items() for d, g in v.items()],
                     columns=["qid", "docid", "rel", "inclusion"])
    r = pd.DataFrame([(k, d, s) for k, v in run.items() for d, s in v.items()],
                     columns=["qid", "docid", "score"])
    res = r.ir.evaluate(q, ["stat_ap", "stat_p@5", "stat_rprec"], ties="trec_eval")
    for qid, row in res.iterrows():
        assert row["stat_ap"] == pytest.approx(peer[qid]["map"], abs=1e-12)
        assert row["stat_p@5"] == pytest.approx(peer[qid]["P_5"], abs=1e-12)
        assert row["stat_rprec"] == pytest.approx(peer[qid]["Rprec"], abs=1e-12)


def test_stat_p_under_average_ties_is_the_mean_over_the_tie_orders():
    qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 1, 0],
                          "inclusion": [0.5, 0.2, 1.0]})
    docs, scores = ["z", "a", "b", "c"], [3, 2, 2, 2]
    tied = pd.DataFrame({"qid": 1, "docid": docs, "score": scores})
    value = tied.ir.stat_p(qrels, k=2).iloc[0]
    orders = list(itertools.permutations(docs[1:]))
    means = [pd.DataFrame({"qid": 1, "docid": ["z", *o], "score": [4, 3, 2, 1]})
             .ir.stat_p(qrels, k=2).iloc[0] for o in orders]
    assert value == pytest.approx(np.mean(means))


def test_statap_refuses_what_it_cannot_estimate_and_reads_no_column_as_complete():
    run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [1.0, 1.0]})
    # without an inclusion column every judged document was judged for certain: AP
    plain = pd.DataFrame({"qid": 1, "docid": ["a", "c"], "rel": [1, 1]})
    assert run.ir.stat_ap(plain, ties="first").iloc[0] == pytest.approx(
        run.ir.ap(plain, ties="first").iloc[0])
    with pytest.raises(InputError, match="inclusion probability must be in"):
        run.ir.stat_ap(pd.DataFrame({"qid": 1, "docid": ["a"], "rel": [1], "inclusion": [0]}))
    qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "rel": [1, 0], "inclusion": 0.5})
    with pytest.raises(ParameterError, match="stat_ap with ties='average'"):
        run.ir.stat_ap(qrels)
    assert run.ir.stat_ap(qrels, ties="first").iloc[0] == pytest.approx(1.0)
