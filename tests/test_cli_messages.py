"""The command line's messages: one line on stderr, exit status 2, naming what is at fault
and, for a misspelling, the closest name it knows; usage texts of each mode."""
from __future__ import annotations

import gzip
import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from trunc_accessor import cli

from .conftest import DATA, need

TE = DATA / "trec_eval"


def _files():
    return [str(need(TE / "qrels.test")), str(need(TE / "results.test"))]


@pytest.mark.parametrize("measure,meant", [
    ("recal.5", "'recall'"), ("ndcg_cutt.10", "'ndcg_cut'"),
    ("iprec_at_recal..10,.20", "'iprec_at_recall'"), ("mapp", "'map'"),
    ("all_trc", "'all_trec'"),
])
def test_a_misspelt_measure_names_the_closest_one(measure, meant, capsys):
    """trec_eval's name.PARAMS with an unknown name said only 'cannot parse metric'."""
    assert cli.main(["-m", measure, *_files()]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "closest" in err and meant in err.split("closest")[1]


@pytest.mark.parametrize("argv,meant", [
    (["--formt", "tsv"], "did you mean --format?"),
    (["--lst"], "did you mean --list?"),
    (["--depht=3"], "did you mean --depth?"),
    (["--format", "jsn"], "did you mean 'json'?"),
    (["--ties", "averag"], "did you mean 'average'?"),
])
def test_a_misspelt_option_or_choice_names_the_closest_one(argv, meant, capsys):
    assert cli.main([*argv, *_files()]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and meant in err and err.startswith("trunc-accessor: ")


# --------------------------------------------------------------------------- ndeval's mode
WEB = DATA / "trec_web_2012"
NDEVAL = Path(__file__).resolve().parent / "data" / "ndeval"


def _ndeval(*argv) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main_ndeval([str(a) for a in argv]) == 0
    return out.getvalue()


def _prefixed(name: str) -> str:
    return {"all": lambda t: f"wt12-{t}",
            "mixed": lambda t: (f"wt12-{t}" if t % 2 == 0 else "0151" if t == 151
                                else "-153" if t == 153 else str(t))}[name]


@pytest.mark.parametrize("kind,argv,stored", [
    ("all", ["-traditional"], "ql-cata.all_prefixed.csv"),
    ("mixed", ["-c", "-traditional"], "ql-cata.mixed_prefixes.c.csv"),
])
def test_ndeval_mode_reads_a_task_prefix_as_ndeval(kind, argv, stored, tmp_path):
    """ndeval.c's parseTopic skips a run topic's prefix up to its first '-' (wt12-152 is
    152, -153 is 153) and reads numbers (0151 is 151): those topics are scored and averaged;
    all of them prefixed used to fail (no run qid in the qrels)."""
    with gzip.open(need(WEB / "ql-cata.run.gz"), "rt") as fh:
        lines = fh.read().splitlines()
    name = _prefixed(kind)
    run = tmp_path / "prefixed.run"
    run.write_text("".join(f"{name(int(line.split(None, 1)[0]))} {line.split(None, 1)[1]}\n"
                           for line in lines))
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(gzip.decompress(need(WEB / "qrels-for-ndeval.txt.gz").read_bytes()))
    assert _ndeval(*argv, qrels, run) == (NDEVAL / stored).read_text()


def test_ndeval_mode_prints_its_own_usage(capsys):
    """trunc-accessor-ndeval -h (and ndeval's -help) printed trec_eval's usage; now ndeval's
    options only, under the program's name."""
    for flag in ("-h", "-help", "--help"):
        with pytest.raises(SystemExit) as stop:
            cli.main_ndeval([flag])
        assert stop.value.code == 0
        text = capsys.readouterr().out
        assert text.startswith("usage: trunc-accessor-ndeval ")
        for option in ("-traditional", "-alpha", "-beta", "-M N", "-c "):
            assert option in text, option
        for foreign in ("-m MEASURE", "--list", "--import", "-q ", "all_trec", "trec_eval's"):
            assert foreign not in text, foreign
    assert cli.main_ndeval(["-m", "map", *_files()]) == 2
    err = capsys.readouterr().err
    assert err.startswith("trunc-accessor-ndeval: ") and err.count("\n") == 1


def _single_subtopic_qrels(path: Path) -> Path:
    """qrels-for-ndeval.txt with the first line of each (topic, docno) only: diversity qrels
    in which no document is judged for two subtopics (read as ad hoc by default)."""
    seen, out = set(), []
    for line in gzip.decompress(need(WEB / "qrels-for-ndeval.txt.gz").read_bytes()).decode() \
            .splitlines():
        q, _s, d, _g = line.split()
        if (q, d) not in seen:
            seen.add((q, d))
            out.append(line + "\n")
    path.write_text("".join(out))
    return path


def test_subtopics_flag_reads_diversity_qrels_that_look_ad_hoc(tmp_path, capsys):
    """Without a document judged for two subtopics the qrels read as ad hoc and a diversity
    measure is refused with a message naming --subtopics (it named read_qrels(...,
    subtopics=True), a Python call); with --subtopics the values are ndeval's."""
    qrels = str(_single_subtopic_qrels(tmp_path / "single.qrels"))
    run = str(need(WEB / "ql-cata.run.gz"))
    assert cli.main(["-m", "alpha_ndcg@5", qrels, run]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--subtopics" in err and "read_qrels" not in err
    assert cli.main(["--no-subtopics", "-m", "alpha_ndcg@5", qrels, run]) == 2
    assert "--no-subtopics" in capsys.readouterr().err
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["--subtopics", "-q", "-m", "alpha_nDCG@20,ERR_IA@20", qrels, run]) == 0
    got = {(line.split()[0], line.split()[1]): float(line.split()[2])
           for line in out.getvalue().splitlines()}
    rows = (NDEVAL / "ql-cata.one_subtopic_a_document.csv").read_text().splitlines()
    header = rows[0].split(",")
    for row in rows[1:]:
        cells = dict(zip(header, row.split(",")))
        topic = "all" if cells["topic"] == "amean" else cells["topic"]
        for ours, theirs in (("alpha_nDCG@20", "alpha-nDCG@20"), ("ERR_IA@20", "ERR-IA@20")):
            assert got[(ours, topic)] == pytest.approx(float(cells[theirs]), abs=5.1e-5)


def test_three_field_qrels_with_subtopics_name_the_option(tmp_path, capsys):
    """--subtopics (and ndeval's mode) on qrels without a subtopic field: the message names
    the command line's option or ndeval's format, not the Python argument subtopics=True."""
    three = tmp_path / "three.qrels"
    three.write_text("151 clueweb09-en0000-00-17600 1\n")
    run = str(need(WEB / "ql-cata.run.gz"))
    assert cli.main(["--subtopics", "-m", "map", str(three), run]) == 2
    err = capsys.readouterr().err
    assert "--subtopics" in err and "subtopics=True" not in err
    assert cli.main_ndeval([str(three), run]) == 2
    err = capsys.readouterr().err
    assert "ndeval's qrels have 4 fields" in err and "subtopics=True" not in err
