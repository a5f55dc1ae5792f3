"""Dask runs whose partitions do not hold whole queries, and Dask qrels with a missing qid.

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import pandas as pd
import pytest

from trunc_accessor import InputError


def test_dask_divisions_with_a_shared_boundary_qid_and_null_qrels_qid(tmp_path):
    """Two qid-sorted Parquet files sharing qid 2 at their boundary: the divisions look
    sorted, yet qid 2 is in both partitions; it must be scored once, on its whole ranking."""
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    first = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docid": ["a", "b", "c", "d"],
                          "score": [4.0, 3.0, 2.0, 1.0]})
    second = pd.DataFrame({"qid": ["2", "2", "3"], "docid": ["e", "f", "g"],
                           "score": [0.5, 0.4, 1.0]})
    first.to_parquet(tmp_path / "p1.parquet", index=False)
    second.to_parquet(tmp_path / "p2.parquet", index=False)
    qrels = pd.DataFrame({"qid": ["1", "2", "2", "3"], "docid": ["a", "c", "f", "g"],
                          "rel": [1, 1, 1, 1]})
    run = dd.read_parquet([str(tmp_path / "p1.parquet"), str(tmp_path / "p2.parquet")],
                          index="qid", calculate_divisions=True)
    got = run.ir.ap(qrels).compute()
    want = pd.concat([first, second]).ir.ap(qrels)  # qid 2: [1, 0, 0, 1] → (1 + 2/4) / 2
    assert got.to_dict() == want.to_dict() == {"1": 1.0, "2": 0.75, "3": 1.0}
    bad = pd.DataFrame({"qid": ["1", None], "docid": ["a", "c"], "rel": [1, 1]})
    for q in (bad, dd.from_pandas(bad, npartitions=1)):
        with pytest.raises(InputError, match="qrels column 'qid' has a missing value"):
            run.ir.ap(q).compute()
