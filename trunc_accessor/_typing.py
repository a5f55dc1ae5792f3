"""Type aliases of the public signatures.

The library takes pandas and Polars frames alike and answers in the caller's library, so a
frame parameter is one of several types; these aliases name what a parameter or an answer
is for the reader (and for type checkers, which treat the frame libraries' objects as they
find them installed).
"""
from __future__ import annotations

from typing import Any

#: A pandas or Polars DataFrame (a Polars LazyFrame where the function says so): a run, a
#: qrels frame or per-query values.
Frame = Any
#: The answer of a function that answers in the caller's library: a pandas or Polars frame.
Result = Any
#: One metric name in any dialect ("ndcg@10", "P_10", "nDCG@10", an ir_measures object, a
#: (name, params) pair) or a list of them.
Metrics = Any
#: A path, "-" for standard input/output, or an open file object.
Source = Any
#: A matplotlib Axes.
Axes = Any
#: Several runs: one long frame whose system column(s) tell them apart, or a mapping
#: {name: run frame}.
Runs = Any
#: A matplotlib Figure.
Figure = Any
