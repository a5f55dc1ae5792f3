"""Presets: ``like="trec_eval"`` (``"pytrec_eval"``, ``"ir_measures"``, ``"ranx"``) sets every
option on which that program's numbers depend, so that one argument gives them.

What each program does, and so what its preset sets:

* **trec_eval** (10.0): ranking by score descending, ties by docid descending, scores as
  float64 (``ties="trec_eval"``); an undefined value is 0; every judged query is scored, an
  unanswered one as an empty ranking (its ``-c``); qrels that judge a document twice (the
  Web track's diversity qrels, one line per subtopic) make it stop ("duplicate docs"): the
  preset refuses them for ad hoc measures.
* **pytrec_eval**: trec_eval 9.0.8's order, scores as float32 (``ties="trec_eval9"``);
  undefined 0; it answers only the queries of the run that are judged, so the preset leaves
  out the queries a ranking does not answer (the mean is then pytrec_eval's); its qrels are
  a dict, in which the last line of a document judged twice wins.
* **ir_measures**: each measure in the order of the provider that computes it: pytrec_eval's
  (``"trec_eval9"``) for AP, nDCG, P, R, RR, Rprec, Bpref, Success, Set*, infAP, IPrec, the
  counts; score then docid ascending for RR@k (msmarco), Judged@k, Compat and the diversity
  measures (pyndeval); score then the run's own order for RBP(rel=…), the C/W/L measures
  (cwl_eval), Accuracy and gdeval's ERR and nDCG(dcg='exp-log2'); tie-averaged weights for
  RBP without rel= (trectools). Undefined 0; every judged query gets a value, 0 for every
  measure (NumRel and NumQ too) when the run does not answer it. A document judged
  twice takes its last line's grade (the dictionaries of pytrec_eval, cwl_eval, compat) or,
  for RR@k, is relevant when any line makes it so (msmarco).
* **ranx**: undefined 0, every judged query scored (``make_comparable=True``; ranx itself
  refuses a run that lacks a judged query); a grade below 0 is a judged non-relevant
  document (ranx' bpref counts it; trec_eval's leaves it out as "in the pool, not
  judged"). ranx orders equal scores by an unstable sort
  (NumPy's argsort, reversed), which no option reproduces: the preset keeps ``ties=`` as
  given (default ``"average"``, the mean over every order); without ties in the run, the
  values are ranx's.

A preset is a bundle: ``ties=``/``undefined=`` given with it must agree with it (or, for
ranx' ties, are the user's choice).
"""
from __future__ import annotations

from dataclasses import dataclass

from trunc_accessor.errors import ParameterError

PEERS = ("trec_eval", "pytrec_eval", "ir_measures", "ranx")

# the order of each preset (None: ties= as given; "provider": one per measure)
_TIES = {"trec_eval": "trec_eval", "pytrec_eval": "trec_eval9", "ir_measures": "provider",
         "ranx": None}
# how diversity qrels become ad hoc judgments (frames.adhoc_qrels)
_ADHOC = {None: "largest", "trec_eval": "refuse", "pytrec_eval": "last",
          "ir_measures": "last", "ranx": "last"}

# ir_measures' providers, by the library's metric name
_DOCID_ASCENDING = {"judged", "compat"}  # judged, compat providers (RR@k: msmarco, below)
_INPUT_ORDER = {"inst", "insq", "bpm", "sdcg", "nerr8", "nerr9", "nerr10", "nerr11",
                "accuracy", "err"}  # cwl_eval, accuracy, gdeval


def check_like(like) -> str | None:
    """``like=``: None or one of ``PEERS``."""
    if like is not None and (not isinstance(like, str) or like not in PEERS):
        raise ParameterError(f"like= must be one of {PEERS} or None, not {like!r}")
    return like


def settings(like, ties, undefined) -> tuple[str, str]:
    """The ``ties`` and ``undefined`` of a call with preset ``like`` (None: the defaults,
    "average" and "zero"), given the user's (None: not given); ``like`` and ``ties`` come
    checked (``trunc_accessor.engine.options``). A value given with a preset that sets it
    otherwise is refused, naming both."""
    if like is None:
        return ("average" if ties is None else ties), ("zero" if undefined is None
                                                        else undefined)
    if undefined is not None and undefined != "zero":
        raise ParameterError(f"undefined={undefined!r} contradicts like={like!r}: {like} "
                             "scores an undefined value 0 (leave undefined= out)")
    own = _TIES[like]
    if own is None:
        return ("average" if ties is None else ties), "zero"
    if ties is not None and ties != own:
        what = ("orders each measure as the ir_measures provider that computes it"
                if own == "provider" else f"orders rankings as ties={own!r}")
        raise ParameterError(f"ties={ties!r} contradicts like={like!r}, which {what} "
                             "(leave ties= out)")
    return ("trec_eval9" if own == "provider" else own), "zero"


@dataclass(frozen=True)
class Group:
    """How some measures of one call are computed: the ranking order, how diversity qrels
    become ad hoc judgments, and what a judged query the run does not answer gets:
    "empty" (scored as an empty ranking), "drop" (no value, the query left out) or "zero"
    (0 for every measure, NumRel and NumQ included, as ir_measures fills it in)."""

    ties: str
    adhoc: str = "largest"
    unanswered: str = "empty"
    negative_as_zero: bool = False  # a grade below 0 read as 0 (judged non-relevant)


def _ir_measures_group(measure) -> Group:
    name, kw = measure.metric.name, measure.kwargs
    if measure.metric.subtopics:  # pyndeval
        return Group("score_docid", "largest", "zero")
    if name == "rr" and kw.get("k") is not None:  # msmarco: relevant on any line
        return Group("score_docid", "largest", "zero")
    if name in _DOCID_ASCENDING:
        return Group("score_docid", "last", "zero")
    if name == "trectools_rbp":  # trectools averages the weights of tied documents
        return Group("average", "last", "zero")
    if name in _INPUT_ORDER or (name == "ndcg" and kw.get("gains") == "exponential") \
            or name == "rbp":
        return Group("score_input", "last", "zero")
    return Group("trec_eval9", "last", "zero")


def groups(like, measures, ties: str) -> list[tuple[Group, list]]:
    """The measures of a call (``Measure`` objects) in groups computed alike, in first
    appearance order. ``like`` and ``ties``: the call's, checked (``settings`` gave
    ``ties``)."""
    if like == "ir_measures":
        out: dict[Group, list] = {}
        for m in measures:
            out.setdefault(_ir_measures_group(m), []).append(m)
        return list(out.items())
    unanswered = "drop" if like == "pytrec_eval" else "empty"
    return [(Group(ties, _ADHOC[like], unanswered, like == "ranx"), list(measures))]
