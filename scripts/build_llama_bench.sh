#!/usr/bin/env bash
# Builds llama.cpp's own `llama-bench` (or, given `llama-server`, its OpenAI-compatible server; given
# `llama-quantize`, its quantizer, which makes tests/data/gguf_quant's fixtures) natively (CPU only, -DGGML_NATIVE=ON, no curl) from the
# llama.cpp source bundled in node-llama-cpp (bench/peers/node_modules/node-llama-cpp/llama/
# gitRelease.bundle, a git bundle of the same commit as its prebuilt binaries), in a folder
# outside the repository. About 10 minutes on 2 cores. Idempotent: does nothing when the binary
# exists; runs `npm install` in bench/peers first when the bundle is missing
# (scripts/peers_npm_install.sh). Prints the binary's path on its last line.
#
#   scripts/build_llama_bench.sh [llama-bench|llama-server|llama-quantize]
# Environment: LLAMA_DIR (default <repo>/../llama.cpp-bench), JOBS (default 2).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LLAMA_DIR=${LLAMA_DIR:-$(cd "$ROOT/.." && pwd)/llama.cpp-bench}
JOBS=${JOBS:-2}
BUNDLE=$ROOT/bench/peers/node_modules/node-llama-cpp/llama/gitRelease.bundle
TARGET=${1:-llama-bench}
case "$TARGET" in llama-bench|llama-server|llama-quantize) ;;
  *) echo "build_llama_bench.sh: unknown target '$TARGET' (llama-bench, llama-server or llama-quantize)" >&2; exit 2;; esac
BIN=$LLAMA_DIR/build/bin/$TARGET

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
[ -f "$BUNDLE" ] || "$ROOT/scripts/peers_npm_install.sh"  # a fresh clone: npm install in bench/peers
[ -f "$BUNDLE" ] || { echo "build_llama_bench.sh: $BUNDLE missing after npm install" >&2; exit 1; }
if [ ! -d "$LLAMA_DIR/src/.git" ]; then
  rm -rf "$LLAMA_DIR/src"
  mkdir -p "$LLAMA_DIR"
  git -c advice.detachedHead=false clone --quiet "$BUNDLE" "$LLAMA_DIR/src"
fi
cmake -S "$LLAMA_DIR/src" -B "$LLAMA_DIR/build" -DCMAKE_BUILD_TYPE=Release \
  -DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF >/dev/null
cmake --build "$LLAMA_DIR/build" -j"$JOBS" --target "$TARGET"
[ -x "$BIN" ] || { echo "build_llama_bench.sh: $BIN was not produced" >&2; exit 1; }
echo "$BIN"
