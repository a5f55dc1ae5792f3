"""gdeval.pl's DCG and ERR sums in the script's own order of operations.

gdeval.pl 1.3 (the TREC 2010-14 Web track's script) adds DCG = Σᵢ (2^gᵢ − 1)/log2(i + 1) and
ERR = Σᵢ Rᵢ/i · Πⱼ<ᵢ (1 − Rⱼ), Rᵢ = (2^gᵢ − 1)/2^max_grade (Chapelle et al., CIKM 2009),
rank by rank, the discount computed as log(i + 1)/log(2). The registry's ``ndcg`` (with
exponential gains) and ``err`` give the same values within float error, but add in
another order, which can move the fifth printed decimal; ``trunc-accessor-gdeval``, which
prints gdeval.pl's digits, sums here.
"""
from __future__ import annotations

import math

import numpy as np


def gdeval_sums(grades: np.ndarray, max_grade: float) -> tuple[np.ndarray, np.ndarray]:
    """DCG and ERR of each row of a topics × k matrix of grades (a row padded with 0 past
    its ranking's end), summed rank by rank as gdeval.pl does: vectorised over the topics,
    so every row's sum rounds as the script's does.

    >>> dcg, err = gdeval_sums(np.array([[2.0, 0.0, 1.0]]), 4)
    >>> float(dcg[0]), float(err[0])  # 3/log2(2) + 1/log2(4); 3/16 + (13/16)(1/16)/3
    (3.5, 0.20442708333333334)
    """
    n = len(grades)
    dcg, err, decay = np.zeros(n), np.zeros(n), np.ones(n)
    for i in range(grades.shape[1]):
        gain = 2.0 ** grades[:, i] - 1
        dcg += gain / (math.log(i + 2) / math.log(2.0))
        r = gain / 2.0**max_grade
        err += r * decay / (i + 1)
        decay *= 1 - r
    return dcg, err
