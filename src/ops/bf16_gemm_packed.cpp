// BF16 products on a B operand packed once (see bf16_gemm.h: PackedB, pack_b, gemm_bf16_packed_b):
// whole-K panels, A rounded and packed per call, every tile on the calling thread.
#include <algorithm>

#include "core/check.h"
#include "ops/bf16_gemm.h"
#include "ops/bf16_gemm_kernel.h"

namespace llm0 {

using bf16_gemm_detail::MR;
using bf16_gemm_detail::NR;

namespace {
// Rows [0, rows) × k [k0, k0 + kc) of X as panels of P rows (the driver's packing, whole K).
void pack_panels(uint16_t* d, GemmOperand X, int rows, int k0, int kc, int P, bool fast) {
  if (fast)
    bf16_gemm_detail::pack_avx512bf16(d, X, 0, rows, k0, kc, P);
  else
    bf16_gemm_detail::pack_scalar(d, X, 0, rows, k0, kc, P);
}
}  // namespace

void pack_b(PackedB& out, GemmOperand B, int N, int K) {
  out.N = N, out.K = K;
  const size_t n = (size_t)((N + NR - 1) / NR) * out.panel_stride();
  if (out.data.size() < n) out.data.resize(n);
  if (N > 0 && K > 0) pack_panels(out.data.data(), B, N, 0, K, NR, gemm_bf16_fast());
}

void gemm_bf16_packed_b(float* C, long ldc, GemmOperand A, int M, int K, const PackedB& B, int n0,
                        int k0, int N, bool accumulate) {
  LLM0_CHECK(n0 % NR == 0 && k0 % 2 == 0 && n0 >= 0 && k0 >= 0 && n0 + N <= B.N && k0 + K <= B.K,
             "gemm_bf16_packed_b: columns [{}, {}) × k [{}, {}) outside the packed [{}, {}] or "
             "misaligned", n0, n0 + N, k0, k0 + K, B.N, B.K);
  if (M <= 0 || N <= 0) return;
  const int kp = (K + 1) / 2;
  if (K <= 0) {
    for (int m = 0; m < M && !accumulate; ++m) std::fill(C + m * ldc, C + m * ldc + N, 0.0f);
    return;
  }
  const bool fast = gemm_bf16_fast();
  thread_local std::vector<uint16_t> a_store;
  const size_t a_size = (size_t)((M + MR - 1) / MR) * kp * MR * 2;
  if (a_store.size() < a_size) a_store.resize(a_size);
  pack_panels(a_store.data(), A, M, 0, K, MR, fast);
  // An odd K reads one k past the range in B: the packed A pads that k with zero.
  const uint16_t* b0 = B.data.data() + (long)(n0 / NR) * B.panel_stride() + (long)(k0 / 2) * NR * 2;
  for (int nj = 0; nj * NR < N; ++nj) {
    const uint16_t* bp = b0 + (long)nj * B.panel_stride();
    const int nn = std::min(NR, N - nj * NR);
    for (int pi = 0; pi * MR < M; ++pi) {
      const uint16_t* ap = a_store.data() + (long)pi * kp * MR * 2;
      float* c = C + (long)pi * MR * ldc + nj * NR;
      const int mm = std::min(MR, M - pi * MR);
      if (fast)
        bf16_gemm_detail::tile_avx512bf16(c, ldc, ap, bp, kp, mm, nn, accumulate);
      else
        bf16_gemm_detail::tile_scalar(c, ldc, ap, bp, kp, mm, nn, accumulate);
    }
  }
}

}  // namespace llm0
