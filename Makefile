# llm0 — the two commands of README.md:
#   make run    set up (Debian packages), build (Release), prepare the corpus, train, generate
#               (corpus: the npm package chinese-poetry; CORPUS=fortunes-zh: Debian's fortunes-zh)
#   make test   set up, build, run every test (ctest)
BUILD ?= build
JOBS ?= $(shell nproc)
MINUTES ?= 10
CONFIG ?= configs/llm0-small.json
CORPUS ?= poetry
FUZZ_SECONDS ?= 60

.PHONY: all setup build build-cli test test-kernels test-omp2 test-asan fuzz run bench bench-peers bench-context bench-mpi bench-serve clean

all: build

setup:
	@scripts/setup.sh
	@scripts/explore_npm_install.sh

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# The main job needs the program only: tests, fuzzers and benchmarks are built by test / bench.
build-cli: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j$(JOBS) --target llm0_cli

test: build
	scripts/ctest.sh $(BUILD) --output-on-failure -j$(JOBS)

# Every test program (ctest -L kernels) again at each LLM0_KERNEL level this CPU runs other than
# the default, and with OpenBLAS forced to another core than its own (scripts/test_kernels.sh):
# every dispatched kernel path and another summation order, on the machine at hand.
test-kernels: build
	@scripts/test_kernels.sh $(BUILD)

# The same suite with two OpenMP threads in every test, on the Release build re-configured (no
# second compile; scripts/test_omp2.sh says what runs and what does not).
test-omp2: build
	@BUILD=$(BUILD) scripts/test_omp2.sh

# The same suite under AddressSanitizer + UBSan (Debug info, no -march=native).
test-asan: setup
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLM0_SANITIZE=ON -DLLM0_BENCH=OFF >/dev/null
	@cmake --build build-asan -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=0 scripts/ctest.sh build-asan --output-on-failure -j$(JOBS)

# Every parser's libFuzzer harness (tests/fuzz/) for FUZZ_SECONDS each, clang-14 + ASan + UBSan,
# in build-fuzz/; prints executions, exec/s, coverage and crashes per harness.
fuzz: setup
	@FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) scripts/fuzz.sh

run: build-cli
	@MINUTES=$(MINUTES) CONFIG=$(CONFIG) CORPUS=$(CORPUS) scripts/main_job.sh

bench: build
	@scripts/bench.sh

# llm0 vs PyTorch (training) and llama.cpp's llama-bench (prefill/decode), then BF16 inference
# (llm0 BF16 vs its own F32 and vs llama.cpp on the same BF16 GGUF); docs/performance.md.
bench-peers: build
	@BUILD=$(BUILD) scripts/bench_peers.sh
	@BUILD=$(BUILD) scripts/bench_bf16.sh
	@BUILD=$(BUILD) scripts/bench_peer_context.sh

# Decode cost per token at contexts 512 / 4,096 / 16,384: full attention vs sliding-window layers.
bench-context: build
	@BUILD=$(BUILD) scripts/bench_context.sh

# Data-parallel training: 1 rank x 2 threads vs mpirun 2 ranks x 1 thread, all-reduce time.
bench-mpi: build
	@BUILD=$(BUILD) scripts/bench_mpi.sh

# `llm0 serve` vs llama.cpp's llama-server: aggregate tokens/s and time to first token with 1, 4,
# 8, 16 concurrent streams (~10M and ~30M presets), and the prefix cache's time to first token.
bench-serve: build
	@BUILD=$(BUILD) scripts/bench_serve.sh

clean:
	rm -rf $(BUILD) build-asan build-fuzz
