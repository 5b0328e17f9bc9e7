// Parameter names and shapes (Hugging Face LlamaForCausalLM / Qwen3ForCausalLM layout; linear
// weights [out_features, in_features]). The mixers and feed-forwards declare their own tensors
// (layers/*_mixer.cpp, layers/mlp_ffn.cpp, layers/moe_ffn.cpp); the table below lists them all.
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

#include "layers/mixer_factory.h"

namespace llm0 {

namespace {
void declare_norm(ParamStore& p, const ModelConfig& c, const std::string& name) {
  p.declare(name + ".weight", Shape{c.hidden_size});
  if (c.norm == NormKind::LayerNorm) p.declare(name + ".bias", Shape{c.hidden_size});
}
}  // namespace

void declare_model_params(ParamStore& p, const ModelConfig& c) {
  const int C = c.hidden_size;
  p.declare("model.embed_tokens.weight", Shape{c.vocab_size, C});
  if (c.position == PositionKind::Learned)
    p.declare("model.embed_positions.weight", Shape{c.max_position_embeddings, C});
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const std::string pre = "model.layers." + std::to_string(il) + ".";
    declare_norm(p, c, pre + "input_layernorm");
    make_mixer(c, il)->declare(p, pre);
    declare_norm(p, c, pre + "post_attention_layernorm");
    make_ffn(c, il)->declare(p, pre);
  }
  declare_norm(p, c, "model.norm");
  if (!c.tie_word_embeddings) p.declare("lm_head.weight", Shape{c.vocab_size, C});
}

}  // namespace llm0
