#!/usr/bin/env bash
# ctest serve_chat_template (label serve): `llm0 serve` on a model directory that carries its own
# chat template (tokenizer_config.json), end to end over HTTP:
#   - the model card names the template ("tokenizer_config.json", not llm0-plain);
#   - a greedy chat completion is the greedy continuation of the template's rendering
#     (`llm0 tokenizer chat --add-generation-prompt`) as `llm0 generate` gives it for that text:
#     the same text, and usage.prompt_tokens = the rendering's token count;
#   - chat_template_kwargs reach the template (a variable it prints makes the prompt longer);
#   - with the model's eos_token_id set to the id that continuation produces at step K (its
#     first occurrence), the chat turn ends there: finish_reason "stop", K completion tokens, the
#     text of the first K generated ids, and the card lists that id among chat_stop_token_ids.
# curl and Debian's python3 only. Usage: tests/serve/test_serve_chat_template.sh PATH/TO/llm0
set -uo pipefail
LLM0=$1
TEST_NAME=test_serve_chat_template
source "$(dirname "$0")/start_server.sh"

train_tokenizer "Servers answer requests; templates turn a conversation into one prompt."
cat > "$WORK/model.json" <<JSON
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 300, "hidden_size": 48,
 "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "head_dim": 12, "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
 "tie_word_embeddings": false}
JSON
M="$WORK/model"
"$LLM0" init --config "$WORK/model.json" --seed 11 --output "$M" >/dev/null || die "init failed"
cp "$WORK/tokenizer.json" "$M/tokenizer.json"
# A template in the published templates' style: role markers, a generation prompt, an optional
# variable from chat_template_kwargs.
"$PY" - "$M/tokenizer_config.json" <<'PY'
import json, sys
template = ("{% if greeting is defined %}{{ greeting }} {% endif %}"
            "{% for m in messages %}<{{ m['role'] }}> {{ m['content'] | trim }}\n{% endfor %}"
            "{% if add_generation_prompt %}<assistant>{% endif %}")
json.dump({"chat_template": template, "eos_token": "<|endoftext|>"}, open(sys.argv[1], "w"))
PY
MESSAGES='[{"role": "system", "content": "Answer as a park would."}, {"role": "user", "content": "The cat sat on"}]'
echo "$MESSAGES" > "$WORK/messages.json"
"$LLM0" tokenizer chat --model "$M" --messages "$WORK/messages.json" --add-generation-prompt > "$WORK/rendered.txt" ||
  die "tokenizer chat failed"
# The reference: llm0 generate on the rendered text (it ends in "<assistant>", no newline for $(...)
# to strip).
"$LLM0" generate --model "$M" --prompt "$(cat "$WORK/rendered.txt")" --max-new-tokens 12 --temperature 0 --json \
  --threads 1 > "$WORK/reference.json" || die "generate on the rendering failed"

chat() {  # chat OUT [KWARGS_JSON]: a greedy chat completion of MESSAGES into OUT
  "$PY" -c 'import json, sys
body = {"model": "model", "messages": json.loads(sys.argv[1]), "max_tokens": 12, "temperature": 0}
if len(sys.argv) > 2: body["chat_template_kwargs"] = json.loads(sys.argv[2])
print(json.dumps(body))' "$MESSAGES" "${@:2}" |
    curl -s --max-time 60 -H 'Content-Type: application/json' --data-binary @- \
      "http://127.0.0.1:$PORT/v1/chat/completions" > "$1" || die "no answer to a chat request"
}

start_server template "$WORK/server.log" --model "$M" --threads 1
curl -s --max-time 10 "http://127.0.0.1:$PORT/v1/models" > "$WORK/card.json" || die "no model card"
chat "$WORK/chat.json"
chat "$WORK/chat_kwargs.json" '{"greeting": "Hello there, servers."}'
kill -TERM "$PID"; wait "$PID"; PID=
"$PY" - "$WORK/card.json" "$WORK/chat.json" "$WORK/chat_kwargs.json" "$WORK/reference.json" \
  "$M/config.json" <<'PY' || die "the chat does not follow the model's template"
import json, sys
card, chat, kw, ref = (json.load(open(p)) for p in sys.argv[1:5])
m = card["data"][0]
assert m["chat_template"] == "tokenizer_config.json", f"model card: {m}"
assert "choices" in chat, f"not a chat completion: {chat}"
text = chat["choices"][0]["message"]["content"]
assert text == ref["text"], f"chat {text!r} != llm0 generate on the rendering {ref['text']!r}"
assert chat["usage"]["prompt_tokens"] == ref["prompt_tokens"], (chat["usage"], ref["prompt_tokens"])
assert kw["usage"]["prompt_tokens"] > chat["usage"]["prompt_tokens"], ("kwargs ignored", kw["usage"])
ids = ref["generated_ids"]
# K: the first step from 3 on (else from 1) whose id the continuation has not produced before
k = next((i for i in range(3, len(ids)) if ids[i] not in ids[:i]), None) or \
    next(i for i in range(1, len(ids)) if ids[i] not in ids[:i])
config = json.load(open(sys.argv[5]))
config["eos_token_id"] = ids[k]
json.dump(config, open(sys.argv[5], "w"))
json.dump({"k": k, "id": ids[k], "ids": ids[:k]}, open(sys.argv[5] + ".stop", "w"))
PY
K=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["k"])' "$M/config.json.stop")
"$LLM0" generate --model "$M" --prompt "$(cat "$WORK/rendered.txt")" --max-new-tokens "$K" --temperature 0 --json \
  --threads 1 > "$WORK/reference_k.json" || die "generate of the first $K tokens failed"
start_server template-eos "$WORK/server.log" --model "$M" --threads 1
curl -s --max-time 10 "http://127.0.0.1:$PORT/v1/models" > "$WORK/card_eos.json" || die "no model card"
chat "$WORK/chat_eos.json"
"$PY" - "$WORK/card_eos.json" "$WORK/chat_eos.json" "$WORK/reference_k.json" "$M/config.json.stop" <<'PY' ||
import json, sys
card, chat, ref, stop = (json.load(open(p)) for p in sys.argv[1:5])
assert stop["id"] in card["data"][0]["chat_stop_token_ids"], f"card: {card['data'][0]}"
c = chat["choices"][0]
assert c["finish_reason"] == "stop", f"the turn did not end at the eos id {stop}: {chat}"
assert chat["usage"]["completion_tokens"] == stop["k"], (chat["usage"], stop)
assert ref["generated_ids"] == stop["ids"], (ref["generated_ids"], stop)
assert c["message"]["content"] == ref["text"], f"{c['message']['content']!r} != {ref['text']!r}"
print(f"chat: template rendered, {chat['usage']['prompt_tokens']} prompt tokens; the turn ends at eos id {stop['id']} after {stop['k']} tokens")
PY
  die "the chat turn does not end at the model's eos token"
