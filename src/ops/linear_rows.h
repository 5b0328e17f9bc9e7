// Row-independent linear map for the serving engine's batched forward: y = x · Wᵀ + b where every
// output y[n, o] is accumulated in one fixed order — a 16-lane partial sum over the 16-number
// blocks in order, the lanes reduced by simd::sum's fixed tree, then the last I mod 16 products
// one by one — so a token row's result is bitwise the same whatever other rows share the call
// (N), how the rows are tiled or split among threads. OpenBLAS's sgemm gives no such promise (its
// kernel and thread split depend on M). One row: each W row read front to back (the decode
// matvec's access); more rows: tiles of 4 W rows × 4 x rows sharing their loads, so W streams
// once per call for up to 64 rows (the point of batching decode steps). W float32 or BF16 (widened in registers,
// exact; products accumulated in float32). Portable: GCC vector extensions (core/simd.h); a
// build for a baseline without AVX2 also compiles AVX-512 and AVX2 + FMA versions, chosen at run
// time from the CPU (GCC target_clones).
// Layouts (row-major): x [N, I], W [O, I] (PyTorch [out_features, in_features]), b [O], y [N, O].
#pragma once

#include "ops/weight.h"

namespace llm0 {

/// y[N, O] = x[N, I] · W[O, I]ᵀ + b[O] (b may be null), each element in the fixed order above.
/// Threads split the W rows (never an element's sum).
void linear_rows(float* y, const float* x, Weight W, const float* b, int N, int I, int O);

/// While an instance lives, linear_forward, linear_forward_group and matvec called from this
/// thread run linear_rows (the serving engine's determinism: the Block / MLP / MoE code of the
/// single-sequence path then computes every token row independently of the batch). Nests.
class RowIndependentLinear {
 public:
  RowIndependentLinear();
  ~RowIndependentLinear();
  RowIndependentLinear(const RowIndependentLinear&) = delete;
  RowIndependentLinear& operator=(const RowIndependentLinear&) = delete;

 private:
  bool previous_;
};

/// Whether a RowIndependentLinear is alive on this thread.
bool row_independent_linear();

}  // namespace llm0
