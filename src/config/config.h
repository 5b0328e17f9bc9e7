// ModelConfig: a Hugging Face config.json, field names verbatim (LlamaConfig / MistralConfig /
// Qwen2Config / Qwen3Config / Qwen2MoeConfig / Qwen3MoeConfig / DeepseekV2Config /
// DeepseekV3Config / GPT-2-like variants). Unknown fields are ignored; missing required
// or inconsistent fields are errors naming the field and the file. llm0 extensions (not in HF
// configs) are marked below. Per-layer choices (full or sliding attention; dense MLP or
// mixture of experts) are resolved once into `layers` (DESIGN.md "How new kinds plug in"), by the same rules as the KV ledger
// (config/config_fields.h: layer_types, sliding_window_pattern, Mistral, Qwen2's max_window_layers).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/gated_deltanet_config.h"
#include "config/layer_kind.h"
#include "config/mla_config.h"
#include "config/moe_config.h"

namespace llm0 {

/// How positions enter the model.
enum class PositionKind {
  Rope,     // RoPE on Q and K (Llama, Qwen3)
  Learned,  // learned absolute table added to the embeddings (GPT-2's wpe)
  None      // no positional signal (NoPE): causality alone
};
enum class NormKind { RMSNorm, LayerNorm };
enum class MlpKind { SwiGLU, Gelu };

/// Which feed-forward a layer has: the dense MLP (intermediate_size) or a mixture of experts
/// (ModelConfig::moe; layers/moe.h). Resolved by config/moe_config.h resolve_moe_layers.
enum class FfnKind { Mlp, Moe };

/// One layer's choices. sliding_window is W for sliding layers (query i sees keys i-W < j <= i)
/// and 0 for full attention.
struct LayerConfig {
  LayerKind kind = LayerKind::FullAttention;
  int sliding_window = 0;
  FfnKind ffn = FfnKind::Mlp;

  /// The feed-forward is a mixture of experts (FfnKind::Moe).
  bool has_experts() const { return ffn == FfnKind::Moe; }
  /// The mixer is linear attention (Gated DeltaNet): a fixed-size state, no per-token cache.
  bool is_linear_attention() const { return kind == LayerKind::LinearAttention; }
};

struct ModelConfig {
  std::string model_type = "llama";  // "llama", "qwen3", ...
  int vocab_size = 0;
  int hidden_size = 0;               // C
  int intermediate_size = 0;         // F
  int num_hidden_layers = 0;         // L
  int num_attention_heads = 0;       // H
  int num_key_value_heads = 0;       // Hkv (default: H)
  int head_dim = 0;                  // D (default: hidden_size / H)
  int max_position_embeddings = 0;   // context limit
  double rms_norm_eps = 0;           // also used as LayerNorm eps ("layer_norm_eps" accepted)
  double rope_theta = 0;             // required when position_embedding_type == "rope"
  double partial_rotary_factor = 1;  // rotary_dim = head_dim * factor
  bool tie_word_embeddings = false;
  bool attention_bias = false;       // bias on q/k/v/o projections (HF LlamaConfig); qwen2: q/k/v only
  bool mlp_bias = false;             // bias on MLP projections (HF LlamaConfig)
  bool use_qk_norm = false;          // Qwen3's per-head RMSNorm of q, k (true for model_type qwen3)
  std::string hidden_act = "silu";   // "silu" -> SwiGLU; "gelu", "gelu_new", "gelu_pytorch_tanh" -> GELU MLP
  int sliding_window = 0;            // W of the sliding layers (0: no layer slides)
  MlaConfig mla;                     // deepseek_v2 / deepseek_v3 attention (every layer)
  MoeConfig moe;                     // qwen2_moe / qwen3_moe / deepseek_v2 / deepseek_v3 experts
  GatedDeltaNetConfig linear;        // linear_attention layers (qwen3_next; any config with
                                     // layer_types naming them)
  bool attn_output_gate = false;     // gated attention (arXiv:2505.06708): q_proj [H·2·D, C] per
                                     // head [query | gate], output · σ(gate) before o_proj. Always
                                     // on for qwen3_next; elsewhere an llm0 extension key
  std::vector<LayerConfig> layers;   // [num_hidden_layers] (from_json resolves; empty = all full)
  // llm0 extensions (not in HF configs):
  PositionKind position = PositionKind::Rope;  // "position_embedding_type": rope | learned | none
  NormKind norm = NormKind::RMSNorm;           // "norm_type": rmsnorm | layernorm
  bool attention_sinks = false;  // "attention_sinks": true → model.layers.{i}.self_attn.sinks [H]
                                 // (gpt-oss's learned per-head sink logits on a llama-style model)
  int bos_token_id = -1, eos_token_id = -1;
  std::string source = "config.json";  // the file it was read from (from_json's `source`), named
                                       // by errors raised after parsing (layers/mixer_factory.h)

  MlpKind mlp() const { return hidden_act == "silu" ? MlpKind::SwiGLU : MlpKind::Gelu; }
  bool gelu_tanh() const { return hidden_act != "gelu"; }
  /// R = int(head_dim × partial_rotary_factor) (HF's rule); validate() requires it even. For MLA
  /// head_dim is qk_rope_head_dim (as HF DeepseekV3Config sets it), so R = dr.
  int rotary_dim() const;
  /// Layer il's choices (full attention when `layers` is empty).
  LayerConfig layer(int il) const;
  /// Bias on q/k/v (attention_bias, or always for qwen2) and on o_proj (attention_bias, never
  /// for qwen2: HF Qwen2Attention has bias=True on q/k/v_proj and bias=False on o_proj).
  bool qkv_bias() const { return attention_bias || qwen2_family(); }
  bool o_bias() const { return attention_bias && !qwen2_family(); }
  bool qwen2_family() const { return model_type == "qwen2" || model_type == "qwen2_moe"; }
  bool deepseek() const { return is_deepseek_type(model_type); }
  /// Qwen3-Next's RMSNorms outside the DeltaNet (input, post-attention, final, q_norm, k_norm)
  /// scale by (1 + w), weights stored zero-centred (HF Qwen3NextRMSNorm).
  bool unit_offset_norms() const { return model_type == "qwen3_next"; }
  /// True when some layer is linear attention.
  bool has_linear_layers() const;

  /// Parses and validates. `source` names the file in error messages.
  /// Throws llm0::Error naming the field: missing required field, wrong type, non-positive size,
  /// num_attention_heads % num_key_value_heads != 0, unknown hidden_act / norm / position kind,
  /// a model_type the engine does not run (gpt_oss, gemma*, ... named with what is missing),
  /// rope_scaling, a qwen3_next layer with experts (num_experts > 0: the MoE issue), missing or
  /// inconsistent linear_* sizes when some layer is linear_attention, a sliding_window larger
  /// than max_position_embeddings when some layer slides (it would never limit attention).
  static ModelConfig from_json(const nlohmann::json& j, const std::string& source = "config.json");
  /// Reads and parses a config.json file. Throws llm0::Error naming the file.
  static ModelConfig from_file(const std::string& path);
  /// The config as Hugging Face style JSON (round-trips through from_json).
  nlohmann::json to_json() const;
  /// Re-checks the invariants (called by from_json). Throws llm0::Error.
  void validate(const std::string& source = "config") const;
};

}  // namespace llm0
