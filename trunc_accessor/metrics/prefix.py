"""Prefix kernels: a metric at every allowed cut-off of every ranking, in one pass.

``cutoff_curve`` and ``optimal_cutoff`` need a metric's value for every prefix a₁…a_d of a
ranking (d = 0 and the end of every tie group; Amigó, Mizzaro & Spina 2022, §4.2). Scoring
each prefix on its own costs Σ d rows, quadratic in the ranking's length. For most metrics a
prefix's value is a function of

* running sums over the ranking: P, R, F, AP, DCG, nDCG, RBP, RR, success, R-prec, bpref,
  the counts and set measures, the utility metrics (Amigó et al. §3.3);
* running products: the cascade metrics, whose stopping terms at a position depend only on
  the documents above it (ERR, ERR′, RBU, ERRU; Chapelle et al. 2009), the probability of
  reading past a prefix being the product over its tie groups;
* the prefix's length n = d and the query's constants: the terminal document of Liu, Moffat,
  Baldwin & Zhang 2016 (RR′, RBP′, NDCG′, AP′, ERR′), whose gain r_t (eq. 1) is the running
  gain over R, and whose ideal ranking over n + 1 positions (eq. 3) is a running sum of the
  query's sorted gains;

so one pass gives every prefix: O(N + cut-offs) per metric.

Ties. A cut-off is the end of a tie group, so a prefix holds whole groups; each group adds
the same expected contribution (McSherry & Najork 2008) to a prefix as to the whole ranking,
and a metric's own cut-off k, when it falls inside a group, cuts the same group in every
prefix that holds it. Running sums restart at each ranking and add the same terms in the same
order as a kernel's per-ranking sum (``np.bincount``), so a prefix's value is the one its own
kernel call gives, to the last bits where a kernel groups a sum differently.

Kernels are found by the metric's kernel function (``for_metric``); a metric without one
(``FALLBACK`` lists the built-in ones: measures whose value at a prefix is not a function of
running quantities, or whose tie-aware forms are computed per ranking) is scored by rescoring
every prefix.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics import (
    _kernels,
    cascade,
    counts,
    interpolated,
    sets,
    standard,
    terminal,
    trec_only,
    utility,
)
from trunc_accessor.metrics._combinatorics import comb_ratio, log_factorials
from trunc_accessor.metrics._kernels import discount, in_cut, rbp_weights, safe_div
from trunc_accessor.metrics._order import restarting_cumsum
from trunc_accessor.metrics.infap import before_row

#: the built-in metrics scored by rescoring every prefix (no prefix form here)
FALLBACK = ("iprec_at_recall", "interpolated_precision_11pt", "infap", "oie", "compat",
            "normalized_g", "ndcg_rel", "rndcg", "twist", "recovery_ratio", "space_ratio",
            "space_ratio_plus", "space_ratio_minus")

PREFIX: dict[Callable, Callable] = {}


def prefix_of(kernel: Callable):
    """Declare the decorated function as the prefix kernel of the metric whose kernel is
    ``kernel``: ``fn(cuts, level, **params)`` → one value per cut-off."""

    def deco(fn):
        PREFIX[kernel] = fn
        return fn

    return deco


def for_metric(metric) -> Callable | None:
    """The prefix kernel of a registered metric, or None (score every prefix instead)."""
    return PREFIX.get(metric.kernel)


class Cuts:
    """The cut-offs of a preparation: cut i keeps the first ``depth[i]`` positions of
    ranking ``seg[i]`` (0 or the end of a tie group). Running sums over the rows or tie
    groups of the preparation, or of a part of it (``Prepared.judged_part``: the same
    positions, fewer rows), are read at each cut."""

    def __init__(self, prep: Prepared, seg: np.ndarray, depth: np.ndarray):
        self.prep = prep
        self.seg = np.asarray(seg, dtype=np.int64)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.n = self.depth.astype(np.float64)
        self._end = prep.offsets[self.seg] + self.depth  # one past the prefix's last row
        self._last: dict = {}

    def __len__(self) -> int:
        return len(self.seg)

    def last(self, part: Prepared, groups: bool) -> tuple[np.ndarray, np.ndarray]:
        """Per cut, the index of the last row (``groups``: tie group) of ``part`` inside the
        prefix, and whether there is one."""
        key = (id(part), groups)
        if key in self._last and self._last[key][0] is part:
            return self._last[key][1:]
        ok = self.depth > 0
        if part is self.prep:
            row = np.where(ok, self._end - 1, 0)
            idx = part.gid[row] if groups and len(part.gid) else row
        else:
            if groups:
                stop = part.offsets[part.g_seg] + part.g_start + part.g_size
                owner = part.g_seg
            else:
                stop = part.offsets[part.seg] + part.pos
                owner = part.seg
            idx = np.searchsorted(stop, self._end, side="right") - 1
            ok = idx >= 0
            idx = np.where(ok, idx, 0)
            if len(owner):
                ok &= owner[idx] == self.seg
            else:
                ok[:] = False
        self._last[key] = (part, idx, ok)
        return idx, ok

    def at(self, part: Prepared, values: np.ndarray, groups: bool, empty: float = 0.0):
        """Per cut, the entry of ``values`` (per row or per tie group of ``part``) at the last
        one inside the prefix; ``empty`` where the prefix holds none."""
        idx, ok = self.last(part, groups)
        if not len(values):
            return np.full(len(self), empty)
        return np.where(ok, values[idx], empty)

    def running(self, part: Prepared, values) -> np.ndarray:
        """Per cut, the sum of a per-row array of ``part`` over the rows inside the prefix."""
        offsets = np.searchsorted(part.seg, np.arange(part.n_segments + 1))
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), part.seg.shape)
        return self.at(part, restarting_cumsum(values, offsets), groups=False)

    def running_groups(self, part: Prepared, values) -> np.ndarray:
        """Per cut, the sum of a per-group array of ``part`` over the groups of the prefix."""
        offsets = np.searchsorted(part.g_seg, np.arange(part.n_segments + 1))
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), part.g_seg.shape)
        return self.at(part, restarting_cumsum(values, offsets), groups=True)

    def ranking(self, values: np.ndarray) -> np.ndarray:
        """A per-ranking array read at each cut."""
        return np.asarray(values)[self.seg]

    def reached(self, depth) -> np.ndarray:
        """Prefixes of length ≥ ``depth`` (the terminal metrics' depth=; none for None)."""
        if depth is None:
            return np.zeros(len(self), dtype=bool)
        return self.depth >= depth


# --------------------------------------------------------------------------- standard
def _relevant_retrieved(c: Cuts, level: float, k=None) -> np.ndarray:
    part = c.prep.judged_part()
    return c.running(part, part.group_mean(part.relevant(level)) * in_cut(part, k))


@prefix_of(standard.precision)
def precision(c: Cuts, level, k=None):
    num = _relevant_retrieved(c, level, k)
    return safe_div(num, c.n) if k is None else num / k


@prefix_of(standard.recall)
def recall(c: Cuts, level, k=None):
    return safe_div(_relevant_retrieved(c, level, k), c.ranking(c.prep.num_relevant(level)))


@prefix_of(standard.f1)
def f1(c: Cuts, level, k=None):
    num = 2.0 * _relevant_retrieved(c, level, k)
    den = (c.depth if k is None else np.full(len(c), k)) + c.ranking(c.prep.num_relevant(level))
    return safe_div(num, den.astype(np.float64))


@prefix_of(standard.success)
def success(c: Cuts, level, k=None):
    part = c.prep.judged_part()
    r_g = part.group_sum(part.relevant(level))
    if k is None:
        return (c.running_groups(part, r_g > 0) > 0).astype(float)
    end = part.g_start + part.g_size
    full = end <= k
    hit_full = c.running_groups(part, full & (r_g > 0)) > 0
    cut = np.flatnonzero((part.g_start < k) & ~full)  # at most one group per ranking
    p_hit = np.zeros(part.n_groups)
    if cut.size:
        n, r = part.g_size[cut], r_g[cut].astype(np.int64)
        s = k - part.g_start[cut]
        p_hit[cut] = 1.0 - comb_ratio(n - r, s, n, s, log_factorials(int(n.max())))
    return np.where(hit_full, 1.0, c.running_groups(part, p_hit))


@prefix_of(standard.ap)
def ap(c: Cuts, level, k=None):
    part = c.prep.judged_part()
    terms = standard.precision_terms(part, part.relevant(level)) * in_cut(part, k)
    return safe_div(c.running(part, terms), c.ranking(c.prep.num_relevant(level)))


def _any_relevant(c: Cuts, level) -> np.ndarray:
    part = c.prep.judged_part()
    return c.running(part, part.relevant(level)) > 0


@prefix_of(standard.rr)
def rr(c: Cuts, level, k=None):
    # a prefix holds the first group with a relevant document whole, or none of it
    return np.where(_any_relevant(c, level), c.ranking(standard.rr(c.prep, level, k)), 0.0)


def _dcg(c: Cuts, k, gains, log_base=2.0, min_grade=None) -> np.ndarray:
    part = c.prep.judged_part()
    g = part.group_mean(standard.gain_values(part.grade, gains, min_grade))
    return c.running(part, g * _kernels.discount(part.pos, log_base) * in_cut(part, k))


@prefix_of(standard.dcg)
def dcg(c: Cuts, level, k=None, gains=None, log_base=2.0, min_grade=None):
    return _dcg(c, k, gains, log_base, min_grade)


@prefix_of(standard.ndcg)
def ndcg(c: Cuts, level, k=None, gains=None, log_base=2.0, min_grade=None):
    ideal = standard.ideal_dcg(c.prep, k, gains, log_base, min_grade)
    return safe_div(_dcg(c, k, gains, log_base, min_grade), c.ranking(ideal))


@prefix_of(standard.rprec)
def rprec(c: Cuts, level):
    R = c.prep.num_relevant(level)
    part = c.prep.judged_part()
    inside = (part.pos <= R[part.seg]).astype(np.float64)
    num = c.running(part, part.group_mean(part.relevant(level)) * inside)
    return safe_div(num, c.ranking(R))


@prefix_of(standard.bpref)
def bpref(c: Cuts, level):
    part, terms = standard.bpref_terms(c.prep, level)
    return safe_div(c.running_groups(part, terms), c.ranking(c.prep.num_relevant(level)))


@prefix_of(standard.rbp)
def rbp(c: Cuts, level, p=0.8, graded=False, max_grade=None):
    part = c.prep.judged_part()
    gain = part.group_mean(standard.rbp_gain(part, level, graded, max_grade))
    return (1.0 - p) * c.running(part, gain * rbp_weights(part, p))


@prefix_of(standard.rbp_residual)
def rbp_residual(c: Cuts, level, p=0.8):
    part, weight, end = standard.residual_parts(c.prep, p)
    known = c.running_groups(part, weight)
    last = c.at(part, end, groups=True, empty=0).astype(np.int64)
    return np.power(p, c.n) + (known + standard.rbp_band(p, last, c.depth - last))


# --------------------------------------------------------------------------- terminal
@prefix_of(terminal.rr_prime)
def rr_prime(c: Cuts, level, depth=None):
    hit = _any_relevant(c, level)
    r_t = terminal.terminal_gain(np.zeros(len(c)), c.ranking(c.prep.num_relevant(level)))
    tail = np.where(hit | c.reached(depth), 0.0, r_t / (c.n + 1.0))
    return rr(c, level) + tail


@prefix_of(terminal.rbp_prime)
def rbp_prime(c: Cuts, level, p=0.8, graded=False, max_grade=None, depth=None):
    part = c.prep.judged_part()  # unjudged documents gain nothing
    g, pool = terminal.gains_and_pool(part, level, graded, max_grade)
    head = (1.0 - p) * c.running(part, part.group_mean(g) * rbp_weights(part, p))
    r_t = terminal.terminal_gain(c.running(part, g), c.ranking(pool))
    tail = r_t * np.power(p, c.n)
    return head + np.where(c.reached(depth), 0.0, tail)


@prefix_of(terminal.ndcg_prime)
def ndcg_prime(c: Cuts, level, graded=False, max_grade=None, depth=None):
    part = c.prep.judged_part()
    g, pool = terminal.gains_and_pool(part, level, graded, max_grade)
    q_gain = terminal.judged_gains(c.prep, level, graded, max_grade)
    dcg_ = c.running(part, part.group_mean(g) * discount(part.pos))
    r_t = terminal.terminal_gain(c.running(part, g), c.ranking(pool))
    full = c.reached(depth)
    num = dcg_ + np.where(full, 0.0, r_t / np.log2(c.n + 2.0))
    q = c.ranking(c.prep.seg_q)
    den = np.where(full, terminal.ideal_at(c.prep, q_gain, q, c.depth, False),
                   terminal.ideal_at(c.prep, q_gain, q, c.depth + 1, True))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


@prefix_of(terminal.ap_prime)
def ap_prime(c: Cuts, level, graded=False, max_grade=None, depth=None):
    part = c.prep.judged_part()
    g, pool = terminal.gains_and_pool(part, level, graded, max_grade)
    pool = c.ranking(pool)
    head = c.running(part, standard.precision_terms(part, g))
    got = c.running(part, g)
    r_t = terminal.terminal_gain(got, pool)
    truncated = head + r_t * (got + r_t) / (c.n + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        plain = np.where(pool > 0, head / np.where(pool > 0, pool, 1.0), 0.0)
    return np.where(c.reached(depth), plain, truncated / (pool + 1.0))


# --------------------------------------------------------------------------- cascade
def _err(c: Cuts, max_grade, k=None) -> np.ndarray:
    part = c.prep.judged_part()  # as the kernel: unjudged documents never stop the user
    stop, _ = cascade.cascade(part, max_grade)
    w = 1.0 / part.pos
    if k is not None:
        w = np.where(part.pos <= k, w, 0.0)
    return c.running(part, stop * w)


@prefix_of(cascade.err)
def err(c: Cuts, level, k=None, max_grade=None):
    return _err(c, max_grade, k)


@prefix_of(cascade.err_prime)
def err_prime(c: Cuts, level, graded=False, max_grade=None, depth=None):
    part = c.prep.judged_part()
    through = c.at(part, cascade.passed_groups(part, max_grade), groups=True, empty=1.0)
    g, pool = terminal.gains_and_pool(part, level, graded, max_grade)
    r_t = terminal.terminal_gain(c.running(part, g), c.ranking(pool))
    tail = r_t * through / (c.n + 1.0)
    return _err(c, max_grade) + np.where(c.reached(depth), 0.0, tail)


@prefix_of(cascade.rbu)
def rbu(c: Cuts, level, p=0.8, e=0.05, max_grade=None):
    part = c.prep.judged_part()
    stop, _ = cascade.cascade(part, max_grade)
    gain = (1.0 - p) * c.running(part, stop * rbp_weights(part, p))
    return gain - e * (1.0 - np.power(p, c.n))


@prefix_of(cascade.erru)
def erru(c: Cuts, level, e=0.05, max_grade=None):
    return _err(c, max_grade) - e * cascade._harmonic(c.depth)


# --------------------------------------------------------------------------- utility
def _utility(c: Cuts, level, weight, e, graded, max_grade) -> np.ndarray:
    return c.running(c.prep, utility.utility_terms(c.prep, level, weight, e, graded, max_grade))


@prefix_of(utility.flat_utility)
def flat_utility(c: Cuts, level, e=0.05, graded=False, max_grade=None):
    return _utility(c, level, np.ones(len(c.prep.seg)), e, graded, max_grade)


@prefix_of(utility.dcgu)
def dcgu(c: Cuts, level, e=0.05, graded=False, max_grade=None):
    return _utility(c, level, discount(c.prep.pos), e, graded, max_grade)


@prefix_of(utility.rbpu)
def rbpu(c: Cuts, level, p=0.8, e=0.05, graded=False, max_grade=None):
    return (1.0 - p) * _utility(c, level, rbp_weights(c.prep, p), e, graded, max_grade)


@prefix_of(utility.f_measure)
def f_measure(c: Cuts, level):
    part = c.prep.judged_part()
    got = c.running(part, part.relevant(level))
    den = c.depth + c.ranking(c.prep.num_relevant(level))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 2.0 * got / np.where(den > 0, den, 1), 1.0)


# --------------------------------------------------------------------------- counts, sets
@prefix_of(counts.num_ret)
def num_ret(c: Cuts, level):
    return c.n.copy()


@prefix_of(counts.num_q)
def num_q(c: Cuts, level):
    return np.ones(len(c))


@prefix_of(counts.num_rel)
def num_rel(c: Cuts, level):
    return c.ranking(c.prep.num_relevant(level)).astype(np.float64)


@prefix_of(counts.num_rel_ret)
def num_rel_ret(c: Cuts, level, k=None):
    return _relevant_retrieved(c, level, k)


@prefix_of(counts.num_nonrel_judged_ret)
def num_nonrel_judged_ret(c: Cuts, level):
    part = c.prep.judged_part()
    with np.errstate(invalid="ignore"):
        nonrel = ((part.grade >= 0) & (part.grade < level)).astype(np.float64)
    return c.running(part, nonrel)


@prefix_of(counts.judged)
def judged(c: Cuts, level, k=None):
    part = c.prep.judged_part()
    is_judged = (~np.isnan(part.grade)).astype(np.float64)
    num = c.running(part, part.group_mean(is_judged) * in_cut(part, k))
    den = c.depth if k is None else np.minimum(c.depth, k)
    return safe_div(num, den.astype(np.float64))


@prefix_of(counts.unjudged)
def unjudged(c: Cuts, level, k=None):
    prep = c.prep
    unj = (np.isnan(prep.grade) | (prep.grade < 0)).astype(np.float64)
    num = c.running(prep, prep.group_mean(unj) * in_cut(prep, k))
    return safe_div(num, c.n) if k is None else num / k


@prefix_of(sets.set_precision)
def set_precision(c: Cuts, level):
    return precision(c, level)


@prefix_of(sets.set_recall)
def set_recall(c: Cuts, level):
    return recall(c, level)


@prefix_of(sets.set_f)
def set_f(c: Cuts, level, beta=1.0):
    return sets.f_of_counts(_relevant_retrieved(c, level),
                            c.ranking(c.prep.num_relevant(level)).astype(np.float64), c.n, beta)


@prefix_of(sets.set_ap)
def set_ap(c: Cuts, level):
    a = _relevant_retrieved(c, level)
    R = c.ranking(c.prep.num_relevant(level))
    den = (c.depth * R).astype(np.float64)
    empty = (c.depth == 0) & (R > 0)
    return np.where(empty, 0.0, safe_div(a * a, den))


@prefix_of(sets.set_relative_precision)
def set_relative_precision(c: Cuts, level):
    den = np.minimum(c.depth, c.ranking(c.prep.num_relevant(level))).astype(np.float64)
    return safe_div(_relevant_retrieved(c, level), den)


@prefix_of(sets.relative_precision)
def relative_precision(c: Cuts, level, k=None):
    R = c.ranking(c.prep.num_relevant(level))
    cap = c.depth if k is None else np.full(len(c), k)
    out = safe_div(_relevant_retrieved(c, level, k), np.minimum(cap, R).astype(np.float64))
    return np.where(R > 0, out, np.nan)


@prefix_of(interpolated.rprec_mult)
def rprec_mult(c: Cuts, level, mult=1.0):
    R = c.prep.num_relevant(level)
    k = np.floor(mult * R + 0.9)
    part = c.prep.judged_part()
    inside = (part.pos <= k[part.seg]).astype(np.float64)
    num = c.running(part, part.group_mean(part.relevant(level)) * inside)
    return np.where(c.ranking(R) > 0, safe_div(num, c.ranking(k)), np.nan)


# --------------------------------------------------------------------------- trec_eval's
@prefix_of(trec_only.utility)
def trec_utility(cuts: Cuts, level, a=1.0, b=-1.0, c=0.0, d=0.0, collection_size=0):
    part = cuts.prep.judged_part()
    rel = cuts.running(part, part.relevant(level))
    n = cuts.n
    R = cuts.ranking(cuts.prep.num_relevant(level))
    return a * rel + b * (n - rel) + c * (R - rel) + d * (collection_size + rel - n - R)


@prefix_of(trec_only.binary_g)
def binary_g(c: Cuts, level):
    prep = c.prep
    rel = prep.relevant(level)
    if prep.singleton_groups:
        nonrel_above = before_row(prep, 1.0 - rel)
        term = np.where(rel > 0, 1.0 / np.log2(2.0 + nonrel_above), 0.0)
        total = c.running(prep, term)
    else:
        r_g = prep.group_sum(rel)
        u_g = prep.g_size - r_g
        nonrel_before = prep.before_group(u_g)
        F = trec_only._f_prefix(int(prep.length.max()) if prep.n_segments and len(prep.seg)
                                else 0)
        lo = nonrel_before.astype(np.int64)
        hi = (nonrel_before + u_g).astype(np.int64)
        total = c.running_groups(prep, r_g * ((F[hi + 1] - F[lo]) / (u_g + 1.0)))
    return safe_div(total, c.ranking(prep.num_relevant(level)))


@prefix_of(trec_only.trec_rbp)
def trec_rbp(c: Cuts, level, p=0.9, gains=None):
    part = c.prep.judged_part()  # unjudged documents gain nothing
    g = part.group_mean(trec_only._normalised_gains(part, gains))
    return (1.0 - p) * c.running(part, g * rbp_weights(part, p))


@prefix_of(trec_only.trec_rbp_residual)
def trec_rbp_residual(c: Cuts, level, p=0.9, gains=None):
    prep = c.prep
    unjudged_ = (~(prep.grade >= 0)).astype(np.float64)
    value = np.power(p, c.n) + (1.0 - p) * c.running(
        prep, prep.group_mean(unjudged_) * rbp_weights(prep, p))
    return np.where(c.running(prep, unjudged_) > 0, value, 0.0)
