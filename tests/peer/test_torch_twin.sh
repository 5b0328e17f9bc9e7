#!/usr/bin/env bash
# ctest peer_torch_twin: llm0 against its PyTorch twin (tools/torch_twin.py) on tiny configs.
# Usage: tests/peer/test_torch_twin.sh PATH/TO/llm0 [--keep DIR]
# Exit 77 (ctest SKIP_RETURN_CODE) when /usr/bin/python3 or its torch/numpy are missing.
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
  echo "skipped: $PY not found (scripts/setup.sh installs python3-torch python3-numpy)"
  exit 77
fi
exec "$PY" "$(dirname "$0")/test_torch_twin.py" "$@"
