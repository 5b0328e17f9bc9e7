// The x86 BF16 kernels (AVX2, AVX-512F, AVX-512 BF16), each compiled for its own instruction set
// with a target attribute, so the rest of the build keeps its portable baseline; which of them
// may run is asked of the CPU (cpuid, and the OS's saved register state) at run time.
// See bf16_kernels.h for the accuracy of each.
// GCC 12 reports -Wmaybe-uninitialized inside its own AVX-512 headers (_mm512_undefined_epi32's
// deliberate self-initialisation, GCC bug 105593); silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "ops/bf16_kernels.h"

#include "core/half.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace llm0::bf16_detail {

bool cpu_has(Isa k) {
  __builtin_cpu_init();
  switch (k) {
    case Isa::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::Avx512: return __builtin_cpu_supports("avx512f");
    case Isa::Avx512Bf16:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
    case Isa::Scalar: return true;
  }
  return false;
}

// 8 bf16 -> 8 float32: zero-extend to 32 bits and shift into the upper half.
__attribute__((target("avx2,fma"))) static inline __m256 widen8(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

__attribute__((target("avx2,fma"))) float dot_avx2(const uint16_t* w, const float* x, int I) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int i = 0;
  for (; i + 32 <= I; i += 32) {
    a0 = _mm256_fmadd_ps(widen8(w + i), _mm256_loadu_ps(x + i), a0);
    a1 = _mm256_fmadd_ps(widen8(w + i + 8), _mm256_loadu_ps(x + i + 8), a1);
    a2 = _mm256_fmadd_ps(widen8(w + i + 16), _mm256_loadu_ps(x + i + 16), a2);
    a3 = _mm256_fmadd_ps(widen8(w + i + 24), _mm256_loadu_ps(x + i + 24), a3);
  }
  for (; i + 8 <= I; i += 8) a0 = _mm256_fmadd_ps(widen8(w + i), _mm256_loadu_ps(x + i), a0);
  const __m256 a = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  alignas(16) float l[4];
  _mm_store_ps(l, s4);
  float s = (l[0] + l[2]) + (l[1] + l[3]);
  for (; i < I; ++i) s += bf16_to_float(w[i]) * x[i];
  return s;
}

__attribute__((target("avx2,fma"))) void dot_rows_avx2(float* s, const uint16_t* const* rows,
                                                       long off, int n, const float* q, int D) {
  for (int j = 0; j < n; ++j) s[j] = dot_avx2(rows[j] + off, q, D);
}

// Columns in blocks of 32 (four accumulators stay in registers over all n rows), then 8, then 1.
__attribute__((target("avx2,fma"))) void weighted_rows_avx2(float* out, const float* p,
                                                            const uint16_t* const* rows, long off,
                                                            int n, int Dv) {
  int c = 0;
  for (; c + 32 <= Dv; c += 32) {
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int j = 0; j < n; ++j) {
      const uint16_t* r = rows[j] + off + c;
      const __m256 pj = _mm256_set1_ps(p[j]);
      a0 = _mm256_fmadd_ps(pj, widen8(r), a0), a1 = _mm256_fmadd_ps(pj, widen8(r + 8), a1);
      a2 = _mm256_fmadd_ps(pj, widen8(r + 16), a2), a3 = _mm256_fmadd_ps(pj, widen8(r + 24), a3);
    }
    _mm256_storeu_ps(out + c, a0), _mm256_storeu_ps(out + c + 8, a1);
    _mm256_storeu_ps(out + c + 16, a2), _mm256_storeu_ps(out + c + 24, a3);
  }
  for (; c + 8 <= Dv; c += 8) {
    __m256 a0 = _mm256_setzero_ps();
    for (int j = 0; j < n; ++j) a0 = _mm256_fmadd_ps(_mm256_set1_ps(p[j]), widen8(rows[j] + off + c), a0);
    _mm256_storeu_ps(out + c, a0);
  }
  for (; c < Dv; ++c) {
    float a = 0.0f;
    for (int j = 0; j < n; ++j) a += p[j] * bf16_to_float(rows[j][off + c]);
    out[c] = a;
  }
}

__attribute__((target("avx2,fma"))) void widen_avx2(float* dst, const uint16_t* src, long n) {
  long i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, widen8(src + i));
  for (; i < n; ++i) dst[i] = bf16_to_float(src[i]);
}

// 16 bf16 -> 16 float32.
__attribute__((target("avx512f"))) static inline __m512 widen16(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

__attribute__((target("avx512f"))) float dot_avx512(const uint16_t* w, const float* x, int I) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int i = 0;
  for (; i + 64 <= I; i += 64) {
    a0 = _mm512_fmadd_ps(widen16(w + i), _mm512_loadu_ps(x + i), a0);
    a1 = _mm512_fmadd_ps(widen16(w + i + 16), _mm512_loadu_ps(x + i + 16), a1);
    a2 = _mm512_fmadd_ps(widen16(w + i + 32), _mm512_loadu_ps(x + i + 32), a2);
    a3 = _mm512_fmadd_ps(widen16(w + i + 48), _mm512_loadu_ps(x + i + 48), a3);
  }
  for (; i + 16 <= I; i += 16) a0 = _mm512_fmadd_ps(widen16(w + i), _mm512_loadu_ps(x + i), a0);
  float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  for (; i < I; ++i) s += bf16_to_float(w[i]) * x[i];
  return s;
}

__attribute__((target("avx512f"))) void dot_rows_avx512(float* s, const uint16_t* const* rows,
                                                        long off, int n, const float* q, int D) {
  for (int j = 0; j < n; ++j) s[j] = dot_avx512(rows[j] + off, q, D);
}

// Columns in blocks of 64 (four accumulators stay in registers over all n rows), then 16, then 1.
__attribute__((target("avx512f"))) void weighted_rows_avx512(float* out, const float* p,
                                                             const uint16_t* const* rows, long off,
                                                             int n, int Dv) {
  int c = 0;
  for (; c + 64 <= Dv; c += 64) {
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int j = 0; j < n; ++j) {
      const uint16_t* r = rows[j] + off + c;
      const __m512 pj = _mm512_set1_ps(p[j]);
      a0 = _mm512_fmadd_ps(pj, widen16(r), a0), a1 = _mm512_fmadd_ps(pj, widen16(r + 16), a1);
      a2 = _mm512_fmadd_ps(pj, widen16(r + 32), a2), a3 = _mm512_fmadd_ps(pj, widen16(r + 48), a3);
    }
    _mm512_storeu_ps(out + c, a0), _mm512_storeu_ps(out + c + 16, a1);
    _mm512_storeu_ps(out + c + 32, a2), _mm512_storeu_ps(out + c + 48, a3);
  }
  for (; c + 16 <= Dv; c += 16) {
    __m512 a0 = _mm512_setzero_ps();
    for (int j = 0; j < n; ++j) a0 = _mm512_fmadd_ps(_mm512_set1_ps(p[j]), widen16(rows[j] + off + c), a0);
    _mm512_storeu_ps(out + c, a0);
  }
  for (; c < Dv; ++c) {
    float a = 0.0f;
    for (int j = 0; j < n; ++j) a += p[j] * bf16_to_float(rows[j][off + c]);
    out[c] = a;
  }
}

__attribute__((target("avx512f"))) void widen_avx512(float* dst, const uint16_t* src, long n) {
  long i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(dst + i, widen16(src + i));
  for (; i < n; ++i) dst[i] = bf16_to_float(src[i]);
}

// vdpbf16ps: 32 bf16 pairs per instruction, products summed pairwise into 16 float32 lanes.
__attribute__((target("avx512f,avx512bf16"))) static inline __m512 dp(__m512 acc, const uint16_t* a,
                                                                      const uint16_t* b) {
  const __m512i va = _mm512_loadu_si512(a), vb = _mm512_loadu_si512(b);
  return _mm512_dpbf16_ps(acc, (__m512bh)va, (__m512bh)vb);
}

__attribute__((target("avx512f,avx512bf16"))) float dot_avx512bf16(const uint16_t* w,
                                                                   const uint16_t* hi,
                                                                   const uint16_t* lo, int I) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, b0 = a0, b1 = a0;
  int i = 0;
  for (; i + 64 <= I; i += 64) {
    a0 = dp(a0, w + i, hi + i), b0 = dp(b0, w + i, lo + i);
    a1 = dp(a1, w + i + 32, hi + i + 32), b1 = dp(b1, w + i + 32, lo + i + 32);
  }
  for (; i + 32 <= I; i += 32) a0 = dp(a0, w + i, hi + i), b0 = dp(b0, w + i, lo + i);
  // the hi and lo sums kept apart until here: lo's are ~2^-8 of hi's
  float s = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1)) + _mm512_reduce_add_ps(_mm512_add_ps(b0, b1));
  for (; i < I; ++i) s += bf16_to_float(w[i]) * (bf16_to_float(hi[i]) + bf16_to_float(lo[i]));
  return s;
}

}  // namespace llm0::bf16_detail

#else  // not x86: only the scalar kernel exists; these are never called (cpu_has says no)

namespace llm0::bf16_detail {
bool cpu_has(Isa k) { return k == Isa::Scalar; }
float dot_avx2(const uint16_t*, const float*, int) { return 0.0f; }
float dot_avx512(const uint16_t*, const float*, int) { return 0.0f; }
float dot_avx512bf16(const uint16_t*, const uint16_t*, const uint16_t*, int) { return 0.0f; }
void dot_rows_avx2(float*, const uint16_t* const*, long, int, const float*, int) {}
void dot_rows_avx512(float*, const uint16_t* const*, long, int, const float*, int) {}
void weighted_rows_avx2(float*, const float*, const uint16_t* const*, long, int, int) {}
void weighted_rows_avx512(float*, const float*, const uint16_t* const*, long, int, int) {}
void widen_avx2(float*, const uint16_t*, long) {}
void widen_avx512(float*, const uint16_t*, long) {}
}  // namespace llm0::bf16_detail

#endif
