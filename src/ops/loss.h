// Cross-entropy over the vocabulary (torch.nn.functional.cross_entropy, reduction="sum"):
// loss_n = logsumexp(logits[n, :]) - logits[n, target_n]; rows with target < 0 are ignored
// (HF's ignore_index = -100 convention), contributing 0 loss and 0 gradient.
#pragma once

namespace llm0 {

/// logits [N, V], targets [N]; losses [N] (may be null). Returns Σ_n loss_n in double and
/// counts the rows used in *count (may be null). Throws llm0::Error for a target >= V.
double cross_entropy_forward(float* losses, const float* logits, const int* targets, int N, int V,
                             long* count);

/// dlogits [N, V] = scale · (softmax(logits) - onehot(target)) (overwritten; may alias logits).
/// scale is ∂L/∂loss_n, e.g. 1 / (number of target tokens) for a mean.
void cross_entropy_backward(float* dlogits, const float* logits, const int* targets, int N, int V,
                            float scale);

}  // namespace llm0
