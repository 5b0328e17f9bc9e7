// Parameter names and shapes (Hugging Face LlamaForCausalLM / Qwen3ForCausalLM layout; linear
// weights [out_features, in_features]) and the binding of layer views to the store.
//   model.embed_tokens.weight [V, C]            model.embed_positions.weight [P, C] (learned only;
//   model.layers.{i}.input_layernorm.weight [C]  llm0's name, as OPT's embed_positions)
//   model.layers.{i}.self_attn.{q,k,v,o}_proj.weight / .bias   model.layers.{i}.self_attn.{q,k}_norm.weight [D]
//   model.layers.{i}.self_attn.sinks [H] (attention_sinks; gpt-oss's name)
//   MLA (deepseek_v2/v3; dn, dr, dv, r, qr as in layers/mla.h, D = dn + dr):
//   model.layers.{i}.self_attn.q_proj [H·D, C] | q_a_proj [qr, C] + q_a_layernorm [qr] + q_b_proj [H·D, qr]
//   model.layers.{i}.self_attn.kv_a_proj_with_mqa [r + dr, C], kv_a_layernorm [r], kv_b_proj [H·(dn+dv), r]
//   model.layers.{i}.self_attn.o_proj [C, H·dv]; bias on q_a, kv_a and o with attention_bias
//   Gated DeltaNet (linear_attention layers; layers/gated_deltanet.h): model.layers.{i}.linear_attn.
//   in_proj_qkvz [2·nk·dk + 2·nv·dv, C], in_proj_ba [2·nv, C], conv1d.weight [Cc, 1, K],
//   dt_bias [nv], A_log [nv], norm.weight [dv], out_proj [C, nv·dv]
//   Gated attention (attn_output_gate): q_proj [H·2·D, C], per head [query | gate]
//   model.layers.{i}.post_attention_layernorm.weight [C]
//   model.layers.{i}.mlp.{gate,up,down}_proj.weight              model.norm.weight [C]
//   MoE layers (layers/moe.h): model.layers.{i}.mlp.gate.weight [E, C], .gate.e_score_correction_bias [E]
//   (noaux_tc), .experts.{e}.{gate,up,down}_proj.weight, .shared_expert(s).{gate,up,down}_proj.weight,
//   .shared_expert_gate.weight [1, C] (Qwen's gated shared expert)
//   lm_head.weight [V, C] (absent when tie_word_embeddings). LayerNorm adds a .bias beside each norm .weight.
#include "model/model.h"

namespace llm0 {

namespace {
std::string layer_prefix(int il) { return "model.layers." + std::to_string(il) + "."; }

void declare_norm(ParamStore& p, const ModelConfig& c, const std::string& name) {
  p.declare(name + ".weight", Shape{c.hidden_size});
  if (c.norm == NormKind::LayerNorm) p.declare(name + ".bias", Shape{c.hidden_size});
}

void declare_linear(ParamStore& p, const std::string& name, int out, int in, bool bias) {
  p.declare(name + ".weight", Shape{out, in});
  if (bias) p.declare(name + ".bias", Shape{out});
}


void declare_mla(ParamStore& p, const ModelConfig& c, const std::string& s) {
  const MlaConfig& m = c.mla;
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

void declare_swiglu(ParamStore& p, const std::string& s, int C, int F) {
  declare_linear(p, s + "gate_proj", F, C, false);
  declare_linear(p, s + "up_proj", F, C, false);
  declare_linear(p, s + "down_proj", C, F, false);
}

void declare_moe(ParamStore& p, const ModelConfig& c, const std::string& s) {
  const MoeConfig& m = c.moe;
  const int C = c.hidden_size;
  p.declare(s + "gate.weight", Shape{m.num_experts, C});
  if (m.has_correction_bias()) p.declare(s + "gate.e_score_correction_bias", Shape{m.num_experts});
  for (int e = 0; e < m.num_experts; ++e)
    declare_swiglu(p, s + "experts." + std::to_string(e) + ".", C, m.moe_intermediate_size);
  if (m.shared_expert_intermediate_size == 0) return;
  declare_swiglu(p, s + m.shared_name(c.deepseek()) + ".", C, m.shared_expert_intermediate_size);
  if (m.shared_expert_gate) p.declare(s + "shared_expert_gate.weight", Shape{1, C});
}

void declare_gated_deltanet(ParamStore& p, const ModelConfig& c, const std::string& s) {
  const GatedDeltaNetConfig& g = c.linear;
  const int C = c.hidden_size;
  declare_linear(p, s + "in_proj_qkvz", g.qkvz_rows(), C, false);
  declare_linear(p, s + "in_proj_ba", 2 * g.linear_num_value_heads, C, false);
  p.declare(s + "conv1d.weight", Shape{g.conv_channels(), 1, g.linear_conv_kernel_dim});
  p.declare(s + "dt_bias", Shape{g.linear_num_value_heads});
  p.declare(s + "A_log", Shape{g.linear_num_value_heads});
  p.declare(s + "norm.weight", Shape{g.linear_value_head_dim});
  declare_linear(p, s + "out_proj", C, g.value_dim(), false);
}

void declare_attention(ParamStore& p, const ModelConfig& c, const std::string& s) {
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
}  // namespace

void Model::declare_params() {
  const ModelConfig& c = cfg_;
  const int C = c.hidden_size, F = c.intermediate_size;
  params_.declare("model.embed_tokens.weight", Shape{c.vocab_size, C});
  if (c.position == PositionKind::Learned)
    params_.declare("model.embed_positions.weight", Shape{c.max_position_embeddings, C});
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const std::string p = layer_prefix(il);
    declare_norm(params_, c, p + "input_layernorm");
    if (c.layer(il).kind == LayerKind::LatentAttention)
      declare_mla(params_, c, p + "self_attn.");
    else if (c.layer(il).kind == LayerKind::LinearAttention)
      declare_gated_deltanet(params_, c, p + "linear_attn.");
    else
      declare_attention(params_, c, p + "self_attn.");
    declare_norm(params_, c, p + "post_attention_layernorm");
    if (c.layer(il).ffn == FfnKind::Moe) {
      declare_moe(params_, c, p + "mlp.");
      continue;
    }
    if (c.mlp() == MlpKind::SwiGLU) declare_linear(params_, p + "mlp.gate_proj", F, C, c.mlp_bias);
    declare_linear(params_, p + "mlp.up_proj", F, C, c.mlp_bias);
    declare_linear(params_, p + "mlp.down_proj", C, F, c.mlp_bias);
  }
  declare_norm(params_, c, "model.norm");
  if (!c.tie_word_embeddings) params_.declare("lm_head.weight", Shape{c.vocab_size, C});
  params_.finalize();
}

namespace {
// Value and gradient views of a parameter, or nulls when it does not exist (optional biases).
struct Bind {
  ParamStore& p;
  const float* value(const std::string& n) const { return p.has(n) ? p.value(n) : nullptr; }
  float* grad(const std::string& n) const { return p.has(n) ? p.gradient(n) : nullptr; }
  float* mutable_value(const std::string& n) const { return p.has(n) ? p.value(n) : nullptr; }
};

// Dense MLP or expert views under prefix f ("model.layers.{i}.mlp.", "...mlp.experts.{e}.").
void bind_mlp(const Bind& b, const ModelConfig& c, const std::string& f, int width, MlpLayer& l) {
  l.cfg = &c, l.width = width;
  MlpWeights& m = l.w;
  m.gate_w = b.value(f + "gate_proj.weight"), m.gate_b = b.value(f + "gate_proj.bias");
  m.up_w = b.value(f + "up_proj.weight"), m.up_b = b.value(f + "up_proj.bias");
  m.down_w = b.value(f + "down_proj.weight"), m.down_b = b.value(f + "down_proj.bias");
  m.dgate_w = b.grad(f + "gate_proj.weight"), m.dgate_b = b.grad(f + "gate_proj.bias");
  m.dup_w = b.grad(f + "up_proj.weight"), m.dup_b = b.grad(f + "up_proj.bias");
  m.ddown_w = b.grad(f + "down_proj.weight"), m.ddown_b = b.grad(f + "down_proj.bias");
}

void bind_moe(const Bind& b, const ModelConfig& c, const std::string& f, MoeLayer& l) {
  const MoeConfig& m = c.moe;
  l.cfg = &c;
  l.gate_w = b.value(f + "gate.weight"), l.dgate_w = b.grad(f + "gate.weight");
  l.bias = b.mutable_value(f + "gate.e_score_correction_bias");
  l.experts.resize((size_t)m.num_experts);
  for (int e = 0; e < m.num_experts; ++e)
    bind_mlp(b, c, f + "experts." + std::to_string(e) + ".", m.moe_intermediate_size,
             l.experts[(size_t)e]);
  bind_mlp(b, c, f + m.shared_name(c.deepseek()) + ".", m.shared_expert_intermediate_size, l.shared);
  l.shared_gate_w = b.value(f + "shared_expert_gate.weight");
  l.dshared_gate_w = b.grad(f + "shared_expert_gate.weight");
}

// MLA views; names absent in this layer (q_proj vs q_a/q_b, biases) bind to null.
void bind_mla(const Bind& b, const std::string& s, MlaLayer& l) {
  MlaWeights& m = l.w;
  m.q_w = b.value(s + "q_proj.weight"), m.dq_w = b.grad(s + "q_proj.weight");
  m.q_a_w = b.value(s + "q_a_proj.weight"), m.dq_a_w = b.grad(s + "q_a_proj.weight");
  m.q_a_b = b.value(s + "q_a_proj.bias"), m.dq_a_b = b.grad(s + "q_a_proj.bias");
  m.q_a_norm = b.value(s + "q_a_layernorm.weight"), m.dq_a_norm = b.grad(s + "q_a_layernorm.weight");
  m.q_b_w = b.value(s + "q_b_proj.weight"), m.dq_b_w = b.grad(s + "q_b_proj.weight");
  m.kv_a_w = b.value(s + "kv_a_proj_with_mqa.weight");
  m.dkv_a_w = b.grad(s + "kv_a_proj_with_mqa.weight");
  m.kv_a_b = b.value(s + "kv_a_proj_with_mqa.bias"), m.dkv_a_b = b.grad(s + "kv_a_proj_with_mqa.bias");
  m.kv_a_norm = b.value(s + "kv_a_layernorm.weight");
  m.dkv_a_norm = b.grad(s + "kv_a_layernorm.weight");
  m.kv_b_w = b.value(s + "kv_b_proj.weight"), m.dkv_b_w = b.grad(s + "kv_b_proj.weight");
  m.o_w = b.value(s + "o_proj.weight"), m.do_w = b.grad(s + "o_proj.weight");
  m.o_b = b.value(s + "o_proj.bias"), m.do_b = b.grad(s + "o_proj.bias");
}

void bind_gated_deltanet(const Bind& b, const ModelConfig& c, const std::string& s,
                         GatedDeltaNetLayer& l) {
  l.cfg = c.linear, l.C = c.hidden_size, l.eps = (float)c.rms_norm_eps;
  GatedDeltaNetWeights& w = l.w;
  w.in_proj_qkvz = b.value(s + "in_proj_qkvz.weight");
  w.din_proj_qkvz = b.grad(s + "in_proj_qkvz.weight");
  w.in_proj_ba = b.value(s + "in_proj_ba.weight"), w.din_proj_ba = b.grad(s + "in_proj_ba.weight");
  w.conv1d = b.value(s + "conv1d.weight"), w.dconv1d = b.grad(s + "conv1d.weight");
  w.dt_bias = b.value(s + "dt_bias"), w.ddt_bias = b.grad(s + "dt_bias");
  w.A_log = b.value(s + "A_log"), w.dA_log = b.grad(s + "A_log");
  w.norm = b.value(s + "norm.weight"), w.dnorm = b.grad(s + "norm.weight");
  w.out_proj = b.value(s + "out_proj.weight"), w.dout_proj = b.grad(s + "out_proj.weight");
}

NormLayer bind_norm(const Bind& b, const ModelConfig& c, const std::string& name) {
  NormLayer n;
  n.kind = c.norm, n.eps = (float)c.rms_norm_eps, n.C = c.hidden_size;
  n.unit_offset = c.unit_offset_norms();
  n.w = b.value(name + ".weight"), n.b = b.value(name + ".bias");
  n.dw = b.grad(name + ".weight"), n.db = b.grad(name + ".bias");
  return n;
}
}  // namespace

void Model::bind_layers() {
  const Bind b{params_};
  blocks_.resize((size_t)cfg_.num_hidden_layers);
  for (int il = 0; il < cfg_.num_hidden_layers; ++il) {
    const std::string p = layer_prefix(il);
    Block& blk = blocks_[(size_t)il];
    blk.norm1 = bind_norm(b, cfg_, p + "input_layernorm");
    blk.norm2 = bind_norm(b, cfg_, p + "post_attention_layernorm");
    blk.kind = cfg_.layer(il).kind;
    blk.attn.cfg = &cfg_;
    blk.attn.layer = cfg_.layer(il);
    bind_mla(b, p + "self_attn.", blk.mla);
    if (blk.kind == LayerKind::LinearAttention)
      bind_gated_deltanet(b, cfg_, p + "linear_attn.", blk.gdn);
    blk.mla.cfg = &cfg_;
    blk.mla.rope = rope_.get();
    blk.attn.rope = rope_.get();
    AttentionWeights& a = blk.attn.w;
    const std::string s = p + "self_attn.";
    a.q_w = b.value(s + "q_proj.weight"), a.q_b = b.value(s + "q_proj.bias");
    a.k_w = b.value(s + "k_proj.weight"), a.k_b = b.value(s + "k_proj.bias");
    a.v_w = b.value(s + "v_proj.weight"), a.v_b = b.value(s + "v_proj.bias");
    a.o_w = b.value(s + "o_proj.weight"), a.o_b = b.value(s + "o_proj.bias");
    a.q_norm = b.value(s + "q_norm.weight"), a.k_norm = b.value(s + "k_norm.weight");
    a.sinks = b.value(s + "sinks"), a.dsinks = b.grad(s + "sinks");
    a.dq_w = b.grad(s + "q_proj.weight"), a.dq_b = b.grad(s + "q_proj.bias");
    a.dk_w = b.grad(s + "k_proj.weight"), a.dk_b = b.grad(s + "k_proj.bias");
    a.dv_w = b.grad(s + "v_proj.weight"), a.dv_b = b.grad(s + "v_proj.bias");
    a.do_w = b.grad(s + "o_proj.weight"), a.do_b = b.grad(s + "o_proj.bias");
    a.dq_norm = b.grad(s + "q_norm.weight"), a.dk_norm = b.grad(s + "k_norm.weight");
    blk.ffn = cfg_.layer(il).ffn;
    if (blk.ffn == FfnKind::Moe)
      bind_moe(b, cfg_, p + "mlp.", blk.moe);
    else
      bind_mlp(b, cfg_, p + "mlp.", 0, blk.mlp);
  }
  final_norm_ = bind_norm(b, cfg_, "model.norm");
  embed_w_ = b.value("model.embed_tokens.weight");
  dembed_w_ = b.grad("model.embed_tokens.weight");
  pos_w_ = b.value("model.embed_positions.weight");
  dpos_w_ = b.grad("model.embed_positions.weight");
  // Tied: lm_head IS the embedding, so both uses add into one gradient (counted once).
  const char* head = cfg_.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight";
  head_w_ = b.value(head);
  dhead_w_ = b.grad(head);
}

}  // namespace llm0
