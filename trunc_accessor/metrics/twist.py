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

import numpy as np

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics._order import mixed_groups
from trunc_accessor.metrics._order import require_order_free as order_free
from trunc_accessor.metrics.params import Param, check_k
from trunc_accessor.metrics.registry import register
from trunc_accessor.metrics.twist_curves import Curves, with_full_scale

FERRO = ("Ferro, Silvello, Keskustalo, Pirkola & Järvelin, 'The Twist measure for IR "
         "evaluation: taking user's effort into account', JASIST 2016")
DEPTH = Param("depth", None, check_k,
              "run length N: a shorter ranking is padded with non-relevant documents and a "
              "longer one cut to N, as MATTERS does (it uses 1000); None: the ranking's length")
UNDEFINED = ("Undefined when R = 0 (no recall base). "
             "An empty ranking with R > 0 is the worst run: ρ = σ⁻ = σ = τ = 0, σ⁺ = 1.")


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
