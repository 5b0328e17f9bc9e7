#!/usr/bin/env bash
# Before/after of a training speed change in CPU time, for cores shared with other jobs: at 1 thread
# (THREADS=1, the default) the CPU seconds a step takes do not grow when other processes take turns
# on the core (the wall clock does). Each binary runs `llm0 bench train --threads THREADS
# --sgemm-n 0` with 1 and with 1 + K timed steps under `perf stat -e task-clock`; the difference
# over K is one step's CPU time (start-up, weight init and first-touch page faults cancel).
# Binaries interleave run by run (the order reversed every other repetition). Prints a markdown
# table: per model, each binary's median CPU seconds per step (min–max) and the ratio to the first.
#
#   scripts/bench_ab_cpu.sh LLM0_A LLM0_B [LLM0_C ...]
# Environment: REPS (3), MODELS ("small 10m 30m"), K (3), THREADS (1; at 2 threads run with
# OMP_WAIT_POLICY=PASSIVE, or the CPU time includes the threads' spin-waiting for each other).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

die() { echo "bench_ab_cpu.sh: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: scripts/bench_ab_cpu.sh LLM0_A LLM0_B [LLM0_C ...]"
command -v perf >/dev/null || die "perf not found (apt-get install -y linux-perf)"
BINS=()
for b in "$@"; do [ -f "$b" ] && [ -x "$b" ] || die "not an executable file: $b"; BINS+=("$(realpath "$b")"); done
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
MODELS=${MODELS:-"small 10m 30m"}
K=${K:-3}
THREADS=${THREADS:-1}
declare -A CONFIG=([1m]=configs/bench-1m.json [10m]=configs/bench-10m.json [30m]=configs/llm0-30m.json
                  [small]=configs/llm0-small.json)
for m in $MODELS; do [ -n "${CONFIG[$m]:-}" ] || die "unknown model '$m' in MODELS (known: 1m 10m 30m small)"; done
[[ $REPS =~ ^[1-9][0-9]*$ && $K =~ ^[1-9][0-9]*$ && $THREADS =~ ^[1-9][0-9]*$ ]] ||
  die "REPS, K and THREADS must be positive integers"
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT

cpu_ms() {  # binary config steps -> task-clock milliseconds of the whole run
  perf stat -x, -e task-clock "$1" bench train --config "$2" --batch-size 8 --seq-len 256 --steps "$3" \
    --warmup 1 --sgemm-n 0 --threads "$THREADS" --json 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}'
}

echo "[$(date +%H:%M:%S)] load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for rep in $(seq 1 "$REPS"); do
  for m in $MODELS; do
    order=("${!BINS[@]}")
    [ $((rep % 2)) = 0 ] && order=($(printf '%s\n' "${order[@]}" | tac))
    for i in "${order[@]}"; do
      short=$(cpu_ms "${BINS[$i]}" "${CONFIG[$m]}" 1)
      long=$(cpu_ms "${BINS[$i]}" "${CONFIG[$m]}" $((1 + K)))
      echo "$i $m $short $long" >>"$RESULTS"
    done
  done
  echo "[$(date +%H:%M:%S)] repetition $rep/$REPS done" >&2
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $REPS interleaved runs, K=$K, $THREADS thread(s), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-default}"
/usr/bin/python3 - "$RESULTS" "$K" "${BINS[@]}" <<'PY'
import statistics, sys
K, bins = int(sys.argv[2]), sys.argv[3:]
step = {}  # (binary index, model) -> [CPU s per step]
for line in open(sys.argv[1]):
    i, m, short, long_ = line.split()
    step.setdefault((int(i), m), []).append((float(long_) - float(short)) / K / 1e3)
models = list(dict.fromkeys(m for _, m in step))
print("| model | " + " | ".join(f"{b} CPU s/step" for b in bins) + " | " +
      " | ".join(f"{bins[0]} / {b}" for b in bins[1:]) + " |")
print("|---" * (2 * len(bins)) + "|")
for m in models:
    s = [step[(i, m)] for i in range(len(bins))]
    cells = [f"{statistics.median(x):.3f} ({min(x):.3f}–{max(x):.3f})" for x in s]
    ratios = [f"**{statistics.median(s[0]) / statistics.median(x):.3f}×**" for x in s[1:]]
    print(f"| {m} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
PY
