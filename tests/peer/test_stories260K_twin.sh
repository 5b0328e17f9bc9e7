#!/usr/bin/env bash
# ctest peer_stories260K_twin: stories260K (converted from llama2.c) logits, full and cached,
# against the PyTorch twin. Usage: $0 PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) when /usr/bin/python3 or its torch/numpy are missing.
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$PY" -c "import torch, numpy" 2>/dev/null; then
  echo "skipped: $PY with torch and numpy not found (scripts/setup.sh installs python3-torch python3-numpy)"
  exit 77
fi
exec "$PY" "$(dirname "$0")/test_stories260K_twin.py" "$@"
