// Naive MLA in double. See ref_mla.h.
#include "ops/ref/ref_mla.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"

namespace llm0::ref {

namespace {
// y [O] = W [O, I] · x [I] (+ b).
std::vector<double> matvec(const std::vector<double>& W, const std::vector<double>& b,
                           const double* x, int O, int I) {
  std::vector<double> y((size_t)O);
  for (int o = 0; o < O; ++o) {
    double s = b.empty() ? 0.0 : b[(size_t)o];
    for (int i = 0; i < I; ++i) s += W[(size_t)o * I + i] * x[i];
    y[(size_t)o] = s;
  }
  return y;
}

void rmsnorm(std::vector<double>& v, const std::vector<double>& w) {
  double ms = 0;
  for (double a : v) ms += a * a;
  const double rstd = 1.0 / std::sqrt(ms / (double)v.size() + 1e-6);
  for (size_t i = 0; i < v.size(); ++i) v[i] *= rstd * w[i];
}

// Interleaved RoPE on v[0 .. dr): pair i = (2i, 2i + 1).
void rope_interleaved(double* v, int dr, int pos, double theta) {
  for (int i = 0; i < dr / 2; ++i) {
    const double a = pos * std::pow(theta, -2.0 * i / dr), c = std::cos(a), s = std::sin(a);
    const double x0 = v[2 * i], x1 = v[2 * i + 1];
    v[2 * i] = x0 * c - x1 * s;
    v[2 * i + 1] = x1 * c + x0 * s;
  }
}
}  // namespace

std::vector<double> mla_forward(const MlaConfig& m, int C, int H, double rope_theta,
                                const MlaParams& p, const std::vector<double>& x, int T,
                                int pos0) {
  LLM0_CHECK(m.enabled(), "ref mla: the config has no kv_lora_rank");
  const int r = m.kv_lora_rank;
  const int dn = m.qk_nope_head_dim, dr = m.qk_rope_head_dim, dv = m.v_head_dim, D = dn + dr;
  std::vector<std::vector<double>> q((size_t)T), k((size_t)T), v((size_t)T);  // [H·D], [H·D], [H·dv]
  for (int t = 0; t < T; ++t) {
    const double* xt = x.data() + (size_t)t * C;
    if (m.q_lora_rank > 0) {
      std::vector<double> cq = matvec(p.q_a_proj, p.q_a_proj_bias, xt, m.q_lora_rank, C);
      rmsnorm(cq, p.q_a_layernorm);
      q[(size_t)t] = matvec(p.q_b_proj, {}, cq.data(), H * D, m.q_lora_rank);
    } else {
      q[(size_t)t] = matvec(p.q_proj, {}, xt, H * D, C);
    }
    for (int h = 0; h < H; ++h) rope_interleaved(q[(size_t)t].data() + h * D + dn, dr, pos0 + t, rope_theta);
    std::vector<double> kv_a = matvec(p.kv_a_proj_with_mqa, p.kv_a_proj_with_mqa_bias, xt, r + dr, C);
    std::vector<double> c(kv_a.begin(), kv_a.begin() + r), k_pe(kv_a.begin() + r, kv_a.end());
    rmsnorm(c, p.kv_a_layernorm);
    rope_interleaved(k_pe.data(), dr, pos0 + t, rope_theta);
    const std::vector<double> kv = matvec(p.kv_b_proj, {}, c.data(), H * (dn + dv), r);
    k[(size_t)t].resize((size_t)H * D), v[(size_t)t].resize((size_t)H * dv);
    for (int h = 0; h < H; ++h) {
      for (int i = 0; i < dn; ++i) k[(size_t)t][(size_t)h * D + i] = kv[(size_t)h * (dn + dv) + i];
      for (int i = 0; i < dr; ++i) k[(size_t)t][(size_t)h * D + dn + i] = k_pe[(size_t)i];
      for (int i = 0; i < dv; ++i) v[(size_t)t][(size_t)h * dv + i] = kv[(size_t)h * (dn + dv) + dn + i];
    }
  }
  std::vector<double> y((size_t)T * C), o((size_t)H * dv), s((size_t)T);
  for (int t = 0; t < T; ++t) {
    for (int h = 0; h < H; ++h) {
      double mx = -INFINITY;
      for (int j = 0; j <= t; ++j) {
        double dot = 0;
        for (int i = 0; i < D; ++i) dot += q[(size_t)t][(size_t)h * D + i] * k[(size_t)j][(size_t)h * D + i];
        s[(size_t)j] = dot / std::sqrt((double)D);
        mx = std::max(mx, s[(size_t)j]);
      }
      double sum = 0;
      for (int j = 0; j <= t; ++j) sum += (s[(size_t)j] = std::exp(s[(size_t)j] - mx));
      for (int i = 0; i < dv; ++i) {
        double acc = 0;
        for (int j = 0; j <= t; ++j) acc += s[(size_t)j] * v[(size_t)j][(size_t)h * dv + i];
        o[(size_t)h * dv + i] = acc / sum;
      }
    }
    const std::vector<double> yt = matvec(p.o_proj, p.o_proj_bias, o.data(), C, H * dv);
    std::copy(yt.begin(), yt.end(), y.begin() + (long)t * C);
  }
  return y;
}

}  // namespace llm0::ref
