"""Thin frontends: validate the call, hand columns to the engine, convert the answer back.

``pandas``, ``polars`` (DataFrame and LazyFrame) and ``dask`` register the ``.ir``
accessors, whose methods are shared through ``namespace``; ``single`` scores one ranking
given as a list of grades; ``parquet`` evaluates Parquet files in query batches; ``cli``
is the command line (trec_eval's and ndeval's interfaces)."""
