// Why llm0's BF16 prefill runs at its float32 prefill's speed (issue 15, docs/performance.md):
//   BM_PrefillProduct/bf16/O/I: linear_forward of 64 tokens through llm0-30m's matrix shapes,
//     float32 weights (0: sgemm) or BF16 weights (1: widened panels + sgemm); GFLOP/s counter.
//   BM_Throughput/0: 12 independent vfmadd231ps zmm (16 multiply-adds each) per iteration;
//   BM_Throughput/1: 12 independent vdpbf16ps zmm (32 bf16 multiply-adds each): GMAC/s counter.
//     The accurate BF16 product needs two vdpbf16ps per product (x split hi + lo,
//     bf16_kernels.h), so its peak is half vdpbf16ps's — the FMA peak when both issue at the
//     same rate; llama.cpp's single vdpbf16ps (x rounded to BF16) has twice it. Skipped without
//     AVX-512 BF16.
// GCC 12's own AVX-512 headers trip -Wmaybe-uninitialized (GCC bug 105593), as in
// ops/bf16_kernels_x86.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ops/bf16_kernels.h"
#include "ops/matmul.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace llm0;

static void BM_PrefillProduct(benchmark::State& st) {
  const bool bf16 = st.range(0) == 1;
  const int N = 64, O = (int)st.range(1), I = (int)st.range(2);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> W((size_t)O * I), x((size_t)N * I), y((size_t)N * O);
  for (float& e : W) e = u(rng);
  for (float& e : x) e = u(rng);
  std::vector<uint16_t> Wb(W.size());
  bf16_round(Wb.data(), W.data(), (long)W.size());
  const Weight w = bf16 ? Weight::from_bf16(Wb.data()) : Weight(W.data());
  for (auto _ : st) {
    linear_forward(y.data(), x.data(), w, nullptr, N, I, O);
    benchmark::DoNotOptimize(y.data());
  }
  st.counters["GFLOP/s"] = benchmark::Counter(2.0 * N * O * I, benchmark::Counter::kIsIterationInvariantRate,
                                              benchmark::Counter::kIs1000);
}
BENCHMARK(BM_PrefillProduct)
    ->ArgsProduct({{0, 1}, {512}, {512}})
    ->Args({0, 1536, 512})->Args({1, 1536, 512})
    ->Args({0, 512, 1536})->Args({1, 512, 1536})
    ->Unit(benchmark::kMicrosecond);

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bf16"), noinline)) static float fma_loop(long n) {
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps((float)i);
  __m512 x = _mm512_set1_ps(1.0001f), y = _mm512_set1_ps(0.9999f);
  for (long k = 0; k < n; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) a[i] = _mm512_fmadd_ps(x, y, a[i]);
    __asm__ volatile("" : "+v"(x), "+v"(y));
  }
  __m512 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, a[i]);
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx512f,avx512bf16"), noinline)) static float dp_loop(long n) {
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps((float)i);
  __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80), y = (__m512bh)_mm512_set1_epi16(0x3f80);
  for (long k = 0; k < n; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) a[i] = _mm512_dpbf16_ps(a[i], x, y);
    __asm__ volatile("" : "+v"(x), "+v"(y));
  }
  __m512 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, a[i]);
  return _mm512_reduce_add_ps(s);
}

static void BM_Throughput(benchmark::State& st) {
  if (!bf16_kernel_supported(Isa::Avx512Bf16)) {
    st.SkipWithError("this CPU lacks AVX-512 BF16");
    return;
  }
  const bool dp = st.range(0) == 1;
  const long n = 1000000;
  for (auto _ : st) benchmark::DoNotOptimize(dp ? dp_loop(n) : fma_loop(n));
  st.counters["GMAC/s"] = benchmark::Counter(12.0 * n * (dp ? 32 : 16), benchmark::Counter::kIsIterationInvariantRate,
                                             benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Throughput)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
#endif

BENCHMARK_MAIN();
