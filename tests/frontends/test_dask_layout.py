"""Dask runs whose partitions already hold whole queries are evaluated as they lie.

Real data: 30 of Cranfield's queries, three systems, written as Parquet files sorted by
qid (rows shuffled inside each file, files not named in qid order), as hive-style
directories by qid, as sorted files that share one qid at a boundary, and as an unsorted
in-memory Dask frame. Values are compared with the pandas accessor on the computed run
(the same rows in the same order), exactly, under Dask's synchronous scheduler and on
local clusters of 1, 2 and 3 workers.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

from trunc_accessor.frontends import _dask_layout  # noqa: E402 - after importorskip
from trunc_accessor.frontends import dask as dask_accessor  # noqa: E402

METRICS = ["ndcg@10", "ap", "err@20", "P@10"]
SHUFFLED = {"sorted": False, "hive": False, "boundary": True, "unsorted": True}


def _shuffled(lazy) -> bool:
    """Does the graph move rows between partitions (Dask's shuffle, P2P or set_index
    layers, or the accessor's own split of the run by qid hash, ``split_run``)?"""
    names = " ".join(str(k[0] if isinstance(k, tuple) else k)
                     for k in lazy.__dask_graph__().keys())
    return any(w in names for w in ("shuffle", "p2p", "set_partitions", "sort_index",
                                        "split_run"))


@pytest.fixture(scope="module")
def layouts(tmp_path_factory, cranfield):
    """({layout: Dask run}, pandas qrels, Dask qrels of 3 partitions read from Parquet)."""
    runs, qrels = cranfield
    qids = sorted(runs["qid"].unique())[::7][:30]
    run = runs[runs["qid"].isin(qids) & runs["system"].isin(["bm25", "tfidf", "ql_dirichlet"])]
    run = run.reset_index(drop=True)
    # judged qids that no system retrieved lie between the partitions' ranges
    judged = qrels[qrels["qid"].isin(qids) | qrels["qid"].isin(["105", "2", "99"])]
    judged = judged.reset_index(drop=True)
    root = tmp_path_factory.mktemp("layouts")
    chunks = [qids[:10], qids[10:20], qids[20:]]
    for name, chunk in zip(["b", "c", "a"], chunks):  # file order is not qid order
        part = run[run["qid"].isin(chunk)].sample(frac=1, random_state=len(name))
        (root / "sorted").mkdir(exist_ok=True)
        part.to_parquet(root / "sorted" / f"{name}.parquet", index=False, row_group_size=900)
    ordered = run.sort_values("qid", kind="stable")
    cut = ordered["qid"].searchsorted(qids[15]) + 40  # qids[15] lies in both files
    (root / "boundary").mkdir()
    ordered.iloc[:cut].to_parquet(root / "boundary" / "0.parquet", index=False)
    ordered.iloc[cut:].to_parquet(root / "boundary" / "1.parquet", index=False)
    run[run["qid"].isin(qids[:12])].to_parquet(root / "hive", partition_cols=["qid"],
                                               index=False)
    judged.sort_values("qid").to_parquet(root / "qrels.parquet", index=False,
                                         row_group_size=150)
    dask_runs = {name: dd.read_parquet(root / name) for name in ("sorted", "boundary")}
    # qids as strings: Dask 2026.8 with pandas 3 reads inferred integer hive keys as NaN
    hive = {"partitioning": {"flavor": "hive", "schema": pa.schema([("qid", pa.string())])}}
    dask_runs["hive"] = dd.read_parquet(root / "hive", dataset=hive)
    dask_runs["unsorted"] = dd.from_pandas(run.sample(frac=1, random_state=3), npartitions=3,
                                           sort=False)
    dask_qrels = dd.read_parquet(root / "qrels.parquet", split_row_groups=True)
    assert dask_qrels.npartitions > 2
    return dask_runs, judged, dask_qrels


def _eager(run: pd.DataFrame, qrels) -> tuple[pd.DataFrame, list]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = run.ir.evaluate(qrels, METRICS, by="system")
    return values, sorted({w.category.__name__ for w in caught})


def test_only_runs_whose_partitions_share_a_query_are_shuffled(layouts, monkeypatch):
    runs, qrels, dask_qrels = layouts
    assert runs["sorted"].npartitions == 3 and runs["hive"].npartitions == 12
    for name, drun in runs.items():
        assert _shuffled(drun.ir.evaluate(qrels, METRICS, by="system")) == SHUFFLED[name]
        # qrels above the broadcast limit, or Dask qrels, are split, never shuffled
        assert _shuffled(drun.ir.evaluate(dask_qrels, METRICS)) == SHUFFLED[name]
    monkeypatch.setattr(dask_accessor, "BROADCAST_QRELS_ROWS", 10)
    assert not _shuffled(runs["sorted"].ir.evaluate(qrels, METRICS))
    # the sorted files' ranges come from their footers: no task reads a qid
    monkeypatch.setattr(_dask_layout, "_task_bounds", None)
    fresh = dd.read_parquet(runs["sorted"].expr.simplify().operand("path"))
    assert not _shuffled(fresh.ir.evaluate(qrels, METRICS))


@pytest.mark.parametrize("workers", [0, 1, 2, 3])
def test_values_equal_the_eager_call_on_every_layout(layouts, monkeypatch, workers):
    """``workers``: 0 is Dask's synchronous scheduler, else a local cluster of threads."""
    runs, qrels, dask_qrels = layouts
    monkeypatch.setattr(dask_accessor, "BROADCAST_QRELS_ROWS", 500)  # pandas qrels: split
    lazy, want = [], []
    for drun in runs.values():
        eager = drun.compute()
        for q in (qrels, dask_qrels, pl.from_pandas(qrels.head(400))):  # the last: broadcast
            lazy.append(drun.ir.evaluate(q, METRICS, by="system"))
            want.append(_eager(eager, q if isinstance(q, pd.DataFrame) else qrels.head(400)
                               if isinstance(q, pl.DataFrame) else qrels))
    if workers:
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster):
            got = _computed(lazy)
    else:
        with dask.config.set(scheduler="sync"):
            got = _computed(lazy)
    for (g, said), (w, eager_said) in zip(got, want):
        pd.testing.assert_frame_equal(g, w, check_exact=True)
        assert said == eager_said


def _computed(lazy):
    out = []
    for x in lazy:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = x.compute()
        out.append((value, sorted({w.category.__name__ for w in caught
                                   if w.category.__module__.startswith("trunc_accessor")})))
    return out


def _recorded(monkeypatch):
    """Each piece's (run qids, qrels rows it received) under the synchronous scheduler."""
    seen = []
    real = dask_accessor._piece

    def piece(part, qrels, *args):
        q = qrels if isinstance(qrels, pl.DataFrame) else pl.concat(qrels)
        if isinstance(part, list):  # a shuffled partition: its frames from every split
            part = pl.concat(part)
        run = part if isinstance(part, pl.DataFrame) else pl.from_pandas(
            part.reset_index() if "qid" not in part.columns else part)
        seen.append((set(run["qid"].cast(pl.String)), q))
        return real(part, qrels, *args)

    monkeypatch.setattr(dask_accessor, "_piece", piece)
    return seen


@pytest.mark.parametrize("name", ["sorted", "hive", "unsorted"])
def test_each_piece_receives_only_the_judgments_of_its_queries(layouts, monkeypatch, name):
    """Qrels above the broadcast limit: every judgment goes to exactly one piece, the one
    whose queries it judges (a worker holds its partition and that slice, never the
    whole qrels)."""
    runs, qrels, dask_qrels = layouts
    drun = runs[name]
    monkeypatch.setattr(dask_accessor, "BROADCAST_QRELS_ROWS", 10)
    for q in (qrels, dask_qrels):
        seen = _recorded(monkeypatch)
        with dask.config.set(scheduler="sync"):
            got = drun.ir.evaluate(q, METRICS, by="system").compute()
        pd.testing.assert_frame_equal(got, drun.compute().ir.evaluate(qrels, METRICS,
                                                                      by="system"))
        assert len(seen) == drun.npartitions
        assert sum(s[1].height for s in seen) == len(qrels)  # no judgment twice
        assert max(s[1].height for s in seen) < len(qrels)
        owners: dict[str, int] = {}
        for i, (run_qids, judged) in enumerate(seen):
            for qid in judged["qid"].cast(pl.String).unique():
                assert owners.setdefault(qid, i) == i  # a judged qid in one piece only
            for qid in run_qids:  # its queries' judgments are all there
                assert owners.get(qid, i) == i
        monkeypatch.undo()
        monkeypatch.setattr(dask_accessor, "BROADCAST_QRELS_ROWS", 10)
    if name == "sorted":  # one qid range per piece: the slices are contiguous in qid order
        ranges = sorted((min(r), max(r), set(j["qid"])) for r, j in seen if r)
        for (lo, _, judged), (nxt, _, _) in zip(ranges, ranges[1:] + [(None, None, None)]):
            assert all(lo <= qid and (nxt is None or qid < nxt) for qid in judged - {"105", "2"})


def test_integer_qids_sliced_with_string_qrels(layouts, monkeypatch):
    """A qid range of integers takes the string judgments of the same numbers (the engine
    compares ids as strings, with its warning)."""
    runs, qrels, _ = layouts
    flat = runs["sorted"].compute().astype({"qid": "int64"})
    drun = dd.from_pandas(flat.set_index("qid"), npartitions=3).reset_index()
    eager = drun.compute()  # the qid ranges come from a task per partition
    monkeypatch.setattr(dask_accessor, "BROADCAST_QRELS_ROWS", 10)
    lazy = drun.ir.evaluate(qrels, METRICS, by="system")
    assert not _shuffled(lazy)
    with dask.config.set(scheduler="sync"):
        got = _computed([lazy])[0]
    want = _eager(eager, qrels)
    pd.testing.assert_frame_equal(got[0], want[0], check_exact=True)
    assert got[1] == want[1] == ["IdentifierWarning"]
    assert np.isfinite(got[0]["ap"]).all()


def test_parquet_partitions_read_straight_into_polars_equal_dask_reads(layouts, tmp_path,
                                                                      monkeypatch):
    """Sorted Parquet runs are read by the pieces themselves (Arrow to Polars, not pandas):
    same values as the eager call on Dask's own read, also where a by= column of integers
    has missing values (pandas reads them as NaN floats)."""
    runs, qrels, _ = layouts
    reads = []
    real = _dask_layout.read_part
    monkeypatch.setattr(_dask_layout, "read_part",
                        lambda *a: reads.append(a[2]) or real(*a))  # noqa: B023
    run = runs["sorted"].compute()
    run = run.assign(system=run["system"].map({"bm25": 1, "tfidf": 2}).astype("Int64"))
    run = run.sort_values("qid", kind="stable")
    cut = run["qid"].searchsorted(run["qid"].iloc[4000])  # a query boundary
    run.iloc[:cut].to_parquet(tmp_path / "0.parquet", index=False)
    run.iloc[cut:].to_parquet(tmp_path / "1.parquet", index=False)
    for files in ([tmp_path / "0.parquet", tmp_path / "1.parquet"], [runs["sorted"]]):
        drun = dd.read_parquet(files) if isinstance(files[0], type(tmp_path)) else files[0]
        parts = _dask_layout.parquet_parts(drun, ["system", "qid", "docid", "score"])
        assert parts is not None and len(parts) == drun.npartitions
        assert not _shuffled(drun.ir.evaluate(qrels, METRICS, by="system"))
        with dask.config.set(scheduler="sync"):
            got = _computed([drun.ir.evaluate(qrels, METRICS, by="system")])[0]
        want = _eager(drun.compute(), qrels)
        pd.testing.assert_frame_equal(got[0], want[0], check_exact=True)
        assert got[1] == want[1]
        assert reads.count(["system", "qid", "docid", "score"]) == drun.npartitions
        reads.clear()


def test_runs_of_many_partitions_go_through_dasks_own_shuffle(layouts, monkeypatch):
    """Above TASK_SHUFFLE_PARTITIONS partitions a run is shuffled by Dask (P2P on a cluster,
    which spills to disk) on the same hash buckets, so the qrels split still match."""
    runs, qrels, dask_qrels = layouts
    drun = runs["unsorted"]
    monkeypatch.setattr(dask_accessor, "TASK_SHUFFLE_PARTITIONS", 2)
    monkeypatch.setattr(dask_accessor, "BROADCAST_QRELS_ROWS", 10)
    lazy = [drun.ir.evaluate(q, METRICS, by="system") for q in (qrels, dask_qrels)]
    names = str(lazy[0].__dask_graph__().keys())
    assert "split_run" not in names and "shuffle" in names
    with dask.config.set(scheduler="sync"):
        got = _computed(lazy)
    want = _eager(drun.compute(), qrels)
    for g in got:
        pd.testing.assert_frame_equal(g[0], want[0], check_exact=True)
        assert g[1] == want[1]
