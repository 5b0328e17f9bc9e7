#!/usr/bin/env bash
# `make bench-peers` (second part): BF16 inference speed at ~30M parameters (configs/llm0-30m.json).
# One random-init checkpoint in F32 and the same converted to BF16 (`llm0 convert --dtype bf16`),
# exported as a BF16 GGUF (`llm0 export gguf --dtype bf16`); at 1 and 2 threads, REPS interleaved
# runs (the order rotates every repetition) of
#   llm0 F32    `llm0 bench generate --model F32 --weights-dtype f32`   (F32 KV cache)
#   llm0 BF16   `llm0 bench generate --model BF16`   (auto: BF16 weights, BF16 KV cache)
#   llama.cpp   llama-bench -m BF16.gguf -p 64 -n 128 -r 3 (its defaults: F16 KV cache)
# Prints a markdown table of medians (min–max) with the ratios BF16 / F32 and BF16 / llama.cpp
# (median of the per-run ratios), the BF16 kernel llm0 chose, and decode bytes/s as a fraction of
# the measured read bandwidth.
#
#   scripts/bench_bf16.sh
# Environment: BUILD (default build), REPS (3), THREADS ("1 2"), CONFIG (configs/llm0-30m.json),
# WORK (scratch, default mktemp -d), LLAMA_BENCH (binary; default: scripts/build_llama_bench.sh),
# TOKENIZER (a tokenizer.json; default: a 4096-token one trained on `llm0 data`).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
LLM0=$ROOT/$BUILD/llm0
PY=/usr/bin/python3
REPS=${REPS:-3}
THREADS=${THREADS:-"1 2"}
CONFIG=${CONFIG:-configs/llm0-30m.json}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
mkdir -p "$WORK"
RESULTS=$WORK/bf16.jsonl
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
[ -x "$LLM0" ] || { echo "bench_bf16.sh: llm0 binary not found at $LLM0" >&2; exit 1; }
cd "$ROOT"
LLAMA_BENCH=${LLAMA_BENCH:-$(scripts/build_llama_bench.sh | tail -n 1)}
: >"$RESULTS"
log "work directory: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

TOKENIZER=$(scripts/bench_tokenizer.sh "$LLM0" "$WORK")
"$LLM0" init --config "$CONFIG" --seed 1 --output "$WORK/f32" --overwrite >/dev/null
cp "$TOKENIZER" "$WORK/f32/tokenizer.json"
"$LLM0" convert --model "$WORK/f32" --output "$WORK/bf16" --dtype bf16 --overwrite >/dev/null
"$LLM0" export gguf --model "$WORK/bf16" --output "$WORK/bf16.gguf" --dtype bf16 >/dev/null

record() { "$PY" -c 'import json,sys; d=json.loads(sys.argv[2]); d["tag"]=sys.argv[1]; print(json.dumps(d))' "$1" "$2" >>"$RESULTS"; }
run_f32() {
  record "f32 $1" "$("$LLM0" bench generate --model "$WORK/f32" --weights-dtype f32 --prompt-tokens 64 \
    --gen-tokens 128 --repeats 3 --threads "$1" --json)"
}
run_bf16() {
  record "bf16 $1" "$("$LLM0" bench generate --model "$WORK/bf16" --prompt-tokens 64 \
    --gen-tokens 128 --repeats 3 --threads "$1" --json)"
}
run_llama() {
  record "llama $1" "$(scripts/llama_bench_json.sh "$LLAMA_BENCH" "$WORK/bf16.gguf" "$1")"
}

for rep in $(seq 1 "$REPS"); do
  for t in $THREADS; do
    log "rep $rep/$REPS, $t thread(s): llm0 F32 / llm0 BF16 / llama-bench BF16"
    case $((rep % 3)) in
      1) run_f32 "$t"; run_bf16 "$t"; run_llama "$t" ;;
      2) run_bf16 "$t"; run_llama "$t"; run_f32 "$t" ;;
      0) run_llama "$t"; run_f32 "$t"; run_bf16 "$t" ;;
    esac
  done
done

{
  echo "BF16 inference, $CONFIG; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $REPS interleaved runs"
  echo
  "$PY" - "$RESULTS" "$THREADS" <<'PYEOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
threads = sys.argv[2].split()
def runs(tag, key):
    return [r[key] for r in rows if r["tag"] == tag]
def med(xs):
    return f"{statistics.median(xs):,.0f} ({min(xs):,.0f}–{max(xs):,.0f})"
def ratio(a, b):
    rs = [x / y for x, y in zip(a, b)]
    return f"**{statistics.median(rs):.2f}×** ({min(rs):.2f}–{max(rs):.2f})"
b0 = next(r for r in rows if r["tag"].startswith("bf16"))
print(f"llm0 BF16 kernel: {b0['bf16_kernel']}; KV cache: llm0 F32 run f32, llm0 BF16 run {b0['kv_dtype']}, "
      f"llama-bench f16; {b0['num_parameters'] / 1e6:.1f}M parameters")
print()
print("| what | threads | llm0 BF16 tok/s | llm0 F32 tok/s | llama.cpp BF16 tok/s | BF16 / F32 | BF16 / llama.cpp |")
print("|---|---|---|---|---|---|---|")
for what, key in (("prefill pp64", "prefill_tokens_per_s"), ("decode tg128", "decode_tokens_per_s")):
    for t in threads:
        b, f, l = runs(f"bf16 {t}", key), runs(f"f32 {t}", key), runs(f"llama {t}", key)
        if b and f and l:
            print(f"| {what} | {t} | {med(b)} | {med(f)} | {med(l)} | {ratio(b, f)} | {ratio(b, l)} |")
print()
print("| llm0 decode | threads | weight bytes/token | decode bytes/s | read bandwidth | fraction |")
print("|---|---|---|---|---|---|")
for d in ("bf16", "f32"):
    for t in threads:
        ge = [r for r in rows if r["tag"] == f"{d} {t}"]
        if ge:
            bs = [r["decode_bytes_per_s"] / 1e9 for r in ge]
            w = [r["read_bytes_per_s"] / 1e9 for r in ge]
            f = [r["fraction_of_bound"] for r in ge]
            print(f"| {d.upper()} | {t} | {ge[0]['weight_bytes_per_token'] / 1e6:.1f} MB | {statistics.median(bs):.1f} GB/s "
                  f"| {statistics.median(w):.1f} GB/s | {100 * statistics.median(f):.0f}% ({100 * min(f):.0f}–{100 * max(f):.0f}%) |")
PYEOF
} | tee "$WORK/bf16_table.md"
log "results: $RESULTS, table: $WORK/bf16_table.md"
