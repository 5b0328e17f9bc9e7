// The matrix products of training attention (ops/attention.cpp: scores S = Q Kᵀ, O = P V, and
// backward's dP = dO Vᵀ, dV += Pᵀ dO, dQ = dS K, dK += dSᵀ Q, per head and block of query rows) in
// the precision the run chose: float32 (OpenBLAS sgemm) or, under mixed-precision training,
// BF16 operands with float32 accumulation (ops/bf16_gemm.h). PyTorch's CPU autocast casts `bmm`,
// `baddbmm` and `matmul` to bfloat16 (docs, torch.amp: "CPU Ops that can autocast to bfloat16");
// llm0 keeps more in float32 than it does: the scaled scores, softmax, its log-sum-exp and
// dS = P ⊙ (dP − D) (PyTorch runs softmax on the bf16 scores, accumulating in float32).
#pragma once

#include "ops/bf16_gemm.h"

namespace llm0 {

/// C[M, N] = alpha · A · Bᵀ (+ C when accumulate), A(m, k) and B(n, k) read through their
/// strides (one of rs, ks must be 1: a row-major matrix or its transpose, as a BLAS call takes
/// them). bf16 = false: one cblas_sgemm (the summation order OpenBLAS picks). bf16 = true:
/// gemm_bf16 (operands rounded to BF16, float32 sums in a fixed order), then C scaled by alpha;
/// alpha must be 1 when accumulating (the caller folds it into an operand). Throws llm0::Error
/// on an operand with neither stride 1, or alpha ≠ 1 with accumulate in BF16.
void attention_gemm(float* C, long ldc, GemmOperand A, GemmOperand B, int M, int N, int K,
                    float alpha, bool accumulate, bool bf16);

/// A head's keys or values as the B operand of its per-block products: B(n, k) of the whole
/// [Tk, ...] operand, read in place, or (BF16) packed once per head with pack_b.
struct AttentionB {
  GemmOperand x;
  const PackedB* packed = nullptr;
};

/// attention_gemm on the block B(n0 + n, k0 + k), n < N, k < K; from the packed copy when there
/// is one (n0 then a multiple of kBf16PanelCols, k0 even: gemm_bf16_packed_b, the bits of the
/// in-place BF16 product).
void attention_gemm(float* C, long ldc, GemmOperand A, const AttentionB& B, int n0, int k0, int M,
                    int N, int K, float alpha, bool accumulate, bool bf16);

}  // namespace llm0
