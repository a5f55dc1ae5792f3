"""``trunc_accessor.ir(run)``: the namespace of the run's library, typed per library (mypy
reads the overloads and the written-out metric methods)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import ROOT
from tests.frontends.test_namespaces_typed import CLASSES, _dask


def test_ir_returns_the_namespace_of_the_run_library():
    run, qrels = ta.load_example()
    frame = pl.from_pandas(run)
    answers = {"pandas": ta.ir(run), "polars": ta.ir(frame), "lazy": ta.ir(frame.lazy()),
               "dask": ta.ir(_dask(run))}
    for library, namespace in answers.items():
        assert type(namespace) is CLASSES[library](), library
    want = run.ir.ap(qrels)
    assert isinstance(answers["pandas"].ap(qrels), pd.Series)
    got = answers["polars"].ap(qrels)
    assert isinstance(got, pl.DataFrame)
    np.testing.assert_array_equal(got["ap"].to_numpy(), want.to_numpy())
    assert isinstance(answers["lazy"].ap(qrels), pl.LazyFrame)


@pytest.mark.parametrize("wrong", [[1, 2], {"qid": [1]}, pd.Series([1.0]), pl.Series([1]), None])
def test_ir_refuses_what_is_not_a_run_frame_naming_its_type(wrong):
    with pytest.raises(ta.InputTypeError, match=type(wrong).__qualname__):
        ta.ir(wrong)


def test_mypy_reads_the_types_of_the_typed_way_in(tmp_path):
    """mypy (pinned in the test extra) sees ``ta.ir(polars_run).ndcg(qrels, k=10)`` as a
    Polars DataFrame, a LazyFrame's as a LazyFrame, and flags a wrong argument type, an
    unknown metric, each on its own line; the correct calls type-check."""
    pytest.importorskip("mypy")
    (tmp_path / "good.py").write_text(textwrap.dedent('''\
        import polars as pl

        import trunc_accessor as ta

        run = pl.DataFrame({"qid": ["1"], "docid": ["d"], "score": [1.0]})
        qrels = pl.DataFrame({"qid": ["1"], "docid": ["d"], "rel": [1]})
        reveal_type(ta.ir(run).ndcg(qrels, k=10, ties="trec_eval"))
        reveal_type(ta.ir(run.lazy()).ap(qrels))
        reveal_type(ta.ir(run).evaluate(qrels, ["ap", "ndcg@10"]))
        reveal_type(ta.ir(run).truncate(10))
        '''))
    (tmp_path / "bad.py").write_text(textwrap.dedent('''\
        import polars as pl

        import trunc_accessor as ta

        run = pl.DataFrame({"qid": ["1"], "docid": ["d"], "score": [1.0]})
        ta.ir(run).ndcg(run, k="ten")
        ta.ir(run).ap(run, ties=3)
        ta.ir(run).no_such_metric(run)
        '''))
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--follow-imports=silent",
         "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), "good.py", "bad.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("good.py") and "error" in line] == []
    revealed = [line.split("Revealed type is ")[1] for line in lines if "Revealed type" in line]
    assert revealed == ['"polars.dataframe.frame.DataFrame"', '"polars.lazyframe.frame.LazyFrame"',
                        '"polars.dataframe.frame.DataFrame"', '"polars.dataframe.frame.DataFrame"']
    errors = [line for line in lines if line.startswith("bad.py")]
    assert len(errors) == 3, done.stdout + done.stderr
    assert errors[0].startswith("bad.py:6:") and 'Argument "k" to "ndcg"' in errors[0]
    assert '"int | None"' in errors[0]
    assert errors[1].startswith("bad.py:7:") and 'Argument "ties" to "ap"' in errors[1]
    assert errors[2].startswith("bad.py:8:") and "no_such_metric" in errors[2]
