"""The commands: ``trunc-accessor`` (also ``python -m trunc_accessor``), trec_eval's
interface, ``trunc-accessor-ndeval``, ndeval's, ``trunc-accessor-sample-eval``, NIST's
sample_eval.pl's, and ``trunc-accessor-gdeval``, the TREC Web track's gdeval.pl's; all print
the package's version with ``--version``."""
from __future__ import annotations

import sys

from trunc_accessor import __version__
from trunc_accessor.frontends.cli import trec_eval as _cli


def main(argv: list[str] | None = None) -> int:
    """``trunc-accessor [options] QRELS RUN [RUN ...]``: trec_eval's command line; the exit
    status (0, or 2 on bad input)."""
    return _cli.main(argv, version=__version__)


def main_ndeval(argv: list[str] | None = None) -> int:
    """``trunc-accessor-ndeval [options] QRELS RUN``: ndeval's command line; the exit status
    (0, or 2 on bad input)."""
    return _cli.main_ndeval(argv, version=__version__)


def main_sample_eval(argv: list[str] | None = None) -> int:
    """``trunc-accessor-sample-eval [-q] QRELS RUN [-G LVL:NUM ...]``: NIST's sample_eval.pl's
    command line; the exit status (0, or 2 on bad input)."""
    from trunc_accessor.frontends.cli import sample_eval

    return sample_eval.main(argv, version=__version__)


def main_gdeval(argv: list[str] | None = None) -> int:
    """``trunc-accessor-gdeval [-c] [-k K] [-baseline RUN [-riskAlpha A]] QRELS RUN``:
    gdeval.pl 1.3's command line; the exit status (0, or 2 on bad input)."""
    from trunc_accessor.frontends.cli import gdeval

    return gdeval.main(argv, version=__version__)


if __name__ == "__main__":
    sys.exit(main())
