// One product of training attention in float32 or BF16 (see attention_gemm.h).
#include "ops/attention_gemm.h"

#include <cblas.h>

#include "core/check.h"

namespace llm0 {

namespace {
// BF16: gemm_bf16 has no alpha; a product that accumulates takes it folded into an operand.
void check_alpha(float alpha, bool accumulate) {
  LLM0_CHECK(alpha == 1.0f || !accumulate, "attention_gemm: BF16 accumulation with alpha={}",
             alpha);
}
// C[M, N] *= alpha (row stride ldc), after a BF16 product.
void scale(float* C, long ldc, int M, int N, float alpha) {
  if (alpha == 1.0f) return;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) C[m * ldc + n] *= alpha;
}
}  // namespace

void attention_gemm(float* C, long ldc, GemmOperand A, GemmOperand B, int M, int N, int K,
                    float alpha, bool accumulate, bool bf16) {
  LLM0_CHECK((A.ks == 1 || A.rs == 1) && (B.ks == 1 || B.rs == 1),
             "attention_gemm: an operand with neither a unit row nor a unit column stride");
  if (bf16) {
    check_alpha(alpha, accumulate);
    gemm_bf16(C, ldc, A, B, M, N, K, accumulate);
    scale(C, ldc, M, N, alpha);
    return;
  }
  // A [M, K]: row-major (ks = 1, lda = rs) or the transpose of a row-major [K, M] (lda = ks).
  // B(n, k) is the op(B)ᵀ BLAS multiplies by: row-major [N, K] is Trans, [K, N] is NoTrans.
  // Both strides 1 (a single row or column, e.g. Dv = 1): the reading whose leading dimension
  // BLAS accepts (row-major only when K = 1).
  const bool a_rows = A.ks == 1 && (A.rs != 1 || K == 1);
  const bool b_rows = B.ks == 1 && (B.rs != 1 || K == 1);
  cblas_sgemm(CblasRowMajor, a_rows ? CblasNoTrans : CblasTrans, b_rows ? CblasTrans : CblasNoTrans,
              M, N, K, alpha, A.p, (int)(a_rows ? A.rs : A.ks), B.p, (int)(b_rows ? B.rs : B.ks),
              accumulate ? 1.0f : 0.0f, C, (int)ldc);
}

void attention_gemm(float* C, long ldc, GemmOperand A, const AttentionB& B, int n0, int k0, int M,
                    int N, int K, float alpha, bool accumulate, bool bf16) {
  if (!B.packed) {
    const GemmOperand b{B.x.p + n0 * B.x.rs + k0 * B.x.ks, B.x.rs, B.x.ks};
    return attention_gemm(C, ldc, A, b, M, N, K, alpha, accumulate, bf16);
  }
  check_alpha(alpha, accumulate);
  gemm_bf16_packed_b(C, ldc, A, M, K, *B.packed, n0, k0, N, accumulate);
  scale(C, ldc, M, N, alpha);
}

}  // namespace llm0
