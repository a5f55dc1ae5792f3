"""The metric methods of the ``.ir`` namespaces, one per built-in metric.

GENERATED from the metric registry by ``python -m trunc_accessor.frontends._codegen``: do not edit by hand.
``Values`` is what a metric method returns in the caller's library (pandas: a Series
indexed by qid; Polars: a DataFrame; a LazyFrame stays lazy; Dask: a Dask Series).
"""
# ruff: noqa: E501
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from trunc_accessor._typing import Frame
from trunc_accessor.frontends.namespace import Namespace, Out, Values


class Accessor(Namespace[Values, Out]):
    """The ``.ir`` methods: the tools of ``Namespace`` and a method per built-in metric."""

    def accuracy(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Pairwise accuracy of the top k: the share of (relevant, non-relevant) pairs among the
            retrieved documents in which the relevant one is ranked first,

                Accuracy@k = 1 − D / (r·u),

            r and u the relevant and non-relevant (unjudged included) documents in the top k and D
            the pairs with the non-relevant one above (ir_measures' Accuracy, a diagnostic of
            learning to rank; it ignores the relevant documents not retrieved). Relevant: grade ≥
            relevance_level (ir_measures' rel).

            >>> from trunc_accessor.frontends.single import accuracy
            >>> accuracy([0, 1, 1, 0])  # pairs (r, u): 2 of 4 in order
            0.5
            >>> accuracy([1, 0], scores=[1, 1])  # one tied pair: in order half the time
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a pair inside a tie group is in order with probability 1/2; when k cuts a tie group that mixes relevant and non-relevant documents, the number of its relevant documents above k is hypergeometric and the value is averaged over it (refused, naming the query, when some of those cases are undefined and others are not).

        Undefined values
        ----------------
        Undefined when the top k holds no relevant document (so whenever R = 0) or no non-relevant one (so for an empty ranking): there is no pair to order. ir_measures leaves out the first case and fails with a division by zero in the second.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        ir_measures' Accuracy (MacAvaney, Macdonald & Ounis, 'Streamlining evaluation with ir-measures', ECIR 2022): the pairwise accuracy of the ranking on its relevant and non-relevant documents."""
        return self._metric("accuracy", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rbp(
        self,
        qrels: Frame,
        p: float = 0.8,
        graded: bool = False,
        max_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Rank-biased precision, (1 − p) Σ_j gain_j · p^(j−1).

            Binary gain by default; ``graded=True``: grade / max_grade. trec_eval's
            ``rbp`` uses p = 0.9 and, for graded qrels, min–max-normalised grades. The weight of
            what is not known is ``rbp_residual``.

            >>> from trunc_accessor.frontends.single import rbp
            >>> rbp([1, 0, 1], p=0.5)  # 0.5 · (1 + 0.25)
            0.625

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.8
            persistence, the probability of going on to the next rank
        graded : default False
            False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade
        max_grade : default None
            the top of the grade scale for graded=True; default: the largest grade in the qrels
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008); a group cut by a cut-off counts the share of its positions inside it.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking and when R = 0.

        References
        ----------
        Moffat & Zobel, 'Rank-biased precision for measurement of retrieval effectiveness', ACM TOIS 27(1), 2008; tie-aware by group-mean gains (McSherry & Najork 2008)."""
        return self._metric("rbp", {"p": p, "graded": graded, "max_grade": max_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def trectools_rbp(
        self,
        qrels: Frame,
        p: float = 0.8,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """RBP with the grades themselves as gains, (1 − p) Σ_j max(grade_j, 0) · p^(j−1): the
            reading of trectools (``TrecEval.get_rbp(binary_topical_relevance=False)``), which is
            ir_measures' ``RBP`` without ``rel=`` (its only provider of it is trectools). Not
            bounded by 1: a grade of 4 gains 4. ``relevance_level`` plays no part. The library's
            ``rbp(graded=True)`` divides each grade by the largest grade of the qrels instead.

            >>> from trunc_accessor.frontends.single import trectools_rbp
            >>> trectools_rbp([2, 0, 1], p=0.5)  # 0.5 · (2 + 0.25 · 1)
            1.125

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.8
            persistence, the probability of going on to the next rank
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every weight p^(j−1) is replaced by its tie group's mean weight, as trectools' average_ties does (the same as group-mean gains).

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking, when R = 0 and when no retrieved document has a grade above 0.

        References
        ----------
        Moffat & Zobel, 'Rank-biased precision for measurement of retrieval effectiveness', ACM TOIS 27(1), 2008; tie-aware by group-mean gains (McSherry & Najork 2008). trectools' TrecEval.get_rbp."""
        return self._metric("trectools_rbp", {"p": p}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rbp_residual(
        self,
        qrels: Frame,
        p: float = 0.8,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """RBP residual: the largest amount RBP could still rise, p^n + (1 − p) Σ_{unjudged j}
            p^(j−1), i.e. the weight of the unjudged documents (not in the qrels, or a negative
            grade: "judged, unknown") and of the unseen tail beyond rank n (Moffat & Zobel §4).

            trec_eval's ``rbp_resid`` uses p = 0.9 and reports 0 for a ranking without unjudged
            documents (the tail p^n is then left out); we always include it. Tie-aware by the
            group-mean of the unjudged indicator. Computed from the tie groups that hold a judged
            document only: the positions between them are all unjudged, and a band of positions
            i + 1 … i + L weighs p^i (1 − p^L) in closed form.

            >>> from trunc_accessor.frontends.single import rbp_residual
            >>> rbp_residual([1, None, 0], p=0.5)  # 0.5^3 + 0.5 · 0.5
            0.375

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.8
            persistence, the probability of going on to the next rank
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the unjudged indicator is replaced by its group's mean.

        Undefined values
        ----------------
        Never undefined: 1 for an empty ranking (all weight unknown); R = 0 changes nothing (only unjudged documents count).

        References
        ----------
        Moffat & Zobel, 'Rank-biased precision for measurement of retrieval effectiveness', ACM TOIS 27(1), 2008; tie-aware by group-mean gains (McSherry & Najork 2008)."""
        return self._metric("rbp_residual", {"p": p}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def precision(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Precision: relevant documents in the first k positions, divided by k.

            P@k = (1/k) Σ_{j≤k} rel_j (trec_eval ``P_k``: a ranking shorter than k still divides
            by k). ``k=None``: the set precision of the whole ranking, rel_ret / n (``set_P``).
            Tie-aware: the cut group contributes (k − t_c)·r_c/n_c (McSherry & Najork §2.1).

            >>> from trunc_accessor.frontends.single import precision
            >>> precision([1, 0, 1, 0], k=2)
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact (McSherry & Najork 2008, §2.1): a tie group cut by the cut-off k contributes (k − t)·r/n relevant documents (t positions before the group, n documents in it, r relevant).

        Undefined values
        ----------------
        With k=None: undefined for an empty ranking (0/0). With k: never undefined (0 for an empty ranking). R = 0 gives 0 (nothing can be relevant).
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008, §2.1."""
        return self._metric("precision", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def recall(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Recall: relevant documents in the first k positions, divided by R.

            R@k = (1/R) Σ_{j≤k} rel_j (trec_eval ``recall_k``; ``k=None``: ``set_recall``).
            Tie-aware as precision (McSherry & Najork §2.2).

            >>> from trunc_accessor.frontends.single import recall
            >>> recall([1, 0, 1, 0], k=2, R=4)
            0.25

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n of its documents (t positions before the group, n documents in it).

        Undefined values
        ----------------
        Undefined when R = 0. An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008, §2.2."""
        return self._metric("recall", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def f1(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """F1: harmonic mean of precision and recall, 2·rel_ret / (k + R).

            McSherry & Najork §2.3's form, defined when R = 0. ``k=None``: the whole ranking,
            2·rel_ret / (n + R), which is trec_eval's ``set_F`` (β = 1).

            >>> from trunc_accessor.frontends.single import f1
            >>> round(f1([1, 0, 1, 0], k=2, R=4), 4)
            0.3333

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n of its documents (t positions before the group, n documents in it).

        Undefined values
        ----------------
        With k=None: undefined when the ranking is empty and R = 0 (0/0). R = 0 otherwise gives 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008, §2.3."""
        return self._metric("f1", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def success(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Success: 1 if a relevant document is in the first k positions, else 0.

            trec_eval ``success_k``; ``k=None``: any relevant document retrieved. Tie-aware: with
            the cut inside tie group c (s = k − t_c slots of n_c, r_c relevant) and no relevant
            document before it, the mean over orders is 1 − C(n_c − r_c, s) / C(n_c, s)
            (hypergeometric: the chance that the s slots hold only non-relevant documents).

            >>> from trunc_accessor.frontends.single import success
            >>> success([0, 1, 1], scores=[2, 1, 1], k=2)  # 1 of the 2 tied docs is at rank 2
            1.0
            >>> success([0, 1, 0], scores=[2, 1, 1], k=2)
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a group of n documents holding r relevant ones, s of whose positions lie within the cut-off, shows one of them with probability 1 − C(n − r, s)/C(n, s).

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking and when R = 0.

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008 (the hypergeometric form is ours, derived as in §2.5)."""
        return self._metric("success", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ap(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Average precision: the mean over the R relevant documents of the precision at their
            positions, retrieved ones within the first k only (trec_eval ``map``, ``map_cut_k``).

            AP@k = (1/R) Σ_{j≤k} rel_j · P@j. Tie-aware (McSherry & Najork §2.4): position j of
            group i contributes (r_i/n_i)·(R_i + (j − t_i − 1)(r_i − 1)/(n_i − 1) + 1)/j, R_i the
            relevant documents before the group.

            >>> from trunc_accessor.frontends.single import ap
            >>> round(ap([1, 0, 1, 0], R=3), 4)  # (1/1 + 2/3) / 3
            0.5556

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, closed form of McSherry & Najork 2008, §2.4: position j of tie group i contributes (r_i/n_i)·(R_i + (j − t_i − 1)(r_i − 1)/(n_i − 1) + 1)/j, R_i the relevant documents before the group.

        Undefined values
        ----------------
        Undefined when R = 0. An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008, §2.4."""
        return self._metric("ap", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rr(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Reciprocal rank of the first relevant document within the first k, else 0
            (trec_eval ``recip_rank``).

            Tie-aware (McSherry & Najork §2.5): if the first group holding relevant documents has
            n documents, r relevant, and starts after t positions, the first relevant one is at
            offset x with probability C(n − x, r − 1)/C(n, r); RR = Σ_x that / (t + x), x ≤ k − t.

            >>> from trunc_accessor.frontends.single import rr
            >>> rr([0, 0, 1])
            0.3333333333333333
            >>> rr([0, 1], scores=[1, 1])  # rank 1 or 2, each half the time
            0.75

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact (McSherry & Najork 2008, §2.5): the first relevant document of a group of n documents holding r relevant ones sits at offset x with probability C(n − x, r − 1)/C(n, r).

        Undefined values
        ----------------
        Never undefined: 0 when no relevant document is retrieved (also R = 0 and the empty ranking), as trec_eval.

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008, §2.5."""
        return self._metric("rr", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rprec(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """R-precision: precision at rank R, the qid's number of relevant documents
            (trec_eval ``Rprec``). Tie-aware as P@k with k = R.

            >>> from trunc_accessor.frontends.single import rprec
            >>> rprec([1, 0, 1, 1], R=3)
            0.6666666666666666

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: precision at k = R, tie-aware as precision@k.

        Undefined values
        ----------------
        Undefined when R = 0. An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008 (R-prec is P@R; tie-aware through §2.1)."""
        return self._metric("rprec", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def bpref(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Binary preference: (1/R) Σ_{relevant retrieved d} (1 − min(N_d, R) / min(R, N)),
            N_d the judged non-relevant documents ranked above d, N those in the qrels
            (trec_eval ``bpref``; unjudged documents and negative grades are skipped, as there).

            Tie-aware: for a relevant document in a group holding u judged non-relevant ones,
            the number of those ranked above it is uniform on 0..u (its place among them is), so
            its expected term is 1 − (1/(u + 1)) Σ_{y=0}^{u} min(A + y, R) / min(R, N), A the judged
            non-relevant documents of earlier groups.

            >>> from trunc_accessor.frontends.single import bpref
            >>> bpref([1, 0, 1], qrels_grades=[1, 0, 1, 0])  # (1 + (1 − 1/2)) / 2
            0.75

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the number of judged non-relevant documents of its own group ahead of a relevant document is uniform on 0..u (u judged non-relevant in the group); the mean of min(N_d, R) has a closed form.

        Undefined values
        ----------------
        Undefined when R = 0. An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        Buckley & Voorhees, 'Retrieval evaluation with incomplete information', SIGIR 2004 (trec_eval's form); tie-aware form derived here."""
        return self._metric("bpref", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rr_prime(
        self,
        qrels: Frame,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """RR': reciprocal rank of the ranking extended by the terminal document.

            If a relevant document is retrieved, RR' = RR; otherwise the terminal document at rank
            n + 1 has gain r_t (1 if R = 0, else 0), so RR' = r_t / (n + 1). Binary relevance.
            Liu Table 1: "00" with R = 0 gives 1/3.

            >>> from trunc_accessor.frontends.single import rr_prime
            >>> round(rr_prime([0, 0], R=0), 3), rr_prime([0, 1, 1], R=3)
            (0.333, 0.5)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        depth : default None
            maximum ranking length allowed: a ranking with n ≥ depth is not truncated and is scored by the unmodified metric (Liu Table 2); None: every ranking is truncated
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: tie-aware RR (McSherry & Najork §2.5) plus the terminal term r_t/(n + 1), which no order changes.

        Undefined values
        ----------------
        Never undefined: defined for the empty ranking and for nil-answer queries (R = 0), where r_t = 1 rewards answering nothing.

        References
        ----------
        Liu, Moffat, Baldwin & Zhang, 'Quit while ahead: evaluating truncated rankings', SIGIR 2016, §2."""
        return self._metric("rr_prime", {"depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rbp_prime(
        self,
        qrels: Frame,
        p: float = 0.8,
        graded: bool = False,
        max_grade: float | None = None,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """RBP' = (1 − p) Σ_{i≤n} r_i p^(i−1) + r_t p^n (Liu eq. 2): the unseen tail beyond the
            ranking is filled with the terminal gain r_t.

            >>> from trunc_accessor.frontends.single import rbp_prime
            >>> round(rbp_prime([1, 1], R=3, p=0.5), 3)  # Liu Table 1
            0.917

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.8
            persistence, the probability of going on to the next rank
        graded : default False
            False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade
        max_grade : default None
            the top of the grade scale for graded=True; default: the largest grade in the qrels
        depth : default None
            maximum ranking length allowed: a ranking with n ≥ depth is not truncated and is scored by the unmodified metric (Liu Table 2); None: every ranking is truncated
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008); a group cut by a cut-off counts the share of its positions inside it. The terminal term r_t·p^n is order-free.

        Undefined values
        ----------------
        Never undefined: defined for the empty ranking and for nil-answer queries (R = 0), where r_t = 1 rewards answering nothing.

        References
        ----------
        Liu, Moffat, Baldwin & Zhang, 'Quit while ahead: evaluating truncated rankings', SIGIR 2016, eq. (2)."""
        return self._metric("rbp_prime", {"p": p, "graded": graded, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ndcg_prime(
        self,
        qrels: Frame,
        graded: bool = False,
        max_grade: float | None = None,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """NDCG' = (DCG@n + r_t / log2(n + 2)) / ideal DCG over n + 1 positions (Liu eq. 3).

            The ideal ranking holds the query's gains sorted descending, and a gain of 1.0 in the
            first zero-gain position when there are fewer than n + 1 positive gains. Binary gains by
            default (Liu's setting); ``graded=True``: grade / max_grade.

            >>> from trunc_accessor.frontends.single import ndcg_prime
            >>> round(ndcg_prime([1, 0, 1], R=3), 3)  # Liu §2 worked example
            0.698

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        graded : default False
            False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade
        max_grade : default None
            the top of the grade scale for graded=True; default: the largest grade in the qrels
        depth : default None
            maximum ranking length allowed: a ranking with n ≥ depth is not truncated and is scored by the unmodified metric (Liu Table 2); None: every ranking is truncated
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008); a group cut by a cut-off counts the share of its positions inside it. The terminal document's gain is order-free.

        Undefined values
        ----------------
        Never undefined: defined for the empty ranking and for nil-answer queries (R = 0), where r_t = 1 rewards answering nothing.

        References
        ----------
        Liu, Moffat, Baldwin & Zhang, 'Quit while ahead: evaluating truncated rankings', SIGIR 2016, eq. (3)."""
        return self._metric("ndcg_prime", {"graded": graded, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ap_prime(
        self,
        qrels: Frame,
        graded: bool = False,
        max_grade: float | None = None,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """AP' = (1/(R + 1)) Σ_{i≤n+1} r_i (Σ_{j≤i} r_j) / i with r_{n+1} = r_t (Liu eq. 4):
            AP of the ranking extended by the terminal document, against a reference of R relevant
            documents plus the terminal one.

            >>> from trunc_accessor.frontends.single import ap_prime
            >>> round(ap_prime([1, 1], R=3), 3)  # Liu Table 1
            0.648

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        graded : default False
            False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade
        max_grade : default None
            the top of the grade scale for graded=True; default: the largest grade in the qrels
        depth : default None
            maximum ranking length allowed: a ranking with n ≥ depth is not truncated and is scored by the unmodified metric (Liu Table 2); None: every ranking is truncated
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: for two positions of a tie group of m documents whose gains sum to G, E[g_j·g_l] = (G² − Σg²)/(m(m − 1)); the terminal term is order-free.

        Undefined values
        ----------------
        Never undefined: defined for the empty ranking and for nil-answer queries (R = 0), where r_t = 1 rewards answering nothing.

        References
        ----------
        Liu, Moffat, Baldwin & Zhang, 'Quit while ahead: evaluating truncated rankings', SIGIR 2016, eq. (4)."""
        return self._metric("ap_prime", {"graded": graded, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def err(
        self,
        qrels: Frame,
        k: int | None = None,
        max_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Expected reciprocal rank: ERR@k = Σ_{i≤k} (1/i) x_i Π_{j<i} (1 − x_j).

            Stopping probability x = (2^g − 1)/2^g_max (Chapelle et al. 2009), g_max the largest
            grade in the whole qrels unless ``max_grade=`` is given; unjudged and negative grades
            give 0, binary qrels 1/2 for a relevant document. The grade alone sets x:
            ``relevance_level`` plays no part. Tie-aware: the exact mean over the orders of each tie
            group (module docstring).

            >>> from trunc_accessor.frontends.single import err
            >>> err([2, 1, 0])  # x = 3/4, 1/4, 0: 3/4 + (1/2)(1/4)(1/4)
            0.78125
            >>> err([1, 0], scores=[1, 1])  # (1/2 + 1/4) / 2 over the two orders
            0.375

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        max_grade : default None
            g_max of the stopping probability (2^g − 1)/2^g_max (and of the graded=True gains); default: the largest grade in the qrels
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the mean over a group's orders depends only on its multiset of stopping probabilities x; the group stops at offset s with probability ē_s − ē_{s+1}, ē_s = e_s(1 − x)/C(m, s) (the mean elementary symmetric polynomials of 1 − x over its m documents), times the probability of passing the earlier groups: a stable O(m·r) recurrence, never an enumeration.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking and for a ranking with no positive grade (e.g. R = 0 with the default relevance_level).

        References
        ----------
        Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded relevance', CIKM 2009 (ERR with R(g) = (2^g − 1)/2^g_max); tie-aware form: exact mean over tie orders through elementary symmetric polynomials of 1 − x (derived here)."""
        return self._metric("err", {"k": k, "max_grade": max_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def err_prime(
        self,
        qrels: Frame,
        graded: bool = False,
        max_grade: float | None = None,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """ERR': ERR of the ranking extended by a terminal document at position n + 1 whose
            stopping probability is r_t (Liu et al. eq. 1):

                ERR' = Σ_{i≤n} (1/i) x_i Π_{j<i}(1 − x_j) + r_t Π_{j≤n}(1 − x_j) / (n + 1),

            r_t = 1 if R = 0, else the gain retrieved over the gain pool R (binary gains by default,
            ``graded=True``: grade / max_grade). ``depth=D``: a ranking with n ≥ D is not truncated
            and scores plain ERR (Liu et al. Table 2). x as in ``err``. Tie-aware: the terminal term does
            not depend on the order.

            >>> from trunc_accessor.frontends.single import err_prime
            >>> round(err_prime([0, 0], R=0), 4)  # the terminal document at rank 3, r_t = 1
            0.3333
            >>> round(err_prime([1, 1], R=3), 4)  # 1/2 + (1/2)(1/4) + (1/3)(2/3)(1/4)
            0.6806

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        graded : default False
            gains for the terminal document's r_t: False: binary (grade ≥ relevance_level); True: grade / max_grade
        max_grade : default None
            g_max of the stopping probability (2^g − 1)/2^g_max (and of the graded=True gains); default: the largest grade in the qrels
        depth : default None
            maximum ranking length allowed: a ranking with n ≥ depth is not truncated and is scored by the unmodified metric (Liu Table 2); None: every ranking is truncated
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the mean over a group's orders depends only on its multiset of stopping probabilities x; the group stops at offset s with probability ē_s − ē_{s+1}, ē_s = e_s(1 − x)/C(m, s) (the mean elementary symmetric polynomials of 1 − x over its m documents), times the probability of passing the earlier groups: a stable O(m·r) recurrence, never an enumeration. The terminal term is order-free.

        Undefined values
        ----------------
        Never undefined: the empty ranking scores r_t (1 if R = 0, else 0); a nil-answer query (R = 0) gives r_t = 1.

        References
        ----------
        Liu, Moffat, Baldwin & Zhang, 'Quit while ahead: evaluating truncated rankings', SIGIR 2016, eq. (1) (the terminal document, applied to ERR as its (n + 1)-th stopping probability); Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded relevance', CIKM 2009; tie-aware form: exact mean over tie orders through elementary symmetric polynomials of 1 − x (derived here)."""
        return self._metric("err_prime", {"graded": graded, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rbu(
        self,
        qrels: Frame,
        p: float = 0.8,
        e: float = 0.05,
        max_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Rank-biased utility: RBU = (1 − p) Σ_{i≤n} p^(i−1) (x_i Π_{j<i}(1 − x_j) − e).

            Amigó, Mizzaro & Spina 2022, §3.3: an ERR-like gain under RBP's patience p, minus the
            effort e of every document inspected, discounted like the gain; the effort part is
            −e(1 − p^n). x as in ``err``. Equals the single-aspect RBU of the RBU authors'
            reference implementation (jCarrilloDeAlbornoz/RBU; unjudged documents cost effort too).

            >>> from trunc_accessor.frontends.single import rbu
            >>> rbu([1, 2, None], qrels_grades=[2, 1, 0], p=0.5, e=0.0)  # the RBU authors' value
            0.265625
            >>> round(rbu([1, 2, None], qrels_grades=[2, 1, 0], p=0.8, e=0.03), 5)
            0.12536

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.8
            persistence, the probability of going on to the next rank
        e : default 0.05
            effort: the cost of inspecting one document, in units of the gain of a document that surely satisfies the user (Amigó et al. use 1/20)
        max_grade : default None
            g_max of the stopping probability (2^g − 1)/2^g_max (and of the graded=True gains); default: the largest grade in the qrels
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the mean over a group's orders depends only on its multiset of stopping probabilities x; the group stops at offset s with probability ē_s − ē_{s+1}, ē_s = e_s(1 − x)/C(m, s) (the mean elementary symmetric polynomials of 1 − x over its m documents), times the probability of passing the earlier groups: a stable O(m·r) recurrence, never an enumeration.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking; −e(1 − p^n) when nothing retrieved has a positive grade (e.g. R = 0 with the default relevance_level).

        References
        ----------
        Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better and How to Measure That', SIGIR 2022, §3.3 (RBU); the effort per inspected document as there; tie-aware form: exact mean over tie orders through elementary symmetric polynomials of 1 − x (derived here)."""
        return self._metric("rbu", {"p": p, "e": e, "max_grade": max_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def erru(
        self,
        qrels: Frame,
        e: float = 0.05,
        max_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """ERR with effort: ERRU = Σ_{i≤n} (1/i) (x_i Π_{j<i}(1 − x_j) − e) = ERR − e·H_n.

            Amigó, Mizzaro & Spina 2022, §3.3: every inspected document costs e, discounted by 1/i
            like the gain. x as in ``err``.

            >>> from trunc_accessor.frontends.single import erru
            >>> round(erru([1, 2, None], qrels_grades=[2, 1, 0]), 6)  # 0.2 + 0.25625 − 0.05/3
            0.439583

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        e : default 0.05
            effort: the cost of inspecting one document, in units of the gain of a document that surely satisfies the user (Amigó et al. use 1/20)
        max_grade : default None
            g_max of the stopping probability (2^g − 1)/2^g_max (and of the graded=True gains); default: the largest grade in the qrels
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the mean over a group's orders depends only on its multiset of stopping probabilities x; the group stops at offset s with probability ē_s − ē_{s+1}, ē_s = e_s(1 − x)/C(m, s) (the mean elementary symmetric polynomials of 1 − x over its m documents), times the probability of passing the earlier groups: a stable O(m·r) recurrence, never an enumeration.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking; −e·H_n (H_n = Σ_{i≤n} 1/i) when nothing retrieved has a positive grade (e.g. R = 0 with the default relevance_level).

        References
        ----------
        Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better and How to Measure That', SIGIR 2022, §3.3 (ERRU); Chapelle, Metzler, Zhang & Grinspan, 'Expected reciprocal rank for graded relevance', CIKM 2009; tie-aware form: exact mean over tie orders through elementary symmetric polynomials of 1 − x (derived here)."""
        return self._metric("erru", {"e": e, "max_grade": max_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def compat(
        self,
        qrels: Frame,
        p: float = 0.95,
        normalize: bool = True,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Compatibility: rank-biased overlap of the ranking with the ideal ranking most like it,
            normalised by the ideal ranking's own (ir_measures ``Compat(p, normalize)``).

            The ideal ranking holds the relevant documents (grade ≥ relevance_level) by grade
            descending, equal grades in the ranking's order and unretrieved ones last. RBO sums
            p^(i−1)·|S[:i] ∩ I[:i]|/i to depth max(n, R); ``normalize=True`` divides it by RBO(I, I),
            so that the ideal ranking scores 1 however short it is; ``normalize=False`` is RBO
            itself (Σ weights = 1 over the depth). Tie-aware: the exact mean over the orders of tied
            documents (module doc). ir_measures counts grade > 0 as relevant: the same with the
            default relevance_level on integer grades.

            >>> from trunc_accessor.frontends.single import compat
            >>> compat([2, 1, 0]), round(compat([1, 2, 0]), 4)  # O = 0, 2, 2 against 1, 2, 2
            (1.0, 0.6081)
            >>> round(compat([0, 1], R=1, p=0.5, normalize=False), 4)  # (0 + 0.5·1/2) / 1.5
            0.1667

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.95
            RBO persistence (0.95, the authors' default, is roughly NSCG@20)
        normalize : default True
            divide by the ideal ranking's own RBO (Clarke et al. 2021)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact mean over the orders of tied documents (the docstring states how).

        Undefined values
        ----------------
        Undefined when R = 0: there is no ideal ranking (the authors' script skips such queries; ir_measures reports 0). An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        Clarke, Vtyurina & Smucker, 'Assessing top-k preferences', ACM TOIS 39(3), 2021 (normalisation); Clarke, Smucker & Vtyurina, 'Offline evaluation by maximum similarity to an ideal ranking', CIKM 2020; ir_measures' Compat (compat_provider.py)."""
        return self._metric("compat", {"p": p, "normalize": normalize}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def num_ret(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Number of retrieved documents n (trec_eval ``num_ret``; trec_eval sums it over
            queries in its summary line).

            >>> from trunc_accessor.frontends.single import num_ret
            >>> num_ret([1, 0, None])
            3.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking; R = 0 changes nothing.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_num_ret.c."""
        return self._metric("num_ret", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def num_q(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Number of queries: 1 per scored query, so that its sum over queries (trec_eval's
            ``num_q`` summary, what ``aggregate`` gives for this column) counts them; an empty
            ranking and a query with R = 0 count too.

            >>> from trunc_accessor.frontends.single import num_q
            >>> num_q([1, 0])
            1.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Never undefined: 1 for every scored query, an empty ranking and R = 0 included.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_num_q.c."""
        return self._metric("num_q", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def num_rel(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Number of relevant documents R: the query's judged documents with grade ≥
            relevance_level, retrieved or not (trec_eval ``num_rel``).

            >>> from trunc_accessor.frontends.single import num_rel
            >>> num_rel([1, 0], qrels_grades=[1, 0, 2, 3], relevance_level=2)
            2.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Never undefined: 0 when R = 0; an empty ranking has the R of its query.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_num_rel.c."""
        return self._metric("num_rel", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def num_rel_ret(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Number of relevant documents retrieved, within the first k if given (trec_eval
            ``num_rel_ret``; with k, ranx's ``hits@k``). Tie-aware: the group cut at k contributes
            its expected number of relevant documents.

            >>> from trunc_accessor.frontends.single import num_rel_ret
            >>> num_rel_ret([1, 0, 2, None], R=5), num_rel_ret([1, 0, 2, None], k=2)
            (2.0, 1.0)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n of its documents (t positions before the group, n documents in it).

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking and when R = 0.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_num_rel_ret.c; with k, ranx's hits@k, tie-aware as P@k (McSherry & Najork, ECIR 2008, §2.1)."""
        return self._metric("num_rel_ret", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def num_nonrel_judged_ret(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Number of judged non-relevant documents retrieved: grade ≥ 0 and < relevance_level
            (trec_eval ``num_nonrel_judged_ret``; unjudged documents and negative grades, trec_eval's
            "pooled but unjudged", are not counted).

            >>> from trunc_accessor.frontends.single import num_nonrel_judged_ret
            >>> num_nonrel_judged_ret([1, 0, None, -1, 0])
            2.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking; R = 0 changes nothing.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_num_nonrel_judged_ret.c."""
        return self._metric("num_nonrel_judged_ret", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def judged(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Judgment rate: the fraction of the first k retrieved documents that the qrels judge.

            As ir_measures' ``Judged@k``: the judged documents among the first k, divided by
            min(k, n) (not by k: a ranking shorter than k is judged on the documents it has; trec_eval's
            ``unj_k``, ``unjudged``, divides by k instead). ``k=None``: the whole ranking. A
            document counts as judged if the qrels list it, whatever its grade (a negative grade
            too). Does not depend on relevance_level. Tie-aware: the group cut at k contributes its
            mean.

            >>> from trunc_accessor.frontends.single import judged
            >>> judged([1, None, 0, None], k=2), judged([1, None, 0], k=10)
            (0.5, 0.6666666666666666)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n of its documents (t positions before the group, n documents in it).

        Undefined values
        ----------------
        Undefined for an empty ranking (0/0). R = 0 changes nothing.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        ir_measures' Judged@k (MacAvaney et al., github.com/terrierteam/ir_measures, judged_provider.py, from OpenNIR); tie-aware as P@k (McSherry & Najork, ECIR 2008, §2.1)."""
        return self._metric("judged", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def unjudged(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Unjudged rate at k, trec_eval's ``unj_k``: the retrieved documents among the first k
            that are not in the qrels or have a negative grade (trec_eval's "in the pool but
            unjudged"), divided by k.

            A ranking shorter than k is padded with judged documents (trec_eval: "it is assumed
            irrelevant (not unjudged) docs fill in the rest"), so unjudged@k + judged@k = 1 only when
            n ≥ k and no grade is negative. ``k=None``: divided by n. Tie-aware: the group cut at k
            contributes its mean.

            >>> from trunc_accessor.frontends.single import unjudged
            >>> unjudged([1, None, -1, 0], k=5)
            0.4

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n of its documents (t positions before the group, n documents in it).

        Undefined values
        ----------------
        With k: never undefined (0 for an empty ranking). With k=None: undefined for an empty ranking (0/0). R = 0 changes nothing.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_unjudged.c (unj_k); tie-aware as P@k (McSherry & Najork, ECIR 2008, §2.1)."""
        return self._metric("unjudged", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def dcg(
        self,
        qrels: Frame,
        k: int | None = None,
        gains: str | Mapping[float, float] | None = None,
        log_base: float = 2.0,
        min_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Discounted cumulative gain, Σ_{j≤k} gain_j / log_b(1 + j) (b = ``log_base``, 2).

            Gains: by default the grade (trec_eval's convention; negative and unjudged: 0);
            ``gains="exponential"`` (or ``"exp"``) is 2^g − 1 (Burges et al. 2005; ranx's ``dcg_burges``).
            The discount 1/log_b(1 + j) is scikit-learn's ``dcg_score(log_base=b)``; a base b multiplies DCG
            by log2(b) (Järvelin & Kekäläinen's original form instead leaves ranks below b
            undiscounted and divides by log_b(j) from rank b on). Tie-aware: each position of a tie
            group gets the group's mean gain (McSherry & Najork §2.6), which is scikit-learn's
            ``dcg_score(ignore_ties=False)``.

            >>> from trunc_accessor.frontends.single import dcg
            >>> round(dcg([3, 2, 0, 1]), 4), round(dcg([3, 2, 0, 1], gains="exp", log_base=10), 4)
            (4.6925, 30.9719)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        gains : default None
            None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 (Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain
        log_base : default 2.0
            base b of the discount 1/log_b(1 + i) (scikit-learn's log_base); it cancels in nDCG
        min_grade : default None
            grades below it gain 0 (ranx's relevance level: ndcg@10-l2); None: every positive grade gains, whatever relevance_level is (trec_eval)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008); a group cut by a cut-off counts the share of its positions inside it. (= scikit-learn's tie-averaged dcg_score)

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking, and 0 when no judged document has a positive gain (e.g. R = 0).

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008, §2.6 (tie-aware DCG); Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', ACM TOIS 20(4), 2002 (graded gains, log-based discount); Burges et al., 'Learning to rank using gradient descent', ICML 2005 (gains 2^g − 1)."""
        return self._metric("dcg", {"k": k, "gains": gains, "log_base": log_base, "min_grade": min_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ndcg(
        self,
        qrels: Frame,
        k: int | None = None,
        gains: str | Mapping[float, float] | None = None,
        log_base: float = 2.0,
        min_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Normalised DCG: DCG@k divided by the DCG@k of the ideal ranking of the qid's judged
            documents (trec_eval ``ndcg``, ``ndcg_cut_k``; gains default to the grade and do not
            depend on relevance_level, as in trec_eval; ``min_grade=N`` gives grades below N no
            gain, as ranx's ``ndcg@k-lN``).

            ``gains="exponential"`` (or ``"exp"``): 2^g − 1, ranx's ``ndcg_burges`` (Burges et al.
            2005). ``log_base`` scales the DCG of the ranking and of the ideal ranking alike, so it
            cancels (values equal to rounding); it is accepted for scikit-learn's ``ndcg_score``
            spelling.

            >>> from trunc_accessor.frontends.single import ndcg
            >>> round(ndcg([3, 2, 0, 1]), 4), round(ndcg([3, 2, 0, 1], gains="exp"), 4)
            (0.9854, 0.9926)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        gains : default None
            None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 (Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain
        log_base : default 2.0
            base b of the discount 1/log_b(1 + i) (scikit-learn's log_base); it cancels in nDCG
        min_grade : default None
            grades below it gain 0 (ranx's relevance level: ndcg@10-l2); None: every positive grade gains, whatever relevance_level is (trec_eval)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008); a group cut by a cut-off counts the share of its positions inside it.

        Undefined values
        ----------------
        Undefined when the ideal DCG is 0 (no judged document with positive gain, e.g. R = 0). An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        McSherry & Najork, 'Computing IR performance measures efficiently in the presence of tied scores', ECIR 2008, §2.6; Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', ACM TOIS 20(4), 2002 (graded gains, log-based discount); Burges et al., 'Learning to rank using gradient descent', ICML 2005 (gains 2^g − 1)."""
        return self._metric("ndcg", {"k": k, "gains": gains, "log_base": log_base, "min_grade": min_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def alpha_ndcg(
        self,
        qrels: Frame,
        k: int | None = None,
        alpha: float = 0.5,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """α-nDCG@k: α-DCG of the ranking over α-DCG of the greedy ideal ranking of the judged
            documents (Clarke et al., SIGIR 2008, §4; ndeval's normalisation).

            α-DCG@k = Σ_{i≤k} g(i)/log2(1 + i), g(i) = Σ_s J(d_i, s)(1 − α)^{c_s(i)} (c_s(i): documents
            relevant to subtopic s above i). The ideal is built greedily, largest g first, ties to the
            largest docid, as ndeval does. ``k=None``: the whole ranking.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
            >>> round(float(run.ir.alpha_ndcg(qrels, k=2).iloc[0]), 4)
            0.8406

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        alpha : default 0.5
            redundancy penalty α in [0, 1]: each earlier document relevant to a subtopic multiplies its gain by (1 − α) (ndeval's default 0.5)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact mean over tie orders: per tie group and subtopic, a sum over the group's positions and its documents relevant to the subtopic (hypergeometric order statistics); no refusal.

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0; the ideal ranking gains nothing); an empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        C. L. A. Clarke, M. Kolla, G. V. Cormack, O. Vechtomova, A. Ashkan, S. Büttcher and I. MacKinnon. Novelty and diversity in information retrieval evaluation. SIGIR 2008, eq. 5-6; normalisation by ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)'s greedy ideal."""
        return self._metric("alpha_ndcg", {"k": k, "alpha": alpha}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def alpha_dcg(
        self,
        qrels: Frame,
        k: int | None = None,
        alpha: float = 0.5,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """α-DCG@k divided by its ideal-ideal bound Σ_{i≤k} S(1 − α)^{i−1}/log2(1 + i), the value
            of a ranking relevant to all S subtopics at every position (ndeval's α-DCG column;
            collection-independent). ``k=None``: the bound at the ranking's length.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
            >>> round(float(run.ir.alpha_dcg(qrels, k=2).iloc[0]), 4)
            0.8801

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        alpha : default 0.5
            redundancy penalty α in [0, 1]: each earlier document relevant to a subtopic multiplies its gain by (1 − α) (ndeval's default 0.5)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact mean over tie orders: per tie group and subtopic, a sum over the group's positions and its documents relevant to the subtopic (hypergeometric order statistics); no refusal.

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0: no document relevant to any subtopic); an empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        C. L. A. Clarke, M. Kolla, G. V. Cormack, O. Vechtomova, A. Ashkan, S. Büttcher and I. MacKinnon. Novelty and diversity in information retrieval evaluation. SIGIR 2008, eq. 5; normalisation by the ideal-ideal bound of ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)"""
        return self._metric("alpha_dcg", {"k": k, "alpha": alpha}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def err_ia(
        self,
        qrels: Frame,
        k: int | None = None,
        alpha: float = 0.5,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """ERR-IA@k as ndeval computes it: Σ_{i≤k} g(i)/i over its ideal-ideal bound
            Σ_{i≤k} S(1 − α)^{i−1}/i, with g(i) the novelty-discounted gain (module docstring): the
            intent-aware ERR of Chapelle et al. with binary grades, stopping probability α, uniform
            subtopic weights. (ndeval leaves ERR-IA@1 and α-DCG@1 undivided by the bound; here every
            k is divided.)

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
            >>> round(float(run.ir.err_ia(qrels, k=2).iloc[0]), 4)
            0.9

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        alpha : default 0.5
            redundancy penalty α in [0, 1]: each earlier document relevant to a subtopic multiplies its gain by (1 − α) (ndeval's default 0.5)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact mean over tie orders: per tie group and subtopic, a sum over the group's positions and its documents relevant to the subtopic (hypergeometric order statistics); no refusal.

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0: no document relevant to any subtopic); an empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan. Expected reciprocal rank for graded relevance. CIKM 2009, §5 (intent-aware ERR); ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)'s form and ideal-ideal normalisation."""
        return self._metric("err_ia", {"k": k, "alpha": alpha}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def nerr_ia(
        self,
        qrels: Frame,
        k: int | None = None,
        alpha: float = 0.5,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """nERR-IA@k: ERR-IA of the ranking over ERR-IA of ndeval's greedy ideal ranking (the
            α-nDCG ideal; collection-dependent).

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
            >>> round(float(run.ir.nerr_ia(qrels, k=2).iloc[0]), 4)
            0.7778

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        alpha : default 0.5
            redundancy penalty α in [0, 1]: each earlier document relevant to a subtopic multiplies its gain by (1 − α) (ndeval's default 0.5)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact mean over tie orders: per tie group and subtopic, a sum over the group's positions and its documents relevant to the subtopic (hypergeometric order statistics); no refusal.

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0; the ideal ranking gains nothing); an empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan. Expected reciprocal rank for graded relevance. CIKM 2009, §5; ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)'s greedy-ideal normalisation."""
        return self._metric("nerr_ia", {"k": k, "alpha": alpha}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def nrbp(
        self,
        qrels: Frame,
        alpha: float = 0.5,
        beta: float = 0.5,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Novelty- and rank-biased precision: (1 − (1 − α)β)/S · Σ_i β^{i−1} g(i) over the whole
            ranking (Clarke, Kolla & Vechtomova, ICTIR 2009); 1 for a ranking relevant to every
            subtopic at every position, forever.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b"], "score": [2.0, 1.0]})
            >>> float(run.ir.nrbp(qrels).iloc[0])
            0.84375

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        alpha : default 0.5
            redundancy penalty α in [0, 1]: each earlier document relevant to a subtopic multiplies its gain by (1 − α) (ndeval's default 0.5)
        beta : default 0.5
            patience β in [0, 1] of NRBP: the weight of position i is β^(i−1) (ndeval's default 0.5)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact mean over tie orders: per tie group and subtopic, a sum over the group's positions and its documents relevant to the subtopic (hypergeometric order statistics); no refusal.

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0: no document relevant to any subtopic); an empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        C. L. A. Clarke, M. Kolla and O. Vechtomova. An effectiveness measure for ambiguous and underspecified queries. ICTIR 2009, eq. 6; ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)."""
        return self._metric("nrbp", {"alpha": alpha, "beta": beta}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def nnrbp(
        self,
        qrels: Frame,
        alpha: float = 0.5,
        beta: float = 0.5,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """NRBP of the ranking over NRBP of ndeval's greedy ideal ranking.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
            >>> round(float(run.ir.nnrbp(qrels).iloc[0]), 4)
            0.7778

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        alpha : default 0.5
            redundancy penalty α in [0, 1]: each earlier document relevant to a subtopic multiplies its gain by (1 − α) (ndeval's default 0.5)
        beta : default 0.5
            patience β in [0, 1] of NRBP: the weight of position i is β^(i−1) (ndeval's default 0.5)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact mean over tie orders: per tie group and subtopic, a sum over the group's positions and its documents relevant to the subtopic (hypergeometric order statistics); no refusal.

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0; the ideal ranking gains nothing); an empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        C. L. A. Clarke, M. Kolla and O. Vechtomova. An effectiveness measure for ambiguous and underspecified queries. ICTIR 2009; ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)'s greedy-ideal normalisation."""
        return self._metric("nnrbp", {"alpha": alpha, "beta": beta}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def p_ia(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Intent-aware precision@k: (1/S) Σ_s P@k for subtopic s = the relevant (document,
            subtopic) pairs in the first k positions over k·S (a ranking shorter than k still
            divides by k; ``k=None``: by its length).

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "c"], "score": [2.0, 1.0]})
            >>> float(run.ir.p_ia(qrels, k=2).iloc[0])
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, as precision@k: a tie group cut by k counts the share (k − t)/n of it.

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0: no document relevant to any subtopic); an empty ranking scores 0. With k=None also for an empty ranking (0/0).
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        R. Agrawal, S. Gollapudi, A. Halverson and S. Ieong. Diversifying search results. WSDM 2009, §6 (intent-aware precision, uniform subtopic weights); ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)."""
        return self._metric("p_ia", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def s_recall(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Subtopic recall@k: the share of the query's S subtopics with a relevant document in
            the first k positions (Zhai, Cohen & Lafferty, SIGIR 2003; ndeval's ``strec``).

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
            >>> float(run.ir.s_recall(qrels, k=1).iloc[0])
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a subtopic first met in a tie group cut by k (n documents, t before it, m of them relevant to it) is covered with probability 1 − C(n − m, k − t)/C(n, k − t).

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0: no document relevant to any subtopic); an empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        C. Zhai, W. W. Cohen and J. Lafferty. Beyond independent relevance: methods and evaluation metrics for subtopic retrieval. SIGIR 2003, §3 (S-recall); ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)."""
        return self._metric("s_recall", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def map_ia(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Intent-aware average precision: the mean over the query's S subtopics of the AP of
            the ranking with relevance to that subtopic (R_s = the judged documents relevant to s).

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "subtopic": [1, 2, 1], "docid": ["a", "a", "b"],
            ...                       "rel": 1})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["b", "a"], "score": [2.0, 1.0]})
            >>> float(run.ir.map_ia(qrels).iloc[0])
            0.75

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact (McSherry & Najork, ECIR 2008, §2.4, per subtopic): a tie group of n documents, t before it, k relevant to s and c earlier ones, adds (k/n) Σ_{j=t+1}^{t+n} (c + 1 + (j − t − 1)(k − 1)/(n − 1))/j.

        Undefined values
        ----------------
        Undefined (NaN) when the query has no subtopic with a relevant document (S = 0, as for R = 0: no document relevant to any subtopic); an empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        R. Agrawal, S. Gollapudi, A. Halverson and S. Ieong. Diversifying search results. WSDM 2009, §6 (intent-aware MAP, uniform subtopic weights); ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)."""
        return self._metric("map_ia", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ee_d(
        self,
        qrels: Frame,
        model: str = "gerr",
        p: float = 0.5,
        u: float = 0.5,
        complete: bool = False,
        normalize: bool = True,
        binarize: bool = False,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Expected exposure disparity EE-D = ‖ε‖² (Diaz et al. 2020, eq. 4): the squared norm of
            the vector of the documents' expected exposures ε under the user model; lower is more
            equal. Normalised (default) as expeval does: incomplete judgments
            EE-D/Σ_i p^(2i) = EE-D·(1 − p²); complete judgments over n candidates between
            (Σ_{i<n} d^i)²/n (uniformly random ranking) and Σ_{i<n} p^(2i) (a static one), d = p
            (RBP) or p·u (GERR, as expeval writes it).

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abc"), "rel": [2, 1, 0]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abc"), "score": [3, 2, 1]})
            >>> round(float(run.ir.ee_d(qrels, model="rbp", normalize=False).iloc[0]), 4)
            1.3125

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        model : default 'gerr'
            user model: 'gerr' (p^i·(1 − u)^(relevant above)) or 'rbp' (p^i)
        p : default 0.5
            patience: the probability of going on to the next rank (expeval's -p, default 0.5)
        u : default 0.5
            GERR's utility: the probability of stopping after a relevant document (expeval's -r, default 0.5)
        complete : default False
            True: every judged document is a candidate (expeval -C, reranking); False: the relevant documents of an unbounded collection
        normalize : default True
            True: (value − lower bound)/(upper − lower), expeval's bounds (expeval's default; -U: False)
        binarize : default False
            True: every relevant grade is one level (expeval -B)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a tie group is a uniformly random order of its documents and each gets its expected exposure over those orders (RBP; GERR when the group's documents are all relevant or all not). GERR refuses a tie of relevant and non-relevant documents.

        Undefined values
        ----------------
        Undefined for a query without a candidate document (R = 0 with incomplete judgments; expeval skips it). An empty ranking (a query the run does not answer) takes EE-D at its upper bound and EE-R at its lower bound, as expeval does, and EE-L = ‖ε*‖², the loss of exposing nothing.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette. Evaluating stochastic rankings with expected exposure. CIKM 2020; the authors' expeval (github.com/diazf/expeval)."""
        return self._metric("ee_d", {"model": model, "p": p, "u": u, "complete": complete, "normalize": normalize, "binarize": binarize}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ee_r(
        self,
        qrels: Frame,
        model: str = "gerr",
        p: float = 0.5,
        u: float = 0.5,
        complete: bool = False,
        normalize: bool = True,
        binarize: bool = False,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Expected exposure relevance EE-R = ε·ε* (Diaz et al. 2020, eq. 5): the dot product of
            the documents' expected exposures ε and their target exposures ε* (the exposure an
            ideal stochastic ranking gives: documents of one grade share the positions of their
            grade equally); higher is better. Normalised (default) as expeval does: by ‖ε*‖², with
            complete judgments from Σ_i d^i·ε*_(i) (the targets ascending: a ranking in reverse
            order of grade); with one grade level both bounds are 0 and the normalised value 1.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abc"), "rel": [2, 1, 0]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abc"), "score": [3, 2, 1]})
            >>> round(float(run.ir.ee_r(qrels, model="rbp", normalize=False).iloc[0]), 4)
            1.25

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        model : default 'gerr'
            user model: 'gerr' (p^i·(1 − u)^(relevant above)) or 'rbp' (p^i)
        p : default 0.5
            patience: the probability of going on to the next rank (expeval's -p, default 0.5)
        u : default 0.5
            GERR's utility: the probability of stopping after a relevant document (expeval's -r, default 0.5)
        complete : default False
            True: every judged document is a candidate (expeval -C, reranking); False: the relevant documents of an unbounded collection
        normalize : default True
            True: (value − lower bound)/(upper − lower), expeval's bounds (expeval's default; -U: False)
        binarize : default False
            True: every relevant grade is one level (expeval -B)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a tie group is a uniformly random order of its documents and each gets its expected exposure over those orders (RBP; GERR when the group's documents are all relevant or all not). GERR refuses a tie of relevant and non-relevant documents.

        Undefined values
        ----------------
        Undefined for a query without a candidate document (R = 0 with incomplete judgments; expeval skips it). An empty ranking (a query the run does not answer) takes EE-D at its upper bound and EE-R at its lower bound, as expeval does, and EE-L = ‖ε*‖², the loss of exposing nothing.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette. Evaluating stochastic rankings with expected exposure. CIKM 2020; the authors' expeval (github.com/diazf/expeval)."""
        return self._metric("ee_r", {"model": model, "p": p, "u": u, "complete": complete, "normalize": normalize, "binarize": binarize}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ee_l(
        self,
        qrels: Frame,
        model: str = "gerr",
        p: float = 0.5,
        u: float = 0.5,
        complete: bool = False,
        normalize: bool = True,
        binarize: bool = False,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Expected exposure loss EE-L = ‖ε − ε*‖² = EE-D − 2·EE-R + ‖ε*‖² (Diaz et al. 2020,
            eq. 3): the squared distance between the documents' expected exposures and their target
            exposures; lower is better, 0 when the ranking policy meets the target. Normalised
            (default) as expeval does: by ‖ε*‖² + 1/(1 − d) with incomplete judgments, by
            Σ_i (d^i − ε*_(i))² (targets ascending) with complete ones.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abc"), "rel": [2, 1, 0]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abc"), "score": [3, 2, 1]})
            >>> round(float(run.ir.ee_l(qrels, model="rbp", normalize=False).iloc[0]), 4)
            0.0625

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        model : default 'gerr'
            user model: 'gerr' (p^i·(1 − u)^(relevant above)) or 'rbp' (p^i)
        p : default 0.5
            patience: the probability of going on to the next rank (expeval's -p, default 0.5)
        u : default 0.5
            GERR's utility: the probability of stopping after a relevant document (expeval's -r, default 0.5)
        complete : default False
            True: every judged document is a candidate (expeval -C, reranking); False: the relevant documents of an unbounded collection
        normalize : default True
            True: (value − lower bound)/(upper − lower), expeval's bounds (expeval's default; -U: False)
        binarize : default False
            True: every relevant grade is one level (expeval -B)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a tie group is a uniformly random order of its documents and each gets its expected exposure over those orders (RBP; GERR when the group's documents are all relevant or all not). GERR refuses a tie of relevant and non-relevant documents.

        Undefined values
        ----------------
        Undefined for a query without a candidate document (R = 0 with incomplete judgments; expeval skips it). An empty ranking (a query the run does not answer) takes EE-D at its upper bound and EE-R at its lower bound, as expeval does, and EE-L = ‖ε*‖², the loss of exposing nothing.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette. Evaluating stochastic rankings with expected exposure. CIKM 2020; the authors' expeval (github.com/diazf/expeval)."""
        return self._metric("ee_l", {"model": model, "p": p, "u": u, "complete": complete, "normalize": normalize, "binarize": binarize}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def infap(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Inferred average precision, trec_eval's ``infAP``: AP estimated from a judged sample
            of the pool, where a negative grade marks a pooled but unjudged document.

            For the relevant document at position j + 1 with r relevant, m judged non-relevant and u
            pooled-but-unjudged documents above it, the term is 1/(j + 1) + (j/(j + 1)) ·
            ((r + m + u)/j) · ((r + ε)/(r + m + 2ε)), ε = 10⁻⁵ (1 at rank 1); infAP is their sum
            over R. Documents absent from the qrels are outside the pool: they count in j only.
            With complete judgments (no negative grade) it is close to AP but not equal (the ε).

            Ties: under ties='average' the exact mean over the orders of tied documents: the
            counts above a relevant document inside its tie group are multivariate hypergeometric
            given its offset, and its term is averaged over them.

            >>> from trunc_accessor.frontends.single import infap
            >>> round(infap([1, 0, 1], R=2), 4)  # (1 + 1/3 + (2/3)(1 + ε)/(2 + 2ε)) / 2
            0.8333
            >>> round(infap([1, -1, 1], R=2), 4)  # the pooled, unjudged document is skipped
            1.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a relevant document of a tie group sits at a uniform offset o in it, with the o documents above it a uniform sample of the group's others, so the counts above it inside the group are multivariate hypergeometric; its term is averaged over that distribution (tie groups beyond 5·10^7 cases are refused with their size).

        Undefined values
        ----------------
        Undefined when R = 0. An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        Yilmaz & Aslam, 'Estimating average precision with incomplete and imperfect judgments', CIKM 2006; trec_eval 10.0 (github.com/usnistgov/trec_eval), m_infap.c."""
        return self._metric("infap", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def oie(
        self,
        qrels: Frame,
        collection_size: int = 20000,
        beta: float = 1.05,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Observational information effectiveness, OIE = H(S) + H(G) − β·H(S,G) (Amigó et al.
            SIGIR 2022, §3.4): the information the ranking and the judgments give about the
            |D| documents of the collection, less β times what they give jointly.

            Retrieved documents have ranks 1..n, the rest of the collection shares rank +∞;
            relevance is the grade (unjudged and negative: 0; ``relevance_level`` is not used).
            Natural logarithms. ``collection_size`` |D| (default 20,000) and ``beta`` β (default
            1.05, for which the one relevant document of the collection at rank 20 scores the same
            as returning nothing, §3.4.2). Appending a non-relevant document changes OIE by exactly
            (1 − β)·log(|D| / (n + 1)) / |D|, so β > 1 gives CONFIDENCE.

            Empty ranking: OIE = (1 − β)·H(G). A query with no judged document of positive grade
            (R = 0 for relevance_level=1 on integer grades) has H(G) = 0: the empty ranking gives 0,
            the best answer there, as any retrieved document gives (1 − β)·H(S) < 0 for β > 1.
            Ties: a tie group is one rank (module docstring).
            A ``collection_size`` smaller than n plus the judged documents of positive grade not
            retrieved is a ValueError naming the query.

            The calibration: "the unique relevant document at position 20" ties with "nothing" at
            β = 1 + log(|D|/20) / Σ_{i<20} log(|D|/i) = 1.0464 for |D| = 20,000, which the paper
            gives to two decimals as 1.05.

            >>> from trunc_accessor.frontends.single import oie
            >>> # H(S) = H(S,G) = (3·log|D| − log 3!)/|D|, H(G) = log|D|/|D|
            >>> round(oie([1, 0, 0], R=1) * 20000, 4)
            8.5076
            >>> oie([], R=0)
            0.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        collection_size : default 20000
            |D|, the number of documents observed (the paper's 20,000)
        beta : default 1.05
            weight of the joint entropy; β > 1 gives CONFIDENCE (the paper's 1.05)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        A tie group is one rank: OIE's 'unanimously outscored' relation treats tied documents as equally ranked, which is the measure's own reading of a tie.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking of a query with no judged document of positive grade; for R = 0 every retrieved document lowers it.

        References
        ----------
        Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better and How to Measure That', SIGIR 2022, §3.4 (H(S), H(G), H(S,G) and OIE_G(S) = H(S) + H(G) − βH(S,G)); ties as one rank of the observational relation (module docstring)."""
        return self._metric("oie", {"collection_size": collection_size, "beta": beta}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def iprec_at_recall(
        self,
        qrels: Frame,
        recall: float = 0.0,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Interpolated precision at a recall level: the best precision at any rank where recall
            is at least the level (trec_eval ``iprec_at_recall_x``, ir_measures ``IPrec@x``).

            The level x is the cut c = lround(x·R) relevant documents (trec_eval 10.0; 9.0.8 and
            pytrec_eval round with (long)(x·R + 0.9)): the value is the largest j / rank_j over the
            j-th relevant retrieved documents with j ≥ max(c, 1), and 0 when fewer than c relevant
            documents are retrieved (or none). ``recall=0`` (the default) is the best precision
            anywhere in the ranking.

            Ties: under ties='average' the exact mean over the orders of tied documents (module
            docstring). Under ties='trec_eval9' the cut is 9.0.8's (long)(x·R + 0.9).

            >>> from trunc_accessor.frontends.single import iprec_at_recall
            >>> iprec_at_recall([0, 1, 0, 1, 1], R=4)  # the best precision: 3/5
            0.6
            >>> iprec_at_recall([0, 1, 0, 1, 1], R=4, recall=0.5), iprec_at_recall([1, 0], R=4, recall=0.5)
            (0.6, 0.0)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        recall : default 0.0
            the recall level x in [0, 1]; the cut is lround(x·R) relevant documents, as trec_eval 10
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: interpolated precision is a maximum of precisions; tie groups are independent and a group's relevant documents take a uniformly random set of its positions, so P(value ≤ x) is a product of lattice-path counts over the groups (a small dynamic programme per candidate value), and the mean is the sum over the finitely many values the maximum can take. Tie groups whose work would pass 2·10^8 steps are refused with their size.

        Undefined values
        ----------------
        Undefined when R = 0 (no recall level exists). An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_iprec_at_recall.c (lround cut of version 10)."""
        return self._metric("iprec_at_recall", {"recall": recall}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def interpolated_precision_11pt(
        self,
        qrels: Frame,
        recalls: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """11-point interpolated average precision: the mean of ``iprec_at_recall`` at recall
            0.0, 0.1, …, 1.0 (trec_eval ``11pt_avg``), or at the levels ``recalls`` (trec_eval's
            ``11pt_avg..25,.5,.75``).

            Ties: the mean of the exact tie-aware values of ``iprec_at_recall``.

            >>> from trunc_accessor.frontends.single import interpolated_precision_11pt
            >>> interpolated_precision_11pt([1, 0, 1], R=2)  # cut c = lround(2x): 1 for x ≤ 0.7, 2/3 after
            0.909090909090909

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        recalls : default (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
            the recall levels averaged (trec_eval's 11pt_avg..25,.5,.75); default 0.0, 0.1, …, 1.0
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the mean of iprec_at_recall's exact tie-aware values at each level.

        Undefined values
        ----------------
        Undefined when R = 0 (no recall level exists). An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_11pt_avg.c (lround cut of version 10)."""
        return self._metric("interpolated_precision_11pt", {"recalls": recalls}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rprec_mult(
        self,
        qrels: Frame,
        mult: float = 1.0,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Precision at a multiple of R: P@k with k = (long)(x·R + 0.9), trec_eval's
            ``Rprec_mult_x`` (x = ``mult``; ``mult=1`` is R-precision).

            The cut-off rounds x·R up unless its fraction is below 0.1 (trec_eval's +0.9 and
            truncation: 0.2·474 = 94.8 → 95, 0.2·12 = 2.4 → 3, 0.2·5 = 1.0 → 1). A ranking shorter
            than k counts as padded with non-relevant documents, as P_k. Tie-aware as P@k: the group
            cut at k contributes its mean.

            >>> from trunc_accessor.frontends.single import rprec_mult
            >>> rprec_mult([1, 0, 1, 1, 0], R=4, mult=0.5), rprec_mult([1, 0, 1, 1, 0], R=4, mult=2.0)
            (0.5, 0.375)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        mult : default 1.0
            the multiple x of R; the cut-off is (long)(x·R + 0.9)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n of its documents (t positions before the group, n documents in it).

        Undefined values
        ----------------
        Undefined when R = 0, and when the cut-off rounds to 0 (x·R < 0.1). An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_Rprec_mult.c; tie-aware as P@k (McSherry & Najork, ECIR 2008, §2.1)."""
        return self._metric("rprec_mult", {"mult": mult}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def nerr8(
        self,
        qrels: Frame,
        k: int | None = None,
        min_grade: float = 0.0,
        max_grade: float | None = None,
        depth: int = 1000,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """NERR, eq. (8) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): the C/W/L measure closest
            to ERR@k with C_i = 1 − g_i for i < k and 0 at k, so E_i = Π_{j<i}(1 − g_j) for i ≤ k and

                NERR8@k = Σ_{i≤k} g_i Π_{j<i}(1 − g_j) / Σ_{i≤k} Π_{j<i}(1 − g_j),

            ERR's stopping probabilities without its 1/i, rescaled by the expected number of
            documents read (gains in [0, 1], ``trunc_accessor.metrics.user_models``; k cut at ``depth``).

            >>> from trunc_accessor.frontends.single import nerr8
            >>> round(nerr8([0, 1, 0], k=3, max_grade=2), 6)  # g = 0, 1/2, 0; E = 1, 1, 1/2
            0.2
            >>> round(nerr8([0, 1, 0], k=10, max_grade=2), 6)  # padded to 10: E_4..E_10 = 1/2
            0.083333

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        min_grade : default 0.0
            grades at or below it gain 0 (ir_measures' min_rel)
        max_grade : default None
            grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels
        depth : default 1000
            length of the list the user model runs over: the ranking cut there and padded with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused where the order matters: the weights depend on the gains read before (eq. (8) is normalised by Σ E_i, which the order of a tie changes), and the mean over a tie's orders has no closed form; under ties='average' a tie that mixes gains, is reached with positive probability and has at least two positions in the weighted part of the list raises a ValueError naming the query (pass ties='first'). Other ties take the group mean gain, which is then exact.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) and whenever no retrieved grade lies above min_grade; the gains do not depend on relevance_level, so R = 0 is scored like any other query.

        References
        ----------
        Azzopardi, Mackenzie & Moffat, 'ERR is not C/W/L: Exploring the relationship between expected reciprocal rank and other metrics', ICTIR 2021, eq. (8); Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', SIGIR 2019 (cwl_eval, which ir_measures runs)."""
        return self._metric("nerr8", {"k": k, "min_grade": min_grade, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def nerr9(
        self,
        qrels: Frame,
        k: int | None = None,
        min_grade: float = 0.0,
        max_grade: float | None = None,
        depth: int = 1000,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """NERR, eq. (9) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): C_i = (i/(i + 1))(1 −
            g_i) for i < k, 0 at k, so E_i = (1/i) Π_{j<i}(1 − g_j) (ERR's 1/i discount inside the
            weights) and NERR9@k = Σ_{i≤k} E_i g_i / Σ_{i≤k} E_i (k cut at ``depth``; the padding's
            E_i sum to Π_{j≤n}(1 − g_j)(H_k − H_n), H the harmonic numbers).

            >>> from trunc_accessor.frontends.single import nerr9
            >>> round(nerr9([0, 1, 0], k=3, max_grade=2), 6)  # E = 1, 1/2, 1/6: (1/4)/(5/3)
            0.15

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        min_grade : default 0.0
            grades at or below it gain 0 (ir_measures' min_rel)
        max_grade : default None
            grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels
        depth : default 1000
            length of the list the user model runs over: the ranking cut there and padded with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused where the order matters: the weights depend on the gains read before (eq. (9) is normalised by Σ E_i, which the order of a tie changes), and the mean over a tie's orders has no closed form; under ties='average' a tie that mixes gains, is reached with positive probability and has at least two positions in the weighted part of the list raises a ValueError naming the query (pass ties='first'). Other ties take the group mean gain, which is then exact.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) and whenever no retrieved grade lies above min_grade; the gains do not depend on relevance_level, so R = 0 is scored like any other query.

        References
        ----------
        Azzopardi, Mackenzie & Moffat, 'ERR is not C/W/L: Exploring the relationship between expected reciprocal rank and other metrics', ICTIR 2021, eq. (9); Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', SIGIR 2019 (cwl_eval, which ir_measures runs)."""
        return self._metric("nerr9", {"k": k, "min_grade": min_grade, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def nerr10(
        self,
        qrels: Frame,
        p: float = 0.9,
        min_grade: float = 0.0,
        max_grade: float | None = None,
        depth: int = 1000,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """NERR, eq. (10) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): RBP's patience inside
            ERR's cascade, C_i = p(1 − g_i), E_i = p^(i−1) Π_{j<i}(1 − g_j), NERR10 = Σ E_i g_i /
            Σ E_i over the ``depth`` positions (the padding: Π_{j≤n}(1 − g_j) p^n (1 − p^(depth −
            n))/(1 − p)).

            >>> from trunc_accessor.frontends.single import nerr10
            >>> round(nerr10([0, 1], p=0.5, max_grade=1), 6)  # E = 1, 1/2, then 0: (1/2)/(3/2)
            0.333333

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.9
            the patience of NERR10's C_i = p(1 − g_i) (ir_measures' default 0.9)
        min_grade : default 0.0
            grades at or below it gain 0 (ir_measures' min_rel)
        max_grade : default None
            grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels
        depth : default 1000
            length of the list the user model runs over: the ranking cut there and padded with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused where the order matters: the weights depend on the gains read before (eq. (10) is normalised by Σ E_i, which the order of a tie changes), and the mean over a tie's orders has no closed form; under ties='average' a tie that mixes gains, is reached with positive probability and has at least two positions in the weighted part of the list raises a ValueError naming the query (pass ties='first'). Other ties take the group mean gain, which is then exact.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) and whenever no retrieved grade lies above min_grade; the gains do not depend on relevance_level, so R = 0 is scored like any other query.

        References
        ----------
        Azzopardi, Mackenzie & Moffat, 'ERR is not C/W/L: Exploring the relationship between expected reciprocal rank and other metrics', ICTIR 2021, eq. (10); Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', SIGIR 2019 (cwl_eval, which ir_measures runs)."""
        return self._metric("nerr10", {"p": p, "min_grade": min_grade, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def nerr11(
        self,
        qrels: Frame,
        T: float = 1.0,
        min_grade: float = 0.0,
        max_grade: float | None = None,
        depth: int = 1000,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """NERR, eq. (11) of Azzopardi, Mackenzie & Moffat (ICTIR 2021): INSQ's patience inside
            ERR's cascade, C_i = ((i + 2T − 1)/(i + 2T))² (1 − g_i), E_i = (2T/(i − 1 + 2T))²
            Π_{j<i}(1 − g_j), NERR11 = Σ E_i g_i / Σ E_i over the ``depth`` positions (the padding:
            Π_{j≤n}(1 − g_j)(2T)² (ψ'(n + 2T) − ψ'(depth + 2T)), ψ' the trigamma function).

            >>> from trunc_accessor.frontends.single import nerr11
            >>> round(nerr11([0, 1, 0], T=2.0, max_grade=1), 6)  # E = 1, 16/25, then 0: 16/41
            0.390244

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        T : default 1.0
            T: the gain the user sets out to find, in units of the top grade's gain
        min_grade : default 0.0
            grades at or below it gain 0 (ir_measures' min_rel)
        max_grade : default None
            grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels
        depth : default 1000
            length of the list the user model runs over: the ranking cut there and padded with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused where the order matters: the weights depend on the gains read before (eq. (11) is normalised by Σ E_i, which the order of a tie changes), and the mean over a tie's orders has no closed form; under ties='average' a tie that mixes gains, is reached with positive probability and has at least two positions in the weighted part of the list raises a ValueError naming the query (pass ties='first'). Other ties take the group mean gain, which is then exact.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) and whenever no retrieved grade lies above min_grade; the gains do not depend on relevance_level, so R = 0 is scored like any other query.

        References
        ----------
        Azzopardi, Mackenzie & Moffat, 'ERR is not C/W/L: Exploring the relationship between expected reciprocal rank and other metrics', ICTIR 2021, eq. (11); Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', SIGIR 2019 (cwl_eval, which ir_measures runs)."""
        return self._metric("nerr11", {"T": T, "min_grade": min_grade, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def xinfap(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Extended inferred AP over a stratified sample of the pool, as sample_eval.pl
            computes it (its ``infAP``).

            For the relevant document at rank k of stratum c: its estimated precision
            1/k + n̂/k, with n̂ = Σ_c' d_c'·(t_c' + ε)/(s_c' + 3ε) over the ranks above it (d_c'
            pooled documents of stratum c' above it, s_c' sampled, t_c' relevant; ε = 0.00001);
            xinfAP = Σ (that precision)·D_c/S_c over R̂ = Σ_c T_c·D_c/S_c (D_c pooled documents of
            stratum c, S_c sampled, T_c relevant). A negative grade is a pooled document left out of
            the sample; a document absent from the qrels is outside the pool.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
            ...                       "rel": [1, -1, 0, 1, -1]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
            >>> round(float(run.ir.xinfap(qrels, ties="trec_eval").iloc[0]), 4)  # R̂ = 1.5 + 2
            0.7857

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents that differ in pool membership, stratum or grade (the estimators are not linear in the order); other ties change nothing.

        Undefined values
        ----------------
        Undefined when the estimated number of relevant documents R̂ is 0 (so when R = 0 sampled documents are relevant; the script prints 0). An empty ranking scores 0. Only the first 1000 documents of a ranking count.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for estimating AP and NDCG. SIGIR 2008; NIST's sample_eval.pl (version of 10 Oct 2011, as the TREC Clinical Decision Support track distributed it)."""
        return self._metric("xinfap", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def infndcg(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Inferred nDCG over a stratified sample of the pool, as sample_eval.pl computes it
            (its ``infNDCG``): Σ over the retrieved relevant documents of grade/log2(k + 1) times
            d_c/s_c of the document's stratum in the ranking (its pooled over its sampled
            documents), over the ideal DCG of the estimated number of documents of each grade,
            Σ_c (sampled documents of that grade in c)·D_c/S_c rounded to a whole number, grades
            taken in descending order of their text and the ideal ranking cut at rank 1000.
            Grades are the gains.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
            ...                       "rel": [1, -1, 0, 1, -1]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
            >>> round(float(run.ir.infndcg(qrels, ties="trec_eval").iloc[0]), 4)
            0.7537

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents that differ in pool membership, stratum or grade (the estimators are not linear in the order); other ties change nothing.

        Undefined values
        ----------------
        Undefined when the estimated number of relevant documents R̂ is 0 (so when R = 0 sampled documents are relevant; the script prints 0). An empty ranking scores 0. Only the first 1000 documents of a ranking count.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for estimating AP and NDCG. SIGIR 2008; NIST's sample_eval.pl (version of 10 Oct 2011, as the TREC Clinical Decision Support track distributed it)."""
        return self._metric("infndcg", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ip(
        self,
        qrels: Frame,
        k: int | None = 10,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Inferred precision at k, as sample_eval.pl computes it (its ``iPk``): the estimated
            number of relevant documents down to rank k, n̂ = Σ_c d_c·(t_c + ε)/(s_c + 3ε) (module
            doc), over k; a ranking shorter than k gives n̂ at its last rank over k; k=None gives n̂
            at the last rank read over the ranks read.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
            ...                       "rel": [1, -1, 0, 1, -1]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
            >>> round(float(run.ir.ip(qrels, k=3, ties="trec_eval").iloc[0]), 4)  # (3·(1 + ε)/(2 + 3ε))/3
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default 10
            rank cut-off (the script prints 10, 50 and 1000); None: the ranks read
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents that differ in pool membership, stratum or grade (the estimators are not linear in the order); other ties change nothing.

        Undefined values
        ----------------
        Defined even when R = 0 (n̂ counts a third of the pooled documents of a stratum with none sampled); an empty ranking scores 0, except with k=None (0/0: undefined). Only the first 1000 documents of a ranking count.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for estimating AP and NDCG. SIGIR 2008; NIST's sample_eval.pl (version of 10 Oct 2011, as the TREC Clinical Decision Support track distributed it)."""
        return self._metric("ip", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def inf_iprec_at_recall(
        self,
        qrels: Frame,
        recall: float = 0.0,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Inferred interpolated precision at a recall level, as sample_eval.pl computes its
            ``iprec@recX`` (printed for all topics only: the mean of these per-query values).
            Ranks are read from the last up, keeping the best estimated precision n̂/k so far;
            level j/10 takes that best at the first rank (below the rank level j/10 + 0.1 took)
            whose n̂ is under j/10·R̂; levels above n̂ at the last rank take 0, a level never
            reached the best precision of the whole ranking.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
            ...                       "rel": [1, -1, 0, 1, -1]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
            >>> round(float(run.ir.inf_iprec_at_recall(qrels, recall=0.5, ties="trec_eval").iloc[0]), 4)
            1.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        recall : default 0.0
            recall level: 0, 0.1, …, 1
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents that differ in pool membership, stratum or grade (the estimators are not linear in the order); other ties change nothing.

        Undefined values
        ----------------
        Never undefined: with R = 0 (R̂ = 0) every level takes the best estimated precision of the ranking; an empty ranking scores 0.

        References
        ----------
        E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for estimating AP and NDCG. SIGIR 2008; NIST's sample_eval.pl (version of 10 Oct 2011, as the TREC Clinical Decision Support track distributed it)."""
        return self._metric("inf_iprec_at_recall", {"recall": recall}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def inum_rel_ret(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """The estimated number of relevant documents retrieved, as sample_eval.pl computes it
            (its ``inum_rel_ret``): n̂ at the last rank read (at most 1000). A stratum with pooled
            documents none of which is sampled counts a third of them, so it can exceed
            ``inum_rel`` (a warning says so).

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
            ...                       "rel": [1, -1, 0, 1, -1]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
            >>> round(float(run.ir.inum_rel_ret(qrels, ties="trec_eval").iloc[0]), 4)  # strata: 1.5 + 1
            2.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents that differ in pool membership, stratum or grade (the estimators are not linear in the order); other ties change nothing.

        Undefined values
        ----------------
        Never undefined, even when R = 0 (unsampled pooled documents count a third); an empty ranking scores 0.

        References
        ----------
        E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for estimating AP and NDCG. SIGIR 2008; NIST's sample_eval.pl (version of 10 Oct 2011, as the TREC Clinical Decision Support track distributed it)."""
        return self._metric("inum_rel_ret", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def inum_rel(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """The estimated number of relevant documents of the query, as sample_eval.pl computes
            it (its ``inum_rel``): R̂ = Σ_c T_c·D_c/S_c over the strata with a sampled document.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": list("abcde"), "stratum": [1, 1, 1, 2, 2],
            ...                       "rel": [1, -1, 0, 1, -1]})
            >>> run = pd.DataFrame({"qid": 1, "docid": list("abcd"), "score": [4, 3, 2, 1]})
            >>> round(float(run.ir.inum_rel(qrels, ties="trec_eval").iloc[0]), 4)  # 1·3/2 + 1·2/1
            3.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Undefined values
        ----------------
        Never undefined: R = 0 (no sampled relevant document) gives 0; an empty ranking has its query's estimate.

        References
        ----------
        E. Yilmaz, E. Kanoulas and J. A. Aslam. A simple and efficient sampling method for estimating AP and NDCG. SIGIR 2008; NIST's sample_eval.pl (version of 10 Oct 2011, as the TREC Clinical Decision Support track distributed it)."""
        return self._metric("inum_rel", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def set_precision(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Set precision: relevant retrieved / retrieved, a / n (trec_eval ``set_P``; the same
            as ``precision`` with k=None).

            >>> from trunc_accessor.frontends.single import set_precision
            >>> set_precision([1, 0, 1, 0])
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Undefined for an empty ranking (0/0). R = 0 gives 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_set_P.c."""
        return self._metric("set_precision", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def set_recall(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Set recall: relevant retrieved / relevant, a / R (trec_eval ``set_recall``; the same
            as ``recall`` with k=None).

            >>> from trunc_accessor.frontends.single import set_recall
            >>> set_recall([1, 0, 1, 0], R=4)
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Undefined when R = 0. An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_set_recall.c."""
        return self._metric("set_recall", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def set_f(
        self,
        qrels: Frame,
        beta: float = 1.0,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Set F measure, trec_eval's ``set_F``: (1 + β)·P·R / (β·P + R) = (1 + β)·a / (β·R + n).

            ``beta`` is trec_eval's parameter as trec_eval (``set_F.2``), pytrec_eval and ir_measures
            (``SetF(beta=2)``) use it: it multiplies P, so it is the *square* of van Rijsbergen's
            β — ``beta=4`` is the textbook F₂, ``beta=0.25`` F₀.₅. ``beta=1`` is F1 (``f1`` with
            k=None).

            >>> from trunc_accessor.frontends.single import set_f
            >>> set_f([1, 0, 1, 0], R=4)  # P = R = 1/2
            0.5
            >>> round(set_f([1, 0, 0, 0], R=2, beta=4), 4)  # P = 1/4, R = 1/2: 5·(1/8)/(1 + 1/2)
            0.4167

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        beta : default 1.0
            trec_eval's x: F = (1 + x)·P·R / (x·P + R); van Rijsbergen's F_β is x = β²
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Undefined only for an empty ranking of a query with R = 0 (0/0); otherwise 0 when nothing relevant is retrieved (also R = 0, and the empty ranking), as trec_eval.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_set_F.c (van Rijsbergen, 'Information Retrieval', Butterworths, 1979, the E measure)."""
        return self._metric("set_f", {"beta": beta}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def set_ap(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Set (unranked) average precision, trec_eval's ``set_map``: a² / (n·R), the set
            precision times the set recall.

            Every relevant retrieved document gets the set precision a / n, every relevant document
            not retrieved 0, averaged over the R relevant documents.

            >>> from trunc_accessor.frontends.single import set_ap
            >>> set_ap([1, 0, 1, 0], R=4)  # (2/4)·(2/4)
            0.25

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Undefined when R = 0. An empty ranking with R > 0 scores 0 (nothing found).
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_set_map.c (formerly exact_unranked_avg_prec)."""
        return self._metric("set_ap", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def set_relative_precision(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Relative set precision, trec_eval's ``set_relative_P``: a / min(n, R), the set
            precision divided by the largest precision a set of n documents could have (set recall
            once n ≥ R).

            >>> from trunc_accessor.frontends.single import set_relative_precision
            >>> set_relative_precision([1, 0, 1, 0], R=2)  # 2 / min(4, 2)
            1.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Undefined when R = 0 and for an empty ranking (0/0).
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_set_rel_P.c (formerly exact_relative_prec)."""
        return self._metric("set_relative_precision", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def relative_precision(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Relative precision at k, trec_eval's ``relative_P_k``: the relevant documents in the
            first k divided by min(k, R), the most that k documents can hold: P@k up to k = R, R@k
            beyond. ``k=None``: the whole ranking, min(n, R) (``set_relative_precision``).

            A ranking shorter than k counts as padded with non-relevant documents (as P@k).
            Tie-aware: the group cut at k contributes its mean.

            >>> from trunc_accessor.frontends.single import relative_precision
            >>> relative_precision([1, 0, 1, 1], k=2, R=3), relative_precision([1, 0, 1, 1], k=4, R=3)
            (0.5, 1.0)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact, as precision@k: a tie group cut by the cut-off counts the share (k − t)/n of its documents (t positions before the group, n documents in it).

        Undefined values
        ----------------
        Undefined when R = 0. With k: an empty ranking with R > 0 scores 0; with k=None it is 0/0, undefined.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_rel_P.c (relative_P_k); tie-aware as P@k (McSherry & Najork, ECIR 2008, §2.1)."""
        return self._metric("relative_precision", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def stat_num_rel(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """The estimated number of relevant documents, R̂ = Σ_{d∈S} x_d/π_d over the sampled
            documents (grade ≥ 0) with their inclusion probabilities π_d (the qrels' ``inclusion``
            column): unbiased for R (Horvitz–Thompson).

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 0, 1],
            ...                       "inclusion": [1.0, 0.5, 0.25]})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["a"], "score": [1]})
            >>> float(run.ir.stat_num_rel(qrels).iloc[0])  # 1/1 + 1/0.25
            5.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Never undefined: R = 0 (no sampled relevant document) gives 0; an empty ranking has its query's estimate.

        References
        ----------
        J. A. Aslam, V. Pavlu and E. Yilmaz. A statistical method for system evaluation using incomplete judgments. SIGIR 2006 (statAP of the TREC Million Query track)."""
        return self._metric("stat_num_rel", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def stat_p(
        self,
        qrels: Frame,
        k: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """statP@k: (1/k) Σ_{d∈S, r(d) ≤ k} x_d/π_d, the sampled relevant documents of the first
            k positions each weighted by one over its inclusion probability π_d (the qrels'
            ``inclusion`` column; S: the documents judged with a grade ≥ 0); unbiased for P@k. A
            ranking shorter than k still divides by k; k=None: its length.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 0, 1],
            ...                       "inclusion": [1.0, 0.5, 0.25]})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c", "d"], "score": [4, 3, 2, 1]})
            >>> float(run.ir.stat_p(qrels, k=4).iloc[0])  # (1/1 + 1/0.25)/4
            1.25

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a document of a tie group cut by k counts with its probability of lying above the cut, (k − t)/n (t positions before the group of n).

        Undefined values
        ----------------
        Undefined with k=None for an empty ranking (0/0); R = 0 gives 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        J. A. Aslam, V. Pavlu and E. Yilmaz. A statistical method for system evaluation using incomplete judgments. SIGIR 2006 (statAP of the TREC Million Query track)."""
        return self._metric("stat_p", {"k": k}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def stat_rprec(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """statR-prec: statP@k at k = R̂ rounded to the nearest whole number (halves up), R̂ =
            Σ_{d∈S} x_d/π_d; undefined when that is 0. Only approximately unbiased for R-prec:
            the cut-off is itself estimated.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 0, 1],
            ...                       "inclusion": [1.0, 0.5, 0.25]})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c", "d"], "score": [4, 3, 2, 1]})
            >>> float(run.ir.stat_rprec(qrels).iloc[0])  # k = R̂ = 5: (1/1 + 1/0.25)/5
            1.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: as stat_p at the cut-off k = R̂ rounded.

        Undefined values
        ----------------
        Undefined when R̂ = 0 (R = 0: no sampled relevant document). An empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        J. A. Aslam, V. Pavlu and E. Yilmaz. A statistical method for system evaluation using incomplete judgments. SIGIR 2006 (statAP of the TREC Million Query track)."""
        return self._metric("stat_rprec", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def stat_ap(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """statAP: Σ_{d∈S} (x_d/(π_d·r(d)))·(1 + Σ_{d'∈S, r(d') < r(d)} x_d'/π_d') over
            R̂ = Σ_{d∈S} x_d/π_d. The numerator estimates Σ over the pairs of relevant documents
            d' at or above d of 1/r(d) (that is AP·R) by each pair's indicator over its inclusion
            probability, π_d for a document with itself and π_d·π_d' for two (independent
            inclusions); it is unbiased, the ratio only approximately. With every π = 1, AP.

            >>> import pandas as pd, trunc_accessor as ta
            >>> qrels = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "rel": [1, 0, 1],
            ...                       "inclusion": [1.0, 0.5, 0.25]})
            >>> run = pd.DataFrame({"qid": 1, "docid": ["a", "b", "c"], "score": [3, 2, 1]})
            >>> float(run.ir.stat_ap(qrels).iloc[0])  # (1/1 + (4/3)(1 + 1)) / (1 + 4)
            0.7333333333333333

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents of different weights x_d/π_d (the pair terms are not linear in the order); other ties change nothing.

        Undefined values
        ----------------
        Undefined when R̂ = 0 (R = 0: no sampled relevant document). An empty ranking scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        J. A. Aslam, V. Pavlu and E. Yilmaz. A statistical method for system evaluation using incomplete judgments. SIGIR 2006 (statAP of the TREC Million Query track)."""
        return self._metric("stat_ap", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def utility(
        self,
        qrels: Frame,
        a: float = 1.0,
        b: float = -1.0,
        c: float = 0.0,
        d: float = 0.0,
        collection_size: int = 0,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Set utility, trec_eval's ``utility``: a·(relevant retrieved) + b·(non-relevant
            retrieved) + c·(relevant not retrieved) + d·(non-relevant not retrieved), with N =
            ``collection_size`` documents in the collection (trec_eval's -N).

            >>> from trunc_accessor.frontends.single import utility
            >>> utility([1, 0, 1, 0], R=3)  # 2 relevant, 2 not: 2 − 2
            0.0
            >>> utility([1, 0, 1, 0], R=3, a=2, b=-1, c=-0.5)
            1.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        a : default 1.0
            worth of a relevant retrieved document
        b : default -1.0
            worth of a non-relevant retrieved document
        c : default 0.0
            worth of a relevant document not retrieved
        d : default 0.0
            worth of a non-relevant document not retrieved
        collection_size : default 0
            documents in the collection, for d (trec_eval's -N; 0 by default)
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Never undefined: the contingency counts always exist. R = 0 gives b·n + d·(N − n) (every retrieved document is non-relevant); an empty ranking scores c·R + d·(N − R).

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_utility.c."""
        return self._metric("utility", {"a": a, "b": b, "c": c, "d": d, "collection_size": collection_size}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def binary_g(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Binary G, trec_eval's ``binG``: (1/R) Σ over the relevant retrieved documents of
            1 / log2(2 + the non-relevant documents ranked above it).

            >>> from trunc_accessor.frontends.single import binary_g
            >>> round(binary_g([1, 0, 1], R=2), 6)  # (1/log2(2) + 1/log2(3)) / 2
            0.815465

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a relevant document of a tie group with u non-relevant documents has 0…u of them before it with equal probability, so its term is the mean of 1/log2(2 + N + U) over U = 0…u (N the non-relevant documents before the group).

        Undefined values
        ----------------
        Undefined when R = 0. An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_binG.c (experimental measure, 2008)."""
        return self._metric("binary_g", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def normalized_g(
        self,
        qrels: Frame,
        gains: str | Mapping[float, float] | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Normalised gain, trec_eval's ``G``: Σ_i g_i / log2(2 + C_i − S_i), normalised by the
            ideal list's total gain, where S_i is the gain retrieved in the first i positions and
            C_i Σ_{j≤i} max(I_j, 1) the cost of the ideal list there (I_j its j-th gain, 0 past its
            end): the contribution of a document depends on how far the ranking lags the ideal.

            >>> from trunc_accessor.frontends.single import normalized_g
            >>> round(normalized_g([2, 0, 1]), 6)  # (2/log2(2) + 1/log2(2 + 4 − 3)) / 3
            0.876977

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        gains : default None
            None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 (Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group mixes gains: each term divides by a running sum of the gains before it, which has no closed-form mean over the orders of the tie; pass ties='first' or 'trec_eval'. Ties among documents of equal gain are accepted.

        Undefined values
        ----------------
        Undefined when the query has no judged document with a positive gain (no positive grade; the gains are the grades, whatever the relevance level, so R = 0 at a level is defined while a positive grade exists). An empty ranking of a query with a positive gain scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_G.c (experimental measure, 2008)."""
        return self._metric("normalized_g", {"gains": gains}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def ndcg_rel(
        self,
        qrels: Frame,
        gains: str | Mapping[float, float] | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """nDCG averaged over the relevant documents, trec_eval's ``ndcg_rel``: the mean, over
            the L documents of the ideal list, of DCG@i / ideal DCG@min(i, L) at the position i of
            each retrieved document with positive gain; each of those not retrieved counts
            DCG@n / ideal DCG@L (n the ranking's length).

            >>> from trunc_accessor.frontends.single import ndcg_rel
            >>> round(ndcg_rel([2, 0, 1]), 6)
            0.975117

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        gains : default None
            None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 (Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group mixes gains: the measure averages DCG/ideal DCG at the positions of the relevant documents, a product of the order inside the tie; pass ties='first' or 'trec_eval'. Ties among documents of equal gain are accepted.

        Undefined values
        ----------------
        Undefined when the query has no judged document with a positive gain (the gains are the grades, so R = 0 at a level is defined while a positive grade exists). An empty ranking of a query with a positive gain scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_ndcg_rel.c (experimental measure)."""
        return self._metric("ndcg_rel", {"gains": gains}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rndcg(
        self,
        qrels: Frame,
        gains: str | Mapping[float, float] | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """nDCG averaged at the R levels, trec_eval's ``Rndcg``: the mean of DCG@min(b − 1, n) /
            ideal DCG@(b − 1) over the positions b where the ideal list's gain changes (the end of
            each gain level, the end of the list included), plus DCG@n / ideal DCG@L when the
            ranking is at least two documents longer than the ideal list L (trec_eval's loop
            structure; n the ranking's length).

            >>> from trunc_accessor.frontends.single import rndcg
            >>> round(rndcg([2, 0, 1]), 6)
            0.880094

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        gains : default None
            None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 (Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: a mean of nDCG at cut-offs fixed by the qrels, linear in the gain at each position, so every gain is replaced by its tie group's mean (McSherry & Najork 2008).

        Undefined values
        ----------------
        Undefined when R = 0 (no relevant document at the relevance level). An empty ranking with R > 0 scores 0.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_Rndcg.c (experimental measure)."""
        return self._metric("rndcg", {"gains": gains}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def trec_rbp(
        self,
        qrels: Frame,
        p: float = 0.9,
        gains: str | Mapping[float, float] | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """trec_eval's ``rbp``: (1 − p) Σ_i gain_i p^(i−1) with graded gains (the grade, or
            ``gains``), min–max normalised to [0, 1] over the query's grade levels when a gain lies
            outside [0, 1]. For binary qrels it is ``rbp(p=0.9)``.

            >>> from trunc_accessor.frontends.single import trec_rbp
            >>> round(trec_rbp([2, 0, 1], qrels_grades=[2, 0, 1]), 6)  # 0.1·(1 + 0.5·0.81)
            0.1405

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.9
            persistence, the probability of going on to the next rank (trec_eval's default 0.9)
        gains : default None
            None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 (Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008).

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking, and 0 when R = 0 and no retrieved document has a positive gain.

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_rbp.c (Moffat & Zobel, 'Rank-biased precision for measurement of retrieval effectiveness', ACM TOIS 27(1), 2008)."""
        return self._metric("trec_rbp", {"p": p, "gains": gains}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def trec_rbp_residual(
        self,
        qrels: Frame,
        p: float = 0.9,
        gains: str | Mapping[float, float] | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """trec_eval's ``rbp_resid``: p^n + (1 − p) Σ_{unjudged i} p^(i−1), the weight RBP
            leaves undecided, but 0 when the ranking holds no unjudged document (trec_eval's rule;
            ``rbp_residual`` gives p^n there). ``gains`` is accepted as trec_eval accepts it and
            changes nothing.

            >>> from trunc_accessor.frontends.single import trec_rbp_residual
            >>> round(trec_rbp_residual([1, None, 0], qrels_grades=[1, 0]), 6)  # 0.729 + 0.1·0.9
            0.819

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.9
            persistence, the probability of going on to the next rank (trec_eval's default 0.9)
        gains : default None
            None or 'linear': gain = grade (trec_eval); 'exponential' or 'exp': 2^g − 1 (Burges et al. 2005; ranx's ndcg_burges); or a mapping grade → gain
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the unjudged indicator is replaced by its tie group's mean (the trec_eval rule that a ranking without unjudged documents scores 0 is order-free).

        Undefined values
        ----------------
        Never undefined: 0 when the ranking holds no unjudged document (trec_eval's rule; the empty ranking included); R = 0 changes nothing (the residual counts unjudged documents).

        References
        ----------
        trec_eval 10.0 (github.com/usnistgov/trec_eval), m_rbp_resid.c."""
        return self._metric("trec_rbp_residual", {"p": p, "gains": gains}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def twist(
        self,
        qrels: Frame,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Twist τ = (ρ + σ) / 2: the mean of the recovery ratio and the space ratio, in [0, 1];
            1 for the ideal run, 0 for the worst one, below 1/4 for the full-scale run of length
            N ≥ 3·RB (exactly 1/4 for RB = 1, N = 3: Proposition 3's proof is one rank off) and
            below 1/2 for runs whose CRP never turns positive (Ferro et al. Definition 6, Figure 6). It
            measures the avoidable effort the ranking's misplaced documents cause, not the gain: pair it
            with a gain metric (``trunc_accessor.plot.effort_gain``).

            Ties: under ties='average' (the default) τ raises a ValueError when a tie group holds
            documents of different grades (no closed-form mean over tie orders): pass ties='first'
            or ties='trec_eval'. Ties among equally graded documents are fine.

            A truncated ranking (n < RB) is judged on the ranks it shows: stopping early is not
            penalised unless ``depth=`` pads it with non-relevant documents.

            >>> from trunc_accessor.frontends.single import twist
            >>> round(twist([0, 1, 0, 1, 0, 0, 1, 0], R=3), 6)  # ρ = 1/2, σ = 14/33
            0.462121
            >>> twist([1, 1, 0, 0], R=2), twist([0, 0, 0, 0], R=2)  # the ideal and the worst run
            (1.0, 0.0)

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        depth : default None
            run length N: a shorter ranking is padded with non-relevant documents and a longer one cut to N, as MATTERS does (it uses 1000); None: the ranking's length
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents of different grades (within the first depth ranks of a query with R > 0): a first crossing and a harmonic mean have no closed-form mean over orders; pass ties='first' or 'trec_eval'. Ties among equally graded documents change nothing and are accepted.

        Undefined values
        ----------------
        Undefined when R = 0 (no recall base). An empty ranking with R > 0 is the worst run: ρ = σ⁻ = σ = τ = 0, σ⁺ = 1.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        Ferro, Silvello, Keskustalo, Pirkola & Järvelin, 'The Twist measure for IR evaluation: taking user's effort into account', JASIST 2016, Definition 6 (crossings and normalisers as the authors' MATTERS toolkit, twist.m)."""
        return self._metric("twist", {"depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def recovery_ratio(
        self,
        qrels: Frame,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Recovery ratio ρ = RB / β, β = max(RB, x), x the first crossing of the CRP curve:
            the first rank j whose class (up if CRP > 0, down if CRP ≤ 0) differs from rank j + 1's
            (MATTERS' reading of Definition 3). No crossing: 1 if CRP is 0 at every rank (the ideal
            run), else 0 (the worst run, and runs whose CRP never turns positive).

            Ties: under ties='average' (the default) ρ raises a ValueError when a tie group holds
            documents of different grades (no closed-form mean over tie orders): pass ties='first'
            or ties='trec_eval'. Ties among equally graded documents are fine.

            >>> from trunc_accessor.frontends.single import recovery_ratio
            >>> recovery_ratio([0, 1, 0, 1, 0, 0, 1, 0], R=3)  # CRP −3 −3 −4 −3 −3 −3 1 1: x = 6
            0.5

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        depth : default None
            run length N: a shorter ranking is padded with non-relevant documents and a longer one cut to N, as MATTERS does (it uses 1000); None: the ranking's length
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents of different grades (within the first depth ranks of a query with R > 0): a first crossing and a harmonic mean have no closed-form mean over orders; pass ties='first' or 'trec_eval'. Ties among equally graded documents change nothing and are accepted.

        Undefined values
        ----------------
        Undefined when R = 0 (no recall base). An empty ranking with R > 0 is the worst run: ρ = σ⁻ = σ = τ = 0, σ⁺ = 1.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        Ferro, Silvello, Keskustalo, Pirkola & Järvelin, 'The Twist measure for IR evaluation: taking user's effort into account', JASIST 2016, Definition 3 (crossings as the authors' MATTERS toolkit, twist.m)."""
        return self._metric("recovery_ratio", {"depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def space_ratio(
        self,
        qrels: Frame,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Space ratio σ = 2σ⁺σ⁻ / (σ⁺ + σ⁻), the harmonic mean of the forward and backward
            space ratios (0 when either is 0), in [0, 1] (Ferro et al. Definition 5).

            Ties: under ties='average' (the default) σ raises a ValueError when a tie group holds
            documents of different grades (σ⁺ and σ⁻ are exact there, their harmonic mean is not
            linear): pass ties='first' or ties='trec_eval'. Ties among equally graded documents
            are fine.

            >>> from trunc_accessor.frontends.single import space_ratio
            >>> round(space_ratio([0, 1, 0, 1, 0, 0, 1, 0], R=3), 6)  # σ⁺ = 7/12, σ⁻ = 1/3
            0.424242

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        depth : default None
            run length N: a shorter ranking is padded with non-relevant documents and a longer one cut to N, as MATTERS does (it uses 1000); None: the ranking's length
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused when a tie group holds documents of different grades (within the first depth ranks of a query with R > 0): a first crossing and a harmonic mean have no closed-form mean over orders; pass ties='first' or 'trec_eval'. Ties among equally graded documents change nothing and are accepted.

        Undefined values
        ----------------
        Undefined when R = 0 (no recall base). An empty ranking with R > 0 is the worst run: ρ = σ⁻ = σ = τ = 0, σ⁺ = 1.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        Ferro, Silvello, Keskustalo, Pirkola & Järvelin, 'The Twist measure for IR evaluation: taking user's effort into account', JASIST 2016, Definition 5 (normalisers extended to any run length)."""
        return self._metric("space_ratio", {"depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def space_ratio_plus(
        self,
        qrels: Frame,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Forward space ratio σ⁺ = 1 − s⁺ / s⁺max: s⁺ = Σ_j (j − max_j)⁺, the positive
            misplacements (relevant documents ranked below their ideal interval), s⁺max the same
            for the full-scale run of the same length (the ideal run reversed), 1 when s⁺max = 0
            (Ferro et al. Definitions 4–5). 1 for the ideal and the worst run.

            Exact under ties='average' (linear in the expected misplacement at each rank).

            >>> from trunc_accessor.frontends.single import space_ratio_plus
            >>> space_ratio_plus([0, 1, 0, 1, 0, 0, 1, 0], R=3)  # 1 − (1 + 4) / (3 + 4 + 5)
            0.5833333333333333

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        depth : default None
            run length N: a shorter ranking is padded with non-relevant documents and a longer one cut to N, as MATTERS does (it uses 1000); None: the ranking's length
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: σ⁺ is linear in each rank's misplacement, which is averaged over its tie group.

        Undefined values
        ----------------
        Undefined when R = 0 (no recall base). An empty ranking with R > 0 is the worst run: ρ = σ⁻ = σ = τ = 0, σ⁺ = 1.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        Ferro, Silvello, Keskustalo, Pirkola & Järvelin, 'The Twist measure for IR evaluation: taking user's effort into account', JASIST 2016, Definitions 4–5 (normalisers extended to any run length)."""
        return self._metric("space_ratio_plus", {"depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def space_ratio_minus(
        self,
        qrels: Frame,
        depth: int | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Backward space ratio σ⁻ = 1 − s⁻ / s⁻max: s⁻ = Σ_j (min_j − j)⁺, the negative
            misplacements (documents ranked above their ideal interval), s⁻max = Σ_{j ≤ min(L, RB)}
            (RB + 1 − j), the worst run's (Ferro et al. Definitions 4–5). 0 for the worst
            and the full-scale run.

            Exact under ties='average' (linear in the expected misplacement at each rank).

            >>> from trunc_accessor.frontends.single import space_ratio_minus
            >>> space_ratio_minus([0, 1, 0, 1, 0, 0, 1, 0], R=3)  # 1 − (3 + 1) / (3 + 2 + 1)
            0.33333333333333337

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        depth : default None
            run length N: a shorter ranking is padded with non-relevant documents and a longer one cut to N, as MATTERS does (it uses 1000); None: the ranking's length
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: σ⁻ is linear in each rank's misplacement, which is averaged over its tie group.

        Undefined values
        ----------------
        Undefined when R = 0 (no recall base). An empty ranking with R > 0 is the worst run: ρ = σ⁻ = σ = τ = 0, σ⁺ = 1.
        An undefined value is 0 by default (``undefined="zero"``), as trec_eval, pytrec_eval, ir_measures and ranx give it, so it counts in means; ``undefined="nan"`` gives NaN (pandas) / null (Polars), left out of means.

        References
        ----------
        Ferro, Silvello, Keskustalo, Pirkola & Järvelin, 'The Twist measure for IR evaluation: taking user's effort into account', JASIST 2016, Definitions 4–5 (normalisers extended to any run length)."""
        return self._metric("space_ratio_minus", {"depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def insq(
        self,
        qrels: Frame,
        T: float = 1.0,
        min_grade: float = 0.0,
        max_grade: float | None = None,
        depth: int = 1000,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """INSQ: the C/W/L measure with C_i = ((i + 2T − 1)/(i + 2T))² (Moffat, Scholer & Thomas,
            ADCS 2012), so E_i = (2T/(i − 1 + 2T))² and INSQ = Σ_i E_i g_i / Σ_i E_i over the
            ``depth`` positions of the list (module docstring: gains in [0, 1], padding), the sum of
            E_i being (2T)² (ψ'(2T) − ψ'(depth + 2T)), ψ' the trigamma function (summed without
            cancellation, ``padding_sum``). T is the gain the
            user wants; it sets a patience that does not adapt to what is found (INST does).

            >>> from trunc_accessor.frontends.single import insq
            >>> round(insq([1, 0, 1], T=1.0, max_grade=1), 6)  # cwl_eval's value
            0.485297
            >>> round(insq([1, 0, 1], T=1.0, max_grade=1, depth=None), 6)  # the list without end
            0.484546

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        T : default 1.0
            T: the gain the user sets out to find, in units of the top grade's gain
        min_grade : default 0.0
            grades at or below it gain 0 (ir_measures' min_rel)
        max_grade : default None
            grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels
        depth : default 1000
            length of the list the user model runs over: the ranking cut there and padded with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the weights are fixed per position, so every gain is replaced by its tie group's mean gain (McSherry & Najork 2008).

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) and whenever no retrieved grade lies above min_grade; the gains do not depend on relevance_level, so R = 0 is scored like any other query.

        References
        ----------
        Moffat, Scholer & Thomas, 'Models and metrics: IR evaluation as a user process', ADCS 2012 (INSQ, C_i = ((i + 2T − 1)/(i + 2T))²); Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', SIGIR 2019 (cwl_eval, which ir_measures runs)."""
        return self._metric("insq", {"T": T, "min_grade": min_grade, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def sdcg(
        self,
        qrels: Frame,
        k: int | None = None,
        min_grade: float = 0.0,
        max_grade: float | None = None,
        depth: int = 1000,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Scaled DCG: DCG@k with gains in [0, 1] over the DCG@k of k documents of gain 1,

                SDCG@k = Σ_{i≤k} g_i/log2(i + 1) / Σ_{i≤k} 1/log2(i + 1),

            cwl_eval's NDCG-k and ir_measures' ``SDCG@k``: the C/W/L measure with C_i = log(i +
            1)/log(i + 2) for i < k, so the ideal does not depend on the qrels (it assumes k
            documents of the top grade exist). k is cut at ``depth`` (1,000) as in cwl_eval.

            >>> from trunc_accessor.frontends.single import sdcg
            >>> round(sdcg([2, 0, 1], k=3, max_grade=2), 6)  # (1 + 0.5/2) / (1 + 1/log2(3) + 1/2)
            0.586598

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        k : default None
            rank cut-off; None = the whole ranking
        min_grade : default 0.0
            grades at or below it gain 0 (ir_measures' min_rel)
        max_grade : default None
            grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels
        depth : default 1000
            length of the list the user model runs over: the ranking cut there and padded with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: the weights are fixed per position, so every gain is replaced by its tie group's mean gain (McSherry & Najork 2008).

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) and whenever no retrieved grade lies above min_grade; the gains do not depend on relevance_level, so R = 0 is scored like any other query.

        References
        ----------
        Järvelin & Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', ACM TOIS 20(4), 2002 (DCG), as the C/W/L measure of cwl_eval (NDCG-k, C_i = log(i + 1)/log(i + 2)); Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', SIGIR 2019 (cwl_eval, which ir_measures runs)."""
        return self._metric("sdcg", {"k": k, "min_grade": min_grade, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def inst(
        self,
        qrels: Frame,
        T: float = 1.0,
        min_grade: float = 0.0,
        max_grade: float | None = None,
        depth: int = 1000,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """INST: the adaptive C/W/L measure of Moffat, Bailey, Scholer & Thomas (ADCS 2015),
            C_i = ((i + T + T_i − 1)/(i + T + T_i))² with T_i = T − G_i the gain still wanted after
            position i: a user who finds what they wanted (T_i ≤ 0) soon stops, one who finds
            nothing reads on. INST = Σ_i E_i g_i / Σ_i E_i, E_i = Π_{j<i} C_j, over the ``depth``
            positions of the list (module docstring). Past the ranking (length n, gain G_n) the C_i
            telescope, so the padding's E_i sum to E_{n+1} (n + b)² (ψ'(n + b) − ψ'(depth + b)),
            b = 2T − G_n, ψ' the trigamma function. T ≥ 1/4 keeps every C_i a probability.

            >>> from trunc_accessor.frontends.single import inst
            >>> round(inst([1, 0, 1], T=1.0, max_grade=1), 6)  # cwl_eval's value
            0.723289

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        T : default 1.0
            T ≥ 1/4: the gain the user sets out to find, in units of the top grade's gain
        min_grade : default 0.0
            grades at or below it gain 0 (ir_measures' min_rel)
        max_grade : default None
            grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels
        depth : default 1000
            length of the list the user model runs over: the ranking cut there and padded with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused where the order matters: the weights depend on the gains read before (C_i depends on G_i), and the mean over a tie's orders has no closed form; under ties='average' a tie that mixes gains, is reached with positive probability and has at least two positions in the weighted part of the list raises a ValueError naming the query (pass ties='first'). Other ties take the group mean gain, which is then exact.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) and whenever no retrieved grade lies above min_grade; the gains do not depend on relevance_level, so R = 0 is scored like any other query.

        References
        ----------
        Moffat, Bailey, Scholer & Thomas, 'INST: An adaptive metric for information retrieval evaluation', ADCS 2015 (C_i = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − G_i); Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', SIGIR 2019 (cwl_eval, which ir_measures runs)."""
        return self._metric("inst", {"T": T, "min_grade": min_grade, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def bpm(
        self,
        qrels: Frame,
        T: float = 1.0,
        k: int | None = None,
        min_grade: float = 0.0,
        max_grade: float | None = None,
        depth: int = 1000,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Bejeweled Player Model (static): the user reads until the gain gathered reaches T
            (the benefit bound) or k documents are read (the cost bound, each document costing 1),
            whichever comes first (Zhang et al., SIGIR 2017; cwl_eval's BPM-Static,
            ``C_i = [G_i < T][i < k]``). Every position up to the stopping position
            L = min(first i with G_i ≥ T, k, depth) weighs 1/L, so BPM = G_L / L, G_L the gain of
            the first L documents (gains in [0, 1], module docstring). The cumulative gains are
            summed in ranking order, as cwl_eval does, so that G_i ≥ T is decided as there.

            >>> from trunc_accessor.frontends.single import bpm
            >>> bpm([0, 1, 1, 1], T=2.0, k=10, max_grade=1)  # stops at 3 with G = 2
            0.6666666666666666
            >>> bpm([0, 0, 1], T=1.0, k=2, max_grade=1)  # stops at k = 2 with nothing
            0.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        T : default 1.0
            T: the gain the user sets out to find, in units of the top grade's gain
        k : default None
            rank cut-off; None = the whole ranking
        min_grade : default 0.0
            grades at or below it gain 0 (ir_measures' min_rel)
        max_grade : default None
            grade of gain 1 (ir_measures' max_rel); None: the largest grade of the qrels
        depth : default 1000
            length of the list the user model runs over: the ranking cut there and padded with gain-0 documents (cwl_eval's max_n, 1,000); None: a list without end
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Refused where the order matters: a tie that mixes gains, is read (it starts before min(k, depth) and before the gain reaches T) and in some order reaches T before its last document raises a ValueError naming the query under ties='average' (pass ties='first'). Otherwise the stopping position does not depend on the tie's order and the group mean gain is exact.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking (the user reads only gain-0 documents) and whenever no retrieved grade lies above min_grade; the gains do not depend on relevance_level, so R = 0 is scored like any other query.

        References
        ----------
        Zhang, Liu, Li, Zhang, Xu & Ma, 'Evaluating web search with a Bejeweled Player Model', SIGIR 2017 (static BPM: the user stops at benefit T or cost k); Moffat, Bailey, Scholer & Thomas, 'Incorporating user expectations and behavior into the measurement of search effectiveness', ACM TOIS 35(3), 2017 (the C/W/L framework); Azzopardi, Thomas & Moffat, 'cwl_eval: An evaluation tool for information retrieval', SIGIR 2019 (cwl_eval, which ir_measures runs)."""
        return self._metric("bpm", {"T": T, "k": k, "min_grade": min_grade, "max_grade": max_grade, "depth": depth}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def flat_utility(
        self,
        qrels: Frame,
        e: float = 0.05,
        graded: bool = False,
        max_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """Flat utility: U = Σ_{i=1..n} (Gain(d_i) − e), the gain retrieved minus e per document
            inspected, with no position discount (Amigó et al. §3.3; printed there with a typo in
            the summation index).

            Parameters: ``e=0.05`` (the paper's 1/20), ``graded=False`` (binary gain, grade ≥
            relevance_level; True: grade / max_grade), ``max_grade=None`` (the largest grade of the
            qrels). Unbounded; R = 0 gives −e·n, the empty ranking 0. Order-free, so ties change
            nothing.

            >>> from trunc_accessor.frontends.single import flat_utility
            >>> round(flat_utility([1, 0, 1]), 4)  # (1 − .05) + (0 − .05) + (1 − .05)
            1.85
            >>> flat_utility([])
            0.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        e : default 0.05
            effort of inspecting one document, in gain units (the paper's 1/20: a relevant document at rank 1 is worth inspecting 20 documents)
        graded : default False
            False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade
        max_grade : default None
            the top of the grade scale for graded=True; default: the largest grade in the qrels
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008); a group cut by a cut-off counts the share of its positions inside it.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking; R = 0 is scored like any other query (no gain, so every retrieved document only costs effort and 0 is the best value).

        References
        ----------
        Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better and How to Measure That', SIGIR 2022, §3.3 (Flat Utility); tie-aware by group-mean gains (McSherry & Najork, ECIR 2008)."""
        return self._metric("flat_utility", {"e": e, "graded": graded, "max_grade": max_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def dcgu(
        self,
        qrels: Frame,
        e: float = 0.05,
        graded: bool = False,
        max_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """DCGU = Σ_{i=1..n} (Gain(d_i) − e) / log2(i + 1): DCG with an effort e per document
            inspected, discounted like the gain (Amigó et al. §3.3).

            Parameters: ``e=0.05`` (the paper's 1/20), ``graded=False`` (binary gain; True: grade /
            max_grade), ``max_grade=None`` (the largest grade of the qrels). Not normalised
            (it can be negative, so no ideal ranking bounds it; §3.3). R = 0 gives
            −e·Σ_{i≤n} 1/log2(i + 1); the empty ranking 0. Tie-aware by group-mean gains.

            >>> from trunc_accessor.frontends.single import dcgu
            >>> round(dcgu([1, 0, 1]), 6)  # .95/1 − .05/log2(3) + .95/log2(4)
            1.393454

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        e : default 0.05
            effort of inspecting one document, in gain units (the paper's 1/20: a relevant document at rank 1 is worth inspecting 20 documents)
        graded : default False
            False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade
        max_grade : default None
            the top of the grade scale for graded=True; default: the largest grade in the qrels
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008); a group cut by a cut-off counts the share of its positions inside it.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking; R = 0 is scored like any other query (no gain, so every retrieved document only costs effort and 0 is the best value).

        References
        ----------
        Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better and How to Measure That', SIGIR 2022, §3.3 (DCGU); tie-aware by group-mean gains (McSherry & Najork, ECIR 2008)."""
        return self._metric("dcgu", {"e": e, "graded": graded, "max_grade": max_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def rbpu(
        self,
        qrels: Frame,
        p: float = 0.8,
        e: float = 0.05,
        graded: bool = False,
        max_grade: float | None = None,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """RBPU = (1 − p) Σ_{k=1..n} (Gain(d_k) − e) · p^(k−1): rank-biased precision with an
            effort e per document inspected (Amigó et al. §3.3; the paper uses p = 0.8, 0.9, 0.98).

            Parameters: ``p=0.8`` (persistence), ``e=0.05`` (the paper's 1/20), ``graded=False``
            (binary gain; True: grade / max_grade), ``max_grade=None`` (the largest grade of
            the qrels). With e = 0 it is RBP. R = 0 gives −e·(1 − p^n); the empty ranking 0.
            Tie-aware by group-mean gains.

            >>> from trunc_accessor.frontends.single import rbpu
            >>> round(rbpu([1, 0, 1]), 4)  # .2 · (.95 − .05 · .8 + .95 · .64)
            0.3036

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        p : default 0.8
            persistence, the probability of going on to the next rank
        e : default 0.05
            effort of inspecting one document, in gain units (the paper's 1/20: a relevant document at rank 1 is worth inspecting 20 documents)
        graded : default False
            False: binary gain (grade ≥ relevance_level); True: gain = grade / max_grade
        max_grade : default None
            the top of the grade scale for graded=True; default: the largest grade in the qrels
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Exact: every gain is replaced by its tie group's mean gain (McSherry & Najork 2008); a group cut by a cut-off counts the share of its positions inside it.

        Undefined values
        ----------------
        Never undefined: 0 for an empty ranking; R = 0 is scored like any other query (no gain, so every retrieved document only costs effort and 0 is the best value).

        References
        ----------
        Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better and How to Measure That', SIGIR 2022, §3.3 (RBPU); tie-aware by group-mean gains (McSherry & Najork, ECIR 2008)."""
        return self._metric("rbpu", {"p": p, "e": e, "graded": graded, "max_grade": max_grade}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)

    def f_measure(
        self,
        qrels: Frame,
        *,
        ties: str = "average",
        by: str | Sequence[str] | None = None,
        queries: Iterable[Any] | None = None,
        relevance_level: float = 1,
        judged_only: bool = False,
        undefined: str = "zero",
    ) -> Values:
        """F-measure of the truncated ranking taken as a set: the harmonic mean of its precision
            and recall, F = 2·rel_ret / (n + R) (β = 1; Amigó et al. §3.1, Table 1 and §4, where
            it is one of the truncation metrics compared). No parameters.

            Binary relevance (grade ≥ relevance_level). The order inside the ranking does not matter,
            so ties do not either. n = R = 0 gives 1: for a nil-answer query the system returned
            nothing, which is exactly right (precision and recall are both vacuously perfect), and
            the paper's use of F as a truncation metric needs it to rank that answer above any
            non-empty one. This is where it differs from ``f1`` (``k=None``), which leaves 0/0
            undefined as trec_eval's ``set_F``. R = 0 with n > 0 gives 0; an empty ranking with
            R > 0 gives 0.

            >>> from trunc_accessor.frontends.single import f_measure
            >>> round(f_measure([1, 0, 1], R=4), 4)  # 2·2 / (3 + 4)
            0.5714
            >>> f_measure([], R=0)
            1.0

        Parameters
        ----------
        qrels : DataFrame
            Judgments (qid, docid, rel), pandas or Polars.
        ties : {'average', 'first', 'trec_eval', 'trec_eval9'}, default 'average'
            'average': exact mean over every order of tied scores (McSherry & Najork 2008);
            'first': the order as given; 'trec_eval': score desc, docid desc (trec_eval's order);
            'trec_eval9': the same with scores compared as float32 (trec_eval 9.0.8, pytrec_eval).
        by : str or list of str, optional
            Key columns holding many systems in one frame; values per (by…, qid). Any
            column name works; a missing key (None/NaN/null) is a system of its own.
        queries : iterable, optional
            Extra qids to score though they have no judgments (R = 0).
        undefined : {'zero', 'nan'}, default 'zero'
            An undefined value (e.g. R = 0, see below) is 0, as in trec_eval, pytrec_eval,
            ir_measures and ranx; 'nan': NaN (pandas) / null (Polars), left out of means.
        relevance_level : number > 0, default 1
            A document is relevant when its grade is ≥ this (unjudged documents count
            as grade 0, so they never are).

        Returns
        -------
        pandas: Series indexed by qid (or by…, qid) named after the metric;
        Polars: frame with the key columns and one Float64 column named after the metric.

        Ties
        ----
        Order-free: no order of tied documents changes the value.

        Undefined values
        ----------------
        Never undefined: 1 when the ranking is empty and R = 0, else 0 for R = 0 or an empty ranking.

        References
        ----------
        Amigó, Mizzaro & Spina, 'Ranking Interruptus: When Truncated Rankings Are Better and How to Measure That', SIGIR 2022, §3.1 and §4 (F-measure of the truncated ranking); tie-invariant."""
        return self._metric("f_measure", {}, qrels,
                            ties=ties, by=by, queries=queries,
                            relevance_level=relevance_level,
                            judged_only=judged_only, undefined=undefined)
