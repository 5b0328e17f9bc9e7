// The gated delta rule's two forms on one layer's heads at T tokens (tokens/s; `ratio` is
// chunked / recurrent from the medians, printed by scripts/bench_gated_delta.sh):
//   BM_GatedDelta/form/T/nk/nv/d: form 0 = recurrent (one rank-1 update per token), 1 = chunked
//   (L = 64). Shapes: the hybrid preset's layer (nk 4, nv 8, d 32) and Qwen3-Next's (nk 16,
//   nv 32, d 128). Inputs as the layer makes them (unit q, k; g ≤ 0; β in (0, 1)).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "ops/gated_delta.h"

using namespace llm0;

static void BM_GatedDelta(benchmark::State& st) {
  GatedDeltaDims d;
  const bool chunked = st.range(0) == 1;
  d.B = 1, d.T = (int)st.range(1), d.nk = (int)st.range(2), d.nv = (int)st.range(3);
  d.dk = d.dv = (int)st.range(4), d.chunk = 64;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), ug(-0.5f, -0.01f), ub(0.1f, 0.9f);
  auto fill = [&](size_t n, auto& dist) {
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
  };
  const size_t NT = (size_t)d.T;
  std::vector<float> q = fill(NT * d.nk * d.dk, u), k = fill(NT * d.nk * d.dk, u);
  for (std::vector<float>* x : {&q, &k})
    for (size_t r = 0; r < NT * d.nk; ++r) {
      float s = 0;
      for (int i = 0; i < d.dk; ++i) s += (*x)[r * d.dk + i] * (*x)[r * d.dk + i];
      for (int i = 0; i < d.dk; ++i) (*x)[r * d.dk + i] /= std::sqrt(s);
    }
  const std::vector<float> v = fill(NT * d.nv * d.dv, u), g = fill(NT * d.nv, ug),
                           beta = fill(NT * d.nv, ub);
  std::vector<float> o(NT * d.nv * d.dv), S((size_t)d.nv * d.dk * d.dv);
  for (auto _ : st) {
    std::fill(S.begin(), S.end(), 0.0f);
    if (chunked)
      gated_delta_chunked(o.data(), S.data(), nullptr, q.data(), k.data(), v.data(), g.data(),
                          beta.data(), d);
    else
      gated_delta_recurrent(o.data(), S.data(), q.data(), k.data(), v.data(), g.data(),
                            beta.data(), d);
    benchmark::DoNotOptimize(o.data());
  }
  st.counters["tokens/s"] =
      benchmark::Counter((double)d.T, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GatedDelta)
    ->ArgsProduct({{0, 1}, {1024}, {4}, {8}, {32}})
    ->ArgsProduct({{0, 1}, {1024}, {16}, {32}, {128}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_MAIN();
