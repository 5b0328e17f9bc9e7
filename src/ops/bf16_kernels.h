// BF16 weight kernels: dot products of a bfloat16 weight row with a float32 vector, accumulated
// in float32, and the widening of bf16 rows to float32 (the panels a prefill product multiplies).
// One kernel set per instruction set, chosen at run time from the CPU's features (never from the
// build's -march): AVX-512 BF16 (vdpbf16ps), AVX-512F and AVX2 (widen 16 / 8 weights per step,
// then FMA), and the portable scalar reference. LLM0_KERNEL=scalar|avx2|avx512|avx512bf16
// (core/cpu_features.h) forces one (tests run every path the CPU can).
// Accuracy (tests/test_ops_bf16_kernels.cpp checks it against a double-precision sum):
//   widening paths (scalar, avx2, avx512): every product w_i·x_i is exact in float32, so the only
//   error is float32 accumulation: |y - Σ w_i x_i| <= I · 2^-24 · Σ |w_i x_i|.
//   avx512bf16: vdpbf16ps multiplies two bf16 operands, so x is split into x = hi + lo with
//   hi = bf16(x), lo = bf16(x - hi) (|x - hi - lo| <= 2^-16 |x|) and both halves are dotted:
//   |y - Σ w_i x_i| <= (2^-16 + I · 2^-24) · Σ |w_i x_i| (the split as in llamafile's
//   tinyBLAS would keep only hi: 2^-8, too coarse for the 1e-4 logit test).
// Layout: a weight row is I consecutive bf16 bit patterns (PyTorch [out_features, in_features]).
#pragma once
#include <cstdint>
#include <vector>

#include "core/cpu_features.h"

namespace llm0 {

// The kernel sets are the instruction-set levels (core/cpu_features.h's Isa, named by isa_name):
// one set per level.

/// Whether this CPU can run kernel set `k` (scalar: always). The sets need fewer features than
/// cpu_supports(k) checks: avx2 needs AVX2 and FMA, avx512 AVX-512F, avx512bf16 AVX-512F and
/// AVX512_BF16.
bool bf16_kernel_supported(Isa k);
/// The kernel in use: LLM0_KERNEL's level if set (read once), else the first supported of avx512,
/// avx512bf16, avx2, scalar (the measured order: bf16_kernels.cpp).
/// Throws llm0::Error if LLM0_KERNEL names an unknown level or one this CPU lacks.
Isa bf16_kernel();
/// Forces `k` for the rest of the process (tests). Throws llm0::Error if unsupported.
void set_bf16_kernel(Isa k);

/// The vector x [I] in the form the chosen kernel reads: float32 as given, plus the hi/lo bf16
/// split for avx512bf16. Prepare once per product, then dot it with every row.
struct Bf16Operand {
  const float* x = nullptr;    // [I]
  std::vector<uint16_t> hi, lo;  // [I] each (avx512bf16 only)
  int I = 0;
  Isa kernel = Isa::Scalar;
  /// Captures x (not copied: must outlive the operand) for kernel k.
  void prepare(const float* x_in, int n, Isa k);
};

/// Σ_i bf16(w[i]) · x[i] over the operand's I entries, with the operand's kernel.
float bf16_dot(const uint16_t* w, const Bf16Operand& x);

/// Attention over BF16 cached rows (ops/attention_rows.h), widening in registers, each with kernel
/// k's instructions (avx512bf16 uses the avx512 code: exact widening, float32 FMA):
/// s[j] = Σ_i bf16(rows[j][off + i]) · q[i] for j < n (q·k for n keys; bound as bf16_dot's
/// widening kernels, I = D).
void bf16_dot_rows(float* s, const uint16_t* const* rows, long off, int n, const float* q, int D,
                   Isa k);
/// out[Dv] = Σ_{j<n} p[j] · bf16(rows[j][off .. off + Dv)) (the softmax-weighted sum of n value
/// rows; float32 accumulation in j order per column: error <= n · 2^-24 · Σ_j |p_j v_j|).
void bf16_weighted_rows(float* out, const float* p, const uint16_t* const* rows, long off, int n,
                        int Dv, Isa k);

/// dst[n] = float32 of the bf16 bits src[n] (exact), with kernel k's instructions.
void bf16_widen(float* dst, const uint16_t* src, long n, Isa k);

/// dst[n] = bf16 of src[n], round to nearest even (as float_to_bf16).
void bf16_round(uint16_t* dst, const float* src, long n);

namespace bf16_detail {
// Per-ISA entry points (bf16_kernels_x86.cpp); callers check bf16_kernel_supported first.
float dot_avx2(const uint16_t* w, const float* x, int I);
float dot_avx512(const uint16_t* w, const float* x, int I);
float dot_avx512bf16(const uint16_t* w, const uint16_t* hi, const uint16_t* lo, int I);
void dot_rows_avx2(float* s, const uint16_t* const* rows, long off, int n, const float* q, int D);
void dot_rows_avx512(float* s, const uint16_t* const* rows, long off, int n, const float* q, int D);
void weighted_rows_avx2(float* out, const float* p, const uint16_t* const* rows, long off, int n, int Dv);
void weighted_rows_avx512(float* out, const float* p, const uint16_t* const* rows, long off, int n, int Dv);
void widen_avx2(float* dst, const uint16_t* src, long n);
void widen_avx512(float* dst, const uint16_t* src, long n);
bool cpu_has(Isa k);
}  // namespace bf16_detail

}  // namespace llm0
