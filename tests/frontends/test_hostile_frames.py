"""Hostile frames through every public surface that reads a run or qrels frame: each call
returns a value or raises the library's InputError, never another library's exception.

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import only_library_errors


def _hostile_columns(n: int) -> dict:
    """Column values a caller can hand over where ids, scores, grades, subtopics or weights
    are expected: Polars Series of every awkward kind."""
    import datetime
    import decimal

    return {
        "list": pl.Series([[1]] * n), "array": pl.Series([[1, 2]] * n, dtype=pl.Array(pl.Int64, 2)),
        "struct": pl.Series([{"a": 1}] * n), "object": pl.Series([object()] * n, dtype=pl.Object),
        "uint64 max": pl.Series([2 ** 64 - 1] * (n - 1) + [2 ** 63], dtype=pl.UInt64),
        "int64 min": pl.Series([-2 ** 63] * n, dtype=pl.Int64),
        "nan": pl.Series([np.nan] * n),
        "inf": pl.Series([np.inf, -np.inf] * (n // 2) + [1.0] * (n % 2)),
        "huge float": pl.Series([1e308, -1e308] * (n // 2) + [1e300] * (n % 2)),
        "subnormal": pl.Series([5e-324] * n), "text": pl.Series(["x"] * n),
        "numeric text": pl.Series(["1e400"] * n), "boolean": pl.Series([True] * n),
        "date": pl.Series([datetime.date(2020, 1, 1)] * n),
        "duration": pl.Series([datetime.timedelta(1)] * n),
        "decimal": pl.Series([decimal.Decimal("1e20")] * n), "binary": pl.Series([b"a"] * n),
        "null": pl.Series([None] * n), "categorical": pl.Series(["a"] * n, dtype=pl.Categorical),
    }


HOSTILE_RUN = {"qid": ["1", "1", "2", "2"], "docid": ["a", "b", "c", "d"],
               "score": [2.0, 1.0, 3.0, 1.0], "rank": [1, 2, 1, 2], "system": ["x", "y", "x", "y"]}
HOSTILE_QRELS = {"qid": ["1", "1", "2"], "subtopic": [1, 2, 1], "docid": ["a", "b", "c"],
                 "rel": [1, 0, 2], "weight": [1.0, 2.0, 1.0]}


def _surfaces(run, qrels, tmp_path):
    """The public calls that read a run and/or qrels frame."""
    yield lambda: run.ir.evaluate(qrels, ["ap", "ndcg@2", "rr", "iprec_at_recall", "infap",
                                          "alpha_ndcg@2", "err_ia", "p_ia@2", "map_ia"])
    yield lambda: run.ir.evaluate(qrels, ["P@1", "nrbp"], by="system", ties="first",
                                  undefined="nan")
    yield lambda: run.ir.truncate(1, by="system")
    yield lambda: run.ir.cutoff_curve(qrels, "ap", max_depth=2, by="system")
    yield lambda: run.ir.crp(qrels, by="system")
    yield lambda: run.ir.rbo(run)
    yield lambda: run.ir.overlap(run, 2)
    yield lambda: ta.fuse(run, "combsum", by="system")
    yield lambda: ta.write_run(run, tmp_path / "out.run")
    yield lambda: ta.judges.cohen_kappa({"a": qrels, "b": qrels})
    yield lambda: ta.judges.leaderboard_agreement(run, qrels, qrels, ["ap"], by="system",
                                                  n_resamples=10)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("kind", sorted(_hostile_columns(2)))
def test_hostile_columns_give_a_library_error_or_a_value(kind, tmp_path):
    """Every column of a run and of diversity qrels replaced by awkward values (lists,
    structs, objects, 64-bit extremes, NaN/inf, text, dates, decimals, nulls…), as Polars,
    LazyFrame and pandas frames, through every surface that reads frames: each call returns
    a value or raises the library's InputError, never a Polars/NumPy/pandas exception (found
    so: a subtopic or weight column cast strictly, rbo/overlap binning a missing qid,
    truncate asking a decimal score for NaN, write_run casting a struct score,
    leaderboard_agreement casting a list qid)."""
    stray = []
    for side, base in (("run", HOSTILE_RUN), ("qrels", HOSTILE_QRELS)):
        values = _hostile_columns(len(base["qid"]))[kind]
        for col in base:
            frame = pl.DataFrame(base).with_columns(values.alias(col))
            for lib, convert in (("polars", lambda f: f), ("lazy", lambda f: f.lazy()),
                                 ("pandas", lambda f: f.to_pandas())):
                try:
                    hostile = convert(frame)
                except Exception:  # noqa: BLE001 - a frame pandas cannot hold
                    continue
                other = convert(pl.DataFrame(HOSTILE_QRELS if side == "run" else HOSTILE_RUN))
                run, qrels = (hostile, other) if side == "run" else (other, hostile)
                calls = list(_surfaces(run, qrels, tmp_path))
                found = only_library_errors(calls[:2] if lib == "lazy" else calls)
                stray += [(side, col, lib, *f) for f in found]
    assert not stray, stray


@pytest.mark.filterwarnings("ignore")
def test_hostile_frames_give_a_library_error_or_a_value(tmp_path):
    """Empty frames, column names that are not strings (int, None, tuple; MultiIndex,
    duplicates), ids beyond 64 bits, pandas extension types: a value or an InputError on
    every surface (write_run raised pandas' KeyError on a non-string column name)."""
    run = pd.DataFrame(HOSTILE_RUN).drop(columns="rank")
    qrels = pd.DataFrame(HOSTILE_QRELS).drop(columns="weight")
    named = {"int": 7, "None": None, "tuple": ("a", "b"), "float": 3.5}
    cases = [(run.iloc[0:0], qrels), (run, qrels.iloc[0:0]), (run.iloc[0:0], qrels.iloc[0:0]),
             (pd.concat([run, run[["score"]]], axis=1), qrels),
             (run.set_axis(pd.MultiIndex.from_tuples([(c, "") for c in run.columns]), axis=1),
              qrels),
             (run.assign(qid=[2 ** 70] * 2 + [1] * 2), qrels.assign(qid=[2 ** 70] * 2 + [1])),
             (run.assign(qid=[1, "1", 2, 2]), qrels),
             (run.assign(qid=pd.array([1, 1, None, 2], dtype="Int64")), qrels),
             (run.assign(score=[1j, 2j, 1, 2]), qrels),
             (run.assign(docid=pd.interval_range(0, 4)), qrels),
             (run.assign(score=pd.to_datetime(["2020"] * 4)), qrels),
             (run, qrels.assign(rel=np.array([2 ** 64 - 1, 0, 1], dtype=np.uint64))),
             (run, qrels.assign(subtopic=[1, "a", 2.5])),
             (run, qrels.assign(weight=[1, "a", 2]))]
    cases += [(run.assign(**{"_": 1}).rename(columns={"_": name}), qrels)
              for name in named.values()]
    stray = []
    for i, (r, q) in enumerate(cases):
        frames = [(r, q)]
        try:
            frames.append((pl.from_pandas(r), pl.from_pandas(q)))
        except Exception:  # noqa: BLE001 - a frame Polars cannot hold
            pass
        for a, b in frames:
            stray += [(i, *f) for f in only_library_errors(_surfaces(a, b, tmp_path))]
    assert not stray, stray
