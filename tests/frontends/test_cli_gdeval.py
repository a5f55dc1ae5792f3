"""``trunc-accessor-gdeval`` against gdeval.pl 1.3's own output (tests/data/gdeval_risk, see
its ORIGIN): the CSV byte for byte, plain and with -baseline/-riskAlpha, -k and -c."""
from __future__ import annotations

import gzip

import pytest

from tests.conftest import DATA, ROOT, need
from trunc_accessor.__main__ import main_gdeval

HERE = ROOT / "tests" / "data" / "gdeval_risk"
WEB = DATA / "trec_web_2012"


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    status = main_gdeval(args)
    out = capsys.readouterr()
    return status, out.out, out.err


def _path(name: str) -> str:
    return str(need(WEB / name))


COMMANDS = {f"{r}.csv": [_path("qrels.adhoc.txt.gz"), _path(f"{r}.run.gz")]
            for r in ("ql-cata", "rm-cata", "ql-catb", "rm-catb")}
COMMANDS.update({
    f"{r}.base-ql-cata.a{a}.csv": ["-baseline", _path("ql-cata.run.gz"), "-riskAlpha", str(a),
                                   _path("qrels.adhoc.txt.gz"), _path(f"{r}.run.gz")]
    for r in ("rm-cata", "ql-catb", "rm-catb") for a in (0, 1, 5, 10)})
COMMANDS["rm-catb.base-rm-cata.k10.a5.csv"] = [
    "-k", "10", "-baseline", _path("rm-cata.run.gz"), "-riskAlpha", "5",
    _path("qrels.adhoc.txt.gz"), _path("rm-catb.run.gz")]


@pytest.mark.parametrize("stored", sorted(COMMANDS))
def test_gdeval_cli_byte_for_byte(stored, capsys):
    status, text, _ = run_cli(COMMANDS[stored], capsys)
    assert status == 0
    assert text == (HERE / stored).read_text()


@pytest.fixture
def partial(tmp_path):
    """The runs of ORIGIN that lack topics: rm-cata without 151-155, ql-cata without
    153-157 (awk '$1<151||$1>155' and '$1<153||$1>157')."""
    def cut(name, low, high):
        path = tmp_path / f"{name}.part.run"
        with gzip.open(_path(f"{name}.run.gz"), "rt") as f:
            path.write_text("".join(line for line in f
                                    if not low <= int(line.split()[0]) <= high))
        return str(path)
    return cut("rm-cata", 151, 155), cut("ql-cata", 153, 157)


def test_gdeval_cli_run_lacking_topics_without_c(partial, capsys):
    run, base = partial
    status, text, _ = run_cli(["-baseline", base, "-riskAlpha", "5",
                               _path("qrels.adhoc.txt.gz"), run], capsys)
    assert status == 0
    assert text == (HERE / "rm-cata.part.base-ql-cata.part.a5.csv").read_text()


@pytest.mark.parametrize("stored,options", [("rm-cata.part.csv", []),
                                            ("rm-cata.part.c.k5.csv", ["-c", "-k", "5"])])
def test_gdeval_cli_run_lacking_topics_no_baseline(partial, stored, options, capsys):
    """Without a baseline, -c only changes the mean's denominator (every judged topic)."""
    status, text, _ = run_cli([*options, _path("qrels.adhoc.txt.gz"), partial[0]], capsys)
    assert status == 0
    assert text == (HERE / stored).read_text()


def test_gdeval_cli_with_c_differs_only_where_gdeval_carries_a_baseline_value(partial,
                                                                            capsys):
    """Topics 153-155 were answered by neither run: gdeval.pl 1.3 charges the run the
    baseline value of topic 152 there, the command scores 0 − 0; the amean moves by their
    sum over 50 topics, and every other line is gdeval's."""
    run, base = partial
    status, text, _ = run_cli(["-c", "-baseline", base, "-riskAlpha", "5",
                               _path("qrels.adhoc.txt.gz"), run], capsys)
    assert status == 0
    want = (HERE / "rm-cata.part.base-ql-cata.part.c.a5.csv").read_text().splitlines()
    got = text.splitlines()
    assert len(got) == len(want)
    differ = [(w.split(",")[1], g.split(",")[2:]) for w, g in zip(want, got) if w != g]
    assert [t for t, _ in differ] == ["153", "154", "155", "amean"]
    assert all(values == ["0.00000", "0.00000"] for _, values in differ[:3])
    carried = [float(w.split(",")[2]) for w in want if w.split(",")[1] in ("153", "154",
                                                                             "155")]
    amean = float(want[-1].split(",")[2]) - sum(carried) / 50
    assert abs(float(got[-1].split(",")[2]) - amean) <= 1e-5


@pytest.mark.parametrize("args,message", [
    (["-k", "0", "q", "r"], "-k takes"),
    (["-riskAlpha", "-1", "q", "r"], "-riskAlpha takes"),
    (["-x", "q", "r"], "unexpected argument '-x'"),
    (["q"], "Usage"),
    (["q", "/nonexistent/run"], "cannot open"),
])
def test_gdeval_cli_refuses_bad_arguments_with_status_2(args, message, capsys):
    status, out, err = run_cli(args, capsys)
    assert status == 2 and out == "" and message in err


def test_gdeval_cli_format_errors_name_the_line(tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text("151 0 d1 1\n151 0 d2 7\n")
    run = tmp_path / "r"
    run.write_text("151 Q0 d1 1 2.0 tag\n")
    status, _, err = run_cli([str(qrels), str(run)], capsys)
    assert status == 2 and f'format error on line 2 of "{qrels}"' in err
    qrels.write_text("151 0 d1 1\n")
    run.write_text("151 Q0 d1 1 2.0 tag\n151 X d2 2 1.0 tag\n")
    status, _, err = run_cli([str(qrels), str(run)], capsys)
    assert status == 2 and f'format error on line 2 of "{run}"' in err
