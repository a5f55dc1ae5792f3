"""Diversity measures: trunc_accessor against ir_measures (pyndeval) and the ndeval binary.

    python bench/diversity.py [--ndeval PATH] [--repeat 3] [--rows 1000000]

Two workloads, each timed from frames in memory to per-query values (ndeval: from files to
its CSV, as it only reads files):

* the four TREC 2012 Web track baseline runs (50 topics × 1,000 documents, ~3,000 tied
  scores each) with the track's diversity qrels (../shared/data/trec_web_2012);
* a generated run: ``--rows`` rows (1,000 documents a query), qrels with 5 subtopics a query
  (each judged document relevant to one or two of them), scores drawn from 1,000 values so
  that ties occur.

Measures: ndeval's 21 columns (ERR-IA, nERR-IA, α-DCG, α-nDCG at 5/10/20, NRBP, nNRBP,
MAP-IA, P-IA and S-recall at 5/10/20). Prints a Markdown table of medians and ratios.
``--ndeval``: a compiled ndeval (gcc -O2 -o ndeval ndeval.c -lm, from the track's
trec-web-2014 repository, src/eval/ndeval.c); its rows are left out without one.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import trunc_accessor as ta
from trunc_accessor.frontends.cli.ndeval import COLUMNS

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT.parent / "shared" / "data" / "trec_web_2012"
OURS = [c for _, c in COLUMNS]


def irm_measures():
    import ir_measures
    from ir_measures import (
        AP_IA,
        ERR_IA,
        NRBP,
        P_IA,
        StRecall,
        alpha_DCG,
        alpha_nDCG,
        nERR_IA,
        nNRBP,
    )

    out = [NRBP, nNRBP, AP_IA]
    for k in (5, 10, 20):
        out += [ERR_IA @ k, nERR_IA @ k, alpha_DCG @ k, alpha_nDCG @ k, P_IA @ k, StRecall @ k]
    return ir_measures, out


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def generated(rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    per = 1000
    n_q = max(rows // per, 1)
    qid = np.repeat(np.arange(n_q), per).astype(str)
    docid = np.tile(np.arange(per), n_q).astype(str)
    run = pd.DataFrame({"qid": qid, "docid": docid,
                        "score": rng.integers(0, 1000, n_q * per).astype(float)})
    judged = rng.random(n_q * per) < 0.1
    q, d = qid[judged], docid[judged]
    first = rng.integers(1, 6, len(q))
    second = rng.integers(1, 6, len(q))
    two = rng.random(len(q)) < 0.3
    qrels = pd.concat([
        pd.DataFrame({"qid": q, "subtopic": first, "docid": d,
                      "rel": rng.integers(0, 3, len(q))}),
        pd.DataFrame({"qid": q[two], "subtopic": second[two], "docid": d[two],
                      "rel": rng.integers(1, 3, two.sum())}),
    ]).drop_duplicates(["qid", "subtopic", "docid"])
    return run, qrels


def write_trec(run: pd.DataFrame, qrels: pd.DataFrame, folder: str) -> tuple[str, str]:
    r = run.sort_values(["qid", "score"], ascending=[True, False]).copy()
    r["rank"] = r.groupby("qid").cumcount() + 1
    run_path, qrels_path = os.path.join(folder, "run.txt"), os.path.join(folder, "qrels.txt")
    with open(run_path, "w") as fh:
        fh.writelines(f"{q} Q0 {d} {k} {s} gen\n" for q, d, s, k
                      in r[["qid", "docid", "score", "rank"]].itertuples(index=False))
    with open(qrels_path, "w") as fh:
        fh.writelines(f"{q} {s} {d} {max(int(g), 0)}\n" for q, s, d, g
                      in qrels[["qid", "subtopic", "docid", "rel"]].itertuples(index=False))
    return run_path, qrels_path


def bench(label, runs, qrels, files, args, rows):
    ir_measures, measures = irm_measures()
    qi = qrels.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance",
                               "subtopic": "iteration"}).astype({"iteration": str})
    ris = [r.rename(columns={"qid": "query_id", "docid": "doc_id"}) for r in runs]

    def ours(ties):
        return lambda: [r.ir.evaluate(qrels, OURS, ties=ties) for r in runs]

    def peer():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for ri in ris:
                list(ir_measures.iter_calc(measures, qi, ri))

    result = {"ours, pandas, ties=\"average\"": timed(ours("average"), args.repeat),
              "ours, pandas, ties=\"trec_eval\"": timed(ours("trec_eval"), args.repeat),
              "ir_measures (pyndeval), from frames": timed(peer, args.repeat)}
    if args.ndeval and files:
        def binary():
            for run_path, qrels_path in files:
                subprocess.run([args.ndeval, "-c", "-traditional", qrels_path, run_path],
                               check=True, stdout=subprocess.DEVNULL)
        result["ndeval binary, from files"] = timed(binary, args.repeat)
    base = result["ir_measures (pyndeval), from frames"]
    rows.append(f"| **{label}** | | |")
    for name, seconds in result.items():
        rows.append(f"| {name} | {seconds:.3f} | {base / seconds:.1f}× |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ndeval", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    rows = ["| workload / program | seconds (median) | ir_measures' time ÷ this |", "|---|---|---|"]
    qrels = ta.read_qrels(WEB / "qrels-for-ndeval.txt.gz")
    names = ["ql-cata", "ql-catb", "rm-cata", "rm-catb"]
    runs = [ta.read_run(WEB / f"{n}.run.gz").drop(columns="system") for n in names]
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        if args.ndeval:
            import gzip
            qpath = os.path.join(tmp, "qrels")
            Path(qpath).write_bytes(gzip.decompress((WEB / "qrels-for-ndeval.txt.gz").read_bytes()))
            for n in names:
                rpath = os.path.join(tmp, n)
                Path(rpath).write_bytes(gzip.decompress((WEB / f"{n}.run.gz").read_bytes()))
                files.append((rpath, qpath))
        bench("TREC 2012 Web track, 4 runs × 50 topics × 1,000", runs, qrels, files, args, rows)
        run, gen_qrels = generated(args.rows)
        gfiles = [write_trec(run, gen_qrels, tmp)] if args.ndeval else []
        bench(f"generated, {len(run):,} rows, 5 subtopics a query", [run], gen_qrels, gfiles,
              args, rows)
    print("\n".join(rows))
    print(f"\n(trunc_accessor {ta.__version__}, Python {sys.version.split()[0]}, "
          f"load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
