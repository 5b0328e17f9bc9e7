#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser (tests/fuzz/fuzz_<name>.cpp) with libFuzzer + ASan +
# UBSan (clang-14, Debian's libfuzzer-14-dev; scripts/setup.sh installs both).
# Usage: scripts/fuzz.sh [harness...]        (default: every harness; `make fuzz` runs this)
#   FUZZ_SECONDS   seconds per harness (default 60)
#   FUZZ_PARALLEL  harnesses run at once (default 1)
#   FUZZ_BUILD     build directory (default build-fuzz)
# Each harness starts from its seed corpus tests/fuzz/corpus/<name>/ (read only) and keeps what it
# finds in $FUZZ_BUILD/corpus/<name>/; a failing input goes to $FUZZ_BUILD/crashes/<name>/ (copy it
# into tests/fuzz/corpus/<name>/ as crash-<what> once fixed: the normal suite replays it).
# Prints per harness: seconds, executions, exec/s, coverage (cov = edges, ft = features, from
# libFuzzer's final stats) and crashes; exits 1 if any harness crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
PARALLEL=${FUZZ_PARALLEL:-1}
BUILD=${FUZZ_BUILD:-build-fuzz}
JOBS=${JOBS:-$(nproc)}
SCRATCH=/tmp; [ -d /dev/shm ] && [ -w /dev/shm ] && SCRATCH=/dev/shm
# The harnesses whose input is or embeds JSON also get the nesting-depth dictionary (brackets and
# {"a": runs: mutations reach the 128-level limit of src/core/json_parse.h in a few steps).
JSON_HARNESSES=" config tokenizer_json safetensors gguf "

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CXX=clang++-14 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLM0_FUZZ=ON \
    -DLLM0_BENCH=OFF >/dev/null
fi
cmake --build "$BUILD" -j"$JOBS"

if [ $# -gt 0 ]; then names=("$@"); else
  names=(); for f in tests/fuzz/fuzz_*.cpp; do n=$(basename "$f" .cpp); names+=("${n#fuzz_}"); done
fi

run_one() {  # name -> $BUILD/logs/<name>.log
  local name=$1
  local dict=()
  [[ "$JSON_HARNESSES" == *" $name "* ]] && dict=(-dict=tests/fuzz/json_nesting.dict)
  rm -rf "$BUILD/crashes/$name"
  mkdir -p "$BUILD/corpus/$name" "$BUILD/crashes/$name" "$BUILD/logs"
  # leaks are checked (libFuzzer's -detect_leaks); UBSan findings abort like ASan's
  # scratch files on tmpfs: the harnesses write each input (and its round trip, fsynced) to a file
  TMPDIR=$SCRATCH UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 OMP_NUM_THREADS=1 \
    "$BUILD/tests/fuzz/fuzz_$name" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
      -timeout=10 -rss_limit_mb=2048 -max_len=8192 "${dict[@]}" \
      -artifact_prefix="$BUILD/crashes/$name/" \
      "$BUILD/corpus/$name" "tests/fuzz/corpus/$name" >"$BUILD/logs/$name.log" 2>&1 || true
}

running=0
for name in "${names[@]}"; do
  [ -x "$BUILD/tests/fuzz/fuzz_$name" ] || { echo "fuzz: no harness '$name'" >&2; exit 2; }
  run_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$PARALLEL" ]; then wait -n; running=$((running - 1)); fi
done
wait

crashed=0
printf '%-16s %8s %12s %9s %7s %8s %8s\n' harness seconds executions exec/s cov ft crashes
for name in "${names[@]}"; do
  log="$BUILD/logs/$name.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  crashes=$(find "$BUILD/crashes/$name" -type f | wc -l)
  if grep -qE '^==[0-9]+==ERROR|deadly signal|fuzz property failed|runtime error' "$log"; then
    [ "$crashes" -gt 0 ] || crashes=1
  fi
  [ "$crashes" -eq 0 ] || crashed=1
  printf '%-16s %8s %12s %9s %7s %8s %8s\n' "$name" "$SECONDS_EACH" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "${ft:-?}" "$crashes"
  [ "$crashes" -eq 0 ] || echo "  see $log and $BUILD/crashes/$name/"
done
# What each finding was, printed last (a CI log may keep only its tail): the report's first line,
# the first frames inside llm0, and the failing input itself, so it can be replayed elsewhere
# (base64 -d > tests/fuzz/corpus/<name>/crash-<what>; the suite's replay test runs it).
for name in "${names[@]}"; do
  log="$BUILD/logs/$name.log"
  input=$(find "$BUILD/crashes/$name" -type f | head -1)
  grep -qE '^==[0-9]+==ERROR|deadly signal|fuzz property failed|runtime error' "$log" ||
    [ -n "$input" ] || continue
  if [ -n "$input" ]; then  # (first: a log cut to its last characters keeps the lines below)
    echo "input of the $name finding ($(stat -c %s "$input") bytes, base64):"
    base64 -w0 "$input" | head -c 12000; echo
  fi
  echo "finding in $name:"
  grep -m1 -E '^==[0-9]+==ERROR|deadly signal|fuzz property failed|runtime error' "$log" |
    cut -c1-300 | sed 's/^/  /' || true
  grep -m1 -E 'what\(\): ' "$log" | cut -c1-300 | sed 's/^ */  /' || true  # an escaped exception
  grep -E '^ *#[0-9]+ .* in .*llm0' "$log" | head -4 | cut -c1-200 | sed 's/^/  /' || true
done
exit $crashed
