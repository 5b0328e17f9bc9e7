// BF16 GEMM driver: blocking, packing (the rounding to bf16 happens here) and the thread split.
// See bf16_gemm.h. Blocking (BLIS-style): K in blocks of KC; B is packed into k-pair panels of NR
// columns per K block up front (shared by the team), then each task — a block of MC rows of A —
// packs its rows into panels of MR (into the thread's own buffer) and runs its MR × NR tiles
// against every B panel, K block by K block: the task's A (MC × K bf16) stays in L2, the B panel
// slice of a K block (NR × KC bf16 = 16 KiB) in L1 across the block's MC / MR tiles.
#include "ops/bf16_gemm.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "core/check.h"
#include "core/cpu_features.h"
#include "ops/bf16_gemm_kernel.h"

namespace llm0 {

namespace {
using bf16_gemm_detail::MR;
using bf16_gemm_detail::NR;
constexpr int KC = 256;  // k per block (even)
constexpr int MC = 96;   // rows of A per task at most (MC / MR panels)
constexpr int PACK_ROWS = 64;  // rows per packing call: a transposed source row's 4 cache lines

// Packs rows [r0, r0 + rows) × k [k0, k0 + kc) of X into panels of P rows (zero-padded),
// PACK_ROWS rows per call: shared by the team (`omp for`, no barrier) or, serial, all on the
// calling thread.
void pack(uint16_t* dst, GemmOperand X, int r0, int rows, int k0, int kc, int P, bool fast,
          bool serial) {
  const int kp = (kc + 1) / 2, G = std::max(1, PACK_ROWS / P);  // panels per call
  const int calls = (rows + G * P - 1) / (G * P);
  auto one = [&](int c) {
    uint16_t* d = dst + (long)c * G * kp * P * 2;
    const int r = c * G * P, n = std::min(G * P, rows - r);
    if (fast)
      bf16_gemm_detail::pack_avx512bf16(d, X, r0 + r, n, k0, kc, P);
    else
      bf16_gemm_detail::pack_scalar(d, X, r0 + r, n, k0, kc, P);
  };
  if (serial) {
    for (int c = 0; c < calls; ++c) one(c);
    return;
  }
#pragma omp for schedule(static) nowait
  for (int c = 0; c < calls; ++c) one(c);
}
}  // namespace

bool gemm_bf16_fast() { return kernel_isa() == Isa::Avx512Bf16; }

void gemm_bf16(float* C, long ldc, GemmOperand A, GemmOperand B, int M, int N, int K,
               bool accumulate) {
  const GemmOut out{C, ldc, B, N, accumulate};
  gemm_bf16_shared_a(A, M, K, {&out, 1});
}

void gemm_bf16_shared_a(GemmOperand A, int M, int K, std::span<const GemmOut> outs) {
  if (M <= 0) return;
  if (K <= 0) {
    for (const GemmOut& o : outs)
      if (!o.accumulate)
        for (int m = 0; m < M; ++m) std::fill(o.C + m * o.ldc, o.C + m * o.ldc + std::max(o.N, 0), 0.0f);
    return;
  }
  const bool fast = gemm_bf16_fast();
  // B panels of every product numbered one after another: product j owns [first[j], first[j + 1]).
  constexpr int kMaxOuts = 8;
  LLM0_CHECK(outs.size() <= (size_t)kMaxOuts, "gemm_bf16_shared_a: {} products, at most {}",
             outs.size(), kMaxOuts);
  int first[kMaxOuts + 1] = {0};
  for (size_t j = 0; j < outs.size(); ++j)
    first[j + 1] = first[j] + (std::max(outs[j].N, 0) + NR - 1) / NR;
  const int nouts = (int)outs.size(), a_panels = (M + MR - 1) / MR, b_panels = first[nouts];
  // Inside another parallel region (attention's per-head products) or at one thread, everything
  // runs on the calling thread, with no (nested, one-thread) team started per call.
  const bool serial = omp_in_parallel() || omp_get_max_threads() == 1;
  // Row blocks of MC rows; in a team, fewer where that leaves under 4 blocks per thread (k/v's
  // dW has 256 rows: 3 blocks of 96 would keep one of 2 threads idle a third of the time).
  const int team = serial ? 1 : omp_get_max_threads();
  const int mc_panels =
      team == 1 ? MC / MR : std::clamp((a_panels + 4 * team - 1) / (4 * team), 1, MC / MR);
  const int m_tasks = (a_panels + mc_panels - 1) / mc_panels;
  const int kblocks = (K + KC - 1) / KC;
  const long b_block = (long)b_panels * NR * KC;  // per K block
  // B (every K block) is packed before any tile runs, so the product has one barrier: with more
  // threads than free cores (a busy machine) each barrier costs a time slice. A is packed by the
  // task that uses it, one row block at a time, into the thread's own buffer (MC × K bf16: it
  // stays in L2 while the block's tiles read it; packed whole, the A of 2048 tokens went out to
  // L3 and came back). thread_local: inside the parallel region each worker's own; the shared B
  // is read through the pointer. Grown only: a resize that shrinks and then grows again
  // zero-fills the new part (a memset per call where products of different sizes alternate, as
  // attention's per-head ones do).
  thread_local std::vector<uint16_t> b_store;
  if (b_store.size() < (size_t)(b_block * kblocks)) b_store.resize((size_t)(b_block * kblocks));
  uint16_t* const Bp = b_store.data();
  const long a_block = (long)mc_panels * MR * KC;  // one row block's panels per K block
  auto pack_b_all = [&] {
    for (int kb = 0; kb < kblocks; ++kb) {
      const int k0 = kb * KC, kc = std::min(KC, K - k0), kp = (kc + 1) / 2;
      for (int j = 0; j < nouts; ++j)
        pack(Bp + kb * b_block + (long)first[j] * kp * NR * 2, outs[j].B, 0, outs[j].N, k0, kc,
             NR, fast, serial);
    }
  };
  // Task t: rows [t·MC, (t + 1)·MC) of A, packed here, against every B panel.
  auto task = [&](int t) {
    thread_local std::vector<uint16_t> a_store;
    if (a_store.size() < (size_t)(a_block * kblocks)) a_store.resize((size_t)(a_block * kblocks));
    uint16_t* const Ap = a_store.data();
    const int p0 = t * mc_panels, p_end = std::min(a_panels, p0 + mc_panels);
    const int r0 = p0 * MR, rows = std::min(M, p_end * MR) - r0;
    for (int kb = 0; kb < kblocks; ++kb) {
      const int k0 = kb * KC, kc = std::min(KC, K - k0);
      pack(Ap + kb * a_block, A, r0, rows, k0, kc, MR, fast, /*serial=*/true);
    }
    for (int nj = 0; nj < b_panels; ++nj) {
      int j = 0;
      while (nj >= first[j + 1]) ++j;
      const GemmOut& o = outs[j];
      const int n0 = (nj - first[j]) * NR, nn = std::min(NR, o.N - n0);
      for (int kb = 0; kb < kblocks; ++kb) {
        const int kc = std::min(KC, K - kb * KC), kp = (kc + 1) / 2;
        const uint16_t* bp = Bp + kb * b_block + (long)nj * kp * NR * 2;
        for (int pi = p0; pi < p_end; ++pi) {
          const int m0 = pi * MR, mm = std::min(MR, M - m0);
          const uint16_t* ap = Ap + kb * a_block + (long)(pi - p0) * kp * MR * 2;
          float* c = o.C + m0 * o.ldc + n0;
          const bool acc = o.accumulate || kb > 0;
          if (fast)
            bf16_gemm_detail::tile_avx512bf16(c, o.ldc, ap, bp, kp, mm, nn, acc);
          else
            bf16_gemm_detail::tile_scalar(c, o.ldc, ap, bp, kp, mm, nn, acc);
        }
      }
    }
  };
  if (serial) {
    pack_b_all();
    for (int t = 0; t < m_tasks; ++t) task(t);
    return;
  }
#pragma omp parallel
  {
    pack_b_all();
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
    for (int t = 0; t < m_tasks; ++t) task(t);
  }
}

}  // namespace llm0
