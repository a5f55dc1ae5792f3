"""A call's options are checked once, where the call comes in (``trunc_accessor.engine.options``).

Two properties, on every way in:

* each option given a bad value is refused with the same message and exception class from
  every frontend that takes it (pandas, Polars eager and lazy, Dask, the single-ranking
  functions, ``evaluate_parquet``, the command line), before any work: a lazy or Dask
  answer raises when the method is called, not when it is computed;
* one call checks each option exactly once (a counting wrapper replaces the check
  functions everywhere the package holds them), whatever the frontend and the preset: the
  engine and the preparation below the edge never check again.
"""
from __future__ import annotations

import dataclasses
import re
import sys
import warnings

import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, ROOT, need
from trunc_accessor.engine import options as options_module
from trunc_accessor.engine.options import Options
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.frontends import single

TIES_MESSAGE = "ties= must be one of ('average', 'first', 'trec_eval', 'trec_eval9'), not {!r}"
LEVEL_MESSAGE = ("relevance_level must be a finite number > 0 (grades ≥ it are relevant; "
                 "unjudged documents count as grade 0 and are never relevant), not {!r}")
UNDEFINED_MESSAGE = ("undefined= must be 'zero' (an undefined value, e.g. AP of a query with "
                     "no relevant document, is 0, as trec_eval, pytrec_eval, ir_measures and "
                     "ranx give it) or 'nan' (NaN in pandas, null in Polars, left out of "
                     "means), not {!r}")
JUDGED_MESSAGE = "judged_only must be True or False, not {!r}"
LIKE_MESSAGE = ("like= must be one of ('trec_eval', 'pytrec_eval', 'ir_measures', 'ranx') or "
                "None, not {!r}")
NAMES_MESSAGE = "names= must be 'as_written' or 'canonical', not {!r}"

# option → (a bad value, the message, the exception class)
BAD = {
    "ties": ("sorted", TIES_MESSAGE, ParameterError),
    "relevance_level": (0, LEVEL_MESSAGE, ParameterError),
    "undefined": ("skip", UNDEFINED_MESSAGE, ParameterError),
    "judged_only": ("yes", JUDGED_MESSAGE, ParameterError),
    "like": ("trec", LIKE_MESSAGE, ParameterError),
    "names": ("short", NAMES_MESSAGE, InputError),
}
# the options of each kind of call (evaluate takes them all)
METHOD_OPTIONS = ("ties", "relevance_level", "undefined", "judged_only")
CURVE_OPTIONS = ("ties", "relevance_level", "undefined")
CRP_OPTIONS = ("ties", "relevance_level")


@pytest.fixture(scope="module")
def small():
    run, qrels = ta.load_example()
    qids = run["qid"].unique()[:2]
    return (run[run["qid"].isin(qids)].reset_index(drop=True),
            qrels[qrels["qid"].isin(qids)].reset_index(drop=True))


def frames(small, library):
    run, qrels = small
    if library == "pandas":
        return run, qrels
    if library == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(run, npartitions=2), qrels
    frame = pl.from_pandas(run)
    return (frame.lazy() if library == "lazy" else frame), pl.from_pandas(qrels)


def refused(call, option):
    value, message, kind = BAD[option]
    with pytest.raises(kind, match="^" + re.escape(message.format(value)) + "$"):
        call(value)


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("library", ["pandas", "polars", "lazy", "dask"])
@pytest.mark.parametrize("option", list(BAD))
def test_evaluate_refuses_each_bad_option_with_one_message(small, library, option):
    """``evaluate`` on every frame library: the same message, raised when called (a lazy
    or Dask answer is never built)."""
    run, qrels = frames(small, library)
    refused(lambda v: run.ir.evaluate(qrels, ["ap", "ndcg@10"], **{option: v}), option)


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy", "dask"])
@pytest.mark.parametrize("option", METHOD_OPTIONS)
def test_metric_methods_refuse_each_bad_option_with_one_message(small, library, option):
    run, qrels = frames(small, library)
    refused(lambda v: run.ir.ndcg(qrels, k=10, **{option: v}), option)


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy", "dask"])
@pytest.mark.parametrize("option", CURVE_OPTIONS)
def test_curves_refuse_each_bad_option_with_one_message(small, library, option):
    run, qrels = frames(small, library)
    refused(lambda v: run.ir.cutoff_curve(qrels, "ap", **{option: v}), option)
    refused(lambda v: run.ir.optimal_cutoff(qrels, "ap", **{option: v}), option)


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy", "dask"])
@pytest.mark.parametrize("option", CRP_OPTIONS)
def test_crp_refuses_each_bad_option_with_one_message(small, library, option):
    run, qrels = frames(small, library)
    refused(lambda v: run.ir.crp(qrels, **{option: v}), option)
    refused(lambda v: run.ir.crp_archetype(qrels, **{"ties": "first", option: v}), option)


@pytest.mark.parametrize("library", ["polars", "lazy", "dask"])
def test_depths_are_refused_when_the_method_is_called(small, library):
    """``max_depth``/``depth`` are checked at the edge too: a lazy answer is refused when
    the method is called (it used to be refused only when collected)."""
    run, qrels = frames(small, library)
    message = "max_depth must be a whole number ≥ 1 or None, not 0.5"
    with pytest.raises(ParameterError, match="^" + re.escape(message) + "$"):
        run.ir.cutoff_curve(qrels, "ap", max_depth=0.5)
    with pytest.raises(ParameterError, match="^depth must be ≥ 1"):
        run.ir.crp(qrels, depth=0)


@pytest.mark.parametrize("option", ["ties", "relevance_level", "undefined"])
def test_single_ranking_functions_refuse_each_bad_option_with_one_message(option):
    refused(lambda v: single.ap([1, 0, 1], R=3, **{option: v}), option)
    refused(lambda v: single.alpha_ndcg([{1}, {1, 2}, set()], **{option: v}), option)


def test_single_diversity_functions_refuse_a_ties_of_another_type():
    """``ties=`` not a string: the library's error, not an AttributeError of ``str``
    methods (the diversity functions read it before checking it)."""
    with pytest.raises(ParameterError, match=re.escape(TIES_MESSAGE.format(5))):
        single.alpha_ndcg([{1}, set()], ties=5)


def test_evaluate_parquet_refuses_each_bad_option_with_one_message(small, tmp_path):
    run, qrels = small
    path = tmp_path / "run.parquet"
    run.to_parquet(path)
    for option in ("ties", "relevance_level", "undefined", "judged_only", "names"):
        refused(lambda v, option=option: ta.evaluate_parquet(path, qrels, ["ap"],
                                                             **{option: v}), option)
    with pytest.raises(InputError, match="^batch_rows must be a whole number ≥ 1"):
        ta.evaluate_parquet(path, qrels, ["ap"], batch_rows=0)


@pytest.mark.parametrize("level", ["0", "nan", "inf"])
def test_command_line_refuses_a_bad_relevance_level_with_the_same_message(level, capsys):
    from trunc_accessor.frontends.cli import trec_eval as cli

    te = DATA / "trec_eval"
    assert cli.main([str(need(te / "qrels.test")), str(need(te / "results.test")),
                     "-l", level]) == 2
    err = capsys.readouterr().err
    assert err == "trunc-accessor: " + LEVEL_MESSAGE.format(float(level)) + "\n"


def test_dask_plot_crp_refuses_bad_options_before_computing_the_run(small, monkeypatch):
    """The Dask ``plot_crp`` computes the run on the client: its options are refused first."""
    dd = pytest.importorskip("dask.dataframe")
    run, qrels = frames(small, "dask")

    def computed(*args, **kwargs):
        raise AssertionError("the run was computed before its options were checked")

    monkeypatch.setattr(dd.DataFrame, "compute", computed)
    refused(lambda v: run.ir.plot_crp(qrels, ties=v), "ties")
    refused(lambda v: run.ir.plot_crp(qrels, relevance_level=v), "relevance_level")
    with pytest.raises(ParameterError, match="^depth must be ≥ 1"):
        run.ir.plot_crp(qrels, depth=0)


def test_options_are_frozen():
    opts = Options()
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.ties = "first"  # type: ignore[misc]
    assert opts.replace(ties="first") == Options(ties="first") and opts.ties == "average"


# --------------------------------------------------------------------------- checked once
def _count_checks(monkeypatch) -> dict[str, int]:
    """Replace every check function of a call's options, in every module of the package
    that holds it, by a counting wrapper; return the counts (``judged_only``: the calls of
    ``checked`` for it)."""
    from trunc_accessor.core import prepared
    from trunc_accessor.engine import presets
    from trunc_accessor.metrics import conventions, registry

    counts: dict[str, int] = {}
    originals = {"ties": prepared.check_ties, "relevance_level": conventions.check_level,
                 "undefined": options_module.check_undefined, "like": presets.check_like,
                 "names": options_module.check_names}

    def counting(option, function):
        def wrapper(*args, **kwargs):
            counts[option] = counts.get(option, 0) + 1
            return function(*args, **kwargs)
        return wrapper

    def counting_checked(function):
        def wrapper(name, *args, **kwargs):
            if name == "judged_only":
                counts["judged_only"] = counts.get("judged_only", 0) + 1
            return function(name, *args, **kwargs)
        return wrapper

    targets = {id(f): counting(option, f) for option, f in originals.items()}
    targets[id(registry.checked)] = counting_checked(registry.checked)
    for name, module in list(sys.modules.items()):
        if not name.startswith("trunc_accessor") or module is None:
            continue
        for attribute, value in list(vars(module).items()):
            if callable(value) and id(value) in targets:
                monkeypatch.setattr(module, attribute, targets[id(value)])
    return counts


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy", "dask"])
@pytest.mark.parametrize("like", [None, "ir_measures", "pytrec_eval"])
def test_one_evaluate_call_checks_each_option_once(small, library, like, monkeypatch):
    """``evaluate`` with several measures (and, with ``like="ir_measures"``, several
    preparations, one per provider order): each option checked exactly once."""
    run, qrels = frames(small, library)
    counts = _count_checks(monkeypatch)
    given = {"ties": "trec_eval"} if like is None else {}  # a preset sets its own ties
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run.ir.evaluate(qrels, ["ap", "ndcg@10", "rr@10", "judged@10"],
                                 relevance_level=1, judged_only=False, like=like, **given)
        if library in ("lazy", "dask"):
            result = result.collect() if library == "lazy" else result.compute()
    assert len(result) == 2
    # ties= not given is not checked: the preset's order is the engine's own
    assert counts == {**({"ties": 1} if given else {}), "relevance_level": 1, "undefined": 1,
                      "judged_only": 1, "like": 1, "names": 1}


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_one_metric_method_call_checks_each_option_once(small, library, monkeypatch):
    run, qrels = frames(small, library)
    counts = _count_checks(monkeypatch)
    result = run.ir.ndcg(qrels, k=10, ties="trec_eval", judged_only=True)
    if library == "lazy":
        result = result.collect()
    assert len(result) == 2
    assert counts == {"ties": 1, "relevance_level": 1, "undefined": 1, "judged_only": 1,
                      "like": 1}


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_one_curve_or_crp_call_checks_each_option_once(small, library, monkeypatch):
    run, qrels = frames(small, library)
    counts = _count_checks(monkeypatch)
    curve = run.ir.cutoff_curve(qrels, "ap", ties="first", max_depth=5)
    crp = run.ir.crp(qrels, ties="first", depth=5)
    if library == "lazy":
        curve, crp = curve.collect(), crp.collect()
    assert len(curve) and len(crp)
    assert counts == {"ties": 2, "relevance_level": 2, "undefined": 2, "judged_only": 2,
                      "like": 2}  # two calls, each checking each option once


def test_single_ranking_functions_check_each_option_once(monkeypatch):
    counts = _count_checks(monkeypatch)
    assert single.ap([1, 0, 1], R=3, ties="first") == pytest.approx((1 + 2 / 3 + 0) / 3)
    single.alpha_ndcg([{1}, {1, 2}, set()], ties="trec_eval")
    assert counts == {"ties": 2, "relevance_level": 2, "undefined": 2, "judged_only": 2,
                      "like": 2}  # two calls, each checking each option once


def test_evaluate_parquet_checks_each_option_once(small, tmp_path, monkeypatch):
    run, qrels = small
    path = tmp_path / "run.parquet"
    run.to_parquet(path)
    counts = _count_checks(monkeypatch)
    got = ta.evaluate_parquet(path, qrels, ["ap", "ndcg@10"], batch_rows=600)
    pd.testing.assert_frame_equal(got, run.ir.evaluate(qrels, ["ap", "ndcg@10"], ties="average"))
    assert counts == {"ties": 2, "relevance_level": 2, "undefined": 2, "judged_only": 2,
                      "like": 2, "names": 2}  # two calls


@pytest.mark.parametrize("level", ["0", "nan"])
def test_command_line_judgment_groups_refuse_a_bad_relevance_level(level, capsys):
    """``-R qrels_jg`` scores outside the accessor (``evaluate_avgjg``): its ``-l`` is
    refused with the same message (it used to score with any level, NaN included)."""
    from trunc_accessor.frontends.cli import trec_eval as cli

    jg = need(ROOT / "tests" / "data" / "trec_eval10" / "qrels.123")
    run = need(DATA / "trec_eval" / "results.test")
    assert cli.main(["-m", "qrels_jg", "-R", "qrels_jg", str(jg), str(run), "-l", level]) == 2
    err = capsys.readouterr().err
    assert err == "trunc-accessor: " + LEVEL_MESSAGE.format(float(level)) + "\n"


def test_evaluate_avgjg_refuses_bad_options_before_any_work():
    from trunc_accessor.metrics.avgjg import evaluate_avgjg

    not_frames = object()  # never read: the options are refused first
    refused(lambda v: evaluate_avgjg(not_frames, not_frames, relevance_level=v),
            "relevance_level")
    refused(lambda v: evaluate_avgjg(not_frames, not_frames, judged_only=v), "judged_only")
