"""Write a second, synthetic judge for the shipped Cranfield qrels.

    python examples/make_second_judge.py [--out FILE]

Cranfield has one set of judgments; to show what judge disagreement does to a leaderboard
(``ta.judges.leaderboard_agreement``) the package ships a second judge made from the first
with a stated, seeded noise model (``trunc_accessor/data/judges/cranfield_second_judge.txt``,
read by ``ta.judges.load_judges("cranfield")``). It is not a real assessor: it stands for a
lenient judge that also skips a few documents.

Noise model. For the i-th judgment of ``qrels.txt`` (file order, grade g in 0..4), with
``u, v = numpy.random.default_rng(2024).random((n, 2))[i]``:

* ``u < 0.02``: the second judge gives no label (the line is left out);
* otherwise ``v < 0.15``: grade ``max(g − 1, 0)``; ``v ≥ 0.70``: grade ``min(g + 1, 4)``;
  else the same grade g.

So a judged pair moves one grade up with probability 0.30 and down with 0.15 (clipped to the
0–4 scale), and 2% of the pairs are unjudged. ``Generator.random`` draws the same doubles in
every NumPy since 1.17, so the file is reproduced byte for byte (the test suite checks it).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "trunc_accessor" / "data"
SEED, SKIP, DOWN, UP = 2024, 0.02, 0.15, 0.70


def second_judge(lines: list[str]) -> list[str]:
    """The second judge's qrels lines (TREC four columns) for the first judge's ``lines``."""
    draws = np.random.default_rng(SEED).random((len(lines), 2))
    out = []
    for line, (u, v) in zip(lines, draws):
        qid, it, docid, grade = line.split()
        if u < SKIP:
            continue
        g = int(grade)
        g = max(g - 1, 0) if v < DOWN else min(g + 1, 4) if v >= UP else g
        out.append(f"{qid} {it} {docid} {g}\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DATA / "judges" / "cranfield_second_judge.txt")
    args = parser.parse_args()
    lines = (DATA / "cranfield" / "qrels.txt").read_text().splitlines()
    args.out.write_text("".join(second_judge(lines)))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
