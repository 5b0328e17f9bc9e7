#!/usr/bin/env bash
# ctest peer_llamacpp_parity: llm0 against llama.cpp (node-llama-cpp's prebuilt CPU build in
# bench/peers) on exported GGUF files — llm0-small (llama), llm0-small-mla (deepseek2: MLA) and
# mixture-of-experts variants (qwen3moe; deepseek2 with V3 noaux_tc routing) and
# configs/llm0-small-hybrid-moe.json (qwen3next: Gated DeltaNet 3 : 1 gated attention, MoE with the
# gated shared expert) — the same greedy ids and first-step log-probabilities within 1e-4
# (scripts/parity_llamacpp.sh; on the hybrid, llm0 is 6.5e-5 and llama.cpp 1.5e-5 from a float64
# PyTorch-twin evaluation of the same weights, so 1e-4 bounds float32 rounding on both sides) and
# the published stories260K from BOS (llama.cpp = llm0 = the golden story; same tokenization);
# then BF16: llm0-small, the 30M model and the two MoE models converted to BF16 (routed and shared
# experts held in BF16 by llm0), llm0's BF16 weights against llama.cpp's float32 run of the same
# rounded weights (identical greedy ids, log-probabilities within 1e-4),
# the same BF16 GGUF in llama.cpp's BF16 kernels reported (they round activations to BF16 and move
# log-probabilities by up to ~0.2 on these random models, enough to flip near-tied tokens; on the
# MoE models also the routing, up to ~3 on the deepseek2 one); and the
# `make run` model (runs/small/checkpoint, or LLM0_TRAINED_MODEL) as a BF16 GGUF: greedy ids
# identical to llama.cpp's BF16 run (log-probabilities within 5e-2), skipped with a note when absent.
# Usage: tests/peer/test_llamacpp_parity.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) when node/npm are missing or npm cannot install the package
# (no registry); any parity difference fails.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found"; exit 77; }
"$ROOT/scripts/peers_npm_install.sh" || { echo "skipped: npm install of node-llama-cpp failed"; exit 77; }
LLM0=$1 MODELS="small small-mla small-qwen3moe small-deepseekmoe small-hybrid-moe stories260K" N=${N:-32} THREADS=1 "$ROOT/scripts/parity_llamacpp.sh" || exit 1
LLM0=$1 MODELS="small 30m small-qwen3moe small-deepseekmoe" N=${N:-32} THREADS=1 DTYPE=bf16 TOL=3e-1 BF16_STRICT=0 \
  "$ROOT/scripts/parity_llamacpp.sh" || exit 1
TRAINED=${LLM0_TRAINED_MODEL:-$ROOT/runs/small/checkpoint}
if [ ! -f "$TRAINED/config.json" ]; then
  echo "note: no trained model at $TRAINED (make run writes it): BF16 GGUF greedy parity not run"
  exit 0
fi
LLM0=$1 N=${N:-32} THREADS=1 DTYPE=bf16 TOL=5e-2 exec "$ROOT/scripts/parity_llamacpp.sh" --model "$TRAINED"
