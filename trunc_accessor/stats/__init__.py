"""Comparing systems over per-query results: paired significance tests with multiple-testing
corrections and confidence intervals (``significance``, ``paired``, ``tukey``), the
topic × system two-way ANOVA with its effect sizes, Tukey HSD and intervals (``anova``) and
the mixed model of topics and systems (``mixed``), the
experiment table (``experiment``) and its report (``report``), and rank correlations
between metrics and rankings (``agreement``, with ``rbo`` for document rankings), topic set
size design and power (``sample_size`` for the numbers, ``design`` for per-query tables) and
meta-analysis across collections (``meta``), and risk-sensitive comparisons with baselines
(``risk``: URisk, TRisk, ZRisk, GeoRisk). SciPy loads on first use."""
from __future__ import annotations

from trunc_accessor.stats.anova import two_way_anova, two_way_intervals, two_way_tukey_hsd
from trunc_accessor.stats.design import design_variance, power_curve, topic_set_size
from trunc_accessor.stats.meta import collection_effects, meta_analysis
from trunc_accessor.stats.mixed import mixed_model
from trunc_accessor.stats.paired import (
    CIS,
    CORRECTIONS,
    TESTS,
    Correction,
    Interval,
    PairedTest,
    multipletests,
)
from trunc_accessor.stats.reproduce import order_agreement, replicability, reproducibility
from trunc_accessor.stats.risk import georisk, urisk
from trunc_accessor.stats.sample_size import (
    anova_power,
    ci_width,
    topics_for_anova,
    topics_for_ci,
    topics_for_ttest,
    ttest_power,
)
from trunc_accessor.stats.significance import compare
from trunc_accessor.stats.tukey import randomized_tukey_hsd, tukey_hsd

__all__ = ["CIS", "CORRECTIONS", "Correction", "Interval", "PairedTest", "TESTS", "anova_power",
    "ci_width", "collection_effects", "compare", "design_variance", "georisk",
    "meta_analysis", "mixed_model", "multipletests", "order_agreement", "power_curve",
    "randomized_tukey_hsd", "replicability", "reproducibility", "topic_set_size",
    "topics_for_anova", "topics_for_ci", "topics_for_ttest", "ttest_power", "tukey_hsd",
    "two_way_anova", "two_way_intervals", "two_way_tukey_hsd", "urisk"]
