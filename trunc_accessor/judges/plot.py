"""Figures of judge agreement: the confusion matrix as a heat map, the Bland–Altman plot of
graded labels and the scatter of two leaderboards. matplotlib loads on first use
(``pip install "trunc_accessor[plots]"``); each function returns the Axes it drew on and never
calls ``show()``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from trunc_accessor._typing import Axes, Frame
from trunc_accessor.errors import InputError
from trunc_accessor.judges import label_stats as ls
from trunc_accessor.judges.detail import confusion_matrix
from trunc_accessor.judges.judgments import _read
from trunc_accessor.plot._common import _new_axes, _place_labels


def confusion_heatmap(reference: Frame | Mapping[str, Frame], other: Frame | None = None, *,
                      relevance_level: float | None = None,
                      grades: Sequence[float] | None = None, missing: str = "drop",
                      normalize: str | None = None, names: Sequence[str] | None = None,
                      ax: Axes = None) -> Axes:
    """The confusion matrix of ``confusion_matrix``
    as a heat map: the reference's grades down, the other judge's across, each cell
    printed (a count, or a share with ``normalize``) and Cohen's κ in the title. Arguments as
    ``confusion_matrix``. Returns the Axes.
    """
    table = confusion_matrix(reference, other, relevance_level=relevance_level, grades=grades,
                             missing=missing, names=names)
    if isinstance(table, pl.DataFrame):
        ref = table.columns[0]
        grades_shown = table[ref].to_list()
        counts = table.drop(ref).to_numpy().astype(np.float64)
        oth = table.columns[1].rsplit("=", 1)[0]
    else:
        ref, oth = table.index.name, table.columns.name
        grades_shown = list(table.index)
        counts = table.to_numpy(dtype=np.float64)
    kappa = float(ls.cohen_kappa(counts))
    shown = counts
    if normalize is not None:
        shown = confusion_matrix(reference, other, relevance_level=relevance_level,
                                 grades=grades, missing=missing, names=names,
                                 normalize=normalize)
        shown = (shown.drop(shown.columns[0]) if isinstance(shown, pl.DataFrame)
                 else shown).to_numpy().astype(np.float64)
    ax = _new_axes(ax, (1.0 * len(grades_shown) + 2.6, 0.85 * len(grades_shown) + 1.8))
    image = ax.imshow(shown, cmap="Blues", aspect="auto")
    ax.figure.colorbar(image, ax=ax, label="share" if normalize else "pairs")
    top = np.nanmax(shown) if shown.size else 0.0
    for (i, j), value in np.ndenumerate(shown):
        text = f"{value:.2f}" if normalize else f"{int(value):,}"
        ax.text(j, i, text, ha="center", va="center", fontsize="small",
                color="white" if top and value > 0.6 * top else "black")
    ticks = np.arange(len(grades_shown))
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(g) for g in grades_shown])
    ax.set_yticks(ticks)
    ax.set_yticklabels([str(g) for g in grades_shown])
    ax.set_xlabel(f"{oth}: grade")
    ax.set_ylabel(f"{ref}: grade")
    ax.set_title(f"{ref} vs {oth}: {int(counts.sum()):,} pairs, Cohen's κ = {kappa:.3f}",
                 fontsize="medium")
    return ax


def bland_altman_plot(reference: Frame | Mapping[str, Frame], other: Frame | None = None, *,
                      relevance_level: float | None = None, missing: str = "drop",
                      z: float = 1.96, names: Sequence[str] | None = None,
                      ax: Axes = None) -> Axes:
    """Bland–Altman plot (Bland & Altman, Lancet 1986) of graded labels: for each judged pair
    the mean of the two grades (x) against their difference other − reference (y); grades
    are few, so each distinct point is one bubble whose area grows with the number of pairs
    it stands for (the count printed beside it). Lines at the bias and at the limits of
    agreement bias ∓ z·sd (as ``bland_altman``,
    ``ddof=1``) and at 0. Returns the Axes. The legend sits beside the Axes, inside the
    figure (a new figure has ``layout="constrained"``, so a plain ``savefig`` keeps it
    whole); with your own ``ax``, give its figure that layout or save with
    ``bbox_inches="tight"``.
    """
    args = (reference,) if other is None else (reference, other)
    lab = _read(args, names, function="bland_altman_plot", missing=missing, two=True,
                relevance_level=relevance_level)
    a, b = lab.values[:, 0], lab.values[:, 1]
    ok = ~np.isnan(a) & ~np.isnan(b)
    points, counts = np.unique(np.stack([(a + b)[ok] / 2.0, (b - a)[ok]], axis=1), axis=0,
                               return_counts=True)
    n, bias, _sd, low, high = ls.bland_altman(
        ls.difference_sums(lab.q, a, b, lab.n_q).sum(axis=0), z)
    ax = _new_axes(ax, (6.4, 4.4), layout="constrained")
    area = 20 + 600 * counts / max(counts.max(), 1)  # points²
    ax.scatter(points[:, 0], points[:, 1], s=area, alpha=0.5, color="steelblue",
               edgecolor="navy", zorder=3)
    for (x, y), c, r in zip(points, counts, np.sqrt(area / np.pi)):
        ax.annotate(f"{c:,}", (x, y), textcoords="offset points", xytext=(0, -r - 1.5),
                    ha="center", va="top", fontsize="x-small")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.axhline(bias, color="black", linewidth=1.2, label=f"bias {bias:+.3f}")
    for value, side in ((low, "lower"), (high, "upper")):
        ax.axhline(value, color="firebrick", linestyle="--", linewidth=1.0,
                   label=f"{side} limit {value:+.3f}")
    ref, oth = lab.names
    ax.set_xlabel(f"mean grade of {ref} and {oth}")
    ax.set_ylabel(f"{oth} − {ref}")
    ax.set_title(f"Bland–Altman: {int(n):,} pairs, limits bias ∓ {z:g} sd", fontsize="medium")
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return ax


def leaderboard_scatter(result: Any, metric: str | None = None, ax: Axes = None) -> Axes:
    """Each system's mean under qrels a (x) against its mean under qrels b (y), labelled
    with its name, the identity line dashed (a point above it gains under b), and
    Kendall's τ and τ_AP in the title. ``result``: what
    ``leaderboard_agreement`` returns; ``metric``:
    one of its metrics (default: the first). Returns the Axes.
    """
    systems = result.systems
    if isinstance(systems, pl.DataFrame):
        systems = systems.to_pandas()
    summary = result.summary
    if isinstance(summary, pl.DataFrame):
        summary = summary.to_pandas()
    known = list(dict.fromkeys(systems["metric"]))
    metric = known[0] if metric is None else metric
    if metric not in known:
        raise InputError(f"leaderboard_scatter: no metric {metric!r}; found {known}")
    rows = systems[systems["metric"] == metric]
    line = summary[summary["metric"] == metric].iloc[0]
    x = rows["mean_a"].to_numpy(dtype=np.float64)
    y = rows["mean_b"].to_numpy(dtype=np.float64)
    ax = _new_axes(ax, (5.8, 4.8))
    low = float(np.nanmin(np.r_[x, y])) if len(x) else 0.0
    high = float(np.nanmax(np.r_[x, y])) if len(x) else 1.0
    pad = 0.08 * max(high - low, 1e-3)
    ax.plot([low - pad, high + pad], [low - pad, high + pad], color="grey", linestyle="--",
            linewidth=0.9, label="same mean", zorder=1)
    ax.scatter(x, y, s=30, zorder=3, color="steelblue")
    ax.set_xlim(low - pad, high + pad)
    ax.set_ylim(low - pad, high + pad)
    _place_labels(ax, [str(s) for s in rows["system"]], x, y, marker=4.0)
    name_a, name_b = result.names
    ax.set_xlabel(f"{metric} under {name_a} (mean)")
    ax.set_ylabel(f"{metric} under {name_b} (mean)")
    ax.set_title(f"{metric}: Kendall's τ = {line['kendall_tau']:.3f}, τ_AP = "
                 f"{line['tau_ap']:.3f} ({len(x)} systems)", fontsize="medium")
    ax.grid(True, linewidth=0.4, alpha=0.5)
    return ax

