"""Preference measures (trec_eval's ``prefs_*``): how many of the users' document preferences
a ranking fulfils.

A preference "A over B" comes from a judgment sub-group in which A has a higher
``rel_level`` than B; a judgment group's sub-groups combine transitively (A > B in one and
B > C in another give A > C). A preference is *fulfilled* when A is ranked above B, or A is
retrieved and B is not. Each is also filed by what was retrieved: both documents
(``_ret``), exactly one (implied), or neither. The measures (C. Buckley, trec_eval 9.0):

* ``prefs_num_prefs_poss``, ``prefs_num_prefs_ful``, ``prefs_num_prefs_ful_ret``: counts
  (summed over queries, not averaged): every preference; those fulfilled; those fulfilled
  with both documents retrieved.
* ``prefs_simp``: fulfilled / possible, over every preference of every group (one not
  retrieved at all counts as not fulfilled); ``_ret``: only preferences between two
  retrieved documents; ``_imp``: only those with at least one retrieved.
* ``prefs_pair``: the mean over document pairs of the share of the groups' preferences on
  the pair that the ranking fulfils (pairs of two unretrieved documents count 0);
  ``_ret`` and ``_imp`` as above.
* ``prefs_avgjg``: fulfilled / possible within each judgment group, averaged over groups;
  ``_ret`` and ``_imp`` as above.
* ``prefs_avgjg_Rnonrel``: as ``prefs_avgjg``, with each group's nonrelevant documents
  (``rel_level`` 0) brought to R, its number of relevant documents: with fewer (N < R),
  R × (R − N) fulfilled preferences are added, R retrieved ones (R × (R − N) possible);
  with more, only the first R nonrelevant documents in ranking order take part.
  ``prefs_avgjg_Rnonrel_ret`` counts retrieved documents only.

The values, their summaries and their quirks are trec_eval 10.0's: a query's ``*_avgjg*``
value is 0 when a group's ratio is undefined (0/0), and the ``Rnonrel`` recount of a group
of equivalence classes pairs every class, the last one too, with its first R documents.
"""
from __future__ import annotations

import numpy as np

from trunc_accessor.errors import InputError

MEASURES = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
            "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
            "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
            "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
COUNTS = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")


def _ratio(num: float, den: float) -> float:
    """C's num / den in doubles: 0/0 is NaN."""
    if den:
        return num / den
    return float("nan") if num == 0 else float("inf")


class _Group:
    """One judgment group's counts, and what the Rnonrel measures recount from."""

    def __init__(self):
        self.ful_ret = self.poss_ret = self.ful_imp = self.poss_imp = self.notoccur = 0
        self.num_rel = self.num_rel_ret = self.num_nonrel = self.num_nonrel_ret = 0
        self.ecs: list | None = None  # equivalence classes: rank arrays, highest level first
        self.pairs = None  # preference array: (local → rank, closure, rel level by local)


def _ec_group(ranks, levels, njr, counts, qid, jg, docs) -> _Group:
    """A group with one sub-group: equivalence classes of equal rel_level."""
    g = _Group()
    order = np.lexsort((ranks, -levels))
    ranks, levels = ranks[order], levels[order]
    starts = np.flatnonzero(np.r_[True, levels[1:] != levels[:-1]])
    ec = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(levels)]))
    g.ecs = [ranks[s:e] for s, e in zip(starts, np.r_[starts[1:], len(levels)])]
    for members, level in zip(g.ecs, levels[starts]):
        ret = int((members < njr).sum())
        if level > 0.0:
            g.num_rel_ret += ret
            g.num_rel += len(members)
        else:
            g.num_nonrel_ret += ret
            g.num_nonrel += len(members)
    a, b = ranks[:, None], ranks[None, :]
    above = ec[:, None] < ec[None, :]  # a's class is preferred to b's
    clash = above & (a == b)
    if clash.any():
        i, _ = np.argwhere(clash)[0]
        raise InputError(f"query {qid!r}, judgment group {jg!r}: document {docs[ranks[i]]!r} "
                         "has two different rel_levels in the same sub-group")
    ful = above & (a < b)
    g.ful_ret = int((ful & (b < njr)).sum())
    g.ful_imp = int((ful & (b >= njr) & (a < njr)).sum())
    unful = above & (a > b)
    g.poss_ret = int((unful & (a < njr)).sum()) + g.ful_ret
    g.poss_imp = int((unful & (a >= njr) & (b < njr)).sum()) + g.ful_imp
    g.notoccur = int((above & (a >= njr) & (b >= njr)).sum())
    nj = len(counts)
    flat = (np.broadcast_to(a, above.shape)[above] * nj + np.broadcast_to(b, above.shape)[above])
    counts += np.bincount(flat, minlength=nj * nj).reshape(nj, nj)
    return g


def _closure(pref):
    """Transitive closure of a boolean preference matrix (reflexive during the products,
    as trec_eval's repeated multiplication), diagonal cleared."""
    n = len(pref)
    reach = pref | np.eye(n, dtype=bool)
    while True:
        m = reach.astype(np.float64)
        nxt = (m @ m) > 0
        if (nxt == reach).all():
            break
        reach = nxt
    np.fill_diagonal(reach, False)
    return reach


def _pa_group(ranks, levels, subs, njr, counts, qid, jg, docs) -> _Group:
    """A group with several sub-groups: a preference array closed transitively."""
    g = _Group()
    order = np.lexsort((ranks, -levels, subs))
    ranks, levels, subs = ranks[order], levels[order], subs[order]
    # each document's rel_level: the last assigned in this order; 0 and > 0 may not meet
    by_doc = np.argsort(ranks, kind="stable")
    r, lv = ranks[by_doc], levels[by_doc]
    same = r[1:] == r[:-1]
    bad = same & (((lv[:-1] > 0) & (lv[1:] == 0)) | ((lv[:-1] == 0) & (lv[1:] > 0)))
    if bad.any():
        doc = docs[r[1:][bad][0]]
        raise InputError(f"query {qid!r}, judgment group {jg!r}: document {doc!r} is "
                         "nonrelevant (rel_level 0) in one sub-group and relevant in another")
    local_rank, local = np.unique(ranks, return_inverse=True)
    last = np.r_[~same, True]
    rel = np.full(len(local_rank), -1.0)
    rel[np.searchsorted(local_rank, r[last])] = lv[last]
    same_sub = subs[:, None] == subs[None, :]
    pref = np.zeros((len(local_rank), len(local_rank)), dtype=bool)
    above = same_sub & (levels[:, None] > levels[None, :])
    ia, ib = np.nonzero(above)
    pref[local[ia], local[ib]] = True
    reach = _closure(pref)
    both = reach & reach.T
    if both.any():
        i, j = np.argwhere(both)[0]
        raise InputError(f"query {qid!r}, judgment group {jg!r}: the preferences are "
                         f"inconsistent: {docs[local_rank[i]]!r} and "
                         f"{docs[local_rank[j]]!r} are each preferred to the other")
    a, b = local_rank[:, None], local_rank[None, :]
    ret = local_rank < njr
    g.num_rel_ret = int(((rel > 0) & ret).sum())
    g.num_nonrel_ret = int(((rel == 0) & ret).sum())
    g.num_rel = int((rel > 0).sum())
    g.num_nonrel = int((rel == 0).sum())
    g.ful_ret = int((reach & (a < b) & (b < njr)).sum())
    g.poss_ret = int((reach & (b < a) & (a < njr)).sum()) + g.ful_ret
    g.ful_imp = int((reach & (a < njr) & (b >= njr)).sum())
    g.poss_imp = int((reach & (a >= njr) & (b < njr)).sum()) + g.ful_imp
    g.notoccur = int((reach & (a >= njr) & (b >= njr)).sum())
    ia, ib = np.nonzero(reach)
    counts[local_rank[ia], local_rank[ib]] += 1
    g.pairs = (local_rank, reach, rel)
    return g


def _pairs_ful(x, y, njr, retrieved_only: bool) -> tuple[int, int]:
    """(fulfilled, not fulfilled) over the pairs x × y (both sorted ranks): fulfilled when
    x < y and x is retrieved (with ``retrieved_only``, both restricted to retrieved)."""
    if retrieved_only:
        x, y = x[x < njr], y[y < njr]
    total = len(x) * len(y)
    xs = x[x < njr]
    ful = int((len(y) - np.searchsorted(y, xs, side="right")).sum())
    return ful, total - ful


def _recount(g: _Group, njr: int, nj: int, retrieved_only: bool) -> tuple[int, int]:
    """trec_eval's Rnonrel recount of a group with more nonrelevant documents than R:
    (fulfilled, possible)."""
    ful = poss = 0
    if g.ecs is not None:
        k = len(g.ecs)
        keep = g.num_rel_ret if retrieved_only else g.num_rel
        nonrel = g.ecs[-1][:keep]
        for e1 in range(k):
            for e2 in range(e1 + 1, k - 1):
                f, p = _pairs_ful(g.ecs[e1], g.ecs[e2], njr, retrieved_only)
                ful, poss = ful + f, poss + p
        for e1 in range(k):
            f, p = _pairs_ful(g.ecs[e1], nonrel, njr, retrieved_only)
            ful, poss = ful + f, poss + p
        return ful, poss + ful
    local_rank, reach, rel = g.pairs
    full = np.full(nj, -1.0)
    full[local_rank] = rel
    scan = full[:njr] if retrieved_only else full
    seen = np.cumsum(scan == 0.0)
    hit = np.flatnonzero(seen == g.num_rel + 1)
    first_discarded = int(hit[0]) if len(hit) else len(scan)
    kept = ~((local_rank >= first_discarded) & (rel == 0.0))
    sub = reach & kept[:, None] & kept[None, :]
    a, b = local_rank[:, None], local_rank[None, :]
    ful = int((sub & (a < njr) & (a < b)).sum())
    if retrieved_only:
        ful = int((sub & (a < b) & (b < njr)).sum())
        notful = int((sub & (b < a) & (a < njr)).sum())
    else:
        notful = int((sub & (a < njr) & (b < a)).sum()) + int((sub & (a >= njr)).sum())
    return ful, notful + ful


def query_counts(qid: str, jg_codes, jg_names, sub_codes, ranks, levels, docs, njr: int):
    """A query's preference counts (trec_eval's form_prefs_counts).

    ``ranks``: each judgment line's document numbered by rank (the retrieved judged
    documents 0 … njr − 1 in ranking order, then the others in docno order; ``docs`` names
    them in that numbering); ``jg_codes``/``sub_codes``: each line's judgment group and
    sub-group as integers in name order (``jg_names``). Returns (groups in judgment-group
    order, counts matrix over the numbered documents)."""
    nj = len(docs)
    counts = np.zeros((nj, nj), dtype=np.int64)
    groups = []
    order = np.argsort(jg_codes, kind="stable")
    bounds = np.flatnonzero(np.r_[True, np.diff(jg_codes[order]) != 0, True])
    for s, e in zip(bounds[:-1], bounds[1:]):
        rows = order[s:e]
        jg = jg_names[jg_codes[rows[0]]]
        subs = sub_codes[rows]
        if (subs != subs[0]).any():
            groups.append(_pa_group(ranks[rows], levels[rows], subs, njr, counts, qid, jg,
                                    docs))
        else:
            groups.append(_ec_group(ranks[rows], levels[rows], njr, counts, qid, jg, docs))
    return groups, counts


def _seq_sum(values) -> float:
    """Left-to-right sum (C's loop order): NumPy's accumulate adds in order."""
    return float(np.add.accumulate(values)[-1]) if len(values) else 0.0


def _pair_values(counts, njr: int) -> dict[str, float]:
    """prefs_pair, _ret and _imp from the counts matrix: trec_eval's three loops (both
    retrieved; the first retrieved, the second not; neither), each in row-major order."""
    i, j = np.nonzero(np.triu(counts + counts.T, 1))  # row-major: C's loop order
    c_ij, c_ji = counts[i, j], counts[j, i]
    share = c_ij / (c_ij + c_ji)
    first = j < njr
    second = (i < njr) & (j >= njr)
    n_first, n_second = int(first.sum()), int(second.sum())
    n_third = int((i >= njr).sum())
    sum_first = _seq_sum(share[first])
    both = np.concatenate([share[first], share[second]])
    sum_both = _seq_sum(both)
    return {"prefs_pair": sum_both / (n_first + n_second + n_third)
            if n_first + n_second + n_third else 0.0,
            "prefs_pair_ret": sum_first / n_first if n_first else 0.0,
            "prefs_pair_imp": sum_both / (n_first + n_second) if n_first + n_second else 0.0}


def query_values(groups, counts, njr: int) -> dict[str, float]:
    """The ``prefs_*`` values of one query from `query_counts`' answer."""
    nj = len(counts)
    ful_ret = sum(g.ful_ret for g in groups)
    ful_imp = sum(g.ful_imp for g in groups)
    poss_ret = sum(g.poss_ret for g in groups)
    poss_imp = sum(g.poss_imp for g in groups)
    notoccur = sum(g.notoccur for g in groups)
    out = {"prefs_num_prefs_poss": float(poss_ret + poss_imp + notoccur),
           "prefs_num_prefs_ful": float(ful_ret + ful_imp),
           "prefs_num_prefs_ful_ret": float(ful_ret)}
    for suffix, ful, poss in (("", ful_ret + ful_imp, poss_ret + poss_imp + notoccur),
                              ("_ret", ful_ret, poss_ret),
                              ("_imp", ful_ret + ful_imp, poss_ret + poss_imp)):
        out["prefs_simp" + suffix] = ful / poss if poss else 0.0
    out.update(_pair_values(counts, njr))

    def avg(parts) -> float:
        total = 0.0
        for f, p in parts:
            if p:
                total += f / p
        return total / len(groups) if total > 0.0 else 0.0

    out["prefs_avgjg"] = avg((g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur)
                             for g in groups)
    out["prefs_avgjg_ret"] = avg((g.ful_ret, g.poss_ret) for g in groups)
    out["prefs_avgjg_imp"] = avg((g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp)
                                 for g in groups)
    for suffix, ret_only in (("", False), ("_ret", True)):
        total = 0.0
        for g in groups:
            r, n = (g.num_rel_ret, g.num_nonrel_ret) if ret_only else (g.num_rel, g.num_nonrel)
            if r >= n:
                if ret_only:
                    f, p = g.ful_ret, g.poss_ret
                else:
                    f = g.ful_ret + g.ful_imp
                    p = g.poss_ret + g.poss_imp + g.notoccur
                f += g.num_rel_ret * (r - n)
                p += g.num_rel * (r - n)
            else:
                f, p = _recount(g, njr, nj, ret_only)
            total += _ratio(f, p)
        out["prefs_avgjg_Rnonrel" + suffix] = total / len(groups) if total > 0.0 else 0.0
    return out


def trec_ranking(run, *, docid_descending: bool):
    """The run's ``qid, docid, score`` as text, text and float, in trec_eval's order: by qid,
    score descending, then docno descending (its qrels measures) or ascending (its
    preference measures). A document ranked twice for a query is an ``InputError``."""
    import polars as pl

    ordered = (run.select(pl.col("qid").cast(pl.String), pl.col("docid").cast(pl.String),
                          pl.col("score").cast(pl.Float64))
               .sort(["qid", "score", "docid"], descending=[False, True, docid_descending]))
    dup = ordered.filter(pl.struct("qid", "docid").is_duplicated())
    if dup.height:
        raise InputError(f"query {dup['qid'][0]!r}: document {dup['docid'][0]!r} is ranked "
                         "twice (trec_eval stops on duplicate documents too)")
    return ordered


def evaluate_prefs(run, prefs, *, qids=None, max_docs: int | None = None):
    """The ``prefs_*`` measures of a run against preference judgments, per query.

    Parameters
    ----------
    run : polars.DataFrame
        Columns ``qid``, ``docid`` and ``score``. A query's documents are ranked by score,
        descending, ties by docno ascending (trec_eval's order for preferences).
    prefs : polars.DataFrame
        `read_prefs` or `read_qrels_prefs`' frame (``qid``, ``jg``, ``jsg``, ``docid``,
        ``rel_level``).
    qids : list of str, optional
        The queries to score (default: those with both judgments and a ranking); a query
        without a ranking scores as an empty one.
    max_docs : int, optional
        Keep only the first ``max_docs`` documents of each ranking (trec_eval's ``-M``).

    Returns
    -------
    polars.DataFrame
        One row per query (``qid``) and a column per measure of `MEASURES` (the counts as
        floats).

    Raises
    ------
    InputError
        A document ranked twice for a query, a document with two rel_levels in one
        sub-group, or a judgment group whose preferences contradict each other.
    """
    import polars as pl

    ordered = trec_ranking(run, docid_descending=False)
    if max_docs is not None:
        ordered = ordered.filter(pl.int_range(pl.len()).over("qid") < max_docs)
    judged = prefs.select(pl.col("qid", "jg", "jsg", "docid").cast(pl.String),
                          pl.col("rel_level").cast(pl.Float64))
    if qids is None:
        qids = sorted(set(judged["qid"].unique().to_list())
                      & set(ordered["qid"].unique().to_list()))
    wanted = pl.DataFrame({"qid": list(qids)}, schema={"qid": pl.String})
    judged = judged.join(wanted, on="qid", how="semi")
    # number the judged documents: retrieved ones by rank, then the rest by docno
    docs = judged.select("qid", "docid").unique().sort(["qid", "docid"])
    retrieved = (ordered.join(docs, on=["qid", "docid"], how="semi")
                 .with_columns(pl.int_range(pl.len()).over("qid").alias("_rank")))
    njr = retrieved.group_by("qid").len("_njr")
    rest = (docs.join(retrieved, on=["qid", "docid"], how="anti")
            .join(njr, on="qid", how="left").with_columns(pl.col("_njr").fill_null(0))
            .with_columns((pl.col("_njr") + pl.int_range(pl.len()).over("qid")).alias("_rank")))
    numbered = pl.concat([retrieved.select("qid", "docid", "_rank"),
                          rest.select("qid", "docid", "_rank")]).sort(["qid", "_rank"])
    lines = (judged.join(numbered, on=["qid", "docid"], how="left")
             .with_columns(pl.col("jg").rank("dense").over("qid").cast(pl.Int64).alias("_jg"),
                           pl.col("jsg").rank("dense").over("qid", "jg").cast(pl.Int64)
                           .alias("_sub"))
             .sort("qid", maintain_order=True))
    njr_of = dict(njr.iter_rows())
    doc_parts = {k[0]: part["docid"].to_numpy().astype(object)
                 for k, part in numbered.group_by("qid", maintain_order=True)}
    out = {}
    for (q,), part in lines.group_by("qid", maintain_order=True):
        jg_codes = part["_jg"].to_numpy() - 1
        jg_names = part.select("_jg", "jg").unique().sort("_jg")["jg"].to_list()
        groups, counts = query_counts(q, jg_codes, jg_names, part["_sub"].to_numpy(),
                                      part["_rank"].to_numpy(), part["rel_level"].to_numpy(),
                                      doc_parts[q], njr_of.get(q, 0))
        out[q] = query_values(groups, counts, njr_of.get(q, 0))
    return pl.DataFrame({"qid": list(qids), **{m: [out[q][m] for q in qids] for m in MEASURES}},
                        schema={"qid": pl.String, **{m: pl.Float64 for m in MEASURES}})
