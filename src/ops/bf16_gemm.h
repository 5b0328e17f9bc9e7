// BF16 matrix product for mixed-precision training: C[M, N] (+)= A[M, K] · B[N, K]ᵀ where every
// operand element is rounded to bfloat16 (round to nearest even, as PyTorch's autocast casts) and
// the products are accumulated in float32 — the three products of a linear layer
// (forward Y = X Wᵀ, backward dX = dY W, dW = dYᵀ X) are this one function with different strides.
// Kernel: AVX-512 BF16 `vdpbf16ps` (Intel SDM, VDPBF16PS: acc += a[2i+1]·b[2i+1]; acc += a[2i]·b[2i],
// each bf16 product exact in float32, denormal inputs and outputs flushed to zero), 8 × 32 tiles on
// operands packed as k-pairs; a portable scalar version of the same order runs where the CPU lacks
// AVX512_BF16 (tests; training refuses --precision bf16 there: train/precision.h).
// Accuracy: each C element is a float32 recursive sum of its K (+1 when accumulating) exact
// products, so |C - Σ_k bf16(a_k) bf16(b_k)| <= γ_K · Σ_k |bf16(a_k) bf16(b_k)| with
// γ_K = K u / (1 - K u), u = 2⁻²⁴ (Higham, Accuracy and Stability, eq. 3.5), plus K · 2⁻¹²⁶ for
// flushed denormals. Against the unrounded operands add the rounding of each: |bf16(x) - x| <=
// 2⁻⁸ |x|, so |ab - bf16(a) bf16(b)| <= (2·2⁻⁸ + 2⁻¹⁶) |a b| per product.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ops/bf16_operand.h"

namespace llm0 {

/// C[M, N] = (accumulate ? C : 0) + Σ_k bf16(A(m, k)) · bf16(B(n, k)), float32 accumulation
/// (the order above). C row-major with row stride ldc. Threads (OpenMP) split the tiles; each
/// element's sum is computed by one thread in the fixed k order, so results do not depend on
/// the thread count. Uses vdpbf16ps when kernel_isa() (core/cpu_features.h) is avx512bf16, else
/// the scalar version (same order, same bits).
void gemm_bf16(float* C, long ldc, GemmOperand A, GemmOperand B, int M, int N, int K,
               bool accumulate);

/// One product of gemm_bf16_shared_a: C[M, N] = (accumulate ? C : 0) + A · Bᵀ, C row-major with
/// row stride ldc.
struct GemmOut {
  float* C = nullptr;
  long ldc = 0;
  GemmOperand B;
  int N = 0;
  bool accumulate = false;
};

/// Several products of one A[M, K] (the q/k/v or gate/up projections of one input): A is
/// rounded and packed once and the tiles of every product share one parallel loop. Each C gets
/// the bits one gemm_bf16 call would give it.
void gemm_bf16_shared_a(GemmOperand A, int M, int K, std::span<const GemmOut> outs);

/// A B operand [N, K] rounded and packed once for several products that read ranges of it
/// (attention's keys and values, packed per head instead of per block of query rows): panels of
/// kBf16PanelCols columns, [⌈N / 32⌉][⌈K / 2⌉][32][2] BF16 (k-pairs, zero-padded; no K blocks).
struct PackedB {
  std::vector<uint16_t> data;
  int N = 0, K = 0;
  long panel_stride() const { return (long)((K + 1) / 2) * kBf16PanelCols * 2; }
};

/// Packs B(n, k) for n < N, k < K into `out` (its buffer reused when large enough).
void pack_b(PackedB& out, GemmOperand B, int N, int K);

/// C[M, N] = (accumulate ? C : 0) + Σ_{k < K} bf16(A(m, k)) · B(n0 + n, k0 + k) with B from
/// pack_b: n0 a multiple of kBf16PanelCols, k0 even, n0 + N and k0 + K within it. Each element
/// gets the bits gemm_bf16 gives the same sub-matrix (same k order). Runs on the calling thread
/// (attention's per-head loops are the parallel ones). Throws llm0::Error on a misaligned or
/// out-of-range n0 / k0.
void gemm_bf16_packed_b(float* C, long ldc, GemmOperand A, int M, int K, const PackedB& B, int n0,
                        int k0, int N, bool accumulate);

/// Whether gemm_bf16 runs on BF16 dot-product hardware here (kernel_isa() == avx512bf16).
bool gemm_bf16_fast();

}  // namespace llm0
