"""Writes tests/data/trectools_rbp/rbp.tsv: ir_measures' RBP without rel= (computed by its
trectools provider) per query on three shipped runs, at p = 0.8 and p = 0.5. Needs
ir_measures and trectools (``pip install "ir-measures[trectools]"``); run from the project
root: ``python -m tests.make_trectools_rbp``. The frames handed to ir_measures are the
ones tests/engine/test_presets.py builds (``rbp_inputs``)."""
from __future__ import annotations

import csv
import logging
from pathlib import Path

import ir_measures

from tests.engine.test_presets import rbp_inputs

OUT = Path(__file__).parent / "data" / "trectools_rbp" / "rbp.tsv"


def main() -> None:
    logging.getLogger("ir_measures").setLevel(logging.ERROR)
    provider = ir_measures.providers.registry["trectools"]
    rows = []
    for name, run, qrels in rbp_inputs():
        irr = run.rename(columns={"qid": "query_id", "docid": "doc_id"})
        irq = qrels.rename(columns={"qid": "query_id", "docid": "doc_id", "rel": "relevance"})
        for p in (0.8, 0.5):
            measure = ir_measures.parse_measure(f"RBP(p={p})")
            for m in provider.iter_calc([measure], irq, irr):
                rows.append((name, p, m.query_id, repr(float(m.value))))
    with OUT.open("w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["run", "p", "qid", "value"])
        w.writerows(sorted(rows, key=lambda r: (r[0], r[1], r[2])))


if __name__ == "__main__":
    main()
