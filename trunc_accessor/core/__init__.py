"""The evaluation core: what every call goes through, whatever the frame library.

* ``trunc_accessor.core.frames`` — the checks and normalisation of input frames, results back as
  pandas/Polars frames; ``columns`` (names, aliases, roles) and ``keys`` (the
  identifier rule, key types, system codes) are its parts;
* ``prepare`` — one columnar preparation per call (qrels joined, rankings ordered, tie
  groups, per-query R and ideal gains, empty rankings for queries a system lacks);
* ``registry`` — metrics declared once (name, parameters and their domains, aliases,
  docstring, tie form, undefined cases) and parsed from strings;
* ``names``, ``trec_dialect`` — the trec_eval, ir_measures and ranx dialects;
* ``engine`` — prepare, run the kernels, shape the answer; ``batches`` — lazy runs
  a batch of whole queries at a time; ``truncation`` — cut-offs and optimal depths;
* ``results`` — reading per-query result frames back (for the analysis functions).
"""
