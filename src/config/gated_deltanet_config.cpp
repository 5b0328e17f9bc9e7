// Gated DeltaNet config fields and Qwen3-Next's num_experts check. See gated_deltanet_config.h.
#include "config/gated_deltanet_config.h"

#include <algorithm>
#include <vector>

#include "config/config_fields.h"
#include "core/check.h"

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

void check_qwen3_next_experts_stated(const nlohmann::json& j, const std::string& src) {
  const ConfigFields f{j, src};
  LLM0_CHECK(f.has("num_experts"),
             "{}: qwen3_next config without \"num_experts\" (Hugging Face's default is 512 "
             "experts): state it (0 for dense MLP layers)", src);
}

}  // namespace llm0
