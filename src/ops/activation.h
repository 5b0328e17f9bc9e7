// Feed-forward activations, elementwise over n values.
// SwiGLU (Shazeer, arXiv:2002.05202, eq. 6; HF LlamaMLP): h = silu(gate) ⊙ up, silu(x) = x σ(x).
// GELU (Hendrycks & Gimpel, arXiv:1606.08415): exact erf form (HF "gelu") or the tanh
// approximation (HF "gelu_new" / "gelu_pytorch_tanh", GPT-2):
//   0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))).
// Gradients are overwritten (activations are not parameters).
#pragma once
#include <cstddef>

namespace llm0 {

/// h[n] = silu(gate[n]) · up[n].
void swiglu_forward(float* h, const float* gate, const float* up, size_t n);
/// dgate, dup (overwritten) from dh and the forward inputs.
void swiglu_backward(float* dgate, float* dup, const float* dh, const float* gate, const float* up,
                     size_t n);
/// The same over N rows of F values whose gate and up rows lie `ld` floats apart (ld ≥ F; the
/// MLP's fused [N, 2F] gate|up product has gate = GU, up = GU + F, ld = 2F); h is [N, F].
void swiglu_forward_rows(float* h, const float* gate, const float* up, int N, int F, long ld);
/// Backward of swiglu_forward_rows: dh [N, F]; dgate, dup (overwritten) at row stride ld.
void swiglu_backward_rows(float* dgate, float* dup, const float* dh, const float* gate,
                          const float* up, int N, int F, long ld);

/// y[n] = gelu(x[n]); tanh_approx selects GPT-2's tanh form.
void gelu_forward(float* y, const float* x, size_t n, bool tanh_approx);
/// dx (overwritten) = dy · gelu'(x).
void gelu_backward(float* dx, const float* dy, const float* x, size_t n, bool tanh_approx);

}  // namespace llm0
