"""Monte Carlo completions of the holes: each unjudged retrieved document judged relevant (at
the qrels' largest grade, or ``grade``) with its own probability, independently, and
non-relevant otherwise; every measure on each draw.

The probabilities come as a frame (qid, docid, p), e.g. a model's probability of relevance;
they are lined up with the call's rankings by preparing the run against them as if they were
grades (the same order, the same rankings), and only the holes read them: a pair the qrels
judge keeps its judgment. Each draw is a completion (``bounds.completed``) of the call's one
preparation, scored by the measures' own kernels. The draws of two rankings are independent,
as their holes are filled for each ranking alone (``bounds``)."""
from __future__ import annotations

import numpy as np
import polars as pl

from trunc_accessor.core.columns import _names, check_frame
from trunc_accessor.core.frames import to_polars
from trunc_accessor.engine.bounds import Bound, completed
from trunc_accessor.engine.evaluation import _eager, prepare_call
from trunc_accessor.engine.options import Options, apply_undefined
from trunc_accessor.errors import InputError

DRAW = "draw"


def sample(run, qrels, probabilities, named, options: Options, *, grade: float | None,
           draws: int, seed: int | None, by=None, queries=None) -> pl.DataFrame:
    """Long frame (by…, qid, draw, one column per measure): the measures on ``draws``
    completions of the holes drawn with ``probabilities`` (``seed``: NumPy's generator)."""
    for n in named:
        Bound.of(n.measure, "hi", grade)  # refuses the diversity measures
    labels = [n.label for n in named]
    prep, cols = prepare_call(run, qrels, by=by, queries=queries, ties=options.ties,
                              labels=[*labels, DRAW])
    p = _hole_probabilities(run, probabilities, prep, cols, by, options.ties)
    top = float(prep.max_grade if grade is None else grade)
    rng = np.random.default_rng(seed)
    n_seg, level = prep.n_segments, options.relevance_level
    values = {n.label: np.empty((draws, n_seg)) for n in named}
    for d in range(draws):  # one completion per draw, every ranking at once
        filled = completed(prep, np.where(rng.random(len(p)) < p, top, 0.0), top)
        for n in named:
            values[n.label][d] = n.measure.compute(filled, level) if n_seg else []
    rows = np.tile(np.arange(n_seg), draws)
    return prep.keys[rows].with_columns(
        pl.Series(DRAW, np.repeat(np.arange(draws), n_seg)),
        *(pl.Series(label, apply_undefined(v.ravel(), options.undefined), dtype=pl.Float64)
          for label, v in values.items()))


def _hole_probabilities(run, probabilities, prep, cols, by, ties) -> np.ndarray:
    """The probability of each hole of ``prep`` (in row order), read from the frame
    ``probabilities`` (the qrels' qid and docid columns, and ``p`` in [0, 1])."""
    check_frame(probabilities, "probabilities")
    names = _names(probabilities, "probabilities")
    need = [cols.qrels_qid, cols.qrels_docid, "p"]
    missing = [c for c in need if c not in names]
    if missing:
        raise InputError(f"probabilities lack the columns {missing}: give qid and docid as the "
                         "qrels name them and the probability of relevance as 'p'")
    data = _eager(to_polars(probabilities, need, "probabilities",
                            (cols.qrels_qid, cols.qrels_docid)))
    p = data["p"]
    if not p.dtype.is_numeric() or p.null_count() or not p.is_between(0, 1).all():
        raise InputError("probabilities column 'p' must hold numbers in [0, 1], without "
                         "missing values")
    qids = prep.keys[cols.run_qid].unique(maintain_order=True).to_list()
    pprep, _ = prepare_call(run, data.rename({"p": cols.rel}).cast({cols.rel: pl.Float64}),
                            by=by, queries=qids, ties=ties, quiet=True)
    if not (np.array_equal(pprep.offsets, prep.offsets) and pprep.keys.equals(prep.keys)):
        raise InputError("probabilities: the run's rankings could not be lined up with them")
    holes = np.isnan(prep.grade)
    out = pprep.grade[holes]
    if np.isnan(out).any():
        raise InputError(f"probabilities give no p for {int(np.isnan(out).sum()):,} unjudged "
                         "documents the run retrieved; give each a probability (0: never "
                         "relevant)")
    return out
