"""Write the inputs expeval was run on (see ORIGIN): python make_inputs.py"""
import random

rng = random.Random(20201019)


def qrels_line(q, gids, d, rel):
    return f"{q} {'|'.join(map(str, gids))} {d} {rel}\n"


def graded():
    """graded.qrels: q1-q3 graded 0-3 with groups 0-3 (some documents in two groups, some
    in the unlabelled group -1), q4 only non-relevant, q3 not in the run; graded.run: q1
    three samples, q2 two, q4 one, q9 (no judgments) one; unjudged documents in every
    sample."""
    lines, run = [], []
    for q, n in (("q1", 8), ("q2", 6), ("q3", 5), ("q4", 4)):
        for i in range(n):
            rel = 0 if q == "q4" else rng.choice([0, 1, 1, 2, 3])
            if q == "q3" and i < 2:
                rel = 1 + i  # two relevant levels at least
            gids = [rng.randrange(4)]
            if rng.random() < 0.25:
                gids.append((gids[0] + 1) % 4)
            if rng.random() < 0.15:
                gids = [-1]
            lines.append(qrels_line(q, gids, f"{q}d{i}", rel))
    for q, n, samples in (("q1", 8, 3), ("q2", 6, 2), ("q4", 4, 1), ("q9", 3, 1)):
        docs = [f"{q}d{i}" for i in range(n)] + [f"{q}x{i}" for i in range(3)]
        for s in range(samples):
            ranking = rng.sample(docs, rng.randrange(n - 2, len(docs) + 1))
            for r, d in enumerate(ranking, 1):
                run.append(f"{q} s{s} {d} {r} {len(ranking) - r} sys\n")
    return lines, run


def binary():
    """binary.qrels: five queries with binary grades, two groups (0, 1); binary.run: one
    ranking per query (a deterministic ranking), q5 absent."""
    lines, run = [], []
    for k in range(1, 6):
        q = f"b{k}"
        for i in range(7):
            rel = 1 if (i < 2 or rng.random() < 0.3) else 0
            lines.append(qrels_line(q, [i % 2], f"{q}d{i}", rel))
        if k == 5:
            continue
        docs = [f"{q}d{i}" for i in range(7)] + [f"{q}x{i}" for i in range(2)]
        ranking = rng.sample(docs, 6 + k % 3)
        for r, d in enumerate(ranking, 1):
            run.append(f"{q} Q0 {d} {r} {len(ranking) - r} sys\n")
    return lines, run


for name, make in (("graded", graded), ("binary", binary)):
    q, r = make()
    open(f"{name}.qrels", "w").writelines(q)
    open(f"{name}.run", "w").writelines(r)
