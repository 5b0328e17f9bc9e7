#!/usr/bin/env bash
# Before/after of a speed change: two llm0 binaries, interleaved run by run on the same inputs.
#   training tokens/s      `llm0 bench train`, [B, T] = [8, 256] (as make bench-peers)
#   prefill / decode tok/s `llm0 bench generate`, pp64 / tg128 from an empty KV cache
# for configs/bench-1m.json, bench-10m.json, llm0-30m.json (and llm0-small.json, the `make run`
# preset, with MODELS="small") at 1 and 2 threads. Prints a markdown
# table: medians (min–max) of REPS runs and the ratio after / before (median of per-run ratios);
# for training also the ratio in CPU time per step (before / after; what load on shared cores
# does not change at 1 thread) and the median MFU against sgemm, by wall clock and in CPU time.
#
#   scripts/bench_ab.sh BEFORE_LLM0 AFTER_LLM0
# e.g. git worktree add /tmp/before HEAD~1 && cmake -S /tmp/before -B /tmp/before/build &&
#      cmake --build /tmp/before/build --target llm0_cli && scripts/bench_ab.sh /tmp/before/build/llm0 build/llm0
# Environment: REPS (3), THREADS ("1 2"), MODELS ("1m 10m 30m"), WHAT ("train generate"),
# PRECISION (f32: training's matrix products; bf16 or auto as `llm0 train --precision`).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

die() { echo "bench_ab.sh: $*" >&2; exit 2; }
[ $# = 2 ] || die "usage: scripts/bench_ab.sh BEFORE_LLM0 AFTER_LLM0"
for b in "$1" "$2"; do [ -f "$b" ] && [ -x "$b" ] || die "not an executable file: $b"; done
set -- "$(realpath "$1")" "$(realpath "$2")"  # the runs happen in the repository root
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
REPS=${REPS:-3}
THREADS=${THREADS:-"1 2"}
MODELS=${MODELS:-"1m 10m 30m"}
WHAT=${WHAT:-"train generate"}
PRECISION=${PRECISION:-f32}
declare -A CONFIG=([1m]=configs/bench-1m.json [10m]=configs/bench-10m.json [30m]=configs/llm0-30m.json
                  [small]=configs/llm0-small.json)
declare -A STEPS=([1m]=8 [10m]=3 [30m]=2 [small]=3)
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive integer, not '$REPS'"
for m in $MODELS; do [ -n "${CONFIG[$m]:-}" ] || die "unknown model '$m' in MODELS (known: 1m 10m 30m small)"; done
for w in $WHAT; do [[ $w = train || $w = generate ]] || die "unknown '$w' in WHAT (known: train generate)"; done
[[ $PRECISION =~ ^(f32|bf16|auto)$ ]] || die "PRECISION must be f32, bf16 or auto, not '$PRECISION'"
for t in $THREADS; do [[ $t =~ ^[1-9][0-9]*$ ]] || die "THREADS must list positive integers, not '$t'"; done
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT

run() {  # binary tag what model threads
  local out
  if [ "$3" = train ]; then
    out=$("$1" bench train --config "${CONFIG[$4]}" --batch-size 8 --seq-len 256 --steps "${STEPS[$4]}" \
      --warmup 1 --threads "$5" --precision "$PRECISION" --json)
  else
    out=$("$1" bench generate --config "${CONFIG[$4]}" --prompt-tokens 64 --gen-tokens 128 --repeats 3 \
      --threads "$5" --json)
  fi
  echo "$2 $3 $4 $5 $out" >>"$RESULTS"
}

echo "[$(date +%H:%M:%S)] load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for rep in $(seq 1 "$REPS"); do
  for t in $THREADS; do
    for m in $MODELS; do
      for w in $WHAT; do
        if [ $((rep % 2)) = 1 ]; then run "$1" before "$w" "$m" "$t"; run "$2" after "$w" "$m" "$t"
        else run "$2" after "$w" "$m" "$t"; run "$1" before "$w" "$m" "$t"; fi
      done
    done
  done
  echo "[$(date +%H:%M:%S)] repetition $rep/$REPS done" >&2
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $REPS interleaved runs; training precision $PRECISION"
/usr/bin/python3 - "$RESULTS" <<'PY'
import json, statistics, sys
rows = []
for line in open(sys.argv[1]):
    side, what, model, threads, js = line.split(" ", 4)
    rows.append((side, what, model, threads, json.loads(js)))
def vals(side, what, model, threads, key):
    # a key an older binary does not print (mfu_cpu, cpu_seconds_per_step) gives an empty list
    return [d[key] for s, w, m, t, d in rows if (s, w, m, t) == (side, what, model, threads) and key in d]
print("| what | model | threads | before tok/s | after tok/s | after / before | in CPU time | MFU vs sgemm, wall (CPU time), before → after |")
print("|---|---|---|---|---|---|---|---|")
keys = [("training", "train", "tokens_per_s"), ("prefill pp64", "generate", "prefill_tokens_per_s"),
        ("decode tg128", "generate", "decode_tokens_per_s")]
seen = []
for _, w, m, t, _ in rows:
    if (w, m, t) not in seen: seen.append((w, m, t))
for label, what, key in keys:
    for w, m, t in seen:
        if w != what: continue
        b, a = vals("before", w, m, t, key), vals("after", w, m, t, key)
        r = [x / y for x, y in zip(a, b)]
        f = lambda xs: f"{statistics.median(xs):,.0f} ({min(xs):,.0f}–{max(xs):,.0f})"
        mfu, cpu = "—", "—"
        if what == "train" and vals("before", w, m, t, "mfu_cpu") and vals("after", w, m, t, "mfu_cpu"):
            pc = lambda side, k: f"{100 * statistics.median(vals(side, w, m, t, k)):.0f}%"
            mfu = f"{pc('before', 'mfu')} ({pc('before', 'mfu_cpu')}) → {pc('after', 'mfu')} ({pc('after', 'mfu_cpu')})"
            rc = [x / y for x, y in zip(vals("before", w, m, t, "cpu_seconds_per_step"),
                                        vals("after", w, m, t, "cpu_seconds_per_step"))]
            cpu = f"{statistics.median(rc):.2f}× ({min(rc):.2f}–{max(rc):.2f})"
        print(f"| {label} | {m} | {t} | {f(b)} | {f(a)} | **{statistics.median(r):.2f}×** ({min(r):.2f}–{max(r):.2f}) | {cpu} | {mfu} |")
PY
