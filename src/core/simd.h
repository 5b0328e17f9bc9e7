// Portable 16-float SIMD vectors (GCC vector extensions): one AVX-512 register when compiled with
// -march=native on an AVX-512 machine, two AVX2 or four SSE registers otherwise; the same source
// serves every build, including the sanitizer build (no -march). Used by the kernels whose speed
// matters: the decode matvec (memory-bound) and the exp of softmax / cross-entropy.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace llm0::simd {

using f32x16 = float __attribute__((vector_size(64)));
using i32x16 = int32_t __attribute__((vector_size(64)));
constexpr int kWidth = 16;

/// Unaligned load / store of 16 floats.
inline f32x16 load(const float* p) {
  f32x16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, f32x16 v) { std::memcpy(p, &v, sizeof v); }
/// 16 bfloat16 numbers (bit patterns) widened to float32: exact (the bits move to the high half).
inline f32x16 load(const uint16_t* p) {
  using u16x16 = uint16_t __attribute__((vector_size(32)));
  using u32x16 = uint32_t __attribute__((vector_size(64)));
  u16x16 h;
  std::memcpy(&h, p, sizeof h);
  const u32x16 u = __builtin_convertvector(h, u32x16) << 16;
  f32x16 f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// All 16 lanes = s.
inline f32x16 splat(float s) { return f32x16{} + s; }

/// 16 lanes from p[0, lanes) (lanes <= 16), the others `fill`; and the first `lanes` back.
inline f32x16 load_part(const float* p, int lanes, float fill = 0.0f) {
  if (lanes == kWidth) return load(p);
  float t[kWidth];
  for (int j = 0; j < kWidth; ++j) t[j] = j < lanes ? p[j] : fill;
  return load(t);
}
inline void store_part(float* p, f32x16 v, int lanes) {
  if (lanes == kWidth) return store(p, v);
  float t[kWidth];
  store(t, v);
  for (int j = 0; j < lanes; ++j) p[j] = t[j];
}

/// Σ of the 16 lanes, as a tree: (8 + 8) → (4 + 4) → 4 scalars (a few shuffles, not 15 adds).
inline float sum(f32x16 v) {
  using f32x8 = float __attribute__((vector_size(32)));
  using f32x4 = float __attribute__((vector_size(16)));
  f32x8 lo8, hi8;
  std::memcpy(&lo8, &v, sizeof lo8);
  std::memcpy(&hi8, reinterpret_cast<const char*>(&v) + sizeof lo8, sizeof hi8);
  const f32x8 s8 = lo8 + hi8;
  f32x4 lo4, hi4;
  std::memcpy(&lo4, &s8, sizeof lo4);
  std::memcpy(&hi4, reinterpret_cast<const char*>(&s8) + sizeof lo4, sizeof hi4);
  const f32x4 s4 = lo4 + hi4;
  return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

/// The largest of the 16 lanes (NaN lanes are skipped unless lane 0 is NaN).
inline float max(f32x16 v) {
  float m = v[0];
  for (int j = 1; j < kWidth; ++j) m = v[j] > m ? v[j] : m;
  return m;
}

/// Lane-wise e^x, relative error ≤ 2 ulp over the normal range (Cephes expf: x = n·ln2 + r with
/// |r| ≤ ln2/2, a degree-6 polynomial for e^r, 2^n built in the exponent bits). x < -87.34
/// (result below FLT_MIN) gives 0, including -inf; x > 88 is clamped (e^88 ≈ 1.65e38); NaN stays NaN.
inline f32x16 exp(f32x16 x) {
  const f32x16 lo = splat(-87.33654f), hi = splat(88.0f);
  const f32x16 xc = x < lo ? lo : (x > hi ? hi : x);
  // n = round(x / ln2) by the 1.5·2^23 trick (round to nearest even)
  const f32x16 magic = splat(12582912.0f);
  const f32x16 nf = (xc * 1.44269504088896341f + magic) - magic;
  const f32x16 r = (xc - nf * 0.693359375f) + nf * 2.12194440e-4f;  // x - n·ln2 (hi + lo parts)
  f32x16 p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const f32x16 er = p * r * r + r + 1.0f;
  const i32x16 bits = (__builtin_convertvector(nf, i32x16) + 127) << 23;  // 2^n
  f32x16 two_n;
  std::memcpy(&two_n, &bits, sizeof two_n);
  const f32x16 y = er * two_n;
  return x < lo ? f32x16{} : y;  // NaN compares false: stays NaN through er
}

/// max_j x[j] over n floats (-inf for n = 0): the shift of a numerically stable softmax.
inline float max_of(const float* x, int n) {
  f32x16 m = splat(-INFINITY);
  int j = 0;
  for (; j + kWidth <= n; j += kWidth) {
    const f32x16 v = load(x + j);
    m = v > m ? v : m;
  }
  float mx = max(m);
  for (; j < n; ++j) mx = x[j] > mx ? x[j] : mx;
  return mx;
}

/// Σ_j e^{c·x[j] - shift} over n floats (16 float lanes, the last n % 16 as one more vector
/// padded with −∞, whose e^x is 0; then double); when out is given, also out[j] = e^{c·x[j] -
/// shift} (out may be x: softmax numerators in place). c = 1 multiplies exactly.
inline double sum_exp(const float* x, int n, float shift, float* out = nullptr, float c = 1.0f) {
  f32x16 acc = {};
  for (int j = 0; j < n; j += kWidth) {
    const int lanes = n - j < kWidth ? n - j : kWidth;
    const f32x16 e = exp(load_part(x + j, lanes, -INFINITY) * c - shift);
    if (out) store_part(out + j, e, lanes);
    acc += e;
  }
  return sum(acc);
}

/// Σ_c a_c b_c over n floats, or Σ_c a_c w_c b_c when w is given, in double: each term is the
/// operands widened to double and multiplied (a·w first), the terms summed in 8 lanes (c mod 8),
/// the lanes in order, then the last n mod 8 terms in order. A single chain of double additions
/// (4 cycles each) bounded RMSNorm's rows and attention's D_i = Σ dO·O on short rows.
inline double dot_f64(const float* a, const float* b, int n, const float* w = nullptr) {
  using f32x8 = float __attribute__((vector_size(32)));
  using f64x8 = double __attribute__((vector_size(64)));
  const auto widen = [](const float* p) {
    f32x8 x;
    std::memcpy(&x, p, sizeof x);
    return __builtin_convertvector(x, f64x8);
  };
  f64x8 acc = {};
  int c = 0;
  if (w)
    for (; c + 8 <= n; c += 8) acc += widen(a + c) * widen(w + c) * widen(b + c);
  else
    for (; c + 8 <= n; c += 8) acc += widen(a + c) * widen(b + c);
  double s = 0;
  for (int l = 0; l < 8; ++l) s += acc[l];
  for (; c < n; ++c) s += (w ? (double)a[c] * w[c] : (double)a[c]) * b[c];
  return s;
}

}  // namespace llm0::simd
