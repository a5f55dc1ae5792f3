"""Write tests/data/fusion/ranx_probfuse_cranfield.json.gz: ranx 0.3.21's ProbFuse on the
shipped Cranfield runs, the oracle of tests/fusion/test_fusion_ranx.py's ProbFuse tests.

ORIGIN: ranx 0.3.21 (``ranx.fusion.probfuse_train`` and ``ranx.fuse(method="probfuse")``)
run by this script on ``ta.load_example("cranfield")``'s bm25_stem, tfidf and ql_dirichlet
runs, trained on the qrels of every other query (sorted as numbers: the 1st, 3rd, …; 113
queries) and applied to the other 112, with ``n_segments=10``, at full depth (22 to 1,000
documents per ranking) and at depth 100. The runs' tied scores are first replaced by
distinct ones in trec_eval's order (score descending, then docid descending), so that
ranx's unstable sort cannot choose an order of its own. Stored: the learnt probabilities
and ranx's fused scores of the first 20 test queries, per depth. Re-run (about 2 minutes,
ranx compiles its Numba kernels):

    python tests/make_fusion_cranfield_fixture.py
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent / "data" / "fusion" / "ranx_probfuse_cranfield.json.gz"
SYSTEMS = ["bm25_stem", "tfidf", "ql_dirichlet"]
N_SEGMENTS = 10
DEPTHS = [None, 100]
STORED_QUERIES = 20


def cranfield():
    """The three runs with distinct scores (trec_eval's order kept), the train and test
    qrels, and the test qids."""
    import trunc_accessor as ta

    runs, qrels = ta.load_example("cranfield")
    runs = runs[runs["system"].isin(SYSTEMS)]
    runs = runs.sort_values(["system", "qid", "score", "docid"],
                            ascending=[True, True, False, False], kind="stable")
    runs = runs.assign(score=-runs.groupby(["system", "qid"]).cumcount().astype(float))
    qids = sorted(qrels["qid"].unique(), key=int)
    train_q = qids[::2]
    test_q = [q for q in qids if q not in set(train_q)]
    return (runs.reset_index(drop=True), qrels[qrels["qid"].isin(train_q)],
            qrels[qrels["qid"].isin(test_q)], train_q, test_q)


def at_depth(runs: pd.DataFrame, depth):
    return runs if depth is None else runs[runs.groupby(["system", "qid"]).cumcount() < depth]


def main() -> None:
    from ranx import Qrels, Run, fuse
    from ranx.fusion import probfuse_train

    runs, train_qrels, _, train_q, test_q = cranfield()

    def ranx_run(df):
        return Run.from_df(df.astype({"qid": object, "docid": object}), q_id_col="qid",
                           doc_id_col="docid", score_col="score")

    qrels = Qrels.from_df(train_qrels.astype({"qid": object, "docid": object}),
                          q_id_col="qid", doc_id_col="docid", score_col="rel")
    out = {"systems": SYSTEMS, "n_segments": N_SEGMENTS, "train_qids": train_q,
           "test_qids": test_q, "depths": {}}
    for depth in DEPTHS:
        cut = at_depth(runs, depth)
        train = cut[cut["qid"].isin(train_q)]
        test = cut[cut["qid"].isin(test_q[:STORED_QUERIES])]
        probs = probfuse_train(qrels, [ranx_run(train[train["system"] == s]) for s in SYSTEMS],
                               N_SEGMENTS)
        fused = fuse([ranx_run(test[test["system"] == s]) for s in SYSTEMS],
                     method="probfuse", norm=None, params={"probs": list(probs)})
        out["depths"][str(depth)] = {
            "probs": [list(map(float, p)) for p in probs],
            "fused": {q: {d: float(s) for d, s in docs.items()} for q, docs in fused.run.items()},
        }
    OUT.write_bytes(gzip.compress(json.dumps(out).encode(), mtime=0))


if __name__ == "__main__":
    main()
