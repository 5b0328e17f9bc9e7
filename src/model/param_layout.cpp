// Binding of layer views to the parameter store (names and shapes: model/param_table.cpp).
#include "model/model.h"
#include "model/param_table.h"

namespace llm0 {

void Model::declare_params() {
  declare_model_params(params_, cfg_);
  params_.finalize();
}

namespace {
std::string layer_prefix(int il) { return "model.layers." + std::to_string(il) + "."; }

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
