// Prefill and timed greedy decode for the lessons. See lesson_decode.h.
#include "lesson/lesson_decode.h"

#include <algorithm>
#include <chrono>

namespace llm0::lesson {

ModelCache prefilled_cache(const Model& m, InferContext& ctx, int n, int G) {
  const int V = m.config().vocab_size;
  std::vector<int> prompt((size_t)n);
  for (int i = 0; i < n; ++i) prompt[(size_t)i] = (i * 37 + 11) % V;
  std::vector<float> logits((size_t)V);
  ModelCache cache = m.new_cache(n + G);
  m.forward_cached(prompt.data(), n, cache, ctx, logits.data(), /*last_only=*/true);
  return cache;
}

double decode_ms_per_token(const Model& m, InferContext& ctx, ModelCache& cache, int G) {
  std::vector<float> logits((size_t)m.config().vocab_size);
  int tok = 1;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < G; ++i) {
    m.forward_cached(&tok, 1, cache, ctx, logits.data(), true);
    tok = (int)(std::max_element(logits.begin(), logits.end()) - logits.begin());
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return 1e3 * s / G;
}

}  // namespace llm0::lesson
