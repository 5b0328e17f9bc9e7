// Register-only peak loops. See fma_peak.h.
#include "ledger/fma_peak.h"

#include <omp.h>

#include <algorithm>
#include <chrono>

#include "core/check.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace llm0 {

namespace {

constexpr int kChains = 12;  // independent accumulators: > latency (4) x FMA pipes (2) of any core

// Each loop runs n rounds of kChains multiply-adds and returns a sum the caller keeps (so nothing
// is optimised away); the empty asm keeps the operands in registers, unknown to the compiler.
#if defined(__x86_64__)
__attribute__((target("avx512f"), noinline)) float loop_avx512(long n) {
  __m512 a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = _mm512_set1_ps((float)i);
  __m512 x = _mm512_set1_ps(1.0001f), y = _mm512_set1_ps(0.9999f);
  for (long k = 0; k < n; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) a[i] = _mm512_fmadd_ps(x, y, a[i]);
    __asm__ volatile("" : "+v"(x), "+v"(y));
  }
  for (int i = 1; i < kChains; ++i) a[0] = _mm512_add_ps(a[0], a[i]);
  float out[16];
  _mm512_storeu_ps(out, a[0]);
  return out[0] + out[15];
}

__attribute__((target("avx2,fma"), noinline)) float loop_avx2(long n) {
  __m256 a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = _mm256_set1_ps((float)i);
  __m256 x = _mm256_set1_ps(1.0001f), y = _mm256_set1_ps(0.9999f);
  for (long k = 0; k < n; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) a[i] = _mm256_fmadd_ps(x, y, a[i]);
    __asm__ volatile("" : "+x"(x), "+x"(y));
  }
  for (int i = 1; i < kChains; ++i) a[0] = _mm256_add_ps(a[0], a[i]);
  float out[8];
  _mm256_storeu_ps(out, a[0]);
  return out[0] + out[7];
}

__attribute__((noinline)) float loop_sse(long n) {  // x86-64 baseline: SSE2, no FMA
  __m128 a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = _mm_set1_ps((float)i);
  __m128 x = _mm_set1_ps(1.0001f), y = _mm_set1_ps(0.9999f);
  for (long k = 0; k < n; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) a[i] = _mm_add_ps(a[i], _mm_mul_ps(x, y));
    __asm__ volatile("" : "+x"(x), "+x"(y));
  }
  for (int i = 1; i < kChains; ++i) a[0] = _mm_add_ps(a[0], a[i]);
  return _mm_cvtss_f32(a[0]);
}

__attribute__((target("avx512f,avx512bf16"), noinline)) float loop_bf16(long n) {
  __m512 a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = _mm512_set1_ps((float)i);
  __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80), y = (__m512bh)_mm512_set1_epi16(0x3f80);
  for (long k = 0; k < n; ++k) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) a[i] = _mm512_dpbf16_ps(a[i], x, y);
    __asm__ volatile("" : "+v"(x), "+v"(y));
  }
  for (int i = 1; i < kChains; ++i) a[0] = _mm512_add_ps(a[0], a[i]);
  float out[16];
  _mm512_storeu_ps(out, a[0]);
  return out[0] + out[15];
}
#else
__attribute__((noinline)) float loop_sse(long n) {  // other CPUs: what the compiler makes of it
  float a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = (float)i;
  float x = 1.0001f, y = 0.9999f;
  for (long k = 0; k < n; ++k) {
    for (int i = 0; i < kChains; ++i) a[i] += x * y;
    __asm__ volatile("" : "+r"(x), "+r"(y));
  }
  for (int i = 1; i < kChains; ++i) a[0] += a[i];
  return a[0];
}
#endif

volatile float g_sink;

// GFLOP/s of `loop` on `threads` threads, `flops_per_round` FLOPs per round and thread: rounds
// doubled until one run takes ≥ 20 ms, then the best of 3 runs of that length.
double measure(float (*loop)(long), double flops_per_round, int threads) {
  if (threads <= 0) threads = omp_get_num_procs();
  auto run = [&](long n) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
      const float s = loop(n);
      if (s == 12345.0f) g_sink = s;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  long n = 1 << 16;
  while (run(n) < 0.02 && n < (1L << 40)) n *= 2;
  double best = 1e30;
  for (int r = 0; r < 3; ++r) best = std::min(best, run(n));
  return flops_per_round * (double)n * threads / best / 1e9;
}

}  // namespace

double measure_fma_gflops(Isa isa, int threads) {
  LLM0_CHECK(cpu_supports(isa), "the {} FMA peak needs instructions this CPU lacks", isa_name(isa));
#if defined(__x86_64__)
  if (isa >= Isa::Avx512) return measure(loop_avx512, kChains * 16 * 2.0, threads);
  if (isa == Isa::Avx2) return measure(loop_avx2, kChains * 8 * 2.0, threads);
  return measure(loop_sse, kChains * 4 * 2.0, threads);
#else
  return measure(loop_sse, kChains * 2.0, threads);
#endif
}

double measure_fma_gflops(int threads) { return measure_fma_gflops(kernel_isa(), threads); }

double measure_bf16_dot_gflops(int threads) {
  LLM0_CHECK(cpu_supports(Isa::Avx512Bf16), "the BF16 dot-product peak needs AVX512_BF16 "
             "(vdpbf16ps), which this CPU lacks");
#if defined(__x86_64__)
  return measure(loop_bf16, kChains * 64.0, threads);
#else
  return 0;
#endif
}

bool cpu_has_amx_bf16() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__builtin_cpu_supports("avx512f")) return false;
  __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
  return (d >> 22) & 1;  // CPUID.(EAX=7,ECX=0):EDX[22] = AMX-BF16
#else
  return false;
#endif
}

}  // namespace llm0
