"""Every layout of identifier columns a user hands in gives the values of the Arrow-string
call on the same frame content: pandas object strings, ``category``, ``string[python]``,
``string[pyarrow]``, integer qids and docids, mixed (integer qid, string docid), and Polars
``Categorical`` and ``Enum``; with the identifier rule (integers compared as their decimal
digits when the other frame holds strings, said in one ``IdentifierWarning``), the result's
dtypes, and the user's frames left as they were."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import InputError

METRICS = ["ndcg@10", "ap", "rr", "P@10"]


def _content() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Digit-only ids (so each layout, integers included, holds the same content), tied
    scores, a run-only qid and a qrels-only qid, unjudged and negative-graded documents."""
    rng = np.random.default_rng(31)
    run_rows, qrels_rows = [], []
    for q in range(1, 41):
        docs = rng.choice(np.arange(1, 400), size=int(rng.integers(5, 30)), replace=False)
        scores = np.round(rng.normal(size=len(docs)), 1)  # ties
        run_rows += [(str(q), str(d), float(s)) for d, s in zip(docs, scores)]
        if q == 40:
            continue  # a run-only qid
        judged = rng.choice(np.arange(1, 400), size=25, replace=False)
        judged = np.union1d(judged, docs[: len(docs) // 2])
        qrels_rows += [(str(q), str(d), int(rng.integers(-1, 3))) for d in judged]
    qrels_rows += [("41", "5", 1)]  # a qrels-only qid: an empty ranking
    run = pd.DataFrame(run_rows, columns=["qid", "docid", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docid", "rel"])
    return run, qrels


def _as(frame: pd.DataFrame, qid, docid) -> pd.DataFrame:
    out = frame.copy()
    out["qid"] = qid(frame["qid"])
    out["docid"] = docid(frame["docid"])
    return out


def _arrow(s: pd.Series) -> pd.Series:
    return s.astype("string[pyarrow]")


def _integer(s: pd.Series) -> pd.Series:
    return s.astype(np.int64)


def _int_category(s: pd.Series) -> pd.Series:
    return s.astype(np.int64).astype("category")


PANDAS_LAYOUTS = {
    "object": lambda s: s.astype(object),
    "category": lambda s: s.astype("category"),
    "string[python]": lambda s: s.astype("string[python]"),
    "string[pyarrow]": _arrow,
    "str": lambda s: s.astype(str),
}


def _evaluate(run, qrels):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = run.ir.evaluate(qrels, METRICS)
    identifier = [w for w in caught if issubclass(w.category, ta.IdentifierWarning)]
    return out, identifier


def _reference() -> pd.DataFrame:
    run, qrels = _content()
    out, identifier = _evaluate(_as(run, _arrow, _arrow), _as(qrels, _arrow, _arrow))
    assert not identifier
    return out


def _same_values(out: pd.DataFrame, ref: pd.DataFrame) -> None:
    assert list(out.columns) == list(ref.columns)
    assert [str(q) for q in out.index] == list(ref.index)
    np.testing.assert_array_equal(out.to_numpy(), ref.to_numpy())  # exactly, NaN included


@pytest.mark.parametrize("layout", list(PANDAS_LAYOUTS))
def test_pandas_string_layouts_give_the_arrow_string_values(layout):
    ref = _reference()
    run, qrels = _content()
    f = PANDAS_LAYOUTS[layout]
    r, q = _as(run, f, f), _as(qrels, f, f)
    r0, q0 = r.copy(), q.copy()
    out, identifier = _evaluate(r, q)
    assert not identifier
    _same_values(out, ref)
    assert out.index.dtype == ref.index.dtype
    pd.testing.assert_frame_equal(r, r0)  # the user's frames are left as they were
    pd.testing.assert_frame_equal(q, q0)


@pytest.mark.parametrize("layout", ["int qid and docid", "int qid, string docid",
                                    "int docid, category qid", "category of integers"])
def test_pandas_integer_layouts_give_the_arrow_string_values(layout):
    ref = _reference()
    run, qrels = _content()
    qid, docid = {"int qid and docid": (_integer, _integer),
                  "int qid, string docid": (_integer, lambda s: s.astype(object)),
                  "int docid, category qid": (lambda s: s.astype("category"), _integer),
                  "category of integers": (_int_category, _int_category)}[layout]
    out, identifier = _evaluate(_as(run, qid, docid), _as(qrels, qid, docid))
    assert not identifier
    _same_values(out, ref)
    if qid in (_integer, _int_category):
        assert out.index.dtype == np.int64
    else:
        assert out.index.dtype == ref.index.dtype


@pytest.mark.parametrize("layout", list(PANDAS_LAYOUTS))
@pytest.mark.parametrize("column", ["qid", "docid"])
def test_integer_run_ids_against_string_qrels_ids_warn_and_match_as_digits(layout, column):
    """One frame holds integers, the other strings of the layout: compared as strings (7
    matches "7"), with one IdentifierWarning naming the column."""
    ref = _reference()
    run, qrels = _content()
    f = PANDAS_LAYOUTS[layout]
    ints = {"qid": (_integer, f), "docid": (f, _integer)}[column]
    out, identifier = _evaluate(_as(run, *ints), _as(qrels, f, f))
    assert len(identifier) == 1
    assert f"run column {column!r} is Int64" in str(identifier[0].message)
    _same_values(out, ref)


@pytest.mark.parametrize("kind", ["Categorical", "Enum"])
def test_polars_categorical_and_enum_ids_give_the_string_values(kind):
    run, qrels = _content()
    r, q = pl.from_pandas(run), pl.from_pandas(qrels)
    ref, identifier = _evaluate(r, q)
    assert not identifier
    if kind == "Enum":
        dtype: pl.DataType = pl.Enum(sorted(set(r["docid"]) | set(q["docid"])
                                            | set(r["qid"]) | set(q["qid"])))
    else:
        dtype = pl.Categorical()
    rc = r.with_columns(pl.col("qid", "docid").cast(dtype))
    qc = q.with_columns(pl.col("qid", "docid").cast(dtype))
    out, identifier = _evaluate(rc, qc)
    assert not identifier
    assert out["qid"].dtype == pl.String  # identifiers compare (and come back) as strings
    assert out.columns == ref.columns
    assert out["qid"].to_list() == ref["qid"].to_list()
    for m in out.columns[1:]:
        np.testing.assert_array_equal(out[m].to_numpy(), ref[m].to_numpy())
    mixed = rc.with_columns(pl.col("qid").cast(pl.String).cast(pl.Int64))
    out, identifier = _evaluate(mixed, qc)
    assert len(identifier) == 1
    assert out["qid"].to_list() == ref["qid"].to_list()


@pytest.mark.parametrize("layout", ["object", "category", "string[python]"])
@pytest.mark.parametrize("column", ["qid", "docid"])
def test_missing_id_in_each_layout_is_an_error_naming_the_column(layout, column):
    run, qrels = _content()
    run = run.astype({column: object})
    run.loc[3, column] = None
    f = PANDAS_LAYOUTS[layout]
    r = _as(run, f, f)
    with pytest.raises(InputError, match=f"run column '{column}' has a missing value"):
        r.ir.evaluate(qrels, METRICS)


def test_object_ids_of_several_types_are_an_error_naming_the_column():
    run, qrels = _content()
    run = run.astype({"docid": object})
    run.loc[3, "docid"] = 7
    with pytest.raises(InputError, match="run column 'docid' holds values of several types"):
        run.ir.evaluate(qrels, METRICS)


def test_category_and_polars_categorical_ids_come_to_the_engine_as_their_values():
    """Only the distinct values of a category id column are converted (its codes gather
    them): no Polars Categorical is built, and an Enum becomes strings without reading
    its type; other columns keep Arrow's types."""
    from trunc_accessor.core.frames import to_polars

    frame = pd.DataFrame({"qid": pd.Series(["2", "1", None, "2"], dtype="category"),
                          "docid": pd.Series([7, 5, 5, 7]).astype("category"),
                          "tag": pd.Series(["a", "b", "a", "b"], dtype="category")})
    out = to_polars(frame, ["qid", "docid", "tag"], "run", keys=("qid", "docid"))
    assert [out.schema[c] for c in ("qid", "docid")] == [pl.String, pl.Int64]
    assert out.schema["tag"] == pl.Categorical  # not an id column: as Arrow reads it
    assert out["qid"].to_list() == ["2", "1", None, "2"]
    assert out["docid"].to_list() == [7, 5, 5, 7]
    polars = pl.DataFrame({"qid": ["2", "1"], "docid": ["b", "a"], "tag": ["x", "y"]}).with_columns(
        pl.col("qid").cast(pl.Enum(["1", "2"])), pl.col("docid", "tag").cast(pl.Categorical))
    out = to_polars(polars, ["qid", "docid", "tag"], "run", keys=("qid", "docid"))
    assert [out.schema[c] for c in ("qid", "docid")] == [pl.String, pl.String]
    assert out.schema["tag"] == pl.Categorical
    assert out.rows() == [("2", "b", "x"), ("1", "a", "y")]


@pytest.mark.parametrize("values", [[b"7", b"8"], ["7", 8], ["7", b"8"], [None, "7"],
                                    [np.str_("7"), "8"]])
def test_object_ids_that_are_not_all_strings_keep_arrow_s_reading(values):
    """Python strings go straight to Polars; anything else (bytes, mixed types) is read as
    Arrow reads it, with its errors."""
    from trunc_accessor.core.frames import to_polars

    frame = pd.DataFrame({"docid": pd.Series(values, dtype=object)})
    try:
        expected = pl.from_pandas(frame)
    except Exception:  # noqa: BLE001 - Arrow refuses: so must we, naming the column
        with pytest.raises(InputError, match="run column 'docid'"):
            to_polars(frame, ["docid"], "run", keys=("docid",))
        return
    out = to_polars(frame, ["docid"], "run", keys=("docid",))
    assert out.schema == expected.schema
    assert out.rows() == expected.rows()


@pytest.mark.parametrize("layout", ["object", "category", "string[python]"])
def test_truncate_rbo_and_identical_ids_read_every_layout_as_its_values(layout):
    """The other ways in that read ids (truncate, truncate_at, rbo, dropping a document
    that is its own query) give for each layout what they give for Arrow strings, and
    truncate returns the user's rows in their own dtypes."""
    from trunc_accessor.core.frames import drop_identical_ids

    run, _ = _content()
    run.loc[0, "docid"] = run.loc[0, "qid"]  # a document that is its own query
    f = PANDAS_LAYOUTS[layout]
    r, ref = _as(run, f, f), _as(run, _arrow, _arrow)
    cut = r.ir.truncate(5)
    assert list(cut.dtypes) == list(r.dtypes)
    assert cut.index.equals(ref.ir.truncate(5).index)
    assert r.ir.truncate_at("7").index.equals(ref.ir.truncate_at("7").index)
    pd.testing.assert_frame_equal(r.ir.rbo(r.iloc[::-1]), ref.ir.rbo(ref.iloc[::-1]),
                                  check_index_type=False)
    assert drop_identical_ids(r).index.equals(drop_identical_ids(ref).index)
