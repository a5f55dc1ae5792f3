"""Input and output: TREC run and qrels files (:mod:`.read` and :mod:`.parse` in,
:mod:`.write` out, :mod:`.examples` the shipped collections) and the command line with
trec_eval's interface (:mod:`.cli`)."""
from .examples import example_path, load_example
from .read import read_qrels, read_run
from .write import write_run

__all__ = ["example_path", "load_example", "read_qrels", "read_run", "write_run"]
