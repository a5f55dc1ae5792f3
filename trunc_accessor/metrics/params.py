"""A metric's parameters: ``Param`` (name, default, check, doc) and the checks.

A check takes a value and returns it normalised, or raises a ValueError whose message
starts with "must"; ``checked`` puts the parameter's name in front ("depth must be …") and
raises a ``ParameterError``.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from trunc_accessor.errors import ParameterError

MAX_CUTOFF = 2 ** 53  # cut-offs and depths beyond this are not exact as floats


def is_real(x) -> bool:
    """A real number (not a bool, complex or string)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(
        x, (bool, np.bool_))


def check_k(k):
    """A rank cut-off or depth: None (the whole ranking) or a whole number in [1, 2^53]."""
    if k is None:
        return None
    if not is_real(k) or not math.isfinite(k) or k != int(k):
        raise ValueError(f"must be a whole number ≥ 1 or None, not {k!r}")
    if k < 1:
        raise ValueError(f"must be ≥ 1 (a cut-off of {k} ranks nothing), not {k!r}")
    if k > MAX_CUTOFF:
        raise ValueError(f"must be at most 2**53 (or None for no cut-off), not {k!r}")
    return int(k)


def check_p(p):
    """A probability strictly between 0 and 1, as a normal float (≥ 2.2e-308: a subnormal p
    loses its precision and can overflow what divides by it)."""
    if not is_real(p) or not sys.float_info.min <= p < 1:
        raise ValueError(f"must be a number in the open interval (0, 1), at least "
                         f"{sys.float_info.min:.3g} (a normal float), not {p!r}")
    return float(p)


def check_bool(b):
    if not isinstance(b, (bool, np.bool_)):
        raise ValueError(f"must be True or False, not {b!r}")
    return bool(b)


def check_positive_or_none(x):
    if x is None:
        return None
    if not is_real(x) or not math.isfinite(x) or not x > 0:
        raise ValueError(f"must be a finite number > 0 or None, not {x!r}")
    return float(x)


def check_nonnegative(x):
    """A finite number ≥ 0 (an effort e: 0 gives the metric without effort)."""
    if not is_real(x) or not math.isfinite(x) or x < 0:
        raise ValueError(f"must be a finite number ≥ 0, not {x!r}")
    return float(x)


def check_unit(x):
    """A number in the closed interval [0, 1]."""
    if not is_real(x) or not math.isfinite(x) or not 0 <= x <= 1:
        raise ValueError(f"must be a number in [0, 1], not {x!r}")
    return float(x)


def check_positive(x):
    """A finite number > 0."""
    if not is_real(x) or not math.isfinite(x) or not x > 0:
        raise ValueError(f"must be a finite number > 0, not {x!r}")
    return float(x)


def check_gains(g):
    """nDCG gains: None (gain = grade), "exponential" (2^g − 1), or a mapping grade → gain
    of finite numbers."""
    if g is None or (isinstance(g, str) and g == "exponential"):
        return g
    if isinstance(g, str) and g == "linear":
        return None
    if isinstance(g, Mapping):
        out = {}
        for key, value in g.items():
            try:
                pair = float(key), float(value)
            except (TypeError, ValueError):
                pair = None
            if pair is None or isinstance(key, bool) or isinstance(value, bool) \
                    or not all(math.isfinite(v) for v in pair):
                raise ValueError(f"must map grades to gains, both finite numbers; grade {key!r} "
                                 f"maps to {value!r}")
            out[pair[0]] = pair[1]
        return tuple(sorted(out.items()))
    raise ValueError(f"must be None, 'exponential' or a mapping grade → gain, not {g!r}")



def checked(name: str, check: Callable[[Any], Any], value):
    """``check(value)``, its error message prefixed with the parameter's name."""
    try:
        return check(value)
    except ValueError as e:
        raise ParameterError(f"{name} {e}") from None


@dataclass(frozen=True)
class Param:
    """A parameter of a metric: its ``name``, ``default``, the ``check`` that normalises a
    value (or raises a ValueError starting with "must") and a line of ``doc``."""

    name: str
    default: Any
    check: Callable[[Any], Any]
    doc: str


K = Param("k", None, check_k, "rank cut-off; None = the whole ranking")
P = Param("p", 0.8, check_p, "persistence, the probability of going on to the next rank")
