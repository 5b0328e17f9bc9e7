// Depthwise causal convolution over time (the short convolution of Mamba / Gated DeltaNet; HF
// modeling_qwen3_next.py: nn.Conv1d(groups=channels, padding=K−1) cut to the first T outputs,
// i.e. causal_conv1d_fn without its activation). Tap K−1 multiplies the current token:
//   y[b, t, c] = Σ_{j<K} w[c, j] · x[b, t − (K−1) + j, c],
// positions before 0 read `history` (the K−1 inputs before the sequence) or zeros.
// Layouts: x, y [B, T, Cc]; w [Cc, K] (HF conv1d.weight [Cc, 1, K]); history [B, K−1, Cc].
#pragma once

namespace llm0 {

/// y [B, T, Cc] overwritten. history may be null (zeros).
void causal_conv1d_forward(float* y, const float* x, const float* history, const float* w, int B,
                           int T, int Cc, int K);

/// Backward with zero history: dx [B, T, Cc] overwritten; dw [Cc, K] accumulates.
void causal_conv1d_backward(float* dx, float* dw, const float* dy, const float* x, const float* w,
                            int B, int T, int Cc, int K);

}  // namespace llm0
