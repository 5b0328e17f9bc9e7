// Tiny model configs with awkward sizes (every dimension different) and random weights large
// enough that logits are far from uniform, for the model-level tests.
#pragma once
#include <random>
#include <string>
#include <vector>

#include "model/model.h"

namespace llm0::testing_fixtures {

enum class Heads { MHA, GQA, MQA };

/// hidden_size 28, head_dim 24 (≠ 28/4), 4 query heads, F = 44, V = 61, 2 layers, context 64.
inline ModelConfig tiny_config(Heads heads, PositionKind pos, double rotary_factor, bool qk_norm) {
  ModelConfig c;
  c.model_type = qk_norm ? "qwen3" : "llama";
  c.vocab_size = 61, c.hidden_size = 28, c.intermediate_size = 44, c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = heads == Heads::MHA ? 4 : heads == Heads::GQA ? 2 : 1;
  c.head_dim = 24, c.max_position_embeddings = 64, c.rms_norm_eps = 1e-5;
  c.position = pos, c.rope_theta = 10000.0, c.partial_rotary_factor = rotary_factor;
  c.use_qk_norm = qk_norm;
  c.validate();
  return c;
}

/// GPT-2 flavour: LayerNorm, GELU (tanh) MLP, learned positions, biases, tied embeddings.
inline ModelConfig gpt2_config() {
  ModelConfig c = tiny_config(Heads::MHA, PositionKind::Learned, 1.0, false);
  c.norm = NormKind::LayerNorm, c.hidden_act = "gelu_new", c.attention_bias = true;
  c.mlp_bias = true, c.tie_word_embeddings = true;
  c.validate();
  return c;
}

/// tiny_config (GQA 4/2, RoPE) with sliding-window layers: layer il slides (window W) when
/// `slides` has a 1 at il, else full attention; optional attention sinks; qwen2 flavour (q/k/v bias,
/// no o_proj bias) when `qwen2`.
inline ModelConfig sliding_config(int W, std::vector<int> slides, bool sinks, bool qwen2 = false) {
  ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  c.num_hidden_layers = (int)slides.size();
  c.sliding_window = W, c.attention_sinks = sinks;
  c.layers.assign(slides.size(), LayerConfig{});
  for (size_t il = 0; il < slides.size(); ++il)
    if (slides[il]) c.layers[il] = {LayerKind::SlidingAttention, W};
  if (qwen2) c.model_type = "qwen2";
  c.validate();
  return c;
}

/// tiny_config (GQA 4/2, head_dim 24, partial rotary 0.5: R = 12) with shared-KV attention layers
/// (layers/shared_kv_attention.h): layer il is shared_kv_attention when `shared` has a 1 at il,
/// else full attention; optional attention sinks.
inline ModelConfig shared_kv_model_config(std::vector<int> shared, bool sinks) {
  ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 0.5, false);
  c.num_hidden_layers = (int)shared.size();
  c.attention_sinks = sinks;
  c.layers.assign(shared.size(), LayerConfig{});
  for (size_t il = 0; il < shared.size(); ++il)
    if (shared[il]) c.layers[il].kind = LayerKind::SharedKvAttention;
  c.validate();
  return c;
}

/// DeepSeek-V2 style multi-head latent attention on tiny_config's sizes (hidden 28, 2 layers),
/// 3 heads, dn 5 ≠ dr 4 ≠ dv 7 ≠ r 11 ≠ q_lora_rank (0: q_proj; else q_a/q_b), dense MLP.
inline ModelConfig mla_model_config(int q_lora_rank) {
  ModelConfig c = tiny_config(Heads::MHA, PositionKind::Rope, 1.0, false);
  c.model_type = "deepseek_v2";
  c.num_attention_heads = c.num_key_value_heads = 3;
  c.mla = {q_lora_rank, 11, 5, 4, 7};
  c.head_dim = c.mla.qk_rope_head_dim;
  c.layers.assign((size_t)c.num_hidden_layers, LayerConfig{LayerKind::LatentAttention, 0});
  c.validate();
  return c;
}

/// Mixture-of-experts rows on tiny_config's sizes (hidden 28, F 44, 2 layers), one per family,
/// with E, K, Fe, Fs all different from the other sizes:
///   qwen3_moe: layer 0 dense (mlp_only_layers), layer 1 MoE, E 5, K 2, renormalised, aux loss;
///   qwen2_moe: both MoE, E 6, K 2, Fe 10, gated shared expert Fs 18, not renormalised;
///   deepseek_v2: MLA, layer 0 dense (first_k_dense_replace 1), E 6, K 2, group_limited_greedy
///     (3 groups, 2 kept), × 1.5, one shared expert;
///   deepseek_v3: MLA with q_lora_rank, both MoE, sigmoid, noaux_tc (4 groups, 2 kept), E 8, K 3,
///     renormalised, × 2.5, two shared experts, bias-update balancing.
inline ModelConfig moe_model_config(const std::string& family) {
  ModelConfig c = family == "qwen3_moe" ? tiny_config(Heads::GQA, PositionKind::Rope, 1.0, true)
                  : family == "qwen2_moe" ? tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false)
                  : mla_model_config(family == "deepseek_v3" ? 9 : 0);
  c.model_type = family;
  MoeConfig& m = c.moe;
  for (LayerConfig& l : c.layers.empty() ? (c.layers.assign(2, LayerConfig{}), c.layers) : c.layers)
    l.ffn = FfnKind::Moe;
  if (family == "qwen3_moe") {
    m.num_experts = 5, m.num_experts_per_tok = 2, m.moe_intermediate_size = 12, m.norm_topk_prob = true;
    m.mlp_only_layers = {0}, m.balance = MoeBalance::AuxLoss, m.router_aux_loss_coef = 0.05;
    c.layers[0].ffn = FfnKind::Mlp;
  } else if (family == "qwen2_moe") {
    m.num_experts = 6, m.num_experts_per_tok = 2, m.moe_intermediate_size = 10;
    m.shared_expert_intermediate_size = 18, m.shared_expert_gate = true;
  } else if (family == "deepseek_v2") {
    m.num_experts = 6, m.num_experts_per_tok = 2, m.moe_intermediate_size = 10;
    m.topk_method = MoeTopk::GroupLimitedGreedy, m.n_group = 3, m.topk_group = 2;
    m.routed_scaling_factor = 1.5, m.n_shared_experts = 1, m.shared_expert_intermediate_size = 10;
    m.first_k_dense_replace = 1, c.layers[0].ffn = FfnKind::Mlp;
  } else {
    m.num_experts = 8, m.num_experts_per_tok = 3, m.moe_intermediate_size = 6;
    m.scoring = MoeScoring::Sigmoid, m.topk_method = MoeTopk::NoauxTc, m.n_group = 4, m.topk_group = 2;
    m.norm_topk_prob = true, m.routed_scaling_factor = 2.5, m.n_shared_experts = 2;
    m.shared_expert_intermediate_size = 12, m.balance = MoeBalance::BiasUpdate;
  }
  c.validate();
  return c;
}

/// Gated DeltaNet hybrid on tiny_config's sizes (GQA 4/2, hidden 28, head_dim 24): layer il is
/// linear_attention when `linear` has a 1 at il, else full attention; nk 2, nv 4, dk 6, dv 5,
/// K 4, chunk L = `chunk`. qwen3_next flavour (gated attention, (1 + w) norms, QK-norm, partial
/// RoPE 0.25) when `qwen3_next`; else llama with the extension key attn_output_gate = `gate`.
inline ModelConfig hybrid_config(std::vector<int> linear, bool qwen3_next, int chunk = 4,
                                 bool gate = false) {
  ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, qwen3_next ? 0.25 : 1.0,
                              qwen3_next);
  if (qwen3_next) c.model_type = "qwen3_next";
  c.attn_output_gate = qwen3_next || gate;
  c.num_hidden_layers = (int)linear.size();
  c.layers.assign(linear.size(), LayerConfig{});
  for (size_t il = 0; il < linear.size(); ++il)
    if (linear[il]) c.layers[il].kind = LayerKind::LinearAttention;
  c.linear.linear_num_key_heads = 2, c.linear.linear_num_value_heads = 4;
  c.linear.linear_key_head_dim = 6, c.linear.linear_value_head_dim = 5;
  c.linear.linear_conv_kernel_dim = 4, c.linear.chunk_size = chunk;
  c.validate();
  return c;
}

/// Qwen3-Next's layout with experts in every layer (hybrid_config({1, 0, 1}, true): linear, full,
/// linear): E `experts`, K 2, Fe 10, a gated shared expert of 12, renormalised.
inline ModelConfig hybrid_moe_config(int experts) {
  ModelConfig c = hybrid_config({1, 0, 1}, true);
  c.moe.num_experts = experts, c.moe.num_experts_per_tok = 2, c.moe.moe_intermediate_size = 10;
  c.moe.shared_expert_intermediate_size = 12, c.moe.shared_expert_gate = true;
  c.moe.norm_topk_prob = true;
  for (LayerConfig& l : c.layers) l.ffn = FfnKind::Moe;
  c.validate();
  return c;
}

/// Fills every parameter with normal(0, sd) (norm weights 1 + normal(0, 0.1); for Qwen3-Next's
/// zero-centred (1 + w) norms w = normal(0, 0.1), the same scales).
inline void random_weights(Model& m, unsigned seed, double sd = 0.25) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  for (const ParamInfo& p : m.params().params()) {
    float* w = m.params().data() + p.offset;
    const bool norm = p.name.find("norm") != std::string::npos && p.name.find(".weight") != std::string::npos;
    const bool centred = norm && m.config().unit_offset_norms() &&
                         p.name.find("linear_attn.") == std::string::npos;
    const double base = norm && !centred ? 1.0 : 0.0;
    for (size_t i = 0; i < p.numel; ++i) w[i] = (float)(base + (norm ? 0.1 : sd) * n(rng));
  }
}

inline std::vector<int> random_tokens(int T, int V, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> t((size_t)T);
  for (int& x : t) x = (int)(rng() % (unsigned)V);
  return t;
}

}  // namespace llm0::testing_fixtures
