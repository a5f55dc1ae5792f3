"""Metric kernels by family. Importing this package registers every metric."""
from . import (  # noqa: F401  (each registers its metrics)
    cascade,
    compat,
    counts,
    infap,
    information,
    interpolated,
    sets,
    standard,
    terminal,
    trec_only,
    twist,
    utility,
)
