#!/usr/bin/env bash
# ctest browser_train (label browser): the training page in a real browser (tests/browser/
# train_test.mjs; Debian's chromium driven by npm playwright-core, as browser_explore): `llm0
# explore --runs` on a fresh, empty runs directory (127.0.0.1, a free port read from its "listening
# on" line; cwd = the repository, so the page's runs find configs/ and scripts/); the page prepares
# the corpus itself (fortunes-zh, a fraction of a second). Screenshots go to BUILD/browser-artifacts/.
# The tool checks, the server's start and the cleanup are tests/browser/lib.sh's.
# Usage: tests/browser/test_train.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) only when node/npm are missing or npm cannot install the driver.
. "$(dirname "$0")/lib.sh" "$1"

RUNS="$WORK/runs"
mkdir -p "$RUNS"
cd "$ROOT" || die "no $ROOT"
start_explore --runs "$RUNS"

LLM0="$LLM0" ROOT="$ROOT" PORT="$PORT" RUNS="$RUNS" WORK="$WORK" ARTIFACTS="$ARTIFACTS" CHROMIUM="$CHROMIUM" \
  node "$ROOT/tests/browser/train_test.mjs"
rc=$?
[ $rc -eq 0 ] || { echo "--- server log"; tail -20 "$WORK/server.log"; echo "--- train.log"; tail -20 "$RUNS"/*/train.log 2>/dev/null; }
exit $rc
