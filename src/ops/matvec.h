// Matrix-vector product for decode (one token): y = W · x + b, the N = 1 case of linear_forward.
// A decode step reads every weight once and does 2 FLOPs per 4-byte weight, so its speed is set
// by memory bandwidth, not arithmetic. OpenBLAS's sgemv reads a row-major W at about half the
// machine's read bandwidth here; this kernel walks each row once, front to back, with four
// independent SIMD accumulators (measured: docs/performance-history.md, "What was changed").
// Layouts (row-major): W [O, I] (PyTorch [out_features, in_features]), x [I], b [O], y [O].
#pragma once

#include <span>

#include "ops/weight.h"

namespace llm0 {

/// y[O] = W[O, I] · x[I] + b[O] (b may be null). Rows are split across OpenMP threads.
void matvec(float* y, const float* W, const float* x, const float* b, int O, int I);

/// y[O] = W[O, I] · x[I] + b[O] with W float32 or BF16 (ops/bf16_kernels.h: BF16 rows are read as
/// stored and accumulated in float32).
void matvec(float* y, Weight W, const float* x, const float* b, int O, int I);

/// One output of a group of linear maps that share their input x: y = W[O, I] · x + b (b may be
/// null); y is [O] here and [N, O] in linear_forward_group. W is float32 or BF16.
struct LinearOut {
  float* y;
  Weight W;
  const float* b;
  int O;
};

/// Several products of the same x[I] in one parallel region (q/k/v projections, gate/up):
/// the rows of all targets are split evenly across the threads, so there is one fork/join.
void matvec_group(std::span<const LinearOut> targets, const float* x, int I);

}  // namespace llm0
