#!/usr/bin/env bash
# Installs bench/peers' node packages (node-llama-cpp 3.21.1, whose bundled llama.cpp source
# scripts/build_llama_bench.sh builds and whose bindings scripts/parity_llamacpp.sh runs) when
# they are missing, so `make bench-peers` works on a fresh clone. Idempotent: does nothing when
# node_modules/node-llama-cpp exists. npm's own output goes to stderr (callers read stdout).
#
#   scripts/peers_npm_install.sh
# Environment: PEERS (the package folder, default <repo>/bench/peers).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PEERS=${PEERS:-$ROOT/bench/peers}

[ -d "$PEERS/node_modules/node-llama-cpp" ] && exit 0
command -v npm >/dev/null || { echo "peers_npm_install.sh: npm not found (Debian: apt-get install npm)" >&2; exit 1; }
echo "peers_npm_install.sh: running npm install in $PEERS" >&2
(cd "$PEERS" && npm install --no-audit --no-fund >&2)
[ -d "$PEERS/node_modules/node-llama-cpp" ] || {
  echo "peers_npm_install.sh: npm install left no $PEERS/node_modules/node-llama-cpp" >&2; exit 1; }
