#!/usr/bin/env bash
# ctest serve_openai (label serve): `llm0 serve` driven by the official OpenAI client (npm openai,
# pinned in tests/serve/package.json) and by raw sockets (tests/serve/serve_test.mjs). A tiny
# random llama model (llm0 init, a 300-token tokenizer trained here, weights scaled so greedy
# text is varied) is served on a free port (--port 0, read from the server's first line) with a
# pool large enough for everything (prefill chunks of 8 tokens and 12 tokens per step, so prompts
# are read over many steps beside the decodes of the others); a larger model (~10M parameters, context 2048, so one request
# runs for seconds) is served with one slot and a one-request queue, for 429 and cancellation, and
# again with 4 connection slots and a 4 s request deadline, for slow and idle clients; the tiny
# model again with a 2 s request deadline, for requests that stall part way.
# The reference for greedy text is `llm0 generate --json` (its own one-page cache, one sequence).
# Usage: tests/serve/test_serve.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) only when node/npm are missing or npm cannot install the client.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LLM0=$1
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found (Debian: apt-get install nodejs npm)"; exit 77; }
PEERS="$ROOT/tests/serve" PACKAGE=openai "$ROOT/scripts/peers_npm_install.sh" ||
  { echo "skipped: npm install of the openai client failed (no registry?)"; exit 77; }
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$WORK"; }
trap cleanup EXIT
die() { echo "test_serve: $*" >&2; exit 1; }

# A corpus of a few repeated English sentences, its tokenizer and a tiny model.
for i in $(seq 1 40); do
  echo "The cat sat on the mat number $i. A dog ran to the park and back again, twice."
  echo "Servers answer requests; pages hold keys and values for every token of a prompt."
done > "$WORK/corpus.txt"
"$LLM0" tokenizer train --data "$WORK/corpus.txt" --vocab-size 300 --output "$WORK/tokenizer.json" >/dev/null ||
  die "tokenizer train failed"
# model NAME HIDDEN INTERMEDIATE LAYERS HEADS KV_HEADS HEAD_DIM CONTEXT: a random llama checkpoint.
model() {
  cat > "$WORK/$1.json" <<JSON
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 300, "hidden_size": $2,
 "intermediate_size": $3, "num_hidden_layers": $4, "num_attention_heads": $5, "num_key_value_heads": $6,
 "head_dim": $7, "max_position_embeddings": $8, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
 "tie_word_embeddings": false}
JSON
  "$LLM0" init --config "$WORK/$1.json" --seed 7 --output "$WORK/$1" >/dev/null || die "init of $1 failed"
  cp "$WORK/tokenizer.json" "$WORK/$1/tokenizer.json"
}
model tiny 64 96 2 4 2 16 256
node "$ROOT/bench/peers/scale_weights.mjs" "$WORK/tiny" 8 >/dev/null || die "scale_weights failed"
model slow 512 1024 4 8 4 64 2048

# Bad flags are refused by name before anything starts (a server that starts is killed after 60 s).
# refused_saying PATTERN ARGS...: the refusal matches the extended regex PATTERN.
refused_saying() {
  local pattern=$1 out; shift
  out=$(timeout 60 "$LLM0" serve --model "$WORK/tiny" --port 0 "$@" 2>&1) && die "accepted: $*"
  grep -qE -- "$pattern" <<<"$out" || die "the refusal of $* does not say /$pattern/: $out"
}
refused() { refused_saying "$1" "$@"; }
refused --request-timeout 0
refused --request-timeout 1e9
refused --max-connections 0
refused --read-timeout 100000
# Found by review: --kv-memory 1e12 named a page count; --model-name "" was ignored; --threads
# 100000 was accepted.
refused_saying "^llm0: error: --kv-memory 1e\+12 MiB is more than this machine's memory \([0-9]+ MiB\)" --kv-memory 1e12
refused_saying "^llm0: error: --kv-pages: .*\[1, 2\^30 = 1073741824\], got 2000000000" --kv-pages 2000000000
refused_saying "^llm0: error: --model-name must not be empty" --model-name ""
refused_saying "^llm0: error: --threads: must be in \[0, 1024\].*got 100000" --threads 100000
# Found by review (issue 17): --max-body 1e-9 and 1e30 were accepted; --page-size 257 and
# --kv-memory 1e-300 named no flag; the default pool (--max-batch full contexts) failed to allocate
# naming no flag (a copy of the tiny model with a context of 2^20 tokens: 4096 × 2^20 tokens of
# 2 layers × 2 × 2 KV heads × 16 × 4 bytes = 2 TiB).
refused_saying "^llm0: error: --max-body: must be a size in MiB in \[0.0009765625, 1048576\] \(1 KiB to 1 TiB\), got 1e-9" --max-body 1e-9
refused_saying "^llm0: error: --max-body: must be .*\[0.0009765625, 1048576\].*, got 1e30" --max-body 1e30
refused_saying "^llm0: error: --page-size 257 must be in \[1, max_position_embeddings=256\]" --page-size 257
refused_saying "^llm0: error: --kv-memory 1e-300 MiB is less than one KV page \(16 tokens, 8192 bytes" --kv-memory 1e-300
cp -r "$WORK/tiny" "$WORK/long"
sed -i 's/"max_position_embeddings": *256/"max_position_embeddings": 1048576/' "$WORK/long/config.json"
grep -q '"max_position_embeddings": 1048576' "$WORK/long/config.json" || die "the long model's context was not set"
out=$(timeout 60 "$LLM0" serve --model "$WORK/long" --port 0 --max-batch 4096 2>&1) && die "accepted: a 2 TiB default pool"
grep -qE -- "^llm0: error: --max-batch 4096: the default KV pool \(4096 full contexts of 1048576 tokens = 268435456 pages, \
2097152 MiB\) (is more than this machine's memory \([0-9]+ MiB\)|: KV page pool: cannot allocate .*); lower --max-batch or set \
--kv-pages / --kv-memory$" <<<"$out" || die "the refusal of the default 2 TiB pool says: $out"
# An IPv6 address is printed in brackets (http://[::1]:PORT); skipped where ::1 cannot be bound.
"$LLM0" serve --model "$WORK/tiny" --port 0 --host ::1 --threads 1 2>"$WORK/v6.log" &
V6=$!
for _ in $(seq 1 300); do grep -q "listening on" "$WORK/v6.log" && break; kill -0 $V6 2>/dev/null || break; sleep 0.1; done
if grep -q "listening on" "$WORK/v6.log"; then
  grep -qE "listening on http://\[::1\]:[1-9][0-9]* \(model tiny" "$WORK/v6.log" || die "the IPv6 listening line: $(cat "$WORK/v6.log")"
else
  echo "test_serve: ::1 not available here, the IPv6 listening line is not checked: $(cat "$WORK/v6.log")"
fi
kill $V6 2>/dev/null; wait $V6 2>/dev/null

# start NAME MODEL ARGS...: starts `llm0 serve` on a free port; sets PORT.
start() {
  local name=$1 model=$2; shift 2
  "$LLM0" serve --model "$WORK/$model" --port 0 --threads 1 "$@" 2>"$WORK/$name.log" &
  PIDS+=($!)
  for _ in $(seq 1 300); do
    PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/$name.log" 2>/dev/null)
    [ -n "$PORT" ] && return 0
    kill -0 "${PIDS[-1]}" 2>/dev/null || { cat "$WORK/$name.log"; die "$name: the server exited at start"; }
    sleep 0.1
  done
  die "$name: no 'listening on' line after 30 s"
}

start main tiny --page-size 4 --kv-pages 600 --max-batch 16 --max-queue 32 --prefill-chunk 8 --step-tokens 12 \
  --read-timeout 2 --max-body 1
MAIN_PORT=$PORT
start small slow --page-size 16 --kv-pages 300 --max-batch 1 --max-queue 1
SMALL_PORT=$PORT
# Connection limits: 4 connections, 4 s to send a request, reads of 1 s (so idle keep-alive
# connections wait 1 s); a pool of 10 pages of 16 tokens, less than the context (256).
start limits slow --page-size 16 --kv-pages 10 --max-batch 1 --max-queue 1 --max-connections 4 \
  --request-timeout 4 --read-timeout 1
LIMITS_PORT=$PORT LIMITS_PID=${PIDS[-1]}
# Stalled requests: a 2 s request deadline well inside the 10 s read timeout.
start stall tiny --page-size 4 --kv-pages 64 --request-timeout 2 --read-timeout 10
STALL_PORT=$PORT
LLM0="$LLM0" MODEL="$WORK/tiny" MODEL_ID=tiny LIMITS_PID=$LIMITS_PID \
  node "$ROOT/tests/serve/serve_test.mjs" "$MAIN_PORT" "$SMALL_PORT" "$LIMITS_PORT" "$STALL_PORT"
rc=$?
# The explorer mounted at /explore/: a page, and the cache-vs-recompute lesson on the served model
# equal to its CLI twin `llm0 lesson kv-cache --model ... --json`.
"$LLM0" lesson kv-cache --model "$WORK/tiny" --up-to 0 --json --threads 1 > "$WORK/twin.json" || die "lesson kv-cache failed"
PORT=$MAIN_PORT TWIN="$WORK/twin.json" node -e '
  const fs = require("fs"), base = "http://127.0.0.1:" + process.env.PORT;
  (async () => {
    const page = await fetch(base + "/explore/");
    if (page.status !== 200 || !page.headers.get("content-type").startsWith("text/html")) throw new Error("/explore/: " + page.status);
    const got = await (await fetch(base + "/explore/api/lesson/kv-cache?model=loaded&up-to=0")).json();
    const want = JSON.parse(fs.readFileSync(process.env.TWIN, "utf8"));
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error("/explore/api/lesson/kv-cache differs from the CLI twin");
  })().catch(e => { console.error("test_serve: explorer mount: " + e.message); process.exit(1); });
' || rc=1
# A clean shutdown: SIGTERM ends the server with status 0 (the limits server was stopped by the
# test, SIGTERM with a request running).
for p in "${PIDS[@]}"; do
  kill -TERM "$p" 2>/dev/null
  wait "$p" || { echo "test_serve: a server exited with status $? after SIGTERM"; rc=1; }
done
PIDS=()
[ $rc -eq 0 ] || { echo "--- server log"; cat "$WORK/main.log"; }
exit $rc
