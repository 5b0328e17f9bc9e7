#!/usr/bin/env bash
# Reruns the test programs (ctest label `kernels`) once per LLM0_KERNEL level this CPU runs
# (src/core/cpu_features.h: scalar, avx2, avx512, avx512bf16 — every dispatched kernel family
# forced to that level), then once with OpenBLAS forced to another core than the one it uses
# (Prescott, the generic SSE3 core Debian's OpenBLAS falls back to on CPUs it does not know; Haswell
# when it already runs Prescott), so that no test depends on one kernel's or one BLAS's order.
# Usage: scripts/test_kernels.sh BUILD_DIR [LEVEL...]   (default: every level the CPU runs; a
# level it lacks is skipped, saying so). Environment: BLAS_RUN=0 skips the OpenBLAS-core run;
# CTEST_ARGS adds ctest arguments (e.g. -R to choose tests); SKIP_WIDEST=1 skips the level the
# program picks by itself (the widest this CPU runs: `make test` has just run the suite there).
set -euo pipefail
BUILD=${1:?usage: scripts/test_kernels.sh BUILD_DIR [LEVEL...]}
shift
JOBS=${JOBS:-$(nproc)}
LLM0="$BUILD/llm0"
wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=(scalar avx2 avx512 avx512bf16)
levels=()
widest=$(env -u LLM0_KERNEL "$LLM0" --version | sed -n 's/^CPU: .*| kernels: \([a-z0-9]*\) .*/\1/p')
for level in "${wanted[@]}"; do
  if [ "${SKIP_WIDEST:-0}" = 1 ] && [ "$level" = "$widest" ]; then
    echo "=== LLM0_KERNEL=$level: skipped, the level make test ran (the widest this CPU runs) ==="
  elif env -u LLM0_KERNEL LLM0_KERNEL=$level "$LLM0" --version >/dev/null 2>&1; then levels+=("$level")
  else echo "=== LLM0_KERNEL=$level: skipped, this CPU lacks it ==="; fi
done
run() {  # NAME=VALUE: the suite with that variable set
  echo "=== ctest -L kernels ${CTEST_ARGS:-} with $1 ==="
  # shellcheck disable=SC2086
  env "$1" "$(dirname "$0")/ctest.sh" "$BUILD" -L kernels ${CTEST_ARGS:-} --output-on-failure -j"$JOBS"
}
for level in "${levels[@]}"; do run "LLM0_KERNEL=$level"; done
[ "${BLAS_RUN:-1}" = 0 ] && exit 0
core=$("$LLM0" --version | sed -n 's/^BLAS: .* core \([A-Za-z0-9_]*\) .*/\1/p')
other=Prescott
[ "$core" = Prescott ] && other=Haswell
run "OPENBLAS_CORETYPE=$other"
