// RMSNorm and LayerNorm forward/backward. See norm.h and docs/derivations/norm.md.
#include "ops/norm.h"

#include <omp.h>

#include <cmath>
#include <vector>

#include "core/simd.h"

namespace llm0 {

void rmsnorm_forward(float* y, float* rstd, const float* x, const float* w, int N, int C,
                     float eps) {
#pragma omp parallel for schedule(static) if (N > 16)
  for (int n = 0; n < N; ++n) {
    const float* xr = x + (long)n * C;
    float* yr = y + (long)n * C;
    const double ss = simd::dot_f64(xr, xr, C);  // sum of squares in double: C can be thousands
    const float r = (float)(1.0 / std::sqrt(ss / C + eps));
    for (int c = 0; c < C; ++c) yr[c] = xr[c] * r * w[c];
    if (rstd) rstd[n] = r;
  }
}

namespace {
// Runs row(n, acc) for every row n in [0, N) and adds the column sums it accumulates into
// outs[k][c] (K outputs of C columns: dw, db). Each thread takes a contiguous block of rows, reads
// every row once (rows are contiguous; a column-wise pass strides by C) and sums into its own
// double buffer [K, C]; the buffers are added in thread order, so the result does not depend on
// timing, only on the thread count.
template <int K, class RowFn>
void rows_with_column_sums(int N, int C, float* const (&outs)[K], RowFn row) {
  const int T = N > 16 ? omp_get_max_threads() : 1;
  std::vector<double> part((size_t)T * K * C, 0.0);
#pragma omp parallel num_threads(T)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    double* acc = part.data() + (size_t)t * K * C;
    for (int n = (int)((long)N * t / nt); n < (int)((long)N * (t + 1) / nt); ++n) row(n, acc);
  }
  for (int k = 0; k < K; ++k)
    for (int c = 0; c < C; ++c) {
      double sum = 0;
      for (int t = 0; t < T; ++t) sum += part[((size_t)t * K + k) * C + c];
      outs[k][c] += (float)sum;  // one rounding, as with a single thread
    }
}
}  // namespace

// y_c = x_c r w_c with r = (mean(x²)+eps)^-1/2. With g_c = dy_c w_c:
// dx_c = r g_c - r³ x_c (Σ_j g_j x_j) / C;  dw_c += Σ_n dy_nc x_nc r_n.
void rmsnorm_backward(float* dx, float* dw, const float* dy, const float* x, const float* w,
                      const float* rstd, int N, int C) {
  float* const outs[1] = {dw};
  rows_with_column_sums(N, C, outs, [&](int n, double* acc_dw) {
    const float* xr = x + (long)n * C;
    const float* dyr = dy + (long)n * C;
    float* dxr = dx + (long)n * C;
    const float r = rstd[n];
    const double dot = simd::dot_f64(dyr, xr, C, w);  // Σ_c dy_c w_c x_c
    const float k = (float)(dot * r * r * r / C);
    for (int c = 0; c < C; ++c) {
      dxr[c] = r * dyr[c] * w[c] - k * xr[c];
      acc_dw[c] += (double)(dyr[c] * xr[c] * r);
    }
  });
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

// With xhat = (x - m) r and g = dy w: dx = r (g - mean(g) - xhat mean(g xhat));
// dw_c += Σ_n dy_nc xhat_nc, db_c += Σ_n dy_nc.
void layernorm_backward(float* dx, float* dw, float* db, const float* dy, const float* x,
                        const float* w, const float* mean, const float* rstd, int N, int C) {
  float* const outs[2] = {dw, db};
  rows_with_column_sums(N, C, outs, [&](int n, double* acc) {
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
    for (int c = 0; c < C; ++c) {
      const float xhat = (xr[c] - m) * r;
      dxr[c] = r * (dyr[c] * w[c] - mg - xhat * mgx);
      acc[c] += (double)(dyr[c] * xhat);
      acc[C + c] += (double)dyr[c];
    }
  });
}

}  // namespace llm0
