#!/usr/bin/env bash
# Decode tokens/s of llm0 against llama.cpp's llama-bench at given contexts, on the same F32
# weights (a random-init checkpoint exported by `llm0 export gguf`): llm0 `bench context --model`
# (prefill n tokens, then decode G, from an empty cache) and `llama-bench -p 0 -n G -d n` (its
# tgG @ depth n; its defaults otherwise: F16 KV cache, flash attention auto). Default model:
# configs/llm0-small-hybrid-moe.json (qwen3next: Gated DeltaNet 3 : 1 gated attention, MoE with
# the gated shared expert), max_position_embeddings raised to fit the largest context. The two
# engines alternate REPS times at each thread count; the table gives medians (min–max) and the
# median of the per-run ratios llm0 / llama.cpp.
#   scripts/bench_peer_context.sh
# Environment: BUILD (default build), CONFIG, CONTEXTS (256,4096), DECODE_TOKENS (32), REPS (3),
# THREADS ("1 2"), WORK (scratch folder), LLAMA_BENCH (binary; default: scripts/build_llama_bench.sh),
# LLAMA_ARGS (extra llama-bench flags, e.g. "-fa 0": its flash-attention path is the slower one
# on this model on CPU),
# TOKENIZER (tokenizer.json with <= vocab_size tokens; default: trained on `llm0 data`).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LLM0=$ROOT/${BUILD:-build}/llm0
PY=/usr/bin/python3
CONFIG=${CONFIG:-$ROOT/configs/llm0-small-hybrid-moe.json}
CONTEXTS=${CONTEXTS:-256,4096}
G=${DECODE_TOKENS:-32}
REPS=${REPS:-3}
THREADS=${THREADS:-"1 2"}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
[ -x "$LLM0" ] || { echo "bench_peer_context.sh: llm0 not found at $LLM0 (make build)" >&2; exit 1; }
cd "$ROOT"
LLAMA_BENCH=${LLAMA_BENCH:-$(scripts/build_llama_bench.sh | tail -n 1)}
[ -x "$LLAMA_BENCH" ] || { echo "bench_peer_context.sh: llama-bench not found at $LLAMA_BENCH" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
log "work directory $WORK; load average $(cut -d' ' -f1-3 /proc/loadavg)"

TOKENIZER=$(scripts/bench_tokenizer.sh "$LLM0" "$WORK")
"$PY" - "$CONFIG" "$WORK/config.json" "$CONTEXTS" "$G" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["max_position_embeddings"] = max(c["max_position_embeddings"],
                                   max(int(n) for n in sys.argv[3].split(",")) + int(sys.argv[4]))
json.dump(c, open(sys.argv[2], "w"))
PY
"$LLM0" init --config "$WORK/config.json" --seed 1 --output "$WORK/model" --overwrite >/dev/null
cp "$TOKENIZER" "$WORK/model/tokenizer.json"
"$LLM0" export gguf --model "$WORK/model" --output "$WORK/model.gguf" --dtype f32 >/dev/null

RESULTS=$WORK/results.jsonl
: >"$RESULTS"
run_llm0() {  # threads
  "$LLM0" bench context --model "$WORK/model" --contexts "$CONTEXTS" --decode-tokens "$G" \
    --threads "$1" --json | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
for c in j["contexts"]:
    print(json.dumps({"engine": "llm0", "threads": int(sys.argv[1]), "context": c["context"],
                      "tokens_per_s": 1.0 / c["decode_seconds_per_token"]}))' "$1" >>"$RESULTS"
}
run_llama() {  # threads
  # shellcheck disable=SC2086  # LLAMA_ARGS is a list of flags
  "$LLAMA_BENCH" -m "$WORK/model.gguf" -p 0 -n "$G" -d "$CONTEXTS" -t "$1" -r 3 ${LLAMA_ARGS:-} -o json 2>/dev/null \
    | "$PY" -c '
import json, sys
for r in json.load(sys.stdin):
    print(json.dumps({"engine": "llama.cpp", "threads": int(sys.argv[1]), "context": r["n_depth"],
                      "tokens_per_s": r["avg_ts"], "build_commit": r.get("build_commit", "")}))' "$1" >>"$RESULTS"
}
for rep in $(seq "$REPS"); do
  for t in $THREADS; do
    log "rep $rep/$REPS, $t thread(s)"
    if [ $((rep % 2)) = 1 ]; then run_llm0 "$t"; run_llama "$t"; else run_llama "$t"; run_llm0 "$t"; fi
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $REPS interleaved runs; decode of $G tokens after the context; llama-bench flags: ${LLAMA_ARGS:-(defaults)}"
"$PY" - "$RESULTS" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def runs(e, t, n): return [r["tokens_per_s"] for r in rows if r["engine"] == e and r["threads"] == t and r["context"] == n]
def cell(xs): return f"{statistics.median(xs):,.0f} ({min(xs):,.0f}–{max(xs):,.0f})"
print("| threads | context | llm0 decode tok/s | llama.cpp decode tok/s | llm0 / llama.cpp |")
print("|---|---|---|---|---|")
for t, n in sorted({(r["threads"], r["context"]) for r in rows}):
    a, b = runs("llm0", t, n), runs("llama.cpp", t, n)
    ratios = [x / y for x, y in zip(a, b)]
    print(f"| {t} | {n:,} | {cell(a)} | {cell(b)} | {statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f}) |")
PY
