// The gated delta rule's two forms on one layer's heads at T tokens (tokens/s; `ratio` is
// chunked / recurrent from the medians, printed by scripts/bench_gated_delta.sh):
//   BM_GatedDelta/form/T/nk/nv/d: form 0 = recurrent (one rank-1 update per token), 1 = chunked
//   (L = 64). Shapes: the hybrid preset's layer (nk 4, nv 8, d 32) and Qwen3-Next's (nk 16,
//   nv 32, d 128). Inputs as the layer makes them (unit q, k; g ≤ 0; β in (0, 1)).
//   Counters: flops/token (per value head, as each form issues them: form_flops_per_token) and
//   GFLOP/s achieved (over all nv heads).
//   BM_SgemmChunk/d: the chunked form's dominant product, [L = 64, d] · [d, d] (W S0, Qe S0, and
//   Kdᵀ U has the same count), one sgemm call at a time: the GFLOP/s its products can reach.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cmath>
#include <random>
#include <vector>

#include "ops/gated_delta.h"

using namespace llm0;

// Floating-point operations per token and value head, as gated_delta.cpp issues them (an FMA
// counts 2). Recurrent: S ← aS (1), u += k·S (2), S += k uᵀ (2), o += Sᵀq (2) per state element.
// Chunked, per chunk of L over L, r value heads per key head: KKᵀ by ssyrk L(L+1)dk / r, QKᵀ
// 2L²dk / r, the triangular solve for 𝒯 ~L³/3, X = 𝒯Y by strmm L²(dk + dv), PU by strmm L²dv,
// and W S0, Qe S0, Kdᵀ U 2L·dk·dv each.
static double form_flops_per_token(bool chunked, double L, double r, double dk, double dv) {
  if (!chunked) return 7 * dk * dv;
  return (L * (L + 1) * dk / r + 2 * L * L * dk / r + L * L * L / 3 + L * L * (dk + dv) +
          L * L * dv + 6 * L * dk * dv) / L;
}

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
  const double f = form_flops_per_token(chunked, d.chunk, d.nv / d.nk, d.dk, d.dv);
  st.counters["flops/token"] = f;
  st.counters["GFLOP/s"] = benchmark::Counter(1e-9 * f * d.nv * d.T,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

static void BM_SgemmChunk(benchmark::State& st) {
  const int L = 64, n = (int)st.range(0);
  std::vector<float> a((size_t)L * n, 0.5f), b((size_t)n * n, 0.25f), c((size_t)L * n);
  for (auto _ : st) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, L, n, n, 1.0f, a.data(), n, b.data(),
                n, 1.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  st.counters["GFLOP/s"] = benchmark::Counter(1e-9 * 2.0 * L * n * n,
                                              benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SgemmChunk)->Arg(32)->Arg(128)->UseRealTime();
BENCHMARK(BM_GatedDelta)
    ->ArgsProduct({{0, 1}, {1024}, {4}, {8}, {32}})
    ->ArgsProduct({{0, 1}, {1024}, {16}, {32}, {128}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_MAIN();
