"""Metric kernels by family. Importing this package registers every metric."""
from . import standard  # noqa: F401  (registers the standard metrics)
