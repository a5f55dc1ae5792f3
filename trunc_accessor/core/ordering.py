"""Ranking order: the permutation that puts a run's rows in the order of their rankings.

``segment_order`` is the stable sort of rows by segment (one segment = one ranking) and one
key, done as one sort of packed 64-bit words; ``ranking_order`` picks the key a tie
rule asks for (rank, score, trec_eval's score then docid, …) and returns None when the rows
are already in order. ``trunc_accessor.core.prepare`` orders every run with it, and the
fusion of runs orders its fused rankings with the same rules.
"""
from __future__ import annotations

import numpy as np
import polars as pl


def segment_order(seg: np.ndarray, key: np.ndarray, descending: bool = False) -> np.ndarray:
    """The stable order of rows by segment (integers ≥ 0), then ``key`` ascending (or
    ``descending``; NaN last either way, -0.0 equal to 0.0). One NumPy sort of 64-bit words
    holding the segment and the key's leading bits; rows whose words are equal (tied keys,
    or keys that differ only in the dropped bits) are then ordered by the whole key and
    their row number."""
    if len(seg) < 2:
        return np.arange(len(seg))
    sign = np.uint64(1 << 63)
    if key.dtype.kind == "f":  # the floats' order as unsigned words: flip the sign bit of
        # positive numbers, every bit of negative ones (-0.0 as 0.0)
        word = (key.astype(np.float64, copy=False) + 0.0).view(np.uint64)
        flip = (word.view(np.int64) >> 63).view(np.uint64)
        flip |= sign
        word ^= flip
        del flip
    else:
        word = key.astype(np.int64).view(np.uint64)
        word ^= sign
    if descending:
        np.invert(word, out=word)
    if key.dtype.kind == "f":
        word[np.isnan(key)] = np.iinfo(np.uint64).max
    shift = max(int(seg.max()), 1).bit_length()
    bits = np.uint64(64 - shift)  # the bits of a word that the key may take
    lo = word.min()
    exact = bool((word.max() - lo) >> bits == 0)  # e.g. ranks: the whole key fits
    packed = seg.astype(np.uint64)
    packed <<= bits
    if exact:
        word -= lo
        packed |= word
    else:
        packed |= word >> np.uint64(shift)
    # Polars' stable sort (4M words: 0.17 s in random order, 0.03 s when the rows come in a
    # few ordered stretches, as a run read from several files or a shuffled Dask partition;
    # NumPy's: 0.54 and 0.26 s): rows of equal words stay in row order
    order = (pl.DataFrame({"p": packed}).select(pl.arg_sort_by("p", maintain_order=True))
             .to_series().to_numpy().astype(np.int64))
    if exact:
        return order
    packed = packed[order]
    tie = packed[1:] == packed[:-1]
    del packed
    if not tie.any():
        return order
    ordered_word = word[order]
    if not np.any(tie & (ordered_word[1:] != ordered_word[:-1])):
        return order  # equal words are equal keys: already in row order
    del ordered_word
    # some keys differ only in the dropped bits: each run of equal words by the whole key,
    # then row number
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] = tie
    tied[:-1] |= tie
    at = np.flatnonzero(tied)
    run = np.concatenate(([0], np.cumsum(~tie)))[at]
    rows = order[at]
    again = (pl.DataFrame({"run": run, "word": word[rows], "row": rows})
             .select(pl.arg_sort_by("run", "word", "row")).to_series().to_numpy())
    order[at] = rows[again]
    return order


def ranking_order(run: pl.DataFrame, keep, seg, score, rank, ties: str):
    """The permutation that puts the rows in ranking order, or None when they
    already are: by segment, then rank ascending (a ``rank`` column), or score descending
    (stable: equal scores keep their input order), or for ``ties="trec_eval"`` score
    descending then docid descending as strings (``"trec_eval9"``: scores as float32);
    ``"score_docid"``: score descending then docid ascending; ``"score_input"``: score
    descending, equal scores in input order, a rank column ignored."""
    if len(seg) < 2:
        return None
    by_docid = ties in ("trec_eval", "trec_eval9", "score_docid")
    if ties in ("trec_eval", "trec_eval9"):
        key = score.astype(np.float32) if ties == "trec_eval9" else score
        descending = True
    elif rank is not None and ties not in ("score_docid", "score_input"):
        key, descending = rank, False
    else:
        key, descending = score, True
    same = seg[1:] == seg[:-1]
    wrong = key[1:] > key[:-1] if descending else key[1:] < key[:-1]
    in_order = bool(np.all(seg[1:] >= seg[:-1])) and not np.any(same & wrong)
    docid = None
    docid_descending = ties != "score_docid"
    if by_docid:
        docid = run["docid"].cast(pl.String)
        if keep is not None:
            docid = docid.gather(pl.Series(keep))
        if in_order:
            tied = np.flatnonzero(same & (key[1:] == key[:-1]))
            if tied.size:
                a, b = docid.gather(pl.Series(tied)), docid.gather(pl.Series(tied + 1))
                in_order = bool((a > b).all() if docid_descending else (a < b).all())
    if in_order:
        return None
    if docid is None:
        return segment_order(seg, key, descending)
    frame = pl.DataFrame({"seg": seg, "key": key, "docid": docid})
    return (frame.select(pl.arg_sort_by(["seg", "key", "docid"],
                                        descending=[False, descending, docid_descending],
                                        maintain_order=True))
            .to_series().to_numpy())
