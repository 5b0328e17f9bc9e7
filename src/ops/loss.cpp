// Cross-entropy. See loss.h.
#include "ops/loss.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"

namespace llm0 {

namespace {
double row_logsumexp(const float* z, int V) {
  float mx = -INFINITY;
  for (int v = 0; v < V; ++v) mx = std::max(mx, z[v]);
  double s = 0;
  for (int v = 0; v < V; ++v) s += std::exp(z[v] - mx);  // float exp, double sum
  return mx + std::log(s);
}
}  // namespace

double cross_entropy_forward(float* losses, const float* logits, const int* targets, int N, int V,
                             long* count) {
  for (int n = 0; n < N; ++n)
    LLM0_CHECK(targets[n] < V, "target id {} at row {} >= vocab_size={}", targets[n], n, V);
  double total = 0;
  long used = 0;
#pragma omp parallel for schedule(static) reduction(+ : total, used) if (N > 8)
  for (int n = 0; n < N; ++n) {
    double l = 0;
    if (targets[n] >= 0) {
      const float* z = logits + (long)n * V;
      l = row_logsumexp(z, V) - z[targets[n]];
      ++used;
    }
    if (losses) losses[n] = (float)l;
    total += l;
  }
  if (count) *count = used;
  return total;
}

void cross_entropy_backward(float* dlogits, const float* logits, const int* targets, int N, int V,
                            float scale) {
#pragma omp parallel for schedule(static) if (N > 8)
  for (int n = 0; n < N; ++n) {
    const float* z = logits + (long)n * V;
    float* dz = dlogits + (long)n * V;
    if (targets[n] < 0) {
      std::fill_n(dz, V, 0.0f);
      continue;
    }
    const double lse = row_logsumexp(z, V);
    const float l = (float)lse;
    for (int v = 0; v < V; ++v) dz[v] = scale * std::exp(z[v] - l);
    dz[targets[n]] -= scale;
  }
}

}  // namespace llm0
