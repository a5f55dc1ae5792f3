from __future__ import annotations

import os
from pathlib import Path

import pytest

# the scripts that made the stored peer outputs under tests/data (make_inputs.py and the
# like) are records of how the files were made, not tests: --doctest-modules leaves them
collect_ignore_glob = ["data/*"]

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TRUNC_ACCESSOR_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "data"


@pytest.fixture(scope="session")
def cranfield():
    """(runs, qrels) of the shipped Cranfield collection cut to the top 100 of each ranking
    (seven systems in one frame, 156,874 rows): for the tests whose checks do not depend on
    the depth, a tenth of the rows of the shipped files (``cranfield_full``)."""
    import trunc_accessor as ta

    return ta.load_example("cranfield", depth=100)


@pytest.fixture(scope="session")
def cranfield_full():
    """(runs, qrels) of the shipped Cranfield collection as shipped: top 1,000 of each
    ranking, 1,272,334 rows."""
    import trunc_accessor as ta

    return ta.load_example("cranfield")


def need(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"reference data missing: {path} (shared/ must sit beside the project)")
    return path


def read_trec_eval_output(path: Path) -> dict[tuple[str, str], float]:
    """trec_eval -q output: {(measure, qid): value}; 'all' rows and non-numbers skipped."""
    out = {}
    for line in need(path).read_text().splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] == "all":
            continue
        try:
            out[(parts[0], parts[1])] = float(parts[2])
        except ValueError:
            pass
    return out


def pytrec_dicts(run_path: Path, qrels_path: Path):
    """run and qrels as pytrec_eval's dict-of-dicts, parsed here, not by the library."""
    run, qrels = {}, {}
    for line in need(run_path).read_text().splitlines():
        p = line.split()
        if len(p) >= 5:
            run.setdefault(p[0], {})[p[2]] = float(p[4])
    for line in need(qrels_path).read_text().splitlines():
        p = line.split()
        if len(p) >= 4 and not p[0].startswith("#"):
            qrels.setdefault(p[0], {})[p[2]] = int(p[3])
    return run, qrels


def only_library_errors(calls) -> list:
    """Run every call; a value (collected if lazy) or an InputError is fine, anything
    else is returned as (call number, exception type, message)."""
    import polars as pl

    from trunc_accessor import InputError

    stray = []
    for i, call in enumerate(calls):
        try:
            out = call()
            if isinstance(out, pl.LazyFrame):
                out.collect()
        except InputError:
            pass
        except Exception as e:  # noqa: BLE001 - what the test looks for
            stray.append((i, f"{type(e).__module__}.{type(e).__name__}", str(e)[:200]))
    return stray
