#!/usr/bin/env bash
# The tokenizer of the benchmark GGUF files: $TOKENIZER when set, else a 4096-token byte-level BPE
# trained on the corpus of `llm0 data`, written under WORK. Prints its path.
#   scripts/bench_tokenizer.sh LLM0 WORK
set -euo pipefail
if [ -n "${TOKENIZER:-}" ]; then echo "$TOKENIZER"; exit 0; fi
"$1" data --output "$2/corpus" >/dev/null
"$1" tokenizer train --data "$2/corpus/train.jsonl" --vocab-size 4096 --output "$2/tokenizer.json" >/dev/null
echo "$2/tokenizer.json"
