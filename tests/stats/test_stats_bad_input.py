"""Statistics on bad input: too few queries, constant differences, probabilities and
resampling arguments, bounded memory, experiment keys and report escaping, per-query keys
that are not scalars.

Moved from the former tests/frontends/test_bad_input_lazy_files_stats.py (hostile
input, round two): each test is a defect a probe found, with the value or error it must
give instead."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import polars as pl
import pytest

import trunc_accessor as ta
from tests.conftest import only_library_errors
from trunc_accessor import InputError


def _pairs(a, b):
    n = len(a)
    return pd.DataFrame({"qid": [str(i) for i in range(n)] * 2, "system": ["a"] * n + ["b"] * n,
                         "ap": list(a) + list(b)})


@pytest.mark.parametrize("n", [1, 2, 3])
def test_bootstrap_with_too_few_queries_is_nan(n):
    per = _pairs(np.linspace(0.5, 0.9, n), np.linspace(0.1, 0.3, n))
    row = ta.compare(per, by="system", test="bootstrap").iloc[0]
    assert np.isnan(row["p_value"]) and not row["significant"]


def test_t_test_on_a_constant_difference_with_rounding_noise_is_nan():
    x = np.linspace(0.1, 0.9, 25)
    row = ta.compare(_pairs(x, x - 0.1), by="system", test="t").iloc[0]
    assert np.isnan(row["p_value"]) and np.isnan(row["effect_size"]) and not row["significant"]


def test_probabilities_and_resampling_arguments_are_checked():
    with pytest.raises(InputError, match="not a probability"):
        ta.stats.multipletests([-0.2, 0.5], method="holm")
    with pytest.raises(InputError, match="not a probability"):
        ta.stats.multipletests([0.2, 1.5], method="bonferroni")
    run = pd.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="normal float"):
        ta.agreement.rbo(run, run, p=1e-310)
    per = _pairs(np.linspace(0, 1, 5), np.linspace(0, 0.5, 5))
    with pytest.raises(InputError, match="n_resamples"):
        ta.compare(per, by="system", n_resamples=0, ci="bootstrap")
    with pytest.raises(InputError, match="seed"):
        ta.compare(per, by="system", seed=-1, test="randomization")


def test_resampling_memory_does_not_grow_with_n_resamples():
    """Exact randomisation over 2^21 sign vectors of 22 queries and a randomised Tukey HSD of
    1.5·10^6 resamples with 256 MiB of address space beyond what is mapped at the start (the
    sign matrix alone was 370 MiB at 2^21, 740 MiB at 2^22; the null distributions as large
    as n_resamples; 10^8–10^9 resamples asked for 6–186 GiB)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("RLIMIT_AS")
    code = (
        "import resource, numpy as np, pandas as pd\n"
        "import trunc_accessor as ta\n"
        "from trunc_accessor import stats\n"
        "x = np.linspace(0, 1, 22); y = x[::-1].copy()\n"
        "per = pd.DataFrame({'qid': [str(i) for i in range(22)] * 3,\n"
        "                    'system': ['a'] * 22 + ['b'] * 22 + ['c'] * 22,\n"
        "                    'ap': list(x) + list(y) + list((x + y) / 2)})\n"
        "stats.compare(per, by='system')  # load SciPy before the cap\n"
        "vm = [int(line.split()[1]) * 1024 for line in open('/proc/self/status')\n"
        "      if line.startswith('VmSize')][0]\n"
        "soft = vm + 2 ** 28  # what is mapped now + 256 MiB\n"
        "resource.setrlimit(resource.RLIMIT_AS, (soft, resource.RLIM_INFINITY))\n"
        "r = stats.compare(per, by='system', test='randomization', n_resamples=2 ** 21)\n"
        "t = stats.randomized_tukey_hsd(per, by='system', n_resamples=1_500_000)\n"
        "print(r['p_value'].notna().all() and t['p_value'].notna().all())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.stdout.strip() == "True", done.stderr[-2000:]


def test_experiment_keys_and_report_escaping(cranfield):
    runs, qrels = cranfield
    nameless = runs.copy()
    nameless.loc[nameless.index[0], "system"] = None
    with pytest.raises(InputError, match="system column 'system' has a missing value"):
        ta.experiment(nameless, qrels, ["ap"])
    one = runs[runs["system"] == "bm25"].drop(columns="system")
    with pytest.raises(InputError, match="same name as text"):
        ta.experiment({1: one, "1": one}, qrels, ["ap"])
    hostile = runs.assign(system=runs["system"].replace({"bm25": "<script>x|y</script>"}))
    table = ta.experiment(hostile, qrels, ["ndcg@10"], baseline="<script>x|y</script>")
    html = ta.report(table, "html")
    assert "<script>" not in html and "&lt;script&gt;x|y&lt;/script&gt;" in html
    md = ta.report(table, "markdown")
    assert "<script>" not in md and "&lt;script&gt;x\\|y&lt;/script&gt;" in md
    with pytest.raises(InputError, match="empty"):
        ta.report(table.iloc[0:0])


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("column", ["qid", "system"])
def test_per_query_keys_that_are_not_scalars_give_a_library_error(column):
    """The statistics read per-query frames: a qid or system column of lists raised
    Python's TypeError (unhashable) from pandas."""
    per = _pairs(np.linspace(0, 1, 6), np.linspace(0, 0.5, 6))
    per[column] = [[1]] * len(per)
    calls = []
    for frame in (per, pl.from_pandas(per)):
        calls += [lambda f=frame, t=t: ta.compare(f, by="system", test=t, n_resamples=20)
                  for t in ("t", "bootstrap", "randomization", "wilcoxon")]
        calls.append(lambda f=frame: ta.stats.randomized_tukey_hsd(f, by="system",
                                                                   n_resamples=20))
    assert not only_library_errors(calls)
    with pytest.raises(InputError, match=f"per_query column '{column}' holds values that "
                       "cannot be keys"):
        ta.compare(per, by="system")
