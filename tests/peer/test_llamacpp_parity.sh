#!/usr/bin/env bash
# ctest peer_llamacpp_parity: llm0 against llama.cpp (node-llama-cpp's prebuilt CPU build in
# bench/peers) on exported GGUF files — llm0-small (llama), llm0-small-mla (deepseek2: MLA) and
# mixture-of-experts variants (qwen3moe; deepseek2 with V3 noaux_tc routing) —
# the same greedy ids and first-step log-probabilities within 1e-4 (scripts/parity_llamacpp.sh).
# Usage: tests/peer/test_llamacpp_parity.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) when node/npm are missing or npm cannot install the package
# (no registry); any parity difference fails.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found"; exit 77; }
"$ROOT/scripts/peers_npm_install.sh" || { echo "skipped: npm install of node-llama-cpp failed"; exit 77; }
LLM0=$1 MODELS="small small-mla small-qwen3moe small-deepseekmoe" N=${N:-32} THREADS=1 exec "$ROOT/scripts/parity_llamacpp.sh"
