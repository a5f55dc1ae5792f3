"""Qrels named by ir_datasets ids ("irds:<id>"), offline: a stand-in dataset object (and a
stand-in ``ir_datasets`` module), and the real ir_datasets building its ``cranfield``
dataset from a local copy of the collection's cranqrel (tests/data/cranfield_irds/)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import types
from collections import namedtuple
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import InputError
from trunc_accessor.frontends.cli import trec_eval as cli

HERE = Path(__file__).resolve().parents[1]
ROOT = HERE.parent
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
SubtopicQrel = namedtuple("SubtopicQrel", ["query_id", "doc_id", "relevance", "subtopic_id"])
JUDGMENTS = [("q1", "d1", 2, "0"), ("q1", "d2", 0, "0"), ("q1", "q1", 1, "0"),
             ("q2", "d3", 1, "0"), ("q2", "d4", 0, "0")]


class StandIn:
    """What read_qrels uses of an ir_datasets dataset."""

    def __init__(self, rows=JUDGMENTS, cls=TrecQrel, official=("nDCG@10", "RR(rel=2)")):
        self.rows, self.cls, self.official = rows, cls, official

    def has_qrels(self):
        return True

    def qrels_cls(self):
        return self.cls

    def qrels_iter(self):
        return (self.cls(*r) for r in self.rows)

    def documentation(self):
        return {"pretty_name": "stand-in", "official_measures": list(self.official)}


@pytest.fixture
def fake_irds(monkeypatch):
    datasets = {"stand-in/test": StandIn(), "stand-in/plain": StandIn(official=()),
                "stand-in/diversity": StandIn([("q1", "d1", 1, "1"), ("q1", "d1", 0, "2")],
                                              SubtopicQrel)}

    def load(name):
        if name not in datasets:
            raise KeyError(name)
        return datasets[name]

    module = types.ModuleType("ir_datasets")
    module.load = load
    monkeypatch.setitem(sys.modules, "ir_datasets", module)
    return datasets


RUN = pd.DataFrame({"qid": ["q1", "q1", "q1", "q2", "q2"], "docid": ["q1", "d2", "d1", "d4", "d3"],
                    "score": [5.0, 4.0, 3.0, 2.0, 1.0]})


def test_read_qrels_from_an_irds_id(fake_irds):
    qrels = ta.read_qrels("irds:stand-in/test")
    assert qrels.to_dict("list") == {"qid": ["q1", "q1", "q1", "q2", "q2"],
                                    "docid": ["d1", "d2", "q1", "d3", "d4"],
                                    "rel": [2, 0, 1, 1, 0]}
    assert qrels.attrs["official_measures"] == ["nDCG@10", "RR(rel=2)"]
    polars = ta.read_qrels("irds:stand-in/test", library="polars")
    assert polars.equals(pl.from_pandas(qrels))
    # a dataset object directly
    assert ta.read_qrels(fake_irds["stand-in/test"]).equals(qrels)
    assert ta.official_measures("irds:stand-in/test") == ["nDCG@10", "RR(rel=2)"]


def test_official_measures_are_the_datasets(fake_irds):
    for library in ("pandas", "polars"):
        qrels = ta.read_qrels("irds:stand-in/test", library=library)
        run = RUN if library == "pandas" else pl.from_pandas(RUN)
        official = run.ir.evaluate(qrels, "official")
        explicit = run.ir.evaluate(qrels, ["nDCG@10", "RR(rel=2)"])
        assert list(official.columns)[-2:] == ["nDCG@10", "RR(rel=2)"]
        assert official.equals(explicit)
        mixed = run.ir.evaluate(qrels, ["official", "P@1"])
        assert list(mixed.columns)[-3:] == ["nDCG@10", "RR(rel=2)", "P@1"]
    # a dataset that names none, and qrels from a file: trec_eval's official measures
    plain = ta.read_qrels("irds:stand-in/plain")
    assert "map" in RUN.ir.evaluate(plain, "official").columns
    assert "map" in RUN.ir.evaluate(plain.copy(), "official").columns


def test_irds_errors(fake_irds, monkeypatch, tmp_path):
    with pytest.raises(InputError, match="ir_datasets has no dataset 'nope/x'"):
        ta.read_qrels("irds:nope/x")
    with pytest.raises(InputError, match=r"\['subtopic_id'\].*not keep"):
        ta.read_qrels("irds:stand-in/diversity", subtopics=False)
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # not installed
    with pytest.raises(ImportError, match=r'pip install "trunc_accessor\[datasets\]"'):
        ta.read_qrels("irds:stand-in/test")
    # a file of that name is a file first, as ir_measures does
    monkeypatch.chdir(tmp_path)
    Path("irds:stand-in").mkdir()
    (tmp_path / "irds:stand-in" / "test").write_text("q9 0 d9 1\n")
    assert ta.read_qrels("irds:stand-in/test")["qid"].tolist() == ["q9"]


def test_ignore_identical_ids():
    qrels = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["d1", "q1", "d3"], "rel": [1, 1, 1]})
    got = RUN.ir.evaluate(qrels, ["rr", "P@2"], ignore_identical_ids=True)
    expected = RUN[RUN["qid"] != RUN["docid"]].ir.evaluate(qrels, ["rr", "P@2"])
    assert got.equals(expected) and got.loc["q1", "rr"] == 0.5
    assert RUN.ir.evaluate(qrels, ["rr"]).loc["q1", "rr"] == 1.0  # the query retrieves itself
    lazy = pl.from_pandas(RUN).lazy().ir.evaluate(qrels, ["rr"], ignore_identical_ids=True)
    assert lazy.collect()["rr"].to_list() == [0.5, 0.5]


def test_cli_irds_qrels_official_and_identical_ids(fake_irds, tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} {i} {s} sys\n" for i, (q, d, s)
                           in enumerate(RUN.itertuples(index=False))))
    assert cli.main(["irds:stand-in/test", str(run)]) == 0
    lines = [ln.split() for ln in capsys.readouterr().out.splitlines()]
    assert [ln[0] for ln in lines] == ["nDCG@10", "RR(rel=2)"]
    expected = RUN.ir.evaluate(ta.read_qrels("irds:stand-in/test"), ["nDCG@10", "RR(rel=2)"],
                               ties="trec_eval").mean()
    assert float(lines[0][2]) == pytest.approx(expected["nDCG@10"], abs=5e-5)
    assert cli.main(["-m", "RR", "irds:stand-in/test", str(run)]) == 0
    assert capsys.readouterr().out.split()[-1] == "0.7500"  # q1 retrieves itself first: 1
    assert cli.main(["-m", "RR", "--ignore-identical-ids", "irds:stand-in/test", str(run)]) == 0
    assert capsys.readouterr().out.split()[-1] == "0.5000"  # without it, q1: 1/2; q2: 1/2
    assert cli.main(["-m", "RR", "irds:nope/x", str(run)]) == 2
    assert "ir_datasets has no dataset" in capsys.readouterr().err


def test_real_ir_datasets_cranfield_from_local_files(tmp_path):
    """ir_datasets 0.6's ``cranfield`` caches its qrels as <home>/cranfield/qrels.txt (the
    tarball's cranqrel, extracted): with that file in place it reads them without the
    network. IR_DATASETS_HOME is read when ir_datasets is imported, hence a subprocess."""
    pytest.importorskip("ir_datasets")
    home = tmp_path / "irds"
    (home / "cranfield").mkdir(parents=True)
    shutil.copy(HERE / "data" / "cranfield_irds" / "cranqrel", home / "cranfield" / "qrels.txt")
    run_file = ROOT / "trunc_accessor" / "data" / "cranfield" / "bm25.run.gz"
    code = f"""
import polars as pl, trunc_accessor as ta
from trunc_accessor.frontends.cli import trec_eval as cli
irds = ta.read_qrels("irds:cranfield", library="polars")
local = ta.read_qrels({str(HERE / "data" / "cranfield_irds" / "cranqrel")!r}, library="polars")
assert irds.equals(local), (irds.head(), local.head())
print(irds.height, ta.official_measures("irds:cranfield"))
cli.main(["-m", "map,ndcg_cut_10", "irds:cranfield", {str(run_file)!r}])
cli.main(["-m", "map,ndcg_cut_10", {str(HERE / "data" / "cranfield_irds" / "cranqrel")!r},
          {str(run_file)!r}])
"""
    env = {**os.environ, "IR_DATASETS_HOME": str(home), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "1837 []"
    assert lines[1:3] == lines[3:5] and [ln.split()[0] for ln in lines[1:3]] == [
        "map", "ndcg_cut_10"]
    assert not (home / "cranfield" / "cran.tar.gz").exists()  # nothing was downloaded


def test_irds_diversity_qrels_keep_their_subtopic():
    """ir_datasets' TrecSubQrel (its subtopic_id field) becomes the subtopic column, and a
    TrecQrel whose iteration field holds subtopics too: the diversity measures then equal
    those on the same judgments read from the TREC file."""
    runs, from_file = ta.load_example("web2012")
    rows = list(from_file[["qid", "docid", "rel", "subtopic"]].itertuples(index=False,
                                                                         name=None))
    measures = ["alpha_ndcg@20", "err_ia@20", "map_ia", "s_recall@10"]
    expected = runs.ir.evaluate(from_file, measures, by="system")
    for cls in (SubtopicQrel, TrecQrel):
        qrels = ta.read_qrels(StandIn([(q, d, r, str(s)) for q, d, r, s in rows], cls))
        assert list(qrels.columns) == ["qid", "subtopic", "docid", "rel"]
        got = runs.ir.evaluate(qrels, measures, by="system")
        pd.testing.assert_frame_equal(got, expected)
    # ad hoc qrels (iteration "0" everywhere) have no subtopic column
    assert list(ta.read_qrels(StandIn()).columns) == ["qid", "docid", "rel"]


class Unreachable(StandIn):
    """A dataset whose files are not cached and cannot be fetched."""

    def __init__(self, error):
        super().__init__()
        self.error = error

    def qrels_iter(self):
        raise self.error


def test_qrels_that_cannot_be_downloaded_are_an_input_error():
    """What ir_datasets raises when a download fails (its RuntimeError after every mirror,
    a requests ConnectionError with one mirror, an OSError writing its cache) becomes an
    InputError that says how to get the files."""
    requests = pytest.importorskip("requests")
    for error in (RuntimeError("All download sources failed", []),
                  requests.exceptions.ConnectionError("Max retries exceeded with url"),
                  PermissionError(13, "Permission denied", "/nowhere/.ir_datasets")):
        for library in ("pandas", "polars"):
            with pytest.raises(InputError, match=r"could not fetch or read its qrels .*"
                               r"IR_DATASETS_HOME.*network access") as info:
                ta.read_qrels(Unreachable(error), library=library)
            assert type(error).__name__ in str(info.value)


def test_real_ir_datasets_download_failure_is_an_input_error(tmp_path):
    """The real ir_datasets with an empty IR_DATASETS_HOME and its download made to fail as
    it does offline: read_qrels and the command line name the remedy, no traceback of
    ir_datasets' own exceptions."""
    pytest.importorskip("ir_datasets")
    run_file = ROOT / "trunc_accessor" / "data" / "cranfield" / "bm25.run.gz"
    code = f"""
import requests, ir_datasets.util.download as dl
import trunc_accessor as ta
from trunc_accessor.frontends.cli import trec_eval as cli
for error in (RuntimeError("All download sources failed", []),
              requests.exceptions.ConnectionError("Max retries exceeded")):
    def fail(self, force=True, error=error):
        raise error
    dl.Download.path = fail
    try:
        ta.read_qrels("irds:cranfield")
    except ta.InputError as e:
        print(type(error).__name__, "IR_DATASETS_HOME" in str(e))
    print("cli", cli.main(["-m", "map", "irds:cranfield", {str(run_file)!r}]))
"""
    env = {**os.environ, "IR_DATASETS_HOME": str(tmp_path / "irds"), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:4] == ["RuntimeError True", "cli 2",
                                          "ConnectionError True", "cli 2"], out.stdout
    assert "could not fetch or read its qrels" in out.stderr
    assert "Traceback" not in out.stderr
