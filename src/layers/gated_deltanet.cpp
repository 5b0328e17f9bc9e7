// Gated DeltaNet layer (Qwen3-Next layout). See gated_deltanet.h; the delta rule and its backward
// are ops/gated_delta.h, the convolution ops/causal_conv.h.
#include "layers/gated_deltanet.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cache/recurrent_state.h"
#include "core/check.h"
#include "core/half.h"
#include "ops/causal_conv.h"
#include "ops/gated_delta.h"
#include "ops/matmul.h"
#include "ops/norm.h"

namespace llm0 {

namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float silu(float x) { return x * sigmoid(x); }
float silu_grad(float x) {
  const float s = sigmoid(x);
  return s * (1.0f + x * (1.0f - s));
}
// torch.nn.functional.softplus (beta 1, threshold 20).
float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

GatedDeltaDims op_dims(const GatedDeltaNetConfig& c, int B, int T) {
  GatedDeltaDims d;
  d.B = B, d.T = T, d.nk = c.linear_num_key_heads, d.nv = c.linear_num_value_heads;
  d.dk = c.linear_key_head_dim, d.dv = c.linear_value_head_dim, d.chunk = c.chunk_size;
  return d;
}

// Offsets inside one in_proj_qkvz row of key head g: [q | k | v (r·dv) | z (r·dv)].
struct QkvzGroup {
  int q, k, v, z, size;
};
QkvzGroup qkvz_group(const GatedDeltaNetConfig& c, int g) {
  const int dk = c.linear_key_head_dim, rdv = c.value_dim() / c.linear_num_key_heads;
  const int size = 2 * dk + 2 * rdv, base = g * size;
  return {base, base + dk, base + 2 * dk, base + 2 * dk + rdv, size};
}

// x·scale / sqrt(Σx² + eps) over n values; returns 1 / sqrt(Σx² + eps).
float l2norm(float* y, const float* x, int n, float scale, float eps) {
  float ss = 0;
  for (int i = 0; i < n; ++i) ss += x[i] * x[i];
  const float r = 1.0f / std::sqrt(ss + eps);
  for (int i = 0; i < n; ++i) y[i] = x[i] * r * scale;
  return r;
}

// Backward of y = scale·x·r, r = (Σx² + eps)^−1/2: dx = scale·(r·dy − r³·x·(x·dy)).
void l2norm_backward(float* dx, const float* dy, const float* x, float r, int n, float scale) {
  float xd = 0;
  for (int i = 0; i < n; ++i) xd += x[i] * dy[i];
  for (int i = 0; i < n; ++i) dx[i] = scale * (r * dy[i] - r * r * r * x[i] * xd);
}

}  // namespace

size_t GatedDeltaNetSaved::floats(const GatedDeltaNetConfig& c, int B, int T) {
  const size_t N = (size_t)B * T, nv = c.linear_num_value_heads, nk = c.linear_num_key_heads;
  const size_t S = nv * c.linear_key_head_dim * c.linear_value_head_dim;
  const size_t nc = (T + c.chunk_size - 1) / c.chunk_size;
  return N * (c.qkvz_rows() + 2 * nv + 3 * c.conv_channels() + 2 * c.key_dim() + 2 * nk +
              4 * c.value_dim() + 3 * nv + c.value_dim()) +
         (size_t)B * S * (nc + 1);
}

void GatedDeltaNetSaved::bind(float* p, const GatedDeltaNetConfig& c, int B, int T) {
  const size_t N = (size_t)B * T, nv = c.linear_num_value_heads, nk = c.linear_num_key_heads;
  const size_t S = nv * c.linear_key_head_dim * c.linear_value_head_dim;
  const size_t nc = (T + c.chunk_size - 1) / c.chunk_size;
  auto take = [&p](size_t n) { float* r = p; p += n; return r; };
  qkvz = take(N * c.qkvz_rows()), ab = take(N * 2 * nv), mixed = take(N * c.conv_channels());
  z = take(N * c.value_dim()), conv = take(N * c.conv_channels());
  act = take(N * c.conv_channels()), q = take(N * c.key_dim()), k = take(N * c.key_dim());
  q_rnorm = take(N * nk), k_rnorm = take(N * nk), v = take(N * c.value_dim());
  beta = take(N * nv), g = take(N * nv), o = take(N * c.value_dim()), o_rstd = take(N * nv);
  o_norm = take(N * c.value_dim()), gated = take(N * c.value_dim());
  states = take((size_t)B * S * nc), final_state = take((size_t)B * S);
}

size_t GatedDeltaNetGradScratch::floats(const GatedDeltaNetConfig& c, int N) {
  const size_t nv = c.linear_num_value_heads;
  return (size_t)N * (c.qkvz_rows() + 2 * nv + 2 * c.conv_channels() + 2 * c.key_dim() +
                      4 * c.value_dim() + 2 * nv);
}

void GatedDeltaNetGradScratch::bind(float* p, const GatedDeltaNetConfig& c, int N) {
  const size_t nv = c.linear_num_value_heads;
  auto take = [&p](size_t n) { float* r = p; p += n; return r; };
  dqkvz = take((size_t)N * c.qkvz_rows()), dab = take((size_t)N * 2 * nv);
  dmixed = take((size_t)N * c.conv_channels()), dact = take((size_t)N * c.conv_channels());
  dq = take((size_t)N * c.key_dim()), dk = take((size_t)N * c.key_dim());
  dv = take((size_t)N * c.value_dim()), do_ = take((size_t)N * c.value_dim());
  dgated = take((size_t)N * c.value_dim()), dnorm = take((size_t)N * c.value_dim());
  dg = take((size_t)N * nv), dbeta = take((size_t)N * nv);
}

void GatedDeltaNetLayer::project(const float* x, int B, int T, const float* history,
                                 const GatedDeltaNetSaved& s) const {
  project_rows(x, B * T, s);
  convolve(0, B, T, history, s);
}

void GatedDeltaNetLayer::convolve(long row0, int B, int T, const float* history,
                                  const GatedDeltaNetSaved& s) const {
  const size_t Cc = (size_t)cfg.conv_channels(), at = (size_t)row0 * Cc;
  causal_conv1d_forward(s.conv + at, s.mixed + at, history, w.conv1d, B, T, (int)Cc,
                        cfg.linear_conv_kernel_dim);
  for (size_t i = at; i < at + (size_t)B * T * Cc; ++i) s.act[i] = silu(s.conv[i]);
}

void GatedDeltaNetLayer::project_rows(const float* x, int N, const GatedDeltaNetSaved& s,
                                      const LinearKernel& lk) const {
  const int P = cfg.qkvz_rows(), Cc = cfg.conv_channels(), nk = cfg.linear_num_key_heads;
  const int dk = cfg.linear_key_head_dim, rdv = cfg.value_dim() / nk;
  const LinearOut outs[] = {{s.qkvz, w.in_proj_qkvz, nullptr, P},
                            {s.ab, w.in_proj_ba, nullptr, 2 * cfg.linear_num_value_heads}};
  linear_forward_group(outs, x, N, C, lk);
  for (int n = 0; n < N; ++n) {
    const float* row = s.qkvz + (size_t)n * P;
    float* m = s.mixed + (size_t)n * Cc;
    for (int g = 0; g < nk; ++g) {  // grouped by key head -> [all q | all k | all v], z
      const QkvzGroup o = qkvz_group(cfg, g);
      std::memcpy(m + g * dk, row + o.q, dk * sizeof(float));
      std::memcpy(m + cfg.key_dim() + g * dk, row + o.k, dk * sizeof(float));
      std::memcpy(m + 2 * cfg.key_dim() + g * rdv, row + o.v, rdv * sizeof(float));
      std::memcpy(s.z + (size_t)n * cfg.value_dim() + g * rdv, row + o.z, rdv * sizeof(float));
    }
  }
}

void GatedDeltaNetLayer::prepare_inputs(int N, const GatedDeltaNetSaved& s) const {
  const int Cc = cfg.conv_channels(), nk = cfg.linear_num_key_heads;
  const int nv = cfg.linear_num_value_heads, dk = cfg.linear_key_head_dim, r = nv / nk;
  const float scale = 1.0f / std::sqrt((float)dk);
  for (int n = 0; n < N; ++n) {
    const float* a = s.act + (size_t)n * Cc;
    for (int g = 0; g < nk; ++g) {
      const size_t qk = ((size_t)n * nk + g) * dk;
      s.q_rnorm[(size_t)n * nk + g] = l2norm(s.q + qk, a + g * dk, dk, scale, kL2Eps);
      s.k_rnorm[(size_t)n * nk + g] = l2norm(s.k + qk, a + cfg.key_dim() + g * dk, dk, 1.0f,
                                             kL2Eps);
    }
    std::memcpy(s.v + (size_t)n * cfg.value_dim(), a + 2 * cfg.key_dim(),
                cfg.value_dim() * sizeof(float));
    for (int h = 0; h < nv; ++h) {  // in_proj_ba row: [b (r) | a (r)] per key head
      const float* ba = s.ab + (size_t)n * 2 * nv + (h / r) * 2 * r;
      s.beta[(size_t)n * nv + h] = sigmoid(ba[h % r]);
      s.g[(size_t)n * nv + h] = -std::exp(w.A_log[h]) * softplus(ba[r + h % r] + w.dt_bias[h]);
    }
  }
}

void GatedDeltaNetLayer::output(int N, const GatedDeltaNetSaved& s, float* y,
                                const LinearKernel& lk) const {
  const int nv = cfg.linear_num_value_heads, dv = cfg.linear_value_head_dim;
  rmsnorm_forward(s.o_norm, s.o_rstd, s.o, w.norm, N * nv, dv, eps);
  for (size_t i = 0; i < (size_t)N * cfg.value_dim(); ++i) s.gated[i] = s.o_norm[i] * silu(s.z[i]);
  linear_forward(y, s.gated, w.out_proj, nullptr, N, cfg.value_dim(), C, lk);
}

void GatedDeltaNetLayer::forward(const float* x, int B, int T, const int*,
                                 const GatedDeltaNetSaved& s, const GatedDeltaNetGradScratch&,
                                 float* y) const {
  const int N = B * T;
  project(x, B, T, nullptr, s);
  prepare_inputs(N, s);
  const GatedDeltaDims d = op_dims(cfg, B, T);
  std::fill(s.final_state, s.final_state + (size_t)B * d.nv * d.dk * d.dv, 0.0f);
  gated_delta_chunked(s.o, s.final_state, s.states, s.q, s.k, s.v, s.g, s.beta, d);
  output(N, s, y);
}

void GatedDeltaNetLayer::backward(float* dx, const float* dy, const float* x, int B, int T,
                                  const int*, const GatedDeltaNetSaved& s,
                                  const GatedDeltaNetGradScratch& g) const {
  const int N = B * T, P = cfg.qkvz_rows(), Cc = cfg.conv_channels();
  const int nk = cfg.linear_num_key_heads, nv = cfg.linear_num_value_heads, r = nv / nk;
  const int dk = cfg.linear_key_head_dim, dv = cfg.linear_value_head_dim, rdv = r * dv;
  const int VD = cfg.value_dim();
  // y = out_proj(gated), gated = o_norm ⊙ silu(z), o_norm = RMSNorm(o)·w.
  linear_backward(g.dgated, w.dout_proj, nullptr, dy, s.gated, w.out_proj, N, VD, C);
  for (int n = 0; n < N; ++n)
    for (int gk = 0; gk < nk; ++gk) {
      float* dz = g.dqkvz + (size_t)n * P + qkvz_group(cfg, gk).z;
      for (int i = 0; i < rdv; ++i) {
        const size_t e = (size_t)n * VD + gk * rdv + i;
        g.dnorm[e] = g.dgated[e] * silu(s.z[e]);
        dz[i] = g.dgated[e] * s.o_norm[e] * silu_grad(s.z[e]);
      }
    }
  rmsnorm_backward(g.do_, w.dnorm, g.dnorm, s.o, w.norm, s.o_rstd, N * nv, dv);
  gated_delta_chunked_backward(g.dq, g.dk, g.dv, g.dg, g.dbeta, nullptr, g.do_, nullptr, s.q,
                               s.k, s.v, s.g, s.beta, s.states, op_dims(cfg, B, T));
  // β = σ(b); g = −exp(A_log)·softplus(a + dt_bias).
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < nv; ++h) {
      const size_t e = (size_t)n * nv + h;
      const float* ba = s.ab + (size_t)n * 2 * nv + (h / r) * 2 * r;
      float* dba = g.dab + (size_t)n * 2 * nv + (h / r) * 2 * r;
      dba[h % r] = g.dbeta[e] * s.beta[e] * (1.0f - s.beta[e]);
      const float da = g.dg[e] * -std::exp(w.A_log[h]) * sigmoid(ba[r + h % r] + w.dt_bias[h]);
      dba[r + h % r] = da;
      w.ddt_bias[h] += da;
      w.dA_log[h] += g.dg[e] * s.g[e];
    }
  // q, k through l2norm (and q's scale), v as is; then SiLU and the convolution.
  const float scale = 1.0f / std::sqrt((float)dk);
  for (int n = 0; n < N; ++n) {
    const float* a = s.act + (size_t)n * Cc;
    float* da = g.dact + (size_t)n * Cc;
    for (int gk = 0; gk < nk; ++gk) {
      const size_t qk = ((size_t)n * nk + gk) * dk, e = (size_t)n * nk + gk;
      l2norm_backward(da + gk * dk, g.dq + qk, a + gk * dk, s.q_rnorm[e], dk, scale);
      l2norm_backward(da + cfg.key_dim() + gk * dk, g.dk + qk, a + cfg.key_dim() + gk * dk,
                      s.k_rnorm[e], dk, 1.0f);
    }
    std::memcpy(da + 2 * cfg.key_dim(), g.dv + (size_t)n * VD, VD * sizeof(float));
  }
  for (size_t i = 0; i < (size_t)N * Cc; ++i) g.dact[i] *= silu_grad(s.conv[i]);
  causal_conv1d_backward(g.dmixed, w.dconv1d, g.dact, s.mixed, w.conv1d, B, T, Cc,
                         cfg.linear_conv_kernel_dim);
  for (int n = 0; n < N; ++n) {
    const float* m = g.dmixed + (size_t)n * Cc;
    float* row = g.dqkvz + (size_t)n * P;
    for (int gk = 0; gk < nk; ++gk) {
      const QkvzGroup o = qkvz_group(cfg, gk);
      std::memcpy(row + o.q, m + gk * dk, dk * sizeof(float));
      std::memcpy(row + o.k, m + cfg.key_dim() + gk * dk, dk * sizeof(float));
      std::memcpy(row + o.v, m + 2 * cfg.key_dim() + gk * rdv, rdv * sizeof(float));
    }
  }
  linear_backward(dx, w.din_proj_qkvz, nullptr, g.dqkvz, x, w.in_proj_qkvz, N, C, P);
  linear_backward(dx, w.din_proj_ba, nullptr, g.dab, x, w.in_proj_ba, N, C, 2 * nv, true);
}

void GatedDeltaNetLayer::round_as_stored(const RecurrentState& rs, float* mixed, int Tn) const {
  if (rs.window_dtype() != ElementType::BF16) return;
  for (size_t i = 0; i < (size_t)Tn * cfg.conv_channels(); ++i)
    mixed[i] = bf16_to_float(float_to_bf16(mixed[i]));
}

void GatedDeltaNetLayer::advance_window(RecurrentState& rs, const float* mixed, int Tn) const {
  // The window keeps the last K−1 raw conv inputs: [old window | new rows], its last K−1 rows.
  const int Cc = cfg.conv_channels(), K1 = cfg.linear_conv_kernel_dim - 1;
  float* win = rs.window();
  if (K1 > 0 && Tn >= K1) {
    std::memcpy(win, mixed + (size_t)(Tn - K1) * Cc, (size_t)K1 * Cc * sizeof(float));
  } else if (K1 > 0) {
    std::memmove(win, win + (size_t)Tn * Cc, (size_t)(K1 - Tn) * Cc * sizeof(float));
    std::memcpy(win + (size_t)(K1 - Tn) * Cc, mixed, (size_t)Tn * Cc * sizeof(float));
  }
  rs.store_window();
}

void GatedDeltaNetLayer::forward_cached(const float* x, int N, const int*,
                                        std::span<const BatchSegment> segs,
                                        const GatedDeltaNetSaved& s, const InferOptions& opt,
                                        float* y, WorkCounters&) const {
  project_rows(x, N, s, opt.linear);  // in_proj_qkvz / in_proj_ba on all N rows
  std::vector<RecurrentState*> states;
  for (const BatchSegment& g : segs) {
    auto* rs = &cache_as<RecurrentState>(*g.cache, il, kind_name());
    rs->check_append(g.pos, g.n);
    float* raw = s.mixed + (size_t)g.row0 * cfg.conv_channels();
    round_as_stored(*rs, raw, g.n);
    convolve(g.row0, 1, g.n, rs->window(), s);  // window: float32 (widened when the cache is bf16)
    advance_window(*rs, raw, g.n);
    states.push_back(rs);
  }
  prepare_inputs(N, s);
  for (size_t i = 0; i < segs.size(); ++i) {
    const BatchSegment& g = segs[i];
    const GatedDeltaDims d = op_dims(cfg, 1, g.n);
    const size_t r = (size_t)g.row0, nv = (size_t)d.nv, K = cfg.key_dim(), V = cfg.value_dim();
    float* o = s.o + r * V;
    const float *q = s.q + r * K, *k = s.k + r * K, *v = s.v + r * V;
    if (g.n == 1 || opt.linear.fixed_order)
      gated_delta_recurrent(o, states[i]->state(), q, k, v, s.g + r * nv, s.beta + r * nv, d);
    else
      gated_delta_chunked(o, states[i]->state(), nullptr, q, k, v, s.g + r * nv, s.beta + r * nv, d);
    states[i]->commit(g.n);
  }
  output(N, s, y, opt.linear);
}

}  // namespace llm0
