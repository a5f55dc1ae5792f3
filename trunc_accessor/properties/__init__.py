"""The formal-property checker: the seven properties of Amigó, Mizzaro & Spina (SIGIR 2022,
§2) checked for a metric by exhaustive search of a finite space of truncated rankings and
collections (``check``; ``table`` for several metrics, like the paper's Table 1). "holds"
means "no counterexample in the space searched", not a proof. The candidates are scored by
the evaluation engine, so this floor sits above it (``checker``: the API; ``search``: the
candidate spaces and one search per property)."""
from __future__ import annotations

from trunc_accessor.properties.checker import PROPERTIES, check, table

__all__ = ["PROPERTIES", "check", "table"]
