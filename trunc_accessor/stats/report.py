"""The table for the paper: ``report`` renders what ``experiment`` returns as markdown,
LaTeX (booktabs), HTML or a pandas ``Styler``, with the best mean per metric in bold,
significance marks and a caption that says what was run (read from the table's settings).
"""
from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor._typing import Frame
from trunc_accessor.errors import InputError
from trunc_accessor.stats import paired


def _label(declared: dict, name) -> str:
    """The caption label of a declared test or correction (its name if unknown)."""
    return declared[name].label if name in declared else str(name)


TIES_TEXT = {"average": "ties in score averaged exactly over their orders (McSherry and "
                        "Najork 2008)",
             "first": "tied documents kept in the input order",
             "trec_eval": "ties in score broken as trec_eval 10 does (docid descending)",
             "trec_eval9": "ties broken as trec_eval 9.0.8 and pytrec_eval do (float32 scores)"}
MISSING_TEXT = {"empty": "a judged query a system returned nothing for scores as an empty "
                         "ranking (trec_eval -c)",
                "skip": "a judged query a system returned nothing for is left out of its "
                        "mean and of its comparisons"}


def _cells(table: pd.DataFrame, by: str, decimals: int, interval: str | None, marks: str,
           bold, baseline, letters) -> pd.DataFrame:
    systems = list(dict.fromkeys(table[by]))
    metrics = list(dict.fromkeys(table["metric"]))
    best = table.groupby("metric")["mean"].transform("max")
    cells = pd.DataFrame(index=pd.Index(systems, name=by), columns=metrics, dtype=object)
    low, high = ("delta_ci_low", "delta_ci_high") if interval == "delta" else ("ci_low",
                                                                                "ci_high")
    for (_, row), is_best in zip(table.iterrows(), table["mean"] >= best - 1e-12):
        text = f"{row['mean']:.{decimals}f}"
        if interval and high in row and not pd.isna(row[high]):
            text += f" ± {(row[high] - row[low]) / 2:.{decimals}f}"
        if is_best:
            text = bold(text)
        mark = ""
        if baseline is not None and row[by] != baseline and row.get("significant", False):
            mark = "†" if row["delta"] > 0 else "‡"
        elif baseline is None and marks == "letters":
            named = {str(k): v for k, v in letters.items()}
            mark = "".join(named[s] for s in _beaten(row["beats"]) if s in named)
        cells.loc[row[by], row["metric"]] = text + (f"^{mark}" if mark else "")
    return cells


def _beaten(value) -> list:
    """The systems a row beats: a list (or array), or its text after a CSV round trip."""
    if isinstance(value, str):
        import ast

        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise InputError(f"report: cannot read the beats column's {value!r}") from None
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    return [str(v) for v in value]


def _setting(table: pd.DataFrame, attrs: dict, key: str):
    """A setting of the experiment: its column (one value), else the frame's attrs."""
    if key in table.columns:
        values = table[key].dropna().unique()
        if len(values) == 1:
            value = values[0]
            return value.item() if hasattr(value, "item") else value
    return attrs.get(key)


def _n_text(table: pd.DataFrame) -> str:
    """How many queries the means are over: one number, or per metric (a range when the
    systems differ)."""
    if "n" not in table.columns:
        return "Means"
    ns = table.groupby("metric", sort=False)["n"].agg(["min", "max"])
    if ns["min"].nunique() == 1 and ns["max"].nunique() == 1 and (ns["min"] == ns["max"]).all():
        return f"Means over {int(ns['max'].iloc[0])} queries"
    parts = [f"{m}: {int(lo)}" if lo == hi else f"{m}: {int(lo)}–{int(hi)}"
             for m, (lo, hi) in ns.iterrows()]
    return "Means over the queries with a value (" + "; ".join(parts) + ")"


def report(result: Frame, format: str = "markdown", *, decimals: int = 4,
           interval: bool | str = False, caption: str | None = None,
           baseline: Any = None) -> Any:
    """The table for the paper: systems × metrics, rounded means, the best per metric in
    bold, and significance marks: with a baseline † (significantly better) and ‡ (worse),
    the baseline's row labelled "(baseline)"; without one, ranx-style letters (each system
    gets a letter; a cell carries the letters of the systems it beats significantly).

    ``interval``: False; True or ``"mean"`` adds ± half the interval of each system's mean;
    ``"delta"`` ± half the interval of its difference to the baseline. The caption says what
    was run, read from the table's own columns (test, correction, alpha, ci, confidence,
    tie_policy, missing: they survive Polars and CSV): the number of queries (per metric when it
    differs), the test, correction and α, the tie policy, the rule for queries a system
    returned nothing for, and which interval the ± is. A table that does not say how it was
    made gets no invented caption: pass ``caption=``. ``baseline``: which baseline to show
    when the experiment compared against several. ``format``: "markdown", "latex"
    (booktabs), "html" or "styler" (a pandas ``Styler``: bold maxima and the same marks).
    """
    table = result.to_pandas() if isinstance(result, pl.DataFrame) else result
    if not isinstance(table, pd.DataFrame) or "metric" not in table.columns \
            or "mean" not in table.columns:
        raise InputError("report: expects the table ta.experiment returns")
    if table.empty:
        raise InputError("report: the experiment table is empty (no system, no metric)")
    if interval not in (False, True, "mean", "delta"):
        raise InputError(f"report: interval= must be False, True, 'mean' or 'delta', not "
                         f"{interval!r}")
    mode = None if interval is False else ("delta" if interval == "delta" else "mean")
    attrs = dict(getattr(result, "attrs", {}) or {})
    by = attrs.get("by") or ("system" if "system" in table.columns else table.columns[0])
    family = (list(dict.fromkeys(table["baseline"].dropna()))
              if "baseline" in table.columns else [])
    table, baseline = _one_baseline(table, baseline)
    if mode == "delta" and baseline is None:
        raise InputError("report: interval='delta' needs an experiment with a baseline")
    systems = list(dict.fromkeys(table[by]))
    letters = {s: chr(ord("a") + i) for i, s in enumerate(systems)}
    if caption is None:
        caption = _caption(table, attrs, baseline, mode, letters, family)
    if format not in _BOLD:
        raise InputError(f"report: format must be 'markdown', 'latex', 'html' or 'styler', "
                         f"not {format!r}")
    cells = _cells(table, by, decimals, mode, "letters", _BOLD[format], baseline, letters)
    names = [str(s) + (f" ({letters[s]})" if baseline is None
                       else " (baseline)" if s == baseline else "") for s in cells.index]
    if format == "styler":
        return _styler(table, cells, names, by, caption)
    if format == "latex":
        return _latex(cells, names, by, caption)
    # markdown and HTML: names are the user's text, never markup
    esc = _md_escape if format == "markdown" else html.escape
    cells.columns = [esc(str(m)) for m in cells.columns]
    render = _markdown if format == "markdown" else _html
    return render(cells, [esc(n) for n in names], esc(str(by)), esc(caption))


_BOLD = {"markdown": lambda s: f"**{s}**", "latex": lambda s: f"\\textbf{{{s}}}",
         "html": lambda s: f"<b>{s}</b>", "styler": lambda s: s}


def _one_baseline(table: pd.DataFrame, baseline) -> tuple[pd.DataFrame, Any]:
    """The rows of the baseline shown (the only one, or the one asked for) and its name;
    None when the experiment compared every pair."""
    if "baseline" not in table.columns:
        if baseline is not None:
            raise InputError("report: baseline= given, but the table compares no baseline")
        return table, None
    present = list(dict.fromkeys(table["baseline"].dropna()))
    if baseline is None and len(present) > 1:
        raise InputError(f"report: the table compares against several baselines "
                         f"{present}: pass baseline= to report one")
    if baseline is not None and baseline not in present:
        raise InputError(f"report: baseline={baseline!r} is not one of the table's "
                         f"baselines {present}")
    baseline = baseline if baseline is not None else (present[0] if present else None)
    return table[table["baseline"] == baseline], baseline


def _caption(table: pd.DataFrame, attrs: dict, baseline, mode: str | None,
             letters: dict, family: list) -> str:
    """The caption that says what was run, from the table's settings (an error when the
    table does not say which test, correction and α made it); ``family``: the baselines
    whose tests were corrected together."""
    test, correction, alpha = (_setting(table, attrs, k)
                               for k in ("test", "correction", "alpha"))
    if test is None or correction is None or alpha is None:
        raise InputError("report: the table does not say which test, correction and α "
                         "made it (columns test, correction, alpha, as ta.experiment "
                         "writes them): pass caption=")
    caption = (f"{_n_text(table)} (best in bold). "
               f"{_label(paired.TESTS, test).capitalize()} test, "
               f"{_label(paired.CORRECTIONS, correction)} correction, α = {alpha}")
    if len(family) > 1:
        caption += (" (the correction's family: every system against each of "
                    + ", ".join(map(str, family)) + ")")
    caption += (f": † significantly better, ‡ significantly worse than {baseline}."
                if baseline is not None else
                ": a letter marks each system the row is significantly better than ("
                + ", ".join(f"{v} = {k}" for k, v in letters.items()) + ").")
    if mode is not None:
        confidence = _setting(table, attrs, "confidence") or 0.95
        ci = paired.CIS.get(_setting(table, attrs, "ci") or "t")
        label = ci.label if ci is not None else "t"
        what = (f"its difference to {baseline}" if mode == "delta"
                else "each system's mean")
        caption += (f" ± is half the {confidence * 100:g}% {label} interval of {what}.")
    ties = _setting(table, attrs, "tie_policy")
    missing = _setting(table, attrs, "missing")
    if ties in TIES_TEXT:
        caption += f" Metrics computed with {TIES_TEXT[ties]}"
        caption += f"; {MISSING_TEXT[missing]}." if missing in MISSING_TEXT else "."
    return caption


def _sup(c: str) -> str:
    """A cell's mark (after "^") as an HTML superscript."""
    return c.replace("^", "<sup>") + "</sup>" if "^" in c else c


def _markdown(cells: pd.DataFrame, names: list, by_text: str, caption: str) -> str:
    lines = ["| " + " | ".join([by_text, *cells.columns]) + " |",
             "|" + "|".join(["---"] + ["---:"] * len(cells.columns)) + "|"]
    lines += ["| " + " | ".join([name, *(_sup(c) for c in row)]) + " |"
              for name, row in zip(names, cells.itertuples(index=False))]
    return "\n".join(lines) + f"\n\n{caption}\n"


def _latex(cells: pd.DataFrame, names: list, by, caption: str) -> str:
    def tex(c):
        c = c.replace("±", "$\\pm$")
        if "^" in c:
            value, mark = c.split("^")
            mark = mark.replace("†", "\\dagger").replace("‡", "\\ddagger")
            c = f"{value}$^{{{mark}}}$"
        return c
    lines = ["\\begin{table}", "\\centering", f"\\caption{{{_tex_escape(caption)}}}",
             "\\begin{tabular}{l" + "r" * len(cells.columns) + "}", "\\toprule",
             " & ".join([_tex_escape(str(by)), *map(_tex_escape, cells.columns)]) + " \\\\",
             "\\midrule"]
    lines += [" & ".join([_tex_escape(name), *(tex(c) for c in row)]) + " \\\\"
              for name, row in zip(names, cells.itertuples(index=False))]
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def _html(cells: pd.DataFrame, names: list, by_text: str, caption: str) -> str:
    rows = "".join("<tr><th>" + name + "</th>" + "".join(
        "<td>" + _sup(c) + "</td>" for c in row)
        + "</tr>" for name, row in zip(names, cells.itertuples(index=False)))
    head = ("<tr><th>" + by_text + "</th>" + "".join(f"<th>{m}</th>" for m in cells.columns)
            + "</tr>")
    return f"<table><caption>{caption}</caption><thead>{head}</thead><tbody>{rows}</tbody></table>"


def _styler(table: pd.DataFrame, cells: pd.DataFrame, names: list, by: str, caption: str):
    """A pandas Styler of the cells (marks as superscripts), the best mean per metric bold."""
    try:
        import jinja2  # noqa: F401  (pandas' Styler renders with it)
    except ImportError:
        raise ImportError('report(format="styler") needs jinja2: pip install '
                          '"trunc_accessor[stats]"') from None
    shown = cells.map(lambda c: html.escape(c.split("^")[0]) + (
        f"<sup>{c.split('^')[1]}</sup>" if "^" in c else ""))
    shown.index = pd.Index([html.escape(n) for n in names], name=html.escape(str(by)))
    shown.columns = [html.escape(str(m)) for m in cells.columns]
    means = table.pivot(index=by, columns="metric", values="mean").loc[cells.index,
                                                                       cells.columns]
    best = (means >= means.max() - 1e-12).to_numpy()
    props = np.where(best, "font-weight: bold", "")
    return shown.style.apply(lambda _: props, axis=None).set_caption(html.escape(caption))


def _md_escape(s: str) -> str:
    """Text for a markdown table cell: HTML special characters escaped (markdown renders
    inline HTML), and the characters that end a cell, start emphasis, code or a link
    backslashed (an underscore inside a word is not emphasis in CommonMark: kept)."""
    s = html.escape(s, quote=False)
    for ch in ("\\", "|", "*", "`", "[", "]"):
        s = s.replace(ch, "\\" + ch)
    return s


def _tex_escape(s: str) -> str:
    for a, b in (("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("_", "\\_"),
                 ("#", "\\#"), ("@", "@"), ("α", "$\\alpha$"), ("†", "$\\dagger$"),
                 ("‡", "$\\ddagger$"), ("–", "--"), ("±", "$\\pm$")):
        s = s.replace(a, b)
    return s
