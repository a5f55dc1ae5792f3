"""Comparing judges (two or more qrels of the same queries): inter-rater agreement (Cohen's and
Fleiss' kappa, Krippendorff's alpha; ``interrater``, ``judgments``), per-grade detail and
Bland–Altman analysis (``detail``, ``label_stats``), leaderboard agreement (``leaderboard``)
and their figures (``plot``); ``load_judges`` reads the shipped pairs of judges."""
from __future__ import annotations

from trunc_accessor.io.examples import load_judges
from trunc_accessor.judges.detail import bland_altman, confusion_matrix, per_grade
from trunc_accessor.judges.interrater import (
    agreement,
    align,
    cohen_kappa,
    coverage,
    fleiss_kappa,
    krippendorff_alpha,
)
from trunc_accessor.judges.leaderboard import LeaderboardAgreement, leaderboard_agreement
from trunc_accessor.judges.plot import bland_altman_plot, confusion_heatmap, leaderboard_scatter
from trunc_accessor.judges.sources import by_source

__all__ = ["LeaderboardAgreement", "agreement", "align", "bland_altman", "bland_altman_plot",
    "by_source", "cohen_kappa", "confusion_heatmap", "confusion_matrix", "coverage", "fleiss_kappa",
    "krippendorff_alpha", "leaderboard_agreement", "leaderboard_scatter", "load_judges",
    "per_grade"]
