"""Comparing systems over per-query results: paired significance tests with multiple-testing
corrections and confidence intervals (``significance``, ``paired``, ``tukey``), the
topic × system two-way ANOVA with its effect sizes, Tukey HSD and intervals (``anova``) and
the mixed model of topics and systems (``mixed``), the
experiment table (``experiment``) and its report (``report``), and rank correlations
between metrics and rankings (``agreement``, with ``rbo`` for document rankings). SciPy
loads on first use."""
from __future__ import annotations

from trunc_accessor.stats.anova import two_way_anova, two_way_intervals, two_way_tukey_hsd
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
from trunc_accessor.stats.significance import compare
from trunc_accessor.stats.tukey import randomized_tukey_hsd, tukey_hsd

__all__ = ["CIS", "CORRECTIONS", "Correction", "Interval", "PairedTest", "TESTS", "compare",
    "mixed_model", "multipletests", "randomized_tukey_hsd", "tukey_hsd", "two_way_anova",
    "two_way_intervals", "two_way_tukey_hsd"]
