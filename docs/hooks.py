"""MkDocs hooks: pages generated from the library itself at build time, so they cannot drift.

* ``metrics/index.md`` and one page per registered metric (``metrics/<name>.md``): summary,
  names in every dialect, definition, parameters, ties, undefined values, reference and an
  example run on the shipped trec_eval test collection, with its output;
* ``cli.md``: the command line's usage and a table of its options, read from its parser;
* ``changelog.md``: the repository's ``CHANGELOG.md``;
* ``notebooks/*.ipynb``: the tutorials, rendered with their stored outputs by mkdocs-jupyter
  (nothing is executed, nothing is fetched).

Nothing here needs the network.
"""
from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
# the site documents the checkout it is built from, whichever copy of the package is installed
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


# --------------------------------------------------------------------------- helpers
def _markdown(doc: str) -> str:
    """A docstring as Markdown: ``literal`` → `literal`, doctest blocks fenced."""
    out, block = [], []

    def flush():
        if block:
            out.extend(["```pycon", *block, "```", ""])
            block.clear()

    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")) or (block and stripped and not stripped.startswith(
                ("Parameters", "Returns"))):
            block.append(stripped)
            continue
        flush()
        out.append(stripped.replace("``", "`"))
    flush()
    return "\n".join(out)


def _dialect_names() -> dict[str, dict[str, list[str]]]:
    """metric name → {dialect: [names]} from the name tables of the parser."""
    from trunc_accessor.metrics import names, trec_dialect

    found: dict[str, dict[str, list[str]]] = {}

    def add(metric, dialect, name):
        found.setdefault(metric, {}).setdefault(dialect, [])
        if name not in found[metric][dialect]:
            found[metric][dialect].append(name)

    for m in trec_dialect.table():
        if m.metric is not None:
            shown = {"cutoffs": f"{m.name}_N", "levels": f"{m.name}_x.xx"}.get(m.kind, m.name)
            add(m.metric, "trec_eval", shown)
    for name, entry in names.ir_measures_table().items():
        add(entry[0], "ir_measures", name + ("[@N]" if entry[2] == "k" else ""))
    for name, metric in ranx_names().items():
        add(metric, "ranx", name)
    return found


def ranx_names() -> dict[str, str]:
    """ranx's metric name → the registered metric it parses to: ranx's own spellings
    (``mrr``, ``hits``, ``r-precision``, ``ndcg_burges``, …) and ranx's names that are also
    the library's (``precision``, ``recall``, ``f1``, ``ndcg``, …), as the parser and
    ``--list`` accept them."""
    from trunc_accessor.metrics import names

    return dict(names.ranx_names())


def _example(name: str, diversity: bool = False) -> tuple[str, str]:
    """A call of the metric on a shipped collection and what it prints: trec_eval's test run,
    or for a diversity measure one TREC 2012 Web track run (``load_example("web2012")``)."""
    import trunc_accessor as ta

    if diversity:
        runs, qrels = ta.load_example("web2012")
        run = runs[runs["system"] == "ql-catb"]
        calls = [f"run.ir.{name}(qrels)"]
    else:
        run, qrels = ta.load_example()
        if name.startswith("stat_"):  # statAP's family reads inclusion probabilities
            qrels = qrels.assign(inclusion=1.0)
        calls = [f"run.ir.{name}(qrels)", f'run.ir.{name}(qrels, ties="trec_eval")']
    for call in calls:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = eval(call, {"run": run, "qrels": qrels})
        except ValueError:
            continue
        return call, value.round(6).to_string()
    return calls[0], "(raises on this run: see Ties)"


def metric_page(metric, dialects) -> str:
    lines = [f"# `{metric.name}`", "", f"*{metric.summary.replace('``', '`')}*", ""]
    names = [f"ours: `{metric.name}`" + (
        " (aliases " + ", ".join(f"`{a}`" for a in metric.aliases) + ")" if metric.aliases else "")]
    for dialect in ("trec_eval", "ir_measures", "ranx"):
        if dialects.get(dialect):
            names.append(f"{dialect}: " + ", ".join(f"`{n}`" for n in dialects[dialect]))
    lines += ["**Names** — " + "; ".join(names) + ".", "", "## Definition", "",
              _markdown(metric.doc), ""]
    if metric.params:
        lines += ["## Parameters", "", "| parameter | default | meaning |", "|---|---|---|"]
        lines += [f"| `{p.name}` | `{p.default!r}` | {p.doc} |" for p in metric.params]
        lines += ["", ("Every metric also takes `ties=`, `by=`, `queries=`, `relevance_level=`, "
                  "`judged_only=` and `undefined=` (see the [API reference](../reference/"
                  "accessor.md))."), ""]
    if metric.ties:
        lines += ["## Ties (`ties=\"average\"`)", "", metric.ties, ""]
    if metric.undefined:
        lines += ["## Undefined values", "", metric.undefined, ""]
        if not metric.undefined.startswith("Never undefined"):
            lines += [("An undefined value is 0 by default (`undefined=\"zero\"`), as trec_eval, "
                      "pytrec_eval, ir_measures and ranx give it; `undefined=\"nan\"` gives "
                      "NaN / null, left out of means."), ""]
    if metric.citation:
        lines += ["## Reference", "", metric.citation, ""]
    call, output = _example(metric.name, metric.subtopics)
    if metric.subtopics:
        lines += ["## Example", "", ("On a TREC 2012 Web track run and the track's diversity "
                  "qrels, topics 151–160 (shipped with the package, "
                  "`ta.load_example(\"web2012\")`):"), "", "```python",
                  "import trunc_accessor as ta", 'runs, qrels = ta.load_example("web2012")',
                  'run = runs[runs["system"] == "ql-catb"]', call, "```", "", "```text",
                  output, "```", ""]
    else:
        lines += ["## Example", "", ("On trec_eval's own test run and qrels (shipped with the "
                  "package, `ta.load_example()`" + (
                      "; every judged document given inclusion probability 1"
                      if metric.name.startswith("stat_") else "") + "):"), "", "```python",
                  "import trunc_accessor as ta", "run, qrels = ta.load_example()"] + (
                      ['qrels = qrels.assign(inclusion=1.0)']
                      if metric.name.startswith("stat_") else []) + [call, "```",
                  "", "```text", output, "```", ""]
    return "\n".join(lines)


def index_page(registry, dialects) -> str:
    lines = ["# Metrics", "",
             ("Every metric is an accessor method (`run.ir.NAME(qrels, ...)`), an `evaluate` "
             "string in any dialect and a function on one ranking "
             "(`trunc_accessor.single.NAME`). This list is generated from the registry; "
             "[Metrics by family](families.md) gives each family's definitions, tie-aware "
             "forms and undefined cases."), "",
             "| metric | parameters | trec_eval | ir_measures | ranx | summary |",
             "|---|---|---|---|---|---|"]
    for m in registry.values():
        d = dialects.get(m.name, {})
        params = ", ".join(f"`{p.name}={p.default!r}`" for p in m.params) or "–"
        cells = [", ".join(f"`{n}`" for n in d.get(k, [])) or "–"
                 for k in ("trec_eval", "ir_measures", "ranx")]
        lines.append(f"| [`{m.name}`]({m.name}.md) | {params} | " + " | ".join(cells)
                     + f" | {m.summary.replace('``', '`')} |")
    return "\n".join(lines) + "\n"


TOOLS = ("evaluate", "bounds", "sample_holes", "truncate", "truncate_at", "cutoff_curve",
         "optimal_cutoff", "crp", "crp_archetype", "plot_crp", "rbo", "overlap", "fuse",
         "urisk", "georisk")


def accessor_page(registry) -> str:
    """The `.ir` accessor: its tools with signatures and docstrings, then the metric methods."""
    import inspect

    import pandas as pd

    import trunc_accessor  # noqa: F401  (registers the accessor)

    ir = pd.DataFrame.ir
    lines = ["# The `.ir` accessor", "",
             ("Importing `trunc_accessor` registers `.ir` on pandas DataFrames, Polars DataFrames "
             "and LazyFrames, and (when Dask is installed) Dask DataFrames. The methods are the "
             "same everywhere; the answer is in the caller's library (a Polars LazyFrame stays "
             "lazy; a Dask answer is computed with `.compute()`)."), ""]
    for name in TOOLS:
        method = getattr(ir, name)
        sig = inspect.signature(method)  # shown without annotations (written in the docstring)
        sig = sig.replace(parameters=[p.replace(annotation=p.empty)
                                      for p in sig.parameters.values()],
                          return_annotation=sig.empty)
        lines += [f"## `{name}`", "", "```python", f"run.ir.{name}{sig}"
                  .replace("(self, ", "("), "```", "", _markdown(inspect.getdoc(method) or ""), ""]
    lines += ["## Metric methods", "", ("One method per registered metric, "
              "`run.ir.NAME(qrels, <the metric's parameters>, *, ties, by, queries, "
              "relevance_level, judged_only, undefined)`; see each metric's page."), "",
              "| method | parameters |", "|---|---|"]
    lines += [f"| [`{m.name}`](../metrics/{m.name}.md) | "
              + (", ".join(f"`{p.name}={p.default!r}`" for p in m.params) or "–") + " |"
              for m in registry.values()]
    return "\n".join(lines) + "\n"


def _option_cell(action) -> str:
    """An option's spellings with its argument, e.g. ``-m MEASURE``, ``--measure MEASURE``."""
    if not action.option_strings:
        return f"`{action.metavar}`"
    if action.nargs == 0:
        arg = ""
    elif action.choices:
        arg = " {" + ",".join(map(str, action.choices)) + "}"
    else:
        arg = " " + (action.metavar or action.dest.upper())
    return ", ".join(f"`{option}{arg}`" for option in action.option_strings)


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, pipes escaped, no reST literals."""
    return " ".join(text.split()).replace("``", "`").replace("|", "\\|")


def cli_page() -> str:
    """The command line: its usage, one table row per option (from the parsers themselves, so
    the page cannot drift from ``--help``), and the epilog; then ndeval's mode likewise."""
    from trunc_accessor import __version__
    from trunc_accessor.frontends.cli import ndeval as ndeval_cli
    from trunc_accessor.frontends.cli import sample_eval as sample_eval_cli
    from trunc_accessor.frontends.cli import trec_eval as cli

    parser = cli.build_parser(__version__)
    lines = ["# Command line", "",
             ("`trunc-accessor` (also `python -m trunc_accessor`) has trec_eval's interface: "
              "change the program's name and the output stays the same, line for line (see "
              "[Coming from trec_eval](guides/from-trec_eval.md)). `trunc-accessor-ndeval` has "
              "ndeval's interface (the TREC Web track's diversity evaluation, version 4.5) and "
              "prints its CSV, line for line."), ""]
    lines += _options_table(parser)
    lines += ["", _cell(parser.epilog or ""), "",
              "On the trec_eval test collection shipped with the package:", "", "```bash",
              "QRELS=$(python -c \"import trunc_accessor as ta; "
              "print(ta.example_path('qrels.test'))\")",
              "RUN=$(python -c \"import trunc_accessor as ta; "
              "print(ta.example_path('results.test'))\")",
              'trunc-accessor -q -m map -m P.5,10 "$QRELS" "$RUN"',
              'trunc-accessor -m "ndcg@10,INST(T=1.0,max_rel=3)" --format markdown "$QRELS" "$RUN"',
              "trunc-accessor --list        # every metric and its names in every dialect",
              "```", "", "## ndeval's mode", ""]
    lines += _options_table(ndeval_cli.build_parser(__version__))
    lines += ["", "## sample_eval's mode", "", f"`{sample_eval_cli.USAGE.split(None, 1)[1]}`",
              "", _cell((sample_eval_cli.__doc__ or "").split("\n\n", 1)[0]
                        .replace("``", "`")), "",
              _cell((sample_eval_cli.__doc__ or "").split("\n\n", 1)[1].replace("``", "`")),
              "", "See [Incomplete judgments](guides/incomplete-judgments.md)."]
    from trunc_accessor.frontends.cli import gdeval as gdeval_cli

    doc = (gdeval_cli.__doc__ or "").split("\n\n", 1)
    lines += ["", "## gdeval's mode", "", f"`{gdeval_cli.USAGE.split(None, 1)[1]}`", "",
              _cell(doc[0].replace("``", "`")), "", _cell(doc[1].replace("``", "`")), "",
              "See [Risk-sensitive evaluation](guides/risk.md)."]
    return "\n".join(lines) + "\n"


def _options_table(parser) -> list[str]:
    """A parser's usage, then a Markdown table with one row per option."""
    import argparse

    lines = ["```text", parser.format_usage().strip(), "```", "",
             "| option | meaning | default |", "|---|---|---|"]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            meaning, default = "show the help and exit", ""
        else:
            meaning = action.help or ""
            default = action.default
            if default in (None, False, [], argparse.SUPPRESS) or isinstance(
                    action, argparse._VersionAction):
                default = ""
            elif not action.option_strings:
                default = ""
            else:
                default = f"`{default}`"
        lines.append(f"| {_option_cell(action)} | {_cell(meaning)} | {default} |")
    return lines


def changelog_page() -> str:
    """The repository's CHANGELOG.md, its links made absolute where they point into docs/."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return text.replace("](docs/", "](")


# --------------------------------------------------------------------------- hooks
def _generated(path: str, content: str, config) -> File:
    return File.generated(config, path, content=content)


@event_priority(100)  # before mkdocs-jupyter, which renders the notebooks added here
def on_files(files, config):
    from trunc_accessor.metrics.registry import REGISTRY

    dialects = _dialect_names()
    files.append(_generated("metrics/index.md", index_page(REGISTRY, dialects), config))
    for metric in REGISTRY.values():
        page = metric_page(metric, dialects.get(metric.name, {}))
        files.append(_generated(f"metrics/{metric.name}.md", page, config))
    files.append(_generated("cli.md", cli_page(), config))
    files.append(_generated("changelog.md", changelog_page(), config))
    files.append(_generated("reference/accessor.md", accessor_page(REGISTRY), config))
    for notebook in NOTEBOOKS:
        files.append(File(f"notebooks/{notebook.name}", src_dir=str(ROOT),
                          dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


def on_config(config):
    """The metric pages and the notebooks in the navigation (generated, so listed here)."""
    from trunc_accessor.metrics.registry import REGISTRY

    nav = config["nav"]
    for entry in nav:
        if isinstance(entry, dict) and "Metrics" in entry:
            entry["Metrics"] = ["metrics/index.md", {"By family": "metrics/families.md"}] + [
                {m.name: f"metrics/{m.name}.md"} for m in REGISTRY.values()]
        if isinstance(entry, dict) and "Notebooks" in entry:
            entry["Notebooks"] = [
                {re.sub(r"^\d+_", "", n.stem).replace("_", " ").capitalize():
                 f"notebooks/{n.name}"} for n in NOTEBOOKS]
    return config
