"""Measures over judgment groups (trec_eval's ``map_avgjg``, ``P_avgjg``,
``Rprec_mult_avgjg``): a query judged by several assessors (judgment groups, ``-R
qrels_jg``) scores the mean over its groups of the measure under each group's judgments.

* ``map_avgjg``: average precision (the sum of the precisions at each relevant retrieved
  document over the group's number of relevant documents), averaged over groups.
* ``P_avgjg_k``: precision at k (a ranking shorter than k is padded with nonrelevant
  documents), averaged over groups; default cutoffs 5, 10, 15, 20, 30, 100, 200, 500, 1000.
* ``Rprec_mult_avgjg_m``: precision at ``int(m × R + 0.9)`` documents, R the group's number
  of relevant documents, averaged over groups; default multiples 0.2, 0.4, …, 2.0.

A document is relevant to a group when its grade in that group is at least the relevance
level; documents the group did not judge are nonrelevant; with ``judged_only`` each group
scores the ranking restricted to the documents it judged with a grade of at least 0.
Rankings are in trec_eval's order: score descending, ties by docno descending.
"""
from __future__ import annotations

import numpy as np
import polars as pl

P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def evaluate_avgjg(run, qrels_jg, *, qids=None, relevance_level: float = 1,
                   judged_only: bool = False, max_docs: int | None = None,
                   p_cutoffs=P_CUTOFFS, rprec_mults=RPREC_MULTS):
    """``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg`` per query.

    Parameters
    ----------
    run : polars.DataFrame
        Columns ``qid``, ``docid`` and ``score``; each query's documents are ranked by score
        descending, ties by docno descending (trec_eval's order).
    qrels_jg : polars.DataFrame
        `read_qrels_jg`' frame (``qid``, ``jg``, ``docid``, ``rel``).
    qids : list of str, optional
        The queries to score (default: those with both judgments and a ranking); a judged
        query without a ranking scores as an empty ranking, a query without any judgment
        group scores 0 in every measure (the mean over no groups).
    relevance_level : float
        Grades at or above it are relevant (trec_eval's ``-l``).
    judged_only : bool
        Score each group's ranking of the documents it judged (grade ≥ 0) only (``-J``).
    max_docs : int, optional
        Keep only the first ``max_docs`` documents of each ranking (``-M``).
    p_cutoffs : sequence of int
        The cutoffs of ``P_avgjg`` (positive, distinct).
    rprec_mults : sequence of float
        The multiples of R of ``Rprec_mult_avgjg``.

    Returns
    -------
    polars.DataFrame
        One row per query (``qid``, in docno-byte order) and the columns ``map_avgjg``,
        ``P_avgjg_<k>`` and ``Rprec_mult_avgjg_<m:.2f>``.

    Raises
    ------
    InputError
        A document ranked twice for a query; ``relevance_level`` not a finite number > 0,
        ``judged_only`` not a bool (checked before any work).
    """
    from trunc_accessor.metrics.conventions import check_level
    from trunc_accessor.metrics.params import check_bool, checked
    from trunc_accessor.metrics.prefs import trec_ranking

    relevance_level = check_level(relevance_level)
    judged_only = checked("judged_only", check_bool, judged_only)

    ranked = trec_ranking(run, docid_descending=True)
    ranked = ranked.with_columns(pl.int_range(1, pl.len() + 1).over("qid").alias("_pos"))
    if max_docs is not None:
        ranked = ranked.filter(pl.col("_pos") <= max_docs)
    if qids is None:
        qids = sorted(set(qrels_jg["qid"].cast(pl.String).unique().to_list())
                      & set(ranked["qid"].unique().to_list()))
    qrels_jg = qrels_jg.select(pl.col("qid", "jg", "docid").cast(pl.String),
                               pl.col("rel").cast(pl.Int64))
    rows, table = _group_rows(ranked, qrels_jg, qids, relevance_level, judged_only)
    per_group = _per_group(rows, table, p_cutoffs, rprec_mults)
    return _query_means(table, list(qids), per_group)


def _group_rows(ranked: pl.DataFrame, qrels_jg: pl.DataFrame, qids, relevance_level: float,
                judged_only: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Each group's ranking (``_i`` its position, ``_r`` relevant, ``_cum`` relevant so far)
    and one row per (qid, jg) with num_rel, num_ret, num_rel_ret and ``_ap`` (the sum of
    the precisions at its relevant retrieved documents)."""
    wanted = pl.DataFrame({"qid": list(qids)}, schema={"qid": pl.String})
    groups = (qrels_jg.join(wanted, on="qid").select("qid", "jg").unique()
              .sort(["qid", "jg"]))
    n_rel = (qrels_jg.join(wanted, on="qid")
             .filter((pl.col("rel") >= 0) & (pl.col("rel") >= relevance_level))
             .group_by("qid", "jg").len("num_rel"))
    rows = (ranked.select("qid", "docid", "_pos").join(groups, on="qid")
            .join(qrels_jg.select("qid", "jg", "docid", "rel"), on=["qid", "jg", "docid"],
                  how="left"))
    if judged_only:
        rows = rows.filter(pl.col("rel") >= 0)
    # a document outside the group's pool is -1, one in it but unjudged (grade < 0) -2
    value = (pl.when(pl.col("rel").is_null()).then(-1)
             .when(pl.col("rel") < 0).then(-2).otherwise(pl.col("rel")))
    rows = (rows.with_columns(value.alias("_rel")).sort(["qid", "jg", "_pos"])
            .with_columns(pl.int_range(1, pl.len() + 1).over("qid", "jg").alias("_i"),
                          (pl.col("_rel") >= relevance_level).cast(pl.Int64).alias("_r"))
            .with_columns(pl.col("_r").cum_sum().over("qid", "jg").alias("_cum")))
    table = (groups.join(n_rel, on=["qid", "jg"], how="left")
             .join(rows.group_by("qid", "jg").agg(pl.len().alias("num_ret"),
                                                   pl.col("_r").sum().alias("num_rel_ret")),
                   on=["qid", "jg"], how="left")
             .with_columns(pl.col("num_rel", "num_ret", "num_rel_ret").fill_null(0))
             .sort(["qid", "jg"]))
    # precision at each relevant document, summed in ranking order
    ap_sum = (rows.filter(pl.col("_r") == 1)
              .with_columns((pl.col("_cum") / pl.col("_i")).alias("_prec"))
              .group_by("qid", "jg").agg(pl.col("_prec").cum_sum().last().alias("_ap")))
    table = table.join(ap_sum, on=["qid", "jg"], how="left").sort(["qid", "jg"])
    return rows, table


def _per_group(rows: pl.DataFrame, table: pl.DataFrame, p_cutoffs,
               rprec_mults) -> dict[str, np.ndarray]:
    """Each measure's value per (qid, jg) row of ``table``."""
    num_rel = table["num_rel"].to_numpy()
    num_ret = table["num_ret"].to_numpy()
    num_rel_ret = table["num_rel_ret"].to_numpy()
    ap = table["_ap"].fill_null(0.0).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        per_group = {"map_avgjg": np.where(num_rel_ret > 0, ap / num_rel, 0.0)}

    def rel_in_top(cut):  # relevant documents in each group's first `cut` (an array)
        cut = np.asarray(cut, dtype=np.int64)
        hits = (rows.select("qid", "jg", "_i", "_cum")
                .join(table.select("qid", "jg").with_columns(pl.Series("_cut", cut)),
                      on=["qid", "jg"])
                .filter(pl.col("_i") == pl.col("_cut"))
                .select("qid", "jg", "_cum"))
        got = table.select("qid", "jg").join(hits, on=["qid", "jg"], how="left")
        got = got.with_columns(pl.col("_cum").fill_null(-1))["_cum"].to_numpy()
        return np.where(cut > num_ret, num_rel_ret, np.where(got >= 0, got, 0))

    for k in p_cutoffs:
        cut = np.full(len(num_ret), int(k), dtype=np.int64)
        per_group[f"P_avgjg_{int(k)}"] = rel_in_top(cut) / float(k)
    for m in rprec_mults:
        cut = (float(m) * num_rel + 0.9).astype(np.int64)  # C's (long) cast: toward zero
        with np.errstate(divide="ignore", invalid="ignore"):
            prec = np.where(cut > 0, rel_in_top(cut) / np.maximum(cut, 1), 0.0)
        per_group[f"Rprec_mult_avgjg_{float(m):.2f}"] = prec
    return per_group


def _query_means(table: pl.DataFrame, qids: list, per_group: dict) -> pl.DataFrame:
    """The mean over each query's groups: summed in group order, divided when more than
    one (every measure 0 when no query has a group)."""
    q_of = table["qid"].to_numpy()
    if not len(q_of):
        return pl.DataFrame({"qid": qids, **{n: [0.0] * len(qids) for n in per_group}})
    starts = np.flatnonzero(np.r_[True, q_of[1:] != q_of[:-1]])
    sizes = np.diff(np.r_[starts, len(q_of)])
    position = {q: i for i, q in enumerate(q_of[starts].tolist())}
    means = {}
    for name, vals in per_group.items():
        sums = np.add.reduceat(np.asarray(vals, dtype=np.float64), starts)
        means[name] = np.where(sizes > 1, sums / np.maximum(sizes, 1), sums).tolist()
    # a qid with no judgment group scores 0, the mean over no groups (as when none has one)
    return pl.DataFrame({"qid": qids,
                         **{name: [means[name][position[q]] if q in position else 0.0
                                   for q in qids] for name in per_group}},
                        schema={"qid": pl.String, **{name: pl.Float64 for name in per_group}})
