"""TREC files in and out (trunc_accessor.io): compressed files, stdin and file objects,
whitespace variants and comments, 3-column qrels, the line number of a malformed line,
write_run round trips, several runs at once, and agreement with a naive parse of
trec_eval's own test files."""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import struct
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trunc_accessor as ta
from tests.conftest import DATA, need
from trunc_accessor import InputError
from trunc_accessor.io import write_run

TE = DATA / "trec_eval"
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
COMPRESS = {"plain": lambda b: b, "gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}

RUN_TEXT = ("301 Q0 d1 1 2.5 runA\n"
            "301 Q0 d2 2 1.25 runA\n"
            "302 Q0 d#3 1 -0.5 runA\n")
RUN_ROWS = {"qid": ["301", "301", "302"], "docid": ["d1", "d2", "d#3"],
            "score": [2.5, 1.25, -0.5], "system": ["runA"] * 3}
QRELS_TEXT = "301 0 d1 1\n301 0 d9 0\n302 0 d#3 2\n"
QRELS_ROWS = {"qid": ["301", "301", "302"], "docid": ["d1", "d9", "d#3"], "rel": [1, 0, 2]}


def rows(frame) -> dict[str, list]:
    """Column → values of a pandas or Polars frame (None for missing)."""
    if isinstance(frame, pl.DataFrame):
        return frame.to_dict(as_series=False)
    return {c: [None if v is None or (isinstance(v, float) and np.isnan(v)) else v
                for v in frame[c].tolist()] for c in frame.columns}


def bits(values) -> list[int]:
    return [struct.unpack("<q", struct.pack("<d", v))[0] for v in values]


# ----------------------------------------------------------------------------- naive reference
def naive_run(path: Path) -> dict[str, list]:
    out = {"qid": [], "docid": [], "score": [], "system": []}
    for line in need(path).read_text().splitlines():
        p = line.split()
        if not p or p[0].startswith("#"):
            continue
        for col, v in zip(out, (p[0], p[2], float(p[4]), p[5] if len(p) > 5 else None)):
            out[col].append(v)
    return out


def naive_qrels(path: Path) -> dict[str, list]:
    data = [p for p in (ln.split() for ln in need(path).read_text().splitlines())
            if p and not p[0].startswith("#")]
    three = bool(data) and len(data[0]) == 3
    grades = [float(p[2] if three else p[3]) for p in data]
    if all(g == int(g) for g in grades):
        grades = [int(g) for g in grades]
    return {"qid": [p[0] for p in data], "docid": [p[1 if three else 2] for p in data],
            "rel": grades}


@pytest.mark.parametrize("name", ["results.test", "results.comment.test", "results.trunc"])
@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_read_run_matches_naive_parse(name, library):
    got = ta.read_run(TE / name, library=library)
    assert list(got.columns) == ["qid", "docid", "score", "system"]
    assert rows(got) == naive_run(TE / name)


@pytest.mark.parametrize("name", ["qrels.test", "qrels.rel_level", "qrels.comment.test"])
@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_read_qrels_matches_naive_parse(name, library):
    got = ta.read_qrels(TE / name, library=library)
    assert list(got.columns) == ["qid", "docid", "rel"]
    assert rows(got) == naive_qrels(TE / name)
    assert str(got["rel"].dtype).lower() == "int64"


@pytest.mark.parametrize("name", ["results.test", "results.comment.test", "qrels.rel_level",
                                  "qrels.comment.test"])
def test_parse_paths_agree(monkeypatch, tmp_path, name):
    """Arrow's reader, Polars' (ragged lines, comments) and the line-by-line pass give the
    same frame, from disk and from a compressed copy."""
    from trunc_accessor.io import parse as tio

    reader = ta.read_run if name.startswith("results") else ta.read_qrels
    packed = tmp_path / "f"
    packed.write_bytes(gzip.compress(need(TE / name).read_bytes()))
    want = rows(reader(TE / name, library="polars"))
    for off in ([], ["_arrow"], ["_arrow", "_polars"]):
        with monkeypatch.context() as m:
            for fn in off:
                m.setattr(tio, fn, lambda *a, **k: None)
            assert rows(reader(TE / name, library="polars")) == want, off
            assert rows(reader(packed, library="polars")) == want, off


def test_example_loaders_agree_with_shared_data():
    run, qrels = ta.load_example("polars")
    assert rows(run) == naive_run(TE / "results.test")
    assert rows(qrels) == naive_qrels(TE / "qrels.test")


# ----------------------------------------------------------------------------- sources
@pytest.mark.parametrize("kind", list(COMPRESS))
@pytest.mark.parametrize("suffix", ["", ".txt", ".gz"])
def test_compressed_files_by_magic_bytes(tmp_path, kind, suffix):
    """gzip, bzip2 and xz are recognised by their first bytes, whatever the file's name."""
    for text, reader, expected in ((RUN_TEXT, ta.read_run, RUN_ROWS),
                                   (QRELS_TEXT, ta.read_qrels, QRELS_ROWS)):
        path = tmp_path / f"{reader.__name__}{suffix}"
        path.write_bytes(COMPRESS[kind](text.encode()))
        assert rows(reader(path, library="polars")) == expected
        assert rows(reader(str(path))) == expected


def test_odd_file_names(tmp_path):
    """Names that Polars could take for a glob or a URL are read as plain local files."""
    for name in ("run[1]*.txt", "s3:", "a?b"):
        (tmp_path / name).write_text(RUN_TEXT)
        assert rows(ta.read_run(tmp_path / name)) == RUN_ROWS
    (tmp_path / "x:").mkdir()
    (tmp_path / "x:" / "run").write_text(RUN_TEXT)
    assert rows(ta.read_run(str(tmp_path / "x:") + "//run")) == RUN_ROWS


def test_stdin_and_file_objects(tmp_path, monkeypatch):
    class Stdin:
        def __init__(self, data: bytes):
            self.buffer = io.BytesIO(data)

    for text, reader, expected in ((RUN_TEXT, ta.read_run, RUN_ROWS),
                                   (QRELS_TEXT, ta.read_qrels, QRELS_ROWS)):
        for kind, pack in COMPRESS.items():
            monkeypatch.setattr(sys, "stdin", Stdin(pack(text.encode())))
            assert rows(reader("-")) == expected, kind
            assert rows(reader(io.BytesIO(pack(text.encode())))) == expected, kind
        assert rows(reader(io.StringIO(text))) == expected
        path = tmp_path / "f.gz"
        path.write_bytes(gzip.compress(text.encode()))
        with open(path, "rb") as fh:
            assert rows(reader(fh)) == expected
        (tmp_path / "f.txt").write_text(text)
        with open(tmp_path / "f.txt") as fh:  # text mode
            assert rows(reader(fh)) == expected


def test_damaged_compressed_file_and_bad_sources(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(RUN_TEXT.encode())[:-12])
    with pytest.raises(InputError, match="damaged gzip"):
        ta.read_run(path)
    with pytest.raises(TypeError, match="path"):
        ta.read_run(42)
    with pytest.raises(FileNotFoundError):
        ta.read_run(tmp_path / "missing.txt")
    with pytest.raises(InputError, match="library"):
        ta.read_run(path, library="arrow")


# ----------------------------------------------------------------------------- whitespace
def _variants(line: str) -> dict[str, str]:
    f = line.split()
    return {"tabs": "\t".join(f), "spaces": "   ".join(f), "trailing": " ".join(f) + "  \t",
            "leading": "  \t" + " ".join(f), "crlf": " ".join(f) + "\r",
            "mixed": " \t ".join(f) + " \r", "vt_ff": "\x0b".join(f[:2]) + "\x0c" + " ".join(f[2:])}


@pytest.mark.parametrize("variant", list(_variants("a b c d e")))
def test_whitespace_variants(tmp_path, variant):
    for text, reader, expected in ((RUN_TEXT, ta.read_run, RUN_ROWS),
                                   (QRELS_TEXT, ta.read_qrels, QRELS_ROWS)):
        lines = [_variants(ln)[variant] for ln in text.splitlines()]
        body = "\n".join(lines[:1] + ["", "  \t ", "\r"] + lines[1:]) + "\n\n"
        path = tmp_path / f"{reader.__name__}.txt"
        path.write_bytes(body.encode())
        assert rows(reader(path)) == expected, body
        assert rows(reader(io.BytesIO(body.encode()), library="polars")) == expected


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_single_separator_files_on_disk(tmp_path, sep):
    """Files read straight from disk: single spaces or single tabs, with comment lines and
    lines of different lengths, and a bad line found by its number."""
    path = tmp_path / "run.txt"
    plain = RUN_TEXT.replace(" ", sep)
    for body in (plain, "#c\n" + plain, plain.replace(sep + "runA\n", "\n", 1),
                 plain.replace("runA\n", "runA" + sep + "x\n", 1)):
        path.write_text(body)
        expected = dict(RUN_ROWS, system=[None if f"Q0{sep}d1{sep}1{sep}2.5\n" in body
                                          else "runA", "runA", "runA"])
        assert rows(ta.read_run(path)) == expected, body
    path.write_text(plain + sep.join(["303", "Q0", "d", "1", "x1"]) + "\n")
    with pytest.raises(InputError, match="line 4: score 'x1'"):
        ta.read_run(path)
    path.write_text(QRELS_TEXT.replace(" ", sep))
    assert rows(ta.read_qrels(path)) == QRELS_ROWS


def test_comment_lines_and_byte_order_mark(tmp_path):
    body = ("# a header line\n#301 Q0 x 1 9 c\n   # indented comment\n"
            + RUN_TEXT.replace("\n", "\n#\n", 1) + "\t#trailing comment with extra fields\n")
    path = tmp_path / "run.txt"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    assert rows(ta.read_run(path)) == RUN_ROWS  # the docid 'd#3' is data, not a comment
    assert rows(ta.read_run(io.BytesIO(body.encode()))) == RUN_ROWS


def test_runid_missing_and_extra_fields(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 3\n1 Q0 b 2 2 tag extra fields\n2 Q0 c 1 1.5 tag\n")
    got = ta.read_run(path, library="polars", keep_rank=True)
    assert got.columns == ["qid", "docid", "score", "rank", "system"]
    assert got["system"].to_list() == [None, "tag", "tag"]
    assert got["rank"].dtype == pl.Int64 and got["rank"].to_list() == [1, 2, 1]
    path.write_text("1 Q0 a 1.5 3\n")
    assert ta.read_run(path, keep_rank=True)["rank"].tolist() == [1.5]
    path.write_text("")
    assert rows(ta.read_run(path)) == {"qid": [], "docid": [], "score": [], "system": []}
    path.write_text("# only a comment\n\n")
    assert len(ta.read_qrels(path)) == 0


def test_three_column_qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("# qid docid rel\n301 d1 1\n301 d9 0\n302 d#3 2\n")
    assert rows(ta.read_qrels(path)) == QRELS_ROWS
    path.write_text("301 d1 1\n301 d9 0\n302 d#3 2 extra\n")  # one layout per file
    with pytest.raises(InputError, match=r"line 3: 4 fields, but the file's first line has 3"):
        ta.read_qrels(path)
    path.write_text("301\td1\t1.5\r\n302 d2 0\r\n")
    got = ta.read_qrels(path, library="polars")
    assert got["rel"].dtype == pl.Float64 and got["rel"].to_list() == [1.5, 0.0]
    path.write_text("301 d1 1\n301 0 d2 1\n")  # the first data line decided: 3 columns
    with pytest.raises(InputError, match=r"line 2: 4 fields"):
        ta.read_qrels(path)
    path.write_text("301 0 d1 1\n301 d2 1\n")  # ... and here 4
    with pytest.raises(InputError, match=r"line 2: a qrels line needs 4 fields"):
        ta.read_qrels(path)
    path.write_text("301 d1\n")
    with pytest.raises(InputError, match=r"line 1: a qrels line has 4 fields .*, 3 .* or 5 "
                                         r".*this one has 2"):
        ta.read_qrels(path)


@pytest.mark.parametrize("comment", ["", "# topic iter docno stratum grade\n"])
def test_five_column_qrels_are_a_sampled_pools(tmp_path, comment):
    # NIST's sample_eval.pl layout: qid iter docid stratum rel (not read as the first four)
    path = tmp_path / "qrels.sample"
    path.write_text(comment + "301 0 d1 2 1\n301 0 d9 1 -1\n302 0 d3 A 0\n")
    got = ta.read_qrels(path, library="polars")
    assert got.columns == ["qid", "docid", "rel", "stratum"]
    assert got["rel"].to_list() == [1, -1, 0] and got["stratum"].to_list() == ["2", "1", "A"]
    assert got["stratum"].dtype == pl.String
    path.write_text(comment + "301 0 d1 2 1\n301 0 d9 1\n")
    with pytest.raises(InputError, match=r"line \d: a qrels line needs 5 fields"):
        ta.read_qrels(path)
    path.write_text(comment + "301 0 d1 2 1\n301 0 d9 1 1 x\n")
    with pytest.raises(InputError, match=r"line \d: 6 fields, but the file's first line has 5"):
        ta.read_qrels(path)
    path.write_text(comment + "301 0 d1 2 x\n")
    with pytest.raises(InputError, match=r"line \d: grade 'x' is not a finite number"):
        ta.read_qrels(path)


@pytest.mark.parametrize("comment", ["", "# qid iter docid rel\n"])
def test_a_qrels_line_longer_than_its_files_layout_is_named_as_trec_eval_refuses_it(
        tmp_path, comment):
    # trec_eval stops on such a line ("Malformed line"); its extra field was dropped silently
    path = tmp_path / "qrels.txt"
    path.write_text(comment + "301 0 d1 1\n301 0 d2 0 0.5\n302 0 d3 2\n")
    with pytest.raises(InputError, match=r"line \d: 5 fields, but the file's first line has 4"):
        ta.read_qrels(path)
    path.write_text(comment + "301 0 d1 1\n301 0 d2 0\n302 0 d3 2\n")
    assert rows(ta.read_qrels(path)) == {"qid": ["301", "301", "302"],
                                         "docid": ["d1", "d2", "d3"], "rel": [1, 0, 2]}


def test_qrels_whose_first_line_is_wider_than_every_layout_are_refused(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("301 0 d1 2 1 0.5\n301 0 d9 1 0 0.5\n")  # e.g. a prels file
    with pytest.raises(InputError, match=r"line 1: a qrels line has 4 fields .*this one has 6"):
        ta.read_qrels(path)


# ----------------------------------------------------------------------------- malformed lines
ID = st.text(st.characters(codec="utf-8", exclude_characters=" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
                           "\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                           + "".join(chr(c) for c in range(0x2000, 0x200b))),
             min_size=1, max_size=6).filter(lambda s: not s.startswith("#") and s.split() == [s])
NUMBER = st.one_of(st.integers(-10**6, 10**6).map(str),
                   st.floats(allow_nan=False, allow_infinity=False).map(repr))
SEP = st.sampled_from([" ", "\t", "  ", " \t"])
END = st.sampled_from(["", " ", "\r", "\t "])
NOT_A_NUMBER = st.sampled_from(["nan", "inf", "-inf", "x", "1e400", "1,5", "0x10", "1_0", "--1",
                                ".", "", "NaN", "Infinity"])


@st.composite
def bad_file(draw):
    """(kind, file bytes, 1-based number of the bad line): valid lines of a run or qrels
    file, comments and blank lines, and one bad line at a random position."""
    kind = draw(st.sampled_from(["run", "qrels4", "qrels3"]))
    n_fields = {"run": 6, "qrels4": 4, "qrels3": 3}[kind]
    numeric = {"run": (3, 4), "qrels4": (3,), "qrels3": (2,)}[kind]

    def fields():
        f = [draw(ID) for _ in range(n_fields)]
        for i in numeric:
            f[i] = draw(NUMBER)
        if kind == "run" and draw(st.booleans()):
            f = f[:5]
        return f

    def join(f):
        return draw(SEP).join(f) + draw(END)

    lines = []
    for _ in range(draw(st.integers(1, 8))):
        lines.append(draw(st.sampled_from(["data", "data", "data", "comment", "blank"])))
    lines = [join(fields()) if k == "data" else "#" + draw(ID) if k == "comment"
             else draw(st.sampled_from(["", " ", "\t", "\r"])) for k in lines]
    # qrels3: the first data line must have 3 fields, so the bad line comes after one
    first_data = next(i for i, k in enumerate(lines) if k.split() and k.split()[0][0] != "#") \
        if any(k.split() and k.split()[0][0] != "#" for k in lines) else None
    if kind == "qrels3" and first_data is None:
        lines.append(join(fields()))
        first_data = len(lines) - 1
    low = first_data + 1 if kind == "qrels3" else 0
    at = draw(st.integers(low, len(lines)))
    fault = draw(st.sampled_from(["too_few", "number", "utf8", "utf8_comment"]))
    if fault == "too_few":
        f = fields()
        n_min = {"run": 5, "qrels4": 4, "qrels3": 3}[kind]
        # a first data line of 3 fields would make a valid 3-column qrels file
        most = 2 if kind == "qrels4" and (first_data is None or at <= first_data) else n_min - 1
        bad = join(f[:draw(st.integers(1, most))]).encode()
    elif fault == "number":
        f = fields()
        f[draw(st.sampled_from(numeric))] = draw(NOT_A_NUMBER) or "-"
        bad = join(f).encode()
    elif fault == "utf8":
        good = join(fields()).encode()
        bad = good.replace(good[-1:], b"\xff\xfe" + good[-1:], 1)  # inside a field or a blank
    else:
        bad = b"#" + draw(ID).encode() + b"\xc3("
    data = [ln.encode() for ln in lines]
    data.insert(at, bad)
    tail = draw(st.sampled_from([b"", b"\n"]))
    return kind, b"\n".join(data) + tail, at + 1


@SETTINGS
@given(case=bad_file(), pack=st.sampled_from(list(COMPRESS)))
def test_malformed_line_is_named(case, pack):
    kind, data, lineno = case
    reader = ta.read_run if kind == "run" else ta.read_qrels
    with pytest.raises(InputError, match=rf"line {lineno}\b"):
        reader(io.BytesIO(COMPRESS[pack](data)))


@SETTINGS
@given(case=bad_file())
def test_malformed_line_is_named_on_disk(tmp_path_factory, case):
    """The same from a plain file (the path that Polars reads straight from disk)."""
    kind, data, lineno = case
    path = tmp_path_factory.mktemp("bad") / "f.txt"
    path.write_bytes(data)
    reader = ta.read_run if kind == "run" else ta.read_qrels
    with pytest.raises(InputError, match=rf"{path.name}, line {lineno}\b"):
        reader(path)


def test_malformed_line_messages(tmp_path):
    path = tmp_path / "run.txt"
    cases = {"1 Q0 a 1 1 t\n\n1 Q0 b 2\n": r"line 3: a run line needs 5 fields",
             "1 Q0 a 1 nan t\n": r"line 1: score 'nan' is not a finite number",
             "#c\n1 Q0 a one 1 t\n": r"line 2: rank 'one' is not a finite number",
             "1 Q0 a 1 1 t\n1 Q0 \xff 2 1 t\n": "line 2: not UTF-8 text"}
    for body, message in cases.items():
        path.write_bytes(body.encode("latin-1"))
        with pytest.raises(InputError, match=message):
            ta.read_run(path)


# ----------------------------------------------------------------------------- write_run
def trec_eval_order(qids, docids, scores):
    """Rows (qid, docid, score) grouped by qid in order of first appearance, each ranking
    by score descending, then docid descending in byte order."""
    first = {}
    for q in qids:
        first.setdefault(q, len(first))
    rows_ = sorted(zip(qids, docids, scores), key=lambda r: r[1].encode(), reverse=True)
    rows_.sort(key=lambda r: -r[2])
    rows_.sort(key=lambda r: first[r[0]])
    return rows_


SCORE = st.one_of(st.sampled_from([0.0, -0.0, 1.0, 1.0, 0.5]),
                  st.floats(allow_nan=False, allow_infinity=False),
                  st.sampled_from([5e-324, -5e-324, 1.7976931348623157e308, 2.2250738585072014e-308,
                                   1e-300, -1e300, 0.1, 1 / 3]))
DOCID = st.one_of(ID, ID.map(lambda s: s + "#" + s), st.sampled_from(["d1", "d2", "D1", "é", "#x",
                                                                       "😀", "a#b"]))


@st.composite
def random_run(draw):
    qids, docids, scores = [], [], []
    for q in draw(st.lists(ID, min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(DOCID, max_size=8, unique=True))
        qids += [q] * len(docs)
        docids += docs
        scores += [draw(SCORE) for _ in docs]
    order = draw(st.permutations(range(len(qids))))
    return ([qids[i] for i in order], [docids[i] for i in order], [scores[i] for i in order])


@SETTINGS
@given(run=random_run(), library=st.sampled_from(["pandas", "polars"]),
       suffix=st.sampled_from([".txt", ".gz", ".bz2", ".xz"]), ties=st.sampled_from(["trec_eval",
                                                                                     "first"]))
def test_write_run_round_trip(tmp_path_factory, run, library, suffix, ties):
    qids, docids, scores = run
    frame = pd.DataFrame({"qid": qids, "docid": docids, "score": scores})
    if library == "polars":
        frame = pl.from_pandas(frame)
    path = tmp_path_factory.mktemp("w") / f"run{suffix}"
    assert write_run(frame, path, tag="sys-1", ties=ties) == path
    if suffix != ".txt":
        assert path.read_bytes()[:2] in (b"\x1f\x8b", b"BZ", b"\xfd7")
    back = ta.read_run(path, library="polars", keep_rank=True)
    if ties == "trec_eval":
        expected = trec_eval_order(qids, docids, scores)
    else:  # stable: equal scores keep the frame's order
        first = {q: i for i, q in reversed(list(enumerate(qids)))}
        expected = sorted(zip(qids, docids, scores), key=lambda r: (first[r[0]], -r[2]))
    assert back["qid"].to_list() == [r[0] for r in expected]
    assert back["docid"].to_list() == [r[1] for r in expected]
    assert bits(back["score"].to_list()) == bits([r[2] for r in expected])
    assert set(back["system"].to_list()) <= {"sys-1"}
    ranks, seen = [], {}
    for q in back["qid"].to_list():
        seen[q] = seen.get(q, 0) + 1
        ranks.append(seen[q])
    assert back["rank"].to_list() == ranks
    again = tmp_path_factory.mktemp("w") / f"again{suffix}"
    write_run(back, again, tag="sys-1", ties=ties)  # a written run is written unchanged
    assert rows(ta.read_run(again, library="polars", keep_rank=True)) == rows(back)


def test_write_run_order_rank_and_by(tmp_path):
    frame = pl.DataFrame({
        "system": ["B", "B", "A", "A", "A", "B"],
        "query_id": [2, 1, 1, 1, 1, 1],
        "docno": ["x", "y", "a", "b", "c", "z"],
        "docid": [0, 0, 0, 0, 0, 0],  # PyTerrier's internal ids: docno wins
        "score": [1.0, 5.0, 1.0, 2.0, 2.0, 5.0],
        "rank": [1, 2, 3, 1, 2, 1],
    })
    path = tmp_path / "runs.txt"
    write_run(frame.lazy(), path, by="system")
    lines = path.read_text().splitlines()
    assert lines == ["2 Q0 x 1 1.0 B", "1 Q0 z 1 5.0 B", "1 Q0 y 2 5.0 B",
                     "1 Q0 b 1 2.0 A", "1 Q0 c 2 2.0 A", "1 Q0 a 3 1.0 A"]
    write_run(frame.drop("rank").filter(pl.col("system") == "A").to_pandas(), path)
    assert path.read_text().splitlines() == ["1 Q0 c 1 2.0 A",  # the system column: the tag
                                             "1 Q0 b 2 2.0 A",
                                             "1 Q0 a 3 1.0 A"]
    write_run(frame.drop("rank").filter(pl.col("system") == "A"), path, ties="first")
    assert [ln.split()[2] for ln in path.read_text().splitlines()] == ["b", "c", "a"]
    both = ta.read_run(path)
    assert both["system"].tolist() == ["A"] * 3
    write_run(frame.drop("rank", "system").filter(pl.col("query_id") == 2), path)
    assert path.read_text().splitlines() == ["2 Q0 x 1 1.0 trunc_accessor"]


def test_write_run_to_stdout_and_file_objects(monkeypatch):
    frame = pd.DataFrame(RUN_ROWS).drop(columns="system")

    class Stdout:
        def __init__(self):
            self.buffer = io.BytesIO()

    out = Stdout()
    monkeypatch.setattr(sys, "stdout", out)
    write_run(frame, "-", tag="runA")
    assert out.buffer.getvalue().decode() == RUN_TEXT
    binary, text = io.BytesIO(), io.StringIO()
    write_run(frame, binary, tag="runA")
    write_run(frame, text, tag="runA")
    assert binary.getvalue().decode() == text.getvalue() == RUN_TEXT


@pytest.mark.parametrize("change, message", [
    ({"docid": ["a b", "c", "d"]}, "docid 'a b'"),
    ({"docid": ["", "c", "d"]}, "docid ''"),
    ({"qid": ["#1", "1", "1"]}, "starts with '#'"),
    ({"score": [1.0, float("nan"), 0.0]}, "score nan"),
    ({"score": [1.0, float("inf"), 0.0]}, "score inf"),
    ({"docid": ["a", "a", "b"]}, "appears twice"),
])
def test_write_run_rejects_what_cannot_round_trip(tmp_path, change, message):
    frame = pd.DataFrame({"qid": ["1", "1", "1"], "docid": ["a", "b", "c"],
                          "score": [3.0, 2.0, 1.0]}).assign(**change)
    with pytest.raises(InputError, match=message):
        write_run(frame, tmp_path / "run.txt")
    assert not (tmp_path / "run.txt").exists()


def test_write_run_bad_arguments(tmp_path):
    frame = pd.DataFrame({"qid": ["1"], "docid": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="ties"):
        write_run(frame, tmp_path / "r", ties="average")
    with pytest.raises(InputError, match="tag"):
        write_run(frame, tmp_path / "r", tag="two words")
    with pytest.raises(InputError, match="by="):
        write_run(frame, tmp_path / "r", by="system")
    with pytest.raises(InputError, match="score"):
        write_run(frame.drop(columns="score"), tmp_path / "r")
    with pytest.raises(TypeError):
        write_run({"qid": ["1"]}, tmp_path / "r")


# ----------------------------------------------------------------------------- several runs
def test_read_several_runs(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = tmp_path / "a" / "one.txt"
    two = tmp_path / "a" / "two.run.gz"
    one.write_text("1 Q0 d1 1 2 sysA\n1 Q0 d2 2 1 sysA\n")
    two.write_bytes(gzip.compress(b"1 Q0 d1 1 5 sysB\n2 Q0 d3 1 4\n"))
    got = ta.read_run([one, two], library="polars", keep_rank=True)
    assert got.columns == ["qid", "docid", "score", "rank", "system"]
    assert got["system"].to_list() == ["sysA", "sysA", "sysB", "two"]
    # the same runid in two files: both are labelled by their stems
    three = tmp_path / "b" / "three.txt"
    three.write_text("1 Q0 d1 1 7 sysA\n")
    got = ta.read_run((one, three))
    assert got["system"].tolist() == ["one", "one", "three"]
    # ... and by their paths when the stems clash too
    again = tmp_path / "b" / "one.txt"
    again.write_text("1 Q0 d1 1 7 sysA\n")
    got = ta.read_run([str(one), str(again)])
    assert got["system"].tolist() == [str(one), str(one), str(again)]
    with pytest.raises(InputError, match="empty"):
        ta.read_run([])
    with pytest.raises(InputError, match=r"three.txt, line 2"):
        three.write_text("1 Q0 d1 1 7 sysA\n1 Q0 d2\n")
        ta.read_run([one, three])


def test_write_run_keeps_system_names_and_writes_whole_float_ids(tmp_path):
    """Runs read together keep their names when written back (the system column is the
    tag); a qid column pandas made float (301.0) is written 301, so it matches the qrels."""
    one = ta.read_run(need(TE / "results.test"))
    both = pd.concat([one, one.assign(system="other")], ignore_index=True)
    back = ta.read_run(write_run(both, tmp_path / "both.txt"))
    assert sorted(back["system"].unique()) == ["STANDARD", "other"]
    assert len(back) == len(both)
    tagged = ta.read_run(write_run(one, tmp_path / "tagged.txt", tag="mine"))
    assert tagged["system"].unique().tolist() == ["mine"]
    floats = pd.DataFrame({"qid": [301.0, 302.0], "docid": ["a", "b"], "score": [1.0, 2.0]})
    assert (tmp_path / "f.txt").exists() is False
    write_run(floats, tmp_path / "f.txt")
    assert (tmp_path / "f.txt").read_text().split("\n")[0].split()[0] == "301"
    assert write_run(pl.from_pandas(floats), tmp_path / "g.txt")
    assert (tmp_path / "g.txt").read_text() == (tmp_path / "f.txt").read_text()


@pytest.mark.parametrize("frame,by,message", [
    (pd.DataFrame({"qid": [301.5], "docid": ["a"], "score": [1.0]}), None,
     "qid column 'qid' holds 301.5, which is not a whole number"),
    (pd.DataFrame({"qid": [1], "docid": [2.5], "score": [1.0]}), None,
     "docid column 'docid' holds 2.5"),
    (pd.DataFrame({"qid": [1, 2], "docid": ["a", "b"], "score": [1.0, 2.0], "sys": [1, "a"]}),
     "sys", "column 'sys' holds values of several types"),
    (pd.DataFrame({"qid": [1, 1], "docid": ["a", "a"], "score": [1.0, 2.0],
                   "x": ["a/b", "a"], "y": ["c", "b/c"]}), ["x", "y"],
     "would both be written as tag 'a/b/c'"),
])
def test_write_run_refuses_ids_and_keys_it_cannot_write(tmp_path, frame, by, message):
    before = frame.copy()
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        write_run(frame, tmp_path / "x.txt", by=by)
    pd.testing.assert_frame_equal(frame, before)
