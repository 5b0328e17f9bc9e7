// Multi-head latent attention's side of the mixer contract (layers/mixer.h): its parameter table
// (HF DeepseekV2Attention names), buffer plan, cache spec (one latent row [c_kv | k_pe] per token,
// arXiv:2405.04434 §2.1.2), its decode forms' context rows and the FLOPs it reports to the ledger.
// Symbols as in layers/mla.h.
//   self_attn.q_proj [H·D, C] | q_a_proj [qr, C] + q_a_layernorm [qr] + q_b_proj [H·D, qr]
//   self_attn.kv_a_proj_with_mqa [r + dr, C], kv_a_layernorm [r], kv_b_proj [H·(dn+dv), r]
//   self_attn.o_proj [C, H·dv]; bias on q_a, kv_a and o with attention_bias
#include "cache/paged_kv_cache.h"
#include "layers/mla.h"

namespace llm0 {

namespace {
// MLA sizes: H heads, D = dn + dr, dv, r, qr, R = r + dr (layers/mla.h).
struct MlaSizes {
  size_t H, HD, HDv, HE, r, R, qr;
  explicit MlaSizes(const ModelConfig& c)
      : H(c.num_attention_heads), HD(H * c.mla.qk_head_dim()), HDv(H * c.mla.v_head_dim),
        HE(H * (c.mla.qk_nope_head_dim + c.mla.v_head_dim)), r(c.mla.kv_lora_rank),
        R(r + c.mla.qk_rope_head_dim), qr(c.mla.q_lora_rank) {}
};
}  // namespace

void MlaLayer::declare(ParamStore& p, const std::string& layer_prefix) const {
  const ModelConfig& c = *cfg;
  const MlaConfig& m = c.mla;
  const std::string s = layer_prefix + "self_attn.";
  const int C = c.hidden_size, H = c.num_attention_heads, D = m.qk_head_dim();
  const bool bias = c.attention_bias;  // HF DeepseekV2Attention: q_a, kv_a and o only
  if (m.q_lora_rank > 0) {
    declare_linear(p, s + "q_a_proj", m.q_lora_rank, C, bias);
    p.declare(s + "q_a_layernorm.weight", Shape{m.q_lora_rank});
    declare_linear(p, s + "q_b_proj", H * D, m.q_lora_rank, false);
  } else {
    declare_linear(p, s + "q_proj", H * D, C, false);
  }
  declare_linear(p, s + "kv_a_proj_with_mqa", m.kv_lora_rank + m.qk_rope_head_dim, C, bias);
  p.declare(s + "kv_a_layernorm.weight", Shape{m.kv_lora_rank});
  declare_linear(p, s + "kv_b_proj", H * (m.qk_nope_head_dim + m.v_head_dim), m.kv_lora_rank, false);
  declare_linear(p, s + "o_proj", C, H * m.v_head_dim, bias);
}

void MlaLayer::bind(const ParamBind& b, const std::string& layer_prefix) {
  // Names absent in this layer (q_proj vs q_a/q_b, biases) bind to null.
  const std::string s = layer_prefix + "self_attn.";
  MlaWeights& m = w;
  b(s + "q_proj.weight", m.q_w, m.dq_w), b(s + "q_b_proj.weight", m.q_b_w, m.dq_b_w);
  b(s + "q_a_proj.weight", m.q_a_w, m.dq_a_w), b(s + "q_a_proj.bias", m.q_a_b, m.dq_a_b);
  b(s + "q_a_layernorm.weight", m.q_a_norm, m.dq_a_norm);
  b(s + "kv_a_proj_with_mqa.weight", m.kv_a_w, m.dkv_a_w);
  b(s + "kv_a_proj_with_mqa.bias", m.kv_a_b, m.dkv_a_b);
  b(s + "kv_a_layernorm.weight", m.kv_a_norm, m.dkv_a_norm);
  b(s + "kv_b_proj.weight", m.kv_b_w, m.dkv_b_w);
  b(s + "o_proj.weight", m.o_w, m.do_w), b(s + "o_proj.bias", m.o_b, m.do_b);
}

// kv_b_proj stays float32: absorbed decode slices it per head.
std::vector<Weight*> MlaLayer::matrices(bool) {
  return {&w.q_w, &w.q_a_w, &w.q_b_w, &w.kv_a_w, &w.o_w};
}

// As project_q, project_latent and the output pass them (kv_b_proj is sliced by hand).
std::vector<LinearMap> MlaLayer::linear_maps() const {
  const MlaConfig& m = cfg->mla;
  const int C = cfg->hidden_size, H = cfg->num_attention_heads, D = m.qk_head_dim();
  std::vector<LinearMap> maps;
  if (m.q_lora_rank > 0)
    maps = {{w.q_a_w, C, m.q_lora_rank}, {w.q_b_w, m.q_lora_rank, H * D}};
  else
    maps = {{w.q_w, C, H * D}};
  maps.push_back({w.kv_a_w, C, m.kv_lora_rank + m.qk_rope_head_dim});
  maps.push_back({w.o_w, H * m.v_head_dim, C});
  return maps;
}

ParamCounts MlaLayer::param_counts() const {
  const ModelConfig& c = *cfg;
  const MlaConfig& m = c.mla;
  const double C = c.hidden_size, H = c.num_attention_heads;
  const double D = m.qk_head_dim(), r = m.kv_lora_rank, qr = m.q_lora_rank;
  const double q = qr > 0 ? qr * C + qr + H * D * qr : H * D * C;  // + q_a_layernorm
  const double mm = (qr > 0 ? qr * C + H * D * qr : H * D * C) + (r + m.qk_rope_head_dim) * C +
                    H * (m.qk_nope_head_dim + m.v_head_dim) * r + C * H * m.v_head_dim;
  const double bias = c.attention_bias ? (qr > 0 ? qr : 0) + r + m.qk_rope_head_dim + C : 0;
  ParamCounts p;
  p.matmul_active = mm;
  p.total = q + (r + m.qk_rope_head_dim) * C + r + H * (m.qk_nope_head_dim + m.v_head_dim) * r +
            C * H * m.v_head_dim + bias;
  p.active = p.total;
  return p;
}

MlaSaved MlaLayer::carve_saved(Arena& a, int B, int T) const {
  const MlaSizes z(*cfg);
  const size_t N = (size_t)B * T;
  MlaSaved t;
  t.cq = z.qr ? a.take(N * z.qr) : nullptr, t.cq_n = z.qr ? a.take(N * z.qr) : nullptr;
  t.cq_rstd = z.qr ? a.take(N) : nullptr;
  t.kv_a = a.take(N * z.R), t.c_raw = a.take(N * z.r), t.c = a.take(N * z.r), t.c_rstd = a.take(N);
  t.q = a.take(N * z.HD), t.k = a.take(N * z.HD), t.v = a.take(N * z.HDv);
  t.attn = a.take(N * z.HDv), t.lse = a.take(N * z.H);
  return t;
}

MlaGradScratch MlaLayer::carve_grads(Arena& a, int N_) const {
  const MlaSizes z(*cfg);
  const size_t N = (size_t)N_;
  MlaGradScratch g;
  g.dattn = a.take(N * z.HDv), g.dq = a.take(N * z.HD), g.dk = a.take(N * z.HD);
  g.dv = a.take(N * z.HDv), g.dkv = a.take(N * z.HE), g.dkv_a = a.take(N * z.R);
  g.dc = a.take(N * z.r), g.dc_raw = a.take(N * z.r);
  g.dcq = z.qr ? a.take(N * z.qr) : nullptr, g.dcq_raw = z.qr ? a.take(N * z.qr) : nullptr;
  return g;
}

// `rows` new tokens, `context` cached positions (the expanded decode form's buffers).
MlaInferScratch MlaLayer::carve_infer(Arena& a, int rows_, int context_) const {
  const MlaSizes z(*cfg);
  const size_t rows = (size_t)rows_, context = (size_t)context_;
  MlaInferScratch g;
  g.q = a.take(rows * z.HD);
  g.cq = z.qr ? a.take(rows * z.qr) : nullptr, g.cq_n = z.qr ? a.take(rows * z.qr) : nullptr;
  g.kv_a = a.take(rows * z.R), g.c_raw = a.take(rows * z.r), g.c = a.take(rows * z.r);
  g.attn = a.take(rows * z.HDv), g.q_abs = a.take(rows * z.H * z.R), g.o_lat = a.take(rows * z.H * z.r);
  g.lat = a.take(context * z.R), g.kv = a.take(context * z.HE), g.k = a.take(context * z.HD), g.v = a.take(context * z.HDv);
  return g;
}

int MlaLayer::context_rows(const InferOptions& opt, int positions) const {
  return opt.mla_decode == MlaDecode::Expanded ? positions : 0;
}

CacheSpec MlaLayer::cache_spec() const {
  CacheSpec s;
  s.k_numbers = cfg->mla.kv_lora_rank + cfg->mla.qk_rope_head_dim;  // [c_kv | k_pe], no V row
  s.cache = CacheKind::Paged;
  return s;
}

std::unique_ptr<LayerCache> MlaLayer::make_cache(int capacity, const CacheStorage& st) const {
  return std::make_unique<PagedKvCache>(
      capacity, PageRows{cfg->mla.kv_lora_rank + cfg->mla.qk_rope_head_dim, 0}, st.dtype);
}

double MlaLayer::flops_per_token(FlopPass pass, int context) const {
  const MlaConfig& m = cfg->mla;
  return attention_flops(pass, context, cfg->num_attention_heads,
                         0.5 * (m.qk_head_dim() + m.v_head_dim));
}

SavedAttention MlaLayer::saved_attention(const MlaSaved& s) const {
  return {s.q, s.k, cfg->num_attention_heads, cfg->mla.qk_head_dim()};  // expanded heads: Hkv = H
}

}  // namespace llm0
