// The attention layer's side of the mixer contract (layers/mixer.h): its parameter table
// (Hugging Face Llama/Qwen3/gpt-oss names), its buffer plan, its cache spec and caches, and the
// FLOPs it reports to the ledger.
//   self_attn.{q,k,v,o}_proj.weight / .bias; q_proj [H·D·(2 with attn_output_gate), C]
//   self_attn.{q,k}_norm.weight [D] (QK-norm); self_attn.sinks [H] (attention_sinks)
#include <algorithm>

#include "cache/paged_kv_cache.h"
#include "cache/ring_kv_cache.h"
#include "layers/attention.h"

namespace llm0 {

const char* AttentionLayer::kind_name() const {
  return layer.sliding_window > 0 ? "sliding_attention" : "attention";
}

void AttentionLayer::declare(ParamStore& p, const std::string& layer_prefix) const {
  const ModelConfig& c = *cfg;
  const std::string s = layer_prefix + "self_attn.";
  const int C = c.hidden_size, D = c.head_dim, gate = c.attn_output_gate ? 2 : 1;
  declare_linear(p, s + "q_proj", c.num_attention_heads * D * gate, C, c.qkv_bias());
  declare_linear(p, s + "k_proj", c.num_key_value_heads * D, C, c.qkv_bias());
  declare_linear(p, s + "v_proj", c.num_key_value_heads * D, C, c.qkv_bias());
  declare_linear(p, s + "o_proj", C, c.num_attention_heads * D, c.o_bias());
  if (c.attention_sinks) p.declare(s + "sinks", Shape{c.num_attention_heads});
  if (c.use_qk_norm) {
    p.declare(s + "q_norm.weight", Shape{D});
    p.declare(s + "k_norm.weight", Shape{D});
  }
}

void AttentionLayer::bind(const ParamBind& b, const std::string& layer_prefix) {
  const std::string s = layer_prefix + "self_attn.";
  AttentionWeights& a = w;
  b(s + "q_proj.weight", a.q_w, a.dq_w), b(s + "q_proj.bias", a.q_b, a.dq_b);
  b(s + "k_proj.weight", a.k_w, a.dk_w), b(s + "k_proj.bias", a.k_b, a.dk_b);
  b(s + "v_proj.weight", a.v_w, a.dv_w), b(s + "v_proj.bias", a.v_b, a.dv_b);
  b(s + "o_proj.weight", a.o_w, a.do_w), b(s + "o_proj.bias", a.o_b, a.do_b);
  b(s + "q_norm.weight", a.q_norm, a.dq_norm), b(s + "k_norm.weight", a.k_norm, a.dk_norm);
  b(s + "sinks", a.sinks, a.dsinks);
}

std::vector<Weight*> AttentionLayer::matrices(bool) { return {&w.q_w, &w.k_w, &w.v_w, &w.o_w}; }

// As project_qkv and output pass them (q_proj holds the query and its gate with attn_output_gate).
std::vector<LinearMap> AttentionLayer::linear_maps() const {
  const int C = cfg->hidden_size, HD = cfg->num_attention_heads * cfg->head_dim;
  const int KD = cfg->num_key_value_heads * cfg->head_dim;
  return {{w.q_w, C, HD * (cfg->attn_output_gate ? 2 : 1)}, {w.k_w, C, KD}, {w.v_w, C, KD},
          {w.o_w, HD, C}};
}

ParamCounts AttentionLayer::param_counts() const {
  const ModelConfig& c = *cfg;
  const double C = c.hidden_size, H = c.num_attention_heads, D = c.head_dim;
  const double Hkv = c.num_key_value_heads;
  const double gate = c.attn_output_gate ? 2 : 1;  // q_proj [H·2·D, C]: query and gate rows
  ParamCounts p;
  p.matmul_active = (gate + 1) * C * H * D + 2 * C * Hkv * D;
  p.total = p.matmul_active + (c.qkv_bias() ? gate * H * D + 2 * Hkv * D : 0) + (c.o_bias() ? C : 0) +
            (c.attention_sinks ? H : 0) + (c.use_qk_norm ? 2 * D : 0);
  p.active = p.total;
  return p;
}

AttentionSaved AttentionLayer::carve_saved(Arena& a, int B, int T) const {
  const ModelConfig& c = *cfg;
  const size_t N = (size_t)B * T, HD = (size_t)c.num_attention_heads * c.head_dim;
  const size_t KD = (size_t)c.num_key_value_heads * c.head_dim;
  const size_t H = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const bool qk = c.use_qk_norm, gated = c.attn_output_gate;
  AttentionSaved t;
  t.q_raw = qk ? a.take(N * HD) : nullptr, t.k_raw = qk ? a.take(N * KD) : nullptr;
  t.q_rstd = qk ? a.take(N * H) : nullptr, t.k_rstd = qk ? a.take(N * Hkv) : nullptr;
  t.q = a.take(N * HD), t.k = a.take(N * KD), t.v = a.take(N * KD);
  t.attn = a.take(N * HD), t.lse = a.take(N * H);
  t.qg = gated ? a.take(N * 2 * HD) : nullptr, t.gate = gated ? a.take(N * HD) : nullptr;
  t.attn_gated = gated ? a.take(N * HD) : nullptr;
  return t;
}

AttentionGradScratch AttentionLayer::carve_grads(Arena& a, int N_) const {
  const ModelConfig& c = *cfg;
  const size_t N = (size_t)N_, HD = (size_t)c.num_attention_heads * c.head_dim;
  const size_t KD = (size_t)c.num_key_value_heads * c.head_dim;
  const bool qk = c.use_qk_norm;
  AttentionGradScratch g;
  g.dattn = a.take(N * HD), g.dq = a.take(N * HD), g.dk = a.take(N * KD), g.dv = a.take(N * KD);
  g.dq_raw = qk ? a.take(N * HD) : nullptr, g.dk_raw = qk ? a.take(N * KD) : nullptr;
  g.dqg = c.attn_output_gate ? a.take(N * 2 * HD) : nullptr;
  g.dgate = c.attn_output_gate ? a.take(N * HD) : nullptr;
  return g;
}

AttentionInferScratch AttentionLayer::carve_infer(Arena& a, int rows, int) const {
  const ModelConfig& c = *cfg;
  const size_t R = (size_t)rows, HD = (size_t)c.num_attention_heads * c.head_dim;
  const size_t KD = (size_t)c.num_key_value_heads * c.head_dim;
  AttentionInferScratch g;
  g.q = a.take(R * HD), g.q_raw = a.take(R * HD), g.k_raw = a.take(R * KD);
  g.attn = a.take(R * HD);
  g.rstd = a.take(R * (size_t)(c.num_attention_heads + c.num_key_value_heads));
  // Sliding layers gather W − 1 cached positions before the new ones (a window wider than the
  // positions holds at most max_position_embeddings − 1 of them).
  const size_t W = (size_t)std::min(layer.sliding_window, c.max_position_embeddings);
  const size_t win = layer.sliding_window > 0 ? W - 1 + R : 0;
  g.k_win = win ? a.take(win * KD) : nullptr, g.v_win = win ? a.take(win * KD) : nullptr;
  g.qg = c.attn_output_gate ? a.take(R * 2 * HD) : nullptr;
  g.gate = c.attn_output_gate ? a.take(R * HD) : nullptr;
  g.k_new = a.take(R * KD), g.v_new = a.take(R * KD);
  return g;
}

CacheSpec AttentionLayer::cache_spec() const {
  CacheSpec s;
  s.k_numbers = s.v_numbers = cfg->num_key_value_heads * cfg->head_dim;  // Hkv·D each
  s.window = layer.sliding_window;
  s.cache = layer.sliding_window > 0 ? CacheKind::Ring : CacheKind::Paged;
  return s;
}

std::unique_ptr<LayerCache> AttentionLayer::make_cache(int capacity, const CacheStorage& st) const {
  const int Hkv = cfg->num_key_value_heads, D = cfg->head_dim;
  if (layer.sliding_window > 0)
    return std::make_unique<RingKvCache>(layer.sliding_window, capacity, Hkv, D, D, st);
  return std::make_unique<PagedKvCache>(capacity, PageRows{Hkv * D, Hkv * D}, st.dtype);
}

double AttentionLayer::flops_per_token(FlopPass pass, int context) const {
  return attention_flops(pass, context, cfg->num_attention_heads, cfg->head_dim);
}

SavedAttention AttentionLayer::saved_attention(const AttentionSaved& s) const {
  return {s.q, s.k, cfg->num_key_value_heads, cfg->head_dim};
}

}  // namespace llm0
