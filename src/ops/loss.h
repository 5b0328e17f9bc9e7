// Cross-entropy over the vocabulary (torch.nn.functional.cross_entropy, reduction="sum"):
// loss_n = logsumexp(logits[n, :]) - logits[n, target_n]; rows with target < 0 are ignored
// (HF's ignore_index = -100 convention), contributing 0 loss and 0 gradient.
#pragma once

namespace llm0 {

/// Each row's softmax shift and normaliser, max_v z_v [N] and Σ_v e^{z_v − max} [N] (double), as
/// the forward computes them: the backward given them skips its max and sum passes over the
/// logits and writes the same bits. Rows with target < 0 are not written.
struct SoftmaxRows {
  float* max = nullptr;
  double* sum = nullptr;
};

/// logits [N, V], targets [N]; losses [N] (may be null). Returns Σ_n loss_n in double and
/// counts the rows used in *count (may be null); fills `rows` when its pointers are given.
/// Throws llm0::Error for a target >= V.
double cross_entropy_forward(float* losses, const float* logits, const int* targets, int N, int V,
                             long* count, SoftmaxRows rows = {});

/// dlogits [N, V] = scale · (softmax(logits) - onehot(target)) (overwritten; may alias logits).
/// scale is ∂L/∂loss_n, e.g. 1 / (number of target tokens) for a mean. `rows`, when given, is
/// what cross_entropy_forward saved for these logits.
void cross_entropy_backward(float* dlogits, const float* logits, const int* targets, int N, int V,
                            float scale, SoftmaxRows rows = {});

}  // namespace llm0
