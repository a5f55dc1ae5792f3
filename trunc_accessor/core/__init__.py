"""The evaluation core, below every metric: input frames in, one ``Prepared`` out.

* ``columns`` (column names, aliases and roles) and ``keys`` (the identifier rule, key types,
  system codes), used by ``frames``: the checks and normalisation of input frames, and the
  results back as pandas/Polars frames;
* ``prepare``: one columnar preparation per call (qrels joined, rankings ordered, tie groups,
  per-query R and ideal gains, empty rankings for queries a system lacks), filling
  ``prepared`` (the arrays every kernel reads, derived arrays built on first use) and
  ``aspects`` (the subtopic judgments of diversity qrels);
* ``ordering``: the permutation that puts run rows in ranking order (for ``prepare``, and
  the fusion of runs);
* ``numbers``: numbers passed as arguments, checked (lists of grades or scores, whole
  numbers, ``truncate``'s depths);
* ``joins``: run rows matched to qids and judgments by 64-bit keys (for ``prepare``);
* ``notes``: what a call has to say about its input, said once at its end;
* ``results``: reading per-query result frames back (for the analysis functions).

It imports no metric, engine, frontend or analysis module.
"""
