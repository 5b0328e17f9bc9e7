// Float32 matrix products shared out over the OpenMP team by rows, each piece one
// single-threaded OpenBLAS sgemm. Why not let OpenBLAS thread them: on training's shapes
// (2,048 tokens × 128–4,096 × 384–1,536) OpenBLAS's own two-thread sgemm ran at 0.64–0.98 of its
// two-thread rate on a square 2,048³ product; the same products as one row block per thread, or
// backward's dX and dW side by side, one per thread, ran at 0.84–1.04 of it (docs/performance.md,
// "Fifth pass").
// Pieces run inside an OpenMP parallel region, where Debian's OpenMP build of OpenBLAS runs
// single-threaded and chooses its kernel as at one thread; every piece is large enough
// (kMinPieceMnk) for OpenBLAS's blocked kernel and starts on its tile grid (kRowAlign), so an
// element's order of summation does not depend on how the rows are split: C holds the same bits
// whatever the thread count.
#pragma once

#include <span>

namespace llm0 {

/// One product C[M, N] = A'·B' + beta·C in BLAS terms (row-major): A' = A [M, K] (trans_a false,
/// row stride lda) or the transpose of A [K, M] (trans_a true); B' = B [K, N] or the transpose of
/// B [N, K] (trans_b true); C row stride ldc. alpha is 1.
struct Sgemm {
  bool trans_a = false, trans_b = false;
  int M = 0, N = 0, K = 0;
  const float* A = nullptr;
  int lda = 0;
  const float* B = nullptr;
  int ldb = 0;
  float beta = 0.0f;
  float* C = nullptr;
  int ldc = 0;
};

/// Pieces start at multiples of this many rows of C. OpenBLAS tiles C's rows (its column-major
/// N) in steps of its kernel's unroll counted from each call's first row, and the kernel that
/// handles a partial tile sums in another order: a cut off that grid changes bits (Haswell's
/// sgemm, whose step is 12: a 1,000-row product cut at row 448 changed 7,119 elements, cut at 444
/// none). 48 = lcm(12, 16) covers the steps of OpenBLAS 0.3.21's x86-64 kernels (2 to 16;
/// tests/test_ops_sgemm_team.cpp passes under each of its cores a Zen 4 can run — 14 of them, from
/// Prescott to Cooperlake; the FMA4 cores, Opteron and Bulldozer to Excavator, stop there with
/// an illegal instruction).
inline constexpr int kRowAlign = 48;

/// The smallest piece (M·N·K of one call) sgemm_team hands to a thread: above OpenBLAS 0.3.21's
/// thresholds for its small-matrix and "direct" sgemm kernels (10⁶ and 28·512² ≈ 7.3·10⁶, the
/// latter for a single-threaded call), which sum in another order than its blocked kernel.
inline constexpr long kMinPieceMnk = 8L << 20;

/// Runs the products (independent: no product's C overlaps another product's C or operands) on
/// the calling thread's OpenMP team. Their M·N·K work is cut into equal shares, one per thread;
/// a cut inside a product splits its rows of C (at a multiple of kRowAlign, leaving no piece under
/// kMinPieceMnk: a small product goes whole to one thread), so a thread may run the tail of one
/// product and the head of the next — at two threads, backward's dX and dW (equal work) run side
/// by side. With one thread, or called inside a parallel region, the products run one after
/// another. Either way C holds the bits of one cblas_sgemm per product at one thread (see the
/// header). Throws only std::bad_alloc.
void sgemm_team(std::span<const Sgemm> products);

}  // namespace llm0
