"""The command line speaks trec_eval: its output equals trec_eval's stored outputs line for
line for every measure both have; errors are one line and a non-zero exit."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

from trunc_accessor import cli

from .conftest import DATA, need

TE = DATA / "trec_eval"
# all_trec measures trec_eval prints that have no equivalent here (names.py says why)
NOT_OFFERED = {"G", "binG", "Rndcg", "ndcg_rel", "relstring", "utility", "gm_bpref", "rbp",
               "rbp_resid"}


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


@pytest.mark.parametrize("extra,stored", [((), "out.test.aqc"), (("-M100",), "out.test.aqcM")])
def test_all_trec_with_c_equals_trec_eval_line_for_line(extra, stored):
    """trunc-accessor --ties trec_eval -c -q -m all_trec QRELS RUN == trec_eval's output
    (qrels.test, results.trunc: topic 302 missing, shuffled lines) for every measure."""
    ours = lines_of(run_cli(need(TE / "qrels.test"), need(TE / "results.trunc"), "-c", "-q",
                            "-m", "all_trec", "--ties", "trec_eval", *extra))
    theirs = lines_of(need(TE / stored).read_text())
    names = {k[0] for k in theirs}
    offered = names - NOT_OFFERED
    assert {k[0] for k in ours} == offered
    for key, value in theirs.items():
        if key[0] in offered:
            assert ours[key] == value, (key, ours[key], value)
    assert len(ours) == sum(1 for k in theirs if k[0] in offered)


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


def test_graded_qrels_with_l2_equal_trec_eval_line_for_line():
    """-l2 on qrels.rel_level (grades −1…4): trec_eval's out.test.aql, every measure both
    have (relstring is a string, not offered)."""
    ours = lines_of(run_cli(need(TE / "qrels.rel_level"), need(TE / "results.test"), "-q",
                            "-l2", "-m", "all_trec", "--ties", "trec_eval"))
    theirs = lines_of(need(TE / "out.test.aql").read_text())
    offered = {k[0] for k in theirs} - NOT_OFFERED - {"relstring_20"}
    assert {k[0] for k in ours} == offered
    assert all(ours[k] == v for k, v in theirs.items() if k[0] in offered)


def test_depth_option_reaches_the_terminal_metrics():
    import trunc_accessor as ta

    qrels, run = need(TE / "qrels.test"), need(TE / "results.test")
    got = lines_of(run_cli(qrels, run, "-q", "-m", "rbp_prime,ap_prime", "--depth", "100"))
    res = ta.read_run(run).ir.evaluate(ta.read_qrels(qrels),
                                       ["rbp_prime(depth=100)", "ap_prime(depth=100)"])
    for qid in res.index:
        assert got[("rbp_prime", qid)] == f"{res.loc[qid, 'rbp_prime(depth=100)']:.4f}"
        assert got[("ap_prime", qid)] == f"{res.loc[qid, 'ap_prime(depth=100)']:.4f}"
