"""Z-scores against reference statistics (trec_eval's ``-Z FILE``).

The file holds one line per query and measure: ``qid measure mean stddev`` (blank-separated;
typically the mean and standard deviation of that measure on that query over a reference
set of runs). Each per-query value v of a measure becomes (v − mean) / stddev. A query or
measure the file lacks, or a stddev of 0 with v ≠ mean, gives −1000000 (and v = mean with a
stddev of 0 gives 0), as trec_eval 10.0 does; the summary line then averages (sums, for the
counts) the z-scores, and a geometric-mean measure (``gm_map``, ``gm_bpref``) takes the
z-score of log(max(v, 0.00001)) and prints exp of their mean. The command line prints each
measure's name with a ``Z`` in front and four decimals.
"""
from __future__ import annotations

import math
import os
import re

from trunc_accessor.errors import InputError

MISSING = -1000000.0
MIN_GEO_MEAN = 0.00001
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def read_zscores(path) -> dict[tuple[str, str], tuple[float, float]]:
    """Read a z-score statistics file: ``qid measure mean stddev`` per line.

    Parameters
    ----------
    path : str or path-like
        The file (every line holds four fields; trec_eval's format has no comments).

    Returns
    -------
    dict
        ``{(qid, measure): (mean, stddev)}``.

    Raises
    ------
    InputError
        A line without four fields, a mean or stddev that is not a number, or a query and
        measure given twice; the message names the file and the line.
    """
    where = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            buf = fh.read()
    except OSError as e:
        raise InputError(f"{where}: cannot read the file ({e.strerror or e})") from None
    lines = buf.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        raise InputError(f"{where}: the file is empty")
    out: dict = {}
    first: dict = {}
    for number, line in enumerate(lines, 1):
        f = line.split()
        if len(f) != 4:
            raise InputError(f"{where}, line {number}: a z-score line has 4 fields (qid "
                             f"measure mean stddev), this one has {len(f)}")
        for field, what in ((f[2], "mean"), (f[3], "stddev")):
            if not _NUMBER.fullmatch(field):
                raise InputError(f"{where}, line {number}: {what} "
                                 f"{field.decode(errors='replace')!r} is not a number")
        try:
            key = (f[0].decode(), f[1].decode())
        except UnicodeDecodeError:
            raise InputError(f"{where}, line {number}: not UTF-8 text") from None
        if key in out:
            raise InputError(f"{where}, line {number}: query {key[0]!r}, measure {key[1]!r} "
                             f"again (first on line {first[key]})")
        first[key] = number
        out[key] = (float(f[2]), float(f[3]))
    return out


def zscore(value: float, stats: tuple[float, float] | None) -> float:
    """One value as a z-score against ``(mean, stddev)`` (None: not in the file)."""
    if stats is None:
        return MISSING
    mean, sd = stats
    if sd:
        return (value - mean) / sd
    return 0.0 if value == mean else MISSING


def convert(blocks, named, stats, complete: bool) -> None:
    """Turn the blocks' per-query values into z-scores against ``stats`` (`read_zscores`'
    answer) and recompute their summaries (``complete``: ``-c``, under which trec_eval's
    num_rel summary stays the qrels' count)."""
    scored = [n for n in named if n.measure is not None]
    for b in blocks:
        queries = sorted({q for (_, q) in b.values} | set(b.qids))
        for n in scored:
            column = []
            for q in queries:
                v = b.values[(n.label, q)]
                if n.summary == "gmean":
                    v = math.log(max(v, MIN_GEO_MEAN))
                z = zscore(v, stats.get((q, n.label)))
                b.values[(n.label, q)] = z
                column.append(z)
            if n.label == "num_q" or (n.label == "num_rel" and complete):
                continue  # trec_eval's count of queries, or of the qrels' relevant lines
            total = 0.0
            for z in column:  # trec_eval's order of additions
                total += z
            if n.summary == "sum":
                b.summary[n.label] = total
            elif n.summary == "gmean":
                b.summary[n.label] = math.exp(total / len(column)) if column else 0.0
            else:
                b.summary[n.label] = total / len(column) if column else 0.0


def z_text(value: float) -> str:
    """A z-score as trec_eval -Z prints it: four decimals, ``nan`` when undefined."""
    return "nan" if math.isnan(value) else f"{value:.4f}"
