// BF16 GEMM driver: blocking, packing (the rounding to bf16 happens here) and the thread split.
// See bf16_gemm.h. Blocking (BLIS-style): K in blocks of KC; both operands are packed into k-pair
// panels per K block (A: MR rows, B: NR columns, zero-padded), then each task (MC rows × one B
// panel) runs its MR × NR tiles block by block: per K block the task's A slices (12 × 4 KiB)
// stay in L1/L2 and its B panel slice (NR × KC bf16 = 16 KiB) in L1.
#include "ops/bf16_gemm.h"

#include <algorithm>
#include <vector>

#include "core/cpu_features.h"
#include "ops/bf16_gemm_kernel.h"

namespace llm0 {

namespace {
using bf16_gemm_detail::MR;
using bf16_gemm_detail::NR;
constexpr int KC = 256;  // k per block (even)
constexpr int MC = 96;   // rows of A per thread task (MC / MR panels)

// Packs the first `rows` rows × k [k0, k0 + kc) of X into panels of P rows (zero-padded).
void pack(uint16_t* dst, GemmOperand X, int rows, int k0, int kc, int P, bool fast) {
  const int kp = (kc + 1) / 2, panels = (rows + P - 1) / P;
#pragma omp for schedule(static) nowait
  for (int pi = 0; pi < panels; ++pi) {
    uint16_t* d = dst + (long)pi * kp * P * 2;
    const int r0 = pi * P, n = std::min(P, rows - r0);
    if (fast)
      bf16_gemm_detail::pack_avx512bf16(d, X, r0, n, k0, kc, P);
    else
      bf16_gemm_detail::pack_scalar(d, X, r0, n, k0, kc, P);
  }
}
}  // namespace

bool gemm_bf16_fast() { return kernel_isa() == Isa::Avx512Bf16; }

void gemm_bf16(float* C, long ldc, GemmOperand A, GemmOperand B, int M, int N, int K,
               bool accumulate) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int m = 0; m < M; ++m) std::fill(C + m * ldc, C + m * ldc + N, 0.0f);
    return;
  }
  const bool fast = gemm_bf16_fast();
  const int a_panels = (M + MR - 1) / MR, b_panels = (N + NR - 1) / NR;
  const int mc_panels = MC / MR, m_tasks = (a_panels + mc_panels - 1) / mc_panels;
  const int kblocks = (K + KC - 1) / KC;
  const long a_block = (long)a_panels * MR * KC, b_block = (long)b_panels * NR * KC;  // per K block
  // Both operands packed whole (every K block) before any tile runs, so the product has one
  // barrier: with more threads than free cores (a busy machine) each barrier costs a time slice.
  // (thread_local: a name inside the parallel region would mean each worker's own copy, so the
  // region reads them through the pointers.)
  thread_local std::vector<uint16_t> a_store, b_store;
  a_store.resize((size_t)(a_block * kblocks));
  b_store.resize((size_t)(b_block * kblocks));
  uint16_t* const Ap = a_store.data();
  uint16_t* const Bp = b_store.data();
#pragma omp parallel
  {
    for (int kb = 0; kb < kblocks; ++kb) {
      const int k0 = kb * KC, kc = std::min(KC, K - k0);
      pack(Ap + kb * a_block, A, M, k0, kc, MR, fast);
      pack(Bp + kb * b_block, B, N, k0, kc, NR, fast);
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1) collapse(2)
    for (int t = 0; t < m_tasks; ++t)
      for (int nj = 0; nj < b_panels; ++nj) {
        const int n0 = nj * NR, nn = std::min(NR, N - n0);
        const int p_end = std::min(a_panels, (t + 1) * mc_panels);
        for (int kb = 0; kb < kblocks; ++kb) {
          const int kc = std::min(KC, K - kb * KC), kp = (kc + 1) / 2;
          const uint16_t* bp = Bp + kb * b_block + (long)nj * kp * NR * 2;
          for (int pi = t * mc_panels; pi < p_end; ++pi) {
            const int m0 = pi * MR, mm = std::min(MR, M - m0);
            const uint16_t* ap = Ap + kb * a_block + (long)pi * kp * MR * 2;
            float* c = C + m0 * ldc + n0;
            if (fast)
              bf16_gemm_detail::tile_avx512bf16(c, ldc, ap, bp, kp, mm, nn, accumulate || kb > 0);
            else
              bf16_gemm_detail::tile_scalar(c, ldc, ap, bp, kp, mm, nn, accumulate || kb > 0);
          }
        }
      }
  }
}

}  // namespace llm0
