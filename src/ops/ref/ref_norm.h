// Naive double-precision reference of RMSNorm and LayerNorm over the last dim C of x [N, C].
// RMSNorm (arXiv:1910.07467; HF LlamaRMSNorm): y = x / sqrt(mean(x²) + eps) · w.
// LayerNorm (arXiv:1607.06450; torch.nn.LayerNorm): y = (x - mean) / sqrt(var + eps) · w + b,
// biased variance computed in two passes. Same layouts as ops/norm.h: x, y [N, C]; w, b [C].
#pragma once

namespace llm0::ref {

/// y [N, C] = RMSNorm of x [N, C] with weight w [C] and epsilon eps.
void rmsnorm_forward(double* y, const double* x, const double* w, int N, int C, double eps);

/// y [N, C] = LayerNorm of x [N, C] with weight w [C], bias b [C] and epsilon eps.
void layernorm_forward(double* y, const double* x, const double* w, const double* b, int N, int C,
                       double eps);

}  // namespace llm0::ref
