"""Figures (matplotlib, loaded on first use): effort-gain and CRP curves of the Twist measure
(Ferro et al.), precision–recall and cut-off curves (``curves``), and the experiment's figures
(per-query differences, intervals, distributions, metric scatter: ``experiment``), power
curves of topic set size design (``power``) and the forest plot of a meta-analysis across
collections (``forest``)."""
from __future__ import annotations

from trunc_accessor.plot.curves import cutoff_curves, effort_gain, plot_crp, precision_recall
from trunc_accessor.plot.experiment import (
    interval_plot,
    metric_scatter,
    query_distributions,
    topic_differences,
)
from trunc_accessor.plot.forest import forest_plot
from trunc_accessor.plot.power import power_curve

__all__ = ["cutoff_curves", "effort_gain", "forest_plot", "interval_plot", "metric_scatter",
           "plot_crp", "power_curve", "precision_recall", "query_distributions",
           "topic_differences"]
