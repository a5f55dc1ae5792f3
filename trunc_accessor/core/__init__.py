"""The evaluation core: what every call goes through, whatever the frame library.

* :mod:`.frames` — the checks and normalisation of input frames, results back as
  pandas/Polars frames; :mod:`.columns` (names, aliases, roles) and :mod:`.keys` (the
  identifier rule, key types, system codes) are its parts;
* :mod:`.prepare` — one columnar preparation per call (qrels joined, rankings ordered, tie
  groups, per-query R and ideal gains, empty rankings for queries a system lacks);
* :mod:`.registry` — metrics declared once (name, parameters and their domains, aliases,
  docstring, tie form, undefined cases) and parsed from strings;
* :mod:`.names`, :mod:`.trec_dialect` — the trec_eval, ir_measures and ranx dialects;
* :mod:`.engine` — prepare, run the kernels, shape the answer; :mod:`.batches` — lazy runs
  a batch of whole queries at a time; :mod:`.truncation` — cut-offs and optimal depths;
* :mod:`.results` — reading per-query result frames back (for the analysis functions).
"""
