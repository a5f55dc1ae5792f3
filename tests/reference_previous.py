"""The previous implementations of ERR′, RBU and the RBP residual, kept verbatim as the
reference for their judged-part forms (tests/metrics/test_prefix.py): ERR′ and RBU ran the cascade
over every tie group, and the residual summed the unjudged weight over every row."""
from __future__ import annotations

import numpy as np

from trunc_accessor.metrics._kernels import rbp_tail, rbp_weights
from trunc_accessor.metrics.cascade import _err, cascade
from trunc_accessor.metrics.terminal import gains_and_pool, not_truncated, terminal_gain


def err_prime(prep, level, graded=False, max_grade=None, depth=None):
    base = _err(prep, max_grade)
    _, through = cascade(prep, max_grade)
    g, pool = gains_and_pool(prep, level, graded, max_grade)
    r_t = terminal_gain(prep.seg_sum(g), pool)
    tail = r_t * through / (prep.length + 1.0)
    return base + np.where(not_truncated(prep, depth), 0.0, tail)


def rbu(prep, level, p=0.8, e=0.05, max_grade=None):
    stop, _ = cascade(prep, max_grade)
    gain = (1.0 - p) * prep.seg_sum(stop * rbp_weights(prep, p))
    return gain - e * (1.0 - rbp_tail(prep, p))


def rbp_residual(prep, level, p=0.8):
    unjudged = (np.isnan(prep.grade) | (prep.grade < 0)).astype(np.float64)
    w = prep.seg_sum(prep.group_mean(unjudged) * rbp_weights(prep, p))
    return rbp_tail(prep, p) + (1.0 - p) * w
