"""Builds the inputs of this folder (see ORIGIN): stratified samples of the Cranfield qrels
and of bioCADDIE 2016's sampled qrels, and runs over them. Deterministic (seeded)."""
import gzip
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
DEPTH = 150  # documents of each Cranfield ranking kept
CRAN = HERE.parents[2] / "trunc_accessor" / "data" / "cranfield"


def read_run(path):
    out = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            q, _, d, _, s, _ = line.split()
            out.setdefault(q, []).append((d, float(s)))
    return out


def cranfield():
    rnd = random.Random(34)
    qrels = {}
    for line in open(CRAN / "qrels.txt"):
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    runs = {n: read_run(CRAN / f"{n}.run.gz") for n in ("bm25", "tfidf", "ql_dirichlet")}
    topics = [str(i) for i in range(1, 31)]
    lines = []
    for q in topics:
        top10 = {d for r in runs.values() for d, _ in r.get(q, [])[:10]}
        top40 = {d for r in runs.values() for d, _ in r.get(q, [])[:40]}
        rest = sorted((top40 | set(qrels.get(q, {}))) - top10)
        no_rel = int(q) % 9 == 0  # a topic whose sampled documents are all non-relevant
        for d in sorted(top10):
            g = 0 if no_rel else max(qrels.get(q, {}).get(d, 0), 0)
            lines.append(f"{q} 0 {d} 1 {g}")
        for d in rest:
            stratum = "3" if int(q) % 7 == 0 and int(d) % 3 == 0 else "2"
            sampled = stratum == "2" and rnd.random() < 0.3
            g = (0 if no_rel else max(qrels.get(q, {}).get(d, 0), 0)) if sampled else -1
            lines.append(f"{q} 0 {d} {stratum} {g}")
    rnd.shuffle(lines)
    (HERE / "cranfield.qrels").write_text("\n".join(lines) + "\n")
    for name, fmt, pad in (("bm25", "{:.4f}", False), ("tfidf", "{:.1f}", True)):
        out = []
        for q in topics + ["31"]:
            qq = q.zfill(3) if pad and int(q) % 2 else q
            for i, (d, s) in enumerate(runs[name].get(q, [])[:DEPTH]):
                out.append(f"{qq} Q0 {d} {i + 1} {fmt.format(s)} {name}")
        (HERE / f"cranfield.{name}.run").write_text("\n".join(out) + "\n")


def biocaddie(path):
    rnd = random.Random(2016)
    keep = {"1", "5", "11", "13", "26"}
    rows = [line.split() for line in open(path)]
    rows = [r for r in rows if r[0] in keep and (r[4] != "-1" or rnd.random() < 0.02)
            and (r[4] != "0" or rnd.random() < 0.3)]
    (HERE / "biocaddie.qrels").write_text("".join(" ".join(r) + "\n" for r in rows))
    docs = {}
    for r in rows:
        docs.setdefault(r[0], []).append((r[2], int(r[4])))
    for name, n_docs, ties in (("a", 1100, 0), ("b", 300, 2)):
        out = []
        for q in sorted(docs, key=int):
            pool = docs[q]
            scored = []
            for d, g in pool:
                s = rnd.gauss(1.0 + 0.8 * max(g, 0), 1.0)
                scored.append((d, round(s, ties) if ties else s))
            scored += [(f"x{q}_{i}", rnd.gauss(0.5, 1.0)) for i in range(220)]
            scored.sort(key=lambda x: -x[1])
            for i, (d, s) in enumerate(scored[:n_docs]):
                out.append(f"{q} Q0 {d} {i + 1} {s:.4f} run_{name}")
        (HERE / f"biocaddie.{name}.run").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    cranfield()
    biocaddie(sys.argv[1])
