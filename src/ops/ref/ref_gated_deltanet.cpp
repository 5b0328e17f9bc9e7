// Naive double-precision Gated DeltaNet layer. See ref_gated_deltanet.h.
#include "ops/ref/ref_gated_deltanet.h"

#include <cmath>

#include "ops/ref/ref_gated_delta.h"

namespace llm0::ref {

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// y [N, O] = x [N, I] · W [O, I]ᵀ.
std::vector<double> linear(const std::vector<double>& x, const std::vector<double>& W, int N,
                           int I, int O) {
  std::vector<double> y((size_t)N * O, 0.0);
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < O; ++o)
      for (int i = 0; i < I; ++i) y[(size_t)n * O + o] += x[(size_t)n * I + i] * W[(size_t)o * I + i];
  return y;
}

}  // namespace

std::vector<double> gated_deltanet_forward(const std::vector<double>& x,
                                           const GatedDeltaNetParams& p,
                                           const GatedDeltaNetConfig& c, int C, int B, int T,
                                           double eps) {
  const int N = B * T, nk = c.linear_num_key_heads, nv = c.linear_num_value_heads;
  const int dk = c.linear_key_head_dim, dv = c.linear_value_head_dim, r = nv / nk;
  const int K = c.linear_conv_kernel_dim, Cc = c.conv_channels(), P = c.qkvz_rows();
  const std::vector<double> qkvz = linear(x, p.in_proj_qkvz, N, C, P);
  const std::vector<double> ba = linear(x, p.in_proj_ba, N, C, 2 * nv);
  // Channel ch of the conv input, and z, read straight from the grouped projection row.
  auto mixed_at = [&](int n, int ch) {
    const int group = 2 * dk + 2 * r * dv;
    if (ch < nk * dk) return qkvz[(size_t)n * P + (ch / dk) * group + ch % dk];
    if (ch < 2 * nk * dk) {
      const int e = ch - nk * dk;
      return qkvz[(size_t)n * P + (e / dk) * group + dk + e % dk];
    }
    const int e = ch - 2 * nk * dk;  // value channel of head e / dv
    return qkvz[(size_t)n * P + (e / (r * dv)) * group + 2 * dk + e % (r * dv)];
  };
  std::vector<double> act((size_t)N * Cc);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int ch = 0; ch < Cc; ++ch) {
        double s = 0;
        for (int j = 0; j < K; ++j) {
          const int src = t - (K - 1) + j;
          if (src >= 0) s += p.conv1d[(size_t)ch * K + j] * mixed_at(b * T + src, ch);
        }
        act[((size_t)b * T + t) * Cc + ch] = s * sigmoid(s);
      }
  std::vector<double> q((size_t)N * nk * dk), k(q.size()), v((size_t)N * nv * dv);
  std::vector<double> beta((size_t)N * nv), g(beta.size());
  for (int n = 0; n < N; ++n) {
    for (int h = 0; h < nk; ++h)
      for (int part = 0; part < 2; ++part) {
        const double* a = act.data() + (size_t)n * Cc + part * nk * dk + h * dk;
        double ss = 0;
        for (int i = 0; i < dk; ++i) ss += a[i] * a[i];
        const double f = 1.0 / std::sqrt(ss + 1e-6) * (part == 0 ? 1.0 / std::sqrt(dk) : 1.0);
        for (int i = 0; i < dk; ++i) (part == 0 ? q : k)[((size_t)n * nk + h) * dk + i] = a[i] * f;
      }
    for (int e = 0; e < nv * dv; ++e) v[(size_t)n * nv * dv + e] = act[(size_t)n * Cc + 2 * nk * dk + e];
    for (int h = 0; h < nv; ++h) {
      const double b_ = ba[(size_t)n * 2 * nv + (h / r) * 2 * r + h % r];
      const double a_ = ba[(size_t)n * 2 * nv + (h / r) * 2 * r + r + h % r];
      beta[(size_t)n * nv + h] = sigmoid(b_);
      g[(size_t)n * nv + h] = -std::exp(p.A_log[h]) * std::log1p(std::exp(a_ + p.dt_bias[h]));
    }
  }
  GatedDeltaDims d;
  d.B = B, d.T = T, d.nk = nk, d.nv = nv, d.dk = dk, d.dv = dv;
  std::vector<double> o((size_t)N * nv * dv), S((size_t)B * nv * dk * dv, 0.0);
  gated_delta_forward(o.data(), S.data(), q.data(), k.data(), v.data(), g.data(), beta.data(), d);
  std::vector<double> gated(o.size());
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < nv; ++h) {
      const double* oh = o.data() + ((size_t)n * nv + h) * dv;
      double ms = 0;
      for (int j = 0; j < dv; ++j) ms += oh[j] * oh[j];
      const double rs = 1.0 / std::sqrt(ms / dv + eps);
      for (int j = 0; j < dv; ++j) {
        const int group = 2 * dk + 2 * r * dv;  // z of head h in the grouped row
        const double z = qkvz[(size_t)n * P + (h / r) * group + 2 * dk + r * dv + (h % r) * dv + j];
        gated[((size_t)n * nv + h) * dv + j] = oh[j] * rs * p.norm[j] * z * sigmoid(z);
      }
    }
  return linear(gated, p.out_proj, N, nv * dv, C);
}

}  // namespace llm0::ref
