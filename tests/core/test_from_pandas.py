"""Python-string id columns read by runs (``string_runs``): every row gets the value Polars'
own reading of every object gives, runs or not, and a column that is not all strings
keeps Arrow's reading and its errors."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trunc_accessor  # noqa: F401  (registers .ir)
from trunc_accessor import InputError
from trunc_accessor.core import from_pandas
from trunc_accessor.core.frames import to_polars

N_ROWS = 20_000


def _runs(n_runs: int, n_rows: int = N_ROWS) -> np.ndarray:
    """Qids "q0", "q1", … in runs (one object per row, as ``astype(object)`` makes them)."""
    ids = np.repeat(np.arange(n_runs), -(-n_rows // n_runs))[:n_rows]
    return np.array([f"q{i}" for i in ids], dtype=object)


def test_a_qid_column_in_long_runs_is_read_by_runs_with_every_row_s_value():
    strings = _runs(200)
    out = from_pandas.string_runs(strings, "qid")
    assert out is not None
    assert out.equals(pl.Series("qid", strings, dtype=pl.String))


def test_equal_strings_that_are_one_object_are_read_by_runs():
    """pandas' readers (read_csv, read_parquet) give equal strings one object: only the
    rows where the object changes are compared."""
    codes, uniques = pd.factorize(_runs(300))
    strings = np.asarray(uniques, dtype=object)[codes]
    out = from_pandas.string_runs(strings, "qid")
    assert out is not None and out.to_list() == strings.tolist()


@pytest.mark.parametrize("strings", [
    np.array([f"d{i}" for i in range(N_ROWS)], dtype=object),  # a docid column: no runs
    _runs(N_ROWS // 8),  # runs of 8: too short to pay
    _runs(10, 1000),  # too few rows to try
])
def test_short_runs_or_few_rows_are_read_whole(strings):
    assert from_pandas.string_runs(strings, "qid") is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "7", "", "é", None]),
                          st.integers(1, 6)), min_size=1, max_size=40))
def test_runs_give_the_values_of_reading_every_object(runs):
    """Small thresholds, so that hypothesis' short lists take the run path; led by a string,
    as the caller (``pandas_column``) asks."""
    strings = np.array(["q"] + [v for v, n in runs for _ in range(n)], dtype=object)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(from_pandas, "RUNS_MIN_ROWS", 1)
        mp.setattr(from_pandas, "RUN_SAMPLE", 8)
        mp.setattr(from_pandas, "RUN_ROWS", 1)
        out = from_pandas.string_runs(strings, "qid")
    if out is not None:
        assert out.to_list() == strings.tolist()


def _frame(qids: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    run = pd.DataFrame({"qid": pd.Series(qids, dtype=object),
                        "docid": [f"d{i}" for i in range(len(qids))],
                        "score": np.linspace(1, 0, len(qids))})
    qrels = pd.DataFrame({"qid": ["q0", "q1"], "docid": ["d0", "d150"], "rel": [1, 1]})
    return run, qrels


def test_evaluate_from_object_qids_in_runs_equals_the_arrow_string_call():
    run, qrels = _frame(_runs(50, 5_000))
    ours = run.ir.evaluate(qrels, ["ndcg@10", "ap", "rr"])
    arrow = run.astype({"qid": "string[pyarrow]"}).ir.evaluate(qrels, ["ndcg@10", "ap", "rr"])
    pd.testing.assert_frame_equal(ours, arrow, check_index_type=False)


@pytest.mark.parametrize("odd", [7, b"q0", 7.5])
def test_a_value_that_is_not_a_string_inside_a_run_keeps_arrow_s_error(odd):
    qids = _runs(50, 5_000)
    qids[1234] = odd  # inside the first run of "q12"
    run, qrels = _frame(qids)
    with pytest.raises(InputError, match="run column 'qid'"):
        run.ir.evaluate(qrels, ["ap"])


@pytest.mark.parametrize("missing", [None, pd.NA, np.nan])
def test_a_missing_qid_inside_a_run_is_an_error_naming_the_column(missing):
    qids = _runs(50, 5_000)
    qids[1234] = missing
    run, qrels = _frame(qids)
    with pytest.raises(InputError, match="run column 'qid' has a missing value"):
        run.ir.evaluate(qrels, ["ap"])


def test_string_python_qids_in_runs_come_as_their_values():
    frame = pd.DataFrame({"qid": pd.Series(_runs(40, 8_000), dtype="string[python]")})
    out = to_polars(frame, ["qid"], "run", keys=("qid",))
    assert out["qid"].to_list() == frame["qid"].tolist()
