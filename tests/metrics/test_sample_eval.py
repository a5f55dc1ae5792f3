"""NIST's sample_eval.pl reproduced: its outputs on stratified samples of the Cranfield pool
and on bioCADDIE 2016's sampled qrels (tests/data/sample_eval/ORIGIN), byte for byte from
the command line and value for value (to the printed 4 decimals) from the accessor."""
from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.frontends.cli import sample_eval as cli
from trunc_accessor.warn import InconsistentEstimateWarning

HERE = Path(__file__).resolve().parents[1] / "data" / "sample_eval"

COMMANDS = {
    "cranfield.bm25.q.out": ["-q", "cranfield.qrels", "cranfield.bm25.run"],
    "cranfield.tfidf.q.out": ["-q", "cranfield.qrels", "cranfield.tfidf.run"],
    "cranfield.tfidf.G.out": ["cranfield.qrels", "cranfield.tfidf.run", "-G", "1:4", "4:1"],
    "biocaddie.a.q.out": ["-q", "biocaddie.qrels", "biocaddie.a.run"],
    "biocaddie.b.q.out": ["-q", "biocaddie.qrels", "biocaddie.b.run"],
    "biocaddie.b.G.out": ["biocaddie.qrels", "biocaddie.b.run", "-G", "1:2", "2:10"],
}


def run_cli(argv) -> tuple[int, str]:
    args = [a if a.startswith("-") or ":" in a else str(HERE / a) for a in argv]
    out = io.StringIO()
    with redirect_stdout(out):  # (a warning goes to stderr as one line)
        status = cli.main(args)
    return status, out.getvalue()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("stored", sorted(COMMANDS))
def test_sample_eval_cli_byte_for_byte(stored):
    status, text = run_cli(COMMANDS[stored])
    assert status == 0
    assert text == (HERE / stored).read_text()


def _read(path: Path, sep=" ") -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines()]


def _stored(name: str) -> dict[tuple[str, str], str]:
    return {(m, t): v for m, t, v in _read(HERE / name)}


OURS = {"infAP": "xinfap", "infNDCG": "infndcg", "iP10": "ip@10", "iP50": "ip@50",
        "iP1000": "ip@1000", "inum_rel_ret": "inum_rel_ret", "inum_rel": "inum_rel"}


@pytest.mark.parametrize("qrels_name,run_name,stored", [
    ("biocaddie.qrels", "biocaddie.a.run", "biocaddie.a.q.out"),
    ("cranfield.qrels", "cranfield.bm25.run", "cranfield.bm25.q.out"),
])
def test_sample_eval_measures_per_query_from_the_accessor(qrels_name, run_name, stored):
    q = pd.DataFrame(_read(HERE / qrels_name), columns=["qid", "iter", "docid", "stratum", "rel"])
    q = q.drop(columns="iter").astype({"rel": int, "qid": int})
    r = pd.DataFrame(_read(HERE / run_name), columns=["qid", "q0", "docid", "rank", "score", "t"])
    r = r[["qid", "docid", "score"]].astype({"score": float, "qid": int})
    with pytest.warns(InconsistentEstimateWarning) if "cranfield" in run_name else _nothing():
        res = r.ir.evaluate(q, list(OURS.values()), ties="trec_eval",
                            undefined="zero").reset_index()
    expected = _stored(stored)
    topics = sorted({t for _, t in expected if t != "all"}, key=int)
    assert sorted(res["qid"].astype(str)) == sorted(topics)
    for (measure, topic), value in expected.items():
        if topic == "all" or measure not in OURS:
            continue
        ours = float(res.loc[res["qid"] == int(topic), OURS[measure]].iloc[0])
        assert f"{ours:.4f}" == value, (measure, topic)


@pytest.mark.parametrize("qrels_name,run_name,stored", [
    ("biocaddie.qrels", "biocaddie.b.run", "biocaddie.b.q.out"),
    ("cranfield.qrels", "cranfield.bm25.run", "cranfield.bm25.q.out"),
])
def test_sample_eval_measures_from_files_read_by_read_qrels_and_read_run(qrels_name, run_name,
                                                                        stored):
    # the five-field qrels give their stratum column; the run its scores (ties: trec_eval's
    # order, as the script reads a ranking: score, then docno, both descending)
    q = ta.read_qrels(HERE / qrels_name)
    assert q.columns.tolist() == ["qid", "docid", "rel", "stratum"]
    r = ta.read_run(HERE / run_name)
    with pytest.warns(InconsistentEstimateWarning) if "cranfield" in run_name else _nothing():
        res = r.ir.evaluate(q, list(OURS.values()), ties="trec_eval", undefined="zero")
    expected = _stored(stored)
    got = {str(t): row for t, row in res.iterrows()}
    for (measure, topic), value in expected.items():
        if topic == "all" or measure not in OURS:
            continue
        assert f"{float(got[topic][OURS[measure]]):.4f}" == value, (measure, topic)


def test_sample_eval_warns_when_estimated_relevant_retrieved_exceeds_the_estimated_total():
    qrels = pl.DataFrame({"qid": "1", "docid": ["a", "b", "c", "d"], "stratum": ["1", "2",
                          "2", "1"], "rel": [1, -1, -1, 0]})
    run = pl.DataFrame({"qid": "1", "docid": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    with pytest.warns(InconsistentEstimateWarning, match="1 ranking"):
        res = run.ir.evaluate(qrels, ["inum_rel_ret", "inum_rel"], ties="trec_eval")
    # stratum 2: two pooled documents, none sampled, count a third each
    assert res["inum_rel_ret"][0] == pytest.approx(1 * (1 + 1e-5) / (1 + 3e-5) + 2 / 3)
    assert res["inum_rel"][0] == 1.0  # stratum 2 has no sampled document: left out


def test_sample_eval_without_a_stratum_column_reads_one_stratum():
    qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "rel": [1, -1, 0, 1, -1]})
    run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    names = ["xinfap", "infndcg", "ip@10", "inum_rel"]
    plain = run.ir.evaluate(qrels, names, ties="trec_eval")
    one = run.ir.evaluate(qrels.assign(stratum="s"), names, ties="trec_eval")
    pd.testing.assert_frame_equal(plain, one)


def test_sample_eval_ties_average_refuses_mixed_tie_groups_only():
    qrels = pd.DataFrame({"qid": 1, "docid": list("abcd"), "stratum": [1, 1, 2, 2],
                          "rel": [1, 0, 1, -1]})
    mixed = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [2, 2, 1, 0]})
    with pytest.raises(ParameterError, match="xinfap with ties='average'"):
        mixed.ir.xinfap(qrels)
    alike = pd.DataFrame({"qid": 1, "docid": list("abcde"), "score": [3, 2, 1, 0, 0]})
    qrels2 = pd.concat([qrels, pd.DataFrame({"qid": [1], "docid": ["e"], "stratum": [2],
                                             "rel": [-1]})])
    assert alike.ir.xinfap(qrels2).iloc[0] == alike.ir.xinfap(qrels2, ties="trec_eval").iloc[0]


def test_sample_eval_stratum_column_must_hold_labels():
    run = pd.DataFrame({"qid": 1, "docid": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="'stratum' must hold stratum labels"):
        run.ir.xinfap(pd.DataFrame({"qid": 1, "docid": ["a"], "stratum": [1.5], "rel": [1]}))
    with pytest.raises(InputError, match="'stratum' has a missing value"):
        run.ir.xinfap(pd.DataFrame({"qid": 1, "docid": ["a", "b"], "stratum": ["x", None],
                                    "rel": [1, 0]}))


def test_sample_eval_cli_refuses_what_the_script_cannot_read(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1 1\n1 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    assert cli.main([str(tmp_path / "q"), str(tmp_path / "r")]) == 2
    (tmp_path / "q").write_text("2 0 a 1 1\n")
    assert cli.main([str(tmp_path / "q"), str(tmp_path / "r")]) == 2


def test_sample_eval_measures_are_registered():
    for name in ("xinfap", "infndcg", "ip", "inf_iprec_at_recall", "inum_rel_ret", "inum_rel"):
        assert name in ta.REGISTRY


def test_sample_eval_strata_reach_every_frontend_polars_lazy_batches_and_dask():
    dd = pytest.importorskip("dask.dataframe")
    from trunc_accessor.frontends import dask as _dask  # noqa: F401  (the Dask accessor)

    q = pd.DataFrame(_read(HERE / "biocaddie.qrels"), columns=["qid", "i", "docid", "stratum",
                                                                "rel"]).drop(columns="i")
    q = q.astype({"rel": int})
    r = pd.DataFrame(_read(HERE / "biocaddie.b.run"), columns=["qid", "q0", "docid", "rank",
                                                               "score", "t"])
    r = r[["qid", "docid", "score"]].astype({"score": float})
    names = ["xinfap", "infndcg", "ip@10", "inum_rel_ret", "inf_iprec_at_recall(recall=0.5)"]
    want = r.ir.evaluate(q, names, ties="trec_eval").sort_index()
    lazy = pl.from_pandas(r).lazy()
    for got in (lazy.ir.evaluate(pl.from_pandas(q), names, ties="trec_eval").collect(),
                ta.ir(lazy, batch_rows=500).evaluate(pl.from_pandas(q), names,
                                                     ties="trec_eval").collect()):
        got = got.to_pandas().set_index("qid").sort_index()
        pd.testing.assert_frame_equal(got, want, check_names=False)
    got = dd.from_pandas(r, npartitions=3).ir.evaluate(q, names, ties="trec_eval")
    got = (got.compute() if hasattr(got, "compute") else got).sort_index()
    pd.testing.assert_frame_equal(got, want, check_names=False)


def test_sample_eval_and_statap_columns_survive_prefixes_and_condensed_lists():
    """cutoff_curve scores prefixes of the rankings and judged_only drops rows: both keep
    each row's stratum and inclusion probability (the full-depth prefix is the ranking)."""
    qrels = pd.DataFrame({"qid": 1, "docid": list("abcdef"), "stratum": [1, 1, 2, 2, 2, 1],
                          "rel": [1, -1, 0, 2, -1, 1], "inclusion": [.5, None, .5, .25, None, 1]})
    run = pd.DataFrame({"qid": 1, "docid": list("abcdxe"), "score": [6, 5, 4, 3, 2, 1]})
    for name in ("xinfap", "infndcg", "stat_ap"):
        whole = run.ir.evaluate(qrels, [name], ties="trec_eval").iloc[0, 0]
        curve = run.ir.cutoff_curve(qrels, name, ties="trec_eval")
        assert curve["value"].iloc[-1] == pytest.approx(whole), name
    condensed = run[run["docid"].isin(["a", "c", "d"])]
    assert run.ir.xinfap(qrels, ties="trec_eval", judged_only=True).iloc[0] == pytest.approx(
        condensed.ir.xinfap(qrels, ties="trec_eval").iloc[0])


def test_sample_eval_ip_without_a_cut_off_divides_by_the_ranks_read():
    qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
                          "rel": [1, -1, 0, 1, -1]})
    run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
    res = run.ir.evaluate(qrels, ["ip(k=None)", "ip@4", "inum_rel_ret"], ties="trec_eval")
    assert res["ip(k=None)"].iloc[0] == pytest.approx(res["inum_rel_ret"].iloc[0] / 4)
    assert res["ip(k=None)"].iloc[0] == res["ip@4"].iloc[0]
