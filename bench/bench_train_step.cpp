// Training-step throughput against the machine's sgemm ceiling.
//   BM_Sgemm/M/N/K: OpenBLAS cblas_sgemm GFLOP/s at the shapes a training step uses.
//   BM_TrainStep: one forward + backward of the default preset (configs/llm0-small.json, ~5M
//   matmul parameters) at [B, T] = [8, 256]; counters: tokens/s and GFLOP/s by the PaLM formula
//   (src/ledger/flops.h). MFU = train GFLOP/s / sgemm GFLOP/s, printed by scripts/bench.sh.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

#include "ledger/flops.h"
#include "model/init.h"
#include "model/model.h"

using namespace llm0;

static void BM_Sgemm(benchmark::State& st) {
  const int M = (int)st.range(0), N = (int)st.range(1), K = (int)st.range(2);
  std::vector<float> a((size_t)M * K, 0.5f), b((size_t)K * N, 0.25f), c((size_t)M * N);
  for (auto _ : st) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0f, a.data(), K, b.data(), K,
                0.0f, c.data(), N);
    benchmark::DoNotOptimize(c.data());
  }
  st.counters["GFLOPs"] = benchmark::Counter(2.0 * M * N * K, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Sgemm)->Args({2048, 688, 256})->Args({2048, 4096, 256})->Args({2048, 2048, 2048})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_TrainStep(benchmark::State& st) {
  const ModelConfig cfg = ModelConfig::from_file(LLM0_BENCH_CONFIG);
  Model model(cfg);
  init_weights(model, 1);
  const int B = 8, T = 256;
  std::vector<int> tokens((size_t)B * T), targets((size_t)B * T);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = (int)((i * 7919) % cfg.vocab_size), targets[i] = (int)((i * 104729) % cfg.vocab_size);
  for (auto _ : st) {
    model.params().zero_grad();
    long n = 0;
    model.forward(tokens.data(), targets.data(), B, T, &n);
    model.backward(1.0f / (float)n);
  }
  const double tok = (double)B * T;
  st.counters["tokens/s"] = benchmark::Counter(tok, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["GFLOPs"] = benchmark::Counter(tok * train_flops_per_token(cfg, T),
                                             benchmark::Counter::kIsIterationInvariantRate,
                                             benchmark::Counter::kIs1000);
}
BENCHMARK(BM_TrainStep)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

BENCHMARK_MAIN();
