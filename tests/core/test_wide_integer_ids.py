"""Identifiers of 128-bit integers are compared as their decimal digits.

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import polars as pl
import pytest


@pytest.mark.skipif(not hasattr(pl, "Int128"), reason="Polars without 128-bit integers")
def test_128_bit_integer_ids_are_compared_as_their_digits():
    """A subtopic column of 128-bit integers was taken as ids; qid/docid columns of them
    were cast strictly to UInt64 (a Polars error for negative or ≥ 2^64 values). They are
    now compared as their decimal digits: pytrec_eval on the same ids as text agrees, and
    an Int64 frame on the other side matches them digit for digit."""
    import pytrec_eval

    qids = [-1, -1, 2 ** 70, 2 ** 70, 5]
    run = pl.DataFrame({"qid": pl.Series(qids, dtype=pl.Int128),
                        "docid": pl.Series([3, 2 ** 100, -7, 8, 9], dtype=pl.Int128),
                        "score": [2.0, 1.0, 3.0, 1.0, 0.5]})
    qrels = pl.DataFrame({"qid": pl.Series([-1, 2 ** 70, 5], dtype=pl.Int128),
                          "docid": pl.Series([2 ** 100, 8, 9], dtype=pl.Int128),
                          "rel": [1, 2, 1]})
    text = {f"{q}": {} for q in qids}
    for q, d, s in run.iter_rows():
        text[str(q)][str(d)] = s
    judged = {str(q): {str(d): r} for q, d, r in qrels.iter_rows()}
    want = pytrec_eval.RelevanceEvaluator(judged, {"map", "ndcg"}).evaluate(text)
    got = run.ir.evaluate(qrels, ["ap", "ndcg"])
    for q, ap, ndcg in got.iter_rows():
        assert ap == pytest.approx(want[str(q)]["map"], abs=1e-12)
        assert ndcg == pytest.approx(want[str(q)]["ndcg"], abs=1e-12)
    small = qrels.filter(pl.col("qid") == 5).with_columns(pl.col("qid", "docid").cast(pl.Int64))
    assert run.ir.ap(small).filter(pl.col("qid") == "5")["ap"].item() == 1.0
