"""TREC files read on bad input: one layout per qrels file, CR-only line ends.

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import pytest

import trunc_accessor as ta
from trunc_accessor import InputError


def test_qrels_file_has_one_layout_and_cr_line_ends_are_lines(tmp_path):
    mixed = tmp_path / "mixed.qrels"
    mixed.write_text("301 FR1 1\n301 0 5 7\n")  # read as docid '0', grade 5 before
    with pytest.raises(InputError, match=r"line 2: 4 fields, but the file's first line has 3"):
        ta.read_qrels(mixed)
    cr = tmp_path / "mac.run"
    cr.write_bytes(b"301 Q0 d1 1 1.0 r\r301 Q0 d2 2 0.5 r\r")
    run = ta.read_run(cr)
    assert run["docid"].tolist() == ["d1", "d2"] and run["score"].tolist() == [1.0, 0.5]
