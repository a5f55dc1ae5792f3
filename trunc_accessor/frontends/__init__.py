"""Thin frontends: validate the call, hand columns to the engine, convert the answer back.

``pandas``, ``polars`` (DataFrame and LazyFrame) and ``dask`` register the ``.ir``
accessors, whose methods are ``namespace``'s tools and one written-out method per metric
(``_generated``, written from the registry by ``_codegen``); ``entry.ir(run)`` returns the
namespace of a run, typed per library; ``single`` scores one ranking given as a list of
grades; ``parquet`` evaluates Parquet files in query batches; ``cli`` is the command line
(trec_eval's and ndeval's interfaces)."""
