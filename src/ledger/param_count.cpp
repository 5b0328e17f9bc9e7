// Parameter ledger. See param_count.h. Mirrors model/param_layout.cpp; the test checks the sum
// against Model::num_parameters for every model kind.
#include "ledger/param_count.h"

#include "config/config_fields.h"
#include "core/json_file.h"

namespace llm0 {

namespace {

struct Part {
  double total = 0, active = 0, matmul_active = 0, experts = 0;
};

double swiglu(double C, double F) { return 3.0 * C * F; }

// A Gated DeltaNet layer (layers/gated_deltanet.h): in_proj_qkvz, in_proj_ba and out_proj are
// products; the depthwise conv, dt_bias, A_log and the gated norm are counted in the total only.
Part linear_attention(const ModelConfig& c) {
  const GatedDeltaNetConfig& g = c.linear;
  const double C = c.hidden_size, nv = g.linear_num_value_heads;
  Part p;
  p.matmul_active = (double)g.qkvz_rows() * C + 2 * nv * C + C * (double)g.value_dim();
  p.total = p.active = p.matmul_active + (double)g.conv_channels() * g.linear_conv_kernel_dim +
                       2 * nv + g.linear_value_head_dim;
  return p;
}

Part attention(const ModelConfig& c, LayerKind kind) {
  if (kind == LayerKind::LinearAttention) return linear_attention(c);
  const double C = c.hidden_size, H = c.num_attention_heads;
  Part p;
  if (c.mla.enabled()) {
    const MlaConfig& m = c.mla;
    const double D = m.qk_head_dim(), r = m.kv_lora_rank, qr = m.q_lora_rank;
    const double q = qr > 0 ? qr * C + qr + H * D * qr : H * D * C;  // + q_a_layernorm
    const double mm = (qr > 0 ? qr * C + H * D * qr : H * D * C) + (r + m.qk_rope_head_dim) * C +
                      H * (m.qk_nope_head_dim + m.v_head_dim) * r + C * H * m.v_head_dim;
    const double bias = c.attention_bias ? (qr > 0 ? qr : 0) + r + m.qk_rope_head_dim + C : 0;
    p.matmul_active = mm;
    p.total = q + (r + m.qk_rope_head_dim) * C + r + H * (m.qk_nope_head_dim + m.v_head_dim) * r +
              C * H * m.v_head_dim + bias;
  } else {
    const double D = c.head_dim, Hkv = c.num_key_value_heads;
    const double gate = c.attn_output_gate ? 2 : 1;  // q_proj [H·2·D, C]: query and gate rows
    p.matmul_active = (gate + 1) * C * H * D + 2 * C * Hkv * D;
    p.total = p.matmul_active + (c.qkv_bias() ? gate * H * D + 2 * Hkv * D : 0) + (c.o_bias() ? C : 0) +
              (c.attention_sinks ? H : 0) + (c.use_qk_norm ? 2 * D : 0);
  }
  p.active = p.total;
  return p;
}

Part ffn(const ModelConfig& c, FfnKind kind) {
  const double C = c.hidden_size;
  Part p;
  if (kind == FfnKind::Mlp) {
    const double F = c.intermediate_size, mats = c.mlp() == MlpKind::SwiGLU ? 3.0 : 2.0;
    p.matmul_active = mats * C * F;
    p.total = p.active = p.matmul_active + (c.mlp_bias ? (mats - 1) * F + C : 0);
    return p;
  }
  const MoeConfig& m = c.moe;
  const double E = m.num_experts, K = m.num_experts_per_tok, Fe = m.moe_intermediate_size;
  const double Fs = m.shared_expert_intermediate_size;
  const double router = E * C, gate = m.shared_expert_gate ? C : 0;
  const double shared = Fs > 0 ? swiglu(C, Fs) : 0;
  p.experts = E * swiglu(C, Fe);
  p.total = router + (m.has_correction_bias() ? E : 0) + p.experts + shared + gate;
  p.matmul_active = router + K * swiglu(C, Fe) + shared + gate;
  p.active = p.matmul_active + (m.has_correction_bias() ? E : 0);
  return p;
}

}  // namespace

ParamCount count_parameters(const ModelConfig& c) {
  const double C = c.hidden_size, V = c.vocab_size;
  const double norm = c.norm == NormKind::LayerNorm ? 2 * C : C;  // weight (+ bias)
  ParamCount n;
  n.embedding = V * C + (c.position == PositionKind::Learned ? (double)c.max_position_embeddings * C : 0);
  const double head = c.tie_word_embeddings ? 0 : V * C;
  n.total = n.active = n.embedding + head + norm;  // + final norm
  n.matmul_active = V * C;                         // lm_head (the embedding when tied)
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const Part a = attention(c, c.layer(il).kind), f = ffn(c, c.layer(il).ffn);
    n.total += 2 * norm + a.total + f.total;
    n.active += 2 * norm + a.active + f.active;
    n.matmul_active += a.matmul_active + f.matmul_active;
    n.experts += f.experts;
  }
  return n;
}

double decode_weight_bytes(const ModelConfig& c, double num_parameters, double bf16_numel) {
  const double embed = c.tie_word_embeddings ? 0.0 : (double)c.vocab_size * c.hidden_size;
  const ParamCount n = count_parameters(c);
  const double skipped = n.total - n.active;  // routed experts not chosen
  const double skipped_bf16 = bf16_numel > 0 ? skipped : 0.0;
  return 4.0 * (num_parameters - embed - bf16_numel - (skipped - skipped_bf16)) +
         2.0 * (bf16_numel - skipped_bf16);
}

ModelConfig read_config_for_count(const std::string& path) {
  nlohmann::json j = text_config_of(read_json_file(path, "config file"));
  j.erase("rope_scaling");
  return ModelConfig::from_json(j, path);
}

}  // namespace llm0
