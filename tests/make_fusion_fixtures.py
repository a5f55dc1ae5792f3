"""Write tests/data/fusion/ranx_fusion.json.gz: ranx 0.3.21's fused runs, trained parameters
and optimisation choices for fixed random runs, the oracle of tests/fusion/test_fusion_ranx.py.

ranx compiles its Numba kernels on first use (minutes on a cold cache; 7-10 s to load them
even when cached), so the suite reads ranx's answers from this file instead of running ranx;
tests/fusion/test_fusion_ranx.py also runs ranx live on other runs when TRUNC_ACCESSOR_LIVE_RANX=1.
Re-run after changing the inputs (about 12 minutes cold, 1 minute warm):

    python tests/make_fusion_fixtures.py        # needs ranx==0.3.21 (pip install ranx)

Inputs (written to the file as well, so the tests need nothing else):

* "partial": 3 runs × 4 queries, each run retrieving a random subset of a query's pool,
  distinct random scores (no ties), some negative; graded qrels.
* "full": 3 runs × 4 queries in which every run ranks every document of the query (so the
  ``borda`` normalisation adds nothing) and the runs' pairwise majority is a strict total
  order (ranx's Condorcet sort is then deterministic).

Skipped, with the reason stored: on "partial", Condorcet (random partial runs make cyclic
or drawn majorities, where ranx's order depends on Python's hash seed); on both, the
position-based methods after ``borda`` normalisation: ranx's borda_norm rebuilds each
ranking in the iteration order of a Python set of strings, which depends on the hash seed
(PYTHONHASHSEED=1 and 2 give different RRF scores), and its position-based methods read
that order.

"optimize" (on "full"): ranx's optimize_fusion (norm min-max, metric ndcg@10) with its
optimisation report, for the methods with a grid.
"""
from __future__ import annotations

import gzip
import itertools
import json
import re
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "data" / "fusion" / "ranx_fusion.json.gz"
NORMS = [None, "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda"]
WEIGHTS = [0.45, 0.35, 0.2]  # no two subsets sum alike: weighted votes never draw
METHODS = {  # ranx name → parameters (learnt ones are trained below)
    "sum": {}, "mnz": {}, "anz": {}, "gmnz": {"gamma": 0.5}, "max": {}, "min": {}, "med": {},
    "wsum": {"weights": WEIGHTS}, "wmnz": {"weights": WEIGHTS}, "mixed": {"weights": WEIGHTS},
    "rrf": {"k": 60}, "isr": {}, "log_isr": {}, "logn_isr": {"sigma": 0.01},
    "bordafuse": {}, "w_bordafuse": {"weights": WEIGHTS}, "condorcet": {},
    "w_condorcet": {"weights": WEIGHTS}, "rbc": {"phi": 0.8}, "posfuse": {}, "probfuse": {},
    "segfuse": {}, "slidefuse": {"w": 2}, "mapfuse": {}, "bayesfuse": {},
}
RANK_BASED = {"rrf", "isr", "log_isr", "logn_isr", "bordafuse", "w_bordafuse", "condorcet",
              "w_condorcet", "rbc", "posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse",
              "bayesfuse"}
N_SEGMENTS = 3
OPTIMIZED = ["rrf", "wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet", "rbc", "gmnz",
             "logn_isr", "probfuse", "slidefuse"]


def partial(rng) -> tuple[list[dict], dict]:
    runs = [{} for _ in range(3)]
    qrels = {}
    for q in range(4):
        pool = [f"d{q}_{i}" for i in range(14)]
        for r in range(3):
            docs = rng.choice(pool, size=int(rng.integers(5, 12)), replace=False)
            scores = rng.permutation(np.linspace(-2.5, 9.0, 40))[:len(docs)] + rng.random() * 0.01
            runs[r][f"q{q}"] = {str(d): float(s) for d, s in zip(docs, scores)}
        judged = rng.choice(pool, size=8, replace=False)
        qrels[f"q{q}"] = {str(d): int(g) for d, g in zip(judged, rng.integers(0, 3, 8))}
    return runs, qrels


def _acyclic(rankings: list[list[str]]) -> bool:
    pos = [{d: i for i, d in enumerate(r)} for r in rankings]
    docs = rankings[0]
    wins = {d: 0 for d in docs}
    for x, y in itertools.combinations(docs, 2):
        votes = sum(p[x] < p[y] for p in pos)
        wins[x if votes * 2 > len(pos) else y] += 1
    return sorted(wins.values()) == list(range(len(docs)))  # Copeland scores 0…n−1: a total order


def full(rng) -> tuple[list[dict], dict]:
    runs = [{} for _ in range(3)]
    qrels = {}
    for q in range(4):
        docs = [f"e{q}_{i}" for i in range(9)]
        while True:
            base = rng.permutation(len(docs))
            rankings = []
            for _ in range(3):
                noisy = base + rng.normal(0, 1.5, len(docs))
                rankings.append([docs[i] for i in np.argsort(-noisy)])
            if _acyclic(rankings):
                break
        for r, ranking in enumerate(rankings):
            scores = np.sort(rng.uniform(-1.0, 6.0, len(docs)))[::-1]
            runs[r][f"q{q}"] = {d: float(s) for d, s in zip(ranking, scores)}
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs, rng.integers(0, 3, len(docs)))}
    return runs, qrels


def _norm_runs(runs, norm):
    from ranx.normalization import borda_norm, norm_switch

    if norm is None:
        return runs
    if norm == "borda":
        return borda_norm(runs)
    return [norm_switch(norm)(r) for r in runs]


def _plain(run) -> dict:
    return {q: {d: float(s) for d, s in docs.items()} for q, docs in run.run.items()}


def main() -> None:
    from importlib.metadata import version

    from ranx import Qrels, Run, fuse, optimize_fusion
    from ranx.fusion import (
        bayesfuse_train,
        mapfuse_train,
        posfuse_train,
        probfuse_train,
        segfuse_train,
        slidefuse_train,
    )

    assert version("ranx") == "0.3.21", version("ranx")
    rng = np.random.default_rng(20)
    out = {"ranx": version("ranx"), "sets": {}}
    for set_name, make in (("partial", partial), ("full", full)):
        raw_runs, raw_qrels = make(rng)
        entry = {"runs": raw_runs, "qrels": raw_qrels, "fused": {}, "learnt": {},
                 "skipped": {}}
        qrels = Qrels(raw_qrels)
        for norm in NORMS:
            for method, params in METHODS.items():
                key = f"{method}|{norm}"
                if set_name == "partial" and method in ("condorcet", "w_condorcet"):
                    entry["skipped"][key] = "cyclic or drawn majorities: ranx's order is arbitrary"
                    continue
                if norm == "borda" and method in RANK_BASED:
                    entry["skipped"][key] = "ranx's borda_norm orders rankings by set iteration"
                    continue
                runs = [Run(r, name=f"r{i}") for i, r in enumerate(raw_runs)]
                params = dict(params)
                normed = _norm_runs(runs, norm)
                learnt = None
                if method == "posfuse":
                    learnt = params["probs"] = posfuse_train(qrels, normed)
                elif method == "probfuse":
                    learnt = params["probs"] = probfuse_train(qrels, normed, N_SEGMENTS)
                elif method == "segfuse":
                    learnt = params["probs"] = segfuse_train(qrels, normed)
                elif method == "slidefuse":
                    learnt = params["probs"] = slidefuse_train(qrels, normed)
                elif method == "mapfuse":
                    learnt = params["map_scores"] = mapfuse_train(qrels, normed)
                elif method == "bayesfuse":
                    learnt = params["log_odds"] = bayesfuse_train(qrels, normed)
                if learnt is not None:
                    entry["learnt"][key] = [np.asarray(x, dtype=float).tolist() for x in learnt]
                fused = fuse(runs, norm=norm, method=method, params=params)
                entry["fused"][key] = _plain(fused)
        entry["optimize"] = {}
        for method in OPTIMIZED if set_name == "full" else ():
            runs = [Run(r, name=f"r{i}") for i, r in enumerate(raw_runs)]
            best, report = optimize_fusion(qrels, runs, norm="min-max", method=method,
                                           metric="ndcg@10", return_optimization_report=True,
                                           show_progress=False)
            best = {k: (np.asarray(v, dtype=float).tolist() if k == "probs" else
                        list(v) if isinstance(v, (list, tuple)) else v)
                    for k, v in best.items()}
            # configs are str() of the tried values (numpy floats): kept as plain numbers
            configs = [[float(x) for x in re.findall(r"-?[0-9.]+(?:e-?[0-9]+)?",
                                                     c.replace("np.float64", ""))]
                       for c in report.configs]
            entry["optimize"][method] = {"best": best, "report": [
                [c, float(x)] for c, x in zip(configs, report.results)]}
        out["sets"][set_name] = entry
        print(set_name, len(entry["fused"]), "fused,", len(entry["skipped"]), "skipped")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(out, separators=(",", ":")).encode()
    with open(OUT, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
        fh.write(data)  # mtime=0: the same inputs give the same bytes
    print("wrote", OUT, OUT.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
