// Inference throughput (issue "llm0 generate", Speed): prefill of a 64-token prompt and decode of
// 128 tokens with the KV cache, for the default preset (configs/llm0-small.json) and a ~30M
// parameter config (configs/llm0-30m.json), at 1 and 2 threads; and the memory-read bandwidth
// that bounds decode: every weight is read once per decoded token, so
//   decode tokens/s <= read bandwidth (bytes/s) / weight bytes.
// Counters: tokens/s, and for decode bound_tokens/s and fraction_of_bound.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/threads.h"
#include "ledger/read_bandwidth.h"
#include "model/init.h"
#include "model/infer_context.h"
#include "model/model.h"

using namespace llm0;

namespace {
const char* kConfigs[] = {LLM0_SOURCE_DIR "/configs/llm0-small.json",
                          LLM0_SOURCE_DIR "/configs/llm0-30m.json"};
double g_read_bytes_per_s = 0;  // measured by BM_MemoryRead (runs first)

Model& model_for(int which) {
  static std::unique_ptr<Model> models[2];
  if (!models[which]) {
    models[which] = std::make_unique<Model>(ModelConfig::from_file(kConfigs[which]));
    init_weights(*models[which], 1);
  }
  return *models[which];
}
}  // namespace

double read_bandwidth(int threads, int repeats) {
  set_num_threads(threads);
  return measure_read_bandwidth(repeats);
}

static void BM_MemoryRead(benchmark::State& st) {
  double bw = 0;
  for (auto _ : st) bw = read_bandwidth((int)st.range(0), 5);
  st.counters["GB/s"] = bw / 1e9;
}
BENCHMARK(BM_MemoryRead)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kMillisecond);

// args: config index, threads
static void BM_Prefill64(benchmark::State& st) {
  Model& m = model_for((int)st.range(0));
  set_num_threads((int)st.range(1));
  std::vector<int> prompt(64);
  for (int i = 0; i < 64; ++i) prompt[(size_t)i] = (i * 37) % m.config().vocab_size;
  std::vector<float> logits((size_t)m.config().vocab_size);
  ModelCache cache = m.new_cache();
  InferContext ctx(m);  // as `llm0 generate`: fixed-order kernels, packed panels
  m.forward_cached(prompt.data(), 64, cache, ctx, logits.data(), true);  // untimed: packs them
  for (auto _ : st) {
    cache.reset();
    m.forward_cached(prompt.data(), 64, cache, ctx, logits.data(), /*last_only=*/true);
  }
  st.counters["tokens/s"] = benchmark::Counter(64, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Prefill64)->ArgsProduct({{0, 1}, {1, 2}})->UseRealTime()->Unit(benchmark::kMillisecond);

static void BM_Decode128(benchmark::State& st) {
  Model& m = model_for((int)st.range(0));
  set_num_threads((int)st.range(1));
  const int V = m.config().vocab_size;
  std::vector<int> prompt(64);
  for (int i = 0; i < 64; ++i) prompt[(size_t)i] = (i * 37) % V;
  std::vector<float> logits((size_t)V);
  ModelCache cache = m.new_cache();
  InferContext ctx(m);  // as `llm0 generate`: fixed-order kernels, packed panels
  for (auto _ : st) {
    st.PauseTiming();
    cache.reset();
    m.forward_cached(prompt.data(), 64, cache, ctx, logits.data(), true);
    st.ResumeTiming();
    int tok = 1;
    for (int i = 0; i < 128; ++i) {
      m.forward_cached(&tok, 1, cache, ctx, logits.data(), true);
      tok = (int)(std::max_element(logits.begin(), logits.end()) - logits.begin());
    }
  }
  const double weight_bytes = 4.0 * (double)m.num_parameters();
  st.counters["tokens/s"] = benchmark::Counter(128, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["weight_MB"] = weight_bytes / 1e6;
  if (g_read_bytes_per_s > 0) st.counters["bound_tokens/s"] = g_read_bytes_per_s / weight_bytes;
}
BENCHMARK(BM_Decode128)->ArgsProduct({{0, 1}, {1, 2}})->UseRealTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  g_read_bytes_per_s = read_bandwidth(0, 5);  // decode's bound uses all cores
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
