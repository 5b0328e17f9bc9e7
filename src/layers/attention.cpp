// Attention layer: projections, QK-norm, RoPE, attention, output projection. See attention.h.
#include "layers/attention.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "layers/attention_gate.h"
#include "layers/norm.h"
#include "ops/attention.h"
#include "ops/attention_rows.h"
#include "ops/matmul.h"
#include "ops/norm.h"
#include "ops/rope.h"

namespace llm0 {

AttentionDims AttentionLayer::dims(int B, int Tq, int Tk, int q_offset) const {
  const ModelConfig& c = *cfg;
  AttentionDims d;
  d.B = B, d.Tq = Tq, d.Tk = Tk, d.q_offset = q_offset;
  d.H = c.num_attention_heads, d.Hkv = c.num_key_value_heads, d.D = c.head_dim, d.Dv = c.head_dim;
  d.scale = 1.0f / std::sqrt((float)c.head_dim);  // 1/√d_k
  d.window = layer.sliding_window;                 // 0 on full-attention layers
  d.sinks = w.sinks;
  return d;
}

namespace {
// Bytes of cached K/V rows one call read: the keys from the first query's window edge on.
// `bytes` per number: the cache's dtype.
uint64_t kv_bytes_read(const AttentionDims& d, int bytes) {
  const uint64_t rows = (uint64_t)(d.Tk - first_visible_key(d, d.q_offset));
  return rows * (uint64_t)d.Hkv * (uint64_t)(d.D + d.Dv) * (uint64_t)bytes;
}
// Counts one attention call: qk visible pairs, their multiply-adds, the cached rows read.
void count_attention(WorkCounters& c, const AttentionDims& d, uint64_t qk, int bytes) {
  c.qk_scores += qk, c.attn_macs += qk * (uint64_t)(d.D + d.Dv);
  c.kv_bytes_read += kv_bytes_read(d, bytes);
}
}  // namespace

void AttentionLayer::project_qkv(const float* x, int N, const int* positions, float* q, float* k,
                                 float* v, float* q_raw, float* k_raw, float* q_rstd,
                                 float* k_rstd, float* qg, float* gate,
                                 const LinearKernel& lk) const {
  const int C = cfg->hidden_size, H = cfg->num_attention_heads, Hkv = cfg->num_key_value_heads;
  const int D = cfg->head_dim;
  const bool qk_norm = cfg->use_qk_norm, gated = cfg->attn_output_gate;
  float* q_out = qk_norm ? q_raw : q;
  const LinearOut qkv[] = {{gated ? qg : q_out, w.q_w, w.q_b, H * D * (gated ? 2 : 1)},
                           {qk_norm ? k_raw : k, w.k_w, w.k_b, Hkv * D},  // [N, Hkv, D]
                           {v, w.v_w, w.v_b, Hkv * D}};                   // [N, Hkv, D]
  linear_forward_group(qkv, x, N, C, lk);
  if (gated) split_query_gate(qg, q_out, gate, N, H, D);
  if (qk_norm) {  // Qwen3: RMSNorm over head_dim of each head's q and k, before RoPE
    std::vector<float> qs, ks;
    const bool off = cfg->unit_offset_norms();
    rmsnorm_forward(q, q_rstd, q_raw, norm_scale(w.q_norm, D, off, qs), N * H, D,
                    (float)cfg->rms_norm_eps);
    rmsnorm_forward(k, k_rstd, k_raw, norm_scale(w.k_norm, D, off, ks), N * Hkv, D,
                    (float)cfg->rms_norm_eps);
  }
  if (cfg->position == PositionKind::Rope) {
    rope_forward(q, positions, N, H, D, *rope);
    rope_forward(k, positions, N, Hkv, D, *rope);
  }
}

void AttentionLayer::forward(const float* x, int B, int T, const int* positions,
                             const AttentionSaved& s, const AttentionGradScratch&, float* y) const {
  const int N = B * T, C = cfg->hidden_size, HD = cfg->num_attention_heads * cfg->head_dim;
  project_qkv(x, N, positions, s.q, s.k, s.v, s.q_raw, s.k_raw, s.q_rstd, s.k_rstd, s.qg,
              s.gate);
  AttentionDims d = dims(B, T, T, 0);
  d.bf16_products = w.o_w.bf16_products;  // the run's precision (Model::set_bf16_products)
  attention_forward(s.attn, s.lse, s.q, s.k, s.v, d);
  const float* o_in = s.attn;
  if (cfg->attn_output_gate) {
    output_gate_forward(s.attn_gated, s.attn, s.gate, (size_t)N * HD);
    o_in = s.attn_gated;
  }
  linear_forward(y, o_in, w.o_w, w.o_b, N, HD, C);
}

void AttentionLayer::backward(float* dx, const float* dy, const float* x, int B, int T,
                              const int* positions, const AttentionSaved& s,
                              const AttentionGradScratch& g) const {
  const int N = B * T, C = cfg->hidden_size, H = cfg->num_attention_heads;
  const int Hkv = cfg->num_key_value_heads, D = cfg->head_dim;
  const bool gated = cfg->attn_output_gate;
  linear_backward(g.dattn, w.do_w, w.do_b, dy, gated ? s.attn_gated : s.attn, w.o_w, N, H * D, C);
  if (gated) output_gate_backward(g.dattn, g.dgate, g.dattn, s.attn, s.gate, (size_t)N * H * D);
  AttentionDims d = dims(B, T, T, 0);
  d.bf16_products = w.o_w.bf16_products;  // the run's precision (Model::set_bf16_products)
  attention_backward(g.dq, g.dk, g.dv, g.dattn, s.q, s.k, s.v, s.attn, s.lse, d, w.dsinks);
  if (cfg->position == PositionKind::Rope) {
    rope_backward(g.dq, positions, N, H, D, *rope);
    rope_backward(g.dk, positions, N, Hkv, D, *rope);
  }
  const float* dq = g.dq;
  const float* dk = g.dk;
  if (cfg->use_qk_norm) {
    std::vector<float> qs, ks;
    const bool off = cfg->unit_offset_norms();
    rmsnorm_backward(g.dq_raw, w.dq_norm, g.dq, s.q_raw, norm_scale(w.q_norm, D, off, qs),
                     s.q_rstd, N * H, D);
    rmsnorm_backward(g.dk_raw, w.dk_norm, g.dk, s.k_raw, norm_scale(w.k_norm, D, off, ks),
                     s.k_rstd, N * Hkv, D);
    dq = g.dq_raw, dk = g.dk_raw;
  }
  if (gated) {
    merge_query_gate(g.dqg, dq, g.dgate, N, H, D);
    dq = g.dqg;
  }
  // x feeds q, k and v: the first writes dx, the other two add.
  linear_backward(dx, w.dq_w, w.dq_b, dq, x, w.q_w, N, C, H * D * (gated ? 2 : 1));
  linear_backward(dx, w.dk_w, w.dk_b, dk, x, w.k_w, N, C, Hkv * D, true);
  linear_backward(dx, w.dv_w, w.dv_b, g.dv, x, w.v_w, N, C, Hkv * D, true);
}

void AttentionLayer::forward_cached(const float* x, int N, const int* positions,
                                    std::span<const BatchSegment> segs,
                                    const AttentionInferScratch& g, const InferOptions& opt,
                                    float* y, WorkCounters& counters) const {
  const int H = cfg->num_attention_heads;
  project_qkv(x, N, positions, g.q, g.k_new, g.v_new, g.q_raw, g.k_raw, g.rstd,
              g.rstd + (long)N * H, g.qg, g.gate, opt.linear);
  if (layer.sliding_window > 0) attend_ring(segs, g, counters);
  else attend_paged(segs, g, counters);
  output(N, g, opt.linear, y, counters);
}

void AttentionLayer::output(int N, const AttentionInferScratch& g, const LinearKernel& lk,
                            float* y, WorkCounters& counters) const {
  const int C = cfg->hidden_size, HD = cfg->num_attention_heads * cfg->head_dim;
  counters.kv_projected += (uint64_t)N;
  if (cfg->attn_output_gate) output_gate_forward(g.attn, g.attn, g.gate, (size_t)N * HD);
  linear_forward(y, g.attn, w.o_w, w.o_b, N, HD, C, lk);
}

void AttentionLayer::attend_paged(std::span<const BatchSegment> segs,
                                  const AttentionInferScratch& g, WorkCounters& counters) const {
  const int H = cfg->num_attention_heads, D = cfg->head_dim;
  const long kr = (long)cfg->num_key_value_heads * D;  // floats per K/V row
  for (const BatchSegment& s : segs) {
    auto* cache = &cache_as<PagedKvCache>(*s.cache, il, kind_name());
    cache->append(s.pos, s.n, g.k_new + s.row0 * kr, g.v_new + s.row0 * kr);
    const AttentionDims d = dims(1, s.n, s.pos + s.n, s.pos);
    const uint64_t qk = attention_paged_forward(g.attn + (long)s.row0 * H * D,
                                                g.q + (long)s.row0 * H * D, cache->view(), d);
    count_attention(counters, d, qk, cache->bytes_per_number());
  }
}

void AttentionLayer::attend_ring(std::span<const BatchSegment> segs,
                                 const AttentionInferScratch& g, WorkCounters& counters) const {
  // Per segment: the window rows [prev + n, Hkv, D] in position order (the
  // W − 1 cached positions its first query can see, then its new rows), attended as one page by
  // attention_paged_forward, which computes every query row over its visible keys in one fixed
  // order — the same whatever the chunking (the ring stores and returns exact values, BF16 rounded once).
  const int H = cfg->num_attention_heads, D = cfg->head_dim;
  const long kr = (long)cfg->num_key_value_heads * D;  // floats per K/V row
  for (const BatchSegment& s : segs) {
    auto* ring = &cache_as<RingKvCache>(*s.cache, il, kind_name());
    const int prev = std::min(s.pos, ring->window() - 1);
    ring->gather(prev, g.k_win, g.v_win);
    std::copy(g.k_new + s.row0 * kr, g.k_new + (s.row0 + s.n) * kr, g.k_win + prev * kr);
    std::copy(g.v_new + s.row0 * kr, g.v_new + (s.row0 + s.n) * kr, g.v_win + prev * kr);
    ring->append(s.pos, s.n, g.k_win + prev * kr, g.v_win + prev * kr);  // BF16: rounds them
    const void* k_page = g.k_win;
    const void* v_page = g.v_win;
    const KvPages one{&k_page, &v_page, prev + s.n, false};
    const AttentionDims d = dims(1, s.n, prev + s.n, prev);
    const uint64_t qk = attention_paged_forward(g.attn + (long)s.row0 * H * D,
                                                g.q + (long)s.row0 * H * D, one, d);
    count_attention(counters, d, qk, ring->bytes_per_number());
  }
}

}  // namespace llm0
