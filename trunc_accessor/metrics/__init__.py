"""Metric kernels by family, each vectorised over every ranking of a call. Importing this
package registers every metric: ``standard`` (precision, recall, AP, RR, R-prec, bpref, …),
``dcg`` (DCG, nDCG), ``rbp`` (RBP and its residual), ``terminal`` (Liu et al.'s
terminal-document metrics), ``cascade`` (ERR, ERR'; the exact means over tie orders in
``cascade_ties``), ``cascade_utility`` (RBU, ERRU: the utility metrics of Amigó et al.),
``information`` (OIE), ``twist`` (Ferro et al.; its curves in ``twist_curves``, the CRP
frame and the archetypes in ``twist_frames``), trec_eval's
``trunc_accessor.metrics.counts``, ``trunc_accessor.metrics.sets``,
``trunc_accessor.metrics.interpolated``, ``trunc_accessor.metrics.infap``, ``trec_only``,
``compat``, ``diversity`` (α-nDCG, ERR-IA, NRBP, … on subtopic qrels), the C/W/L user
models of cwl_eval (``trunc_accessor.metrics.user_models``: INSQ, INST, BPM, SDCG;
``trunc_accessor.metrics.nerr``: NERR8–11; their shared pieces in ``cwl`` and ``cwl_tails``)
and ir_measures' Accuracy (``trunc_accessor.metrics.accuracy``);
``trunc_accessor.metrics.user`` declares metrics of your own. Shared pieces: ``_order`` (tie
orders, ranks), ``_combinatorics``, ``_max_ties``; a metric's declaration: ``registry``
(``register``), ``params``, ``dialects``; ``parse``, ``names`` and ``trec_dialect`` read
measure names; ``prefix`` scores every cut-off."""
from trunc_accessor.metrics import (  # noqa: F401  (each registers its metrics)
    accuracy,
    cascade,
    cascade_utility,
    compat,
    counts,
    dcg,
    diversity,
    exposure,
    infap,
    information,
    interpolated,
    nerr,
    rbp,
    sample_eval,
    sets,
    standard,
    statap,
    terminal,
    trec_only,
    trec_rbp,
    twist,
    user_models,
    utility,
)
