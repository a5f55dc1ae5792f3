"""trunc_accessor entries for the shared peer benchmark (shared/bench/peers.py).

Entries, each ``func(run_df, qrels_df, metrics, timer) -> DataFrame`` (the
interface of peers.py's ``--plugin FILE.py:FUNC[=label]``):

  pandas_trec_eval    run.ir.evaluate(qrels, ..., ties="trec_eval") on pandas frames
  polars_trec_eval    the same on Polars DataFrames (``input = "polars"``)
  pandas_trec_eval9   pandas frames, ties="trec_eval9" (scores compared as float32, as
                      pytrec_eval / trec_eval 9 store them; only in versions that have it,
                      run.sh adds it when the installed library accepts it)
  pandas_first, polars_first   ties="first" (the order as given; the tie-aware cost
                      is measured against it)
  polars_tie_aware    the default ties="average" on Polars frames
  floor_polars, floor_pandas   not ours: what any evaluator of these frames must do
                      (see :func:`_must_do`), the fair floor the engine is measured
                      against (peers.py's own floor sorts every time)
  pandas_tie_aware    pandas frames, the library's default ties="average" (exact
                      tie-aware mean, McSherry & Najork). Its values differ from the peers
                      on queries whose top ranks hold tied scores *by design*; peers.py only
                      counts and lists such differences, it does not fail on them.

Canonical metric names of peers.py -> trunc_accessor metric strings:

  ndcg@K -> "ndcg@K"   ndcg -> "ndcg"   ap -> "ap"   ap@K -> "ap@K"   rr -> "rr"
  p@K -> "precision@K"   rbp_bin@P -> "rbp(p=P)" (binary gain, grade >= 1)

``rbp@P`` (graded RBP with gain = the *raw* grade, ranx's convention) is not offered:
trunc_accessor's graded RBP uses grade / max_grade, so it is declared unsupported and
peers.py skips it for these entries.

Phases. trunc_accessor converts inside its own call, so the split is measured by wrapping
(timing only, behaviour unchanged) the library's internal steps for the duration of the
call, the way peers.py wraps ranx's and ir_measures' converters:

  convert  trunc_accessor.core.frames.to_polars   (pandas -> Polars; a column select on Polars)
  compute  everything else inside .ir.evaluate (validation/casting, join/sort, kernels)
  output   trunc_accessor.core.frames.result_{pandas,polars} + renaming the columns to the
           canonical names (+ Polars -> pandas for the Polars entry)

and the sub-steps of compute are reported as peers.py "details":
``compute: normalise`` (frames.normalise: dtype casts and input validation),
``compute: prepare`` (prepare.prepare: qid join, sort, qrels join, segment arrays),
``compute: kernels`` (engine.evaluation.evaluate_prepared: the NumPy metric kernels).

Undefined values: trunc_accessor returns NaN for nDCG/AP of a query with no relevant
judged document (R = 0), trec_eval reports 0. The output phase fills those with 0
(``trunc_accessor.aggregate(..., undefined="zero")``'s convention) so per-query values
compare with the peers; the number filled is printed to the entry's log.

Run with (from the project root; see bench/run.sh):
  python ../shared/bench/peers.py --data D --out O \
      --plugin bench/plugin.py:pandas_trec_eval=trunc_accessor[pandas] ...
"""
from __future__ import annotations

import contextlib
import re
import sys
import time

_K = re.compile(r"^(ndcg|ap|p)@(\d+)$")
_RBP_BIN = re.compile(r"^rbp_bin@([0-9]*\.?[0-9]+)$")


def to_ours(name: str) -> str | None:
    """trunc_accessor metric string for a peers.py canonical metric name, or None."""
    if name in ("ndcg", "ap", "rr"):
        return name
    m = _K.match(name)
    if m:
        kind, k = m.groups()
        return f"{'precision' if kind == 'p' else kind}@{int(k)}"
    m = _RBP_BIN.match(name)
    if m:
        return f"rbp(p={float(m.group(1))!r})"     # binary gain is the default
    return None                                     # rbp@P (raw-grade gain): not offered


def supports(name: str) -> bool:
    return to_ours(name) is not None


def _labels(metrics: list[str]) -> dict[str, str]:
    """{our output column label: canonical name} (the library labels columns by its own
    canonical label, e.g. "rbp(p=0.8)" -> "rbp")."""
    import trunc_accessor
    return {trunc_accessor.parse(to_ours(m)).label: m for m in metrics}


@contextlib.contextmanager
def _phase_split(timer, output_fn_name: str):
    """Wrap the library's internal steps so their durations land in timer phases/details.

    The time spent in frames.to_polars is moved from "compute" to "convert" and the time in
    the result builder to "output"; the caller times the whole call as "compute"."""
    from trunc_accessor.core import frames
    from trunc_accessor.engine import evaluation as engine

    spent: dict[str, float] = {}
    targets = [
        (frames, "to_polars", "convert"),
        (frames, "normalise", "compute: normalise"),
        (engine, "prepare", "compute: prepare"),
        (engine, "evaluate_prepared", "compute: kernels"),
        (frames, output_fn_name, "output"),
    ]
    saved = []
    for mod, attr, label in targets:
        orig = getattr(mod, attr, None)
        if orig is None:   # the library was refactored: that step stays inside "compute"
            continue

        def make(orig=orig, label=label):
            def wrapper(*a, **kw):
                t0 = time.perf_counter()
                try:
                    return orig(*a, **kw)
                finally:
                    spent[label] = spent.get(label, 0.0) + time.perf_counter() - t0
            return wrapper

        setattr(mod, attr, make())
        saved.append((mod, attr, orig))
    try:
        yield spent
    finally:
        for mod, attr, orig in reversed(saved):
            setattr(mod, attr, orig)


def _evaluate(run, qrels, metrics, timer, *, ties: str, output_fn_name: str):
    labels = _labels(metrics)
    ours = [to_ours(m) for m in metrics]
    with _phase_split(timer, output_fn_name) as spent:
        t0 = time.perf_counter()
        res = run.ir.evaluate(qrels, ours, ties=ties)
        elapsed = time.perf_counter() - t0
    moved = spent.get("convert", 0.0) + spent.get("output", 0.0)
    timer.add("convert", spent.get("convert", 0.0))
    timer.add("compute", elapsed - moved)
    timer.add("output", spent.get("output", 0.0))
    for k in ("compute: normalise", "compute: prepare", "compute: kernels"):
        if k in spent:
            timer.detail(k, spent[k])
    if "convert" in spent:
        timer.detail("convert: frames.to_polars", spent["convert"])
    if "output" in spent:
        timer.detail("output: frames.result_*", spent["output"])
    return res, labels


def _finish(out, labels, timer):
    """Canonical column names; NaN (undefined, R = 0) -> 0 as trec_eval reports."""
    t0 = time.perf_counter()
    out = out.rename(columns=labels)[list(labels.values())]
    n_nan = int(out.isna().to_numpy().sum())
    if n_nan:
        out = out.fillna(0.0)
        print(f"[trunc_accessor plugin] filled {n_nan} undefined (NaN) per-query values with 0 "
              f"(trec_eval convention)", file=sys.stderr, flush=True)
    timer.add("output", time.perf_counter() - t0)
    return out


def _pandas_entry(name: str, ties: str, doc: str):
    """A peers.py entry: pandas DataFrame.ir.evaluate(qrels, metrics, ties=ties)."""
    def entry(run_df, qrels_df, metrics, timer):
        res, labels = _evaluate(run_df, qrels_df, metrics, timer, ties=ties,
                                output_fn_name="result_pandas")
        return _finish(res, labels, timer)

    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = doc
    return entry


pandas_trec_eval = _pandas_entry(
    "pandas_trec_eval", "trec_eval",
    'trunc_accessor: pandas DataFrame.ir.evaluate(qrels, metrics, ties="trec_eval")')
pandas_trec_eval9 = _pandas_entry(
    "pandas_trec_eval9", "trec_eval9",
    'trunc_accessor: pandas DataFrame.ir.evaluate(..., ties="trec_eval9") '
    "(scores compared as float32, like pytrec_eval)")
pandas_tie_aware = _pandas_entry(
    "pandas_tie_aware", "average",
    'trunc_accessor: pandas DataFrame.ir.evaluate(..., ties="average") '
    "(exact tie-aware; differs from trec_eval on tied rows by design)")


def _polars_entry(name: str, ties: str, doc: str):
    """A peers.py entry on Polars frames (``input = "polars"``): DataFrame.ir.evaluate,
    then the harness's own Polars -> pandas step for the comparison."""
    def entry(run_df, qrels_df, metrics, timer):
        res, labels = _evaluate(run_df, qrels_df, metrics, timer, ties=ties,
                                output_fn_name="result_polars")
        with timer.phase("output"):
            t0 = time.perf_counter()
            out = res.to_pandas().set_index("qid")
            timer.detail("output: Polars -> pandas (benchmark harness)", time.perf_counter() - t0)
        return _finish(out, labels, timer)

    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = doc
    entry.input = "polars"
    return entry


polars_trec_eval = _polars_entry(
    "polars_trec_eval", "trec_eval",
    'trunc_accessor: Polars DataFrame.ir.evaluate(qrels, metrics, ties="trec_eval")')
polars_tie_aware = _polars_entry(
    "polars_tie_aware", "average",
    'trunc_accessor: Polars DataFrame.ir.evaluate(..., ties="average") (exact tie-aware)')
polars_first = _polars_entry(
    "polars_first", "first",
    'trunc_accessor: Polars DataFrame.ir.evaluate(..., ties="first") (the order as given)')
pandas_first = _pandas_entry(
    "pandas_first", "first",
    'trunc_accessor: pandas DataFrame.ir.evaluate(..., ties="first") (the order as given)')


def _must_do(run, qrels):
    """The fair floor: what any evaluator of a long run frame must do before its kernels,
    in Polars, and nothing else. Check whether the rows are in ranking order (qid, then
    rank) and sort them only if not; left-join the qrels on (qid, docid) for each row's
    grade; mark where a ranking starts and where a tie group (a run of equal scores in a
    ranking) starts; hand the three columns to NumPy. No validation, no duplicate check,
    no metric."""
    import polars as pl
    qid, rank, score = pl.col("qid"), pl.col("rank"), pl.col("score")
    ordered = run.select(((qid > qid.shift()) | ((qid == qid.shift()) & (rank > rank.shift())))
                         .fill_null(True).all()).item()
    if not ordered:
        run = run.sort("qid", "rank")
    joined = run.join(qrels, on=["qid", "docid"], how="left", maintain_order="left")
    ranking = qid.ne(qid.shift()).fill_null(True)
    marks = joined.select(ranking.alias("ranking"),
                          (ranking | score.ne(score.shift()).fill_null(True)).alias("group"))
    return joined["rel"].to_numpy(), marks["ranking"].to_numpy(), marks["group"].to_numpy()


def floor_polars(run_df, qrels_df, metrics, timer):
    """floor (not trunc_accessor): Polars frames → grades, ranking and tie-group starts."""
    with timer.phase("compute"):
        _must_do(run_df, qrels_df)


def floor_pandas(run_df, qrels_df, metrics, timer):
    """floor (not trunc_accessor): pandas → Polars, then grades, ranking and tie-group
    starts."""
    import polars as pl
    with timer.phase("convert"):
        run, qrels = pl.from_pandas(run_df), pl.from_pandas(qrels_df)
    with timer.phase("compute"):
        _must_do(run, qrels)


floor_polars.input, floor_pandas.input = "polars", "pandas"
floor_polars.label = "floor: Polars, the engine's must-do"
floor_pandas.label = "floor: pandas → Polars, the engine's must-do"
for _fn in (floor_polars, floor_pandas):
    _fn.modules = ("polars",)
    _fn.dists = ("polars", "pandas", "pyarrow")


def _version() -> str:
    """Package version plus the commit benchmarked: $BENCH_TRUNC_ACCESSOR_COMMIT (set by
    run.sh for a TRUNC_ACCESSOR_REF snapshot), else the git HEAD of the checkout that
    trunc_accessor is imported from ("-dirty" if its trunc_accessor/ has local changes)."""
    import importlib.metadata
    import importlib.util
    import os
    import subprocess
    try:
        ver = importlib.metadata.version("trunc_accessor")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        ver = "?"
    commit = os.environ.get("BENCH_TRUNC_ACCESSOR_COMMIT")
    if not commit:
        try:
            spec = importlib.util.find_spec("trunc_accessor")
            pkg = os.path.dirname(spec.origin)
            git = ["git", "-C", os.path.dirname(pkg)]
            def run(*args):
                return subprocess.run(
                    git + list(args), check=False, capture_output=True, text=True, timeout=10
                ).stdout.strip()

            commit = run("rev-parse", "--short", "HEAD")
            dirty = run("status", "--porcelain", "--", pkg)
            if commit and dirty:
                commit += "-dirty"
        except Exception:  # noqa: BLE001  (no git, not a checkout: version only)
            commit = ""
    return f"{ver} ({commit})" if commit else ver


_VERSION = _version()
for _fn, _input in ((pandas_trec_eval, "pandas"), (polars_trec_eval, "polars"),
                    (pandas_trec_eval9, "pandas"), (pandas_tie_aware, "pandas"),
                    (polars_tie_aware, "polars"), (polars_first, "polars"),
                    (pandas_first, "pandas")):
    _fn.input = _input
    _fn.supports = supports
    _fn.modules = ("polars", "trunc_accessor")   # imported (and timed) before the data loads
    _fn.dists = ("trunc_accessor", "polars", "pandas", "pyarrow", "numpy")
    _fn.version = _VERSION
pandas_trec_eval.label = "trunc_accessor[pandas]"
polars_trec_eval.label = "trunc_accessor[polars]"
pandas_trec_eval9.label = "trunc_accessor[pandas,ties=trec_eval9]"
pandas_tie_aware.label = "trunc_accessor[pandas,ties=average]"
polars_tie_aware.label = "trunc_accessor[polars,ties=average]"
polars_first.label = "trunc_accessor[polars,ties=first]"
pandas_first.label = "trunc_accessor[pandas,ties=first]"
