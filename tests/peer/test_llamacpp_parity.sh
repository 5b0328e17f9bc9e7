#!/usr/bin/env bash
# ctest peer_llamacpp_parity: llm0 against llama.cpp (node-llama-cpp's prebuilt CPU build in
# bench/peers) on exported GGUF files — llm0-small (llama) and llm0-small-mla (deepseek2: MLA) —
# the same greedy ids and first-step log-probabilities within 1e-4 (scripts/parity_llamacpp.sh);
# then llm0-small as a BF16 checkpoint and BF16 GGUF: the same greedy ids, log-probabilities
# within 3e-2 (llama.cpp's BF16 kernels round the activations to BF16; llm0 keeps ~16 bits).
# Usage: tests/peer/test_llamacpp_parity.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) when node/npm are missing or npm cannot install the package
# (no registry); any parity difference fails.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found"; exit 77; }
"$ROOT/scripts/peers_npm_install.sh" || { echo "skipped: npm install of node-llama-cpp failed"; exit 77; }
LLM0=$1 MODELS="small small-mla" N=${N:-32} THREADS=1 "$ROOT/scripts/parity_llamacpp.sh" || exit 1
LLM0=$1 MODELS="small" N=${N:-32} THREADS=1 DTYPE=bf16 TOL=3e-2 exec "$ROOT/scripts/parity_llamacpp.sh"
