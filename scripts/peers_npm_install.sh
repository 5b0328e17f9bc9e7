#!/usr/bin/env bash
# Installs bench/peers' node packages (node-llama-cpp 3.21.1, whose bundled llama.cpp source
# scripts/build_llama_bench.sh builds and whose bindings scripts/parity_llamacpp.sh runs) when
# they are missing, so `make bench-peers` works on a fresh clone; with PEERS=tests/serve
# PACKAGE=openai, the pinned OpenAI client of the server tests. Idempotent: does nothing when
# node_modules/PACKAGE exists. npm's own output goes to stderr (callers read stdout).
#
#   scripts/peers_npm_install.sh
# Environment: PEERS (the package folder, default <repo>/bench/peers), PACKAGE (the package that
# must be there afterwards, default node-llama-cpp).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PEERS=${PEERS:-$ROOT/bench/peers}
PACKAGE=${PACKAGE:-node-llama-cpp}

[ -d "$PEERS/node_modules/$PACKAGE" ] && exit 0
command -v npm >/dev/null || { echo "peers_npm_install.sh: npm not found (Debian: apt-get install npm)" >&2; exit 1; }
echo "peers_npm_install.sh: running npm install in $PEERS" >&2
(cd "$PEERS" && npm install --no-audit --no-fund >&2)
[ -d "$PEERS/node_modules/$PACKAGE" ] || {
  echo "peers_npm_install.sh: npm install left no $PEERS/node_modules/$PACKAGE" >&2; exit 1; }
