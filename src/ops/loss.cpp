// Cross-entropy. See loss.h.
#include "ops/loss.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/simd.h"

namespace llm0 {

namespace {
constexpr int W = simd::kWidth;

// log Σ_v e^{z_v}, shifted by the row max; e^x vectorized (simd::exp), the sum in 16 float lanes.
// The shift and the sum go to *max and *sum when given.
double row_logsumexp(const float* z, int V, float* max = nullptr, double* sum = nullptr) {
  const float mx = simd::max_of(z, V);
  const double s = simd::sum_exp(z, V, mx);
  if (max) *max = mx, *sum = s;
  return mx + std::log(s);
}
}  // namespace

double cross_entropy_forward(float* losses, const float* logits, const int* targets, int N, int V,
                             long* count, SoftmaxRows rows) {
  for (int n = 0; n < N; ++n)
    LLM0_CHECK(targets[n] < V, "target id {} at row {} >= vocab_size={}", targets[n], n, V);
  // Rows in parallel, their losses summed in row order afterwards: the total does not depend on
  // the number of threads (an OpenMP reduction adds partial sums in arrival order).
  std::vector<double> row_loss((size_t)N, 0.0);
#pragma omp parallel for schedule(static) if (N > 8)
  for (int n = 0; n < N; ++n) {
    if (targets[n] < 0) continue;
    const float* z = logits + (long)n * V;
    row_loss[(size_t)n] = row_logsumexp(z, V, rows.max ? rows.max + n : nullptr,
                                        rows.sum ? rows.sum + n : nullptr) - z[targets[n]];
  }
  double total = 0;
  long used = 0;
  for (int n = 0; n < N; ++n) {
    if (losses) losses[n] = (float)row_loss[(size_t)n];
    total += row_loss[(size_t)n];
    used += targets[n] >= 0;
  }
  if (count) *count = used;
  return total;
}

void cross_entropy_backward(float* dlogits, const float* logits, const int* targets, int N, int V,
                            float scale, SoftmaxRows rows) {
#pragma omp parallel for schedule(static) if (N > 8)
  for (int n = 0; n < N; ++n) {
    const float* z = logits + (long)n * V;
    float* dz = dlogits + (long)n * V;
    if (targets[n] < 0) {
      std::fill_n(dz, V, 0.0f);
      continue;
    }
    // p_v = e^{z_v - max} / Σ e^{z_u - max}: z_v - max is exact (or rounded relative to itself)
    // whatever the logit magnitude, unlike z_v - logsumexp rounded to float, whose rounding
    // error grows with |z| (at |z| ~ 1000 the probabilities summed to 1.00003).
    if (rows.max && rows.sum) {  // the forward's shift and sum: one pass, dz = e^{z - max} · k
      const float mx = rows.max[n], k = (float)(scale / rows.sum[n]);
      for (int v = 0; v < V; v += W) {
        const int lanes = std::min(W, V - v);
        simd::store_part(dz + v, simd::exp(simd::load_part(z + v, lanes) - mx) * k, lanes);
      }
    } else {
      const float mx = simd::max_of(z, V);
      const double s = simd::sum_exp(z, V, mx, dz);  // dz = numerators
      const float k = (float)(scale / s);
      int v = 0;  // dz *= scale / Σ, 16 lanes at a time
      for (; v + W <= V; v += W) simd::store(dz + v, simd::load(dz + v) * k);
      for (; v < V; ++v) dz[v] *= k;
    }
    dz[targets[n]] -= scale;
  }
}

}  // namespace llm0
