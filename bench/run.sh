#!/usr/bin/env bash
# Side-by-side benchmark: trunc_accessor vs pytrec_eval, ranx and ir_measures, using the
# shared peer benchmark (shared/bench/peers.py + make_data.py). Run from the project root:
#
#   bash bench/run.sh              # 1k queries x 1000 docs = 1M run rows (default)
#   bash bench/run.sh large        # 10k queries x 1000 docs = 10M run rows (~7 min, 3-5 GiB per entry)
#   bash bench/run.sh small        # 1k x 100 = 100k rows (smoke test, ~1 min)
#
# Environment overrides:
#   PEERS_DIR   the shared benchmark (default: ../shared/bench beside the project root)
#   PYTHON      interpreter (default: python3); it needs trunc_accessor and the peers:
#               pip install -e ".[bench]" cwl-eval
#   REPEATS     timed repeats per entry (default 3; the report gives the median)
#   METRICS     canonical metric names (default ndcg@10,ap,rr,p@10: what every peer computes)
#   ENTRIES     peer entries (default pytrec_eval,ranx,ir_measures.iter_calc plus the
#               "floor: polars sort+join" reference floor)
#   OUT         results directory (default bench-results/<size>)
#   WARM        1 (default): touch 90% of the free memory once before timing, so that no
#               entry pays a virtual machine's first-touch cost (bench/warm_memory.py); 0 skips
#   RETAIN      1: every entry's allocators keep the memory they free (glibc:
#               MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_; Polars' jemalloc: _RJEM_MALLOC_CONF
#               without decay), so repeats reuse pages the host has backed and the timings
#               measure the libraries' own work (see BENCHMARKS.md, "First touch"); default 0
#   LAYOUTS     1 (default): also time ours against pytrec_eval per identifier layout
#               (bench/layouts.py, into $OUT/layouts.md); 0 skips
#   TRUNC_ACCESSOR_REF  a git ref (e.g. HEAD, a commit): benchmark that commit's
#               trunc_accessor/ (a `git archive` snapshot put first on PYTHONPATH) instead of
#               the installed/working-tree one, so edits made meanwhile do not leak in
#
# Data goes to bench-data/<size>/, results to bench-results/<size>/ (both gitignored):
# results.md (tables), results.json, per-entry logs and per-query Parquet files.
set -euo pipefail

SIZE="${1:-medium}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PEERS_DIR="${PEERS_DIR:-$ROOT/../shared/bench}"
PYTHON="${PYTHON:-python3}"
REPEATS="${REPEATS:-3}"
METRICS="${METRICS:-ndcg@10,ap,rr,p@10}"
ENTRIES="${ENTRIES:-pytrec_eval,ranx,ir_measures.iter_calc,floor: polars sort+join}"

if [[ ! -f "$PEERS_DIR/peers.py" || ! -f "$PEERS_DIR/make_data.py" ]]; then
    echo "error: peer benchmark not found in $PEERS_DIR (set PEERS_DIR)" >&2
    exit 2
fi

case "$SIZE" in
    small)  GEN=(--scale small) ;;                                              # 100k rows
    medium) GEN=(--queries 1000 --depth 1000 --rels-per-query 100) ;;           # 1M rows
    large)  GEN=(--scale large) ;;                                              # 10M rows
    *) echo "usage: bash bench/run.sh [small|medium|large]" >&2; exit 2 ;;
esac

DATA="bench-data/$SIZE"
OUT="${OUT:-bench-results/$SIZE}"

# dependencies: the library and the three peers (cwl-eval gives ir_measures binary RBP)
"$PYTHON" - <<'EOF'
import importlib.util, sys
missing = [m for m in ("trunc_accessor", "pytrec_eval", "ranx", "ir_measures")
           if importlib.util.find_spec(m) is None]
if missing:
    sys.exit(f"missing modules {missing}: pip install -e '.[bench]' cwl-eval")
if importlib.util.find_spec("cwl") is None:
    print("warning: cwl-eval is not installed, so ir_measures skips rbp_bin and no peer "
          "checks our RBP: pip install cwl-eval", file=sys.stderr)
EOF

if [[ -f "$DATA/run.parquet" && -f "$DATA/qrels.parquet" && -f "$DATA/meta.json" ]]; then
    echo "[data] reusing $DATA (delete it to regenerate)"
else
    echo "[data] generating $DATA: ${GEN[*]}"
    "$PYTHON" "$PEERS_DIR/make_data.py" "${GEN[@]}" --out "$DATA" > /dev/null
fi

if [[ -n "${TRUNC_ACCESSOR_REF:-}" ]]; then
    SHA="$(git rev-parse --short "$TRUNC_ACCESSOR_REF")"
    SNAP="$ROOT/bench-data/snapshots/$SHA"
    if [[ ! -f "$SNAP/trunc_accessor/__init__.py" ]]; then
        mkdir -p "$SNAP"
        git archive "$SHA" trunc_accessor | tar -x -C "$SNAP"
    fi
    export PYTHONPATH="$SNAP${PYTHONPATH:+:$PYTHONPATH}"
    export BENCH_TRUNC_ACCESSOR_COMMIT="$SHA"
    echo "[code] trunc_accessor from commit $SHA ($SNAP)"
fi
(cd / && "$PYTHON" -c 'import trunc_accessor; print("[code] trunc_accessor", trunc_accessor.__version__, "from", trunc_accessor.__file__)')

if [[ "${RETAIN:-0}" != 0 ]]; then
    export MALLOC_MMAP_THRESHOLD_=17179869184 MALLOC_TRIM_THRESHOLD_=17179869184
    export _RJEM_MALLOC_CONF="dirty_decay_ms:-1,muzzy_decay_ms:-1"
    echo "[env] allocators retain freed memory (RETAIN=1)"
fi
if [[ "${WARM:-1}" != 0 ]]; then
    "$PYTHON" "$ROOT/bench/warm_memory.py"
fi

PLUGIN="$ROOT/bench/plugin.py"
# ties="trec_eval9" (float32 score comparison, as pytrec_eval): WITH_TREC_EVAL9=1 adds it
EXTRA_PLUGINS=()
if [[ -n "${WITH_TREC_EVAL9:-}" ]]; then
    EXTRA_PLUGINS=(--plugin "$PLUGIN:pandas_trec_eval9")
fi
echo "[bench] $SIZE: entries '$ENTRIES' + trunc_accessor; metrics $METRICS; repeats $REPEATS"
"$PYTHON" "$PEERS_DIR/peers.py" --data "$DATA" --out "$OUT" \
    --entries "$ENTRIES" --metrics "$METRICS" --repeats "$REPEATS" \
    --plugin "$PLUGIN:pandas_tie_aware" \
    --plugin "$PLUGIN:polars_tie_aware" \
    --plugin "$PLUGIN:pandas_first" \
    --plugin "$PLUGIN:polars_first" \
    --plugin "$PLUGIN:pandas_trec_eval" \
    --plugin "$PLUGIN:polars_trec_eval" \
    --plugin "$PLUGIN:floor_polars" \
    --plugin "$PLUGIN:floor_pandas" \
    "${EXTRA_PLUGINS[@]}"
if [[ "${LAYOUTS:-1}" != 0 ]]; then
    echo "[bench] per identifier layout (pandas object/category/string[python]/int ids, Polars Categorical/Enum): ours vs pytrec_eval"
    "$PYTHON" "$ROOT/bench/layouts.py" "$DATA" --repeats "$REPEATS" --peers "$PEERS_DIR" \
        | tee "$OUT/layouts.md"
fi
echo "[bench] results: $OUT/results.md"
