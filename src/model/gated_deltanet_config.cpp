// Gated DeltaNet config fields and Qwen3-Next's dense-MLP check. See gated_deltanet_config.h.
#include "model/gated_deltanet_config.h"

#include <algorithm>
#include <vector>

#include "core/check.h"
#include "model/config_fields.h"

namespace llm0 {

namespace {
int int_field(const ConfigFields& f, const char* key) {
  const int64_t v = f.positive(key);
  LLM0_CHECK(v <= 1000000, "{}: {}={} is out of range", f.source, key, v);
  return (int)v;
}
}  // namespace

GatedDeltaNetConfig read_gated_deltanet(const nlohmann::json& j, const std::string& src) {
  const ConfigFields f{j, src};
  GatedDeltaNetConfig c;
  c.linear_num_key_heads = int_field(f, "linear_num_key_heads");
  c.linear_num_value_heads = int_field(f, "linear_num_value_heads");
  c.linear_key_head_dim = int_field(f, "linear_key_head_dim");
  c.linear_value_head_dim = int_field(f, "linear_value_head_dim");
  c.linear_conv_kernel_dim = int_field(f, "linear_conv_kernel_dim");
  validate_gated_deltanet(c, src);
  return c;
}

void validate_gated_deltanet(const GatedDeltaNetConfig& c, const std::string& src) {
  LLM0_CHECK(c.linear_num_key_heads > 0 && c.linear_num_value_heads > 0 &&
                 c.linear_key_head_dim > 0 && c.linear_value_head_dim > 0 &&
                 c.linear_conv_kernel_dim > 0 && c.chunk_size > 0,
             "{}: linear_num_key_heads={}, linear_num_value_heads={}, linear_key_head_dim={}, "
             "linear_value_head_dim={}, linear_conv_kernel_dim={} must be > 0",
             src, c.linear_num_key_heads, c.linear_num_value_heads, c.linear_key_head_dim,
             c.linear_value_head_dim, c.linear_conv_kernel_dim);
  LLM0_CHECK(c.linear_num_value_heads % c.linear_num_key_heads == 0,
             "{}: linear_num_value_heads={} is not a multiple of linear_num_key_heads={}", src,
             c.linear_num_value_heads, c.linear_num_key_heads);
}

void write_gated_deltanet(nlohmann::json& j, const GatedDeltaNetConfig& c) {
  j["linear_num_key_heads"] = c.linear_num_key_heads;
  j["linear_num_value_heads"] = c.linear_num_value_heads;
  j["linear_key_head_dim"] = c.linear_key_head_dim;
  j["linear_value_head_dim"] = c.linear_value_head_dim;
  j["linear_conv_kernel_dim"] = c.linear_conv_kernel_dim;
}

void check_qwen3_next_dense(const nlohmann::json& j, int L, const std::string& src) {
  const ConfigFields f{j, src};
  LLM0_CHECK(f.has("num_experts"),
             "{}: qwen3_next config without \"num_experts\" (Hugging Face's default is 512 "
             "experts): mixture-of-experts layers are not supported by the engine yet; set "
             "\"num_experts\": 0 for dense MLP layers",
             src);
  const int64_t experts = f.non_negative_or("num_experts", 0);
  const int64_t step = f.positive_or("decoder_sparse_step", 1);
  std::vector<int64_t> dense_only;
  if (f.has("mlp_only_layers")) {
    const nlohmann::json& m = j.at("mlp_only_layers");
    LLM0_CHECK(m.is_array(), "{}: field \"mlp_only_layers\" must be an array of layer indices",
               src);
    for (const auto& v : m) {
      LLM0_CHECK(v.is_number_integer(), "{}: mlp_only_layers entries must be integers, got {}",
                 src, v.dump());
      dense_only.push_back(v.get<int64_t>());
    }
  }
  for (int il = 0; il < L && experts > 0; ++il) {
    const bool dense = std::find(dense_only.begin(), dense_only.end(), il) != dense_only.end() ||
                       (il + 1) % step != 0;
    LLM0_CHECK(dense,
               "{}: layer {} has experts (num_experts={}, decoder_sparse_step={}): "
               "mixture-of-experts layers are not supported by the engine yet; a qwen3_next "
               "config runs with dense MLP layers (\"num_experts\": 0)",
               src, il, experts, step);
  }
}

}  // namespace llm0
