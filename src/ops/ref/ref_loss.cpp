// Naive cross-entropy in double. See ref_loss.h.
#include "ops/ref/ref_loss.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"

namespace llm0::ref {

double cross_entropy_forward(double* losses, const double* logits, const int* targets, int N,
                             int V, long* count) {
  double total = 0;
  long used = 0;
  for (int n = 0; n < N; ++n) {
    LLM0_CHECK(targets[n] < V, "ref cross_entropy: target {} at row {} >= vocab_size={}",
               targets[n], n, V);
    double l = 0;
    if (targets[n] >= 0) {
      const double* z = logits + (long)n * V;
      const double mx = *std::max_element(z, z + V);  // shift for exp overflow only
      double s = 0;
      for (int v = 0; v < V; ++v) s += std::exp(z[v] - mx);
      l = mx + std::log(s) - z[targets[n]];
      ++used;
    }
    if (losses) losses[n] = l;
    total += l;
  }
  if (count) *count = used;
  return total;
}

}  // namespace llm0::ref
