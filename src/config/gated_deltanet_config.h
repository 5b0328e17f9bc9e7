// Sizes of a Gated DeltaNet (linear-attention) layer, Hugging Face Qwen3NextConfig field names
// (arXiv:2412.06464; transformers/models/qwen3_next/configuration_qwen3_next.py). chunk_size is
// the chunk length L of the chunked form (an llm0 setting, not a config field).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace llm0 {

struct GatedDeltaNetConfig {
  int linear_num_key_heads = 0;    // nk
  int linear_num_value_heads = 0;  // nv (a multiple of nk)
  int linear_key_head_dim = 0;     // dk
  int linear_value_head_dim = 0;   // dv
  int linear_conv_kernel_dim = 0;  // K (causal depthwise conv1d taps)
  int chunk_size = 64;             // L (llm0: chunked prefill / training)

  bool enabled() const { return linear_num_key_heads > 0; }
  int key_dim() const { return linear_num_key_heads * linear_key_head_dim; }        // nk·dk
  int value_dim() const { return linear_num_value_heads * linear_value_head_dim; }  // nv·dv
  /// Channels of the convolution: [all q | all k | all v] = 2·nk·dk + nv·dv.
  int conv_channels() const { return 2 * key_dim() + value_dim(); }
  /// Rows of in_proj_qkvz: 2·nk·dk + 2·nv·dv.
  int qkvz_rows() const { return 2 * key_dim() + 2 * value_dim(); }
};

/// The linear_* fields of a config (all required, > 0; linear_num_value_heads a multiple of
/// linear_num_key_heads). Throws llm0::Error naming the field and `source`.
GatedDeltaNetConfig read_gated_deltanet(const nlohmann::json& j, const std::string& source);
/// Re-checks the sizes. Throws llm0::Error naming the field.
void validate_gated_deltanet(const GatedDeltaNetConfig& c, const std::string& source);
/// Writes the linear_* fields into a config object.
void write_gated_deltanet(nlohmann::json& j, const GatedDeltaNetConfig& c);
/// qwen3_next: `num_experts` must be given (HF Qwen3NextConfig defaults it to 512, so a config
/// without it would silently change meaning; 0 = dense MLP layers, else the MoE layers of
/// config/moe_config.h with a gated shared expert). Throws llm0::Error naming num_experts.
void check_qwen3_next_experts_stated(const nlohmann::json& j, const std::string& source);

}  // namespace llm0
