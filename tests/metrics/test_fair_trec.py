"""The TREC 2022 Fair Ranking track's measures reproduced: the outputs of its own metric
classes (AWRFMetric, EELMetric; tests/data/trec_fair_2022/ORIGIN) on synthetic inputs with
one and two fairness dimensions, from ``ta.awrf`` and
``ta.expected_exposure(semantics="trec-fair-2022")``; and what is refused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.metrics.fair_trec import discount, float32_sums

HERE = Path(__file__).resolve().parents[1] / "data" / "trec_fair_2022"
NAMES = {"nDCG": "ndcg", "AWRF": "awrf", "Score": "score",
         "EE-L": "ee_l", "EE-D": "ee_d", "EE-R": "ee_r"}


def _inputs():
    al = pl.read_csv(HERE / "alignments.csv")
    qrels = pl.read_csv(HERE / "qrels.csv").select(qid="topic_id", docid="page_id", rel=1)
    run1 = pl.read_csv(HERE / "task1_run.csv").select(
        qid="topic_id", docid="page_id", score=-pl.col("rank"))
    run2 = pl.read_csv(HERE / "task2_run.csv").select(
        qid="topic_id", sample="seq_no", docid="page_id", score=-pl.col("rank"))
    tg = pl.read_csv(HERE / "targets.csv").rename({"topic_id": "qid"})
    geo = al.filter(pl.col("dimension") == "geo").select(docid="page_id", group="level",
                                                         weight="alignment")
    gender = al.filter(pl.col("dimension") == "gender").select(docid="page_id", g2="level",
                                                               w2="alignment")
    # the intersectional groups: combinations, alignments multiplied
    both = geo.join(gender, on="docid").select(
        "docid", group=pl.col("group") + "|" + pl.col("g2"),
        weight=pl.col("weight") * pl.col("w2"))
    dims = {"geo": (geo, tg.group_by("qid", "geo").agg(pl.col("target").sum())
                    .rename({"geo": "group"})),
            "geo+gender": (both, tg.select("qid", group=pl.col("geo") + "|" + pl.col("gender"),
                                           target="target"))}
    return qrels, run1, run2, dims


EXPECTED = pl.read_csv(HERE / "expected.csv")
CASES = [k for k, _ in EXPECTED.group_by(["metric", "dimensions", "target_len", "normalize"],
                                         maintain_order=True)]


@pytest.mark.parametrize(("metric", "dims", "target_len", "normalize"), CASES)
def test_values_are_the_tracks(metric, dims, target_len, normalize):
    qrels, run1, run2, groups = _inputs()
    grp, target = groups[dims]
    if metric == "awrf":
        got = ta.awrf(run1, qrels, groups=grp, target=target, target_len=target_len)
    else:
        got = ta.expected_exposure(run2, qrels, groups=grp, target=target,
                                   target_len=target_len, normalize=normalize,
                                   semantics="trec-fair-2022")
    want = EXPECTED.filter((pl.col("metric") == metric) & (pl.col("dimensions") == dims)
                           & (pl.col("target_len") == target_len)
                           & (pl.col("normalize") == normalize))
    for row in want.iter_rows(named=True):
        value = got.filter(pl.col("qid") == row["topic_id"])[NAMES[row["measure"]]].item()
        assert value == pytest.approx(row["value"], rel=1e-12, abs=1e-15), row


def test_the_float32_pieces_are_numpys():
    """The discount and the float32 sums are the track's: np.sum of each float32 array."""
    pos = np.arange(1, 700)
    d = discount(pos)
    assert d.dtype == np.float32 and d[0] == d[1] == np.float32(1.0)
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 300, 40)
    seg = np.repeat(np.arange(40), lengths)
    values = rng.random(len(seg)).astype(np.float32)
    sums = float32_sums(values, seg, 40)
    starts = np.r_[0, np.cumsum(lengths)]
    assert [np.sum(values[a:b]) for a, b in zip(starts[:-1], starts[1:])] == list(sums)


def test_pandas_frames_give_the_same_values():
    qrels, run1, _, groups = _inputs()
    grp, target = groups["geo"]
    a = ta.awrf(run1, qrels, groups=grp, target=target)
    b = ta.awrf(run1.to_pandas(), qrels.to_pandas(), groups=grp.to_pandas(),
                target=target.to_pandas())
    assert isinstance(b, pd.DataFrame)
    np.testing.assert_array_equal(a["score"].to_numpy(), b["score"].to_numpy())


def test_bad_input_is_refused_naming_it():
    qrels, run1, run2, groups = _inputs()
    grp, target = groups["geo"]
    fair = {"semantics": "trec-fair-2022"}
    with pytest.raises(ParameterError, match="need groups"):
        ta.expected_exposure(run2, qrels, target=target, **fair)
    with pytest.raises(ParameterError, match="model, p, u"):
        ta.expected_exposure(run2, qrels, groups=grp, target=target, p=0.8, **fair)
    with pytest.raises(ParameterError, match="normalize must be True or False"):
        ta.expected_exposure(run2, qrels, groups=grp, target=target, normalize="yes", **fair)
    with pytest.raises(ParameterError, match="target_len must be a whole number"):
        ta.expected_exposure(run2, qrels, groups=grp, target=target, target_len=0, **fair)
    with pytest.raises(ParameterError, match="target_len must be a whole number"):
        ta.awrf(run1, qrels, groups=grp, target=target, target_len=2.5)
    with pytest.raises(ParameterError, match="semantics="):
        ta.expected_exposure(run2, qrels, semantics="trec2022")
    with pytest.raises(ParameterError, match="target= is the TREC Fair"):
        ta.expected_exposure(run2, qrels, target=target)
    with pytest.raises(InputError, match="weights"):  # expeval has no alignments
        ta.expected_exposure(run2, qrels, groups=grp)
    with pytest.raises(InputError, match="no distribution for qid 't4'"):
        ta.awrf(run1, qrels, groups=grp, target=target.filter(pl.col("qid") != "t4"))
    with pytest.raises(InputError, match="more than target_len=20"):
        ta.awrf(run1, qrels, groups=grp, target=target, target_len=20)
    with pytest.raises(InputError, match="one ranking per query"):
        ta.awrf(run2, qrels, groups=grp, target=target)
    retrieved = run2.join(qrels, on=["qid", "docid"])["docid"][0]  # relevant, retrieved
    unaligned = grp.filter(pl.col("docid") != retrieved)
    with pytest.raises(InputError, match=f"{retrieved!r} .* has no group"):
        ta.expected_exposure(run2, qrels, groups=unaligned, target=target, **fair)
    with pytest.raises(InputError, match="finite values"):
        ta.awrf(run1, qrels, groups=grp, target=target.with_columns(target=-1.0))
