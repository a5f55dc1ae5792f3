"""Twist (Ferro, Silvello, Keskustalo, Pirkola & Järvelin): relative position RP, cumulated
relative position CRP, recovery ratio ρ, space ratios σ⁺ σ⁻ σ and Twist τ (Definitions 1–6),
and the run archetypes of the paper's Figures 3–6. Where the paper is ambiguous we
follow the authors' MATTERS implementation (twist.m).

Per query, with relevant ⇔ grade ≥ relevance_level and RB = R (the recall base):

* Ideal intervals (Definition 15): a relevant grade g occupies ranks min(g) = 1 + #(judged
  documents with grade > g) to max(g) = #(judged with grade ≥ g) of the ideal run;
  non-relevant and unjudged documents have min = RB + 1 and no upper end.
* RP (Definition 1) of the document at rank j: 0 inside its interval, j − min above it
  (negative: a less relevant document where better ones were expected), j − max below it
  (positive). We keep the two parts apart: fwd_j = (j − max)⁺ and bwd_j = (min − j)⁺, so
  RP_j = fwd_j − bwd_j. CRP (Definition 2) is the running sum of RP.
* Run length L: the ranking's own length n, or ``depth=N``, which pads a shorter ranking with
  non-relevant documents and cuts a longer one to N, as MATTERS does (it uses N = 1000).
  The metrics never materialise the padding beyond what can matter: a padding document at
  rank j > n has fwd_j = 0 and bwd_j = (RB + 1 − j)⁺, so from rank max(n, RB) + 1 on RP is 0
  and CRP constant, and every ranking is stored over L_eff = min(L, max(n, RB) + 1) ranks
  (the sums, the first crossing and the archetype are those of the full curve); the
  full-scale run's forward space comes from its min(L, RB) relevant documents alone. Memory
  is bounded by the rows retrieved and the judged documents, whatever ``depth`` is. Only the
  long CRP frame (``run.ir.crp``), one row per rank by definition, has L rows per ranking.
* Recovery ratio ρ (Definition 3, MATTERS semantics): a rank is "up" if CRP > 0 and "down"
  if CRP ≤ 0; the first crossing x is the first j with class(j) ≠ class(j+1), β = max(RB, x),
  ρ = RB / β. No crossing: ρ = 1 if CRP is 0 at every rank, else 0. (CRP₁ ≤ 0 always, so the
  first crossing goes up.)
* Space ratios (Definitions 4–5): s⁺ = Σ fwd_j, s⁻ = Σ bwd_j, σ± = 1 − s± / s±max, where
  s±max is the largest space a run of the same length L can have: s⁻max is the worst run's,
  Σ_{j ≤ min(L, RB)} (RB + 1 − j); s⁺max the full-scale run's (the ideal run reversed, of
  length L: non-relevant documents, then the best min(L, RB) relevant ones in increasing
  grade). For L ≥ 2·RB these are the paper's full-scale spaces; for shorter (truncated)
  rankings they keep σ± in [0, 1]. A maximum space of 0 gives a ratio of 1. σ is the
  harmonic mean of σ⁺ and σ⁻ (0 when either is 0), τ = (ρ + σ) / 2 (Definition 6).
* R = 0: every quantity is undefined (0 by default, NaN/null with ``undefined="nan"``; the
  CRP frame's rp and crp are null). An empty ranking (n = 0 and no ``depth``)
  with R > 0 is scored as the worst run, which is what ``depth=`` makes of it: ρ = 0,
  σ⁻ = 0, σ = 0, τ = 0, σ⁺ = 1 (and its archetype is "worst").

Ties (``ties="average"``): fwd_j and bwd_j are replaced by their means over the documents of
the tie group (the expected value at rank j under a uniform order). RP, CRP, s⁺, s⁻, σ⁺ and
σ⁻ are linear in them, so their tie-aware values are exact. ρ (a first crossing), σ (a
harmonic mean of two dependent ratios) and τ are not linear and have no closed-form mean
over tie orders, so they (and the archetypes) raise a ValueError under ``ties="average"``
when a tie group holds documents of different grades (ties among equally graded documents
change nothing and are accepted); pass ``ties="first"`` or ``ties="trec_eval"``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from trunc_accessor.core.prepared import Prepared, build
from trunc_accessor.metrics._order import mixed_groups
from trunc_accessor.metrics._order import require_order_free as order_free
from trunc_accessor.metrics.params import Param, check_k
from trunc_accessor.metrics.registry import register

FERRO = ("Ferro, Silvello, Keskustalo, Pirkola & Järvelin, 'The Twist measure for IR "
         "evaluation: taking user's effort into account', JASIST 2016")
DEPTH = Param("depth", None, check_k,
              "run length N: a shorter ranking is padded with non-relevant documents and a "
              "longer one cut to N, as MATTERS does (it uses 1000); None: the ranking's length")
UNDEFINED = ("Undefined when R = 0 (no recall base). "
             "An empty ranking with R > 0 is the worst run: ρ = σ⁻ = σ = τ = 0, σ⁺ = 1.")
ARCHETYPES = ("ideal", "worst", "full-scale", "excellent", "ups-and-downs", "typical A",
              "typical B")
CRP_SCHEMA = {"position": pl.Int64, "grade": pl.Float64, "rp": pl.Float64, "crp": pl.Float64}
ARCHETYPE_SCHEMA = {"archetype": pl.String, "recall_base": pl.Int64, "length": pl.Int64,
                    "crossing": pl.Int64}


# --------------------------------------------------------------------------- curves
def _intervals(prep: Prepared, level: float, q_index: np.ndarray, grades: np.ndarray):
    """(min, max) rank of each grade in its query's ideal run (Definition 15; MATTERS' twist.m):
    relevant grade g: 1 + #(judged > g) and #(judged ≥ g); non-relevant or unjudged (NaN):
    RB + 1 and +∞. ``q_index``: the qid index of each grade."""
    with np.errstate(invalid="ignore"):
        rel = grades >= level
        q_rel = prep.q_grades >= level
    rb = np.bincount(prep.q_seg, weights=q_rel, minlength=len(prep.q_offsets) - 1)
    lo = rb[q_index] + 1.0
    hi = np.full(len(grades), np.inf)
    if rel.any():
        # (qid, grade code) keys of the judged relevant documents, sorted: counts by search
        values = np.unique(prep.q_grades[q_rel])
        K = len(values)
        judged = np.sort(prep.q_seg[q_rel] * K + np.searchsorted(values, prep.q_grades[q_rel]))
        q = q_index[rel]
        key = q * K + np.searchsorted(values, grades[rel])
        end = np.searchsorted(judged, (q + 1) * K)
        lo[rel] = 1 + end - np.searchsorted(judged, key, side="right")
        hi[rel] = end - np.searchsorted(judged, key)
    return lo, hi


def _expected_hinge(prep: Prepared, t: np.ndarray, above: bool) -> np.ndarray:
    """Per row at rank j, the mean over the documents d of its tie group of (j − t_d)⁺
    (forward misplacement, t = max), or with ``above`` of (t_d − j)⁺ (backward, t = min):
    the expected misplacement at rank j under a uniform order of the group. Thresholds are
    sorted per group with prefix sums (O(N log N), any number of grades)."""
    j = prep.pos.astype(np.float64)
    if prep.singleton_groups:
        return np.maximum(t - j, 0.0) if above else np.maximum(j - t, 0.0)
    cap = float(j.max()) + 1.0  # a threshold beyond every rank compares like any other
    gid = prep.gid.astype(np.float64)
    key = gid * (cap + 1.0) + np.minimum(t, cap)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    cum = np.concatenate([[0.0], np.cumsum(np.where(np.isfinite(t), t, 0.0)[order])])
    size = prep.g_size[prep.gid]
    first = (np.cumsum(prep.g_size) - prep.g_size)[prep.gid]
    last = first + size
    probe = gid * (cap + 1.0) + j
    if above:  # Σ_{t_d > j} (t_d − j)
        k = np.searchsorted(sorted_key, probe, side="right")
        total = cum[last] - cum[k] - j * (last - k)
    else:      # Σ_{t_d < j} (j − t_d)
        k = np.searchsorted(sorted_key, probe, side="left")
        total = j * (k - first) - (cum[k] - cum[first])
    return total / size


@dataclass(frozen=True)
class Curves:
    """RP and CRP of every ranking over its first ``stored`` ranks (after ``depth``): one
    entry per stored rank, segments contiguous, ranks ascending. ``length`` is the run
    length L; ``stored`` is L, or with compression L_eff = min(L, max(n, RB) + 1) (RP is 0
    beyond, CRP constant: module doc). ``src``: the Prepared row at that rank (−1 for a
    padding document)."""

    seg: np.ndarray
    pos: np.ndarray
    src: np.ndarray
    fwd: np.ndarray
    bwd: np.ndarray
    crp: np.ndarray
    length: np.ndarray
    stored: np.ndarray
    rb: np.ndarray

    @property
    def rp(self) -> np.ndarray:
        return self.fwd - self.bwd

    @property
    def compressed(self) -> np.ndarray:
        """Per segment: fewer ranks stored than the run length L."""
        return self.stored < self.length

    def grade(self, prep: Prepared) -> np.ndarray:
        """The grade at each rank (NaN: unjudged or padding)."""
        return np.append(prep.grade, np.nan)[self.src]

    def seg_sum(self, values) -> np.ndarray:
        return np.bincount(self.seg, weights=np.asarray(values, dtype=np.float64),
                           minlength=len(self.length))


def curves(prep: Prepared, level: float, depth=None, compress: bool = True) -> Curves:
    """RP (as its forward and backward parts) and CRP of every ranking (Definitions 1–2),
    tie-aware, padded with non-relevant documents or cut to ``depth``. With ``compress``
    (the metrics) a ranking is stored over its first L_eff = min(L, max(n, RB) + 1) ranks
    only, since RP is 0 beyond (module doc): O(n + RB) entries per ranking whatever
    ``depth``; without (the long CRP frame) over all L ranks."""
    rb = prep.num_relevant(level)
    lo, hi = _intervals(prep, level, prep.seg_q[prep.seg], prep.grade)
    fwd = _expected_hinge(prep, hi, above=False)
    bwd = _expected_hinge(prep, lo, above=True)
    n = prep.length
    length = n if depth is None else np.full_like(n, depth)
    stored = length
    if compress:
        stored = np.minimum(length, np.maximum(n, rb.astype(np.int64)) + 1)
    keep = np.flatnonzero(prep.pos <= stored[prep.seg])
    pad = np.maximum(stored - n, 0)
    pad_seg = np.repeat(np.arange(prep.n_segments), pad)
    pad_pos = n[pad_seg] + 1 + np.arange(len(pad_seg)) - (np.cumsum(pad) - pad)[pad_seg]
    seg = np.concatenate([prep.seg[keep], pad_seg])
    order = np.argsort(seg, kind="stable")  # kept ranks, then padding, per segment
    seg = seg[order]
    pos = np.concatenate([prep.pos[keep], pad_pos])[order]
    src = np.concatenate([keep, np.full(len(pad_seg), -1)])[order]
    fwd = np.concatenate([fwd[keep], np.zeros(len(pad_seg))])[order]
    bwd = np.concatenate([bwd[keep], np.maximum(rb[pad_seg] + 1.0 - pad_pos, 0.0)])[order]
    # a running sum restarting at each ranking (not one sum over all rankings minus each
    # ranking's start: its last bits would depend on which rankings share the call)
    crp = (pl.DataFrame({"seg": seg, "rp": fwd - bwd})
           .select(pl.col("rp").cum_sum().over("seg")).to_series().to_numpy())
    return Curves(seg=seg, pos=pos, src=src, fwd=fwd, bwd=bwd, crp=crp,
                  length=length, stored=stored, rb=rb)


def _best_relevant(prep: Prepared, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Each qid's judged relevant grades, best first (all qids concatenated), and the index
    where each qid's grades start in that array."""
    with np.errstate(invalid="ignore"):
        q_rel = prep.q_grades >= level
    qs, grades = prep.q_seg[q_rel], prep.q_grades[q_rel]
    order = np.lexsort((-grades, qs))
    q_first = np.searchsorted(qs[order], np.arange(len(prep.q_offsets) - 1))
    return grades[order], q_first


def full_scale(prep: Prepared, level: float, length: np.ndarray) -> Prepared:
    """The full-scale run of each ranking (Definition 14, extended to any length L): its
    query's ideal run reversed, of length L: non-relevant documents, then the best
    min(L, RB) judged relevant ones in increasing grade. Materialises L rows per ranking:
    the metrics use ``full_scale_forward_space`` and build it only where L is small."""
    best, q_first = _best_relevant(prep, level)
    k = np.minimum(length, prep.num_relevant(level)).astype(np.int64)
    seg = np.repeat(np.arange(prep.n_segments), length)
    from_end = (np.cumsum(length) - 1)[seg] - np.arange(len(seg))  # 0 at the last rank
    rel = from_end < k[seg]
    grade = np.full(len(seg), np.nan)
    grade[rel] = best[q_first[prep.seg_q[seg[rel]]] + from_end[rel]]
    return build(prep.keys, prep.seg_q, seg, grade, None, prep.q_offsets, prep.q_grades,
                 prep.max_grade, "first")


def full_scale_forward_space(prep: Prepared, level: float, length: np.ndarray) -> np.ndarray:
    """s⁺max of each ranking: the forward space Σ_j (j − max_j)⁺ of its full-scale run of
    length L (``full_scale``). Only its k = min(L, RB) relevant documents, at ranks
    L − k + 1 … L, have a forward part (a non-relevant document has max = +∞), so this
    costs O(Σ k) whatever L (same terms, same order as summing the materialised run)."""
    best, q_first = _best_relevant(prep, level)
    k = np.minimum(length, prep.num_relevant(level).astype(np.int64))
    seg = np.repeat(np.arange(prep.n_segments), k)
    from_end = (np.cumsum(k) - 1)[seg] - np.arange(len(seg))  # k − 1 … 0: ranks ascending
    q_index = prep.seg_q[seg]
    grade = best[q_first[q_index] + from_end]
    _, hi = _intervals(prep, level, q_index, grade)
    rank = (length[seg] - from_end).astype(np.float64)
    return np.bincount(seg, weights=np.maximum(rank - hi, 0.0), minlength=prep.n_segments)


def with_full_scale(prep: Prepared, level: float, depth=None) -> tuple[Curves, np.ndarray]:
    """The (compressed) curves of every ranking and the forward space s⁺max of its
    full-scale run of the same length (cached on the preparation: ``evaluate`` asking for
    several Twist metrics computes them once). Memory O(rows + Σ RB), whatever ``depth``."""
    key = ("twist", level, depth)
    if key not in prep._cache:
        c = curves(prep, level, depth)
        prep._cache[key] = c, full_scale_forward_space(prep, level, c.length)
    return prep._cache[key]


# --------------------------------------------------------------------------- ratios
def require_order_free(prep: Prepared, level: float, name: str, depth=None) -> None:
    """ρ, σ, τ and the archetypes are exact only when no tie group (within the first
    ``depth`` ranks of a query with R > 0) holds documents of different grades; raise
    otherwise (module doc)."""
    if prep.ties != "average" or prep.singleton_groups:
        return
    with np.errstate(invalid="ignore"):
        grade_class = np.where(prep.grade >= level, prep.grade, -np.inf)
    mixed = mixed_groups(prep, grade_class)
    mixed &= prep.num_relevant(level)[prep.g_seg] > 0  # R = 0: undefined anyway
    if depth is not None:
        mixed &= prep.g_start < depth
    order_free(prep, mixed, name, f"{name} is not linear in RP (it depends on where CRP first "
               "crosses zero, or on a harmonic mean)",
               also="CRP (run.ir.crp), space_ratio_plus and space_ratio_minus are exact under "
                    "ties='average'.")


def _ratio(space: np.ndarray, max_space: np.ndarray) -> np.ndarray:
    """1 − space / max_space; 1 when the maximum space is 0 (nothing could go wrong)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(max_space > 0, 1.0 - space / np.where(max_space > 0, max_space, 1.0), 1.0)


def crossings(c: Curves) -> np.ndarray:
    """The first crossing x of each CRP curve (MATTERS: the first j whose class, up if
    CRP > 0 else down, differs from rank j + 1's); +∞ when there is none."""
    up = c.crp > 0
    change = np.flatnonzero((up[1:] != up[:-1]) & (c.seg[1:] == c.seg[:-1]))
    segs, first = np.unique(c.seg[change], return_index=True)
    x = np.full(len(c.length), np.inf)
    x[segs] = c.pos[change[first]]
    return x


def _parts(prep: Prepared, level: float, depth) -> dict[str, np.ndarray]:
    """ρ, σ⁺, σ⁻, σ, τ of every ranking (Definitions 3–6), NaN where R = 0."""
    c, plus_max = with_full_scale(prep, level, depth)
    k = np.minimum(c.length, c.rb)
    sigma_plus = _ratio(c.seg_sum(c.fwd), plus_max)
    sigma_minus = _ratio(c.seg_sum(c.bwd), k * (c.rb + 1.0) - k * (k + 1.0) / 2.0)
    sigma_minus = np.where(c.length == 0, 0.0, sigma_minus)  # the empty ranking: worst run
    x = crossings(c)
    flat = (c.seg_sum(c.crp != 0) == 0) & (c.length > 0)
    rho = np.where(np.isfinite(x), c.rb / np.maximum(c.rb, np.where(np.isfinite(x), x, 1.0)),
                   np.where(flat, 1.0, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        both = sigma_plus + sigma_minus
        sigma = np.where(both > 0, 2.0 * sigma_plus * sigma_minus / np.where(both > 0, both, 1.0),
                         0.0)
    parts = {"rho": rho, "sigma_plus": sigma_plus, "sigma_minus": sigma_minus, "sigma": sigma,
             "tau": (rho + sigma) / 2.0}
    return {name: np.where(c.rb > 0, v, np.nan) for name, v in parts.items()}


def _exact_part(prep: Prepared, level: float, depth, name: str, part: str) -> np.ndarray:
    require_order_free(prep, level, name, depth)
    return _parts(prep, level, depth)[part]


@register("twist", params=(DEPTH,), aliases=("tau",), undefined=UNDEFINED,
          citation=FERRO + ", Definition 6 (crossings and normalisers as the authors' MATTERS "
          "toolkit, twist.m).",
          ties=("Refused when a tie group holds documents of different grades (within the first "
                "depth ranks of a query with R > 0): a first crossing and a harmonic mean have no "
                "closed-form mean over orders; pass ties='first' or 'trec_eval'. Ties among "
                "equally graded documents change nothing and are accepted."))
def twist(prep: Prepared, level: float, depth=None) -> np.ndarray:
    """Twist τ = (ρ + σ) / 2: the mean of the recovery ratio and the space ratio, in [0, 1];
    1 for the ideal run, 0 for the worst one, below 1/4 for the full-scale run of length
    N ≥ 3·RB (exactly 1/4 for RB = 1, N = 3: Proposition 3's proof is one rank off) and
    below 1/2 for runs whose CRP never turns positive (Ferro et al. Definition 6, Figure 6). It
    measures the avoidable effort the ranking's misplaced documents cause, not the gain: pair it
    with a gain metric (``trunc_accessor.plot.effort_gain``).

    Ties: under ties='average' (the default) τ raises a ValueError when a tie group holds
    documents of different grades (no closed-form mean over tie orders): pass ties='first'
    or ties='trec_eval'. Ties among equally graded documents are fine.

    A truncated ranking (n < RB) is judged on the ranks it shows: stopping early is not
    penalised unless ``depth=`` pads it with non-relevant documents.

    >>> from trunc_accessor.frontends.single import twist
    >>> round(twist([0, 1, 0, 1, 0, 0, 1, 0], R=3), 6)  # ρ = 1/2, σ = 14/33
    0.462121
    >>> twist([1, 1, 0, 0], R=2), twist([0, 0, 0, 0], R=2)  # the ideal and the worst run
    (1.0, 0.0)
    """
    return _exact_part(prep, level, depth, "twist", "tau")


@register("recovery_ratio", params=(DEPTH,), aliases=("rho",), undefined=UNDEFINED,
          citation=FERRO + ", Definition 3 (crossings as the authors' MATTERS toolkit, twist.m).",
          ties=("Refused when a tie group holds documents of different grades (within the first "
                "depth ranks of a query with R > 0): a first crossing and a harmonic mean have no "
                "closed-form mean over orders; pass ties='first' or 'trec_eval'. Ties among "
                "equally graded documents change nothing and are accepted."))
def recovery_ratio(prep: Prepared, level: float, depth=None) -> np.ndarray:
    """Recovery ratio ρ = RB / β, β = max(RB, x), x the first crossing of the CRP curve:
    the first rank j whose class (up if CRP > 0, down if CRP ≤ 0) differs from rank j + 1's
    (MATTERS' reading of Definition 3). No crossing: 1 if CRP is 0 at every rank (the ideal
    run), else 0 (the worst run, and runs whose CRP never turns positive).

    Ties: under ties='average' (the default) ρ raises a ValueError when a tie group holds
    documents of different grades (no closed-form mean over tie orders): pass ties='first'
    or ties='trec_eval'. Ties among equally graded documents are fine.

    >>> from trunc_accessor.frontends.single import recovery_ratio
    >>> recovery_ratio([0, 1, 0, 1, 0, 0, 1, 0], R=3)  # CRP −3 −3 −4 −3 −3 −3 1 1: x = 6
    0.5
    """
    return _exact_part(prep, level, depth, "recovery_ratio", "rho")


@register("space_ratio", params=(DEPTH,), aliases=("sigma",), undefined=UNDEFINED,
          citation=FERRO + ", Definition 5 (normalisers extended to any run length).",
          ties=("Refused when a tie group holds documents of different grades (within the first "
                "depth ranks of a query with R > 0): a first crossing and a harmonic mean have no "
                "closed-form mean over orders; pass ties='first' or 'trec_eval'. Ties among "
                "equally graded documents change nothing and are accepted."))
def space_ratio(prep: Prepared, level: float, depth=None) -> np.ndarray:
    """Space ratio σ = 2σ⁺σ⁻ / (σ⁺ + σ⁻), the harmonic mean of the forward and backward
    space ratios (0 when either is 0), in [0, 1] (Ferro et al. Definition 5).

    Ties: under ties='average' (the default) σ raises a ValueError when a tie group holds
    documents of different grades (σ⁺ and σ⁻ are exact there, their harmonic mean is not
    linear): pass ties='first' or ties='trec_eval'. Ties among equally graded documents
    are fine.

    >>> from trunc_accessor.frontends.single import space_ratio
    >>> round(space_ratio([0, 1, 0, 1, 0, 0, 1, 0], R=3), 6)  # σ⁺ = 7/12, σ⁻ = 1/3
    0.424242
    """
    return _exact_part(prep, level, depth, "space_ratio", "sigma")


@register("space_ratio_plus", params=(DEPTH,), aliases=("sigma_plus", "forward_space_ratio"),
          undefined=UNDEFINED,
          citation=FERRO + ", Definitions 4–5 (normalisers extended to any run length).",
          ties=("Exact: σ⁺ is linear in each rank's misplacement, which is averaged over its tie "
                "group."))
def space_ratio_plus(prep: Prepared, level: float, depth=None) -> np.ndarray:
    """Forward space ratio σ⁺ = 1 − s⁺ / s⁺max: s⁺ = Σ_j (j − max_j)⁺, the positive
    misplacements (relevant documents ranked below their ideal interval), s⁺max the same
    for the full-scale run of the same length (the ideal run reversed), 1 when s⁺max = 0
    (Ferro et al. Definitions 4–5). 1 for the ideal and the worst run.

    Exact under ties='average' (linear in the expected misplacement at each rank).

    >>> from trunc_accessor.frontends.single import space_ratio_plus
    >>> space_ratio_plus([0, 1, 0, 1, 0, 0, 1, 0], R=3)  # 1 − (1 + 4) / (3 + 4 + 5)
    0.5833333333333333
    """
    return _parts(prep, level, depth)["sigma_plus"]


@register("space_ratio_minus", params=(DEPTH,), aliases=("sigma_minus", "backward_space_ratio"),
          undefined=UNDEFINED,
          citation=FERRO + ", Definitions 4–5 (normalisers extended to any run length).",
          ties=("Exact: σ⁻ is linear in each rank's misplacement, which is averaged over its tie "
                "group."))
def space_ratio_minus(prep: Prepared, level: float, depth=None) -> np.ndarray:
    """Backward space ratio σ⁻ = 1 − s⁻ / s⁻max: s⁻ = Σ_j (min_j − j)⁺, the negative
    misplacements (documents ranked above their ideal interval), s⁻max = Σ_{j ≤ min(L, RB)}
    (RB + 1 − j), the worst run's (Ferro et al. Definitions 4–5). 0 for the worst
    and the full-scale run.

    Exact under ties='average' (linear in the expected misplacement at each rank).

    >>> from trunc_accessor.frontends.single import space_ratio_minus
    >>> space_ratio_minus([0, 1, 0, 1, 0, 0, 1, 0], R=3)  # 1 − (3 + 1) / (3 + 2 + 1)
    0.33333333333333337
    """
    return _parts(prep, level, depth)["sigma_minus"]


# --------------------------------------------------------------------------- frames
def crp_frame(prep: Prepared, level: float, depth=None, references: bool = False) -> pl.DataFrame:
    """Long frame (by…, qid, position, grade, rp, crp): one row per rank of every ranking,
    padding ranks included (grade null); rp and crp null when R = 0. With ``references``
    also ``crp_full_scale`` and ``crp_worst`` (the full-scale and worst runs of the same
    length) and ``recall_base``.

    With ``depth=N`` the frame has N rows per ranking (padding included), so its size grows
    with N; the Twist metrics and the archetypes do not materialise the padding and cost the
    same for any depth."""
    c = curves(prep, level, depth, compress=False)
    undefined = c.rb[c.seg] == 0

    def column(name, values):
        return pl.Series(name, np.where(undefined, np.nan, values),
                         dtype=pl.Float64).fill_nan(None)

    out = prep.keys[c.seg].with_columns(
        pl.Series("position", c.pos, dtype=pl.Int64),
        pl.Series("grade", c.grade(prep), dtype=pl.Float64).fill_nan(None),
        column("rp", c.rp), column("crp", c.crp))
    if references:
        fs = curves(full_scale(prep, level, c.length), level, compress=False)
        rb = c.rb[c.seg]
        k = np.minimum(c.pos, rb)
        out = out.with_columns(column("crp_full_scale", fs.crp),
                               column("crp_worst", k * (k + 1.0) / 2.0 - k * (rb + 1.0)),
                               pl.Series("recall_base", rb.astype(np.int64)))
    return out


def _is_full_scale(prep: Prepared, level: float, c: Curves) -> np.ndarray:
    """Per ranking: L ≥ 2·RB (Definition 14) and CRP equal to the full-scale run's at every
    rank. Only a ranking stored uncompressed can match: past L_eff its RP is 0, while the
    full-scale run's RP at rank L is L − max ≥ L − RB ≥ RB > 0 (RB ≥ 1). So the full-scale
    curves are built for those rankings alone (L ≤ max(n, RB) + 1 ranks each), and both
    curves hold the same segments in the same order: they align entry by entry."""
    candidate = ~c.compressed & (c.length >= 2 * c.rb) & (c.rb > 0)
    fs = curves(full_scale(prep, level, np.where(candidate, c.length, 0)), level)
    mine = candidate[c.seg]
    differs = np.bincount(c.seg[mine], weights=c.crp[mine] != fs.crp,
                          minlength=len(c.length))
    return candidate & (differs == 0)


def archetypes(prep: Prepared, level: float, depth=None) -> pl.DataFrame:
    """Per ranking (by…, qid): archetype, recall_base, length (L) and crossing (the first
    crossing x, null if none). The classes of Ferro et al. Figures 3–6, first match wins:

    1. "ideal": CRP is 0 at every rank (no misplacement at all);
    2. "worst": no relevant document among the L ranks (the empty ranking included);
    3. "full-scale": L ≥ 2·RB (Definition 14) and the CRP curve is the full-scale run's;
    4. "excellent": crosses up at x ≤ RB and stays positive (ρ = 1);
    5. "ups-and-downs": crosses up at x < RB, then drops to CRP ≤ 0 again (ρ = 1);
    6. "typical A": first crossing after RB (ρ ≤ RB / (RB + 1));
    7. "typical B": relevant documents retrieved but CRP never turns positive (ρ = 0).

    Null for R = 0. After rank RB, RP ≥ 0 (every relevant document is below its interval),
    so CRP can only drop before RB: an ups-and-downs run drops before RB, as Figure 3(f)."""
    require_order_free(prep, level, "crp_archetype", depth)
    c = with_full_scale(prep, level, depth)[0]
    x = crossings(c)
    with np.errstate(invalid="ignore"):
        relevant = c.grade(prep) >= level
    dips = c.seg_sum((c.pos > x[c.seg]) & (c.crp <= 0)) > 0
    conditions = [
        (c.seg_sum(c.crp != 0) == 0) & (c.length > 0),
        c.seg_sum(relevant) == 0,
        _is_full_scale(prep, level, c),
        (x <= c.rb) & ~dips,
        x <= c.rb,
        np.isfinite(x),
    ]
    label = np.select(conditions, np.arange(len(conditions)), default=len(conditions))
    names = np.array(ARCHETYPES, dtype=object)[label]
    names[c.rb == 0] = None
    return prep.keys.with_columns(
        # from a list: Polars cannot cast an object array whose first entry is None
        pl.Series("archetype", names.tolist(), dtype=pl.String),
        pl.Series("recall_base", c.rb.astype(np.int64)),
        pl.Series("length", c.length, dtype=pl.Int64),
        pl.Series("crossing", np.where(np.isfinite(x), x, np.nan)).fill_nan(None).cast(pl.Int64))
