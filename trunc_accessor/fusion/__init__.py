"""Fusion of runs (metasearch): ``fuse``, ``fit_fusion`` and ``optimize_fusion``.

Every method and normalisation of ranx 0.3.21's ``fuse`` (Bassani & Romelli, "ranx.fuse:
A Python Library for Metasearch", CIKM 2022), computed over all queries at once from
pandas or Polars frames (eager or lazy), answering a run frame (qid, docid, score, rank) of
the caller's library. Methods: ``methods``; normalisations: ``normalization``; what the
trained methods learn: ``learn``; grid search and cross-validation: ``optimize``.

Where this library chooses (ranx leaves it to chance or to the input order):

* **ties**: position-based methods (RRF, ISR, RBC, Borda, the probabilistic ones, the
  ``rank``/``borda`` normalisations) take ``ties=`` as every metric does. ``"average"``
  (default): each tied document gets the mean of its value over the positions its tie
  group occupies, which for these sums is the exact mean of the fused score over every
  order of every tie (``missing="min"`` gives the run's lowest value, the same in every
  order; SegFuse after ``rank``/``borda`` averages its product per position). CombMAX,
  CombMIN and CombMED of ``rank``/``borda`` values are not sums: a tie that changes those
  values is refused under ``"average"`` (the maximum of means is not the mean of maxima);
  ``"first"``: the order as given (``rank`` column, else score
  descending with equal scores in input order); ``"trec_eval"``: equal scores by docid
  descending. ranx breaks ties with an unstable sort and TrecTools by docid, so their
  fused runs depend on the input order.
* **missing documents**: ``missing="method"`` is each method's own rule (ranx's): a run that
  did not retrieve a document adds nothing to its sum and does not count in n (MNZ, ANZ,
  median, …); BordaFuse gives it the mean points left, BayesFuse the log-odds of
  log(0.001/0.999), Condorcet ties it below the run's documents. ``missing="min"`` gives
  it the run's lowest value for that query (Ma et al. 2021's "default minimum" for hybrid
  retrieval, asked of ranx in its issue #32), and it then counts as retrieved.
* the fused ranking orders equal fused scores by docid descending (trec_eval's order),
  so its ``rank`` column, ``ties="first"`` and ``ties="trec_eval"`` agree.
"""
from trunc_accessor.fusion._stack import FUSION_TIES
from trunc_accessor.fusion.methods import METHODS, MISSING
from trunc_accessor.fusion.model import FusionModel, fit_fusion, fuse, normalize
from trunc_accessor.fusion.normalization import NORMS
from trunc_accessor.fusion.optimize import FusionSearch, optimize_fusion

__all__ = ["FUSION_TIES", "METHODS", "MISSING", "NORMS", "FusionModel", "FusionSearch",
           "fit_fusion", "fuse", "normalize", "optimize_fusion"]
