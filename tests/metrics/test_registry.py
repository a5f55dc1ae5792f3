"""The metric registry: one declaration gives the string form, the accessor method, the
single-ranking function and the CLI name."""
from __future__ import annotations

import inspect

import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from trunc_accessor import single
from trunc_accessor.frontends.cli.trec_eval import main
from trunc_accessor.metrics.registry import REGISTRY


@pytest.mark.parametrize("spec,label", [
    ("ndcg@10", "ndcg@10"), ("nDCG@10", "ndcg@10"), (("ndcg", {"k": 10}), "ndcg@10"),
    ("ndcg(k=10)", "ndcg@10"), ("map", "ap"), ("MAP@100", "ap@100"), ("P@5", "precision@5"),
    ("recip_rank", "rr"), ("MRR@10", "rr@10"), ("rbp", "rbp"), ("rbp(p=0.8)", "rbp"),
    ("rbp(p=0.5)", "rbp(p=0.5)"), ("RBP(p=0.5, graded=True)", "rbp(p=0.5,graded=True)"),
    ("ndcg@5(gains='exponential')", "ndcg@5(gains=exponential)"),
    ("ndcg(gains={1: 3, 2: 9})", "ndcg(gains={1:3,2:9})"), ("R-prec", "rprec"),
    ("success@1", "success@1"), ("rbp_resid(p=0.9)", "rbp_residual(p=0.9)"),
])
def test_string_forms_parse_to_canonical_labels(spec, label):
    assert ta.parse(spec).label == label
    assert ta.parse(ta.parse(spec).label) == ta.parse(spec)  # the label parses back


@pytest.mark.parametrize("bad", ["ndcg@", "ndcg@ten", "rbp(0.5)", "ndcg@10@5", "", 42])
def test_unparseable_specs(bad):
    with pytest.raises(ValueError):
        ta.parse(bad)


def test_every_metric_has_method_function_doc_and_cli_name(capsys):
    assert main(["--list"]) == 0
    listed = capsys.readouterr().out
    for name, metric in REGISTRY.items():
        for cls in (pd.DataFrame.ir, pl.DataFrame.ir, pl.LazyFrame.ir):
            method = getattr(cls, name)
            assert list(inspect.signature(method).parameters)[:2] == ["self", "qrels"]
            assert metric.citation and metric.citation in method.__doc__
        assert callable(getattr(single, name))
        assert f"{name}(" in listed
        doc = metric.doc
        assert ">>>" in doc, f"{name}: docstring needs a runnable example"
        text = metric.undefined + metric.doc
        assert "R = 0" in text, f"{name}: say what R = 0 gives"
        assert "empty" in text.lower() or "n = 0" in text, f"{name}: say what n = 0 gives"


def test_evaluate_deduplicates_equal_measures():
    run, qrels = ta.load_example()
    res = run.ir.evaluate(qrels, ["rbp", "rbp(p=0.8)", "ap", "map", "ap"])
    assert list(res.columns) == ["rbp", "rbp(p=0.8)", "ap", "map"]  # as written, once each
    canonical = run.ir.evaluate(qrels, ["rbp", "rbp(p=0.8)", "ap", "map"], names="canonical")
    assert list(canonical.columns) == ["rbp", "ap"]


def test_cli_matches_trec_eval_means(capsys):
    """trec_eval's `all` line for the shipped example (out.test: map 0.1785)."""
    path = ta.example_path
    assert main([path("qrels.test"), path("results.test"), "-m", "ap", "--ties", "trec_eval"]) == 0
    assert capsys.readouterr().out.split() == ["ap", "all", "0.1785"]
    assert main([path("qrels.test"), path("results.test"), "-m", "nope"]) == 2
    assert main([path("results.test"), path("qrels.test"), "-m", "ap"]) == 2  # the order
    assert "QRELS RUN" in capsys.readouterr().err
