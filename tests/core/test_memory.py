"""Memory is bounded by the data, whatever the parameters say.

Each case runs in a subprocess whose address space is capped (``RLIMIT_AS``) at what the
process uses after building its data and warming every code path up, plus a budget far
below what an allocation sized by a parameter (a depth of 10^9, a cut-off grid quadratic in
a ranking's length) would need. A MemoryError, a crash or a too-large peak fails the case.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS, /proc")

PRELUDE = textwrap.dedent("""
    import json, resource, sys
    import numpy as np, pandas as pd
    import trunc_accessor as ta
    from trunc_accessor import single
    from trunc_accessor.metrics.registry import REGISTRY

    def vm_size():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024

    n, budget = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(0)
    run = pd.DataFrame({"qid": "q", "docid": np.arange(n).astype(str), "score": rng.random(n)})
    judged = np.arange(0, n, 97)
    qrels = pd.DataFrame({"qid": "q", "docid": judged.astype(str),
                          "rel": rng.integers(0, 3, len(judged))})

    def cap(calls):
        small = run.head(2000)
        for call in calls:                      # warm-up: threads, caches, lazy imports
            call(small)
        resource.setrlimit(resource.RLIMIT_AS, (vm_size() + budget, resource.RLIM_INFINITY))
        out = [call(run) for call in calls]
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(json.dumps({"ok": True, "peak": peak, "n": [len(o) if hasattr(o, "__len__")
                                                          else 1 for o in out]}))
""")

GIANT = 10 ** 9
CASES = {
    # every metric at its defaults, one evaluate call (OIE needs |D| ≥ n + judged)
    "evaluate every metric": (
        1_000_000, 1_500,
        ("cap([lambda r: r.ir.evaluate(qrels, [('oie', {'collection_size': 4 * n})"
        " if m == 'oie' else m for m in REGISTRY if not REGISTRY[m].subtopics],"
        " ties='first')])")),
    # the diversity measures on subtopic qrels (five subtopics), ties averaged
    "diversity measures": (
        1_000_000, 1_500,
        ("sub = qrels.assign(subtopic=rng.integers(1, 6, len(qrels)))\n"
         "cap([lambda r: r.ir.evaluate(sub, [m for m in REGISTRY if REGISTRY[m].subtopics])])")),
    # cut-offs and depths far beyond the data
    "giant k and depth": (
        1_000_000, 1_500,
        (f"cap([lambda r: r.ir.evaluate(qrels, ['precision@{GIANT}', 'ndcg@{GIANT}', "
        f"'err@{GIANT}', 'ap@{GIANT}', 'rbp_prime(depth={GIANT})', 'ndcg_prime(depth={GIANT})',"
        f" 'err_prime(depth={GIANT})'])])")),
    "twist with a giant depth": (
        1_000_000, 1_500,
        (f"cap([lambda r: r.ir.evaluate(qrels, ['twist(depth={GIANT})', "
        f"'recovery_ratio(depth={GIANT})', 'space_ratio_plus(depth={GIANT})', "
        f"'space_ratio_minus(depth={GIANT})'], ties='first'),"
        f" lambda r: r.ir.crp_archetype(qrels, depth={GIANT}, ties='first')])")),
    "cut-off tools on a million documents": (
        1_000_000, 1_500,
        ("cap([lambda r: r.ir.optimal_cutoff(qrels, 'ap', max_depth=1000),"
        " lambda r: r.ir.cutoff_curve(qrels, 'rbp_prime', max_depth=1000)])")),
    # a metric without a prefix kernel: the default max_depth=None rescores Σ depth =
    # 5·10^7 prefix rows, chunked, not held
    "full cut-off curve, chunked": (
        10_000, 1_000,
        "cap([lambda r: r.ir.cutoff_curve(qrels, 'iprec_at_recall', ties='first')])"),
    # prefix kernels: every depth of a million-document ranking (a 1,000,001-row answer),
    # running sums, the cascade's running products, closed forms (residual, terminal)
    "full cut-off curves on a million documents": (
        1_000_000, 1_500,
        ("cap([lambda r, m=m: r.ir.cutoff_curve(qrels, m) for m in ('ap', 'err_prime',"
         " 'rbp_residual')] + [lambda r: r.ir.optimal_cutoff(qrels, 'ndcg_prime',"
         " ties='first')])")),
    "truncation": (
        1_000_000, 1_500,
        (f"cap([lambda r: r.ir.truncate({GIANT}), lambda r: r.ir.truncate_at('NIL'),"
        f" lambda r: r.ir.truncate(10)])")),
    "single ranking with a giant R or k": (
        1_000_000, 1_500,
        (f"grades = rng.integers(0, 2, n).tolist()\n"
        f"cap([lambda r: single.ap(grades[:len(r)], R=len(r)), "
        f"lambda r: single.precision(grades[:len(r)], k={GIANT}), "
        f"lambda r: single.ndcg(grades[:len(r)], k={GIANT}), "
        f"lambda r: single.twist(grades[:len(r)], depth={GIANT}, ties='first')])")),
}
MIB = 1 << 20


@pytest.mark.parametrize("case", sorted(CASES))
def test_memory_is_bounded_by_the_data(case):
    n, budget_mib, body = CASES[case]
    script = PRELUDE + "\n" + body + "\n"
    env = {**os.environ, "POLARS_MAX_THREADS": "2", "MALLOC_ARENA_MAX": "2"}
    proc = subprocess.run([sys.executable, "-c", script, str(n), str(budget_mib * MIB)],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["ok"]
    # resident peak: the data plus working arrays, well under the cap
    assert report["peak"] < 3_000 * MIB, report
