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
#include "model/param_table.h"

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

void declare_model_params(ParamStore& p, const ModelConfig& c) {
  const int C = c.hidden_size, F = c.intermediate_size;
  p.declare("model.embed_tokens.weight", Shape{c.vocab_size, C});
  if (c.position == PositionKind::Learned)
    p.declare("model.embed_positions.weight", Shape{c.max_position_embeddings, C});
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const std::string pre = layer_prefix(il);
    declare_norm(p, c, pre + "input_layernorm");
    if (c.layer(il).kind == LayerKind::LatentAttention)
      declare_mla(p, c, pre + "self_attn.");
    else if (c.layer(il).kind == LayerKind::LinearAttention)
      declare_gated_deltanet(p, c, pre + "linear_attn.");
    else
      declare_attention(p, c, pre + "self_attn.");
    declare_norm(p, c, pre + "post_attention_layernorm");
    if (c.layer(il).ffn == FfnKind::Moe) {
      declare_moe(p, c, pre + "mlp.");
      continue;
    }
    if (c.mlp() == MlpKind::SwiGLU) declare_linear(p, pre + "mlp.gate_proj", F, C, c.mlp_bias);
    declare_linear(p, pre + "mlp.up_proj", F, C, c.mlp_bias);
    declare_linear(p, pre + "mlp.down_proj", C, F, c.mlp_bias);
  }
  declare_norm(p, c, "model.norm");
  if (!c.tie_word_embeddings) p.declare("lm_head.weight", Shape{c.vocab_size, C});
}

}  // namespace llm0
