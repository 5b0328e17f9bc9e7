// Normalisation layers over the last dimension C of x [N, C].
// RMSNorm (Zhang & Sennrich, arXiv:1910.07467; HF LlamaRMSNorm): y = x · rstd · w,
//   rstd = 1 / sqrt(mean(x²) + eps).
// LayerNorm (Ba et al., arXiv:1607.06450; torch.nn.LayerNorm): y = (x - mean) · rstd · w + b,
//   rstd = 1 / sqrt(var(x) + eps) (biased variance).
// Backward derivations: docs/derivations/norm.md. dx is overwritten; dw, db accumulate (+=).
#pragma once

namespace llm0 {

/// y, x: [N, C]; w: [C]; rstd: [N] saved for backward (may be null at inference).
void rmsnorm_forward(float* y, float* rstd, const float* x, const float* w, int N, int C,
                     float eps);
/// dx [N, C] = ∂L/∂x (overwritten); dw [C] += ∂L/∂w. rstd from the forward.
void rmsnorm_backward(float* dx, float* dw, const float* dy, const float* x, const float* w,
                      const float* rstd, int N, int C);

/// y, x: [N, C]; w, b: [C]; mean, rstd: [N] saved for backward (may be null at inference).
void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* w,
                       const float* b, int N, int C, float eps);
/// dx [N, C] overwritten; dw, db [C] accumulate.
void layernorm_backward(float* dx, float* dw, float* db, const float* dy, const float* x,
                        const float* w, const float* mean, const float* rstd, int N, int C);

}  // namespace llm0
