"""Thin frontends: validate the call, hand columns to the engine, convert the answer back.

:mod:`.pandas`, :mod:`.polars` (DataFrame and LazyFrame) and :mod:`.dask` register the
``.ir`` accessors, all built from the registry by :mod:`._methods`; :mod:`.single` scores
one ranking given as a list of grades."""
