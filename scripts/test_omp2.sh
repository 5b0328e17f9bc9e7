#!/usr/bin/env bash
# `make test-omp2`: the test programs of the Release build again with OMP_NUM_THREADS=2 in every
# test (thread-order bugs hide at one thread), one test at a time so the two threads have the two
# cores. The thread count is only the tests' ENVIRONMENT property (CMake's LLM0_TEST_THREADS), so the
# same build is re-configured to 2 — no second compile — and set back to 1 however ctest ends.
# MPI tests are fixed at one thread per rank; the peer and browser tests (other engines and the
# pages, end to end through the CLI; ~10 min one at a time) run in `make test` only.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
restore() { cmake -S . -B "$BUILD" -DLLM0_TEST_THREADS=1 >/dev/null; }
trap restore EXIT
cmake -S . -B "$BUILD" -DLLM0_TEST_THREADS=2 >/dev/null
scripts/ctest.sh "$BUILD" --output-on-failure -LE "mpi|peer|browser"
