"""The command line: ``trunc-accessor`` with trec_eval's interface (``trec_eval``), its
``-R`` relevance formats (``rel_formats``) and ndeval's mode (``ndeval``)."""
