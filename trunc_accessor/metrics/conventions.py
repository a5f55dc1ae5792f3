"""The two call-wide conventions every metric follows, whatever its family: which grades
are relevant (``relevance_level``, ``check_level``) and what a value the metric leaves
undefined becomes (``UNDEFINED_RULE``, the sentence every metric's docstring ends its
"Undefined values" section with). A call's options are checked where the call comes in
(``trunc_accessor.engine.options``); a measure's own relevance level (``"P(rel=2)@5"``)
where the measure is named."""
from __future__ import annotations

import math

from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics.params import is_real


def check_level(level) -> float:
    """relevance_level: a finite number > 0. Grades at or above it are relevant; an
    unjudged document counts as grade 0, so it is never relevant."""
    if not is_real(level) or not math.isfinite(level) or level <= 0:
        raise ParameterError(
            f"relevance_level must be a finite number > 0 (grades ≥ it are relevant; unjudged "
            f"documents count as grade 0 and are never relevant), not {level!r}")
    return float(level)


UNDEFINED_RULE = ("An undefined value is 0 by default (``undefined=\"zero\"``), as trec_eval, "
                  "pytrec_eval, ir_measures and ranx give it, so it counts in means; "
                  "``undefined=\"nan\"`` gives NaN (pandas) / null (Polars), left out of means.")
