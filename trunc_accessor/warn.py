"""The library's warnings: one base class to filter, and a ``warn`` that points at the caller.

Every warning trunc_accessor emits is a ``TruncAccessorWarning``, so one filter silences
or escalates them all::

    import warnings, trunc_accessor as ta
    warnings.simplefilter("error", ta.TruncAccessorWarning)

The warning's location is the first frame outside trunc_accessor (and outside pandas, Polars,
NumPy and PyArrow, which call back into it from accessors and lazy frames): the user's line.
"""
from __future__ import annotations

import os
import sys
import types
import warnings


class TruncAccessorWarning(UserWarning):
    """Base class of every warning trunc_accessor emits."""


class DroppedQueriesWarning(TruncAccessorWarning):
    """Run queries that are not scored (no judgments, not in ``queries=``) were left out."""


class IdentifierWarning(TruncAccessorWarning):
    """qid/docid values of the run and the qrels look as if they cannot match (different
    types, or a system none of whose retrieved documents is judged)."""


class SubtopicWarning(TruncAccessorWarning):
    """Ad hoc measures evaluated on diversity qrels (several subtopics a query): they read
    each document's largest grade over the subtopics (relevant when relevant to any
    subtopic), or, with ``like="ir_measures"``/``"pytrec_eval"``/``"ranx"``, the grade of its
    last line, as those libraries' qrels dictionaries keep it."""


class AgreementWarning(TruncAccessorWarning):
    """Label agreement between judges: pairs left out because some judge did not label them
    (``missing="drop"``), or a statistic that is undefined (NaN), such as κ of a query where
    the judges used one grade only."""


class UndefinedTieOrderWarning(TruncAccessorWarning):
    """A user-defined per-ranking metric under ``ties="average"`` is undefined (NaN) in some
    orders of a ranking's tied documents and defined in others: the ranking's value, the mean
    over the orders, is undefined (NaN; 0 under ``undefined="zero"``)."""


class EmptyRunWarning(TruncAccessorWarning):
    """The run has no rows (a filter that removed everything?): every query of the qrels
    (and of ``queries=``) is scored as an empty ranking, which most measures score 0."""


class EmptyResultWarning(TruncAccessorWarning):
    """Nothing to score (empty qrels and no ``queries=``, or an empty run with ``by=``): the
    result is empty."""


class InconsistentEstimateWarning(TruncAccessorWarning):
    """An estimator of a sampled pool's measures contradicts itself, as it is defined: NIST's
    sample_eval.pl estimates more relevant documents retrieved by a ranking (inum_rel_ret)
    than relevant documents in all (inum_rel). The values are reproduced as defined."""


def _package_dirs() -> tuple[str, ...]:
    dirs = [os.path.dirname(__file__)]
    for name in ("polars", "pandas", "numpy", "pyarrow"):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None) if module is not None else None
        if path:
            dirs.append(os.path.dirname(path))
    return tuple(d + os.sep for d in dirs)


def stack_level() -> int:
    """The ``stacklevel`` that makes a warning point at the first frame outside this package
    and the frame libraries (counted from the caller of ``warn``)."""
    skip = _package_dirs()
    frame: types.FrameType | None = sys._getframe(1)
    level = 0
    while frame is not None and frame.f_code.co_filename.startswith(skip):
        frame = frame.f_back
        level += 1
    return max(level, 1)


def warn(message: str, category: type[TruncAccessorWarning] = TruncAccessorWarning) -> None:
    """Emit ``message`` as ``category``, located at the user's line."""
    warnings.warn(message, category, stacklevel=stack_level() + 1)
