#!/usr/bin/env bash
# ctest serve_stories260K (label serve): `llm0 serve` answers for the published stories260K
# (tests/data/stories260K) as it comes back from GGUF — llama2.c -> `convert --from llama2c` ->
# `export gguf` -> `convert --from gguf` — and for its BF16 conversion (`convert --dtype bf16`):
# a greedy completion of "Once upon a time" is the golden story's continuation (greedy_200.json
# ids 4.., the text `llm0 generate` prints for them) in float32, and in BF16 what `llm0 generate`
# gives for the same BF16 directory. curl and python3 only.
# Usage: tests/serve/test_serve_stories260K.sh PATH/TO/llm0
set -uo pipefail
LLM0=$1
DATA=$(cd "$(dirname "$0")/../data/stories260K" && pwd)
TEST_NAME=test_serve_stories260K
source "$(dirname "$0")/start_server.sh"

"$LLM0" convert --from llama2c "$DATA/stories260K.bin" --tokenizer "$DATA/tok512.bin" --output "$WORK/conv" >/dev/null ||
  die "convert --from llama2c failed"
"$LLM0" export gguf --model "$WORK/conv" --output "$WORK/s260.gguf" >/dev/null || die "export gguf failed"
"$LLM0" convert --from gguf "$WORK/s260.gguf" --output "$WORK/f32" >/dev/null || die "convert --from gguf failed"
"$LLM0" convert --model "$WORK/f32" --dtype bf16 --output "$WORK/bf16" >/dev/null || die "convert --dtype bf16 failed"

serve() {  # serve NAME: one greedy completion from the server, compared with llm0 generate
  local name=$1 model="$WORK/$1"
  start_server "$name" "$WORK/server.log" --model "$model" --threads 1
  local port=$PORT
  curl -s --max-time 60 -H 'Content-Type: application/json' \
    -d "{\"model\": \"$name\", \"prompt\": \"Once upon a time\", \"max_tokens\": 24, \"temperature\": 0}" \
    "http://127.0.0.1:$port/v1/completions" > "$WORK/$name.served.json" || die "$name: no answer"
  "$LLM0" generate --model "$model" --prompt "Once upon a time" --max-new-tokens 24 --temperature 0 \
    --json --threads 1 > "$WORK/$name.generate.json" || die "$name: generate failed"
  "$PY" - "$WORK/$name.served.json" "$WORK/$name.generate.json" "$DATA/greedy_200.json" "$name" <<'PY' || die "$name: differs"
import json, sys
served, gen, golden = (json.load(open(p)) for p in sys.argv[1:4])
name = sys.argv[4]
assert "choices" in served, f"{name}: not a completion: {served}"
text = served["choices"][0]["text"]
assert text == gen["text"], f"{name}: served {text!r} != llm0 generate {gen['text']!r}"
if name == "f32":  # the golden story: BOS, then ids 0..3 are "Once upon a time"
    assert gen["generated_ids"] == golden["ids"][4:28], f"{name}: not the golden continuation"
print(f"{name}: served {text!r}")
PY
  kill -TERM "$PID"
  wait "$PID" || die "$name: the server exited with status $? after SIGTERM"
  PID=
}
serve f32
serve bf16
