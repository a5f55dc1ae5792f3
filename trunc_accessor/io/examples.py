"""The test collections shipped inside the package (``trunc_accessor/data``, each with its
ORIGIN): ``example_path``, ``load_example``."""
from __future__ import annotations

from importlib import resources

import numpy as np
import pyarrow as pa

from trunc_accessor._typing import Result
from trunc_accessor.errors import InputError, ParameterError
from trunc_accessor.io.read import _as, _check_library, _run_table, read_qrels


def example_path(name: str) -> str:
    """Path of a file shipped in ``trunc_accessor/data`` (see its ORIGIN file)."""
    return str(resources.files("trunc_accessor").joinpath("data", name))


EXAMPLES = ("trec_eval", "cranfield", "robust03", "web2012")


def load_example(name: str = "trec_eval", library: str | None = None,
                 depth: int | None = None) -> tuple[Result, Result]:
    """(run, qrels) of a test collection shipped with the package (offline).

    ``name``:

    * ``"trec_eval"`` (default): trec_eval's own test collection, a real TREC run for topics
      301–303 (500 documents each, system ``STANDARD``) and its binary qrels.
    * ``"cranfield"``: the Cranfield collection (1,400 documents indexed by title and
      abstract, 225 queries, all judged), seven real retrieval systems with their textbook
      settings (BM25 with and without stemming, BM25L, BM25+, title-only BM25, TF-IDF cosine,
      Dirichlet query likelihood; top 1,000 each, 1.27 million rows, ties kept) in one frame
      told apart by its ``system`` column, and graded qrels where higher is more relevant
      (4 = complete answer ... 1 = minimum interest, 0 = of no interest; ir_datasets'
      reading of the raw codes). ``data/cranfield/ORIGIN`` says how they were made
      (``examples/make_cranfield_runs.py``).

    * ``"robust03"``: a real TREC 2003 Robust track run (``uic0301``, 100 topics, up to
      1,000 documents each, no ties) and the track's qrels as trectools ships them (graded
      0–2; ten judgments of topic 303 changed from 0 to 1: ``data/robust03/ORIGIN``).

    * ``"web2012"``: diversity. Topics 151–160 of the TREC 2012 Web track: its diversity
      qrels (qid, subtopic, docid, rel; grades −2 (spam) to 4) and four Indri baseline runs
      (``ql-cata``, ``ql-catb``, ``rm-cata``, ``rm-catb``: top 100, ties kept) in one frame
      told apart by its ``system`` column (``data/web2012/ORIGIN``).

    ``library``: ``"pandas"`` (default) or ``"polars"``. For backward compatibility the first
    argument may also be the library (``load_example("polars")`` is
    ``load_example("trec_eval", library="polars")``).

    ``depth``: keep only the first ``depth`` documents of each ranking (each system's, each
    query's), as ``trec_eval -M depth`` reads a run: in trec_eval's order, score descending
    and equal scores by docid descending (byte order). ``None`` (default) keeps the files as
    shipped. The frame is smaller and evaluates faster (the files are still read whole), for
    uses where the deep end does not matter: measures at cut-offs up to ``depth`` keep their
    values (with ``ties="average"`` except where a tie in score straddles the cut), measures
    over the whole ranking (AP, nDCG, recall) change. ``load_example("cranfield",
    depth=100)`` holds exactly what ``examples/make_cranfield_runs.py --depth 100`` writes.

    >>> import trunc_accessor
    >>> runs, qrels = trunc_accessor.load_example("cranfield")
    >>> runs["system"].nunique(), runs["qid"].nunique(), str(qrels["rel"].dtype)
    (7, 225, 'int64')
    >>> top, _ = trunc_accessor.load_example("cranfield", depth=100)
    >>> len(runs), len(top), int(top.groupby(["system", "qid"]).size().max())
    (1272334, 156874, 100)
    """
    if name in ("pandas", "polars"):
        if library is not None and library != name:
            raise InputError(f"load_example({name!r}, library={library!r}): the first argument "
                             "names a library; pass the collection as name=")
        name, library = "trec_eval", name
    library = _check_library("pandas" if library is None else library)
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer))
                              or depth < 1):
        raise ParameterError(f"load_example: depth must be a whole number ≥ 1 (documents kept "
                             f"per ranking) or None (as shipped), not {depth!r}")
    run: str | list[str]
    if name == "trec_eval":
        run, qrels = example_path("results.test"), example_path("qrels.test")
    elif name == "cranfield":
        folder = resources.files("trunc_accessor").joinpath("data", "cranfield")
        run = sorted(str(p) for p in folder.iterdir() if p.name.endswith(".run.gz"))
        qrels = str(folder.joinpath("qrels.txt"))
    elif name == "robust03":
        folder = resources.files("trunc_accessor").joinpath("data", "robust03")
        run, qrels = str(folder.joinpath("uic0301.run.gz")), str(folder.joinpath("qrels.txt.gz"))
    elif name == "web2012":
        folder = resources.files("trunc_accessor").joinpath("data", "web2012")
        run = sorted(str(p) for p in folder.iterdir() if p.name.endswith(".run.gz"))
        qrels_frame = read_qrels(str(folder.joinpath("qrels.diversity.txt.gz")), library,
                                 subtopics=True)
        table = _run_table(run)
        if depth is not None:
            table = _first(table, int(depth))
        return _as(library, table), qrels_frame
    else:
        raise InputError(f"load_example: unknown collection {name!r}; the shipped ones are "
                         f"{list(EXAMPLES)} (or pass library='pandas'/'polars')")
    table = _run_table(run)
    if depth is not None:
        table = _first(table, int(depth))
    return _as(library, table), read_qrels(qrels, library)


def _first(table: pa.Table, depth: int) -> pa.Table:
    """The first ``depth`` rows of each (system, qid) ranking in trec_eval's order (score
    descending, equal scores by docid descending in byte order), in the table's row order.
    Arrow sorts the row numbers; a ranking's rows are then consecutive, and a row is kept
    when fewer than ``depth`` rows of its ranking come before it."""
    import pyarrow.compute as pc  # here: importing it costs the command line's start-up

    keys = [c for c in ("system", "qid") if c in table.column_names]
    order = pc.sort_indices(table, sort_keys=[*((k, "ascending") for k in keys),
                                              ("score", "descending"),
                                              ("docid", "descending")]).to_numpy()
    n = len(order)
    starts = np.zeros(n, dtype=bool)
    starts[:1] = True
    for k in keys:  # a new ranking starts where a key changes
        codes = pc.dictionary_encode(table.column(k).combine_chunks(),
                                     null_encoding="encode").indices.to_numpy()[order]
        starts[1:] |= codes[1:] != codes[:-1]
    position = np.arange(n)
    position -= np.maximum.accumulate(np.where(starts, position, 0))
    keep = np.zeros(n, dtype=bool)
    keep[order[position < depth]] = True
    return table.filter(pa.array(keep))

JUDGES = ("llmjudge", "robust03", "cranfield")
LLMJUDGE = ("willia-umbrela1", "Olz-gpt4o", "h2oloo-zeroshot1", "RMITIR-llama70B")


def load_judges(name: str = "llmjudge", library: str | None = None) -> dict[str, Result]:
    """Several judges' qrels over the same pairs, shipped with the package (offline), as
    {judge name: qrels frame} for ``trunc_accessor.judges``.

    ``name``:

    * ``"llmjudge"`` (default): four LLM judges of the LLMJudge challenge (SIGIR 2024 LLM4Eval
      workshop; Rahmani et al., "Judging the Judges", 2025): each labels the same 4,423
      TREC 2023 Deep Learning query–passage pairs (25 queries) on the 0–3 scale;
      ``RMITIR-llama70B`` gives two labels of 5, outside the scale, as submitted.
    * ``"robust03"``: the TREC 2003 Robust track qrels (128,796 graded judgments, 0–2) as
      TrecTools ships them, ``"original"``, and its ``"modified"`` copy (ten non-relevant
      judgments of topic 303 turned relevant; the qrels ``load_example("robust03")`` reads).
    * ``"cranfield"``: Cranfield's ``"assessors"`` (the qrels of ``load_example("cranfield")``)
      and a synthetic ``"second"`` judge made from them with a stated, seeded noise model
      (examples/make_second_judge.py: one grade up with probability 0.30, down with 0.15,
      2% of the pairs unlabelled); the seven Cranfield runs rank under both.

    ``data/llmjudge/ORIGIN``, ``data/robust03/ORIGIN`` and ``data/judges/ORIGIN`` give
    sources, commits and licences. ``library``: ``"pandas"`` (default) or ``"polars"``.

    >>> import trunc_accessor
    >>> judges = trunc_accessor.judges.load_judges("llmjudge")
    >>> sorted(judges), len(judges["Olz-gpt4o"])
    (['Olz-gpt4o', 'RMITIR-llama70B', 'h2oloo-zeroshot1', 'willia-umbrela1'], 4423)
    """
    library = _check_library("pandas" if library is None else library)
    data = resources.files("trunc_accessor").joinpath("data")
    if name == "llmjudge":
        folder = data.joinpath("llmjudge")
        return {j: read_qrels(str(folder.joinpath(f"{j}.txt.gz")), library) for j in LLMJUDGE}
    if name == "robust03":
        folder = data.joinpath("robust03")
        modified = read_qrels(str(folder.joinpath("qrels.txt.gz")), "polars")
        # the original's labels of the ten pairs the modified copy changed
        fix = read_qrels(str(folder.joinpath("qrels_original_labels.txt")), "polars")
        original = modified.update(fix, on=["qid", "docid"])
        return {"original": _as(library, original.to_arrow()),
                "modified": _as(library, modified.to_arrow())}
    if name == "cranfield":
        return {"assessors": read_qrels(str(data.joinpath("cranfield", "qrels.txt")), library),
                "second": read_qrels(str(data.joinpath("judges", "cranfield_second_judge.txt")),
                                     library)}
    raise InputError(f"load_judges: unknown judges {name!r}; the shipped ones are "
                     f"{list(JUDGES)}")

