"""Twist's curves as frames (Ferro, Silvello, Keskustalo, Pirkola & Järvelin, JASIST 2016;
the definitions are in ``trunc_accessor.metrics.twist``): the long CRP frame of ``run.ir.crp``,
one row per rank with the full-scale and worst runs' curves as references, and the run
archetypes of the paper's Figures 3–6 (``run.ir.crp_archetype``).
"""
from __future__ import annotations

import numpy as np
import polars as pl

from trunc_accessor.core.prepared import Prepared
from trunc_accessor.metrics.twist import crossings, require_order_free
from trunc_accessor.metrics.twist_curves import Curves, curves, full_scale, with_full_scale

ARCHETYPES = ("ideal", "worst", "full-scale", "excellent", "ups-and-downs", "typical A",
              "typical B")
CRP_SCHEMA = {"position": pl.Int64, "grade": pl.Float64, "rp": pl.Float64, "crp": pl.Float64}
ARCHETYPE_SCHEMA = {"archetype": pl.String, "recall_base": pl.Int64, "length": pl.Int64,
                    "crossing": pl.Int64}


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
