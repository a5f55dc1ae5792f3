"""The estimates of NIST's ``sample_eval.pl`` (the version of 10 Oct 2011 that the TREC
Medical, Clinical Decision Support and Precision Medicine tracks and bioCADDIE used),
computed for every ranking at once (``estimates``); ``trunc_accessor.metrics.sample_eval``
declares the measures that read them.

The qrels are a sampled pool: every pooled document has a stratum; a grade ≥ 0 says it was
sampled and judged, a negative grade that it is in the pool but was not sampled. With, for
stratum c of the query, D_c pooled documents, S_c of them sampled and T_c of those
relevant (grade ≥ the relevance level; the script's "grade > 0"), and, for the first
documents of a ranking, d_c of them in stratum c, s_c sampled, t_c relevant:

* the estimated number of relevant documents is R̂ = Σ_c T_c·D_c/S_c (strata with S_c > 0);
* the estimated number of relevant documents down to a rank is
  n̂ = Σ_c d_c·(t_c + ε)/(s_c + 3ε), ε = 0.00001 (a stratum with no sampled document yet
  counts a third of its documents);
* the estimated precision at a relevant document at rank k is 1/k + n̂/k, n̂ over the ranks
  above it; xinfAP = Σ over the retrieved relevant documents of that precision times
  D_c/S_c of its stratum, over R̂ (Yilmaz, Kanoulas & Aslam, SIGIR 2008, §3);
* infNDCG = Σ over the retrieved relevant documents of grade/log2(k + 1) times d_c/s_c
  (its stratum's counts over the whole ranking), over the ideal DCG of the estimated
  number of documents of each grade, Σ_c (relevant of that grade in c)·D_c/S_c, each
  rounded to the nearest whole number, the grades taken in descending order of their text
  (so grade 10 comes after grade 2, as in the script) and the ideal ranking cut at rank
  1000 (then one more rank for each further grade: the script's loop adds a term before it
  tests the cut);
* only the first 1000 documents of a ranking count (its ``$maxResultSize``).
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._order import restarting_cumsum
from trunc_accessor.warn import InconsistentEstimateWarning, warn

MAX_RESULT_SIZE = 1000  # the script's $maxResultSize: documents of a ranking it reads
EPSILON = 0.00001  # its smoothing of the precision estimated within a stratum
RECALL_TEXT = ("0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "1")
RECALL_LEVELS = tuple(float(x) for x in RECALL_TEXT)


def _log2(x):
    return np.log(x) / math.log(2)


def strata(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    """(stratum code per row, NaN when the document is not in the pool; per judgment):
    the qrels' stratum column, or one stratum for every pooled document without it."""
    if "stratum" in prep.extra:
        return prep.extra["stratum"]
    return (np.where(np.isnan(prep.grade), np.nan, 0.0), np.zeros(len(prep.q_grades)))


def _pairs(q: np.ndarray, code: np.ndarray):
    """The distinct (q, code) pairs sorted (by q, then code) and each item's pair."""
    width = int(code.max()) + 1 if len(code) else 1
    keys, inverse = np.unique(q * width + code, return_inverse=True)
    return keys // width, keys % width, inverse.reshape(-1)


def qrels_side(prep: Prepared, level: float) -> dict:
    """Per qid: R̂ and the ideal DCG; per (qid, stratum): D_c/S_c (NaN where S_c = 0)."""
    n_q = len(prep.q_offsets) - 1
    q_of = np.repeat(np.arange(n_q), np.diff(prep.q_offsets))
    g = prep.q_grades
    code = strata(prep)[1].astype(np.int64)
    pq, pc, inv = _pairs(q_of, code)
    docs = np.bincount(inv, minlength=len(pq)).astype(np.float64)
    sampled = np.bincount(inv, weights=(g >= 0).astype(np.float64), minlength=len(pq))
    with np.errstate(invalid="ignore"):
        rel = g >= level
    srel = np.bincount(inv, weights=rel.astype(np.float64), minlength=len(pq))
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.where(sampled > 0, srel * docs / sampled, 0.0)
        scale = np.where(sampled > 0, docs / sampled, np.nan)
    num_rels = np.bincount(pq, weights=estimate, minlength=n_q)
    ideal = _ideal_dcg(n_q, q_of[rel], code[rel], g[rel], pq, pc, docs, sampled)
    return {"num_rels": num_rels, "ideal": ideal, "pair_q": pq, "pair_code": pc,
            "scale": scale}


def _grade_text(grade: float) -> str:
    return str(int(grade)) if float(grade).is_integer() else repr(float(grade))


def _ideal_dcg(n_q, q, code, grade, pq, pc, docs, sampled) -> np.ndarray:
    """The script's ideal DCG of each qid from its relevant judgments (q, code, grade)."""
    ideal = np.zeros(n_q)
    if not len(q):
        return ideal
    values = np.unique(grade)
    text = [_grade_text(v) for v in values]
    order = sorted(range(len(values)), key=lambda i: text[i], reverse=True)
    g_rank = np.empty(len(values), dtype=np.int64)
    g_rank[order] = np.arange(len(values))
    gi = np.searchsorted(values, grade)
    # (q, stratum, grade) counts, then Σ over the strata in their order of count·D_c/S_c
    width = len(values)
    pair = np.searchsorted(pq * (int(pc.max()) + 1) + pc, q * (int(pc.max()) + 1) + code)
    keys, inv = np.unique(pair * width + gi, return_inverse=True)
    count = np.bincount(inv.reshape(-1), minlength=len(keys)).astype(np.float64)
    kp, kg = keys // width, keys % width
    est = count * docs[kp] / sampled[kp]
    qg_keys, qg_inv = np.unique(pq[kp] * width + g_rank[kg], return_inverse=True)
    n_g = np.bincount(qg_inv.reshape(-1), weights=est, minlength=len(qg_keys))
    qg_q, qg_rank = qg_keys // width, qg_keys % width
    grade_of = values[np.asarray(order)[qg_rank]]
    whole = np.floor(n_g + 0.5)
    start = restarting_cumsum(whole, _offsets_of(qg_q, n_q)) - whole
    table = np.zeros(MAX_RESULT_SIZE + 1)
    np.cumsum(1.0 / _log2(np.arange(2, MAX_RESULT_SIZE + 2, dtype=np.float64)), out=table[1:])
    within = start + 1 <= MAX_RESULT_SIZE
    hi = np.minimum(start + whole, MAX_RESULT_SIZE).astype(np.int64)
    lo = np.minimum(start, MAX_RESULT_SIZE).astype(np.int64)
    term = np.where(within, grade_of * (table[hi] - table[lo]),
                    np.where(whole >= 1, grade_of / _log2(start + 2.0), 0.0))
    return np.bincount(qg_q, weights=term, minlength=n_q)


def _offsets_of(sorted_ids: np.ndarray, n: int) -> np.ndarray:
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(sorted_ids, minlength=n), out=off[1:])
    return off


def estimates(prep: Prepared, level: float) -> dict:
    """Every estimate of the script for every ranking (cached on the preparation)."""
    key = ("sample_eval", level)
    if key not in prep._cache:
        prep._cache[key] = _estimates(prep, level)
    return prep._cache[key]


def _estimates(prep: Prepared, level: float) -> dict:
    qs = qrels_side(prep, level)
    kept = np.flatnonzero(prep.pos <= MAX_RESULT_SIZE)
    seg, pos, g = prep.seg[kept], prep.pos[kept], prep.grade[kept]
    code = strata(prep)[0][kept]
    offsets = _offsets_of(seg, prep.n_segments)
    pool = ~np.isnan(g)
    with np.errstate(invalid="ignore"):
        rel = g >= level
        sampled = g >= 0
    # each pooled row's stratum counts before it in its ranking, and over the whole ranking
    pr = np.flatnonzero(pool)
    _, _, inv = _pairs(seg[pr], code[pr].astype(np.int64))
    order = np.argsort(inv, kind="stable")
    grp = inv[order]
    first = np.r_[0, np.flatnonzero(grp[1:] != grp[:-1]) + 1]
    starts = np.repeat(first, np.diff(np.r_[first, len(grp)]))
    before = {}
    for name, x in (("d", np.ones(len(pr))), ("s", sampled[pr].astype(np.float64)),
                    ("t", rel[pr].astype(np.float64))):
        c = np.cumsum(x[order])
        c = c - x[order] - (c[starts] - x[order][starts])
        before[name] = np.empty(len(pr))
        before[name][order] = c
    n_pairs = int(inv.max()) + 1 if len(inv) else 0
    total_d = np.bincount(inv, minlength=n_pairs)[inv]
    total_s = np.bincount(inv, weights=sampled[pr].astype(np.float64), minlength=n_pairs)[inv]
    d, s, t = before["d"], before["s"], before["t"]
    f_before = d * (t + EPSILON) / (s + 3 * EPSILON)
    f_after = (d + 1) * (t + rel[pr] + EPSILON) / (s + sampled[pr] + 3 * EPSILON)
    delta = np.zeros(len(kept))
    delta[pr] = f_after - f_before
    nrk = restarting_cumsum(delta, offsets)
    out = {"nrk": nrk, "offsets": offsets, "pos": pos, "num_rels": qs["num_rels"]}
    _ap_ndcg(prep, qs, out, rel, pool, pr, seg, code, g, pos, nrk - delta,
             total_d.astype(np.float64) / np.where(total_s > 0, total_s, 1.0))
    last = np.zeros(prep.n_segments)
    nonempty = offsets[1:] > offsets[:-1]
    last[nonempty] = nrk[offsets[1:][nonempty] - 1]
    out["num_rel_ret"] = last
    _say_inconsistent(prep, last, qs["num_rels"][prep.seg_q], nonempty)
    return out


def _ap_ndcg(prep, qs, out, rel, pool, pr, seg, code, g, pos, nrk_before, ratio_pr):
    """xinfAP and infNDCG of every ranking (module doc) into ``out``."""
    rr = np.flatnonzero(rel)
    q_seg = prep.seg_q[seg[rr]]
    width = int(qs["pair_code"].max()) + 1 if len(qs["pair_code"]) else 1
    pair = np.searchsorted(qs["pair_q"] * width + qs["pair_code"],
                           q_seg * width + code[rr].astype(np.int64))
    prec = 1.0 / pos[rr] + nrk_before[rr] / pos[rr]
    num_rels = qs["num_rels"][prep.seg_q]
    ap_sum = np.bincount(seg[rr], weights=prec * qs["scale"][pair], minlength=prep.n_segments)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["ap"] = np.where(num_rels != 0, ap_sum / np.where(num_rels != 0, num_rels, 1), np.nan)
    ratio = np.zeros(len(pool))
    ratio[pr] = ratio_pr
    gain = g[rr] / _log2(pos[rr] + 1.0) * ratio[rr]
    dcg = np.bincount(seg[rr], weights=gain, minlength=prep.n_segments)
    ideal = qs["ideal"][prep.seg_q]
    with np.errstate(invalid="ignore", divide="ignore"):
        out["ndcg"] = np.where(ideal != 0, dcg / np.where(ideal != 0, ideal, 1), np.nan)


def _say_inconsistent(prep: Prepared, rel_ret, num_rels, answered) -> None:
    bad = np.flatnonzero(answered & (rel_ret > num_rels + 0.00005))  # visible at 4 decimals
    if len(bad):
        where = ", ".join(f"{k}={v!r}" for k, v in prep.keys.row(int(bad[0]), named=True).items())
        warn(f"sample_eval's estimates: {len(bad)} ranking(s) have more estimated relevant "
             f"documents retrieved than estimated relevant documents in all (first: {where}, "
             f"{rel_ret[bad[0]]:.4f} > {num_rels[bad[0]]:.4f}); reproduced as the script "
             "computes them", InconsistentEstimateWarning)


def precision_at(prep: Prepared, level: float, k: int | None) -> np.ndarray:
    """iP@k: n̂ at rank k over k (n̂ at the last rank when the ranking is shorter); k=None:
    n̂ at the last rank read over the ranks read (undefined for an empty ranking)."""
    e = estimates(prep, level)
    off = e["offsets"]
    length = off[1:] - off[:-1]
    kk = length.astype(np.float64) if k is None else np.full(len(length), float(k))
    at = np.where(length >= kk, off[:-1] + kk.astype(np.int64) - 1, off[1:] - 1)
    value = np.where(length > 0, e["nrk"][np.maximum(at, 0)] if len(e["nrk"]) else 0.0, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(kk > 0, value / np.where(kk > 0, kk, 1.0), np.nan)


def interpolated(prep: Prepared, level: float) -> np.ndarray:
    """The script's interpolated precision at its 11 recall levels, per ranking (its
    per-topic terms of iprec@rec, summed then divided by the topics): shape (11, rankings).
    Ranks are read from the last up; the running best precision n̂/k is added to level j
    at the first rank, below the rank of level j + 1, whose n̂ is under j/10·R̂; levels
    above n̂ at the last rank add nothing; a level never reached takes the best precision
    of the whole ranking."""
    e = estimates(prep, level)
    off, nrk, pos = e["offsets"], e["nrk"], e["pos"]
    n_seg = prep.n_segments
    num_rels = e["num_rels"][prep.seg_q]
    cut = np.array(RECALL_LEVELS)[:, None] * num_rels[None, :]
    top = np.sum(cut <= e["num_rel_ret"][None, :], axis=0) - 1
    seg = np.repeat(np.arange(n_seg), np.diff(off))
    step = off[1:][seg] - 1 - np.arange(len(nrk))  # 0 at the last rank
    rev = np.argsort(seg * (len(nrk) + 1) + step, kind="stable")  # per ranking, last first
    prec = nrk / pos
    best = np.empty(len(nrk))
    best[rev] = (pl.DataFrame({"s": seg[rev], "p": prec[rev]})
                 .select(pl.col("p").cum_max().over("s")).to_series().to_numpy())
    best = np.maximum(best, 0.0)
    overall = np.zeros(n_seg)
    nonempty = off[1:] > off[:-1]
    overall[nonempty] = best[off[:-1][nonempty]]
    out = np.zeros((len(RECALL_LEVELS), n_seg))
    prev = np.full(n_seg, -1)
    big = len(nrk) + 1
    for j in range(len(RECALL_LEVELS) - 1, -1, -1):
        ok = (cut[j][seg] > nrk) & (step > prev[seg]) & (j <= top[seg])
        found = np.full(n_seg, big)
        np.minimum.at(found, seg[ok], step[ok])
        hit = found < big
        value = np.where(hit, best[np.where(hit, off[1:] - 1 - found, 0)] if len(best) else 0,
                         overall)
        out[j] = np.where(j <= top, value, 0.0)
        prev = np.where(j <= top, np.where(hit, found, big), prev)
    return out
