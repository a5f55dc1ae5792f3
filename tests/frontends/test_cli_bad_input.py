"""The command line on bad conditions: a full disk is one line of error, and -M cuts in the
tie policy's order.

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import subprocess
import sys

import pytest

import trunc_accessor as ta
from tests.conftest import DATA, need
from trunc_accessor.frontends.cli import trec_eval as cli

TE = DATA / "trec_eval"


def test_command_line_on_a_full_disk_is_one_line(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("/dev/full")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "trunc_accessor", str(need(TE / "qrels.test")),
                               str(need(TE / "results.test")), "-q"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "No space left" in done.stderr


def test_cli_trec_eval9_cut_follows_its_order():
    """-M keeps the first N documents in the tie policy's order (9.0.8: float32 scores)."""
    out = {}
    for ties in ("trec_eval", "trec_eval9"):
        import io
        from contextlib import redirect_stdout

        buf = io.StringIO()
        with redirect_stdout(buf):
            assert cli.main([str(need(TE / "qrels.test")), str(need(TE / "results.test")),
                             "-q", "-M1", "-m", "P.1", "--ties", ties]) == 0
        out[ties] = buf.getvalue()
    run = ta.read_run(need(TE / "results.test"))
    qrels = ta.read_qrels(need(TE / "qrels.test"))
    for ties, text in out.items():
        want = run.ir.precision(qrels, k=1, ties=ties)
        for line in text.splitlines():
            _, qid, value = line.split("\t")
            if qid != "all":
                assert float(value) == pytest.approx(want[qid], abs=5e-5)
