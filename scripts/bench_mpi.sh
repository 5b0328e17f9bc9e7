#!/usr/bin/env bash
# `make bench-mpi`: data-parallel training on this machine (docs/performance.md, "Data-parallel
# training"). For each model, the same global batch of 8 x 256 tokens per step trained by
#   1 rank x 2 threads   llm0 train --batch-size 8 --threads 2            (no mpirun)
#   2 ranks x 1 thread   mpirun -np 2 llm0 train --batch-size 4 --threads 1
#   2 ranks x 1 thread, --allreduce-buckets (each block's gradients all-reduced during backward)
# REPS interleaved runs each (so a load change hits both), then a markdown table of medians
# (min–max): training tokens/s over the steps after the first, and for 2 ranks the gradient
# all-reduce per step: bytes (4 x parameters), time in MPI_Allreduce with every rank already there
# (GB/s = bytes / that time) and time waiting at the barrier before it for the slower rank.
#
#   scripts/bench_mpi.sh
# Environment: BUILD (llm0 build folder, default build), REPS (3), MODELS ("10m 30m"),
# MODES ("1x2 2x1 2x1b"),
# WORK (scratch folder, default mktemp -d), TOKENIZER (a tokenizer.json with 4096 tokens; default:
# trained on the corpus of `llm0 data`), STEPS_10M / STEPS_30M (training steps: 8 / 5),
# MPIRUN (default: mpirun --allow-run-as-root --oversubscribe --bind-to core).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
LLM0=$ROOT/$BUILD/llm0
REPS=${REPS:-3}
MODELS=${MODELS:-"10m 30m"}
MODES=${MODES:-"1x2 2x1 2x1b"}
WORK=${WORK:-$(mktemp -d)}
MPIRUN=${MPIRUN:-"mpirun --allow-run-as-root --oversubscribe --bind-to core"}
declare -A CONFIG=([1m]=configs/bench-1m.json [10m]=configs/bench-10m.json [30m]=configs/llm0-30m.json)
declare -A STEPS=([1m]=${STEPS_1M:-20} [10m]=${STEPS_10M:-8} [30m]=${STEPS_30M:-5})
RESULTS=$WORK/results.jsonl

die() { echo "bench_mpi.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
[ -x "$LLM0" ] || die "llm0 binary not found at $LLM0 (make build, or set BUILD)"
command -v ${MPIRUN%% *} >/dev/null || die "${MPIRUN%% *} not found (scripts/setup.sh installs openmpi-bin)"
cd "$ROOT"
mkdir -p "$WORK"
: >"$RESULTS"
log "work directory: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$LLM0" data --output "$WORK/corpus" >/dev/null
if [ -z "${TOKENIZER:-}" ]; then
  log "training a 4096-token tokenizer"
  "$LLM0" tokenizer train --data "$WORK/corpus/train.jsonl" --vocab-size 4096 \
    --output "$WORK/tokenizer.json" >/dev/null
  TOKENIZER=$WORK/tokenizer.json
fi

# One run: MODE (1x2 or 2x1), model, repetition. Appends one JSON line to $RESULTS.
run() {
  local mode=$1 m=$2 rep=$3 out=$WORK/run-$1-$2-$3
  local args=(train --config "${CONFIG[$m]}" --data "$WORK/corpus" --tokenizer "$TOKENIZER"
              --out "$out" --overwrite --seq-len 256 --max-steps "${STEPS[$m]}" --log-every 1
              --eval-every 100000 --eval-batches 1 --warmup-steps 1 --quiet)
  case $mode in
    1x2) "$LLM0" "${args[@]}" --batch-size 8 --threads 2 ;;
    2x1) $MPIRUN -np 2 "$LLM0" "${args[@]}" --batch-size 4 --threads 1 ;;
    2x1b) $MPIRUN -np 2 "$LLM0" "${args[@]}" --batch-size 4 --threads 1 --allreduce-buckets ;;
  esac >"$out.log" 2>&1 || die "run $mode $m failed: $(tail -3 "$out.log")"
  python3 - "$out/metrics.jsonl" "$mode" "$m" >>"$RESULTS" <<'EOF'
import json, sys
path, mode, model = sys.argv[1:]
steps = [j for j in map(json.loads, open(path)) if "loss" in j]
first, last = steps[0], steps[-1]  # step 1 is the warm-up
r = {"mode": mode, "model": model,
     "tok_s": (last["tokens_seen"] - first["tokens_seen"]) / (last["elapsed_s"] - first["elapsed_s"]),
     "step_s": (last["elapsed_s"] - first["elapsed_s"]) / (len(steps) - 1)}
if "allreduce_ms" in first:
    timed = steps[1:]
    r["bytes"] = first["allreduce_bytes"]
    r["allreduce_ms"] = sum(j["allreduce_ms"] for j in timed) / len(timed)
    r["wait_ms"] = sum(j["allreduce_wait_ms"] for j in timed) / len(timed)
print(json.dumps(r))
EOF
}

for m in $MODELS; do
  for rep in $(seq 1 "$REPS"); do
    for mode in $MODES; do
      log "$m: $mode, run $rep of $REPS"
      run "$mode" "$m" "$rep"
    done
  done
done

python3 - "$RESULTS" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def cell(xs, fmt):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}–{fmt.format(max(xs))})"
print("| model | ranks x threads | tok/s | step s | gradient MB | all-reduce ms/step | GB/s | wait ms/step | all-reduce / step |")
print("|---|---|---|---|---|---|---|---|---|")
for model in dict.fromkeys(r["model"] for r in rows):
    for mode in ("1x2", "2x1", "2x1b"):
        rs = [r for r in rows if r["model"] == model and r["mode"] == mode]
        if not rs: continue
        label = f"{mode[0]} x {mode[2]}" + (", per-block all-reduce during backward" if mode.endswith("b") else "")
        line = f"| {model} | {label} | {cell([r['tok_s'] for r in rs], '{:,.0f}')} | {cell([r['step_s'] for r in rs], '{:.3f}')} |"
        if "bytes" not in rs[0]:
            print(line + " – | – | – | – | – |")
            continue
        mb = rs[0]["bytes"] / 1e6
        frac = cell([r["allreduce_ms"] / 1e3 / r["step_s"] * 100 for r in rs], "{:.1f}") + "%"
        ms = cell([r["allreduce_ms"] for r in rs], "{:.1f}")
        if mode.endswith("b"):  # only the part still in flight after backward is timed
            print(line + f" {mb:.1f} | {ms} left after backward | – | – | {frac} |")
        else:
            gbs = cell([r["bytes"] / (r["allreduce_ms"] / 1e3) / 1e9 for r in rs], "{:.2f}")
            print(line + f" {mb:.1f} | {ms} | {gbs} | {cell([r['wait_ms'] for r in rs], '{:.1f}')} | {frac} |")
EOF
log "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
