// Embedding lookup. See embedding.h.
#include "ops/embedding.h"

#include <cstring>

#include "core/check.h"

namespace llm0 {

void embedding_forward(float* y, const int* ids, const float* W, int N, int C, int V) {
  for (int n = 0; n < N; ++n)
    LLM0_CHECK(ids[n] >= 0 && ids[n] < V, "token id {} at position {} is outside [0, vocab_size={})",
               ids[n], n, V);
  for (int n = 0; n < N; ++n)
    std::memcpy(y + (long)n * C, W + (long)ids[n] * C, sizeof(float) * C);
}

void embedding_backward(float* dW, const float* dy, const int* ids, int N, int C) {
  // Serial over n: two positions may share a token id (a race if split across threads).
  for (int n = 0; n < N; ++n) {
    float* row = dW + (long)ids[n] * C;
    const float* g = dy + (long)n * C;
    for (int c = 0; c < C; ++c) row[c] += g[c];
  }
}

}  // namespace llm0
