// Layer kinds of Gated DeltaNet hybrids (HF Qwen3NextConfig): full_attention_interval and
// layer_types resolve to the same per-layer kinds as the KV ledger; qwen3_next turns on gated
// attention, QK-norm and (1 + w) norms; attn_output_gate is the llm0 extension key elsewhere;
// MoE layers follow Qwen3NextSparseMoeBlock (gated shared expert, norm_topk_prob default true);
// a missing num_experts and missing linear_* sizes are refused by name; to_json round-trips.
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"
#include "config_errors.h"
#include "core/check.h"
#include "ledger/kv_ledger.h"

using namespace llm0;

namespace {

nlohmann::json qwen3_next_dense() {
  return {{"model_type", "qwen3_next"}, {"vocab_size", 100}, {"hidden_size", 64},
          {"intermediate_size", 96}, {"num_hidden_layers", 8}, {"num_attention_heads", 4},
          {"num_key_value_heads", 2}, {"head_dim", 16}, {"max_position_embeddings", 128},
          {"rms_norm_eps", 1e-6}, {"rope_theta", 1e7}, {"partial_rotary_factor", 0.25},
          {"full_attention_interval", 4}, {"linear_num_key_heads", 2},
          {"linear_num_value_heads", 6}, {"linear_key_head_dim", 8},
          {"linear_value_head_dim", 10}, {"linear_conv_kernel_dim", 4}, {"num_experts", 0}};
}

std::string kinds(const ModelConfig& c) {
  std::string s;
  for (int il = 0; il < c.num_hidden_layers; ++il)
    s += c.layer(il).kind == LayerKind::LinearAttention ? 'L' : 'F';
  return s;
}


TEST(ConfigQwen3Next, IntervalGivesThreeLinearToOneFullAndTheLedgerAgrees) {
  const nlohmann::json j = qwen3_next_dense();
  const ModelConfig c = ModelConfig::from_json(j);
  EXPECT_EQ(kinds(c), "LLLFLLLF");
  EXPECT_TRUE(c.attn_output_gate && c.use_qk_norm && c.unit_offset_norms());
  EXPECT_EQ(c.rotary_dim(), 4);
  EXPECT_EQ(c.linear.conv_channels(), 2 * 2 * 8 + 6 * 10);
  EXPECT_EQ(c.linear.qkvz_rows(), 2 * 2 * 8 + 2 * 6 * 10);
  const KvLedger k = kv_ledger(j, KvOptions{});
  int64_t linear = 0;
  for (const KvLayerGroup& g : k.groups)
    if (g.layer_type == "linear_attention") linear += g.layers;
  EXPECT_EQ(linear, 6) << "the ledger resolves the same kinds";
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  EXPECT_EQ(kinds(back), "LLLFLLLF");
  EXPECT_EQ(back.linear.linear_num_value_heads, 6);
  EXPECT_TRUE(back.attn_output_gate && back.unit_offset_norms());
}

TEST(ConfigQwen3Next, LayerTypesAndTheExtensionKeyOnOtherModels) {
  nlohmann::json j = qwen3_next_dense();
  j["model_type"] = "llama", j["num_hidden_layers"] = 3, j.erase("full_attention_interval");
  j["layer_types"] = {"full_attention", "linear_attention", "linear_attention"};
  ModelConfig c = ModelConfig::from_json(j);
  EXPECT_EQ(kinds(c), "FLL");
  EXPECT_FALSE(c.attn_output_gate || c.unit_offset_norms() || c.use_qk_norm);
  j["attn_output_gate"] = true;
  c = ModelConfig::from_json(j);
  EXPECT_TRUE(c.attn_output_gate && !c.unit_offset_norms());
  EXPECT_TRUE(ModelConfig::from_json(c.to_json()).attn_output_gate);
}

// HF Qwen3NextDecoderLayer: layer i has experts iff num_experts > 0, i not in mlp_only_layers and
// (i + 1) % decoder_sparse_step == 0; the shared expert is gated (as qwen2_moe).
TEST(ConfigQwen3Next, ExpertLayersFollowHuggingFaceRules) {
  nlohmann::json j = qwen3_next_dense();
  j["num_experts"] = 6, j["num_experts_per_tok"] = 2, j["moe_intermediate_size"] = 12;
  j["shared_expert_intermediate_size"] = 20, j["decoder_sparse_step"] = 2;
  j["mlp_only_layers"] = {3};
  const ModelConfig c = ModelConfig::from_json(j);
  std::string ffn;
  for (int il = 0; il < c.num_hidden_layers; ++il) ffn += c.layer(il).ffn == FfnKind::Moe ? 'E' : 'D';
  EXPECT_EQ(ffn, "DEDDDEDE");
  EXPECT_TRUE(c.moe.norm_topk_prob);  // Qwen3NextConfig's default
  EXPECT_TRUE(c.moe.shared_expert_gate);
  EXPECT_EQ(c.moe.shared_expert_intermediate_size, 20);
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  for (int il = 0; il < c.num_hidden_layers; ++il) EXPECT_EQ(back.layer(il).ffn, c.layer(il).ffn);
  j["mlp_only_layers"] = {0, 1, 2, 3, 4, 5, 6, 7};  // every layer dense
  for (int il = 0; il < 8; ++il) EXPECT_EQ(ModelConfig::from_json(j).layer(il).ffn, FfnKind::Mlp);
}

TEST(ConfigQwen3Next, MissingExpertCountAndSizesAreRefusedByName) {
  nlohmann::json j;
  j = qwen3_next_dense(), j.erase("num_experts");  // HF's default is 512 experts
  test::expect_config_error(j, "num_experts");
  for (const char* key : {"linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                          "linear_value_head_dim", "linear_conv_kernel_dim"}) {
    j = qwen3_next_dense(), j.erase(key);
    test::expect_config_error(j, key);
  }
  j = qwen3_next_dense(), j["linear_num_value_heads"] = 5;  // not a multiple of 2 key heads
  test::expect_config_error(j, "linear_num_value_heads");
}

}  // namespace
