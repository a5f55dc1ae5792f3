"""Comparing systems over per-query results: paired significance tests with multiple-testing
corrections and confidence intervals (``significance``, ``paired``, ``tukey``), the
experiment table (``experiment``) and its report (``report``), and rank correlations
between metrics and rankings (``agreement``, with ``rbo`` for document rankings). SciPy
loads on first use."""
from __future__ import annotations

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
    "multipletests", "randomized_tukey_hsd", "tukey_hsd"]
