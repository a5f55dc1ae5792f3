"""The command line's trec_eval rules checked against trec_eval 10's own output
(tests/data/trec_eval_params/, made by trec_eval 10.0 built from its sources: see ORIGIN
there): which parameters a measure named several times takes, and what -c prints for a
query the run lacks when a measure's printed name carries parameters."""
from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from tests.conftest import DATA, need
from trunc_accessor.frontends.cli import trec_eval as cli

TE = DATA / "trec_eval"
STORED = Path(__file__).resolve().parents[1] / "data" / "trec_eval_params"


def run_cli(*argv) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main([str(a) for a in argv]) == 0
    return out.getvalue()


@pytest.mark.parametrize("stored,argv", [
    ("all_trec_then_P5_10.txt", ["-m", "all_trec", "-m", "P.5,10", "qrels.test",
                                 "results.test"]),
    ("P5_10_then_all_trec.txt", ["-m", "P.5,10", "-m", "all_trec", "qrels.test",
                                 "results.test"]),
    ("first_parameters_win.txt", ["-q", "-m", "official", "-m", "P.5", "-m", "P.10", "-m",
                                  "recall.5", "-m", "ndcg.1=3", "-m", "ndcg", "-m",
                                  "relstring.3", "-m", "relstring.5", "qrels.test",
                                  "results.test"]),
], ids=["all_trec then P.5,10", "P.5,10 then all_trec", "first parameters win"])
def test_parameters_given_with_a_group_replace_its_defaults_as_trec_eval(stored, argv):
    """trec_eval computes a measure once, with the first parameters given for it on the
    command line wherever the measure is named (all_trec, official or bare): -m all_trec -m
    P.5,10 prints P_5 and P_10 in all_trec's place, not all_trec's nine cut-offs."""
    argv = [str(need(TE / a)) if (TE / a).exists() else a for a in argv]
    assert run_cli(*argv) == (STORED / stored).read_text()


def test_c_keeps_trec_evals_stand_in_ranking_for_parameterised_names():
    """trec_eval 10 -c scores a query the run lacks on a one-line stand-in ranking and
    zeroes num_ret, utility, rbp_resid, unj* and clears relstring by printed name only:
    utility_2,-1,0,0, rbp_resid_p=0.9 and relstring_4 keep the stand-in's values."""
    got = run_cli("-q", "-c", "-m", "all_trec", "-m", "utility.2,-1,0,0", "-m", "relstring.4",
                  "-m", "rbp_resid.p=0.9", need(TE / "qrels.test"), need(TE / "results.trunc"))
    assert got == (STORED / "c_parameterised_names.txt").read_text()


@pytest.mark.parametrize("measure", ["P.5,5", "ndcg_cut.10,10.5", "iprec_at_recall..1,.10"])
def test_a_cut_off_given_twice_is_an_error_as_in_trec_eval(measure, capsys):
    """trec_eval: 'duplicate cutoffs detected' (cut-offs truncated to whole numbers first:
    10.5 is 10), exit status 2."""
    assert cli.main(["-m", measure, str(need(TE / "qrels.test")),
                     str(need(TE / "results.test"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "twice" in err and measure in err


def test_a_run_mixing_runids_prints_the_last_lines_as_trec_eval(tmp_path):
    """trec_eval keeps the runid of the run file's last line (get_trec_results.c: "the
    run_id field of the last line is kept"), here a line of query 301 after the others."""
    lines = need(TE / "results.test").read_text().splitlines()
    lines = lines[1:] + lines[:1]
    mixed = tmp_path / "mixed.run"
    mixed.write_text("".join(" ".join([*line.split()[:5], "NR" if i < len(lines) - 1 else "R"])
                             + "\n" for i, line in enumerate(lines)))
    got = run_cli(need(TE / "qrels.test"), mixed)
    assert got == (STORED / "mixed_runids.txt").read_text()
    assert got.splitlines()[0].split("\t")[-1] == "R"


def test_M0_leaves_every_query_an_empty_ranking_as_trec_eval():
    """-M 0: trec_eval still scores the run's queries (and -c's stand-ins), each an empty
    ranking; the command line stopped with 'no query ... is in the qrels'. trec_eval prints
    -nan for an interpolated precision of an empty ranking, the command line 0 (its
    documented difference), so those four lines are compared as 0."""
    got = run_cli("-M0", "-q", "-c", "-m", "official", "-m", "relstring.3", "-m",
                  "utility.2,-1,0,0", need(TE / "qrels.test"), need(TE / "results.trunc"))
    expected = (STORED / "M0_c.txt").read_text().replace("  -nan", "0.0000")
    assert got == expected
    got = run_cli("-M0", "-q", "-m", "official", need(TE / "qrels.test"),
                  need(TE / "results.test"))
    assert got == (STORED / "M0.txt").read_text().replace("  -nan", "0.0000")


@pytest.mark.parametrize("length,stored", [("0", "relstring_zero.txt"),
                                           ("-3", "relstring_negative.txt")])
def test_relstring_of_length_zero_or_less_is_empty_as_trec_eval(length, stored):
    got = run_cli("-q", "-m", f"relstring.{length}", need(TE / "qrels.test"),
                  need(TE / "results.test"))
    assert got == (STORED / stored).read_text()


@pytest.mark.parametrize("measure", ["P.nan", "P.inf", "ndcg_cut.0.5", "success.-1"])
def test_a_cut_off_that_is_not_a_count_is_a_one_line_error(measure, capsys):
    """trec_eval: 'Negative cutoff detected'; P.inf raised a Python traceback here."""
    assert cli.main(["-m", measure, str(need(TE / "qrels.test")),
                     str(need(TE / "results.test"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cut-off" in err and measure in err
