"""Thin frontends: validate the call, hand columns to the engine, convert the answer back.

``pandas``, ``polars`` (DataFrame and LazyFrame) and ``dask`` register the
``.ir`` accessors, all built from the registry by ``_methods``; ``single`` scores
one ranking given as a list of grades."""
