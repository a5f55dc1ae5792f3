"""One call of the library: frames → validation → preparation → kernels → values.

Frontends (accessors, CLI) check the call's options once (``trunc_accessor.engine.options``),
call ``compute`` (``cutoff_curve``, ``crp``) with them and only convert its answer back to
the caller's frame library; nothing here checks those options again. The keys of every
answer are the user's by… columns (values and dtypes as given, nulls included) and the
run's qid column under its own name. ``evaluate_prepared`` runs the kernels of one
preparation; ``subtopic_warning`` says how ad hoc measures read diversity qrels.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from trunc_accessor.core import columns as _columns
from trunc_accessor.core import frames
from trunc_accessor.core import keys as _keys
from trunc_accessor.core.notes import Notes
from trunc_accessor.core.prepare import prepare
from trunc_accessor.core.prepared import Prepared
from trunc_accessor.engine import presets, truncation
from trunc_accessor.engine.options import Options, apply_undefined
from trunc_accessor.errors import ParameterError
from trunc_accessor.metrics import twist_frames
from trunc_accessor.metrics.registry import Measure, Named
from trunc_accessor.warn import SubtopicWarning, warn

DEFAULT = Options()


def columns_of(run, qrels, by) -> _columns.Columns:
    return _columns.resolve_columns(run, qrels, by)


def run_columns(cols: _columns.Columns) -> list[str]:
    return [*cols.by, cols.run_qid, cols.run_docid, "score"] + (["rank"] if cols.has_rank else []) \
        + ([cols.sample] if cols.sample else [])


def qrels_columns(cols: _columns.Columns) -> list[str]:
    return [cols.qrels_qid, cols.qrels_docid, cols.rel] + [
        c for c in (cols.subtopic, cols.weight, cols.stratum, cols.inclusion) if c]


def _eager(frame):
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


@dataclass(eq=False)
class Batch:
    """What one query batch of a larger call (``trunc_accessor.engine.batches``) shares with
    the whole call: its systems (the by… keys, row i = system code i; None without by=),
    the largest grade of its qrels, and the notes to say at its end."""

    systems: pl.DataFrame | None
    max_grade: float
    notes: Notes = field(default_factory=Notes)
    system_hint: str | None = None  # a run column that probably holds systems (no by=)


def prepare_call(run, qrels, *, by=None, queries=None, ties="average", labels=(),
                 judged_only: bool = False, batch: Batch | None = None,
                 adhoc: str = "largest", negative_as_zero: bool = False,
                 quiet: bool = False) -> tuple[Prepared, _columns.Columns]:
    """Validate and prepare a run and qrels (pandas or Polars, eager or lazy) once.
    ``labels``: the output columns the call adds beside the keys (checked for clashes);
    ``judged_only``: drop unjudged documents before ranking (trec_eval -J); ``batch``:
    the run and qrels are one query batch of a larger call (its ``system_hint`` names a
    column of the whole run that probably holds systems); ``adhoc``: how diversity qrels
    become ad hoc judgments (``frames.adhoc_qrels``); ``negative_as_zero``: a grade below 0
    is read as 0 (ranx' reading); ``quiet``: what the preparation notes (dropped qids,
    identifiers) is not said (a call's further preparation of the same frames);
    ``ties`` (checked, ``options``) may also be one of the orders only presets ask for
    (``prepared.PRESET_ORDERS``)."""
    cols = columns_of(run, qrels, by)
    _columns.check_output_names(cols.by, cols.run_qid, labels)
    r = _eager(frames.to_polars(run, run_columns(cols), "run", (cols.run_qid, cols.run_docid)))
    q = _eager(frames.to_polars(qrels, qrels_columns(cols), "qrels",
                                (cols.qrels_qid, cols.qrels_docid)))
    if negative_as_zero and q.schema[cols.rel].is_numeric():
        q = q.with_columns(pl.when(pl.col(cols.rel) < 0).then(0).otherwise(pl.col(cols.rel))
                           .cast(q.schema[cols.rel]).alias(cols.rel))
    c = frames.normalise(r, q, cols, _keys.queries_series(queries),
                         systems=batch.systems if batch is not None else None, adhoc=adhoc)
    if batch is not None:
        batch.notes.id_note = c.id_note
    systems, queries_, id_note, subtopics = c.systems, c.queries, c.id_note, c.subtopics
    handover, q = [c.run], c.qrels  # prepare frees our copy of the run once it is done with it
    del r, c
    try:
        prep = prepare(handover, q, systems=systems, queries=queries_, id_note=id_note,
                       ties=ties, qid_name=cols.run_qid,
                       judged_only=judged_only, subtopics=subtopics,
                       max_grade=batch.max_grade if batch is not None else None,
                       notes=Notes() if quiet else batch.notes if batch is not None else None)
    except _columns.DuplicateDocumentError as error:
        likely = (batch.system_hint if batch is not None
                  else None if cols.by else _columns.likely_system_column(run, run_columns(cols)))
        if likely is None:
            raise
        raise _columns.DuplicateDocumentError(
            f"{error}; several systems in one frame? pass by={likely!r}") from None
    return prep, cols


def compute(run, qrels, named: list[Named], options: Options = DEFAULT, *, by=None,
            queries=None, batch: Batch | None = None
            ) -> tuple[pl.DataFrame, dict, _columns.Columns]:
    """Per-query values of the ``named`` measures for a run and qrels (pandas or Polars,
    eager or lazy); each distinct measure is computed once, whatever it is called.
    ``options``: the call's, checked (``trunc_accessor.engine.options.options``): its
    ``undefined`` "zero" turns undefined values (NaN from the kernels) into 0, "nan" keeps
    them; with a preset (``like``; ``ties``/``undefined`` are then those the preset gave)
    the measures are computed in groups, one preparation per order the peer uses; with
    "pytrec_eval" the rankings the run does not answer are left out, with "ir_measures"
    they get 0.

    Returns (keys, {label: values}, columns): keys holds the by… columns and the qid."""
    level, judged_only = options.relevance_level, options.judged_only
    measures = [n.measure for n in named if n.measure is not None]
    plan = presets.groups(options.like, measures, options.ties)
    keys, cols, values, answered, read = None, None, {}, None, []
    zero: list[str] = []  # labels whose unanswered queries get 0
    for group, members in plan:
        adhoc = group.adhoc if any(not m.metric.subtopics for m in members) else "largest"
        prep, cols = prepare_call(run, qrels, by=by, queries=queries, ties=group.ties,
                                  labels=[n.label for n in named], judged_only=judged_only,
                                  batch=batch, adhoc=adhoc,
                                  negative_as_zero=group.negative_as_zero,
                                  quiet=keys is not None)
        keys = prep.keys if keys is None else keys
        values.update(evaluate_prepared(prep, members, level, adhoc=None))
        read.append((members, adhoc))
        if group.unanswered != "empty" and answered is None:
            # answered: the run has a row for it (before judged_only removes any)
            answered = (prep if not judged_only else prepare_call(
                run, qrels, by=by, queries=queries, ties=group.ties, batch=batch,
                adhoc=adhoc, negative_as_zero=group.negative_as_zero, quiet=True)[0]).length > 0
        if group.unanswered == "zero":
            zero += [m.label for m in members]
    if read:
        subtopic_warning(prep, read, options.like)
    if keys is None:  # no measure: still validate and key the call
        prep, cols = prepare_call(run, qrels, by=by, queries=queries, ties=options.ties,
                                  labels=[n.label for n in named], judged_only=judged_only,
                                  batch=batch)
        keys = prep.keys
    assert cols is not None
    values = {label: apply_undefined(v, options.undefined) for label, v in values.items()}
    if answered is not None and not answered.all():
        if zero:
            values.update({label: np.where(answered, values[label], 0.0) for label in zero})
        else:  # "drop"
            keys = keys.filter(pl.Series(answered))
            values = {label: v[answered] for label, v in values.items()}
    return keys, {n.label: values[n.measure.label] for n in named
                  if n.measure is not None}, cols


CURVE_COLUMNS = ("depth", "value")
MAX_CRP_ROWS = 1 << 28  # rows of a CRP frame (about 10 GiB): a larger depth= is refused
REFERENCE_COLUMNS = {"crp_full_scale": pl.Float64, "crp_worst": pl.Float64,
                     "recall_base": pl.Int64}


def cutoff_curve(run, qrels, measure: Measure, options: Options = DEFAULT, *,
                 max_depth: int | None = None, by=None, queries=None,
                 batch: Batch | None = None) -> tuple[pl.DataFrame, _columns.Columns]:
    """The measure at every allowed truncation depth of every ranking (long format);
    ``options`` (checked) as in ``compute``, ``max_depth`` checked
    (``options.check_depth``)."""
    prep, cols = prepare_call(run, qrels, by=by, queries=queries, ties=options.ties,
                              labels=CURVE_COLUMNS, batch=batch)
    subtopic_warning(prep, [([measure], "largest")])
    return truncation.curve(prep, measure, options.relevance_level, max_depth,
                            undefined=options.undefined), cols


def crp_columns(kind: str) -> dict:
    """The columns ``crp``/``crp_archetype`` add beside the keys (name → dtype)."""
    if kind == "archetype":
        return twist_frames.ARCHETYPE_SCHEMA
    if kind == "references":
        return {**twist_frames.CRP_SCHEMA, **REFERENCE_COLUMNS}
    return twist_frames.CRP_SCHEMA


def crp(run, qrels, kind: str = "curve", options: Options = DEFAULT, *,
        depth: int | None = None, by=None, queries=None,
        batch: Batch | None = None) -> tuple[pl.DataFrame, _columns.Columns]:
    """Twist's curves (Ferro et al.; ``trunc_accessor.metrics.twist``) as a Polars frame:
    ``kind`` "curve": (by…, qid, position, grade, rp, crp); "references": the same plus
    crp_full_scale, crp_worst and recall_base (for plots); "archetype": one row per ranking
    (by…, qid, archetype, recall_base, length, crossing). ``options`` (checked) as in
    ``compute``; ``depth`` checked (``options.check_depth``)."""
    level = options.relevance_level
    prep, cols = prepare_call(run, qrels, by=by, queries=queries, ties=options.ties,
                              labels=crp_columns(kind), batch=batch)
    subtopic_warning(prep, [(["crp_archetype" if kind == "archetype" else "crp"], "largest")])
    if prep.n_segments == 0:
        return prep.keys.with_columns(
            [pl.Series(name, [], dtype=dtype) for name, dtype in crp_columns(kind).items()]), cols
    if kind == "archetype":
        return twist_frames.archetypes(prep, level, depth), cols
    rows = int(np.maximum(prep.length, depth or 0).sum()) if depth is not None else len(prep.seg)
    if rows > MAX_CRP_ROWS:
        raise ParameterError(
            f"crp: depth={depth} asks for {rows:,} rows ({prep.n_segments:,} rankings, each "
            f"padded to {depth:,} ranks), more than the {MAX_CRP_ROWS:,} a CRP frame may hold "
            "(about 40 bytes a row); pass a smaller depth (the Twist metrics and crp_archetype "
            "take any depth without materialising the padding)")
    return twist_frames.crp_frame(prep, level, depth, references=kind == "references"), cols


ADHOC_READINGS = {
    "largest": "each document's largest grade over the subtopics (relevant to the query when "
               "relevant to any subtopic)",
    "last": "the grade of each document's last line in the qrels, as the dictionaries of "
            "pytrec_eval and ir_measures keep it",
}


# the advice of the warning below in Python; the command line gives its own (cli)
ADHOC_HINT = ("; evaluate(..., like='ir_measures' or 'pytrec_eval') reads the last line's "
              "grade, as those libraries do")


def subtopic_warning(prep: Prepared, parts, like=None) -> None:
    """The ``SubtopicWarning`` of a call whose qrels judge several subtopics a query
    and that asks for ad hoc measures: ``parts`` lists (measures, rule) pairs, one per way
    the call read the diversity qrels (``frames.adhoc_qrels``), a measure given as a
    ``Measure`` or as a name (``"crp"``); ``like``: the call's preset."""
    aspects = getattr(prep, "aspects", None)
    if aspects is None or not aspects.several:
        return
    said = []
    for measures, rule in parts:
        names = sorted({m if isinstance(m, str) else m.label for m in measures
                        if isinstance(m, str) or not m.metric.subtopics})
        if names:
            said.append(f"{', '.join(names)} read {ADHOC_READINGS[rule]}")
    if not said:
        return
    hint = ADHOC_HINT if like is None else ""
    warn(f"the qrels judge several subtopics a query: {'; '.join(said)}{hint}",
         SubtopicWarning)


def evaluate_prepared(prep: Prepared, measures, relevance_level: float = 1.0,
                      adhoc: str | None = "largest") -> dict[str, np.ndarray]:
    """Every measure on one preparation: {label: per-segment values}. ``relevance_level``:
    the call's, checked (``options``); ``adhoc``: how the preparation read diversity qrels
    for ad hoc measures (``frames.adhoc_qrels``), said in the ``SubtopicWarning`` (None:
    the caller says it)."""
    out: dict[str, np.ndarray] = {}
    if adhoc is not None:
        subtopic_warning(prep, [(measures, adhoc)])
    for m in measures:
        if m.label in out:
            continue
        if prep.n_segments == 0:  # nothing to score: no kernel runs
            out[m.label] = np.zeros(0)
            continue
        out[m.label] = np.asarray(m.compute(prep, relevance_level), dtype=np.float64)
    return out
