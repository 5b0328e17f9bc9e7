// Naive double-precision reference of cross-entropy over the vocabulary
// (torch.nn.functional.cross_entropy, reduction="sum", ignore_index = any negative target):
// loss_n = log Σ_v exp(logits[n, v]) - logits[n, target_n]. Layouts: logits [N, V], targets [N].
#pragma once

namespace llm0::ref {

/// losses [N] (may be null; 0 for ignored rows). Returns Σ_n loss_n; *count (may be null) gets
/// the number of rows with target >= 0. Throws llm0::Error for a target >= V.
double cross_entropy_forward(double* losses, const double* logits, const int* targets, int N,
                             int V, long* count);

}  // namespace llm0::ref
