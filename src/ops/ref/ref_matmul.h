// Naive double-precision reference of the linear layer (PyTorch nn.Linear): y = x · Wᵀ + b.
// Same layouts as ops/matmul.h: x [N, I], W [O, I], b [O], y [N, O] (row-major, outermost first).
// Plain loops, no BLAS: used only by tests and `llm0 check` to judge the fast ops.
#pragma once

namespace llm0::ref {

/// y[n, o] = Σ_i x[n, i] W[o, i] + b[o] (b may be null), every sum in double.
void linear_forward(double* y, const double* x, const double* W, const double* b, int N, int I,
                    int O);

}  // namespace llm0::ref
