// Naive double-precision reference of the embedding lookup (torch.nn.Embedding):
// y[n, :] = W[ids[n], :], W [V, C], ids [N], y [N, C] (same layouts as ops/embedding.h).
#pragma once

namespace llm0::ref {

/// y [N, C] = rows of W [V, C] picked by ids [N]. Throws llm0::Error for an id outside [0, V).
void embedding_forward(double* y, const int* ids, const double* W, int N, int C, int V);

}  // namespace llm0::ref
