"""Analysis of per-query results: ``aggregate`` (trec_eval's summaries), ``stats``
(paired tests, corrections, intervals, Tukey HSD), ``experiment`` (the experiment table
and its report), ``plot`` (figures), ``agreement`` (rank correlations between
metrics and rankings) and ``properties`` (the formal-property checker). SciPy and
matplotlib load on first use."""
