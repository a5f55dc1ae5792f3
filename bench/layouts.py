"""Ours against pytrec_eval per identifier layout (issue 31): the same run and qrels, their
qid and docid columns handed in as pandas Arrow strings, ``string[pyarrow]``, object
strings (one object per row, as ``astype(object)`` makes them, and one object per distinct
value, as pandas 2's ``read_csv`` and ``read_parquet`` give them), ``category``,
``string[python]``, integers, integer qid with string docid, and as Polars String,
``Categorical`` and ``Enum``. Each layout's values must equal the Arrow-string call's
exactly (checked); each time is the best of ``--repeats`` calls.

pytrec_eval gets the same pandas frames, its dicts built as ``peers.py`` builds them
(``df_to_dict_of_dict``, timed with the call); integer ids are made strings first
(``astype(str)``, timed: pytrec_eval takes string keys only). Polars rows are compared with
pytrec_eval on the pandas Arrow-string frames.

  python bench/layouts.py bench-data/medium              # 1M rows (bash bench/run.sh makes it)
  python bench/layouts.py bench-data/medium --repeats 5 --layouts object,category
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import sys
import time

METRICS = ["ndcg@10", "ap", "rr", "P@10"]
PYTREC = {"ndcg_cut.10": "ndcg_cut_10", "map": "map", "recip_rank": "recip_rank", "P.10": "P_10"}


def _pandas_layouts(np, pd) -> dict:
    """Layout name -> (qid converter, docid converter) of a pandas string column."""
    def integer(s):  # "q000123" -> 123, "D05724115" -> 5724115 (fixed width: order kept)
        return s.str.slice(1).astype(np.int64)

    def kind(dtype):
        return lambda s: s.astype(dtype)

    def one_object_per_value(s):  # as pandas 2's read_csv and read_parquet give strings
        codes, uniques = pd.factorize(s.astype(object))
        return pd.Series(np.asarray(uniques, dtype=object)[codes], index=s.index, dtype=object)

    return {
        "pandas Arrow strings (str)": (kind(str), kind(str)),
        "pandas string[pyarrow]": (kind("string[pyarrow]"), kind("string[pyarrow]")),
        "pandas object strings": (kind(object), kind(object)),
        "pandas object strings, one object per value": (one_object_per_value,
                                                        one_object_per_value),
        "pandas category": (kind("category"), kind("category")),
        "pandas string[python]": (kind("string[python]"), kind("string[python]")),
        "pandas int qid and docid": (integer, integer),
        "pandas int qid, object docid": (integer, kind(object)),
    }


def _polars_layouts(pl) -> dict:
    return {"Polars String": pl.String, "Polars Categorical": pl.Categorical, "Polars Enum": None}


def _best(fn, repeats: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def _pytrec_eval(peers, run, qrels):
    import pytrec_eval

    def call():
        r, q = run, qrels
        if r["qid"].dtype.kind in "iu" or r["docid"].dtype.kind in "iu":  # string keys only
            r = r.astype({"qid": str, "docid": str})
            q = q.astype({"qid": str, "docid": str})
        qd = peers.df_to_dict_of_dict(q, "qid", "docid", "rel")
        rd = peers.df_to_dict_of_dict(r, "qid", "docid", "score")
        return pytrec_eval.RelevanceEvaluator(qd, set(PYTREC)).evaluate(rd)
    return call


def _values(np, out):
    """The per-query values as one array (pandas or Polars result)."""
    if hasattr(out, "to_numpy") and not hasattr(out, "schema"):
        return out.to_numpy()
    return out.select(out.columns[1:]).to_numpy()


def _rows(a, peers, np, pd, pl):
    run = pd.read_parquet(os.path.join(a.data, "run.parquet"), columns=["qid", "docid", "score"])
    qrels = pd.read_parquet(os.path.join(a.data, "qrels.parquet"))
    chosen = set(a.layouts.split(",")) if a.layouts else None
    print(f"{len(run):,} run rows, {len(qrels):,} qrels rows; {', '.join(METRICS)}; "
          f"best of {a.repeats}", file=sys.stderr)
    ref, peer_ref = None, None
    for name, (fq, fd) in _pandas_layouts(np, pd).items():
        if chosen and name not in chosen and ref is not None:
            continue
        r = run.assign(qid=fq(run["qid"]), docid=fd(run["docid"]))
        q = qrels.assign(qid=fq(qrels["qid"]), docid=fd(qrels["docid"]))
        ours, out = _best(lambda: r.ir.evaluate(q, METRICS), a.repeats)
        peer, _ = _best(_pytrec_eval(peers, r, q), a.repeats)
        values = _values(np, out)
        ref = values if ref is None else ref
        peer_ref = peer if peer_ref is None else peer_ref
        assert np.array_equal(values, ref, equal_nan=True), f"{name}: values differ"
        yield name, ours, peer
    prun, pqrels = pl.from_pandas(run), pl.from_pandas(qrels)
    ids = pl.concat([prun["qid"], prun["docid"], pqrels["qid"], pqrels["docid"]]).unique()
    for name, dtype in _polars_layouts(pl).items():
        if chosen and name not in chosen:
            continue
        dtype = dtype or pl.Enum(ids.sort())
        r = prun.with_columns(pl.col("qid", "docid").cast(dtype))
        q = pqrels.with_columns(pl.col("qid", "docid").cast(dtype))
        ours, out = _best(lambda: r.ir.evaluate(q, METRICS), a.repeats)
        assert np.array_equal(_values(np, out), ref, equal_nan=True), f"{name}: values differ"
        yield name + " (*)", ours, peer_ref


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", help="a folder with run.parquet and qrels.parquet")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--layouts", default="", help="comma-separated layout names (default all)")
    ap.add_argument("--peers", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "shared", "bench"),
                    help="the shared peer benchmark (its peers.py builds pytrec_eval's dicts)")
    a = ap.parse_args()

    import numpy as np
    import pandas as pd
    import polars as pl

    import trunc_accessor  # noqa: F401  (registers .ir)

    spec = importlib.util.spec_from_file_location("peers", os.path.join(a.peers, "peers.py"))
    assert spec is not None and spec.loader is not None, f"no peers.py in {a.peers}"
    peers = importlib.util.module_from_spec(spec)
    sys.modules["peers"] = peers  # its dataclasses look their module up
    spec.loader.exec_module(peers)
    print("| input ids | pytrec_eval (s) | ours (s) | ratio |")
    print("|---|---:|---:|---:|")
    for name, ours, peer in _rows(a, peers, np, pd, pl):
        print(f"| {name} | {peer:.3f} | {ours:.3f} | {peer / ours:.2f}× |", flush=True)
    print("\n(*) against pytrec_eval on the pandas Arrow-string frames; every layout's values "
          "equal the Arrow-string call's.")


if __name__ == "__main__":
    main()
