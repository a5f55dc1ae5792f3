"""Plain-Python transcriptions of trec_eval 10.0's m_utility.c, m_binG.c, m_G.c,
m_ndcg_rel.c, m_Rndcg.c, m_rbp.c and m_rbp_resid.c (loop for loop), written from the C
sources, not from the library's kernels. A ranking is given as its list of trec_eval rel
values in order: a grade ≥ 0, -1 for a document not in the qrels, -2 for a negative grade
("in the pool, unjudged"); ``judged`` is every qrels grade of the query (negative ones
included); ``level`` is -l."""
from __future__ import annotations

import math


def rel_levels(judged):
    levels = [g for g in judged if g >= 0]
    top = int(max(levels)) if levels else -1
    return [sum(1 for g in levels if g == i) for i in range(top + 1)]


def setup_gains(judged, pairs=()):
    """gain_init.c: (rel_level, gain, num_at_level) sorted by gain (stable by level)."""
    counts = rel_levels(judged)
    gains = [[int(r), float(v), 0] for r, v in pairs]
    for i, c in enumerate(counts):
        for entry in gains:
            if entry[0] == i:
                entry[2] = c
                break
        else:
            gains.append([i, float(i), c])
    gains.sort(key=lambda e: e[1])
    return gains


def get_gain(rel, gains):
    for r, g, _ in gains:
        if r == rel:
            return g
    return 0.0


def num_rel(judged, level):
    return sum(1 for g in judged if g >= level)


def utility(ranking, judged, level, a=1.0, b=-1.0, c=0.0, d=0.0, n_coll=0):
    rr = sum(1 for r in ranking if r >= level)
    R = num_rel(judged, level)
    return a * rr + b * (len(ranking) - rr) + c * (R - rr) + d * (n_coll + rr - len(ranking) - R)


def bin_g(ranking, judged, level):
    rel_so_far, total = 0, 0.0
    for i, r in enumerate(ranking):
        if r >= level:
            rel_so_far += 1
            total += 1.0 / math.log2(3 + i - rel_so_far)
    return total / num_rel(judged, level) if rel_so_far else 0.0


def _ideal_walk(gains):
    """The C idiom: cur_level from the top, num_at_level, the ideal gain at each step."""
    state = {"cur": len(gains) - 1, "n": 0}

    def first():
        return gains[state["cur"]][1] if state["cur"] >= 0 else 0.0

    def step():
        state["n"] += 1
        while state["cur"] >= 0 and state["n"] > gains[state["cur"]][2]:
            state["n"] = 1
            state["cur"] -= 1
        return gains[state["cur"]][1] if state["cur"] >= 0 else 0.0

    return first, step


def g_measure(ranking, judged, level, pairs=()):
    gains = setup_gains(judged, pairs)
    first, step = _ideal_walk(gains)
    ideal_gain = first()
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    i = 0
    while i < len(ranking) and ideal_gain > 0.0:
        rg = get_gain(ranking[i], gains)
        sum_results += rg
        ideal_gain = step()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
        sum_cost += max(ideal_gain, 1.0)
        if rg != 0:
            results_g += rg / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < len(ranking):
        rg = get_gain(ranking[i], gains)
        sum_results += rg
        sum_cost += 1.0
        if rg != 0:
            results_g += rg / math.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal_gain > 0.0:
        ideal_gain = step()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def ndcg_rel(ranking, judged, level, pairs=()):
    gains = setup_gains(judged, pairs)
    first, step = _ideal_walk(gains)
    ideal_gain = first()
    results_dcg = ideal_dcg = total = 0.0
    nrr = nr = 0
    i = 0
    while i < len(ranking) and ideal_gain > 0.0:
        rg = get_gain(ranking[i], gains)
        if rg != 0:
            results_dcg += rg / math.log2(i + 2)
        ideal_gain = step()
        if ideal_gain > 0.0:
            nr += 1
            ideal_dcg += ideal_gain / math.log2(i + 2)
        if rg > 0:
            total += results_dcg / ideal_dcg
            nrr += 1
        i += 1
    while i < len(ranking):
        rg = get_gain(ranking[i], gains)
        if rg != 0:
            results_dcg += rg / math.log2(i + 2)
        if rg > 0:
            total += results_dcg / ideal_dcg
            nrr += 1
        i += 1
    while ideal_gain > 0.0:
        ideal_gain = step()
        if ideal_gain > 0.0:
            nr += 1
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if nr:
        total += (nr - nrr) * results_dcg / ideal_dcg
    return total / nr if total > 0.0 else 0.0


def rndcg(ranking, judged, level, pairs=()):
    gains = setup_gains(judged, pairs)
    if num_rel(judged, level) == 0:
        return 0.0
    first, step = _ideal_walk(gains)
    ideal_gain = first()
    old = ideal_gain
    results_dcg = ideal_dcg = total = 0.0
    changes = 0
    i = 0
    while i < len(ranking) and ideal_gain > 0.0:
        rg = get_gain(ranking[i], gains)
        ideal_gain = step()
        if old != ideal_gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal_gain
        if rg != 0:
            results_dcg += rg / math.log2(i + 2)
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if i < len(ranking):
        while i < len(ranking):
            rg = get_gain(ranking[i], gains)
            if rg != 0:
                results_dcg += rg / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            changes += 1
    while ideal_gain > 0.0:
        ideal_gain = step()
        if old != ideal_gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal_gain
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    return total / changes if changes else float("nan")


def rbp(ranking, judged, level, p=0.9, pairs=()):
    gains = setup_gains(judged, pairs)
    lo = hi = 0.0  # trec_eval reads them uninitialised; 0 reproduces its shipped outputs
    for _, g, _ in gains:
        lo, hi = min(lo, g), max(hi, g)
    if lo < 0 or hi > 1:
        gains = [[r, (g - lo) / (hi - lo), c] for r, g, c in gains]
    total, cur = 0.0, 1.0
    for r in ranking:
        g = get_gain(r, gains)
        if g != 0:
            total += g * cur
        cur *= p
    return (1.0 - p) * total


def rbp_resid(ranking, judged, level, p=0.9):
    unj, total, cur = 0, 0.0, 1.0
    for r in ranking:
        if r < 0:
            unj += 1
            total += cur
        cur *= p
    return cur + (1 - p) * total if unj else 0.0
