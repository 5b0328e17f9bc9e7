// The BF16 GEMM tiles (see bf16_gemm_kernel.h). The AVX-512 BF16 one is compiled for its
// instruction set with a target attribute (the build keeps its portable baseline); 16 float32
// accumulators (8 rows × 2 zmm of 16 columns) stay in registers over the whole K block, each
// k-pair costs 2 panel loads and 8 broadcasts for 16 vdpbf16ps.
// GCC 12 warns inside its own AVX-512 headers (GCC bug 105593); silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "ops/bf16_gemm_kernel.h"

#include <algorithm>
#include <cstring>

#include "core/half.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace llm0::bf16_gemm_detail {

void pack_scalar(uint16_t* d, GemmOperand X, int r0, int rows, int k0, int kc, int P) {
  const int kp = (kc + 1) / 2;
  for (int q = 0; q < kp; ++q)
    for (int r = 0; r < P; ++r)
      for (int j = 0; j < 2; ++j) {
        const int k = 2 * q + j;
        d[((long)q * P + r) * 2 + j] =
            r < rows && k < kc ? float_to_bf16(X.p[(r0 + r) * X.rs + (long)(k0 + k) * X.ks]) : 0;
      }
}

void tile_scalar(float* c, long ldc, const uint16_t* a, const uint16_t* b, int kp, int mm, int nn,
                 bool acc) {
  for (int m = 0; m < mm; ++m)
    for (int n = 0; n < nn; ++n) {
      float s = acc ? c[m * ldc + n] : 0.0f;
      for (int q = 0; q < kp; ++q) {
        const uint16_t* ap = a + ((long)q * MR + m) * 2;
        const uint16_t* bp = b + ((long)q * NR + n) * 2;
        s += bf16_to_float(ap[1]) * bf16_to_float(bp[1]);
        s += bf16_to_float(ap[0]) * bf16_to_float(bp[0]);
      }
      c[m * ldc + n] = s;
    }
}

#if defined(__x86_64__)
namespace {
alignas(64) constexpr uint16_t kPairPerm[32] = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
                               8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
}  // namespace

__attribute__((target("avx512f,avx512bw,avx512bf16"))) void pack_avx512bf16(
    uint16_t* d, GemmOperand X, int r0, int rows, int k0, int kc, int P) {
  const int kp = (kc + 1) / 2;
  uint32_t* d32 = reinterpret_cast<uint32_t*>(d);  // [kp][P] pairs
  if (X.ks == 1) {  // k contiguous in a row: 32 k of a row -> 16 pairs, stored P apart
    alignas(64) uint32_t pairs[16];
    for (int r = 0; r < P; ++r) {
      const float* src = X.p + (long)(r0 + r) * X.rs + k0;
      for (int k = 0; k < kc; k += 32) {
        const int n = r < rows ? std::min(32, kc - k) : 0;
        const __mmask16 m0 = n >= 16 ? 0xFFFF : (__mmask16)((1u << std::max(n, 0)) - 1);
        const __mmask16 m1 = n >= 32 ? 0xFFFF : n <= 16 ? 0 : (__mmask16)((1u << (n - 16)) - 1);
        const __m512 lo = _mm512_maskz_loadu_ps(m0, src + k), hi = _mm512_maskz_loadu_ps(m1, src + k + 16);
        _mm512_store_si512(pairs, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
        const int q0 = k / 2, nq = std::min(16, kp - q0);
        for (int j = 0; j < nq; ++j) d32[(long)(q0 + j) * P + r] = pairs[j];
      }
    }
    return;
  }
  if (X.rs == 1 && P % 8 == 0) {  // rows contiguous at a given k: 16 rows of k and k+1 -> pairs
    const __m512i perm = _mm512_loadu_si512(kPairPerm);
    for (int q = 0; q < kp; ++q) {
      const int k = 2 * q;
      const float* s0 = X.p + r0 + (long)(k0 + k) * X.ks;
      for (int r = 0; r < P; r += 16) {
        const int n = std::max(0, std::min(16, rows - r));
        const __mmask16 m = (__mmask16)((1u << n) - 1);
        const __m512 a = _mm512_maskz_loadu_ps(m, s0 + r);
        const __m512 b = k + 1 < kc ? _mm512_maskz_loadu_ps(m, s0 + X.ks + r) : _mm512_setzero_ps();
        const __m512i ab = _mm512_permutexvar_epi16(perm, (__m512i)_mm512_cvtne2ps_pbh(b, a));
        const __mmask16 st = P - r >= 16 ? 0xFFFF : (__mmask16)((1u << (P - r)) - 1);
        _mm512_mask_storeu_epi32(d32 + (long)q * P + r, st, ab);
      }
    }
    return;
  }
  pack_scalar(d, X, r0, rows, k0, kc, P);
}

__attribute__((target("avx512f,avx512bf16"))) void tile_avx512bf16(float* c, long ldc,
                                                                   const uint16_t* a,
                                                                   const uint16_t* b, int kp,
                                                                   int mm, int nn, bool acc) {
  const __mmask16 k0 = nn >= 16 ? 0xFFFF : (__mmask16)((1u << nn) - 1);
  const __mmask16 k1 = nn >= 32 ? 0xFFFF : nn <= 16 ? 0 : (__mmask16)((1u << (nn - 16)) - 1);
  __m512 c0[MR], c1[MR];
  for (int m = 0; m < MR; ++m) {
    const bool live = acc && m < mm;
    c0[m] = live ? _mm512_maskz_loadu_ps(k0, c + m * ldc) : _mm512_setzero_ps();
    c1[m] = live ? _mm512_maskz_loadu_ps(k1, c + m * ldc + 16) : _mm512_setzero_ps();
  }
  for (int q = 0; q < kp; ++q) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b + (long)q * NR * 2);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(b + (long)q * NR * 2 + 32);
    const uint16_t* ap = a + (long)q * MR * 2;
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) {
      int32_t pair;
      std::memcpy(&pair, ap + 2 * m, 4);
      const __m512bh av = (__m512bh)_mm512_set1_epi32(pair);
      c0[m] = _mm512_dpbf16_ps(c0[m], av, b0);
      c1[m] = _mm512_dpbf16_ps(c1[m], av, b1);
    }
  }
  for (int m = 0; m < mm; ++m) {
    _mm512_mask_storeu_ps(c + m * ldc, k0, c0[m]);
    _mm512_mask_storeu_ps(c + m * ldc + 16, k1, c1[m]);
  }
}
#else
void pack_avx512bf16(uint16_t* d, GemmOperand X, int r0, int rows, int k0, int kc, int P) {
  pack_scalar(d, X, r0, rows, k0, kc, P);
}
void tile_avx512bf16(float* c, long ldc, const uint16_t* a, const uint16_t* b, int kp, int mm,
                     int nn, bool acc) {
  tile_scalar(c, ldc, a, b, kp, mm, nn, acc);
}
#endif

}  // namespace llm0::bf16_gemm_detail
