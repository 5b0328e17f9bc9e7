// RMSNorm and LayerNorm forward/backward. See norm.h and docs/derivations/norm.md.
#include "ops/norm.h"

#include <cmath>

namespace llm0 {

void rmsnorm_forward(float* y, float* rstd, const float* x, const float* w, int N, int C,
                     float eps) {
#pragma omp parallel for schedule(static) if (N > 16)
  for (int n = 0; n < N; ++n) {
    const float* xr = x + (long)n * C;
    float* yr = y + (long)n * C;
    double ss = 0;  // sum of squares in double: C can be thousands
    for (int c = 0; c < C; ++c) ss += (double)xr[c] * xr[c];
    const float r = (float)(1.0 / std::sqrt(ss / C + eps));
    for (int c = 0; c < C; ++c) yr[c] = xr[c] * r * w[c];
    if (rstd) rstd[n] = r;
  }
}

// y_c = x_c r w_c with r = (mean(x²)+eps)^-1/2. With g_c = dy_c w_c:
// dx_c = r g_c - r³ x_c (Σ_j g_j x_j) / C.
void rmsnorm_backward(float* dx, float* dw, const float* dy, const float* x, const float* w,
                      const float* rstd, int N, int C) {
#pragma omp parallel for schedule(static) if (N > 16)
  for (int n = 0; n < N; ++n) {
    const float* xr = x + (long)n * C;
    const float* dyr = dy + (long)n * C;
    float* dxr = dx + (long)n * C;
    const float r = rstd[n];
    double dot = 0;
    for (int c = 0; c < C; ++c) dot += (double)dyr[c] * w[c] * xr[c];
    const float k = (float)(dot * r * r * r / C);
    for (int c = 0; c < C; ++c) dxr[c] = r * dyr[c] * w[c] - k * xr[c];
  }
  // dw_c += Σ_n dy_nc x_nc r_n — columns are independent, so parallelise over c.
#pragma omp parallel for schedule(static) if ((long)N * C > 65536)
  for (int c = 0; c < C; ++c) {
    double acc = 0;
    for (int n = 0; n < N; ++n) acc += (double)dy[(long)n * C + c] * x[(long)n * C + c] * rstd[n];
    dw[c] += (float)acc;
  }
}

void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* w,
                       const float* b, int N, int C, float eps) {
#pragma omp parallel for schedule(static) if (N > 16)
  for (int n = 0; n < N; ++n) {
    const float* xr = x + (long)n * C;
    float* yr = y + (long)n * C;
    double s = 0;
    for (int c = 0; c < C; ++c) s += xr[c];
    const double m = s / C;
    double v = 0;
    for (int c = 0; c < C; ++c) v += (xr[c] - m) * (xr[c] - m);
    const float r = (float)(1.0 / std::sqrt(v / C + eps));
    for (int c = 0; c < C; ++c) yr[c] = (float)(xr[c] - m) * r * w[c] + b[c];
    if (mean) mean[n] = (float)m;
    if (rstd) rstd[n] = r;
  }
}

// With xhat = (x - m) r and g = dy w: dx = r (g - mean(g) - xhat mean(g xhat)).
void layernorm_backward(float* dx, float* dw, float* db, const float* dy, const float* x,
                        const float* w, const float* mean, const float* rstd, int N, int C) {
#pragma omp parallel for schedule(static) if (N > 16)
  for (int n = 0; n < N; ++n) {
    const float* xr = x + (long)n * C;
    const float* dyr = dy + (long)n * C;
    float* dxr = dx + (long)n * C;
    const float m = mean[n], r = rstd[n];
    double sg = 0, sgx = 0;
    for (int c = 0; c < C; ++c) {
      const double g = (double)dyr[c] * w[c];
      sg += g;
      sgx += g * (xr[c] - m) * r;
    }
    const float mg = (float)(sg / C), mgx = (float)(sgx / C);
    for (int c = 0; c < C; ++c) dxr[c] = r * (dyr[c] * w[c] - mg - (xr[c] - m) * r * mgx);
  }
#pragma omp parallel for schedule(static) if ((long)N * C > 65536)
  for (int c = 0; c < C; ++c) {
    double aw = 0, ab = 0;
    for (int n = 0; n < N; ++n) {
      const long i = (long)n * C + c;
      aw += (double)dy[i] * (x[i] - mean[n]) * rstd[n];
      ab += dy[i];
    }
    dw[c] += (float)aw;
    db[c] += (float)ab;
  }
}

}  // namespace llm0
