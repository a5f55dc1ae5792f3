"""Analysis of per-query results: :mod:`.aggregate` (trec_eval's summaries), :mod:`.stats`
(paired tests, corrections, intervals, Tukey HSD), :mod:`.experiment` (the experiment table
and its report), :mod:`.plot` (figures), :mod:`.agreement` (rank correlations between
metrics and rankings) and :mod:`.properties` (the formal-property checker). SciPy and
matplotlib load on first use."""
