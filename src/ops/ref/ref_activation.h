// Naive double-precision reference of the feed-forward activations, elementwise over n values.
// SwiGLU (arXiv:2002.05202 eq. 6; HF LlamaMLP): h = silu(gate) · up, silu(x) = x / (1 + e^-x).
// GELU (arXiv:1606.08415): exact x Φ(x) = 0.5 x (1 + erf(x / √2)) (HF "gelu"), or the tanh form
// 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))) (HF "gelu_new", GPT-2).
#pragma once
#include <cstddef>

namespace llm0::ref {

/// h[n] = silu(gate[n]) · up[n].
void swiglu_forward(double* h, const double* gate, const double* up, size_t n);

/// y[n] = gelu(x[n]); tanh_approx selects the tanh form.
void gelu_forward(double* y, const double* x, size_t n, bool tanh_approx);

}  // namespace llm0::ref
