// Naive embedding lookup. See ref_embedding.h.
#include "ops/ref/ref_embedding.h"

#include "core/check.h"

namespace llm0::ref {

void embedding_forward(double* y, const int* ids, const double* W, int N, int C, int V) {
  for (int n = 0; n < N; ++n) {
    LLM0_CHECK(ids[n] >= 0 && ids[n] < V, "ref embedding: id {} at position {} outside [0, {})",
               ids[n], n, V);
    for (int c = 0; c < C; ++c) y[(long)n * C + c] = W[(long)ids[n] * C + c];
  }
}

}  // namespace llm0::ref
