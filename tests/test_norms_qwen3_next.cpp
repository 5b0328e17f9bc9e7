// Qwen3-Next's two norm conventions, tensor by tensor: the norms outside the DeltaNet scale by
// (1 + w), so w = −1 silences what they feed — model.norm (all logits 0), input_layernorm (the
// layer's mixer, as if its out_proj / o_proj were 0), post_attention_layernorm (the MLP, as if
// down_proj were 0), q_norm (every query 0, as if the query rows of the interleaved q_proj were
// 0); the DeltaNet's gated norm uses plain w, so linear_attn.norm.weight = 0 silences the layer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_fixtures.h"
#include "test_util.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

const ModelConfig& config() {
  static const ModelConfig c = hybrid_config({1, 0}, /*qwen3_next=*/true);  // linear, then full
  return c;
}

std::vector<float> logits_with(const std::vector<std::pair<std::string, float>>& fills,
                               const std::string& zero_rows_of_q = "") {
  Model m(config());
  random_weights(m, 3);
  for (const auto& [name, v] : fills) {
    float* w = m.params().value(name);
    for (size_t i = 0; i < m.params().info(name).numel; ++i) w[i] = v;
  }
  if (!zero_rows_of_q.empty()) {  // the query half [query (D) | gate (D)] of every head
    const int H = config().num_attention_heads, D = config().head_dim, C = config().hidden_size;
    float* w = m.params().value(zero_rows_of_q);
    for (int h = 0; h < H; ++h)
      for (int r = 0; r < D; ++r)
        for (int i = 0; i < C; ++i) w[((size_t)h * 2 * D + r) * C + i] = 0.0f;
  }
  const std::vector<int> tokens = random_tokens(9, config().vocab_size, 4);
  std::vector<int> no_targets(tokens.size(), -1);
  m.forward(tokens.data(), no_targets.data(), 1, (int)tokens.size());
  return std::vector<float>(m.logits(), m.logits() + tokens.size() * config().vocab_size);
}

void expect_same(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  EXPECT_TRUE(test::all_close(a, b, 1e-5, 1e-6, what)) << what;
}

TEST(NormsQwen3Next, OnePlusWOutsideTheDeltaNetPlainWInside) {
  const std::vector<float> base = logits_with({});
  const std::vector<float> zero(base.size(), 0.0f);
  expect_same(logits_with({{"model.norm.weight", -1.0f}}), zero, "model.norm (1 + w)");
  expect_same(logits_with({{"model.layers.0.input_layernorm.weight", -1.0f}}),
              logits_with({{"model.layers.0.linear_attn.out_proj.weight", 0.0f}}),
              "input_layernorm (1 + w) of a linear layer");
  expect_same(logits_with({{"model.layers.1.input_layernorm.weight", -1.0f}}),
              logits_with({{"model.layers.1.self_attn.o_proj.weight", 0.0f}}),
              "input_layernorm (1 + w) of a full layer");
  expect_same(logits_with({{"model.layers.1.post_attention_layernorm.weight", -1.0f}}),
              logits_with({{"model.layers.1.mlp.down_proj.weight", 0.0f}}),
              "post_attention_layernorm (1 + w)");
  expect_same(logits_with({{"model.layers.1.self_attn.q_norm.weight", -1.0f}}),
              logits_with({}, "model.layers.1.self_attn.q_proj.weight"),
              "q_norm (1 + w), queries interleaved with gates in q_proj");
  expect_same(logits_with({{"model.layers.0.linear_attn.norm.weight", 0.0f}}),
              logits_with({{"model.layers.0.linear_attn.out_proj.weight", 0.0f}}),
              "linear_attn.norm plain w");
  // And the silenced parts mattered.
  EXPECT_FALSE(test::all_close(logits_with({{"model.layers.0.linear_attn.norm.weight", 0.0f}}),
                               base, 1e-3, 1e-3, "linear layer silenced"));
  EXPECT_FALSE(test::all_close(logits_with({{"model.layers.1.self_attn.q_norm.weight", -1.0f}}),
                               base, 1e-3, 1e-3, "queries silenced"));
}

}  // namespace
