"""The shipped Cranfield runs and qrels (trunc_accessor/data/cranfield) and the script that
makes them (examples/make_cranfield_runs.py)."""
import gzip
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA as SHARED_DATA
from tests.conftest import ROOT
from trunc_accessor.errors import InputError

SCRIPT = ROOT / "examples" / "make_cranfield_runs.py"
DATA = Path(ta.example_path("cranfield"))
SOURCE = Path(os.environ.get("CRANFIELD_DIR", SHARED_DATA / "cranfield"))

SYSTEMS = ["bm25", "bm25_stem", "bm25l_stem", "bm25plus_stem", "bm25_title", "ql_dirichlet",
           "tfidf"]


def test_shape(cranfield_full):
    runs, qrels = cranfield_full
    assert list(runs.columns) == ["qid", "docid", "score", "system"]
    assert list(qrels.columns) == ["qid", "docid", "rel"]
    assert sorted(runs["system"].unique()) == sorted(SYSTEMS)
    # every one of the 225 queries is judged and every system answers every query
    assert qrels["qid"].nunique() == 225
    assert (runs.groupby("system")["qid"].nunique() == 225).all()
    per_query = runs.groupby(["system", "qid"]).size()
    assert per_query.max() == 1000 and per_query.min() >= 1
    assert runs.groupby("system").size().to_dict() == {
        "bm25": 178226, "bm25_stem": 200666, "bm25l_stem": 200666, "bm25plus_stem": 200666,
        "bm25_title": 76056, "tfidf": 191054, "ql_dirichlet": 225000}
    assert not runs.duplicated(["system", "qid", "docid"]).any()
    assert set(runs["qid"]) == {str(i) for i in range(1, 226)}
    assert set(runs["docid"].astype(int)) <= set(range(1, 1401))


def test_ids_are_strings_and_grades_ints(cranfield):
    runs, qrels = cranfield
    for frame in (runs, qrels):
        assert all(isinstance(x, str) for x in frame["qid"].head(1000))
        assert all(isinstance(x, str) for x in frame["docid"].head(1000))
    assert str(qrels["rel"].dtype) == "int64"
    # ir_datasets' reading: 4 complete answer .. 1 minimum interest; -1 (no interest) -> 0
    assert qrels["rel"].value_counts().to_dict() == {3: 734, 2: 387, 4: 363, 0: 225, 1: 128}
    assert (qrels.groupby("qid")["rel"].apply(lambda g: (g == 0).sum()) == 1).all()
    assert len(qrels) == 1837


@pytest.mark.skipif(not (SOURCE / "cranqrel").exists(), reason="no Cranfield source files")
def test_qrels_conversion_against_source():
    raw = pd.read_csv(SOURCE / "cranqrel", sep=r"\s+", header=None,
                      names=["qid", "docid", "raw"], dtype=str)
    qrels = ta.read_qrels(DATA / "qrels.txt")
    assert qrels[["qid", "docid"]].equals(raw[["qid", "docid"]])
    assert (qrels["rel"] == raw["raw"].astype(int).clip(lower=0)).all()


def test_polars_and_backward_compatible_default():
    runs, qrels = ta.load_example("cranfield", library="polars")
    assert isinstance(runs, pl.DataFrame) and isinstance(qrels, pl.DataFrame)
    assert runs.schema["qid"] == pl.String and qrels.schema["rel"] == pl.Int64
    assert runs["system"].n_unique() == 7
    # the trec_eval example stays the default, positional library names keep working
    for run, _q in (ta.load_example(), ta.load_example(library="pandas"),
                    ta.load_example("pandas"), ta.load_example("trec_eval")):
        assert isinstance(run, pd.DataFrame) and run["system"].unique().tolist() == ["STANDARD"]
    run, _q = ta.load_example("polars")
    assert isinstance(run, pl.DataFrame) and run.height == 1500
    with pytest.raises(InputError):
        ta.load_example("nope")
    with pytest.raises(InputError):
        ta.load_example("polars", library="pandas")
    with pytest.raises(InputError):
        ta.load_example("cranfield", library="numpy")


def test_every_system_equals_pytrec_eval_per_query(cranfield_full):
    """nDCG@10 and AP of every shipped system, per query, equal pytrec_eval's on the same
    files (parsed here, not by the library; ties="trec_eval9" is pytrec_eval's order)."""
    import pytrec_eval

    runs, qrels = cranfield_full
    judged = {}
    for line in (DATA / "qrels.txt").read_text().splitlines():
        q, _, d, g = line.split()
        judged.setdefault(q, {})[d] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut_10", "map"})
    table = runs.ir.evaluate(qrels, ["ndcg@10", "ap"], by="system", ties="trec_eval9")
    assert table.groupby("system").size().eq(225).all()
    for path in sorted(DATA.glob("*.run.gz")):
        system = path.name.removesuffix(".run.gz")
        run = {}
        for line in gzip.decompress(path.read_bytes()).decode().splitlines():
            q, _, d, _, score, _ = line.split()
            run.setdefault(q, {})[d] = float(score)
        want = evaluator.evaluate(run)
        got = table.loc[system]
        for q, values in want.items():
            assert got.loc[q, "ndcg@10"] == pytest.approx(values["ndcg_cut_10"], abs=1e-9)
            assert got.loc[q, "ap"] == pytest.approx(values["map"], abs=1e-9)


def test_systems_are_plausible(cranfield_full):
    """Means in the range BM25-type models reach on Cranfield; stemming helps AP, titles
    alone do not (tie-aware means, the library's default)."""
    runs, qrels = cranfield_full
    means = runs.ir.evaluate(qrels, ["ndcg@10", "ap"], by="system").groupby("system").mean()
    assert means["ndcg@10"].between(0.25, 0.45).all() and means["ap"].between(0.2, 0.35).all()
    assert means.loc["bm25_stem", "ap"] > means.loc["bm25", "ap"]
    assert means.loc["bm25_title", "ap"] < means.loc["bm25_stem", "ap"]


def test_ties_are_kept(cranfield_full):
    runs, _qrels = cranfield_full
    tied = runs.duplicated(["system", "qid", "score"], keep=False).groupby(runs["system"]).sum()
    assert tied.to_dict() == {"bm25": 24631, "bm25_stem": 20861, "bm25l_stem": 20951,
                              "bm25plus_stem": 20913, "bm25_title": 60635, "ql_dirichlet": 85826,
                              "tfidf": 0}


def _first_by_pandas(runs: pd.DataFrame, depth: int) -> pd.DataFrame:
    """Each ranking's first ``depth`` rows in trec_eval's order (score descending, docid
    descending in byte order: trec_eval's qsort comparator, which ``-M`` then cuts), by
    pandas sorting (the docids are ASCII, where code point order is byte order), in the
    frame's row order."""
    ordered = runs.sort_values(["system", "qid", "score", "docid"],
                               ascending=[True, True, False, False], kind="stable")
    first = ordered.groupby(["system", "qid"], sort=False).head(depth)
    return runs.loc[first.index.sort_values()].reset_index(drop=True)


def test_depth_keeps_each_rankings_first_documents_in_trec_eval_order(cranfield_full,
                                                                       cranfield):
    runs, qrels = cranfield_full
    top, top_qrels = cranfield  # the tests' fixture: load_example("cranfield", depth=100)
    assert len(top) == 156874 and top.groupby(["system", "qid"]).size().max() == 100
    pd.testing.assert_frame_equal(top, _first_by_pandas(runs, 100), check_exact=True)
    pd.testing.assert_frame_equal(top_qrels, qrels)
    # ties across the cut (ranks 100 and 101 share a score; the script counts them too)
    pos = runs.groupby(["system", "qid"]).cumcount()
    s100 = runs[pos == 99].set_index(["system", "qid"])["score"]
    s101 = runs[pos == 100].set_index(["system", "qid"])["score"]
    across = (s100.reindex(s101.index) == s101).groupby(level="system").sum()
    assert across[across > 0].to_dict() == {"bm25": 1, "bm25_title": 112, "bm25l_stem": 1,
                                            "ql_dirichlet": 2}
    # another collection, Polars, a depth beyond every ranking, bad depths
    run, _ = ta.load_example("trec_eval")
    seven = ta.load_example("trec_eval", depth=7)[0]
    pd.testing.assert_frame_equal(seven, _first_by_pandas(run, 7), check_exact=True)
    pd.testing.assert_frame_equal(
        ta.load_example("trec_eval", library="polars", depth=7)[0].to_pandas(), seven,
        check_dtype=False, check_exact=True)
    pd.testing.assert_frame_equal(ta.load_example("trec_eval", depth=5000)[0], run)
    for bad in (0, -1, 2.5, True, "100"):
        with pytest.raises(ta.ParameterError, match="depth must be a whole number"):
            ta.load_example("trec_eval", depth=bad)


def test_shipped_files_are_tagged_by_system():
    for path in sorted(DATA.glob("*.run.gz")):
        first = gzip.decompress(path.read_bytes()).split(b"\n", 1)[0].split()
        assert len(first) == 6 and first[1] == b"Q0" and first[3] == b"1"
        assert first[5].decode() == path.name.removesuffix(".run.gz")


@pytest.mark.skipif(not (SOURCE / "cran.all.1400").exists(), reason="no Cranfield source files")
def test_script_reproduces_shipped_files(tmp_path):
    pytest.importorskip("bm25s")
    pytest.importorskip("Stemmer")
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    subprocess.run([sys.executable, str(SCRIPT), "--source", str(SOURCE), "--out",
                    str(tmp_path), "--quiet"], check=True, timeout=300)
    made = sorted(p.name for p in tmp_path.iterdir())
    shipped = sorted(p.name for p in DATA.iterdir() if p.name != "ORIGIN")
    assert made == shipped
    for name in made:
        new, old = (tmp_path / name).read_bytes(), (DATA / name).read_bytes()
        if name.endswith(".gz"):  # the content first, for a clearer failure
            assert gzip.decompress(new) == gzip.decompress(old), name
        assert new == old, name


def test_robust03_is_the_shared_trectools_pair():
    """load_example("robust03") holds exactly trectools' Robust 2003 run and qrels."""
    from tests.conftest import DATA, need

    run, qrels = ta.load_example("robust03")
    want_run = ta.read_run(need(DATA / "trectools" / "input.uic0301"))
    want_qrels = ta.read_qrels(need(DATA / "trectools" / "robust03_cs_qrels.txt"))
    pd.testing.assert_frame_equal(run, want_run)
    pd.testing.assert_frame_equal(qrels, want_qrels)
    assert run["qid"].nunique() == 100 and set(run["system"]) == {"uic0301"}
