// config.json parsing: required fields, no silent defaults for eps/theta, integers that would
// wrap or truncate, odd rotary dims, unsupported RoPE scaling — each a clear error naming the
// field; valid Hugging Face configs (extra fields, head_dim defaulted) parse.
#include <gtest/gtest.h>

#include <string>

#include "core/check.h"
#include "model/config.h"

using namespace llm0;

namespace {
nlohmann::json base() {
  return {{"vocab_size", 100}, {"hidden_size", 64},       {"intermediate_size", 96},
          {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"max_position_embeddings", 128}, {"rms_norm_eps", 1e-6}, {"rope_theta", 5e5},
          {"transformers_version", "4.51.0"}, {"rope_scaling", nullptr}};
}

void expect_error(const nlohmann::json& j, const std::string& needle) {
  try {
    ModelConfig::from_json(j, "cfg.json");
    ADD_FAILURE() << "no error; expected one mentioning " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cfg.json"), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(Config, HuggingFaceFieldsAreReadNotDefaulted) {
  const ModelConfig c = ModelConfig::from_json(base());
  EXPECT_EQ(c.head_dim, 16);  // hidden_size / num_attention_heads
  EXPECT_DOUBLE_EQ(c.rope_theta, 5e5);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_EQ(c.rotary_dim(), 16);
  for (const char* field : {"rms_norm_eps", "rope_theta", "vocab_size", "hidden_size"}) {
    nlohmann::json j = base();
    j.erase(field);
    expect_error(j, field);
  }
}

TEST(Config, IntegersNeverWrapOrTruncate) {
  nlohmann::json j = base();
  j["hidden_size"] = 4294967360ULL;  // 2^32 + 64 would wrap to 64
  expect_error(j, "hidden_size");
  j = base(), j["hidden_size"] = 64.5;
  expect_error(j, "must be an integer");
  j = base(), j["num_hidden_layers"] = -1;
  expect_error(j, "num_hidden_layers");
}

TEST(Config, RotaryDimsMustBeEvenAndScalingIsRefused) {
  nlohmann::json j = base();
  j["head_dim"] = 15;
  expect_error(j, "must be even");
  j = base(), j["partial_rotary_factor"] = 0.1875;  // 16 * 0.1875 = 3
  expect_error(j, "must be even");
  j = base(), j["partial_rotary_factor"] = 0.25;
  EXPECT_EQ(ModelConfig::from_json(j).rotary_dim(), 4);
  j = base(), j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}};
  expect_error(j, "rope_scaling");
  j = base(), j["num_key_value_heads"] = 3;
  expect_error(j, "not divisible");
}
