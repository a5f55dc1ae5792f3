"""How other tools name a metric: the pieces of a declaration (``register``) that give its
names in ir_measures' (and PyTerrier's), ranx' and trec_eval's dialects.

``Spelling`` is a name in ir_measures' or ranx' dialect, with the parameters of the metric
that name implies (ir_measures' ``ERR`` is gdeval's, whose grade scale tops at 4) and the
parameter its ``@`` sets. ``TrecName`` is a measure of trec_eval's measure table: how its
parameters are written after the dot (``P.5,10``, ``ndcg.1=3,2=9``), the parameter they
set and its default values.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trunc_accessor.errors import ParameterError

#: trec_eval's default cut-offs (P, recall, ndcg_cut, map_cut, relative_P)
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: trec_eval's default recall levels (iprec_at_recall, 11pt_avg)
LEVELS = tuple(i / 10 for i in range(11))
#: how a measure's per-query values are summarised over queries, as trec_eval does it:
#: their mean; their sum (the counts: num_ret, …); their geometric mean (gm_map, gm_bpref)
SUMMARIES = ("mean", "sum", "gmean")
#: how a trec_eval measure's parameters read after the dot
TREC_KINDS = ("plain", "cutoffs", "levels", "recalls", "gains", "floats", "float", "pairs",
              "int")


@dataclass(frozen=True)
class Spelling:
    """A name of a metric in ir_measures' or ranx' dialect.

    Parameters
    ----------
    name : str
        The name as that library writes it (``"nDCG"``, ``"mrr"``).
    fixed : mapping, optional
        Parameters of the metric the name implies (``{"max_grade": 4}``); stored as sorted
        (name, value) pairs.
    at : str or None, default "k"
        The parameter that ``@`` sets in ir_measures' form (``IPrec@0.1`` sets ``recall``);
        None: the name takes no ``@``. A metric without a parameter of this name takes no
        ``@`` either.
    """

    name: str
    fixed: Any = ()
    at: str | None = "k"

    def __post_init__(self):
        object.__setattr__(self, "fixed", tuple(sorted(dict(self.fixed).items())))


@dataclass(frozen=True)
class TrecName:
    """A measure of trec_eval's measure table that a metric computes.

    Parameters
    ----------
    name : str
        trec_eval's name (``"map"``, ``"P"``, ``"ndcg_cut"``).
    kind : str, default "plain"
        How the parameters after the dot read: "plain" (none), "cutoffs" (cut-offs, each
        printed ``name_k``), "levels" (values printed ``name_x.xx``), "recalls" (a list of
        recall levels), "gains" (``grade=gain`` pairs), "floats" (a fixed number of numbers),
        "float" (one number), "pairs" (``p=…`` and ``grade=gain`` pairs), "int".
    param : str or tuple of str, optional
        The metric's parameter (or parameters, for "floats") that they set.
    default : tuple, default ()
        The values trec_eval uses when the name is given without parameters.
    summary : {"mean", "sum", "gmean"}, optional
        How trec_eval summarises it over queries; None: as the metric's ``aggregate``.
    """

    name: str
    kind: str = "plain"
    param: Any = None
    default: tuple = ()
    summary: str | None = None

    def __post_init__(self):
        if self.kind not in TREC_KINDS:
            raise ParameterError(f"TrecName {self.name!r}: kind must be one of {TREC_KINDS}, "
                             f"not {self.kind!r}")
        if self.summary is not None and self.summary not in SUMMARIES:
            raise ParameterError(f"TrecName {self.name!r}: summary must be one of {SUMMARIES}, "
                             f"not {self.summary!r}")
