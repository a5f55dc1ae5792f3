"""The evaluation core: frames in, one columnar preparation out, whatever the frame library.

* ``frames`` — the checks and normalisation of input frames, results back as pandas/Polars
  frames; ``columns`` (names, aliases, roles) and ``keys`` (the identifier rule, key
  types, system codes) are its parts;
* ``prepare`` — one columnar preparation per call (qrels joined, rankings ordered, tie
  groups, per-query R and ideal gains, empty rankings for queries a system lacks), built
  in named steps; ``joins`` (run rows matched to qids and judgments by 64-bit keys),
  ``notes`` (what a call says about its input), ``aspects`` (diversity qrels: subtopic
  ids, weights, and the subtopic pairs of a preparation);
* ``prepared`` — ``Prepared``, the data contract the kernels read (derived arrays lazily);
* ``results`` — reading per-query result frames back (for the analysis functions).
"""
