"""The test collections shipped inside the package (``trunc_accessor/data``, each with its
ORIGIN): :func:`example_path`, :func:`load_example`."""
from __future__ import annotations

from importlib import resources

from .._typing import Result
from ..core.frames import InputError
from .read import _as, _check_library, read_qrels, read_run


def example_path(name: str) -> str:
    """Path of a file shipped in ``trunc_accessor/data`` (see its ORIGIN file)."""
    return str(resources.files("trunc_accessor").joinpath("data", name))


EXAMPLES = ("trec_eval", "cranfield", "robust03", "web2012")


def load_example(name: str = "trec_eval", library: str | None = None) -> tuple[Result, Result]:
    """(run, qrels) of a test collection shipped with the package (offline).

    ``name``:

    * ``"trec_eval"`` (default): trec_eval's own test collection, a real TREC run for topics
      301–303 (500 documents each, system ``STANDARD``) and its binary qrels.
    * ``"cranfield"``: the Cranfield collection (1,400 abstracts, 225 queries, all judged),
      seven real retrieval systems (BM25 with and without stemming, BM25L, BM25+, title-only
      BM25, TF-IDF cosine, Dirichlet query likelihood; top 100 each, ties kept) in one frame
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

    >>> import trunc_accessor
    >>> runs, qrels = trunc_accessor.load_example("cranfield")
    >>> runs["system"].nunique(), runs["qid"].nunique(), str(qrels["rel"].dtype)
    (7, 225, 'int64')
    """
    if name in ("pandas", "polars"):
        if library is not None and library != name:
            raise InputError(f"load_example({name!r}, library={library!r}): the first argument "
                             "names a library; pass the collection as name=")
        name, library = "trec_eval", name
    library = _check_library("pandas" if library is None else library)
    if name == "trec_eval":
        return (read_run(example_path("results.test"), library),
                read_qrels(example_path("qrels.test"), library))
    if name == "cranfield":
        folder = resources.files("trunc_accessor").joinpath("data", "cranfield")
        runs = sorted(str(p) for p in folder.iterdir() if p.name.endswith(".run.gz"))
        return read_run(runs, library), read_qrels(str(folder.joinpath("qrels.txt")), library)
    if name == "robust03":
        folder = resources.files("trunc_accessor").joinpath("data", "robust03")
        return (read_run(str(folder.joinpath("uic0301.run.gz")), library),
                read_qrels(str(folder.joinpath("qrels.txt.gz")), library))
    if name == "web2012":
        folder = resources.files("trunc_accessor").joinpath("data", "web2012")
        runs = sorted(str(p) for p in folder.iterdir() if p.name.endswith(".run.gz"))
        return (read_run(runs, library),
                read_qrels(str(folder.joinpath("qrels.diversity.txt.gz")), library,
                           subtopics=True))
    raise InputError(f"load_example: unknown collection {name!r}; the shipped ones are "
                     f"{list(EXAMPLES)} (or pass library='pandas'/'polars')")


JUDGES = ("llmjudge", "robust03", "cranfield")
LLMJUDGE = ("willia-umbrela1", "Olz-gpt4o", "h2oloo-zeroshot1", "RMITIR-llama70B")


def load_judges(name: str = "llmjudge", library: str | None = None) -> dict[str, Result]:
    """Several judges' qrels over the same pairs, shipped with the package (offline), as
    {judge name: qrels frame} for :mod:`trunc_accessor.judges`.

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

