"""Files in and out: TREC run and qrels files (``read`` and ``parse`` in, ``write`` out),
ir_datasets qrels (``irds``), trec_eval 10's preference and z-score files (``prefs``,
``zscores``) and the shipped example collections (``examples``)."""
from trunc_accessor.io.examples import example_path, load_example
from trunc_accessor.io.read import read_qrels, read_run
from trunc_accessor.io.write import write_run

__all__ = ["example_path", "load_example", "read_qrels", "read_run", "write_run"]
