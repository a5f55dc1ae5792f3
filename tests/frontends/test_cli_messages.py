"""The command line's messages: one line on stderr, exit status 2, naming what is at fault
and, for a misspelling, the closest name it knows; usage texts of each mode."""
from __future__ import annotations

import gzip
import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from tests.conftest import DATA, need
from trunc_accessor.frontends.cli import trec_eval as cli

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
NDEVAL = Path(__file__).resolve().parents[1] / "data" / "ndeval"


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


# --------------------------------------------------------------------------- --import
ROOT = Path(__file__).resolve().parents[2]
USER_METRIC = (
    "import trunc_accessor as ta\n\n"
    "@ta.metric('first_hit_rank_cli')\n"
    "def first_hit_rank_cli(grades, judged, level):\n"
    "    hits = [i for i, g in enumerate(grades, 1) if g >= level]\n"
    "    return float(hits[0]) if hits else 0.0\n")


def _console_script(tmp_path: Path, *argv, cwd: Path):
    """The installed console script as pip writes it (its folder, not the working
    directory, is sys.path[0]), run from ``cwd``."""
    import os
    import subprocess
    import sys

    script = tmp_path / "bin" / "trunc-accessor"
    script.parent.mkdir(exist_ok=True)
    script.write_text("import re\nimport sys\n"
                      "from trunc_accessor.frontends.cli.trec_eval import main\n"
                      "if __name__ == '__main__':\n"
                      "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
                      "    sys.exit(main())\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(script), *map(str, argv)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("given", ["mymetrics", "./mymetrics.py", "mymetrics.py"])
def test_import_finds_a_module_of_the_working_directory_from_the_console_script(
        given, tmp_path):
    """`trunc-accessor --import mymetrics` (the README's line) failed from the installed
    script ("No module named 'mymetrics'"), and ./mymetrics.py raised importlib's "the
    'package' argument is required"."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "mymetrics.py").write_text(USER_METRIC)
    done = _console_script(tmp_path, "--import", given, "-q", "-m",
                           "first_hit_rank_cli,recip_rank", need(TE / "qrels.test"),
                           need(TE / "results.test"), cwd=work)
    assert done.returncode == 0, done.stderr
    values = {}
    for line in done.stdout.splitlines():
        name, qid, value = line.split("\t")
        values[(name.strip(), qid)] = float(value)
    for qid in ("301", "302", "303"):  # trec_eval's recip_rank is 1 / the first hit's rank
        assert values[("first_hit_rank_cli", qid)] == pytest.approx(
            1 / values[("recip_rank", qid)], rel=1e-3)


@pytest.mark.parametrize("given,says", [
    ("nomodule", "no module 'nomodule' in the working directory"),
    ("./nofile.py", "no such file"),
    ("broken", "ModuleNotFoundError: No module named 'not_installed_dep'"),
    ("./syntax.py", "SyntaxError"),
    ("raises", "RuntimeError: boom"),
    ("not-a-name", "not a module name"),
])
def test_import_failures_are_one_line_errors(given, says, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "broken.py").write_text("import not_installed_dep\n")
    (work / "syntax.py").write_text("x = (\n")
    (work / "raises.py").write_text("raise RuntimeError('boom')\n")
    done = _console_script(tmp_path, "--import", given, "-m", "map", need(TE / "qrels.test"),
                           need(TE / "results.test"), cwd=work)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert done.stderr.startswith(f"trunc-accessor: --import {given}")


def test_ndeval_mode_takes_ndevals_a_flag_alone_or_combined(tmp_path):
    """ndeval accepts -a (and -ca) and prints the same CSV; a script passing it failed here
    with 'unrecognized arguments'. Checked against ndeval's stored output of -c."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(gzip.decompress(need(WEB / "qrels-for-ndeval.txt.gz").read_bytes()))
    expected = need(WEB / "ql-cata.ndeval.csv").read_text()
    for flags in (["-ca"], ["-c", "-a"]):
        assert _ndeval(*flags, "-traditional", qrels, WEB / "ql-cata.run.gz") == expected


def test_no_subtopics_is_refused_in_ndevals_mode(capsys):
    assert cli.main(["--format", "ndeval", "--no-subtopics", *_files()]) == 2
    assert "--no-subtopics" in capsys.readouterr().err


def test_an_unreadable_file_says_so_in_words(tmp_path, capsys):
    """OSError's '[Errno 21] Is a directory: ...' was printed as is."""
    assert cli.main([str(need(TE / "qrels.test")), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"trunc-accessor: cannot read {tmp_path}: Is a directory\n"


def test_ad_hoc_measures_on_diversity_qrels_warn_with_command_line_advice(tmp_path):
    """The warning that an ad hoc measure read each document's largest grade over its
    subtopics named a Python call (evaluate(..., like=...)) on the command line, which has
    no such option: there it names --no-subtopics (one grade per document)."""
    import subprocess
    import sys

    qrels = tmp_path / "div.qrels"
    qrels.write_text("1 1 a 1\n1 2 a 1\n1 2 b 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "trunc_accessor", "-m", "P.5", str(qrels),
                           str(run)], capture_output=True, text=True, cwd=root, check=True)
    assert done.stdout.split() == ["P_5", "all", "0.2000"]
    err = done.stderr
    assert err.count("\n") == 1 and err.startswith("trunc-accessor: warning: ")
    assert "largest grade" in err and "--no-subtopics" in err and "evaluate(" not in err
    again = subprocess.run([sys.executable, "-m", "trunc_accessor", "--no-subtopics", "-m",
                            "P.5", str(qrels), str(run)], capture_output=True, text=True,
                           cwd=root, check=True)
    assert again.stdout.split() == ["P_5", "all", "0.2000"] and again.stderr == ""
