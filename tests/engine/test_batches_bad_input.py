"""Lazy runs evaluated in query batches (LazyFrame, scan_parquet, evaluate_parquet) on bad
input: a lost row is an error, not an empty answer, and a batch changes no value.

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import InputError
from trunc_accessor.frontends.polars import LazyPolarsIR

RUN = pl.DataFrame({"qid": ["1", None, "2"], "docid": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
QRELS = pl.DataFrame({"qid": ["1", "2"], "docid": ["a", "c"], "rel": [1, 1]})


def test_a_missing_qid_in_a_lazy_run_or_qrels_is_an_error(tmp_path):
    """The eager path raises; lazy frames, scan_parquet and evaluate_parquet answered an
    empty frame with no word."""
    path = tmp_path / "run.parquet"
    RUN.write_parquet(path)
    calls = [lambda: RUN.lazy().ir.ap(QRELS).collect(),
             lambda: pl.scan_parquet(path).ir.ap(QRELS).collect(),
             lambda: ta.evaluate_parquet(str(path), QRELS, ["ap"])]
    for call in calls:
        with pytest.raises(InputError, match="run column 'qid' has a missing value"):
            call()
    bad_qrels = pl.DataFrame({"qid": ["1", None], "docid": ["a", "c"], "rel": [1, 1]})
    for qrels in (bad_qrels, bad_qrels.lazy()):
        with pytest.raises(InputError, match="qrels column 'qid' has a missing value"):
            RUN.drop_nulls().lazy().ir.ap(qrels).collect()


def test_parquet_files_of_different_schemas_name_the_column(tmp_path):
    pl.DataFrame({"qid": ["1"], "docid": ["a"], "score": [1.0]}).write_parquet(
        tmp_path / "a.parquet")
    pl.DataFrame({"qid": [2], "docid": ["c"], "score": [1.0]}).write_parquet(tmp_path / "b.parquet")
    with pytest.raises(InputError, match="do not share one schema.*qid"):
        ta.evaluate_parquet([str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")],
                            QRELS, ["ap"])


def test_every_metric_is_bit_identical_eager_and_in_lazy_batches(cranfield):
    """A query's value must not depend on the queries sharing its call: NDCG', Rndcg and
    ndcg_rel differed in the last bits between eager and lazy batches."""
    runs, qrels = (pl.from_pandas(frame) for frame in cranfield)
    for ties in ("first", "average"):
        names = []
        for name, metric in ta.REGISTRY.items():
            if metric.user:
                continue
            try:
                runs.ir.evaluate(qrels, [name], by="system", ties=ties)
            except ValueError:  # refused under ties="average" (documented)
                continue
            names.append(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eager = runs.ir.evaluate(qrels, names, by="system", ties=ties)
            lazy = LazyPolarsIR(runs.lazy(), batch_rows=3000).evaluate(
                qrels, names, by="system", ties=ties).collect()
        for name in names:
            assert np.array_equal(eager[name].to_numpy(), lazy[name].to_numpy(),
                                  equal_nan=True), (ties, name)
