"""Metric kernels by family, each vectorised over every ranking of a call. Importing this
package registers every metric: :mod:`.standard` (precision, recall, AP, nDCG, RBP, …),
:mod:`.terminal` (Liu et al.'s terminal-document metrics), :mod:`.cascade` (ERR and the
utility metrics of Amigó et al.), :mod:`.information` (OIE), :mod:`.twist` (Ferro et al.),
trec_eval's :mod:`.counts`, :mod:`.sets`, :mod:`.interpolated`, :mod:`.infap`,
:mod:`.trec_only`, :mod:`.compat`, :mod:`.diversity` (α-nDCG, ERR-IA, NRBP, … on subtopic
qrels), and the C/W/L user models and Accuracy of cwl_eval and ir_measures
(:mod:`.user_models`); :mod:`.user` declares metrics of your own. Shared
pieces: :mod:`._order` (tie orders, ranks), :mod:`._combinatorics`, :mod:`._max_ties`."""
from . import (  # noqa: F401  (each registers its metrics)
    cascade,
    compat,
    counts,
    diversity,
    infap,
    information,
    interpolated,
    sets,
    standard,
    terminal,
    trec_only,
    twist,
    user_models,
    utility,
)
