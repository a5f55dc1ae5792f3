"""Query batches (trunc_accessor.engine.batches): a lazy run evaluated a few queries at a time
gives the values, rows, order and warnings of the eager call, and a Parquet run is read
under a memory cap far below what holding it would take.

The eager call is itself checked against trec_eval/pytrec_eval and brute force elsewhere;
here the lazy path must reproduce it exactly, with batches as small as one query.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pandas as pd
import polars as pl
import polars.testing
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests.strategies import frames_of, random_queries
from trunc_accessor.engine import batches

METRICS = ["ap", "ndcg@3", "rr", "P@2", "err", "rbp(p=0.5, graded=True)", "bpref",
           "rbp_prime", "num_ret", "twist"]


def _systems(draw_queries, n_systems):
    runs, qrels = [], None
    for s, queries in enumerate(draw_queries):
        run, q = frames_of(queries)
        runs.append(run.assign(system=f"s{s}"))
        qrels = q if qrels is None else pd.concat([qrels, q]).drop_duplicates(["qid", "docid"])
    return pd.concat(runs, ignore_index=True), qrels


def _caught(fn):
    """(answer or the exception raised, the warnings said)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = fn()
        except ValueError as error:
            out = error
    return out, sorted((w.category.__name__, str(w.message)) for w in seen)


def _both(run, qrels, call, batch_rows, monkeypatch):
    eager, said_eager = _caught(lambda: call(pl.from_pandas(run)))
    monkeypatch.setattr(batches, "BATCH_ROWS", batch_rows)
    lazy, said_lazy = _caught(lambda: call(pl.from_pandas(run).lazy()).collect())
    return eager, lazy, said_eager, said_lazy


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(systems=st.lists(random_queries(max_queries=5, max_len=7), min_size=1, max_size=3),
       batch_rows=st.integers(1, 12), ties=st.sampled_from(["average", "first", "trec_eval"]),
       by=st.booleans(), extra_query=st.booleans())
def test_batched_evaluate_equals_the_eager_call(systems, batch_rows, ties, by, extra_query,
                                                monkeypatch):
    run, qrels = _systems(systems, len(systems))
    if not by:
        run = run[run.system == "s0"].drop(columns="system")
    qrels = pl.from_pandas(qrels)
    queries = ["q0", "zz"] if extra_query else None  # "zz": scored, in no run
    kw = {"ties": ties, "queries": queries, "by": "system" if by else None}
    eager, lazy, said_eager, said_lazy = _both(
        run, qrels, lambda r: r.ir.evaluate(qrels, METRICS, **kw), batch_rows, monkeypatch)
    if isinstance(eager, ValueError):
        # the same error; its example ranking may differ (a batch holds every system of a
        # few qids: the first failing ranking of the first failing batch, not of system 1),
        # and the warnings before it may count fewer batches
        assert type(lazy) is type(eager)
        assert str(lazy).split(" the ranking of")[0] == str(eager).split(" the ranking of")[0]
    else:
        pl.testing.assert_frame_equal(lazy, eager, check_exact=True)
        assert said_lazy == said_eager


@pytest.mark.parametrize("call", ["cutoff_curve", "optimal_cutoff", "crp", "crp_archetype"])
def test_batched_curves_and_crp_equal_the_eager_call(call, monkeypatch, cranfield):
    run, qrels = cranfield
    run = run[run.qid.isin(run.qid.unique()[:40])]
    qrels = pl.from_pandas(qrels)
    fns = {"cutoff_curve": lambda r: r.ir.cutoff_curve(qrels, "ap", max_depth=20, by="system"),
           "optimal_cutoff": lambda r: r.ir.optimal_cutoff(qrels, "rbp_prime", by="system"),
           "crp": lambda r: r.ir.crp(qrels, by="system", depth=30),
           "crp_archetype": lambda r: r.ir.crp_archetype(qrels, by="system", ties="first")}
    eager, lazy, said_eager, said_lazy = _both(run, qrels, fns[call], 500, monkeypatch)
    pl.testing.assert_frame_equal(lazy, eager, check_exact=True)
    assert said_lazy == said_eager


def test_warnings_and_errors_are_those_of_the_whole_call(monkeypatch):
    run, qrels = ta.load_example()
    # a system whose docids match nothing, and a qid no qrels judge: one warning each
    bad = run.assign(system="bad", docid=run.docid + " ")
    extra = run.head(5).assign(qid="999")
    both = pd.concat([run.assign(system="ok"), bad, extra.assign(system="ok")])
    eager, lazy, said_eager, said_lazy = _both(
        both, qrels, lambda r: r.ir.evaluate(qrels, ["ap"], by="system"), 100, monkeypatch)
    pl.testing.assert_frame_equal(lazy, eager, check_exact=True)
    assert said_lazy == said_eager
    assert [c for c, _ in said_lazy] == ["DroppedQueriesWarning", "IdentifierWarning"]
    # a run none of whose qids is judged: the ValueError of the eager call
    monkeypatch.setattr(batches, "BATCH_ROWS", 10)
    with pytest.raises(ValueError, match="no qid of the run"):
        pl.from_pandas(run.assign(qid="x" + run.qid)).lazy().ir.ap(qrels).collect()


def test_evaluate_parquet_matches_trec_eval_and_the_pandas_accessor(tmp_path, cranfield):
    run, qrels = cranfield
    path = tmp_path / "runs.parquet"
    run.sort_values(["qid", "system"]).to_parquet(path, row_group_size=5000)
    got = ta.evaluate_parquet(path, qrels, ["ndcg@10", "map"], by="system", batch_rows=3000)
    pd.testing.assert_frame_equal(got, run.ir.evaluate(qrels, ["ndcg@10", "map"], by="system"))
    polars_out = ta.evaluate_parquet(str(tmp_path / "*.parquet"), qrels, ["map"], by="system",
                                     output="polars")
    assert polars_out.columns == ["system", "qid", "map"]
    with pytest.raises(ValueError, match="output="):
        ta.evaluate_parquet(path, qrels, ["map"], output="numpy")
    with pytest.raises(ValueError, match="batch_rows"):
        ta.evaluate_parquet(path, qrels, ["map"], batch_rows=0)


CAPPED = textwrap.dedent("""
    import json, resource, sys
    import numpy as np, polars as pl
    import trunc_accessor as ta

    def vm_size():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024

    path, qrels_path, out, budget = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    qrels = pl.read_parquet(qrels_path)
    small = pl.scan_parquet(path).head(5000)
    small.ir.evaluate(qrels, ["ap", "ndcg@10", "rr", "P@10"]).collect()   # warm-up
    resource.setrlimit(resource.RLIMIT_AS, (vm_size() + budget, resource.RLIM_INFINITY))
    values = ta.evaluate_parquet(path, qrels, ["ap", "ndcg@10", "rr", "P@10"],
                                 batch_rows=200_000, output="polars")
    values.write_parquet(out)
    print(json.dumps({"ok": True, "rows": values.height}))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS, /proc")
def test_a_parquet_run_is_evaluated_under_a_memory_cap(tmp_path):
    """3M run rows evaluated in batches of 200,000 rows with 450 MB of address space above
    the warmed-up process; reading and evaluating the same file eagerly fails under that
    cap (checked below, so the cap is known to bind)."""
    rng = np.random.default_rng(1)
    n_q, depth = 3000, 1000
    qid = np.repeat(np.arange(n_q), depth)
    docid = rng.integers(0, 50_000, n_q * depth) * 1000 + np.tile(np.arange(depth), n_q)
    score = np.round(rng.random(n_q * depth), 2)  # rounded: many ties
    run = pl.DataFrame({"qid": qid.astype(str), "docid": docid.astype(str), "score": score})
    judged = run.filter(pl.col("docid").str.ends_with("7"))
    qrels = judged.select("qid", "docid", rel=pl.lit(1) + (pl.col("score") * 3).cast(pl.Int64))
    run_path, qrels_path = tmp_path / "run.parquet", tmp_path / "qrels.parquet"
    run.write_parquet(run_path, row_group_size=100_000)
    qrels.write_parquet(qrels_path)
    out = tmp_path / "values.parquet"

    def capped(code):
        return subprocess.run([sys.executable, "-c", code, str(run_path), str(qrels_path),
                               str(out), str(450 * 2 ** 20)], check=False,
                              capture_output=True, text=True, timeout=300)

    eager = CAPPED.replace(
        'ta.evaluate_parquet(path, qrels, ["ap", "ndcg@10", "rr", "P@10"],\n'
        '                             batch_rows=200_000, output="polars")',
        'pl.read_parquet(path).ir.evaluate(qrels, ["ap", "ndcg@10", "rr", "P@10"])')
    assert eager != CAPPED
    assert capped(eager).returncode != 0
    proc = capped(CAPPED)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1])["ok"]
    expected = run.ir.evaluate(qrels, ["ap", "ndcg@10", "rr", "P@10"])
    pl.testing.assert_frame_equal(pl.read_parquet(out), expected, check_exact=True)
