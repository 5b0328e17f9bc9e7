#!/usr/bin/env bash
# Runs ctest in BUILD_DIR with a temporary directory of its own (TMPDIR, which googletest's
# TempDir(), mktemp, Python, node, chromium and OpenMPI all read), removed when ctest ends however
# it ends: the files the tests write (checkpoints, GGUF exports, server logs: ~0.5 GB per run of
# the suite) never pile up across the suite's reruns (make test-kernels, test-omp2, test-asan).
# A selection that matches no test fails (--no-tests=error): a mistyped -R or -L must not pass.
# Usage: scripts/ctest.sh BUILD_DIR [ctest arguments...]
set -euo pipefail
BUILD=${1:?usage: scripts/ctest.sh BUILD_DIR [ctest arguments...]}
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llm0-ctest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$BUILD"
TMPDIR="$tmp" ctest --no-tests=error "$@"
