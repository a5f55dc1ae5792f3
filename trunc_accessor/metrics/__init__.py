"""Metric kernels by family. Importing this package registers every metric."""
from . import cascade, information, standard, terminal, twist, utility  # noqa: F401  (each registers its metrics)
