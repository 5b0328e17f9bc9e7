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
constexpr Bf16Kernel kAll[] = {Bf16Kernel::Scalar, Bf16Kernel::Avx2, Bf16Kernel::Avx512,
                               Bf16Kernel::Avx512Bf16};

// The default: the first supported kernel of this list. AVX-512F widening comes before AVX-512
// BF16: with the hi/lo split that keeps x to 16 bits, vdpbf16ps reads three streams per weight
// block and measured 15-21 GB/s of BF16 weights against 20-25 GB/s for widening (one thread, Zen 4,
// docs/performance-history.md); decode is bound by that stream.
Bf16Kernel fastest_supported() {
  for (Bf16Kernel k : {Bf16Kernel::Avx512, Bf16Kernel::Avx512Bf16, Bf16Kernel::Avx2})
    if (bf16_kernel_supported(k)) return k;
  return Bf16Kernel::Scalar;
}

// LLM0_KERNEL (core/cpu_features.h) forces the kernel of its level (the levels and the kernels
// are the same four, in the same order); unset, the fastest supported.
Bf16Kernel from_environment() {
  if (const std::optional<Isa> isa = forced_isa()) return static_cast<Bf16Kernel>(*isa);
  return fastest_supported();
}

Bf16Kernel& chosen() {
  static Bf16Kernel k = from_environment();
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

const char* bf16_kernel_name(Bf16Kernel k) {
  switch (k) {
    case Bf16Kernel::Scalar: return "scalar";
    case Bf16Kernel::Avx2: return "avx2";
    case Bf16Kernel::Avx512: return "avx512";
    case Bf16Kernel::Avx512Bf16: return "avx512bf16";
  }
  return "?";
}

bool bf16_kernel_supported(Bf16Kernel k) {
  return k == Bf16Kernel::Scalar || bf16_detail::cpu_has(k);
}

Bf16Kernel bf16_kernel() { return chosen(); }

void set_bf16_kernel(Bf16Kernel k) {
  LLM0_CHECK(bf16_kernel_supported(k), "the {} BF16 kernel needs instructions this CPU lacks",
             bf16_kernel_name(k));
  chosen() = k;
}

void Bf16Operand::prepare(const float* x_in, int n, Bf16Kernel k) {
  x = x_in, I = n, kernel = k;
  if (k != Bf16Kernel::Avx512Bf16) return;
  hi.resize((size_t)n), lo.resize((size_t)n);
  for (int i = 0; i < n; ++i) {
    hi[(size_t)i] = float_to_bf16(x_in[i]);
    lo[(size_t)i] = float_to_bf16(x_in[i] - bf16_to_float(hi[(size_t)i]));
  }
}

float bf16_dot(const uint16_t* w, const Bf16Operand& x) {
  switch (x.kernel) {
    case Bf16Kernel::Avx2: return bf16_detail::dot_avx2(w, x.x, x.I);
    case Bf16Kernel::Avx512: return bf16_detail::dot_avx512(w, x.x, x.I);
    case Bf16Kernel::Avx512Bf16:
      return bf16_detail::dot_avx512bf16(w, x.hi.data(), x.lo.data(), x.I);
    case Bf16Kernel::Scalar: break;
  }
  return dot_scalar(w, x.x, x.I);
}

void bf16_dot_rows(float* s, const uint16_t* const* rows, long off, int n, const float* q, int D,
                   Bf16Kernel k) {
  if (k == Bf16Kernel::Avx512 || k == Bf16Kernel::Avx512Bf16)
    return bf16_detail::dot_rows_avx512(s, rows, off, n, q, D);
  if (k == Bf16Kernel::Avx2) return bf16_detail::dot_rows_avx2(s, rows, off, n, q, D);
  for (int j = 0; j < n; ++j) s[j] = dot_scalar(rows[j] + off, q, D);
}

void bf16_weighted_rows(float* out, const float* p, const uint16_t* const* rows, long off, int n,
                        int Dv, Bf16Kernel k) {
  if (k == Bf16Kernel::Avx512 || k == Bf16Kernel::Avx512Bf16)
    return bf16_detail::weighted_rows_avx512(out, p, rows, off, n, Dv);
  if (k == Bf16Kernel::Avx2) return bf16_detail::weighted_rows_avx2(out, p, rows, off, n, Dv);
  for (int c = 0; c < Dv; ++c) out[c] = 0.0f;
  for (int j = 0; j < n; ++j)
    for (int c = 0; c < Dv; ++c) out[c] += p[j] * widen(rows[j][off + c]);
}

void bf16_widen(float* dst, const uint16_t* src, long n, Bf16Kernel k) {
  if (k == Bf16Kernel::Avx512 || k == Bf16Kernel::Avx512Bf16) return bf16_detail::widen_avx512(dst, src, n);
  if (k == Bf16Kernel::Avx2) return bf16_detail::widen_avx2(dst, src, n);
  for (long i = 0; i < n; ++i) dst[i] = widen(src[i]);
}

void bf16_round(uint16_t* dst, const float* src, long n) {
  for (long i = 0; i < n; ++i) dst[i] = float_to_bf16(src[i]);
}

}  // namespace llm0
