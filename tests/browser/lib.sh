# shellcheck shell=bash
# The start shared by the browser tests (test_explore.sh, test_train.sh), sourced first with the
# llm0 binary's path: `. "$(dirname "$0")/lib.sh" "$1"`. It checks the tools — exit 77 (ctest
# SKIP_RETURN_CODE) only when node/npm are missing or npm cannot install playwright-core (pinned in
# tests/browser/package.json, installed by scripts/peers_npm_install.sh); exit 1 when Debian's
# chromium is missing — and then sets
#   ROOT       the repository;             LLM0      the binary's absolute path;
#   CHROMIUM   the browser ($CHROMIUM, default /usr/bin/chromium);
#   WORK       a fresh temporary folder, removed at exit after the server is stopped;
#   ARTIFACTS  BUILD/browser-artifacts (BUILD = the binary's folder), for screenshots;
# and defines die (a message naming the test, exit 1) and start_explore (below).
set -uo pipefail
TEST=$(basename "$0" .sh)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LLM0=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found (Debian: apt-get install nodejs npm)"; exit 77; }
PEERS="$ROOT/tests/browser" PACKAGE=playwright-core "$ROOT/scripts/peers_npm_install.sh" ||
  { echo "skipped: npm install of playwright-core failed (no registry?)"; exit 77; }
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "$TEST: $CHROMIUM not found; run scripts/setup.sh (Debian package chromium)" >&2; exit 1; }
# One OpenMP thread unless told otherwise: the server's handler threads start with OpenMP's default
# (all cores), which on a busy machine makes each lesson many times slower.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# shellcheck disable=SC2034  # read by the tests that source this file
ARTIFACTS="$(dirname "$LLM0")/browser-artifacts"
WORK=$(mktemp -d)
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
  wait  # the server, and any other background job the test started (test_explore's exporter)
  rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "$TEST: $*" >&2; exit 1; }

# start_explore ARGS...: `llm0 explore ARGS... --port 0 --threads 1` in the background on 127.0.0.1,
# stdout and stderr to $WORK/server.log; sets SERVER (its pid) and PORT (the free port it took, read
# from its "listening on" line). Dies when the server exits first or says nothing within 30 s.
start_explore() {
  "$LLM0" explore "$@" --port 0 --threads 1 >"$WORK/server.log" 2>&1 &
  SERVER=$!
  PORT=""
  for _ in $(seq 1 300); do
    PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log" | head -1)
    [ -n "$PORT" ] && return 0
    kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log"; die "the server exited at start"; }
    sleep 0.1
  done
  die "no 'listening on' line after 30 s: $(cat "$WORK/server.log")"
}
