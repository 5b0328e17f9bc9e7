#!/usr/bin/env bash
# ctest browser_explore (label browser): the `llm0 explore` pages in a real browser — Debian's
# chromium driven by npm playwright-core (pinned in tests/browser/package.json, installed by
# scripts/peers_npm_install.sh). stories260K (tests/data, converted here) is loaded so the model
# panels have a model; the server runs on 127.0.0.1 with a free
# port (--port 0, read from its "listening on" line), and `llm0 explore --export` writes the static
# copy opened from file://. Screenshots go to BUILD/browser-artifacts/ (BUILD = the binary's folder).
# Usage: tests/browser/test_explore.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) only when node/npm are missing or npm cannot install the driver.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LLM0=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found (Debian: apt-get install nodejs npm)"; exit 77; }
PEERS="$ROOT/tests/browser" PACKAGE=playwright-core "$ROOT/scripts/peers_npm_install.sh" ||
  { echo "skipped: npm install of playwright-core failed (no registry?)"; exit 77; }
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "test_explore: $CHROMIUM not found; run scripts/setup.sh (Debian package chromium)" >&2; exit 1; }
# One OpenMP thread unless told otherwise: the server's handler threads start with OpenMP's default
# (all cores), which on a busy machine makes each lesson many times slower.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
WORK=$(mktemp -d)
SERVER=""
EXPORTER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
  [ -n "$EXPORTER" ] && wait "$EXPORTER" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "test_explore: $*" >&2; exit 1; }

# A small real model: llama2.c's stories260K (tests/data), converted to a checkpoint directory.
D="$ROOT/tests/data/stories260K"
"$LLM0" convert --from llama2c "$D/stories260K.bin" --tokenizer "$D/tok512.bin" --output "$WORK/tiny" >/dev/null ||
  die "convert of stories260K failed"

# The static copy is written while the browser checks the live pages (explore_test.mjs waits for
# its exit status in export.rc before opening it); baked up to L = 1,024, the length the slider
# check uses (the default, 4,096, adds seconds of the counting model's work and nothing checked).
( "$LLM0" explore --model "$WORK/tiny" --export "$WORK/export" --export-up-to 1024 --threads 1 \
    >"$WORK/export.log" 2>&1; echo $? >"$WORK/export.rc.tmp"; mv "$WORK/export.rc.tmp" "$WORK/export.rc" ) &
EXPORTER=$!
"$LLM0" explore --model "$WORK/tiny" --port 0 --threads 1 >"$WORK/server.log" 2>&1 &
SERVER=$!
PORT=""
for _ in $(seq 1 300); do
  PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log" | head -1)
  [ -n "$PORT" ] && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log"; die "the server exited at start"; }
  sleep 0.1
done
[ -n "$PORT" ] || die "no 'listening on' line after 30 s: $(cat "$WORK/server.log")"

ARTIFACTS="$(dirname "$LLM0")/browser-artifacts"
LLM0="$LLM0" ROOT="$ROOT" PORT="$PORT" EXPORT="$WORK/export" EXPORT_RC="$WORK/export.rc" EXPORT_LOG="$WORK/export.log" ARTIFACTS="$ARTIFACTS" CHROMIUM="$CHROMIUM" node "$ROOT/tests/browser/explore_test.mjs"
rc=$?
[ $rc -eq 0 ] || { echo "--- server log"; tail -20 "$WORK/server.log"; }
exit $rc
