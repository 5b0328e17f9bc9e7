#!/usr/bin/env bash
# ctest browser_train (label browser): the training page in a real browser (tests/browser/
# train_test.mjs; Debian's chromium driven by npm playwright-core, as browser_explore): `llm0
# explore --runs` on a fresh, empty runs directory (127.0.0.1, a free port read from its "listening
# on" line; cwd = the repository, so the page's runs find configs/ and scripts/); the page prepares
# the corpus itself (fortunes-zh, a fraction of a second). Screenshots go to BUILD/browser-artifacts/.
# Usage: tests/browser/test_train.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) only when node/npm are missing or npm cannot install the driver.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LLM0=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found (Debian: apt-get install nodejs npm)"; exit 77; }
PEERS="$ROOT/tests/browser" PACKAGE=playwright-core "$ROOT/scripts/peers_npm_install.sh" ||
  { echo "skipped: npm install of playwright-core failed (no registry?)"; exit 77; }
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "test_train: $CHROMIUM not found; run scripts/setup.sh (Debian package chromium)" >&2; exit 1; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
WORK=$(mktemp -d)
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "test_train: $*" >&2; exit 1; }

RUNS="$WORK/runs"
mkdir -p "$RUNS"
cd "$ROOT" || die "no $ROOT"
"$LLM0" explore --runs "$RUNS" --port 0 --threads 1 >"$WORK/server.log" 2>&1 &
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
LLM0="$LLM0" ROOT="$ROOT" PORT="$PORT" RUNS="$RUNS" WORK="$WORK" ARTIFACTS="$ARTIFACTS" CHROMIUM="$CHROMIUM" \
  node "$ROOT/tests/browser/train_test.mjs"
rc=$?
[ $rc -eq 0 ] || { echo "--- server log"; tail -20 "$WORK/server.log"; echo "--- train.log"; tail -20 "$RUNS"/*/train.log 2>/dev/null; }
exit $rc
