// Cross-entropy. See loss.h.
#include "ops/loss.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "core/simd.h"

namespace llm0 {

namespace {
using simd::f32x16;
constexpr int W = simd::kWidth;

float row_max(const float* z, int V) {
  f32x16 m = simd::splat(-INFINITY);
  int v = 0;
  for (; v + W <= V; v += W) {
    const f32x16 x = simd::load(z + v);
    m = x > m ? x : m;
  }
  float mx = simd::max(m);
  for (; v < V; ++v) mx = std::max(mx, z[v]);
  return mx;
}

// log Σ_v e^{z_v}, shifted by the row max; e^x vectorized (simd::exp), the sum in 16 float lanes.
double row_logsumexp(const float* z, int V) {
  const float mx = row_max(z, V);
  f32x16 acc = {};
  int v = 0;
  for (; v + W <= V; v += W) acc += simd::exp(simd::load(z + v) - mx);
  double s = simd::sum(acc);
  for (; v < V; ++v) s += std::exp(z[v] - mx);
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
    int v = 0;  // softmax · scale, 16 lanes at a time
    for (; v + W <= V; v += W) simd::store(dz + v, scale * simd::exp(simd::load(z + v) - l));
    for (; v < V; ++v) dz[v] = scale * std::exp(z[v] - l);
    dz[targets[n]] -= scale;
  }
}

}  // namespace llm0
