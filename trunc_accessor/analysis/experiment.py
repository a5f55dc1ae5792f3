"""One call from runs to a results table, and the table for the paper.

:func:`experiment` evaluates several systems (one ``evaluate`` call), compares them with
:func:`trunc_accessor.stats.compare` and returns one tidy row per (system, metric);
:func:`report` renders it as markdown, LaTeX (booktabs), HTML or a pandas ``Styler``.
"""
from __future__ import annotations

import html
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import polars as pl

from ..core.frames import InputError
from . import stats


def _label(declared: dict, name) -> str:
    """The caption label of a declared test or correction (its name if unknown)."""
    return declared[name].label if name in declared else str(name)


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
    sps = stats._scipy_stats()  # scipy, or an ImportError naming the extra to install
    bootstrap, student = sps.bootstrap, sps.t

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
                method = "BCa" if ci in ("bootstrap", "bootstrap-bca") else "percentile"
                res = bootstrap((v,), np.mean, confidence_level=confidence, method=method,
                                n_resamples=n_resamples, rng=np.random.default_rng(seed))
                low, high = (float(res.confidence_interval.low),
                             float(res.confidence_interval.high))
            rows.append({"system": system, "metric": metric, "n": n, "mean": mean,
                         "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def experiment(runs, qrels, metrics, *, baseline=None, test: str = "t", correction: str = "holm",
               alpha: float = 0.05, by: str = "system", per_query: bool = False,
               confidence: float = 0.95, ci: str = "t", n_resamples: int = 10_000,
               seed: int = 0, undefined: str = "skip", family: str = "metric", **evaluate_kw):
    """Evaluate systems, compare them and tabulate the result.

    ``runs``: one run frame with a ``by`` column (pandas or Polars, a LazyFrame too) or a
    mapping ``{system name: run frame}``; ``metrics``: any names ``evaluate`` accepts
    (``"nDCG@10"``, ``"map"``, ``"P_10"``…); ``**evaluate_kw``: ``ties``, ``queries``,
    ``relevance_level``, ``judged_only``. The comparison arguments are
    :func:`trunc_accessor.stats.compare`'s (which see for the tests, corrections and the
    ``undefined`` rule).

    Returns one row per (system, metric), in the caller's library: ``mean`` and its
    ``confidence`` interval (over the queries with a defined value, or all with
    ``undefined="zero"``; t-based, or with ``ci="bootstrap-percentile"``/``"bootstrap-bca"``
    ``scipy.stats.bootstrap`` with ``n_resamples`` and ``seed``, as the differences' are);
    with a ``baseline``, each other system's ``delta`` to it with the
    interval of the difference, ``p_value``, ``p_adjusted``, ``significant``, ``wins``,
    ``ties``, ``losses`` and ``effect_size`` (paired d_z); without one, ``beats``: the systems
    it is significantly better than (all pairs compared). With ``per_query=True``:
    ``(table, per_query_values)``.

    >>> import trunc_accessor as ta
    >>> runs, qrels = ta.load_example("cranfield")
    >>> table = ta.experiment(runs, qrels, ["nDCG@10"], baseline="bm25")
    >>> table.loc[table.system == "bm25_stem", ["mean", "delta", "significant"]].round(4)
        mean   delta  significant
    1  0.332  0.0217         True
    """
    polars_in = isinstance(runs, (pl.DataFrame, pl.LazyFrame)) or (
        isinstance(runs, Mapping) and runs
        and all(isinstance(f, (pl.DataFrame, pl.LazyFrame)) for f in runs.values()))
    frame = _one_frame(runs, by)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if not isinstance(frame, (pl.DataFrame, pd.DataFrame)):
        raise InputError(f"experiment: runs must be a run frame with a {by!r} column or a "
                         f"mapping {{system: run}}, not {type(frame).__name__}")
    if by not in frame.columns:
        raise InputError(f"experiment: the runs have no {by!r} column (by={by!r}); found "
                         f"{list(frame.columns)}")
    missing = frame[by].is_null() if isinstance(frame, pl.DataFrame) else frame[by].isna()
    if missing.any():
        raise InputError(f"experiment: the system column {by!r} has a missing value (a run "
                         f"with no system name)")
    per = frame.ir.evaluate(qrels, metrics, by=by, **evaluate_kw)  # type: ignore[union-attr]
    per_pd = per.to_pandas().set_index([by, per.columns[1]]) if isinstance(per, pl.DataFrame) \
        else per
    labels = [c for c in per_pd.columns]
    table = _system_intervals(per_pd, by, labels, undefined, confidence, ci, n_resamples, seed)
    compared = stats.compare(per_pd, baseline=baseline, test=test, correction=correction,
                             alpha=alpha, n_resamples=n_resamples, seed=seed,
                             undefined=undefined, confidence=confidence, ci=ci, by=by,
                             family=family)
    if baseline is not None:
        cols = ["metric", "system", "delta", "ci_low", "ci_high", "p_value", "p_adjusted",
                "significant", "wins", "ties", "losses", "effect_size"]
        part = compared[cols].rename(columns={"ci_low": "delta_ci_low",
                                              "ci_high": "delta_ci_high"})
        table = table.merge(part, on=["system", "metric"], how="left")
        table["significant"] = table["significant"].astype("boolean").fillna(False).astype(bool)
        table.insert(2, "baseline", str(baseline))
    else:
        better = compared[compared["significant"]]
        beats: dict = {}
        for _, row in better.iterrows():
            winner, loser = ((row["system"], row["other"]) if row["delta"] > 0
                             else (row["other"], row["system"]))
            beats.setdefault((winner, row["metric"]), []).append(loser)
        table["beats"] = [sorted(beats.get((s, m), []), key=str)
                          for s, m in zip(table["system"], table["metric"])]
    table = table.rename(columns={"system": by})
    table.attrs.update({"test": test, "correction": correction, "alpha": alpha,
                        "baseline": baseline, "by": by, "confidence": confidence})
    out = table
    if polars_in:
        out = pl.from_pandas(table)
    if per_query:
        return out, per
    return out


def _cells(table: pd.DataFrame, by: str, decimals: int, interval: bool, marks: str,
           bold, baseline, letters) -> pd.DataFrame:
    systems = list(dict.fromkeys(table[by]))
    metrics = list(dict.fromkeys(table["metric"]))
    best = table.groupby("metric")["mean"].transform("max")
    cells = pd.DataFrame(index=pd.Index(systems, name=by), columns=metrics, dtype=object)
    for (_, row), is_best in zip(table.iterrows(), table["mean"] >= best - 1e-12):
        text = f"{row['mean']:.{decimals}f}"
        if interval and not math.isnan(row["ci_high"]):
            text += f" ± {(row['ci_high'] - row['ci_low']) / 2:.{decimals}f}"
        if is_best:
            text = bold(text)
        mark = ""
        if baseline is not None and row[by] != baseline and row.get("significant", False):
            mark = "†" if row["delta"] > 0 else "‡"
        elif baseline is None and marks == "letters":
            mark = "".join(letters[s] for s in row["beats"])
        cells.loc[row[by], row["metric"]] = text + (f"^{mark}" if mark else "")
    return cells


def report(result, format: str = "markdown", *, decimals: int = 4, interval: bool = False,
           caption: str | None = None):
    """The table for the paper: systems × metrics, rounded means, the best per metric in
    bold, and significance marks: with a baseline † (significantly better) and ‡ (worse);
    without one, ranx-style letters (each system gets a letter; a cell carries the letters of
    the systems it beats significantly). ``interval=True`` adds ± half the interval. The
    caption says the test, correction and α. ``format``: "markdown", "latex" (booktabs),
    "html" or "styler" (a pandas ``Styler``, bold maxima).
    """
    table = result.to_pandas() if isinstance(result, pl.DataFrame) else result
    if not isinstance(table, pd.DataFrame) or "metric" not in table.columns \
            or "mean" not in table.columns:
        raise InputError("report: expects the table ta.experiment returns")
    if table.empty:
        raise InputError("report: the experiment table is empty (no system, no metric)")
    attrs = dict(getattr(result, "attrs", {}) or {})
    by = attrs.get("by") or ("system" if "system" in table.columns else table.columns[0])
    baseline = attrs.get("baseline") if attrs else (table["baseline"].iloc[0]
                                                     if "baseline" in table.columns else None)
    if baseline is None and "baseline" in table.columns:
        baseline = table["baseline"].iloc[0]
    systems = list(dict.fromkeys(table[by]))
    letters = {s: chr(ord("a") + i) for i, s in enumerate(systems)}
    test = attrs.get("test", "t")
    correction = attrs.get("correction", "holm")
    alpha = attrs.get("alpha", 0.05)
    n = int(table["n"].max()) if "n" in table.columns else None
    if caption is None:
        caption = (f"Means over {n} queries (best in bold). "
                   f"{_label(stats.TESTS, test).capitalize()} test, "
                   f"{_label(stats.CORRECTIONS, correction)} correction, α = {alpha}")
        caption += (f": † significantly better, ‡ significantly worse than {baseline}."
                    if baseline is not None else
                    ": a letter marks each system the row is significantly better than ("
                    + ", ".join(f"{v} = {k}" for k, v in letters.items()) + ").")
    if format == "styler":
        try:
            import jinja2  # noqa: F401  (pandas' Styler renders with it)
        except ImportError:
            raise ImportError('report(format="styler") needs jinja2: pip install '
                              '"trunc_accessor[stats]"') from None
        wide = table.pivot(index=by, columns="metric", values="mean")
        return wide.style.format(precision=decimals).highlight_max(
            axis=0, props="font-weight: bold").set_caption(caption)
    bolds = {"markdown": lambda s: f"**{s}**", "latex": lambda s: f"\\textbf{{{s}}}",
             "html": lambda s: f"<b>{s}</b>"}
    if format not in bolds:
        raise InputError(f"report: format must be 'markdown', 'latex', 'html' or 'styler', "
                         f"not {format!r}")
    cells = _cells(table, by, decimals, interval, "letters", bolds[format], baseline, letters)
    names = [str(s) + (f" ({letters[s]})" if baseline is None else "") for s in cells.index]
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
    head = "<tr><th>" + by_text + "</th>" + "".join(f"<th>{m}</th>" for m in cells.columns) + "</tr>"
    return f"<table><caption>{caption}</caption><thead>{head}</thead><tbody>{rows}</tbody></table>"


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
                 ("‡", "$\\ddagger$"), ("–", "--")):
        s = s.replace(a, b)
    return s
