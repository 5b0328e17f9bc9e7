// BF16 kernels: run-time choice and the scalar reference. See bf16_kernels.h.
#include "ops/bf16_kernels.h"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "core/check.h"
#include "core/cpu_features.h"
#include "core/half.h"

namespace llm0 {

namespace {

// The default: the first supported kernel of this list. AVX-512F widening comes before AVX-512
// BF16: with the hi/lo split that keeps x to 16 bits, vdpbf16ps reads three streams per weight
// block and measured 15-21 GB/s of BF16 weights against 20-25 GB/s for widening (one thread, Zen 4,
// docs/performance-history.md); decode is bound by that stream.
Isa fastest_supported() {
  for (Isa k : {Isa::Avx512, Isa::Avx512Bf16, Isa::Avx2})
    if (bf16_kernel_supported(k)) return k;
  return Isa::Scalar;
}

// LLM0_KERNEL (core/cpu_features.h) forces the kernel of its level; unset, the fastest supported.
Isa from_environment() {
  if (const std::optional<Isa> isa = forced_isa()) return *isa;
  return fastest_supported();
}

Isa& chosen() {
  static Isa k = from_environment();
  return k;
}

// bf16 bits -> float32 (as bf16_to_float, inlined: the scalar loops are the portable fallback).
inline float widen(uint16_t b) { return std::bit_cast<float>((uint32_t)b << 16); }

// The reference: exact products, float32 accumulation in index order.
float dot_scalar(const uint16_t* w, const float* x, int I) {
  float s = 0.0f;
  for (int i = 0; i < I; ++i) s += widen(w[i]) * x[i];
  return s;
}
}  // namespace

bool bf16_kernel_supported(Isa k) {
  return k == Isa::Scalar || bf16_detail::cpu_has(k);
}

Isa bf16_kernel() { return chosen(); }

void set_bf16_kernel(Isa k) {
  LLM0_CHECK(bf16_kernel_supported(k), "the {} BF16 kernel needs instructions this CPU lacks",
             isa_name(k));
  chosen() = k;
}

void Bf16Operand::prepare(const float* x_in, int n, Isa k) {
  x = x_in, I = n, kernel = k;
  if (k != Isa::Avx512Bf16) return;
  hi.resize((size_t)n), lo.resize((size_t)n);
  for (int i = 0; i < n; ++i) {
    hi[(size_t)i] = float_to_bf16(x_in[i]);
    lo[(size_t)i] = float_to_bf16(x_in[i] - bf16_to_float(hi[(size_t)i]));
  }
}

float bf16_dot(const uint16_t* w, const Bf16Operand& x) {
  switch (x.kernel) {
    case Isa::Avx2: return bf16_detail::dot_avx2(w, x.x, x.I);
    case Isa::Avx512: return bf16_detail::dot_avx512(w, x.x, x.I);
    case Isa::Avx512Bf16:
      return bf16_detail::dot_avx512bf16(w, x.hi.data(), x.lo.data(), x.I);
    case Isa::Scalar: break;
  }
  return dot_scalar(w, x.x, x.I);
}

void bf16_dot_rows(float* s, const uint16_t* const* rows, long off, int n, const float* q, int D,
                   Isa k) {
  if (k == Isa::Avx512 || k == Isa::Avx512Bf16)
    return bf16_detail::dot_rows_avx512(s, rows, off, n, q, D);
  if (k == Isa::Avx2) return bf16_detail::dot_rows_avx2(s, rows, off, n, q, D);
  for (int j = 0; j < n; ++j) s[j] = dot_scalar(rows[j] + off, q, D);
}

void bf16_weighted_rows(float* out, const float* p, const uint16_t* const* rows, long off, int n,
                        int Dv, Isa k) {
  if (k == Isa::Avx512 || k == Isa::Avx512Bf16)
    return bf16_detail::weighted_rows_avx512(out, p, rows, off, n, Dv);
  if (k == Isa::Avx2) return bf16_detail::weighted_rows_avx2(out, p, rows, off, n, Dv);
  for (int c = 0; c < Dv; ++c) out[c] = 0.0f;
  for (int j = 0; j < n; ++j)
    for (int c = 0; c < Dv; ++c) out[c] += p[j] * widen(rows[j][off + c]);
}

void bf16_widen(float* dst, const uint16_t* src, long n, Isa k) {
  if (k == Isa::Avx512 || k == Isa::Avx512Bf16) return bf16_detail::widen_avx512(dst, src, n);
  if (k == Isa::Avx2) return bf16_detail::widen_avx2(dst, src, n);
  for (long i = 0; i < n; ++i) dst[i] = widen(src[i]);
}

void bf16_round(uint16_t* dst, const float* src, long n) {
  for (long i = 0; i < n; ++i) dst[i] = float_to_bf16(src[i]);
}

}  // namespace llm0
