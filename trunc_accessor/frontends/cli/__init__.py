"""The command line: ``trunc-accessor`` with trec_eval's interface (``trec_eval``: run the
evaluation and print; ``options``: the parser and ``-m``'s measures; ``output``: the lines
and tables printed; ``imports``: ``--import``), its ``-R`` relevance formats
(``rel_formats``) and ndeval's mode (``ndeval``)."""
