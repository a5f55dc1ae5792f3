"""Input and output: TREC run and qrels files (``trunc_accessor.io.read`` and
``trunc_accessor.io.parse`` in, ``trunc_accessor.io.write`` out, ``trunc_accessor.io.examples``
the shipped collections) and the command line with trec_eval's interface
(``trunc_accessor.frontends.cli.trec_eval``)."""
from trunc_accessor.io.examples import example_path, load_example
from trunc_accessor.io.read import read_qrels, read_run
from trunc_accessor.io.write import write_run

__all__ = ["example_path", "load_example", "read_qrels", "read_run", "write_run"]
