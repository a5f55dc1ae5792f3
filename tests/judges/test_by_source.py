"""``judges.by_source``: one qrels frame with a column naming each pair's judge, as the
mapping {judge: qrels} the agreement functions take."""
from __future__ import annotations

import pandas as pd
import polars as pl
import pytest

from trunc_accessor.judges import agreement, by_source, krippendorff_alpha, load_judges


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_judges_read_one_qrels_frame_with_a_source_column(library):
    judges = load_judges("cranfield", library)
    names = list(judges)
    if library == "pandas":
        one = pd.concat([q.assign(judge=n) for n, q in judges.items()], ignore_index=True)
    else:
        one = pl.concat([q.with_columns(pl.lit(n).alias("judge")) for n, q in judges.items()])
    split = by_source(one, "judge")
    assert list(split) == names
    assert krippendorff_alpha(split) == pytest.approx(krippendorff_alpha(judges), abs=0)
    a, b = agreement(split, seed=0), agreement(judges, seed=0)
    if library == "polars":
        a, b = a.to_pandas(), b.to_pandas()
    pd.testing.assert_frame_equal(a, b)
