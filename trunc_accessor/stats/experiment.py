"""One call from runs to a results table, and the table for the paper.

``experiment`` evaluates several systems (one ``evaluate`` call), compares them with
``trunc_accessor.stats.compare`` and returns one tidy row per (system, metric);
``report`` renders it as markdown, LaTeX (booktabs), HTML or a pandas ``Styler``.
"""
from __future__ import annotations

import html
import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from trunc_accessor._typing import Frame, Metrics, Result
from trunc_accessor.errors import InputError
from trunc_accessor.stats import _common, paired
from trunc_accessor.stats import significance as stats
from trunc_accessor.warn import DroppedQueriesWarning, warn


def _label(declared: dict, name) -> str:
    """The caption label of a declared test or correction (its name if unknown)."""
    return declared[name].label if name in declared else str(name)


def _runs_frame(runs, by: str) -> tuple[Any, bool]:
    """The runs as one eager frame with a ``by`` column (``_one_frame``), and whether they
    came as Polars (the answer's library)."""
    polars_in = isinstance(runs, (pl.DataFrame, pl.LazyFrame)) or bool(
        isinstance(runs, Mapping) and runs
        and all(isinstance(f, (pl.DataFrame, pl.LazyFrame)) for f in runs.values()))
    frame = _one_frame(runs, by)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    return frame, polars_in


def _one_frame(runs, by: str):
    """A mapping {name: run} as one frame with a ``by`` column (pandas or Polars)."""
    if not isinstance(runs, Mapping):
        return runs
    if not runs:
        raise InputError("experiment: runs is an empty mapping")
    frames = list(runs.values())
    names: dict[str, object] = {}
    for name in runs:
        if name is None or (isinstance(name, float) and math.isnan(name)):
            raise InputError("experiment: a system of the runs mapping has no name (None)")
        if str(name) in names:
            raise InputError(f"experiment: systems {names[str(name)]!r} and {name!r} have the "
                             f"same name as text ({str(name)!r}): rename one")
        names[str(name)] = name
    if all(isinstance(f, (pl.DataFrame, pl.LazyFrame)) for f in frames):
        parts = [f.lazy().with_columns(pl.lit(str(name)).alias(by)) for name, f in runs.items()]
        return pl.concat(parts, how="vertical_relaxed").collect()
    if all(isinstance(f, pd.DataFrame) for f in frames):
        return pd.concat([f.assign(**{by: str(name)}) for name, f in runs.items()],
                         ignore_index=True)
    raise InputError("experiment: the runs of the mapping must all be pandas or all Polars "
                     "frames")


def _system_intervals(per: pd.DataFrame, by: str, metrics, undefined: str,
                      confidence: float, ci: str = "t", n_resamples: int = 10_000,
                      seed: int = 0) -> pd.DataFrame:
    """Mean and interval of each system's per-query values (undefined: skipped or 0):
    t-based, or ``scipy.stats.bootstrap`` (percentile or BCa, ``n_resamples``, ``seed``)."""
    sps = _common._scipy_stats()  # scipy, or an ImportError naming the extra to install
    student = sps.t

    rows = []
    for system, block in per.groupby(level=by, sort=False, dropna=False):
        for metric in metrics:
            v = block[metric].to_numpy(dtype=np.float64)
            v = np.nan_to_num(v, nan=0.0) if undefined == "zero" else v[~np.isnan(v)]
            n = len(v)
            mean = float(v.mean()) if n else math.nan
            low = high = math.nan
            if n > 1 and ci == "t":
                half = float(student.ppf((1 + confidence) / 2, n - 1) * v.std(ddof=1)
                             / math.sqrt(n))
                low, high = mean - half, mean + half
            elif n > 1 and v.std() > 0:
                low, high = stats._bootstrap_mean_interval(
                    v, confidence, paired.CIS[ci].scipy_method or "percentile", n_resamples,
                    seed, sps)
            rows.append({"system": system, "metric": metric, "n": n, "mean": mean,
                         "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


MISSING = ("empty", "skip")
SETTINGS = ("test", "correction", "alpha", "ci", "confidence", "tie_policy", "missing",
            "undefined")
"""The columns that say how an experiment table was made (they travel with it through
Polars and CSV, so that ``report`` captions what was run)."""


def experiment(runs: Frame | Mapping[Any, Frame], qrels: Frame, metrics: Metrics, *,
               baseline: Any = None, test: str = "t", correction: str = "holm",
               alpha: float = 0.05, by: str = "system", per_query: bool = False,
               confidence: float = 0.95, ci: str = "t", n_resamples: int = 10_000,
               seed: int = 0, undefined: str = "skip", family: str = "metric",
               missing: str = "empty", **evaluate_kw: Any) -> Result:
    """Evaluate systems, compare them and tabulate the result.

    ``runs``: one run frame with a ``by`` column (pandas or Polars, a LazyFrame too) or a
    mapping ``{system name: run frame}``; ``metrics``: any names ``evaluate`` accepts
    (``"nDCG@10"``, ``"map"``, ``"P_10"``…); ``**evaluate_kw``: ``ties``, ``queries``,
    ``relevance_level``, ``judged_only``. The comparison arguments are
    ``trunc_accessor.stats.compare``'s (which see for the tests, corrections and the
    ``undefined`` rule). ``baseline``: a system, a list of systems (one block of rows per
    baseline) or None (every pair compared).

    ``missing``: what a judged query a system returned nothing for counts as. ``"empty"``
    (default, trec_eval's ``-c``): an empty ranking, which scores 0 on most metrics, so
    every system is averaged over the same queries; ``"skip"``: left out of that system's
    mean, and each comparison pairs the queries both systems answered (what
    ``compare`` does with per-query frames that lack rows). Either
    way a warning says how many queries each system lacks.

    Returns one row per (system, metric[, baseline]), in the caller's library: ``n`` (the
    queries averaged) and ``mean`` with its ``confidence`` interval (over the queries with a
    defined value, or all with ``undefined="zero"``; t-based, or with
    ``ci="bootstrap-percentile"``/``"bootstrap-bca"`` ``scipy.stats.bootstrap`` with
    ``n_resamples`` and ``seed``, as the differences' are); with a ``baseline``, each other
    system's ``delta`` to it with the interval of the difference, ``n_paired`` (the queries
    compared), ``p_value``, ``p_adjusted``, ``significant``, ``wins``, ``ties`` and
    ``losses`` (integers) and ``effect_size`` (paired d_z); without one, ``beats``: the
    systems it is significantly better than (all pairs compared). The columns
    ``SETTINGS`` (test, correction, alpha, ci, confidence, tie_policy, missing,
    undefined)
    say how the table was made, so that ``report`` can caption it after a trip through
    Polars or CSV. With ``per_query=True``: ``(table, per_query_values)``, the values
    ``evaluate`` gives with ``undefined="nan"`` (an undefined value, such as AP of a query
    with no relevant document, is NaN there; ``undefined`` decides what the table makes of
    it: ``"skip"`` leaves it out of the means and comparisons, ``"zero"`` counts it as 0).
    The comparison arguments are checked before anything is evaluated.

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield")
    >>> table = ta.experiment(runs, qrels, ["nDCG@10"], baseline="bm25")
    >>> table.loc[table.system == "bm25_stem", ["mean", "delta", "significant"]].round(4)
        mean   delta  significant
    1  0.332  0.0217         True
    """
    if not isinstance(missing, str) or missing not in MISSING:
        raise InputError(f"experiment: missing= must be one of {list(MISSING)}, not "
                         f"{missing!r}")
    # compare's checks, before the evaluation they would otherwise follow
    stats._check_compare(test, correction, alpha, n_resamples, seed, undefined, confidence, ci,
                         family)
    frame, polars_in = _runs_frame(runs, by)
    if not isinstance(frame, (pl.DataFrame, pd.DataFrame)):
        raise InputError(f"experiment: runs must be a run frame with a {by!r} column or a "
                         f"mapping {{system: run}}, not {type(frame).__name__}")
    if by not in frame.columns:
        raise InputError(f"experiment: the runs have no {by!r} column (by={by!r}); found "
                         f"{list(frame.columns)}")
    nameless = frame[by].is_null() if isinstance(frame, pl.DataFrame) else frame[by].isna()
    if nameless.any():
        raise InputError(f"experiment: the system column {by!r} has a missing value (a run "
                         f"with no system name)")
    # undefined values stay NaN here: ``undefined`` ("skip" or "zero") is applied below, by
    # the means and by compare (evaluate's own default would turn them into 0 first)
    per = frame.ir.evaluate(qrels, metrics, by=by, undefined="nan",  # type: ignore[union-attr]
                            **evaluate_kw)
    per_pd = per.to_pandas().set_index([by, per.columns[1]]) if isinstance(per, pl.DataFrame) \
        else per
    absent = _absent(frame, qrels, per_pd, by)
    _say_absent(per_pd, absent, by, missing)
    if missing == "skip":
        per_pd = per_pd[~absent]
    systems = list(dict.fromkeys(per_pd.index.get_level_values(0)))
    baselines = _baselines(baseline, systems)
    labels = list(per_pd.columns)
    table = _system_intervals(per_pd, by, labels, undefined, confidence, ci, n_resamples, seed)
    compare_kw: dict[str, Any] = {
        "test": test, "correction": correction, "alpha": alpha, "n_resamples": n_resamples,
        "seed": seed, "undefined": undefined, "confidence": confidence, "ci": ci, "by": by,
        "family": family}
    if baselines:
        blocks = []
        for b in baselines:
            compared = _compare(per_pd, b, compare_kw)
            cols = ["metric", "system", "delta", "ci_low", "ci_high", "n", "p_value",
                    "p_adjusted", "significant", "wins", "ties", "losses", "effect_size"]
            part = compared[cols].rename(columns={"ci_low": "delta_ci_low",
                                                  "ci_high": "delta_ci_high",
                                                  "n": "n_paired"})
            block = table.merge(part, on=["system", "metric"], how="left")
            block["significant"] = block["significant"].astype("boolean").fillna(False) \
                .astype(bool)
            for c in ("n_paired", "wins", "ties", "losses"):
                block[c] = block[c].astype("Int64")  # integers; none on the baseline's row
            block.insert(2, "baseline", b)
            blocks.append(block)
        table = pd.concat(blocks, ignore_index=True)
    else:
        compared = _compare(per_pd, None, compare_kw)
        better = compared[compared["significant"]]
        beats: dict = {}
        for _, row in better.iterrows():
            winner, loser = ((row["system"], row["other"]) if row["delta"] > 0
                             else (row["other"], row["system"]))
            beats.setdefault((winner, row["metric"]), []).append(loser)
        table["beats"] = [sorted(beats.get((s, m), []), key=str)
                          for s, m in zip(table["system"], table["metric"])]
    settings = {"test": test, "correction": correction, "alpha": alpha, "ci": ci,
                "confidence": confidence, "tie_policy": evaluate_kw.get("ties", "average"),
                "missing": missing, "undefined": undefined}
    for key in SETTINGS:
        table[key] = settings[key]
    table = table.rename(columns={"system": by})
    table.attrs.update({**settings, "baseline": baseline, "by": by})
    out = table
    if polars_in:
        out = pl.from_pandas(table)
    if per_query:
        return out, per
    return out


def _compare(per: pd.DataFrame, baseline, compare_kw: dict) -> pd.DataFrame:
    """stats.compare, without its warning about queries a system lacks (with
    missing='skip' experiment has said which, and why)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="compare: some systems lack queries",
                                category=DroppedQueriesWarning)
        return stats.compare(per, baseline=baseline, **compare_kw)


def _absent(frame, qrels, per: pd.DataFrame, by: str) -> np.ndarray:
    """Which rows (system, qid) of the per-query values are queries the system returned
    nothing for (scored as empty rankings)."""
    from trunc_accessor.engine.evaluation import columns_of

    qid = columns_of(frame.head(0), qrels.head(0) if hasattr(qrels, "head") else qrels,
                     [by]).run_qid
    if isinstance(frame, pl.DataFrame):
        pairs = frame.select(pl.col(by).cast(pl.String), pl.col(qid).cast(pl.String)).unique()
        answered = set(pairs.iter_rows())
    else:
        pairs = frame[[by, qid]].drop_duplicates()
        answered = {(str(s), str(q)) for s, q in zip(pairs[by], pairs[qid])}
    keys = zip(per.index.get_level_values(0), per.index.get_level_values(1))
    return np.array([(str(s), str(q)) not in answered for s, q in keys], dtype=bool)


def _say_absent(per: pd.DataFrame, absent: np.ndarray, by: str, missing: str) -> None:
    if not absent.any():
        return
    systems = per.index.get_level_values(0)
    total = pd.Series(1, index=systems).groupby(level=0, sort=False).sum()
    lacking = pd.Series(absent.astype(int), index=systems).groupby(level=0, sort=False).sum()
    shown = ", ".join(f"{s} {int(k)} of {int(total[s])}" for s, k in lacking.items() if k)
    rule = ("scored as empty rankings (missing='empty', trec_eval -c: 0 for most metrics); "
            "missing='skip' leaves them out and pairs each comparison on the queries both "
            "systems answered" if missing == "empty" else
            "left out (missing='skip'): each mean is over the queries the system answered "
            "and each comparison pairs the queries both answered")
    warn(f"experiment: systems returned nothing for some judged queries ({shown}); they are "
         f"{rule}", DroppedQueriesWarning)


def _baselines(baseline, systems: list) -> list:
    if baseline is None:
        return []
    chosen = list(baseline) if isinstance(baseline, (list, tuple)) else [baseline]
    if not chosen:
        raise InputError("experiment: baseline= is an empty list")
    for b in chosen:
        if b not in systems:
            raise InputError(f"baseline={b!r} is not one of the systems {systems}")
    if len(set(map(str, chosen))) != len(chosen):
        raise InputError(f"experiment: baseline= names a system twice ({chosen})")
    return chosen


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
    if "baseline" in table.columns:
        present = list(dict.fromkeys(table["baseline"].dropna()))
        if baseline is None and len(present) > 1:
            raise InputError(f"report: the table compares against several baselines "
                             f"{present}: pass baseline= to report one")
        if baseline is not None and baseline not in present:
            raise InputError(f"report: baseline={baseline!r} is not one of the table's "
                             f"baselines {present}")
        baseline = baseline if baseline is not None else (present[0] if present else None)
        table = table[table["baseline"] == baseline]
    elif baseline is not None:
        raise InputError("report: baseline= given, but the table compares no baseline")
    if mode == "delta" and baseline is None:
        raise InputError("report: interval='delta' needs an experiment with a baseline")
    systems = list(dict.fromkeys(table[by]))
    letters = {s: chr(ord("a") + i) for i, s in enumerate(systems)}
    if caption is None:
        test, correction, alpha = (_setting(table, attrs, k)
                                   for k in ("test", "correction", "alpha"))
        if test is None or correction is None or alpha is None:
            raise InputError("report: the table does not say which test, correction and α "
                             "made it (columns test, correction, alpha, as ta.experiment "
                             "writes them): pass caption=")
        caption = (f"{_n_text(table)} (best in bold). "
                   f"{_label(paired.TESTS, test).capitalize()} test, "
                   f"{_label(paired.CORRECTIONS, correction)} correction, α = {alpha}")
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
    bolds = {"markdown": lambda s: f"**{s}**", "latex": lambda s: f"\\textbf{{{s}}}",
             "html": lambda s: f"<b>{s}</b>", "styler": lambda s: s}
    if format not in bolds:
        raise InputError(f"report: format must be 'markdown', 'latex', 'html' or 'styler', "
                         f"not {format!r}")
    cells = _cells(table, by, decimals, mode, "letters", bolds[format], baseline, letters)
    names = [str(s) + (f" ({letters[s]})" if baseline is None
                       else " (baseline)" if s == baseline else "") for s in cells.index]
    if format == "styler":
        return _styler(table, cells, names, by, caption)
    if format in ("markdown", "html"):  # names are the user's text, never markup
        esc = _md_escape if format == "markdown" else html.escape
        names = [esc(n) for n in names]
        cells.columns = [esc(str(m)) for m in cells.columns]
        caption = esc(caption)
        by_text = esc(str(by))
    else:
        by_text = str(by)
    if format == "markdown":
        lines = ["| " + " | ".join([by_text, *cells.columns]) + " |",
                 "|" + "|".join(["---"] + ["---:"] * len(cells.columns)) + "|"]
        def md(c):
            return c.replace("^", "<sup>") + "</sup>" if "^" in c else c
        lines += ["| " + " | ".join([name, *(md(c) for c in row)]) + " |"
                  for name, row in zip(names, cells.itertuples(index=False))]
        return "\n".join(lines) + f"\n\n{caption}\n"
    if format == "latex":
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
    rows = "".join("<tr><th>" + name + "</th>" + "".join(
        "<td>" + (c.replace("^", "<sup>") + "</sup>" if "^" in c else c) + "</td>" for c in row)
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
