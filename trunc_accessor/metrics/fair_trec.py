"""The TREC 2022 Fair Ranking track's measures (Ekstrand, McDonald, Raj & Johnson, "Overview
of the TREC 2022 Fair Ranking Track"; the track's code, fair-trec/trec2022-fair-public,
``wptrec.metrics``), vectorised over every query of a call:

* expected exposure of groups (its Task 2 ``EELMetric``): each sampled ranking exposes its
  *relevant* documents only, position k weighted by the float32 discount
  1/log2(max(k, 2)); a group's exposure is the sum over its documents of that discount times
  the document's alignment with the group, averaged over the query's samples; the target is
  the query's target distribution over the groups times the exposure of a full ranking of
  ``target_len`` positions (Σ_{k ≤ target_len} of the discount, summed in float32).
  EE-D = ‖ε‖², EE-R = ε·ε*, EE-L = ‖ε − ε*‖² over the groups; normalised (the track's code
  says its normalisation is not to be used, and does not use it) EE-D between
  (A/g)²·g and A² (A the full ranking's exposure, g the groups), EE-R between 0 and ‖ε*‖²,
  EE-L between 0 and ‖ε*‖² + A²;
* AWRF (attention-weighted rank fairness, its Task 1 ``AWRFMetric``): the attention-weighted
  mean alignment of the ranking's documents that have an alignment (weights the float32
  discount of their positions), compared with the query's target distribution by the
  Jensen–Shannon divergence (natural logarithm, both distributions normalised):
  AWRF = 1 − JS; its nDCG (binary gains, the float32 discount, the ideal ranking of
  min(target_len, R) relevant documents; a ranking longer than ``target_len`` is refused)
  and the track's score nDCG × AWRF.

Several fairness dimensions combine intersectionally: a document's alignment with a
combination of groups is the product of its alignments with each, so a groups frame whose
groups are the combinations and whose weights are those products gives the track's
intersectional measures.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from trunc_accessor.core.columns import _names
from trunc_accessor.core.frames import to_polars
from trunc_accessor.errors import InputError, ParameterError

FULL_LEN_EEL, FULL_LEN_AWRF = 20, 500  # the track's defaults (target_len)
DEFAULTS = ("gerr", 0.5, 0.5, False, False)  # expeval's options left at their defaults


def discount(pos: np.ndarray) -> np.ndarray:
    """The track's discount of 1-based positions, in float32: 1/log2(max(k, 2))."""
    return np.reciprocal(np.log2(np.maximum(pos.astype(np.float32), np.float32(2))))


def float32_sums(values: np.ndarray, seg: np.ndarray, n_seg: int) -> np.ndarray:
    """The float32 sum of each segment's values (rows grouped by segment, in order) exactly
    as NumPy's ``np.sum`` of each segment's float32 array (pairwise summation): the
    segments of one length are summed together as the rows of a matrix, so the loop runs
    over the distinct lengths, not over the segments."""
    values = values.astype(np.float32, copy=False)
    length = np.bincount(seg, minlength=n_seg)
    start = np.r_[0, np.cumsum(length)[:-1]]
    out = np.zeros(n_seg, dtype=np.float32)
    for n in np.unique(length[length > 0]):
        which = np.flatnonzero(length == n)
        out[which] = values[start[which][:, None] + np.arange(n)].sum(axis=1)
    return out


def full_exposure(target_len: int) -> np.float32:
    """The exposure of a full ranking of ``target_len`` positions, summed in float32."""
    return np.sum(discount(np.arange(1, int(target_len) + 1)))


def check_options(options: tuple, target_len) -> None:
    """The call's model, p, u, complete and binarize (which do not apply: left at their
    defaults) and ``target_len`` (a whole number ≥ 1), checked before any work."""
    if options != DEFAULTS:
        raise ParameterError("semantics='trec-fair-2022' has its own user model (the log "
                             "discount): model, p, u, complete and binarize do not apply")
    if isinstance(target_len, bool) or not isinstance(target_len, (int, np.integer)) \
            or target_len < 1:
        raise ParameterError(f"target_len must be a whole number ≥ 1, not {target_len!r}")


def checked_target(ctx, target) -> pl.DataFrame:
    """The checked target distribution (qid, group, _tgt) of a call (``ctx``: its checked
    inputs, ``trunc_accessor.metrics.exposure_frames``)."""
    if ctx.groups is None or target is None:
        raise ParameterError("the TREC Fair 2022 measures need groups= (document → group, "
                             "with weights) and target= (qid, group, target)")
    names = _names(target, "target")
    if not {"qid", "group", "target"} <= set(names):
        raise InputError(f"target must have qid, group and target columns; found {names}")
    t = to_polars(target, ["qid", "group", "target"], "target", keys=["qid"])
    t = t.collect() if isinstance(t, pl.LazyFrame) else t
    v = t["target"].cast(pl.Float64, strict=False)
    if v.null_count() or not (v.is_finite() & (v >= 0)).all():
        raise InputError("target column 'target' must hold finite values ≥ 0")
    return t.with_columns(pl.col("qid").cast(ctx.qrels.schema["qid"], strict=False),
                          pl.col("group").cast(ctx.groups.schema["group"], strict=False),
                          v.alias("_tgt"))


def group_sums(frame: pl.DataFrame, keys: list[str], values: list[str],
               first: tuple[str, ...] = ()) -> pl.DataFrame:
    """The sums of ``values`` per distinct ``keys`` (and the ``first`` columns of each),
    added in the frame's row order by NumPy: a grouped sum in Polars may add in any order,
    so its last bits could change from one call to the next."""
    f = frame.sort(keys, maintain_order=True, nulls_last=True)
    rid = f.select(pl.struct(keys).rle_id()).to_series().to_numpy().astype(np.int64)
    starts = np.flatnonzero(np.r_[True, np.diff(rid) != 0]) if len(rid) else rid
    out = f[starts].select(*keys, *first)
    return out.with_columns(pl.Series(v, np.bincount(rid, weights=f[v].to_numpy(),
                                                     minlength=len(starts)))
                            for v in values)


def _positions(r: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ranking (a sample of a segment) and its 1-based position in it."""
    seg = r["_seg"].to_numpy().astype(np.int64)
    sys_ = r["_sys"].to_numpy().astype(np.int64)
    new = np.r_[True, (np.diff(seg) != 0) | (np.diff(sys_) != 0)] if len(seg) else \
        np.zeros(0, dtype=bool)
    ranking = np.cumsum(new) - 1
    return ranking, np.arange(len(seg)) - np.searchsorted(ranking, ranking) + 1


def _targets(target: pl.DataFrame, scored: pl.DataFrame) -> pl.DataFrame:
    """The target distribution as (_q, group, _tgt): every scored query needs one."""
    t = target.join(scored, on="qid", how="inner")
    missing = scored.join(t.select("_q").unique(), on="_q", how="anti")
    if missing.height:
        raise InputError(f"target has no distribution for qid {missing['qid'][0]!r}: the "
                         "track's measures compare exposure with each query's target")
    return t.select("_q", "group", "_tgt")


def _aligned(rows: pl.DataFrame, groups: pl.DataFrame) -> pl.DataFrame:
    """The rows joined with their documents' alignments (a row per (row, group))."""
    on = ["qid", "docid"] if "qid" in groups.columns else ["docid"]
    return rows.join(groups, on=on, how="inner", maintain_order="left")


def eel(ctx, target: pl.DataFrame, target_len: int, normalize: bool) -> dict:
    """EE-D, EE-R, EE-L per segment with the track's semantics (module doc)."""
    r = ctx.r
    ranking, pos = _positions(r)
    samples = r.group_by("_seg").agg(pl.col("_sys").n_unique().alias("_n"))
    grade = r["rel"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    with np.errstate(invalid="ignore"):
        rel = grade >= ctx.level
    rows = r.select("_seg", "qid", "docid").with_columns(
        pl.Series("_w", discount(pos).astype(np.float64)), pl.Series("_rel", rel)) \
        .filter(pl.col("_rel"))
    aligned = _aligned(rows, ctx.groups)
    unaligned = rows.join(aligned.select("_seg", "docid").unique(), on=["_seg", "docid"],
                          how="anti", maintain_order="left")
    if unaligned.height:
        row = unaligned.row(0, named=True)
        raise InputError(f"document {row['docid']!r} (relevant, retrieved for qid "
                         f"{row['qid']!r}) has no group in groups: the track's expected "
                         "exposure needs every relevant retrieved document's alignment")
    got = group_sums(aligned.with_columns(_e=pl.col("_w") * pl.col("weight")),
                     ["_seg", "group"], ["_e"])
    got = got.join(samples, on="_seg").with_columns(pl.col("_e") / pl.col("_n"))
    avail = full_exposure(target_len)
    tgt = _targets(target, ctx.scored)
    segs = pl.DataFrame({"_seg": np.arange(ctx.n_seg), "_q": ctx.seg_q.astype(np.uint32)})
    want = segs.join(tgt.with_columns(pl.col("_q").cast(pl.UInt32)), on="_q") \
        .with_columns((pl.col("_tgt") * float(avail)).alias("_t"))
    both = want.join(got.select("_seg", "group", "_e"), on=["_seg", "group"], how="full",
                     coalesce=True).with_columns(pl.col("_e").fill_null(0.0),
                                                 pl.col("_t").fill_null(0.0)) \
        .sort("_seg", "group", nulls_last=True)
    return _eel_values(both, ctx.n_seg, avail, normalize)


def _eel_values(both: pl.DataFrame, n_seg: int, avail: np.float32, normalize: bool) -> dict:
    owner = both["_seg"].to_numpy().astype(np.int64)
    e, t = both["_e"].to_numpy(), both["_t"].to_numpy()
    d = np.bincount(owner, weights=e * e, minlength=n_seg)
    r = np.bincount(owner, weights=e * t, minlength=n_seg)
    loss = np.bincount(owner, weights=(e - t) ** 2, minlength=n_seg)
    if not normalize:
        return {"ee_d": d, "ee_r": r, "ee_l": loss}
    # the bounds in float32, as the track's code computes them from its float32 exposure
    g = np.bincount(owner, minlength=n_seg).astype(np.float32)
    a32 = np.float32(avail)
    with np.errstate(invalid="ignore", divide="ignore"):
        d_lb = np.square(a32 / g) * g
        d_ub = np.square(a32)
        r_ub = np.bincount(owner, weights=t * t, minlength=n_seg)
        return {"ee_d": (d - d_lb.astype(np.float64)) / (d_ub - d_lb).astype(np.float64),
                "ee_r": r / r_ub,
                "ee_l": loss / (r_ub + float(d_ub))}


def awrf(ctx, target: pl.DataFrame, target_len: int) -> dict:
    """nDCG, AWRF and nDCG × AWRF per segment (module doc)."""
    r = ctx.r
    several = r.group_by("_seg").agg(pl.col("_sys").n_unique().alias("_n"), pl.col("qid")
                                     .first()).filter(pl.col("_n") > 1)
    if several.height:
        raise InputError(f"AWRF scores one ranking per query: the run has "
                         f"{several['_n'][0]} sampled rankings of qid {several['qid'][0]!r}")
    _, pos = _positions(r)
    seg = r["_seg"].to_numpy().astype(np.int64)
    length = np.bincount(seg, minlength=ctx.n_seg)
    if np.any(length > target_len):
        s = int(np.argmax(length > target_len))
        raise InputError(f"the ranking of qid {ctx.keys[ctx.keys.columns[-1]][s]!r} has "
                         f"{length[s]} documents, more than target_len={target_len}")
    grade = r["rel"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    with np.errstate(invalid="ignore"):
        rel = (grade >= ctx.level).astype(np.float32)
    ndcg = _ndcg(ctx, seg, pos, rel, target_len)
    rows = r.select("_seg", "qid", "docid").with_columns(
        pl.Series("_w", discount(pos)))
    aligned = _aligned(rows, ctx.groups)
    # the weights of the documents with an alignment, summed in float32 per ranking
    known = aligned.select("_seg", "docid", "_w").unique(maintain_order=True)
    wsum = float32_sums(known["_w"].to_numpy(), known["_seg"].to_numpy().astype(np.int64),
                        ctx.n_seg).astype(np.float64)
    got = group_sums(aligned.with_columns(_a=pl.col("_w").cast(pl.Float64) * pl.col("weight")),
                     ["_seg", "group"], ["_a"])
    tgt = _targets(target, ctx.scored)
    segs = pl.DataFrame({"_seg": np.arange(ctx.n_seg), "_q": ctx.seg_q.astype(np.uint32)})
    want = segs.join(tgt.with_columns(pl.col("_q").cast(pl.UInt32)), on="_q")
    both = want.join(got, on=["_seg", "group"], how="full", coalesce=True).with_columns(
        pl.col("_a").fill_null(0.0), pl.col("_tgt").fill_null(0.0)) \
        .sort("_seg", "group", nulls_last=True)
    owner = both["_seg"].to_numpy().astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = both["_a"].to_numpy() / wsum[owner]
    fair = 1.0 - _js_divergence(owner, a, both["_tgt"].to_numpy(), ctx.n_seg)
    return {"ndcg": ndcg, "awrf": fair, "score": ndcg * fair}


def _ndcg(ctx, seg, pos, rel, target_len) -> np.ndarray:
    """The track's binary nDCG with the float32 discount, its sums in float32 as the
    track's code makes them."""
    gain = float32_sums(rel * discount(pos), seg, ctx.n_seg)
    disc = discount(np.arange(1, target_len + 1))
    n_ideal = np.minimum(target_len, ctx.relevant_count()[ctx.seg_q]).astype(np.int64)
    ideal = np.zeros(ctx.n_seg, dtype=np.float32)
    for m in np.unique(n_ideal):  # the distinct ideal lengths
        ideal[n_ideal == m] = np.sum(disc[:m])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (gain / ideal).astype(np.float64)


def _js_divergence(owner, p, q, n_seg) -> np.ndarray:
    """Jensen–Shannon divergence (natural log) of each segment's two distributions, each
    normalised to sum 1, as scipy.spatial.distance.jensenshannon squared."""
    p = p / np.bincount(owner, weights=p, minlength=n_seg)[owner]
    q = q / np.bincount(owner, weights=q, minlength=n_seg)[owner]
    m = (p + q) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(p > 0, p * np.log(p / m), np.where(p == 0, 0.0, np.nan)) + \
            np.where(q > 0, q * np.log(q / m), np.where(q == 0, 0.0, np.nan))
    return np.bincount(owner, weights=terms, minlength=n_seg) / 2.0
