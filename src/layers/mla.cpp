// Multi-head latent attention: projections, training forward/backward (the cached forward and
// its two decode forms: mla_cached.cpp). See mla.h;
// the backward chain is written out in docs/derivations/mla.md.
#include "layers/mla.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/check.h"
#include "ops/matmul.h"
#include "ops/norm.h"

namespace llm0 {

AttentionDims MlaLayer::dims(int B, int Tq, int Tk, int q_offset) const {
  const MlaConfig& m = cfg->mla;
  AttentionDims d;
  d.B = B, d.Tq = Tq, d.Tk = Tk, d.q_offset = q_offset;
  d.H = d.Hkv = cfg->num_attention_heads, d.D = m.qk_head_dim(), d.Dv = m.v_head_dim;
  d.scale = 1.0f / std::sqrt((float)m.qk_head_dim());  // (dn + dr)^-1/2 in every path
  return d;
}

void MlaLayer::project_q(const float* x, int N, const int* positions, float* q, float* cq,
                         float* cq_n, float* cq_rstd, const LinearKernel& lk) const {
  const MlaConfig& m = cfg->mla;
  const int C = cfg->hidden_size, H = cfg->num_attention_heads, D = m.qk_head_dim();
  if (m.q_lora_rank > 0) {  // q = q_b_proj(q_a_layernorm(q_a_proj(x)))
    linear_forward(cq, x, w.q_a_w, w.q_a_b, N, C, m.q_lora_rank, lk);
    rmsnorm_forward(cq_n, cq_rstd, cq, w.q_a_norm, N, m.q_lora_rank, kLatentEps);
    linear_forward(q, cq_n, w.q_b_w, nullptr, N, m.q_lora_rank, H * D, lk);
  } else {
    linear_forward(q, x, w.q_w, nullptr, N, C, H * D, lk);
  }
  rope_forward(q, positions, N, H, D, *rope, RopeLayout::Interleaved, m.qk_nope_head_dim);
}

void MlaLayer::project_latent(const float* x, int N, const int* positions, float* kv_a,
                              float* c_raw, float* c, float* c_rstd,
                              const LinearKernel& lk) const {
  const MlaConfig& m = cfg->mla;
  const int r = m.kv_lora_rank, R = r + m.qk_rope_head_dim;
  linear_forward(kv_a, x, w.kv_a_w, w.kv_a_b, N, cfg->hidden_size, R, lk);  // [N, r + dr]
  // k_pe: the row's last dr numbers, one head shared by all query heads.
  rope_forward(kv_a, positions, N, 1, R, *rope, RopeLayout::Interleaved, r);
  for (int n = 0; n < N; ++n) std::memcpy(c_raw + (long)n * r, kv_a + (long)n * R, sizeof(float) * r);
  rmsnorm_forward(c, c_rstd, c_raw, w.kv_a_norm, N, r, kLatentEps);
}

void MlaLayer::expand(const float* c, long ldc, const float* k_pe, long ldk, int S, float* kv,
                      float* k, float* v) const {
  const MlaConfig& m = cfg->mla;
  const int H = cfg->num_attention_heads, r = m.kv_lora_rank, dn = m.qk_nope_head_dim;
  const int dr = m.qk_rope_head_dim, dv = m.v_head_dim, D = dn + dr, E = dn + dv;
  // kv [S, H·(dn+dv)] = c [S, r] · kv_bᵀ (c rows may be the cache's [c | k_pe] rows)
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, S, H * E, r, 1.0f, c, (int)ldc, w.kv_b_w, r,
              0.0f, kv, H * E);
  for (int s = 0; s < S; ++s)
    for (int h = 0; h < H; ++h) {
      const float* src = kv + ((long)s * H + h) * E;
      float* kd = k + ((long)s * H + h) * D;
      std::memcpy(kd, src, sizeof(float) * dn);
      std::memcpy(kd + dn, k_pe + (long)s * ldk, sizeof(float) * dr);
      std::memcpy(v + ((long)s * H + h) * dv, src + dn, sizeof(float) * dv);
    }
}

void MlaLayer::forward(const float* x, int B, int T, const int* positions, const MlaSaved& s,
                       const MlaGradScratch& g, float* y) const {
  const MlaConfig& m = cfg->mla;
  const int N = B * T, H = cfg->num_attention_heads, r = m.kv_lora_rank;
  project_q(x, N, positions, s.q, s.cq, s.cq_n, s.cq_rstd);
  project_latent(x, N, positions, s.kv_a, s.c_raw, s.c, s.c_rstd);
  // kv [N, H, dn+dv] is transient: the backward's dkv buffer (same shape) holds it.
  expand(s.c, r, s.kv_a + r, r + m.qk_rope_head_dim, N, g.dkv, s.k, s.v);
  AttentionDims d = dims(B, T, T, 0);
  d.bf16_products = w.o_w.bf16_products;  // the run's precision (Model::set_bf16_products)
  attention_forward(s.attn, s.lse, s.q, s.k, s.v, d);
  linear_forward(y, s.attn, w.o_w, w.o_b, N, H * m.v_head_dim, cfg->hidden_size);
}

void MlaLayer::backward(float* dx, const float* dy, const float* x, int B, int T,
                        const int* positions, const MlaSaved& s, const MlaGradScratch& g) const {
  const MlaConfig& m = cfg->mla;
  const int N = B * T, C = cfg->hidden_size, H = cfg->num_attention_heads;
  const int r = m.kv_lora_rank, dn = m.qk_nope_head_dim, dr = m.qk_rope_head_dim;
  const int dv = m.v_head_dim, D = dn + dr, E = dn + dv, R = r + dr;
  linear_backward(g.dattn, w.do_w, w.do_b, dy, s.attn, w.o_w, N, H * dv, C);
  AttentionDims d = dims(B, T, T, 0);
  d.bf16_products = w.o_w.bf16_products;  // the run's precision (Model::set_bf16_products)
  attention_backward(g.dq, g.dk, g.dv, g.dattn, s.q, s.k, s.v, s.attn, s.lse, d);
  // Query path: RoPE, then q_b / q_a_layernorm / q_a (or q_proj). Writes dx.
  rope_backward(g.dq, positions, N, H, D, *rope, RopeLayout::Interleaved, dn);
  if (m.q_lora_rank > 0) {
    linear_backward(g.dcq, w.dq_b_w, nullptr, g.dq, s.cq_n, w.q_b_w, N, m.q_lora_rank, H * D);
    rmsnorm_backward(g.dcq_raw, w.dq_a_norm, g.dcq, s.cq, w.q_a_norm, s.cq_rstd, N, m.q_lora_rank);
    linear_backward(dx, w.dq_a_w, w.dq_a_b, g.dcq_raw, x, w.q_a_w, N, C, m.q_lora_rank);
  } else {
    linear_backward(dx, w.dq_w, nullptr, g.dq, x, w.q_w, N, C, H * D);
  }
  // Key/value path: per head [dk_nope | dv] -> kv_b; the shared k_pe sums over heads.
  for (int n = 0; n < N; ++n) {
    float* dpe = g.dkv_a + (long)n * R + r;
    std::fill_n(dpe, dr, 0.0f);
    for (int h = 0; h < H; ++h) {
      const float* dkh = g.dk + ((long)n * H + h) * D;
      float* dst = g.dkv + ((long)n * H + h) * E;
      std::memcpy(dst, dkh, sizeof(float) * dn);
      std::memcpy(dst + dn, g.dv + ((long)n * H + h) * dv, sizeof(float) * dv);
      for (int i = 0; i < dr; ++i) dpe[i] += dkh[dn + i];
    }
  }
  rope_backward(g.dkv_a, positions, N, 1, R, *rope, RopeLayout::Interleaved, r);
  linear_backward(g.dc, w.dkv_b_w, nullptr, g.dkv, s.c, w.kv_b_w, N, r, H * E);
  rmsnorm_backward(g.dc_raw, w.dkv_a_norm, g.dc, s.c_raw, w.kv_a_norm, s.c_rstd, N, r);
  for (int n = 0; n < N; ++n)
    std::memcpy(g.dkv_a + (long)n * R, g.dc_raw + (long)n * r, sizeof(float) * r);
  linear_backward(dx, w.dkv_a_w, w.dkv_a_b, g.dkv_a, x, w.kv_a_w, N, C, R, /*accumulate_dx=*/true);
}

}  // namespace llm0
