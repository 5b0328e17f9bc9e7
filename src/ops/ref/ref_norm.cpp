// Naive RMSNorm / LayerNorm. See ref_norm.h.
#include "ops/ref/ref_norm.h"

#include <cmath>

namespace llm0::ref {

void rmsnorm_forward(double* y, const double* x, const double* w, int N, int C, double eps) {
  for (int n = 0; n < N; ++n) {
    const double* xr = x + (long)n * C;
    double ss = 0;
    for (int c = 0; c < C; ++c) ss += xr[c] * xr[c];
    const double denom = std::sqrt(ss / C + eps);
    for (int c = 0; c < C; ++c) y[(long)n * C + c] = xr[c] / denom * w[c];
  }
}

void layernorm_forward(double* y, const double* x, const double* w, const double* b, int N, int C,
                       double eps) {
  for (int n = 0; n < N; ++n) {
    const double* xr = x + (long)n * C;
    double s = 0;
    for (int c = 0; c < C; ++c) s += xr[c];
    const double mean = s / C;
    double var = 0;
    for (int c = 0; c < C; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    const double denom = std::sqrt(var / C + eps);
    for (int c = 0; c < C; ++c) y[(long)n * C + c] = (xr[c] - mean) / denom * w[c] + b[c];
  }
}

}  // namespace llm0::ref
