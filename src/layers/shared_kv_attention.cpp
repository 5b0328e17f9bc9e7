// Shared-KV attention: the mixer contract (parameter table, buffer plan, cache spec), training
// forward/backward and the cached attention over K-only rows. See shared_kv_attention.h. The
// attention kernels are ops/attention.h (training) and ops/attention_rows.h
// attention_paged_forward (every cached call), each given the rows as both K and V; the backward
// adds the row's two gradients (as key and as value) before RoPE's.
//   self_attn.q_proj [H·D, C], self_attn.kv_proj [Hkv·D, C], self_attn.o_proj [C, H·D];
//   self_attn.sinks [H] with attention_sinks
#include "layers/shared_kv_attention.h"

#include <cmath>
#include <cstring>

#include "cache/paged_kv_cache.h"
#include "core/check.h"
#include "ops/matmul.h"

namespace llm0 {

void SharedKvAttentionLayer::check_config(const ModelConfig& c, int il) {
  const char* field = c.position != PositionKind::Rope ? "position_embedding_type (it needs rope)"
                      : c.use_qk_norm                  ? "use_qk_norm"
                      : c.attention_bias               ? "attention_bias"
                      : c.qkv_bias()                   ? "model_type qwen2's q/k/v bias"
                      : c.attn_output_gate             ? "attn_output_gate"
                                                       : nullptr;
  LLM0_CHECK(field == nullptr, "{}: layer {} is shared_kv_attention, which does not implement {} "
             "(its q, kv and o projections have no bias, norm or gate; positions enter through "
             "RoPE)", c.source, il, field);
}

int SharedKvAttentionLayer::rotary_offset() const { return cfg->head_dim - rope->rotary_dim(); }

AttentionDims SharedKvAttentionLayer::dims(int B, int Tq, int Tk, int q_offset) const {
  AttentionDims d;
  d.B = B, d.Tq = Tq, d.Tk = Tk, d.q_offset = q_offset;
  d.H = cfg->num_attention_heads, d.Hkv = cfg->num_key_value_heads;
  d.D = d.Dv = cfg->head_dim;                          // one row: D numbers as key and as value
  d.scale = 1.0f / std::sqrt((float)cfg->head_dim);  // 1/√D
  d.sinks = w.sinks;
  return d;
}

void SharedKvAttentionLayer::project(const float* x, int N, const int* positions, float* q,
                                     float* s, const LinearKernel& lk) const {
  const int C = cfg->hidden_size, H = cfg->num_attention_heads, Hkv = cfg->num_key_value_heads;
  const int D = cfg->head_dim;
  const LinearOut qs[] = {{q, w.q_w, nullptr, H * D}, {s, w.kv_w, nullptr, Hkv * D}};
  linear_forward_group(qs, x, N, C, lk);
  rope_forward(q, positions, N, H, D, *rope, RopeLayout::Interleaved, rotary_offset());
  rope_forward(s, positions, N, Hkv, D, *rope, RopeLayout::Interleaved, rotary_offset());
}

void SharedKvAttentionLayer::forward(const float* x, int B, int T, const int* positions,
                                     const SharedKvSaved& saved, const SharedKvGradScratch&,
                                     float* y) const {
  const int N = B * T, H = cfg->num_attention_heads, D = cfg->head_dim;
  project(x, N, positions, saved.q, saved.s);
  AttentionDims d = dims(B, T, T, 0);
  d.bf16_products = w.o_w.bf16_products;  // the run's precision (Model::set_bf16_products)
  attention_forward(saved.attn, saved.lse, saved.q, saved.s, saved.s, d);
  std::memcpy(saved.o, saved.attn, sizeof(float) * (size_t)N * H * D);
  rope_backward(saved.o, positions, N, H, D, *rope, RopeLayout::Interleaved, rotary_offset());
  output(saved.o, N, y);
}

void SharedKvAttentionLayer::backward(float* dx, const float* dy, const float* x, int B, int T,
                                      const int* positions, const SharedKvSaved& saved,
                                      const SharedKvGradScratch& g) const {
  const int N = B * T, C = cfg->hidden_size, H = cfg->num_attention_heads;
  const int Hkv = cfg->num_key_value_heads, D = cfg->head_dim, off = rotary_offset();
  linear_backward(g.dattn, w.do_w, nullptr, dy, saved.o, w.o_w, N, H * D, C);
  // o = rope_{−i}(attn): the transpose of a rotation by −i is the rotation by +i.
  rope_forward(g.dattn, positions, N, H, D, *rope, RopeLayout::Interleaved, off);
  AttentionDims d = dims(B, T, T, 0);
  d.bf16_products = w.o_w.bf16_products;  // the run's precision (Model::set_bf16_products)
  attention_backward(g.dq, g.ds, g.dv, g.dattn, saved.q, saved.s, saved.s, saved.attn, saved.lse,
                     d, w.dsinks);
  const size_t rows = (size_t)N * Hkv * D;
  for (size_t i = 0; i < rows; ++i) g.ds[i] += g.dv[i];  // s is both K and V
  rope_backward(g.dq, positions, N, H, D, *rope, RopeLayout::Interleaved, off);
  rope_backward(g.ds, positions, N, Hkv, D, *rope, RopeLayout::Interleaved, off);
  linear_backward(dx, w.dq_w, nullptr, g.dq, x, w.q_w, N, C, H * D);
  linear_backward(dx, w.dkv_w, nullptr, g.ds, x, w.kv_w, N, C, Hkv * D, /*accumulate_dx=*/true);
}

void SharedKvAttentionLayer::attend_rows(const float* q, int n, int pos, const int* positions,
                                         const void* const* rows, int page_size, bool bf16,
                                         float* attn, int bytes, WorkCounters& counters) const {
  const int H = cfg->num_attention_heads, D = cfg->head_dim;
  const AttentionDims d = dims(1, n, pos + n, pos);
  const uint64_t qk = attention_paged_forward(attn, q, KvPages{rows, rows, page_size, bf16}, d);
  rope_backward(attn, positions, n, H, D, *rope, RopeLayout::Interleaved, rotary_offset());
  counters.qk_scores += qk, counters.attn_macs += qk * (uint64_t)(2 * D);
  counters.kv_projected += (uint64_t)n;
  // One row per cached position (K and V are the same numbers): half the GQA layer's reads.
  counters.kv_bytes_read += (uint64_t)(pos + n) * (uint64_t)d.Hkv * (uint64_t)D * (uint64_t)bytes;
}

void SharedKvAttentionLayer::output(const float* attn, int n, float* y,
                                    const LinearKernel& lk) const {
  linear_forward(y, attn, w.o_w, nullptr, n, cfg->num_attention_heads * cfg->head_dim,
                 cfg->hidden_size, lk);
}

// ---- the mixer contract ----

void SharedKvAttentionLayer::declare(ParamStore& p, const std::string& layer_prefix) const {
  const ModelConfig& c = *cfg;
  const std::string s = layer_prefix + "self_attn.";
  const int C = c.hidden_size, H = c.num_attention_heads, D = c.head_dim;
  declare_linear(p, s + "q_proj", H * D, C, false);
  declare_linear(p, s + "kv_proj", c.num_key_value_heads * D, C, false);
  declare_linear(p, s + "o_proj", C, H * D, false);
  if (c.attention_sinks) p.declare(s + "sinks", Shape{H});
}

void SharedKvAttentionLayer::bind(const ParamBind& b, const std::string& layer_prefix) {
  const std::string s = layer_prefix + "self_attn.";
  b(s + "q_proj.weight", w.q_w, w.dq_w), b(s + "kv_proj.weight", w.kv_w, w.dkv_w);
  b(s + "o_proj.weight", w.o_w, w.do_w), b(s + "sinks", w.sinks, w.dsinks);
}

std::vector<Weight*> SharedKvAttentionLayer::matrices(bool) { return {&w.q_w, &w.kv_w, &w.o_w}; }

std::vector<LinearMap> SharedKvAttentionLayer::linear_maps() const {
  const int C = cfg->hidden_size, HD = cfg->num_attention_heads * cfg->head_dim;
  return {{w.q_w, C, HD}, {w.kv_w, C, cfg->num_key_value_heads * cfg->head_dim}, {w.o_w, HD, C}};
}

ParamCounts SharedKvAttentionLayer::param_counts() const {
  const ModelConfig& c = *cfg;
  const double C = c.hidden_size, HD = (double)c.num_attention_heads * c.head_dim;
  ParamCounts p;
  p.matmul_active = 2 * C * HD + C * c.num_key_value_heads * c.head_dim;  // q, o; kv
  p.total = p.active = p.matmul_active + (c.attention_sinks ? c.num_attention_heads : 0);
  return p;
}

SharedKvSaved SharedKvAttentionLayer::carve_saved(Arena& a, int B, int T) const {
  const size_t N = (size_t)B * T, H = cfg->num_attention_heads, HD = H * cfg->head_dim;
  const size_t KD = (size_t)cfg->num_key_value_heads * cfg->head_dim;
  SharedKvSaved t;
  t.q = a.take(N * HD), t.s = a.take(N * KD), t.attn = a.take(N * HD), t.o = a.take(N * HD);
  t.lse = a.take(N * H);
  return t;
}

SharedKvGradScratch SharedKvAttentionLayer::carve_grads(Arena& a, int N_) const {
  const size_t N = (size_t)N_, HD = (size_t)cfg->num_attention_heads * cfg->head_dim;
  const size_t KD = (size_t)cfg->num_key_value_heads * cfg->head_dim;
  SharedKvGradScratch g;
  g.dattn = a.take(N * HD), g.dq = a.take(N * HD), g.ds = a.take(N * KD), g.dv = a.take(N * KD);
  return g;
}

SharedKvInferScratch SharedKvAttentionLayer::carve_infer(Arena& a, int rows, int) const {
  const size_t R = (size_t)rows, HD = (size_t)cfg->num_attention_heads * cfg->head_dim;
  SharedKvInferScratch g;
  g.q = a.take(R * HD), g.s = a.take(R * cfg->num_key_value_heads * cfg->head_dim);
  g.attn = a.take(R * HD);
  return g;
}

CacheSpec SharedKvAttentionLayer::cache_spec() const {
  CacheSpec s;
  s.k_numbers = cfg->num_key_value_heads * cfg->head_dim;  // the one row; no V row
  s.cache = CacheKind::Paged;
  return s;
}

std::unique_ptr<LayerCache> SharedKvAttentionLayer::make_cache(int capacity,
                                                               const CacheStorage& st) const {
  // K-only rows (the shared row serves as value): Hkv·D numbers per token, one page.
  return std::make_unique<PagedKvCache>(capacity, PageRows{cfg->num_key_value_heads * cfg->head_dim, 0},
                                        st.dtype);
}

double SharedKvAttentionLayer::flops_per_token(FlopPass pass, int context) const {
  return attention_flops(pass, context, cfg->num_attention_heads, cfg->head_dim);
}

void SharedKvAttentionLayer::forward_cached(const float* x, int N, const int* positions,
                                            std::span<const BatchSegment> segs,
                                            const SharedKvInferScratch& g, const InferOptions& opt,
                                            float* y, WorkCounters& counters) const {
  const long HD = (long)cfg->num_attention_heads * cfg->head_dim;
  const long KD = (long)cfg->num_key_value_heads * cfg->head_dim;
  project(x, N, positions, g.q, g.s, opt.linear);
  for (const BatchSegment& seg : segs) {
    PagedKvCache& paged = cache_as<PagedKvCache>(*seg.cache, il, kind_name());
    paged.append(seg.pos, seg.n, g.s + seg.row0 * KD, nullptr);
    const KvPages pages = paged.view();
    attend_rows(g.q + seg.row0 * HD, seg.n, seg.pos, positions + seg.row0, pages.k,
                pages.page_size, pages.bf16, g.attn + seg.row0 * HD, paged.bytes_per_number(),
                counters);
  }
  output(g.attn, N, y, opt.linear);
}

SavedAttention SharedKvAttentionLayer::saved_attention(const SharedKvSaved& s) const {
  return {s.q, s.s, cfg->num_key_value_heads, cfg->head_dim};
}

}  // namespace llm0
