// Linear layer (PyTorch nn.Linear): y = x · Wᵀ + b, every product through OpenBLAS cblas_sgemm,
// shared out over the threads by rows (ops/sgemm_team.h: a group's products, or backward's dx and
// dW, as one piece of work; the same bits at any thread count).
// Layouts (row-major, outermost first): x [N, I], W [O, I] (PyTorch [out_features, in_features]),
// b [O], y [N, O]. Gradient rule (llm.c): dW and db accumulate (+=); dx is overwritten unless
// `accumulate_dx` is set (used where two branches feed the same input). The caller chooses the
// forward's kernel order (LinearKernel): BLAS (default; training) or ops/linear_rows.h, whose
// per-element order does not depend on N (inference contexts, model/infer_context.h).
// A float32 W with bf16_products set (mixed-precision training, ops/weight.h) runs all three
// products (y = x Wᵀ, dx = dy W, dW += dyᵀ x) through gemm_bf16 (ops/bf16_gemm.h): operands
// rounded to BF16, float32 accumulation; the bias and db stay float32.
#pragma once

#include <span>

#include "ops/matvec.h"

namespace llm0 {

class PackedWeights;

/// How (not what) a forward linear map computes, chosen by its caller (an inference context
/// passes its own; training passes none). fixed_order: every element one chain in a fixed order
/// whatever N (ops/linear_rows.h), read from `panels` (packed beforehand, read-only: the model's
/// store; null: packed per call). Otherwise BLAS sgemm / matvec, whose order depends on N.
struct LinearKernel {
  bool fixed_order = false;
  const PackedWeights* panels = nullptr;
};

/// y[N, O] = x[N, I] · W[O, I]ᵀ + b[O] (b may be null). N = 1 (decode) goes to matvec. W is
/// float32 or BF16; a BF16 W with N >= 4 is widened a panel of rows at a time (each thread its
/// own panels, [P, I] float32 in cache) and multiplied by sgemm, so prefill runs at the float32
/// sgemm's speed while the weights stay BF16 in memory; N < 4 runs N matvecs.
/// With k.fixed_order: linear_rows (ops/linear_rows.h) instead.
void linear_forward(float* y, const float* x, Weight W, const float* b, int N, int I, int O,
                    const LinearKernel& k = {});

/// Several linear maps of the same x[N, I] (q/k/v projections, gate/up): each out.y[N, O] =
/// x · out.Wᵀ + out.b. N = 1 runs them as one matvec_group (one fork/join for all rows); with
/// bf16_products on every W, x is rounded and packed once for all (gemm_bf16_shared_a).
/// With k.fixed_order: one linear_rows per map.
void linear_forward_group(std::span<const LinearOut> outs, const float* x, int N, int I,
                          const LinearKernel& k = {});

/// Backward of linear_forward. dy [N, O]. dx [N, I] = dy · W (overwritten, or += when
/// accumulate_dx; dx may be null to skip); dW [O, I] += dyᵀ · x; db [O] += Σ_n dy (db may be null).
/// W must hold float32 (throws llm0::Error for a BF16 inference weight).
void linear_backward(float* dx, float* dW, float* db, const float* dy, const float* x, Weight W,
                     int N, int I, int O, bool accumulate_dx = false);

}  // namespace llm0
