#!/usr/bin/env bash
# ctest browser_explore (label browser): the `llm0 explore` pages in a real browser — Debian's
# chromium driven by npm playwright-core (pinned in tests/browser/package.json, installed by
# scripts/peers_npm_install.sh). stories260K (tests/data, converted here) is loaded so the model
# panels have a model; the server runs on 127.0.0.1 with a free
# port (--port 0, read from its "listening on" line), and `llm0 explore --export` writes the static
# copy opened from file://. Screenshots go to BUILD/browser-artifacts/ (BUILD = the binary's folder).
# The tool checks, the server's start and the cleanup are tests/browser/lib.sh's.
# Usage: tests/browser/test_explore.sh PATH/TO/llm0
# Exit 77 (ctest SKIP_RETURN_CODE) only when node/npm are missing or npm cannot install the driver.
. "$(dirname "$0")/lib.sh" "$1"

# A small real model: llama2.c's stories260K (tests/data), converted to a checkpoint directory.
D="$ROOT/tests/data/stories260K"
"$LLM0" convert --from llama2c "$D/stories260K.bin" --tokenizer "$D/tok512.bin" --output "$WORK/tiny" >/dev/null ||
  die "convert of stories260K failed"

# The static copy is written while the browser checks the live pages (explore_test.mjs waits for
# its exit status in export.rc before opening it); baked up to L = 1,024, the length the slider
# check uses (the default, 4,096, adds seconds of the counting model's work and nothing checked).
( "$LLM0" explore --model "$WORK/tiny" --export "$WORK/export" --export-up-to 1024 --threads 1 \
    >"$WORK/export.log" 2>&1; echo $? >"$WORK/export.rc.tmp"; mv "$WORK/export.rc.tmp" "$WORK/export.rc" ) &
start_explore --model "$WORK/tiny"

LLM0="$LLM0" ROOT="$ROOT" PORT="$PORT" EXPORT="$WORK/export" EXPORT_RC="$WORK/export.rc" EXPORT_LOG="$WORK/export.log" ARTIFACTS="$ARTIFACTS" CHROMIUM="$CHROMIUM" node "$ROOT/tests/browser/explore_test.mjs"
rc=$?
[ $rc -eq 0 ] || { echo "--- server log"; tail -20 "$WORK/server.log"; }
exit $rc
