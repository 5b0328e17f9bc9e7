#!/usr/bin/env bash
# The gated delta rule's chunked form against its recurrent form on one layer's heads at 1,024
# tokens (bench/bench_gated_delta.cpp), 1 and 2 threads: REPS repetitions interleaved at random
# by Google Benchmark, medians of tokens/s and the chunked / recurrent ratio.
#   scripts/bench_gated_delta.sh      Environment: BUILD (default build), REPS (5), THREADS ("1 2")
set -Eeuo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/${BUILD:-build}/bench_gated_delta
[ -x "$BIN" ] || { echo "bench_gated_delta.sh: $BIN not found (build with LLM0_BENCH=ON)" >&2; exit 1; }
echo "| threads | nk / nv / d | recurrent tokens/s | chunked tokens/s | chunked / recurrent |"
echo "|---|---|---|---|---|"
for t in ${THREADS:-1 2}; do
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$BIN" --benchmark_repetitions="${REPS:-5}" \
    --benchmark_enable_random_interleaving=true --benchmark_format=json 2>/dev/null \
    | /usr/bin/python3 -c '
import json, statistics, sys
runs = [b for b in json.load(sys.stdin)["benchmarks"] if b.get("run_type") == "iteration"]
shapes = {}
for b in runs:
    form, T, nk, nv, d = b["run_name"].split("/")[1:6]
    shapes.setdefault((nk, nv, d), {}).setdefault(form, []).append(b["tokens/s"])
for (nk, nv, d), f in shapes.items():
    rec, chk = statistics.median(f["0"]), statistics.median(f["1"])
    print(f"| {sys.argv[1]} | {nk} / {nv} / {d} | {rec:,.0f} | {chk:,.0f} | {chk / rec:.2f}x |")
' "$t"
done
