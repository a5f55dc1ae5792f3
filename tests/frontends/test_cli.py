"""The command line speaks trec_eval: its output equals trec_eval's stored outputs line for
line for every measure both have; errors are one line and a non-zero exit."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

from tests.conftest import DATA, need
from trunc_accessor.frontends.cli import trec_eval as cli

TE = DATA / "trec_eval"
PARAMS = ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
          "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
          "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"]
# trec_eval's own `make quicktest` (its Makefile), each command with the output it must print
QUICKTESTS = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                      "results.test"]),
    ("out.test.meas_params", PARAMS + ["qrels.test", "results.test"]),
]
COMMENT = ["-q", "-m", "all_trec", "qrels.comment.test", "results.comment.test"]


def run_cli(*argv) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main([str(a) for a in argv]) == 0
    return out.getvalue()


def lines_of(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out


def _in_te(argv):
    return [str(need(TE / a)) if (TE / a).exists() else a for a in argv]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("stored,argv", QUICKTESTS + [("generated/out.comment.test.aq.v10.0",
                                                       COMMENT)],
                         ids=[q[0] for q in QUICKTESTS] + ["comment.aq"])
def test_trec_eval_10_quicktest_byte_for_byte(stored, argv):
    """trec_eval 10's `make quicktest`: the command line prints trec_eval's stored output
    byte for byte (every all_trec measure, relstring, -c, -M, -l, parameters, order)."""
    assert run_cli(*_in_te(argv)) == need(TE / stored).read_text()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("stored,argv", QUICKTESTS + [("generated/out.comment.test.aq.v9.0.8",
                                                       COMMENT)],
                         ids=[q[0] for q in QUICKTESTS] + ["comment.aq"])
def test_trec_eval_9_quicktest_byte_for_byte(stored, argv):
    """--ties trec_eval9: trec_eval 9.0.8's outputs (pytrec_eval's version) byte for byte:
    its interpolation cut, its all_trec (no unj, rbp, rbp_resid) and its -c, which prints
    no line for a missing query."""
    stored = stored if stored.startswith("generated") else f"v9.0.8/{stored}"
    assert run_cli("--ties", "trec_eval9", *_in_te(argv)) == need(TE / stored).read_text()


def test_default_is_trec_evals_official_set_and_order():
    """No option at all: trec_eval's official measures in trec_eval's order of ties."""
    ours = lines_of(run_cli(need(TE / "qrels.test"), need(TE / "results.test")))
    theirs = lines_of(need(TE / "out.test").read_text())
    assert ours == theirs


def test_without_c_only_the_run_queries_count():
    ours = lines_of(run_cli(need(TE / "qrels.test"), need(TE / "results.trunc"), "-m", "map",
                            "-m", "num_q", "-q", "--ties", "trec_eval"))
    assert ours[("num_q", "all")] == "2"
    assert ("map", "302") not in ours


def test_formats_several_runs_and_no_summary(tmp_path):
    qrels, run = need(TE / "qrels.test"), need(TE / "results.test")
    text = run_cli(qrels, run, run, "-m", "map,P_10", "--format", "json", "--ties", "trec_eval")
    rows = json.loads(text)
    assert [r["qid"] for r in rows] == ["all", "all"]
    assert rows[0]["map"] == pytest.approx(0.1785, abs=5e-5)
    md = run_cli(qrels, run, "-q", "-m", "map", "--format", "markdown")
    assert md.splitlines()[0] == "| runid | qid | map |" and len(md.splitlines()) == 6
    tsv = run_cli(qrels, run, "-q", "-n", "-m", "P_5", "--format", "tsv")
    assert tsv.splitlines()[0] == "runid\tqid\tP_5" and "all" not in tsv
    assert "all" not in run_cli(qrels, run, "-q", "-n", "-m", "map")


def test_tie_errors_name_the_option(capsys):
    """A measure with no closed-form tie average names --ties, the CLI's spelling."""
    assert cli.main([str(need(TE / "qrels.test")), str(need(TE / "results.test")), "-m",
                     "all_trec", "--ties", "average"]) == 2
    err = capsys.readouterr().err
    assert "--ties trec_eval" in err and "ties='" not in err


def test_list_shows_every_dialect():
    text = run_cli("--list")
    assert "ap(k=None)" in text and "map" in text and "AP" in text and "mrr" in text


def test_errors_are_one_line_and_exit_2(tmp_path, capsys):
    qrels = need(TE / "qrels.test")
    assert cli.main([str(qrels), str(tmp_path / "missing.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.txt" in err
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 0.5 x\n301 Q0 d2 2\n")
    assert cli.main([str(qrels), str(bad)]) == 2
    assert "line 2" in capsys.readouterr().err
    assert cli.main([str(qrels), str(need(TE / "results.test")), "-m", "mapp"]) == 2
    assert "closest" in capsys.readouterr().err


def test_closed_pipe_and_module_entry_point():
    cmd = [sys.executable, "-m", "trunc_accessor", str(need(TE / "qrels.test")),
           str(need(TE / "results.test")), "-q", "-m", "all_trec", "--ties", "trec_eval"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert first.split()[1:2] == [b"301"]
    assert proc.returncode == 0 and b"Traceback" not in err


def test_compressed_run_stdin_and_two_runs_with_one_runid(tmp_path, monkeypatch):
    import gzip

    qrels, run = need(TE / "qrels.test"), need(TE / "results.test")
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    assert lines_of(run_cli(qrels, packed, "-m", "map", "--ties", "trec_eval")) == {
        ("map", "all"): "0.1785"}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(run.read_bytes())))
    assert lines_of(run_cli(qrels, "-", "-m", "map", "--ties", "trec_eval")) == {
        ("map", "all"): "0.1785"}
    md = run_cli(qrels, run, need(TE / "results.trunc"), "-m", "map", "--format", "markdown")
    assert "STANDARD (" in md and "results.trunc)" in md


def test_depth_option_reaches_the_terminal_metrics():
    import trunc_accessor as ta

    qrels, run = need(TE / "qrels.test"), need(TE / "results.test")
    got = lines_of(run_cli(qrels, run, "-q", "-m", "rbp_prime,ap_prime", "--depth", "100"))
    res = ta.read_run(run).ir.evaluate(ta.read_qrels(qrels),
                                       ["rbp_prime(depth=100)", "ap_prime(depth=100)"])
    for qid in res.index:
        assert got[("rbp_prime", qid)] == f"{res.loc[qid, 'rbp_prime(depth=100)']:.4f}"
        assert got[("ap_prime", qid)] == f"{res.loc[qid, 'ap_prime(depth=100)']:.4f}"


def test_c_with_a_run_that_answers_no_qrels_query(tmp_path, capsys):
    """trec_eval 10 -c: every qrels query is an empty ranking (num_q 3, num_rel 561, every
    measure 0); without -c, and under 9.0.8, it stops ('No queries with both results and
    relevance info')."""
    run = tmp_path / "other.run"
    run.write_text("999 Q0 d1 1 1.0 r\n")
    qrels = need(TE / "qrels.test")
    lines = lines_of(run_cli(qrels, run, "-c", "-m", "all_trec"))
    assert lines.pop(("runid", "all")) == "r"
    assert lines.pop(("num_q", "all")) == "3" and lines.pop(("num_rel", "all")) == "561"
    assert len(lines) > 80 and set(lines.values()) <= {"0", "0.0000"}
    for argv in ([], ["-c", "--ties", "trec_eval9"]):
        assert cli.main([str(qrels), str(run), *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "No queries with both results" in err


def test_empty_files_and_short_qrels_lines_are_one_line_errors(tmp_path, capsys):
    qrels, run = need(TE / "qrels.test"), need(TE / "results.test")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    for argv, says in (([qrels, empty], "holds no run line"), ([empty, run], "holds no judgment")):
        assert cli.main([str(a) for a in argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err and "Warning" not in err
    mixed = tmp_path / "mixed.qrels"
    mixed.write_text("301 0 FR940202-2-00150 1\n301 FR940202-2-00151 1\n")
    assert cli.main([str(mixed), str(run)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "4 fields (qid iter docid rel)" in err
    assert "not a finite number" not in err


def test_warnings_are_one_line(capsys):
    """The comment test's run has queries the qrels lack: trec_eval ignores them; here a
    one-line warning on stderr, never Python's file:line: Warning block."""
    run_cli(need(TE / "qrels.comment.test"), need(TE / "results.comment.test"))
    err = capsys.readouterr().err
    assert err.startswith("trunc-accessor: warning: ") and err.count("\n") == 1


def test_list_names_ranx_and_survives_a_closed_pipe():
    text = run_cli("--list")
    rows = {line.split("\t")[0].split("(")[0]: line.split("\t") for line in text.splitlines()}
    header = rows.pop("metric")
    ranx = header.index("ranx")
    for name in ("precision", "recall", "f1", "bpref", "ndcg", "rr"):
        assert rows[name][ranx] != "-", name
    proc = subprocess.Popen([sys.executable, "-m", "trunc_accessor", "--list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in err and b"BrokenPipe" not in err


def test_version_and_import_of_user_metrics(tmp_path, capsys):
    import trunc_accessor as ta
    from trunc_accessor.__main__ import main

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and ta.__version__ in capsys.readouterr().out
    module = tmp_path / "my_cli_metrics.py"
    module.write_text(
        "import trunc_accessor as ta\n\n"
        "@ta.metric('first_hit_rank')\n"
        "def first_hit_rank(grades, judged, level):\n"
        "    hits = [i for i, g in enumerate(grades, 1) if g >= level]\n"
        "    return float(hits[0]) if hits else 0.0\n")
    sys.path.insert(0, str(tmp_path))
    try:
        got = lines_of(run_cli("--import", "my_cli_metrics", need(TE / "qrels.test"),
                               need(TE / "results.test"), "-q", "-m", "first_hit_rank,recip_rank"))
    finally:
        sys.path.remove(str(tmp_path))
        from trunc_accessor.metrics.registry import unregister
        unregister("first_hit_rank")
        sys.modules.pop("my_cli_metrics", None)
    for qid in ("301", "302", "303"):  # trec_eval's recip_rank is 1 / the first hit's rank
        assert float(got[("first_hit_rank", qid)]) == pytest.approx(
            1 / float(got[("recip_rank", qid)]), rel=1e-3)


def test_import_and_command_line_load_no_pandas_scipy_matplotlib_or_dask():
    """Start-up: `import trunc_accessor` and a command-line evaluation load neither pandas
    nor SciPy, matplotlib or Dask (they load on first use); pandas' .ir is registered when
    pandas is imported later."""
    code = (
        "import sys, io, contextlib\n"
        "import trunc_accessor\n"
        "heavy = ('pandas', 'scipy', 'matplotlib', 'dask')\n"
        "loaded = lambda: [m for m in heavy if m in sys.modules]\n"
        "assert not loaded(), loaded()\n"
        "from trunc_accessor.frontends.cli import trec_eval as cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert cli.main([{str(need(TE / 'qrels.test'))!r}, "
        f"{str(need(TE / 'results.test'))!r}]) == 0\n"
        "assert not loaded(), loaded()\n"
        "import pandas as pd\n"
        "assert type(pd.DataFrame({'a': [1]}).ir).__name__ == 'PandasIR'\n"
        "assert trunc_accessor.compare.__module__ == 'trunc_accessor.stats.significance'\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
