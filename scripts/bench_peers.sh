#!/usr/bin/env bash
# `make bench-peers`: llm0's speed against its two peers on this machine, in one run.
#   training tokens/s   llm0 (`llm0 bench train`) / PyTorch (tools/torch_twin.py --bench-train,
#                       OMP_WAIT_POLICY=PASSIVE), [B, T] = [8, 256], forward+backward+AdamW,
#                       configs/bench-1m.json, bench-10m.json, llm0-30m.json, in each precision
#                       of PRECISIONS: f32 (llm0 --precision f32 / PyTorch float32) and, where
#                       llm0's kernels have AVX512_BF16, bf16 (llm0 --precision bf16 / PyTorch
#                       torch.autocast("cpu", dtype=torch.bfloat16): both BF16 products with float32
#                       weights and AdamW);
#   prefill / decode    llm0 (`llm0 bench generate`, pp64 / tg128 from an empty KV cache) /
#                       llama.cpp's llama-bench (-p 64 -n 128 -r 3, its defaults: F16 KV cache (it
#                       offers no F32 one) and flash attention auto = on),
#                       on the same F32 weights: a random-init checkpoint exported by
#                       `llm0 export gguf`;
# at 1 and 2 threads, REPS interleaved runs (llm0 and its peer alternate, so a load change hits
# both). Prints a markdown table of medians with min–max of the runs, ratios llm0 / peer (median
# of the per-run ratios, min–max), llm0's training MFU against the measured sgemm ceiling and its
# decode bytes/s against the measured read bandwidth. Builds llama-bench first when missing
# (scripts/build_llama_bench.sh, ~10 min).
#
#   scripts/bench_peers.sh
# Environment: BUILD (llm0 build folder, default build), REPS (3), THREADS ("1 2"),
# WHAT ("train infer": training and/or prefill/decode), PRECISIONS (training: "f32 bf16" where
# llm0's kernel level is avx512bf16, else "f32"),
# MODELS ("1m 10m 30m"), WORK (scratch folder, default mktemp -d), LLAMA_BENCH (binary; default: build it),
# TOKENIZER (a tokenizer.json with 4096 tokens; default: trained on the corpus of `llm0 data`),
# STEPS_1M / STEPS_10M / STEPS_30M (timed training steps: 8 / 3 / 2, after 1 warm-up step).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
LLM0=$ROOT/$BUILD/llm0
PY=/usr/bin/python3
REPS=${REPS:-3}
THREADS=${THREADS:-"1 2"}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
MODELS=${MODELS:-"1m 10m 30m"}
declare -A CONFIG=([small]=configs/llm0-small.json [1m]=configs/bench-1m.json [10m]=configs/bench-10m.json [30m]=configs/llm0-30m.json
                   [small-swa]=configs/llm0-small-swa.json [small-mla]=configs/llm0-small-mla.json
                   [small-moe]=configs/llm0-small-moe.json [small-qwen3moe]=configs/bench-qwen3moe.json
                   [small-hybrid]=configs/llm0-small-hybrid.json [small-hybrid-moe]=configs/llm0-small-hybrid-moe.json
                   [small-shared-kv]=configs/llm0-shared-kv.json)
declare -A STEPS=([small]=3 [1m]=${STEPS_1M:-8} [10m]=${STEPS_10M:-3} [30m]=${STEPS_30M:-2} [small-swa]=3 [small-mla]=3
                  [small-moe]=3 [small-qwen3moe]=3 [small-hybrid]=3 [small-hybrid-moe]=3 [small-shared-kv]=3)
# small-swa (sliding windows + sinks) and small-moe (qwen2_moe: a gated shared expert) have no
# llama.cpp counterpart in the exported GGUF: they are compared for training only; small-mla runs
# against llama.cpp's deepseek2 and small-qwen3moe (8 experts, top 2, every layer MoE) against its
# qwen3moe (MODELS="small-mla small-qwen3moe").
# small-hybrid (Gated DeltaNet, qwen3_next with dense MLP): llama.cpp's qwen3next expects MoE
# layers, so training only (MODELS="small-hybrid"; the twin's delta rule is a per-token loop);
# small-hybrid-moe (the same with experts and the gated shared expert) runs against llama.cpp's
# qwen3next too (its decode at contexts 256 and 4,096: scripts/bench_peer_context.sh).
# small-shared-kv (llm0's shared-KV attention: one row per KV head is K and V) has no llama.cpp
# architecture (`llm0 export gguf` refuses it): training only, against the twin's shared-KV layer.
has_infer() { case "$1" in small-swa|small-moe|small-hybrid|small-shared-kv) return 1 ;; *) return 0 ;; esac; }
WHAT=${WHAT:-"train infer"}
want() { case " $WHAT " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
any_infer=false
for m in $MODELS; do
  [ -n "${CONFIG[$m]:-}" ] || { echo "bench_peers.sh: unknown model $m (one of ${!CONFIG[*]})" >&2; exit 1; }
  if want infer && has_infer "$m"; then any_infer=true; fi
done
RESULTS=$WORK/results.jsonl

die() { echo "bench_peers.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
[ -x "$LLM0" ] || die "llm0 binary not found at $LLM0 (make build, or set BUILD)"
"$PY" -c 'import torch' 2>/dev/null || die "$PY cannot import torch (scripts/setup.sh installs python3-torch)"
cd "$ROOT"
# PyTorch links the same OpenBLAS: both run the core llm0 runs (the one llm0 selected where the
# library fell back to an older core: `llm0 --version`), so both multiply with the same kernels.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  OPENBLAS_CORETYPE=$("$LLM0" --version 2>/dev/null | sed -n 's/^BLAS: .* core \([A-Za-z0-9_]*\) .*/\1/p')
  export OPENBLAS_CORETYPE
fi
log "OpenBLAS core for llm0 and PyTorch: $OPENBLAS_CORETYPE"
# BF16 training needs vdpbf16ps in the kernels llm0 runs (`llm0 --version`: "kernels: LEVEL").
if [ -z "${PRECISIONS:-}" ]; then
  cpu_line=$("$LLM0" --version | sed -n 's/^CPU: //p')
  PRECISIONS=f32
  case "$cpu_line" in *"kernels: avx512bf16"*) PRECISIONS="f32 bf16" ;; esac
  [ "$PRECISIONS" = f32 ] && want train &&
    log "training in f32 only: llm0's kernel level has no AVX512_BF16 ('$cpu_line'), so --precision bf16 is refused and auto keeps float32"
fi
if $any_infer; then
  LLAMA_BENCH=${LLAMA_BENCH:-$(scripts/build_llama_bench.sh | tail -n 1)}
  [ -x "$LLAMA_BENCH" ] || die "llama-bench not found at $LLAMA_BENCH"
fi
: >"$RESULTS"
log "work directory: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- the models for inference: random init + tokenizer, exported to GGUF F32 ----
if $any_infer && [ -z "${TOKENIZER:-}" ]; then
  log "training a 4096-token tokenizer for the GGUF files"
  "$LLM0" data --output "$WORK/corpus" >/dev/null
  "$LLM0" tokenizer train --data "$WORK/corpus/train.jsonl" --vocab-size 4096 \
    --output "$WORK/tokenizer.json" >/dev/null
  TOKENIZER=$WORK/tokenizer.json
fi
for m in $MODELS; do
  $any_infer && has_infer "$m" || continue
  "$LLM0" init --config "${CONFIG[$m]}" --seed 1 --output "$WORK/$m" --overwrite >/dev/null
  cp "$TOKENIZER" "$WORK/$m/tokenizer.json"
  "$LLM0" export gguf --model "$WORK/$m" --output "$WORK/$m.gguf" --dtype f32 >/dev/null
done

# tag JSON: appends one result line {"tag": ..., ...the engine's JSON...}.
record() { "$PY" -c 'import json,sys; d=json.loads(sys.argv[2]); d["tag"]=sys.argv[1]; print(json.dumps(d))' "$1" "$2" >>"$RESULTS"; }

train_llm0() {  # model threads precision
  record "train-$3 $1 $2 llm0" "$("$LLM0" bench train --config "${CONFIG[$1]}" --batch-size 8 --seq-len 256 \
    --steps "${STEPS[$1]}" --warmup 1 --threads "$2" --precision "$3" --json)"
}
train_torch() {  # model threads precision (bf16: autocast)
  local autocast=none
  [ "$3" = bf16 ] && autocast=bf16
  record "train-$3 $1 $2 torch" "$(OMP_WAIT_POLICY=PASSIVE "$PY" tools/torch_twin.py --bench-train \
    --config "${CONFIG[$1]}" --batch-size 8 --seq-len 256 --steps "${STEPS[$1]}" --warmup 1 \
    --threads "$2" --autocast "$autocast")"
}
infer_llm0() {  # model threads
  record "infer $1 $2 llm0" "$("$LLM0" bench generate --model "$WORK/$1" --prompt-tokens 64 \
    --gen-tokens 128 --repeats 3 --threads "$2" --json)"
}
infer_llama() {  # model threads
  record "infer $1 $2 llama" "$(scripts/llama_bench_json.sh "$LLAMA_BENCH" "$WORK/$1.gguf" "$2")"
}

# ---- interleaved runs: for every repetition, each pair runs back to back (order alternating) ----
for rep in $(seq 1 "$REPS"); do
  for t in $THREADS; do
    for m in $MODELS; do
      if want train; then
        for p in $PRECISIONS; do
          log "rep $rep/$REPS, $t thread(s), $m: training llm0 / PyTorch, $p"
          if [ $((rep % 2)) = 1 ]; then train_llm0 "$m" "$t" "$p"; train_torch "$m" "$t" "$p"
          else train_torch "$m" "$t" "$p"; train_llm0 "$m" "$t" "$p"; fi
        done
      fi
      want infer && has_infer "$m" || continue
      log "rep $rep/$REPS, $t thread(s), $m: prefill/decode llm0 / llama-bench"
      if [ $((rep % 2)) = 1 ]; then infer_llm0 "$m" "$t"; infer_llama "$m" "$t"
      else infer_llama "$m" "$t"; infer_llm0 "$m" "$t"; fi
    done
  done
done

# ---- the table ----
{
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $REPS interleaved runs$("$PY" -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("build_commit"): print("; llama-bench", d["build_commit"]); break' "$RESULTS")"
  echo
  "$PY" - "$RESULTS" "$MODELS" "$THREADS" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
models, threads = sys.argv[2].split(), sys.argv[3].split()
def runs(tag, key):
    return [r[key] for r in rows if r["tag"] == tag]
def med(xs):
    return f"{statistics.median(xs):,.0f} ({min(xs):,.0f}–{max(xs):,.0f})"
def ratio(a, b):
    rs = [x / y for x, y in zip(a, b)]
    return f"**{statistics.median(rs):.2f}×** ({min(rs):.2f}–{max(rs):.2f})"
params = {r["tag"].split()[1]: r["num_parameters"] for r in rows if r["tag"].endswith("llm0")}
print("| what | model | threads | llm0 tok/s | peer tok/s | llm0 / peer |")
print("|---|---|---|---|---|---|")
for what, key, kind, peer in (("training f32 (vs PyTorch float32)", "tokens_per_s", "train-f32", "torch"),
                              ("training bf16 (vs PyTorch BF16 autocast)", "tokens_per_s", "train-bf16", "torch"),
                              ("prefill pp64 (vs llama-bench)", "prefill_tokens_per_s", "infer", "llama"),
                              ("decode tg128 (vs llama-bench)", "decode_tokens_per_s", "infer", "llama")):
    for m in models:
        for t in threads:
            a, b = runs(f"{kind} {m} {t} llm0", key), runs(f"{kind} {m} {t} {peer}", key)
            if a and b:
                print(f"| {what} | {m} ({params[m] / 1e6:.1f}M) | {t} | {med(a)} | {med(b)} | {ratio(a, b)} |")
print()
print("| llm0 | model | threads | achieved | ceiling | fraction |")
print("|---|---|---|---|---|---|")
for prec in ("f32", "bf16"):
    for m in models:
        for t in threads:
            tr = [r for r in rows if r["tag"] == f"train-{prec} {m} {t} llm0"]
            if tr:
                g, p = [r["gflops"] for r in tr], [r["sgemm_gflops"] for r in tr]
                f = [r["mfu"] for r in tr]
                print(f"| training MFU, {prec} | {m} | {t} | {statistics.median(g):.1f} GFLOP/s | sgemm {statistics.median(p):.1f} GFLOP/s "
                      f"| {100 * statistics.median(f):.0f}% ({100 * min(f):.0f}–{100 * max(f):.0f}%) |")
for m in models:
    for t in threads:
        ge = [r for r in rows if r["tag"] == f"infer {m} {t} llm0"]
        if ge:
            b, w = [r["decode_bytes_per_s"] / 1e9 for r in ge], [r["read_bytes_per_s"] / 1e9 for r in ge]
            f = [r["fraction_of_bound"] for r in ge]
            print(f"| decode bytes/s | {m} ({ge[0]['weight_bytes_per_token'] / 1e6:.1f} MB/token) | {t} "
                  f"| {statistics.median(b):.1f} GB/s | read {statistics.median(w):.1f} GB/s "
                  f"| {100 * statistics.median(f):.0f}% ({100 * min(f):.0f}–{100 * max(f):.0f}%) |")
EOF
} | tee "$WORK/table.md"
log "results: $RESULTS, table: $WORK/table.md"
