"""Measure names in trec_eval's, ir_measures', ranx's and our dialect: each spelling gives
trec_eval's per-query values (stored outputs of trec_eval 10), through evaluate and the CLI;
columns carry the names as written; two spellings are computed once."""
from __future__ import annotations

import io
import math
from contextlib import redirect_stdout

import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import DATA, ROOT, need, read_trec_eval_output
from trunc_accessor.frontends.cli import trec_eval as cli
from trunc_accessor.metrics.registry import REGISTRY

TE = DATA / "trec_eval"

# (spelling, the trec_eval measure it equals); qrels.test + results.test, trec_eval -q
BINARY = [
    # trec_eval
    ("map", "map"), ("P_10", "P_10"), ("P.20", "P_20"), ("recall_100", "recall_100"),
    ("ndcg", "ndcg"), ("ndcg_cut_10", "ndcg_cut_10"), ("map_cut_100", "map_cut_100"),
    ("recip_rank", "recip_rank"), ("Rprec", "Rprec"), ("bpref", "bpref"),
    ("success_10", "success_10"), ("num_ret", "num_ret"), ("num_rel", "num_rel"),
    ("num_rel_ret", "num_rel_ret"),
    # ir_measures / PyTerrier
    ("nDCG@10", "ndcg_cut_10"), ("AP@100", "map_cut_100"), ("AP", "map"), ("P@5", "P_5"),
    ("R@1000", "recall_1000"), ("RR", "recip_rank"), ("Bpref", "bpref"),
    ("Success@10", "success_10"), ("NumRet", "num_ret"), ("NumRel", "num_rel"),
    ("NumRelRet", "num_rel_ret"), ("P(rel=1)@20", "P_20"),
    # ranx
    ("ndcg@10", "ndcg_cut_10"), ("map@100", "map_cut_100"), ("mrr", "recip_rank"),
    ("precision@5", "P_5"), ("recall@100", "recall_100"), ("hit_rate@10", "success_10"),
    ("r-precision", "Rprec"), ("precision@5-l1", "P_5"),
    # ours
    ("ap", "map"), ("rr", "recip_rank"), ("ndcg@1000", "ndcg_cut_1000"), ("rprec", "Rprec"),
]
# qrels.rel_level + results.test, trec_eval -l2 -q
GRADED = [("P_5", "P_5"), ("P(rel=2)@5", "P_5"), ("precision@5-l2", "P_5"),
          ("AP(rel=2)@100", "map_cut_100"), ("R(rel=2)@100", "recall_100"),
          ("RR(rel=2)", "recip_rank"), ("map", "map")]


def _expected(path):
    return read_trec_eval_output(need(path))


def _check(res: pd.DataFrame, spelling: str, want: dict, name: str) -> None:
    assert spelling in res.columns  # the name as written
    for qid, value in res[spelling].items():
        expected = want[(name, str(qid))]
        assert round(float(value), 4) == pytest.approx(expected, abs=1e-4 + 1e-12), (
            spelling, qid, value, expected)


def test_every_dialect_gives_trec_eval_values_per_query():
    run = ta.read_run(need(TE / "results.test"))
    qrels = ta.read_qrels(need(TE / "qrels.test"))
    want = _expected(TE / "out.test.aq")
    res = run.ir.evaluate(qrels, [s for s, _ in BINARY], ties="trec_eval")
    written = [s if s != "P.20" else "P_20" for s, _ in BINARY]  # a trec_eval list → P_20
    assert list(res.columns) == list(dict.fromkeys(written))
    for spelling, name in BINARY:
        _check(res, "P_20" if spelling == "P.20" else spelling, want, name)


def test_relevance_level_in_the_name():
    """ir_measures' rel= and ranx's -l2 set that measure's relevance level (trec_eval -l2)."""
    run = ta.read_run(need(TE / "results.test"))
    qrels = ta.read_qrels(need(TE / "qrels.rel_level"))
    want = _expected(TE / "out.test.aql")
    mixed = run.ir.evaluate(qrels, [s for s, _ in GRADED if s not in ("P_5", "map")],
                            ties="trec_eval")
    plain = run.ir.evaluate(qrels, ["P_5", "map"], ties="trec_eval", relevance_level=2)
    for spelling, name in GRADED:
        _check(mixed if spelling in mixed.columns else plain, spelling, want, name)


def test_cli_speaks_trec_eval():
    """trec_eval's order QRELS RUN, -m repeated and comma-separated, cut-off lists, -q."""
    out = io.StringIO()
    spellings = ["map,P.5,10", "ndcg_cut_10", "nDCG@10", "mrr"]
    argv = [str(TE / "qrels.test"), str(TE / "results.test"), "-q", "--ties", "trec_eval"]
    for s in spellings:
        argv += ["-m", s]
    with redirect_stdout(out):
        assert cli.main(argv) == 0
    lines = [ln.split("\t") for ln in out.getvalue().splitlines()]
    assert all(len(ln) == 3 for ln in lines)
    names = [ln[0].strip() for ln in lines]
    assert names[:6] == ["map", "P_5", "P_10", "ndcg_cut_10", "nDCG@10", "mrr"]
    want = _expected(TE / "out.test.aq")
    same = {"nDCG@10": "ndcg_cut_10", "mrr": "recip_rank"}
    for name, qid, value in lines:
        name = name.strip()
        if qid != "all":
            assert float(value) == want[(same.get(name, name), qid)]
    summary = {ln[0].strip(): float(ln[2]) for ln in lines if ln[1] == "all"}
    assert summary["map"] == 0.1785 and summary["P_10"] == 0.3000  # out.test


def test_two_spellings_are_computed_once():
    run, qrels = ta.load_example()
    calls = []
    metric = REGISTRY["precision"]
    original = metric.kernel

    def counting(*a, **kw):
        calls.append(kw.get("k"))
        return original(*a, **kw)

    object.__setattr__(metric, "kernel", counting)  # Metric is frozen
    try:
        res = run.ir.evaluate(qrels, ["P@10", "P_10", "precision@10", "P.10", "P.5,10"])
    finally:
        object.__setattr__(metric, "kernel", original)
    assert sorted(calls) == [5, 10]
    assert list(res.columns) == ["P@10", "P_10", "precision@10", "P_5"]  # P.10 → P_10 (dup)
    assert (res["P@10"] == res["P_10"]).all()
    canonical = run.ir.evaluate(qrels, ["P@10", "P_10"], names="canonical")
    assert list(canonical.columns) == ["precision@10"]


@pytest.mark.parametrize("library", ["pandas", "polars", "lazy"])
def test_names_as_written_in_every_frontend(library):
    run, qrels = ta.load_example()
    frame = run if library == "pandas" else pl.from_pandas(run)
    if library == "lazy":
        frame = frame.lazy()
    res = frame.ir.evaluate(qrels, ["P@10", "rbp'(p=0.5)", "AP(rel=1)@100"])
    res = res.collect() if isinstance(res, pl.LazyFrame) else res
    assert [c for c in res.columns if c != "qid"] == ["P@10", "rbp'(p=0.5)", "AP(rel=1)@100"]
    want = run.ir.evaluate(qrels, ["precision@10", "rbp_prime(p=0.5)", "ap@100"])
    got = res if isinstance(res, pd.DataFrame) else res.to_pandas().set_index("qid")
    for a, b in zip(["P@10", "rbp'(p=0.5)", "AP(rel=1)@100"], want.columns):
        assert (got[a].to_numpy() == want[b].to_numpy()).all()


def test_primed_names_with_parameters_in_strings():
    run, qrels = ta.load_example()
    res = run.ir.evaluate(qrels, ["rbp'", "ap'", "rr'", "ndcg'", "err'", "rbp'(p=0.5)"])
    direct = run.ir.rbp_prime(qrels, p=0.5)
    assert (res["rbp'(p=0.5)"] == direct).all()
    assert (res["ap'"] == run.ir.ap_prime(qrels)).all()


def test_unknown_names_list_the_closest():
    run, qrels = ta.load_example()
    with pytest.raises(ValueError, match=r"unknown metric 'ndgc@10'.*closest.*ndcg"):
        run.ir.evaluate(qrels, ["ndgc@10"])
    with pytest.raises(ValueError, match=r"'recip_rnk'.*recip_rank"):
        run.ir.evaluate(qrels, ["recip_rnk"])


def test_gm_map_is_trec_evals_geometric_mean():
    run = ta.read_run(need(TE / "results.test"))
    qrels = ta.read_qrels(need(TE / "qrels.test"))
    res = run.ir.evaluate(qrels, ["gm_map", "map", "num_ret"], ties="trec_eval")
    summary = ta.aggregate(res, undefined="zero")
    assert round(summary["gm_map"], 4) == 0.1051  # out.test: gm_map all 0.1051
    assert summary["num_ret"] == 1500             # counts are summed, as trec_eval
    pl_summary = ta.aggregate(pl.from_pandas(res.reset_index()))
    assert math.isclose(pl_summary["gm_map"][0], summary["gm_map"])


def test_ir_measures_objects_when_installed():
    irm = pytest.importorskip("ir_measures")
    run, qrels = ta.load_example()
    res = run.ir.evaluate(qrels, [irm.nDCG @ 10, irm.P(rel=1) @ 5, irm.AP])
    assert list(res.columns) == [str(irm.nDCG @ 10), str(irm.P(rel=1) @ 5), "AP"]
    assert (res[str(irm.nDCG @ 10)] == run.ir.ndcg(qrels, k=10)).all()


def test_judged_only_equals_trec_eval_minus_j():
    """judged_only=True (trec_eval -J): unjudged documents removed before scoring; equal to
    pytrec_eval's judged_docs_only_flag per query."""
    import pytrec_eval

    from tests.conftest import pytrec_dicts

    run_d, qrels_d = pytrec_dicts(TE / "results.test", TE / "qrels.test")
    measures = {"map", "P_10", "ndcg_cut_10", "recip_rank", "bpref", "Rprec"}
    want = pytrec_eval.RelevanceEvaluator(qrels_d, measures, judged_docs_only_flag=True
                                          ).evaluate(run_d)
    run = ta.read_run(need(TE / "results.test"))
    qrels = ta.read_qrels(need(TE / "qrels.test"))
    res = run.ir.evaluate(qrels, sorted(measures), ties="trec_eval9", judged_only=True)
    for qid, row in res.iterrows():
        for m in measures:
            assert row[m] == pytest.approx(want[qid][m], abs=1e-9), (qid, m)
    # the same through the CLI's -J
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main([str(TE / "qrels.test"), str(TE / "results.test"), "-J", "-q", "-m",
                         "map", "--ties", "trec_eval9"]) == 0
    for line in out.getvalue().splitlines():
        _name, qid, value = line.split("\t")
        if qid != "all":
            assert float(value) == pytest.approx(want[qid]["map"], abs=5e-5)


# --------------------------------------------------------------------------- every listed name
def _code_spans(text: str) -> list[str]:
    """The inline code spans of markdown text (fenced blocks left out)."""
    import re

    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.findall(r"(?<!`)`([^`\n]+)`(?!`)", text)


def _evaluate_lists(text: str) -> list:
    """The metrics of every ``evaluate(qrels, [...])`` call in a page's Python blocks: the
    strings, and ir_measures' measure objects (built with ir_measures)."""
    import ast
    import doctest
    import re
    import textwrap

    irm = pytest.importorskip("ir_measures")
    out: list = []
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        block = textwrap.dedent(block)  # a block in a list item
        if re.search(r"^>>> ", block, flags=re.M):  # a doctest: its examples' source
            block = "".join(e.source for e in doctest.DocTestParser().get_examples(block))
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "evaluate" \
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.List):
                for elt in node.args[1].elts:
                    if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                        out.append(elt.value)
                    else:  # an ir_measures measure object: nDCG @ 10, AP(rel=2) @ 100
                        out.append(eval(ast.unparse(elt), vars(irm)))
    return out


# inline code in the listing bullets that is not a measure name: parameter names and settings,
# and the trec_eval guide's example of an error (a cut-off given twice)
_NOT_NAMES = {"min_rel", "max_rel", "min_grade", "max_grade", "iteration", "judged_only=True",
              "P.5,5"}


def _listed_names() -> list:
    """Every measure name the dialect table (docs/guides/names.md), the metric tables
    (docs/metrics/families.md) and ir_measures' registry table (the ir_measures guide) list,
    and those the guides for trec_eval, ir_measures and ranx users list (bullets naming
    measures, and the metrics of their evaluate examples)."""
    import re

    from trunc_accessor.metrics import trec_dialect

    irm = pytest.importorskip("ir_measures")
    guides = ROOT / "docs" / "guides"
    tables = "\n".join((path).read_text() for path in (
        guides / "names.md", ROOT / "docs" / "metrics" / "families.md"))
    names: list = []
    for line in tables.splitlines():
        cells = line.split("|")
        if line.startswith(("| trec_eval |", "| ir_measures / PyTerrier |", "| ranx |",
                            "| ours |")):
            for span in _code_spans(cells[2]):
                if span == "num_*":  # trec_eval's counts
                    names += [n for n in trec_dialect.by_name() if n.startswith("num_")]
                elif span.startswith("ir_measures."):  # a measure object
                    names.append(eval(span.removeprefix("ir_measures."), vars(irm)))
                elif not span.startswith(("-", "@", "(")) and span not in _NOT_NAMES:
                    names.append(span.strip('"'))
        elif len(cells) > 3 and cells[1].strip() not in ("metric", "ir_measures") \
                and not set(cells[1].strip()) <= {"-"} \
                and cells[1].strip().startswith(("`", "[`")):
            names += _code_spans(cells[1])  # a metric table: the metric and its aliases
    irm_guide = (guides / "from-ir_measures.md").read_text()
    table = irm_guide.split("## ir_measures' registry, measure by measure")[1].split("\n## ")[0]
    for line in table.splitlines()[4:]:
        if line.startswith("| ") and not line.startswith(("| ir_measures", "| any")):
            first = line.split("|")[1].replace("(pyndeval)", "")
            names += [n.strip() for n in first.split(",")]
    for page in ("from-trec_eval.md", "from-ir_measures.md", "from-ranx.md"):
        text = (guides / page).read_text()
        names += _evaluate_lists(text)
        for para in re.split(r"\n(?=\* )|\n\n", text):
            if re.search(r"parameter spellings|C/W/L measures ir_measures|diversity measures of",
                         para):
                names += [s for s in _code_spans(para)
                          if s not in _NOT_NAMES and not re.fullmatch(r"\w+=\S*", s)
                          and not s.startswith("-")]
    assert {"P_IA@20", "alpha_nDCG(alpha=0.5)@20", "ndcg.1=3,2=9", "hits@10",
            "NERR11(T=2.0)", "p_ia", "StRecall"} <= {str(n) for n in names}
    return list(dict.fromkeys(names))


def test_every_listed_name_parses_in_evaluate_and_the_cli(tmp_path):
    """Every name the docs' tables and the guides list (trec_eval's, ir_measures', ranx' and the
    library's) evaluates in Python and through the command line's -m. P_IA@20 was read as
    trec_eval's P_N ("parameter 'IA@20' is not a number")."""
    import warnings

    runs, qrels = ta.load_example("web2012", depth=20)  # diversity qrels: every measure runs
    run = runs[runs["system"] == "ql-cata"].drop(columns="system")
    qrels = qrels.assign(rel=qrels["rel"].clip(upper=3))  # the listed max_rel=3 bounds them
    names = [n.replace("@k", "@10") if isinstance(n, str) else n for n in _listed_names()]
    run_file, qrels_file = tmp_path / "run.txt", tmp_path / "qrels.txt"
    ta.write_run(run, run_file)
    qrels.to_csv(qrels_file, sep=" ", header=False, index=False,
                 columns=["qid", "subtopic", "docid", "rel"])
    failed = {}
    for name in names:
        cli_only = isinstance(name, str) and name.split(".")[0] in ("relstring", "runid")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ta.SubtopicWarning)
                if not cli_only:
                    res = run.ir.evaluate(qrels, [name], ties="trec_eval")
                    assert len(res) == qrels["qid"].nunique() and res.shape[1] >= 1
                out = io.StringIO()
                with redirect_stdout(out):
                    rc = cli.main([str(qrels_file), str(run_file), "-q", "-m", str(name)])
                assert rc == 0 and out.getvalue().strip(), rc
        except Exception as e:  # every name is tried; the failures are listed together
            failed[str(name)] = f"{type(e).__name__}: {e}"
    assert not failed, "\n".join(f"{k}: {v}" for k, v in failed.items())
    # P_IA@20 is ir_measures' (pyndeval's) measure: its values per query, with pyndeval's
    # tie order (score, then docid ascending)
    irm = pytest.importorskip("ir_measures")
    ordered = run.sort_values(["qid", "score", "docid"], ascending=[True, False, True])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {m.query_id: m.value for m in irm.iter_calc(
            [irm.P_IA @ 20], qrels.rename(columns={"qid": "query_id", "docid": "doc_id",
                                                   "rel": "relevance", "subtopic": "iteration"}
                                          ).astype({"iteration": str}),
            ordered.rename(columns={"qid": "query_id", "docid": "doc_id"}))}
        got = ordered.ir.evaluate(qrels, ["P_IA@20", "success_at@10", "success@10"],
                                  ties="first")
    assert len(want) == 10 and all(
        got.loc[q, "P_IA@20"] == pytest.approx(v, abs=1e-12) for q, v in want.items())
    assert (got["success_at@10"] == got["success@10"]).all()  # an alias, not success_N


def test_every_known_name_parses_in_both_dialect_orders():
    """Every spelling ``--list`` offers parses in Python and in trec_eval's dialect (the
    command line): a name that starts like a trec_eval cut-off measure (P_IA, success_at)
    is not read as name_VALUE unless a number follows the underscore."""
    from trunc_accessor.metrics.names import known_names, parse_named

    bad = {}
    for name in known_names():
        for trec in (False, True):
            try:
                parse_named(name, trec)
            except ValueError as e:
                bad[(name, trec)] = str(e)
    assert not bad, bad
    assert parse_named("P_1e1")[0].measure.label == "precision@10"  # a number all the same
    with pytest.raises(ValueError, match=r"unknown metric 'P_5x'"):
        parse_named("P_5x")
