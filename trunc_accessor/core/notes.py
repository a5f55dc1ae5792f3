"""What one call has to say about its input (dropped qids, identifier mismatches, queries
no system retrieved a judged document for), gathered over every batch or partition of the
call and said once at its end (``Notes``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from trunc_accessor.errors import InputError
from trunc_accessor.warn import DroppedQueriesWarning, EmptyRunWarning, IdentifierWarning, warn


@dataclass(eq=False)
class Notes:
    """What preparation has to tell the user about a call: run rows of
    unscored qids that were dropped, systems none of whose retrieved documents is judged
    (the ids probably do not match), and why the id types differ. A call with one
    preparation says it at once; a call evaluated in query batches (see
    ``trunc_accessor.engine.batches``) gathers it over the batches, which hold disjoint qids,
    and says it once at the end (``finish``), so the warnings and errors are those of
    the whole call."""

    id_note: str = ""
    rows: int = 0
    dropped_rows: int = 0
    dropped_qids: int = 0
    dropped_example: object = None
    scored_example: object = None
    judged_rows: np.ndarray | None = None
    judged_queries: np.ndarray | None = None
    blind_examples: dict = field(default_factory=dict)  # system code → (docid, qid, hints)

    def add_counts(self, judged_rows: np.ndarray, judged_queries: np.ndarray) -> None:
        if self.judged_rows is None:
            self.judged_rows, self.judged_queries = judged_rows, judged_queries
        else:
            self.judged_rows = self.judged_rows + judged_rows
            self.judged_queries = self.judged_queries + judged_queries

    def count_ids(self, seg: np.ndarray, grade: np.ndarray, q_counts: np.ndarray, n_sys: int,
                  run: pl.DataFrame, source: np.ndarray | None) -> None:
        """Count, per system, the judged documents retrieved and the judged queries answered
        (a system with none of the first and some of the second probably uses other ids:
        ``finish`` warns), and keep an example and hints for such a system.
        ``seg``/``grade``: the prepared rows (ranking order, segment = system·Q + q);
        ``q_counts``: the judged documents of each of the Q scored qids; ``source``: the run
        row of each prepared row (None: the same index)."""
        if not len(seg):
            return
        n_q = len(q_counts)
        judged = ~np.isnan(grade)
        judged_rows = (np.array([np.count_nonzero(judged)]) if n_sys == 1
                       else np.bincount(seg[judged] // n_q, minlength=n_sys))
        del judged
        length = np.bincount(seg, minlength=n_sys * n_q)
        answered = (length > 0) & (q_counts[np.arange(n_sys * n_q) % n_q] > 0)
        judged_queries = np.bincount(np.arange(n_sys * n_q) // n_q, weights=answered,
                                     minlength=n_sys)
        self.add_counts(judged_rows, judged_queries)
        for code in np.flatnonzero((judged_rows == 0) & (judged_queries > 0)):  # per system
            if int(code) not in self.blind_examples:
                self.blind_examples[int(code)] = _blind_example(seg, n_q, int(code), run, source)

    def merge(self, other: Notes) -> None:
        """Add the notes of another batch of the same call."""
        self.id_note = other.id_note or self.id_note
        self.rows += other.rows
        self.dropped_rows += other.dropped_rows
        self.dropped_qids += other.dropped_qids
        if self.dropped_example is None:
            self.dropped_example = other.dropped_example
        if self.scored_example is None:
            self.scored_example = other.scored_example
        if other.judged_rows is not None and other.judged_queries is not None:
            self.add_counts(other.judged_rows, other.judged_queries)
        for code, example in other.blind_examples.items():
            self.blind_examples.setdefault(code, example)

    def finish(self, systems: pl.DataFrame | None) -> None:
        """Raise or warn about the whole call (``systems``: the by… keys, row i = code i)."""
        if self.rows == 0 and self.scored_example is not None:
            warn("the run has no rows (did a filter remove everything?): every query of the "
                 "qrels (and of queries=) is scored as an empty ranking, which most measures "
                 "score 0", EmptyRunWarning)
        if self.rows and self.dropped_rows == self.rows:
            raise InputError(
                f"no qid of the run is in the qrels or queries= (run qids such as "
                f"{self.dropped_example!r}; qrels qids such as {self.scored_example!r}): "
                f"check that both name the same topics")
        if self.dropped_rows:
            warn(f"{self.dropped_qids} run qid(s) with no judgments and not in queries= were "
                 f"dropped ({self.dropped_rows} rows), e.g. {self.dropped_example!r}",
                 DroppedQueriesWarning)
        blind = np.zeros(0, dtype=np.int64)
        if self.judged_rows is not None and self.judged_queries is not None:
            blind = np.flatnonzero((self.judged_rows == 0) & (self.judged_queries > 0))
        if not blind.size:
            if self.id_note:
                warn(self.id_note, IdentifierWarning)
            return
        if systems is not None:
            names = [", ".join(f"{k}={v!r}" for k, v in systems.row(int(i), named=True).items())
                     for i in blind[:3]]
            who = "system(s) " + "; ".join(names) + (f" and {blind.size - 3} more"
                                                      if blind.size > 3 else "")
        else:
            who = "the run"
        docid, qid, hints = self.blind_examples[int(blind[0])]
        hints = ([self.id_note.split(":")[0]] if self.id_note else []) + hints
        if not self.id_note:
            hints.append("docid formats that differ between the run and the qrels")
        hints.append("a qrels file for another collection")
        warn(f"{who} retrieved documents for judged queries, but not one of them is in the "
             f"qrels (e.g. docid {docid!r} for qid {qid!r}): every value will be as if "
             f"nothing relevant was found. Likely causes: {'; '.join(hints)}.",
             IdentifierWarning)


def _blind_example(seg: np.ndarray, n_q: int, code: int, run: pl.DataFrame,
                   source: np.ndarray | None) -> tuple:
    """(docid, qid, hints) of the first run row of system ``code``; the hints name what
    its docids look like (leading or trailing whitespace, leading zeros)."""
    rows = np.arange(*np.searchsorted(seg, [code * n_q, (code + 1) * n_q]))
    if source is not None:
        rows = np.sort(source[rows])
    example = run.row(int(rows[0]), named=True)
    docids = run["docid"].gather(pl.Series(rows[:1000]))
    hints = []
    if docids.dtype == pl.String:
        if (docids.str.strip_chars() != docids).any():
            hints.append("docids with leading or trailing whitespace")
        if docids.str.contains(r"^0\d").any():
            hints.append("docids with leading zeros")
    return example["docid"], example["qid"], hints
