#!/usr/bin/env bash
# ctest serve_hybrid (label serve): `llm0 serve` answers for a Gated DeltaNet hybrid model
# (Qwen3-Next layout: linear-attention layers with a recurrent state per request, one gated
# full-attention layer in pages), a sliding-window model (windows of 6 shorter than the
# prompts, with sinks) and an MLA model (latent rows in pages, prefix cache on). For each: 6 concurrent greedy completions of prompts of different lengths
# (prefilled in chunks of 5 beside the others' decodes) equal the same requests one at a time
# and `llm0 generate --json` (its own one-page cache, one sequence); cached_tokens is 0 where there is
# no prefix cache (sliding, hybrid) and every page is back afterwards (/metrics). curl and python3 only.
# Usage: tests/serve/test_serve_hybrid.sh PATH/TO/llm0
set -uo pipefail
LLM0=$1
TEST_NAME=test_serve_hybrid
source "$(dirname "$0")/start_server.sh"

train_tokenizer "Servers answer requests; states hold what every layer remembers of a prompt."
cat > "$WORK/hybrid.json" <<JSON
{"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "vocab_size": 300,
 "hidden_size": 48, "intermediate_size": 80, "num_hidden_layers": 3, "layer_types":
 ["linear_attention", "full_attention", "linear_attention"], "num_attention_heads": 4,
 "num_key_value_heads": 2, "head_dim": 16, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
 "linear_key_head_dim": 12, "linear_value_head_dim": 10, "linear_conv_kernel_dim": 4,
 "num_experts": 0, "max_position_embeddings": 256, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
 "partial_rotary_factor": 0.25, "tie_word_embeddings": false}
JSON
cat > "$WORK/mla.json" <<JSON
{"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "vocab_size": 300,
 "hidden_size": 48, "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 4,
 "num_key_value_heads": 4, "max_position_embeddings": 256, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
 "q_lora_rank": null, "kv_lora_rank": 20, "qk_nope_head_dim": 8, "qk_rope_head_dim": 6,
 "v_head_dim": 10, "first_k_dense_replace": 2, "tie_word_embeddings": false}
JSON
cat > "$WORK/swa.json" <<JSON
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 300, "hidden_size": 48,
 "intermediate_size": 80, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
 "head_dim": 16, "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
 "layer_types": ["sliding_attention", "full_attention", "sliding_attention"], "sliding_window": 6,
 "attention_sinks": true, "tie_word_embeddings": false}
JSON

run_model() {  # run_model NAME on|off: the prefix cache the server must report
  local name=$1 prefix=$2 model="$WORK/$1"
  "$LLM0" init --config "$WORK/$name.json" --seed 5 --output "$model" >/dev/null || die "init of $name failed"
  cp "$WORK/tokenizer.json" "$model/tokenizer.json"
  start_server "$name" "$WORK/server.log" --model "$model" --threads 1 --page-size 4 --kv-pages 400 \
    --max-batch 8 --prefill-chunk 5 --step-tokens 16
  local port=$PORT
  grep -q "prefix cache $prefix" "$WORK/server.log" || die "$name: the server does not say prefix cache $prefix"
  local prompts=("The cat" "A dog ran to the park and back again, twice. The cat sat on"
                 "Servers answer requests; states hold" "The cat sat on the mat number 7. A dog"
                 "twice." "Servers answer requests; states hold what every layer remembers of a prompt. The")
  ask() {  # ask I: completion of prompt I into $WORK/$name.$2.I.json
    "$PY" -c 'import json,sys; print(json.dumps({"model": sys.argv[1], "prompt": sys.argv[2], "max_tokens": 14, "temperature": 0}))' \
      "$name" "${prompts[$1]}" |
      curl -s --max-time 60 -H 'Content-Type: application/json' --data-binary @- \
        "http://127.0.0.1:$port/v1/completions" > "$WORK/$name.$2.$1.json"
  }
  local asks=()
  for i in "${!prompts[@]}"; do ask "$i" together & asks+=($!); done
  for p in "${asks[@]}"; do wait "$p"; done
  for i in "${!prompts[@]}"; do ask "$i" alone; done
  for i in "${!prompts[@]}"; do
    "$LLM0" generate --model "$model" --prompt "${prompts[$i]}" --max-new-tokens 14 --temperature 0 \
      --json --threads 1 > "$WORK/$name.ref.$i.json" || die "$name: generate failed"
    "$PY" - "$WORK/$name.together.$i.json" "$WORK/$name.alone.$i.json" "$WORK/$name.ref.$i.json" "$name $i" "$prefix" <<'PY' || die "$name: prompt $i differs"
import json, sys
together, alone, ref = (json.load(open(p)) for p in sys.argv[1:4])
what, prefix = sys.argv[4], sys.argv[5]
for r in (together, alone):
    assert "choices" in r, f"{what}: not a completion: {r}"
    if prefix == "off":
        assert r["usage"]["prompt_tokens_details"]["cached_tokens"] == 0, f"{what}: cached tokens {r['usage']}"
t, a = together["choices"][0]["text"], alone["choices"][0]["text"]
assert t == a, f"{what}: concurrent {t!r} != alone {a!r}"
assert t == ref["text"], f"{what}: served {t!r} != llm0 generate {ref['text']!r}"
PY
  done
  local pages  # a sequence closes on the scheduler's next pass after its last token is sent
  for _ in $(seq 1 100); do
    pages=$(curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^llm0_kv_pages_in_use \([0-9]*\)$/\1/p')
    [ "$pages" = "0" ] && break
    sleep 0.1
  done
  [ "$pages" = "0" ] || die "$name: $pages pages still in use 10 s after every request ended"
  kill -TERM "$PID"
  wait "$PID" || die "$name: the server exited with status $? after SIGTERM"
  PID=
  echo "$name: 6 concurrent greedy completions = alone = llm0 generate; pages back"
}
run_model hybrid off
run_model swa off
run_model mla on
