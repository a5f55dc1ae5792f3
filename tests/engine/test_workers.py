"""Query batches on worker processes (trunc_accessor.engine.workers): a Parquet run scored by
1, 2 or 3 workers gives the eager call's values bit for bit, in its order, with its warnings
and errors, whatever the files' layout (sorted, shuffled, hive-partitioned, a qid shared by
two files); what cannot go to a worker is scored in the calling process.

The eager call is itself checked against trec_eval/pytrec_eval and brute force elsewhere;
here the workers must reproduce it exactly.
"""
from __future__ import annotations

import os
import pickle
import warnings

import pandas as pd
import polars as pl
import polars.testing
import pytest

import trunc_accessor as ta
from trunc_accessor.engine import batches, workers
from trunc_accessor.metrics.registry import unregister

METRICS = ["ap", "ndcg@10", "rr", "P@10", "err@20", "rbp(p=0.8, graded=True)", "bpref",
           "rbp_prime", "num_ret"]


@pytest.fixture
def small_batches(monkeypatch):
    """Workers for any run, batches of ~2,000 rows: many batches per worker."""
    monkeypatch.setattr(batches, "PARALLEL_ROWS", 0)
    monkeypatch.setattr(batches, "PARALLEL_BATCH_ROWS", 1)
    monkeypatch.setattr(batches, "BATCH_ROWS", 2_000)


@pytest.fixture
def tasks_sent(monkeypatch):
    """The number of tasks each ``workers.scored`` call sent, by worker count."""
    sent: list[tuple[int, int]] = []
    original = workers.scored

    def counting(function, tasks, n):
        count = 0
        for answer in original(function, tasks, n):
            count += 1
            yield answer
        sent.append((n, count))

    monkeypatch.setattr(workers, "scored", counting)
    return sent


def _layout(run: pl.DataFrame, layout: str, root) -> str:
    """The run written as Parquet in ``layout``; the path or glob to scan."""
    root.mkdir()
    if layout == "sorted":
        run.sort("qid", "system").write_parquet(root / "run.parquet", row_group_size=3_000)
        return str(root / "run.parquet")
    if layout == "shuffled":  # rows in random order, over three files
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=3)
        for i, part in enumerate(shuffled.iter_slices(-(-shuffled.height // 3))):
            part.write_parquet(root / f"part-{i}.parquet")
        return str(root / "*.parquet")
    if layout == "hive":  # one directory per system (system=…/…parquet)
        run.write_parquet(root, partition_by="system")
        return str(root / "**" / "*.parquet")
    # "shared": sorted files cut mid-query, so the qid at each cut lies in two files
    ordered = run.sort("qid", "system")
    cuts = [0, ordered.height // 3 + 17, 2 * ordered.height // 3 + 5, ordered.height]
    for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
        ordered.slice(a, b - a).write_parquet(root / f"part-{i}.parquet")
    return str(root / "*.parquet")


@pytest.mark.parametrize("layout", ["sorted", "shuffled", "hive", "shared"])
@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_workers_give_the_eager_values_bit_for_bit(layout, n_jobs, tmp_path, cranfield,
                                                   small_batches, tasks_sent):
    runs, qrels = cranfield
    run = pl.from_pandas(runs[runs.qid.isin(runs.qid.unique()[:60])])
    qrels = pl.from_pandas(qrels)
    source = _layout(run, layout, tmp_path / "run")
    scan = pl.scan_parquet(source, hive_partitioning=layout == "hive")
    eager = run.ir.evaluate(qrels, METRICS, by="system")
    got = ta.ir(scan, n_jobs=n_jobs).evaluate(qrels, METRICS, by="system").collect()
    pl.testing.assert_frame_equal(got, eager, check_exact=True)
    if n_jobs == 1:
        assert tasks_sent == []
    else:  # every batch went to the workers: 60 queries of ~1,000 rows in ~2,000-row batches
        assert [n for n, _ in tasks_sent] == [n_jobs] and tasks_sent[0][1] >= 20


def test_evaluate_parquet_curves_and_crp_on_workers(tmp_path, cranfield, small_batches,
                                                    tasks_sent):
    runs, qrels = cranfield
    runs = runs[runs.qid.isin(runs.qid.unique()[:30])]
    path = tmp_path / "run.parquet"
    runs.to_parquet(path)
    got = ta.evaluate_parquet(path, qrels, ["ndcg@10", "map"], by="system", n_jobs=2)
    pd.testing.assert_frame_equal(got, runs.ir.evaluate(qrels, ["ndcg@10", "map"], by="system"))
    q = pl.from_pandas(qrels)
    lazy = ta.ir(pl.scan_parquet(path), n_jobs=2)
    eager = pl.read_parquet(path).ir
    pl.testing.assert_frame_equal(
        lazy.cutoff_curve(q, "ap", max_depth=20, by="system").collect(),
        eager.cutoff_curve(q, "ap", max_depth=20, by="system"), check_exact=True)
    pl.testing.assert_frame_equal(lazy.crp(q, by="system", depth=30).collect(),
                                  eager.crp(q, by="system", depth=30), check_exact=True)
    assert [n for n, _ in tasks_sent] == [2, 2, 2]


def _said(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category.__name__, str(w.message), os.path.basename(w.filename))
                 for w in seen]


def test_warnings_are_said_once_at_the_callers_line(tmp_path, small_batches, tasks_sent):
    run, qrels = ta.load_example()
    # a system whose docids match nothing, and a qid no qrels judge: one warning each
    bad = run.assign(system="bad", docid=run.docid + " ")
    extra = run.head(5).assign(qid="999")
    both = pl.from_pandas(pd.concat([run.assign(system="ok"), bad, extra.assign(system="ok")]))
    both.write_parquet(tmp_path / "run.parquet")
    q = pl.from_pandas(qrels)
    eager, said_eager = _said(lambda: both.ir.evaluate(q, ["ap"], by="system"))
    lazy, said_lazy = _said(lambda: ta.ir(pl.scan_parquet(tmp_path / "run.parquet"), n_jobs=2)
                            .evaluate(q, ["ap"], by="system").collect())
    pl.testing.assert_frame_equal(lazy, eager, check_exact=True)
    assert sorted(said_lazy) == sorted(said_eager)
    assert sorted(c for c, _, _ in said_lazy) == ["DroppedQueriesWarning", "IdentifierWarning"]
    assert {f for _, _, f in said_lazy} == {"test_workers.py"}
    assert [n for n, _ in tasks_sent] == [2]


def test_a_batch_error_is_raised_as_in_one_process(tmp_path, small_batches):
    run, qrels = ta.load_example()
    pl.from_pandas(run.assign(qid="x" + run.qid)).write_parquet(tmp_path / "unjudged.parquet")
    with pytest.raises(ValueError, match="no qid of the run"):
        ta.ir(pl.scan_parquet(tmp_path / "unjudged.parquet"), n_jobs=2).ap(qrels).collect()
    # a document retrieved twice in the last query: the worker's exception, class and message
    twice = pl.from_pandas(pd.concat([run, run.tail(1)]))
    twice.write_parquet(tmp_path / "twice.parquet")
    with pytest.raises(ValueError) as one:
        twice.ir.ap(qrels)
    with pytest.raises(type(one.value)) as workers_error:
        ta.ir(pl.scan_parquet(tmp_path / "twice.parquet"), n_jobs=2).ap(qrels).collect()
    assert str(workers_error.value) == str(one.value)


def test_in_memory_runs_and_session_metrics_are_scored_here(tmp_path, small_batches,
                                                            tasks_sent):
    run, qrels = ta.load_example()
    frame = pl.from_pandas(run)
    frame.write_parquet(tmp_path / "run.parquet")
    eager = frame.ir.evaluate(qrels, ["ap"])
    # a run held in memory: sending its plan would copy the data to every worker
    got = ta.ir(frame.lazy(), n_jobs=2).evaluate(qrels, ["ap"]).collect()
    pl.testing.assert_frame_equal(got, eager, check_exact=True)
    # a metric defined in this session (its kernel a closure): not sent
    ta.define(lambda grades, R: float((grades > 0).sum()), "hits_test_workers")
    try:
        got = ta.ir(pl.scan_parquet(tmp_path / "run.parquet"), n_jobs=2).evaluate(
            qrels, ["hits_test_workers"]).collect()
        want = frame.ir.evaluate(qrels, ["hits_test_workers"])
        pl.testing.assert_frame_equal(got, want, check_exact=True)
    finally:
        unregister("hits_test_workers")
    assert tasks_sent == []


class _Unpicklable:
    """Pickles here, fails to load in a worker (as a function of a user's script does)."""

    def __reduce__(self):
        return (_refuse, ())


def _refuse():
    raise AttributeError("Can't get attribute 'f' on <module '__main__'>")


def _double(x, _=None):
    return 2 * x


def _die(code):
    os._exit(code)


def test_tasks_a_worker_cannot_load_run_here():
    got = list(workers.scored(_double, [(i, _Unpicklable()) for i in range(5)], 2))
    assert got == [0, 2, 4, 6, 8]


def test_a_worker_that_dies_is_said_and_replaced():
    with pytest.raises(workers.WorkerError, match="exit code 7"):
        list(workers.scored(_die, [(7,)], 2))
    assert list(workers.scored(_double, [(1,), (2,), (3,)], 2)) == [2, 4, 6]


def test_answers_come_in_order_with_at_most_two_tasks_per_worker_in_flight():
    pulled = []

    def tasks():
        for i in range(12):
            pulled.append(i)
            yield (i,)

    answers = workers.scored(_double, tasks(), 2)
    assert next(answers) == 0 and len(pulled) <= 5
    assert list(answers) == [2 * i for i in range(1, 12)]


@pytest.mark.parametrize("bad", [0, -2, 2.0, "2", True])
def test_n_jobs_is_checked_at_the_call(bad, tmp_path):
    run, qrels = ta.load_example()
    run.to_parquet(tmp_path / "run.parquet")
    with pytest.raises(ValueError, match="n_jobs="):
        ta.ir(pl.scan_parquet(tmp_path / "run.parquet"), n_jobs=bad)
    with pytest.raises(ValueError, match="n_jobs="):
        ta.evaluate_parquet(tmp_path / "run.parquet", qrels, ["ap"], n_jobs=bad)


def test_n_jobs_applies_to_lazy_runs_only():
    run, _ = ta.load_example()
    with pytest.raises(ValueError, match="LazyFrame"):
        ta.ir(run, n_jobs=2)
    with pytest.raises(ValueError, match="LazyFrame"):
        ta.ir(pl.from_pandas(run), batch_rows=10)


def test_the_environment_sets_the_default(monkeypatch, tmp_path, small_batches, tasks_sent):
    monkeypatch.delenv(workers.ENVIRONMENT, raising=False)
    assert workers.jobs(None) == pl.thread_pool_size()
    assert workers.jobs(-1) == pl.thread_pool_size()
    run, qrels = ta.load_example()
    run.to_parquet(tmp_path / "run.parquet")
    monkeypatch.setenv(workers.ENVIRONMENT, "3")
    pl.scan_parquet(tmp_path / "run.parquet").ir.ap(qrels).collect()
    monkeypatch.setenv(workers.ENVIRONMENT, "1")
    pl.scan_parquet(tmp_path / "run.parquet").ir.ap(qrels).collect()
    assert [n for n, _ in tasks_sent] == [3]
    monkeypatch.setenv(workers.ENVIRONMENT, "many")
    with pytest.raises(ValueError, match=workers.ENVIRONMENT):
        pl.scan_parquet(tmp_path / "run.parquet").ir.ap(qrels).collect()


def test_small_runs_stay_in_this_process(tmp_path, tasks_sent):
    run, qrels = ta.load_example()
    run.to_parquet(tmp_path / "run.parquet")
    assert len(run) < batches.PARALLEL_ROWS
    ta.evaluate_parquet(tmp_path / "run.parquet", qrels, ["ap"], n_jobs=2)
    assert tasks_sent == []


def test_worker_batches_are_cut_for_every_worker():
    """Three batches per worker, never above batch_rows nor below the smallest batch."""
    assert batches._batch_size(4_000_000, 40_000_000, 16) == 833_334
    assert batches._batch_size(4_000_000, 10_000_000, 2) == 1_666_667
    assert batches._batch_size(1_000_000, 100_000_000, 2) == 1_000_000
    assert batches._batch_size(4_000_000, 2_000_000, 16) == batches.PARALLEL_BATCH_ROWS
    assert batches._batch_size(4_000_000, 10_000_000, 1) == 4_000_000


def test_tasks_pickle_by_reference():
    """What a worker receives: the batch function by name, the run's plan (no data)."""
    plan = pl.scan_parquet("run.parquet").filter(pl.col("qid") == "1")
    assert len(pickle.dumps((batches._score, (plan,)))) < 10_000


def test_workers_that_cannot_start_leave_the_tasks_here(monkeypatch):
    """A worker that dies before it is ready (here: its interpreter cannot import the
    library): the tasks run in this process; nothing is lost or raised."""
    workers.shutdown()
    monkeypatch.setattr(workers, "_BOOT", "import sys; sys.exit(3)")
    try:
        assert list(workers.scored(_double, [(1,), (2,), (3,)], 2)) == [2, 4, 6]
    finally:
        workers.shutdown()
