"""A call's options, checked once where the call comes in.

Every way in (the ``.ir`` methods of pandas, Polars eager and lazy, and Dask frames, the
single-ranking functions, ``evaluate_parquet``, the command lines, ``plot_crp``) checks its
options here, once, before any work, and hands the checked ``Options`` down; the engine
and the kernels below take them as given and never check them again. (Fusion's training
checks its own: its tie orders are fusion's, its relevance level goes through the same
``check_level``.) A bad value raises a ``ParameterError`` (``InputError`` for ``names=`` and
``batch_rows=``) naming the option, the values it takes and the value given.

The options and their rules:

* ``ties``: the order of tied scores, one of ``TIES`` ("average", the mean over every
  order of tied documents, McSherry & Najork 2008; "first", the order as given;
  "trec_eval": score descending, docid descending; "trec_eval9": the same with scores
  compared as float32, as trec_eval 9.0.8 and pytrec_eval do);
* ``relevance_level``: a finite number > 0; a grade at or above it is relevant (an
  unjudged document counts as grade 0, so it never is);
* ``undefined``: "zero" (a value the metric leaves undefined, e.g. AP of a query with no
  relevant document, is 0, as trec_eval, pytrec_eval, ir_measures and ranx give it) or
  "nan" (NaN in pandas, null in Polars, left out of means);
* ``judged_only``: True or False (trec_eval ``-J``: documents without a judgment are
  removed before ranking);
* ``like``: None or a peer's preset (``trunc_accessor.engine.presets``), which sets
  ``ties`` and ``undefined`` and refuses values that contradict it;
* ``names`` (``evaluate``'s column names), ``max_depth``/``depth`` (cut-off curves, CRP)
  and ``batch_rows`` (lazy runs) where a call takes them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from trunc_accessor.core.numbers import whole_number
from trunc_accessor.core.prepared import TIES, check_ties
from trunc_accessor.engine import presets
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.metrics.conventions import check_level
from trunc_accessor.metrics.params import check_bool, check_k, checked

__all__ = ["NAMES", "TIES", "UNDEFINED", "Options", "apply_undefined", "check_batch_rows",
           "check_depth", "check_names", "check_undefined", "options"]

UNDEFINED = ("zero", "nan")
NAMES = ("as_written", "canonical")


def check_undefined(undefined) -> str:
    """The ``undefined=`` rule of a call: "zero" (default) or "nan"."""
    if not isinstance(undefined, str) or undefined not in UNDEFINED:
        raise ParameterError(
            f"undefined= must be 'zero' (an undefined value, e.g. AP of a query with no "
            f"relevant document, is 0, as trec_eval, pytrec_eval, ir_measures and ranx give it) "
            f"or 'nan' (NaN in pandas, null in Polars, left out of means), not {undefined!r}")
    return undefined


def apply_undefined(values: np.ndarray, undefined: str) -> np.ndarray:
    """Per-query values with the call's rule for undefined (NaN) values applied."""
    if undefined == "zero":
        return np.nan_to_num(values, nan=0.0, posinf=np.inf, neginf=-np.inf)
    return values


@dataclass(frozen=True)
class Options:
    """The checked options of one call (see the module doc). ``ties`` may also be one of
    the orders only presets ask for (``prepared.PRESET_ORDERS``) when the engine sets it for
    a group of measures; ``like`` is the preset the call named (None: none)."""

    ties: str = "average"
    relevance_level: float = 1.0
    undefined: str = "zero"
    judged_only: bool = False
    like: str | None = None

    def replace(self, **changes) -> Options:
        """These options with some changed (values the engine itself sets, e.g. a preset's
        tie order for a group of measures: not checked again)."""
        return dataclasses.replace(self, **changes)


def options(*, ties=None, relevance_level=1, undefined=None, judged_only=False,
            like=None) -> Options:
    """A call's options, each checked once: ``like`` first, then ``ties`` and
    ``undefined`` against it (None: not given, the preset's or the default), then
    ``relevance_level`` and ``judged_only``."""
    like = presets.check_like(like)
    if ties is not None:
        check_ties(ties)
    ties, undefined = presets.settings(like, ties, undefined)
    return Options(ties=ties, relevance_level=check_level(relevance_level),
                   undefined=check_undefined(undefined),
                   judged_only=checked("judged_only", check_bool, judged_only), like=like)


def check_names(names) -> str:
    """``evaluate``'s ``names=``: "as_written" or "canonical"."""
    if not isinstance(names, str) or names not in NAMES:
        raise InputError(f"names= must be 'as_written' or 'canonical', not {names!r}")
    return names


def check_depth(depth, name: str = "depth") -> int | None:
    """A run length or largest cut-off (``crp``'s ``depth``, ``cutoff_curve``'s
    ``max_depth``): None or a whole number ≥ 1."""
    return checked(name, check_k, depth)


def check_batch_rows(value) -> int:
    """``batch_rows=``: run rows per query batch, a whole number ≥ 1."""
    return whole_number(value, "batch_rows", minimum=1)
