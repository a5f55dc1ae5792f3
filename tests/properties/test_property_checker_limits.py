"""The formal-property checker refuses a search space it cannot hold.

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import pytest

import trunc_accessor as ta


def test_property_check_refuses_a_space_it_cannot_hold():
    for kw in ({"threshold_n": 10 ** 6}, {"max_length": 40}):
        with pytest.raises(ValueError, match="ranked documents"):
            ta.properties.check("rbp", **kw)
