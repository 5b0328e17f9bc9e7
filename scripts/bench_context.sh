#!/usr/bin/env bash
# `make bench-context`: decode cost per token as the context grows, one pair of models on
# llm0-small's shape (6 layers, hidden 256) with random weights and max_position_embeddings 16448:
#   PAIR=sliding (default)
#     full      every layer full attention, GQA 8/2, head_dim 32 (KV cache grows with n)
#     sliding   every layer slides, W = 256 (Mistral rule; ring caches of 256 positions)
#   PAIR=mla (configs/llm0-small-mla.json; CONTEXTS default 256,1024,4096)
#     absorbed  MLA decode with W_UK / W_UV absorbed (reads only the latents)
#     expanded  MLA decode re-creating k_nope and v of every cached token
#   PAIR=hybrid (CONTEXTS default 256,4096,16384)
#     full      llm0-small (every layer full attention)
#     hybrid    configs/llm0-small-hybrid.json (Gated DeltaNet 3 : 1 full attention)
# For each context n in CONTEXTS: prefill n tokens (seconds, q·k scores), then decode 32 tokens
# (ms per token, q·k scores and cached K/V bytes read per token, from the engine's counters), via
# `llm0 bench context --json`. The two models alternate REPS times at each thread count; the
# table gives medians (min–max) and the first / second ratios.
#   scripts/bench_context.sh          PAIR=mla scripts/bench_context.sh
# Environment: BUILD (default build), PAIR, REPS (3), THREADS ("1 2"), CONTEXTS, WORK (scratch
# folder, default mktemp -d).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LLM0=$ROOT/${BUILD:-build}/llm0
REPS=${REPS:-3}
THREADS=${THREADS:-"1 2"}
PAIR=${PAIR:-sliding}
case "$PAIR" in
  sliding) MODELS=(full sliding); CONTEXTS=${CONTEXTS:-512,4096,16384} ;;
  mla) MODELS=(absorbed expanded); CONTEXTS=${CONTEXTS:-256,1024,4096} ;;
  hybrid) MODELS=(full hybrid); CONTEXTS=${CONTEXTS:-256,4096,16384} ;;
  *) echo "bench_context.sh: PAIR=$PAIR is not sliding, mla or hybrid" >&2; exit 1 ;;
esac
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
[ -x "$LLM0" ] || { echo "bench_context.sh: llm0 not found at $LLM0 (make build)" >&2; exit 1; }

/usr/bin/python3 - "$ROOT/configs" "$WORK" <<'PY'
import json, sys
c = json.load(open(f"{sys.argv[1]}/llm0-small.json"))
c["max_position_embeddings"] = 16448
json.dump(c, open(f"{sys.argv[2]}/full.json", "w"))
c.update(model_type="mistral", architectures=["MistralForCausalLM"], sliding_window=256)
json.dump(c, open(f"{sys.argv[2]}/sliding.json", "w"))
c = json.load(open(f"{sys.argv[1]}/llm0-small-mla.json"))
c["max_position_embeddings"] = 16448
json.dump(c, open(f"{sys.argv[2]}/mla.json", "w"))
c = json.load(open(f"{sys.argv[1]}/llm0-small-hybrid.json"))
c["max_position_embeddings"] = 16448
json.dump(c, open(f"{sys.argv[2]}/hybrid.json", "w"))
PY
# model name -> config file and flags
run_model() {  # name threads
  case "$1" in
    absorbed|expanded) "$LLM0" bench context --config "$WORK/mla.json" --mla-decode "$1" "${@:3}" ;;
    *) "$LLM0" bench context --config "$WORK/$1.json" "${@:3}" ;;
  esac
}
RESULTS=$WORK/results.jsonl
: >"$RESULTS"
echo "[$(date +%H:%M:%S)] work directory $WORK; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for t in $THREADS; do
  for r in $(seq "$REPS"); do
    for m in "${MODELS[@]}"; do
      echo "[$(date +%H:%M:%S)] $m, $t threads, run $r" >&2
      run_model "$m" "$t" --contexts "$CONTEXTS" --threads "$t" --json \
        | /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); j["model"]=sys.argv[1]; print(json.dumps(j))' "$m" \
        >>"$RESULTS"
    done
  done
done

/usr/bin/python3 - "$RESULTS" "${MODELS[@]}" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
first, second = sys.argv[2], sys.argv[3]
def med(xs): return statistics.median(xs)
def cell(xs, f="{:.3f}"): return f.format(med(xs)) + f" ({f.format(min(xs))}–{f.format(max(xs))})"
keys = sorted({(r["threads"], c["context"]) for r in runs for c in r["contexts"]})
print("| threads | context | model | prefill s | prefill q·k | decode ms/token | q·k / token | KV bytes read / token | attention MACs / token | cache bytes |")
print("|---|---|---|---|---|---|---|---|---|---|")
for t, n in keys:
    rows = {}
    for m in (first, second):
        cs = [c for r in runs if r["threads"] == t and r["model"] == m for c in r["contexts"] if c["context"] == n]
        rows[m] = cs
        print(f"| {t} | {n} | {m} | {cell([c['prefill_seconds'] for c in cs])} | {cs[0]['prefill_qk_scores']:,} "
              f"| {cell([1e3 * c['decode_seconds_per_token'] for c in cs])} | {cs[0]['decode_qk_scores_per_token']:,.0f} "
              f"| {cs[0]['decode_kv_bytes_read_per_token']:,.0f} | {cs[0]['decode_attention_macs_per_token']:,.0f} "
              f"| {cs[0]['cache_bytes_at_end']:,} |")
    f, s = rows[first], rows[second]
    print(f"| {t} | {n} | {first} / {second} | {med([a['prefill_seconds'] / b['prefill_seconds'] for a, b in zip(f, s)]):.2f}× "
          f"| {f[0]['prefill_qk_scores'] / s[0]['prefill_qk_scores']:.2f}× "
          f"| {med([a['decode_seconds_per_token'] / b['decode_seconds_per_token'] for a, b in zip(f, s)]):.2f}× | | | "
          f"| {f[0]['decode_attention_macs_per_token'] / s[0]['decode_attention_macs_per_token']:.2f}× | |")
PY
