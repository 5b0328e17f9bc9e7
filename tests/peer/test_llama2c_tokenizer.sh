#!/usr/bin/env bash
# ctest peer_llama2c_tokenizer: llm0's SentencePiece-style BPE against llama2.c's encode()
# (re-implemented in tests/peer/test_llama2c_tokenizer.py). Usage: $0 PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) when /usr/bin/python3 is missing.
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
  echo "skipped: $PY not found"
  exit 77
fi
exec "$PY" "$(dirname "$0")/test_llama2c_tokenizer.py" "$@"
