#!/usr/bin/env bash
# The gated delta rule's chunked form against its recurrent form on one layer's heads at 1,024
# tokens (bench/bench_gated_delta.cpp), 1 and 2 threads: REPS repetitions interleaved at random
# by Google Benchmark, medians of tokens/s and the chunked / recurrent ratio; each form's flops per
# token and value head and the GFLOP/s it reaches, beside one sgemm of the chunked form's dominant
# shape [64, d]·[d, d] (what its products can reach on this machine).
#   scripts/bench_gated_delta.sh      Environment: BUILD (default build), REPS (5), THREADS ("1 2")
set -Eeuo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/${BUILD:-build}/bench_gated_delta
[ -x "$BIN" ] || { echo "bench_gated_delta.sh: $BIN not found (build with LLM0_BENCH=ON)" >&2; exit 1; }
echo "| threads | nk / nv / d | recurrent tokens/s | chunked tokens/s | chunked / recurrent | flops/token rec / chk | GFLOP/s rec / chk | sgemm [64, d]·[d, d] GFLOP/s |"
echo "|---|---|---|---|---|---|---|---|"
for t in ${THREADS:-1 2}; do
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$BIN" --benchmark_repetitions="${REPS:-5}" \
    --benchmark_enable_random_interleaving=true --benchmark_format=json 2>/dev/null \
    | /usr/bin/python3 -c '
import json, statistics, sys
runs = [b for b in json.load(sys.stdin)["benchmarks"] if b.get("run_type") == "iteration"]
shapes, gemm = {}, {}
for b in runs:
    parts = b["run_name"].split("/")
    if parts[0] == "BM_SgemmChunk":
        gemm.setdefault(parts[1], []).append(b["GFLOP/s"])
        continue
    form, T, nk, nv, d = parts[1:6]
    shapes.setdefault((nk, nv, d), {}).setdefault(form, []).append(b)
med = statistics.median
for (nk, nv, d), f in shapes.items():
    rec, chk = med(b["tokens/s"] for b in f["0"]), med(b["tokens/s"] for b in f["1"])
    fr, fc = f["0"][0]["flops/token"], f["1"][0]["flops/token"]
    gr, gc = med(b["GFLOP/s"] for b in f["0"]), med(b["GFLOP/s"] for b in f["1"])
    sg = med(gemm[d]) if d in gemm else float("nan")
    print(f"| {sys.argv[1]} | {nk} / {nv} / {d} | {rec:,.0f} | {chk:,.0f} | {chk / rec:.2f}x "
          f"| {fr:,.0f} / {fc:,.0f} | {gr:.1f} / {gc:.1f} | {sg:.1f} |")
' "$t"
done
