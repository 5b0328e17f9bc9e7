// Embedding lookup (torch.nn.Embedding): y[n, :] = W[ids[n], :], W [V, C], y [N, C].
// Backward scatters: dW[ids[n], :] += dy[n, :] (accumulates, so a tied lm_head adds its share).
#pragma once

namespace llm0 {

/// y [N, C] = rows of W [V, C]. Throws llm0::Error naming the first id outside [0, V).
void embedding_forward(float* y, const int* ids, const float* W, int N, int C, int V);
/// dW [V, C] += scatter of dy [N, C] by ids.
void embedding_backward(float* dW, const float* dy, const int* ids, int N, int C);

}  // namespace llm0
