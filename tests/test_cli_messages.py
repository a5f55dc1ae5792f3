"""The command line's messages: one line on stderr, exit status 2, naming what is at fault
and, for a misspelling, the closest name it knows; usage texts of each mode."""
from __future__ import annotations

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
