#!/usr/bin/env bash
# `make bench`: the micro-benchmarks of bench/ (Release build). Run on a quiet machine; compare
# ratios measured in one run, not absolute times from different moments.
set -euo pipefail
cd "$(dirname "$0")/.."
build/bench_train_step --benchmark_counters_tabular=true
build/bench_generate --benchmark_counters_tabular=true
build/bench_serve_engine --threads 1
