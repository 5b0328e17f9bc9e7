#!/usr/bin/env bash
# `make bench-serve`: `llm0 serve` against llama.cpp's `llama-server` (built from the same bundled
# source as llama-bench: scripts/build_llama_bench.sh llama-server) on loopback, the same F32
# weights (a random-init checkpoint and its `llm0 export gguf` file), the same number of parallel
# slots (llama-server -np N with N full contexts; llm0 --max-batch N), the same thread count.
#   throughput   aggregate decode tokens/s and median time to first token with 1, 4, 8, 16
#                concurrent streamed requests (PROMPT_LEN-token prompts, MAX_TOKENS tokens each,
#                greedy), on the ~10M (configs/bench-10m.json) and ~30M (configs/llm0-30m.json)
#                presets; REPS runs per point, llm0 and llama-server alternating (a load change
#                hits both); medians, with llm0's rate at N streams over its rate at 1;
#   prefix cache time to first token of a request whose 1,000-token prefix is cached vs new
#                (~30M preset, max_tokens 1), llm0 (prefix cache) and llama-server (cache_prompt).
# Prints a markdown table (bench/serve/bench_serve.mjs is the client). KV caches: llm0 f32,
# llama-server its default F16 (it offers no F32 one). The random models' lm_head rows of tokens
# that are not complete UTF-8 are zeroed (bench/serve/mask_partial_utf8.mjs): llama-server refuses
# a completion whose text is not valid UTF-8. Requests set ignore_eos, so every stream generates
# MAX_TOKENS tokens in both servers; the first greedy text of each model is compared.
#
#   scripts/bench_serve.sh
# Environment: BUILD (default build), THREADS (1), REPS (3), STREAMS ("1 4 8 16"), MODELS
# ("10m 30m"), PROMPT_LEN (32), MAX_TOKENS (128), WORK (default mktemp -d), LLAMA_SERVER (binary;
# default: build it, ~10 min), TOKENIZER (a 4096-token tokenizer.json; default: trained here).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
LLM0=$ROOT/$BUILD/llm0
THREADS=${THREADS:-1}
REPS=${REPS:-3}
STREAMS=${STREAMS:-"1 4 8 16"}
MODELS=${MODELS:-"10m 30m"}
PROMPT_LEN=${PROMPT_LEN:-32}
MAX_TOKENS=${MAX_TOKENS:-128}
WORK=${WORK:-$(mktemp -d)}
CLIENT=$ROOT/bench/serve/bench_serve.mjs
declare -A CONFIG=([10m]=configs/bench-10m.json [30m]=configs/llm0-30m.json)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
die() { echo "bench_serve.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
[ -x "$LLM0" ] || die "llm0 binary not found at $LLM0 (make build, or set BUILD)"
command -v node >/dev/null || die "node not found (Debian: apt-get install nodejs)"
cd "$ROOT"
LLAMA_SERVER=${LLAMA_SERVER:-$(scripts/build_llama_bench.sh llama-server | tail -n 1)}
[ -x "$LLAMA_SERVER" ] || die "llama-server not found at $LLAMA_SERVER"
log "work directory: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -z "${TOKENIZER:-}" ]; then
  log "training a 4096-token tokenizer"
  "$LLM0" data --output "$WORK/corpus" >/dev/null
  "$LLM0" tokenizer train --data "$WORK/corpus/train.jsonl" --vocab-size 4096 --output "$WORK/tokenizer.json" >/dev/null
  TOKENIZER=$WORK/tokenizer.json
fi
for m in $MODELS; do
  [ -n "${CONFIG[$m]:-}" ] || die "unknown model $m (10m or 30m)"
  "$LLM0" init --config "${CONFIG[$m]}" --seed 1 --output "$WORK/$m" --overwrite >/dev/null
  cp "$TOKENIZER" "$WORK/$m/tokenizer.json"
  node "$ROOT/bench/serve/mask_partial_utf8.mjs" "$WORK/$m" >/dev/null  # llama-server needs UTF-8 text
  "$LLM0" export gguf --model "$WORK/$m" --output "$WORK/$m.gguf" --dtype f32 >/dev/null
done
context() { sed -n 's/.*"max_position_embeddings": *\([0-9]*\).*/\1/p' "${CONFIG[$1]}"; }

# wait_health URL PID: until GET URL/health answers 200 (llama-server: after loading).
wait_health() {
  for _ in $(seq 1 600); do
    curl -sf "$1/health" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || die "a server exited at start (logs in $WORK)"
    sleep 0.1
  done
  die "no /health from $1 after 60 s"
}
free_port() { node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})'; }
# start_llm0 MODEL N -> URL (sets LPID)
start_llm0() {
  local port; port=$(free_port)
  "$LLM0" serve --model "$WORK/$1" --port "$port" --threads "$THREADS" --max-batch "$2" \
    --max-queue 64 2>"$WORK/llm0-$1-$2.log" &
  LPID=$!; PIDS+=($LPID); wait_health "http://127.0.0.1:$port" $LPID; URL="http://127.0.0.1:$port"
}
start_llama() {
  local port; port=$(free_port)
  "$LLAMA_SERVER" -m "$WORK/$1.gguf" --port "$port" -t "$THREADS" -tb "$THREADS" -np "$2" \
    -c $(( $2 * $(context "$1") )) --no-warmup >"$WORK/llama-$1-$2.log" 2>&1 &
  PPID_=$!; PIDS+=($PPID_); wait_health "http://127.0.0.1:$port" $PPID_; URL="http://127.0.0.1:$port"
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
field() { node -e "console.log(JSON.parse(process.argv[1])[process.argv[2]])" "$1" "$2"; }
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "| model | streams | llm0 tokens/s | llama-server tokens/s | llm0 / llama-server | llm0 TTFT ms | llama-server TTFT ms | llm0 vs its 1 stream |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for m in $MODELS; do
  VOCAB=$(sed -n 's/.*"vocab_size": *\([0-9]*\).*/\1/p' "${CONFIG[$m]}")
  one=""
  for n in $STREAMS; do
    start_llm0 "$m" "$n"; L_URL=$URL; L_PID=$LPID
    start_llama "$m" "$n"; P_URL=$URL; P_PID=$PPID_
    lt=(); pt=(); lf=(); pf=(); ratios=()
    if [ -z "$one" ]; then  # the same weights, the same greedy text (a sanity check of the setup)
      q='{"prompt": [300, 400, 500, 600, 700], "max_tokens": 24, "temperature": 0, "ignore_eos": true}'
      tl=$(curl -s "$L_URL/v1/completions" -H 'Content-Type: application/json' -d "$q" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify(JSON.parse(s).choices[0].text)))')
      tp=$(curl -s "$P_URL/v1/completions" -H 'Content-Type: application/json' -d "$q" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify(JSON.parse(s).choices[0].text)))')
      [ "$tl" = "$tp" ] && log "$m: the same greedy text from both servers" || log "$m: greedy texts differ: llm0 $tl, llama-server $tp"
    fi
    node "$CLIENT" throughput "$L_URL" "$n" "$PROMPT_LEN" 8 "$VOCAB" 99 >/dev/null  # warm-up
    node "$CLIENT" throughput "$P_URL" "$n" "$PROMPT_LEN" 8 "$VOCAB" 99 >/dev/null
    for r in $(seq 1 "$REPS"); do
      a=$(node "$CLIENT" throughput "$L_URL" "$n" "$PROMPT_LEN" "$MAX_TOKENS" "$VOCAB" "$r")
      b=$(node "$CLIENT" throughput "$P_URL" "$n" "$PROMPT_LEN" "$MAX_TOKENS" "$VOCAB" "$r")
      lt+=("$(field "$a" tokens_per_second)"); pt+=("$(field "$b" tokens_per_second)")
      lf+=("$(field "$a" ttft_median_ms)"); pf+=("$(field "$b" ttft_median_ms)")
      ratios+=("$(awk -v x="${lt[-1]}" -v y="${pt[-1]}" 'BEGIN {print x / y}')")
      log "$m N=$n rep $r: llm0 $a; llama-server $b"
    done
    stop "$L_PID"; stop "$P_PID"
    L=$(med "${lt[@]}"); P=$(med "${pt[@]}")
    [ -n "$one" ] || one=$L
    printf "| %s | %d | %.1f | %.1f | %.2f× | %.1f | %.1f | %.2f× |\n" "$m" "$n" "$L" "$P" "$(med "${ratios[@]}")" \
      "$(med "${lf[@]}")" "$(med "${pf[@]}")" "$(awk -v x="$L" -v y="$one" 'BEGIN {print x / y}')"
  done
done

if [[ " $MODELS " == *" 30m "* ]]; then
  start_llm0 30m 1; L_URL=$URL; L_PID=$LPID
  start_llama 30m 1; P_URL=$URL; P_PID=$PPID_
  a=$(node "$CLIENT" prefix "$L_URL" 1000 4096 5 "$REPS")
  b=$(node "$CLIENT" prefix "$P_URL" 1000 4096 5 "$REPS")
  log "prefix cache: llm0 $a; llama-server $b"
  stop "$L_PID"; stop "$P_PID"
  echo
  echo "| 30m, 1,000-token prefix | new prefix: TTFT ms | cached prefix: TTFT ms | speed-up |"
  echo "| --- | ---: | ---: | ---: |"
  for pair in "llm0:$a" "llama-server:$b"; do
    name=${pair%%:*}; j=${pair#*:}
    c=$(field "$j" cold_ttft_median_ms); w=$(field "$j" warm_ttft_median_ms)
    printf "| %s | %.1f | %.1f | %.1f× |\n" "$name" "$c" "$w" "$(awk -v x="$c" -v y="$w" 'BEGIN {print x / y}')"
  done
fi
log "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
