// A qwen3_next hybrid checkpoint in the Hugging Face layout: the tensor names and shapes written
// are Qwen3NextForCausalLM's (listed here by hand for one linear and one full layer), and a saved
// checkpoint loads with every tensor used (the loader refuses missing and unexpected tensors,
// tests/test_checkpoint.cpp) and gives the same logits.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/check.h"
#include "io/checkpoint.h"
#include "io/gguf/export.h"
#include "io/safetensors.h"
#include "model_fixtures.h"
#include "test_util.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

std::vector<float> logits_of(Model& m, const std::vector<int>& tokens) {
  std::vector<int> no_targets(tokens.size(), -1);
  m.forward(tokens.data(), no_targets.data(), 1, (int)tokens.size());
  return std::vector<float>(m.logits(), m.logits() + tokens.size() * m.config().vocab_size);
}

TEST(CheckpointQwen3Next, HuggingFaceNamesAndShapes) {
  const ModelConfig c = hybrid_config({1, 0}, /*qwen3_next=*/true);
  Model m(c);
  std::map<std::string, std::vector<int64_t>> got;
  for (const ParamInfo& p : m.params().params()) got[p.name] = p.shape.dims;
  // nk 2, nv 4, dk 6, dv 5, K 4, C 28, H 4, Hkv 2, D 24.
  const std::map<std::string, std::vector<int64_t>> want = {
      {"model.embed_tokens.weight", {61, 28}},
      {"model.layers.0.input_layernorm.weight", {28}},
      {"model.layers.0.linear_attn.in_proj_qkvz.weight", {2 * 2 * 6 + 2 * 4 * 5, 28}},
      {"model.layers.0.linear_attn.in_proj_ba.weight", {8, 28}},
      {"model.layers.0.linear_attn.conv1d.weight", {2 * 2 * 6 + 4 * 5, 1, 4}},
      {"model.layers.0.linear_attn.dt_bias", {4}},
      {"model.layers.0.linear_attn.A_log", {4}},
      {"model.layers.0.linear_attn.norm.weight", {5}},
      {"model.layers.0.linear_attn.out_proj.weight", {28, 20}},
      {"model.layers.0.post_attention_layernorm.weight", {28}},
      {"model.layers.0.mlp.gate_proj.weight", {44, 28}},
      {"model.layers.0.mlp.up_proj.weight", {44, 28}},
      {"model.layers.0.mlp.down_proj.weight", {28, 44}},
      {"model.layers.1.input_layernorm.weight", {28}},
      {"model.layers.1.self_attn.q_proj.weight", {4 * 2 * 24, 28}},
      {"model.layers.1.self_attn.k_proj.weight", {2 * 24, 28}},
      {"model.layers.1.self_attn.v_proj.weight", {2 * 24, 28}},
      {"model.layers.1.self_attn.o_proj.weight", {28, 4 * 24}},
      {"model.layers.1.self_attn.q_norm.weight", {24}},
      {"model.layers.1.self_attn.k_norm.weight", {24}},
      {"model.layers.1.post_attention_layernorm.weight", {28}},
      {"model.layers.1.mlp.gate_proj.weight", {44, 28}},
      {"model.layers.1.mlp.up_proj.weight", {44, 28}},
      {"model.layers.1.mlp.down_proj.weight", {28, 44}},
      {"model.norm.weight", {28}},
      {"lm_head.weight", {61, 28}},
  };
  EXPECT_EQ(got, want);
}

TEST(CheckpointQwen3Next, SavedCheckpointLoadsWithEveryTensorUsed) {
  // Chunk 64: the loaded model's (chunk_size is a run setting, not a config field), so the logits
  // are bit-identical.
  const ModelConfig c = hybrid_config({1, 1, 1, 0}, /*qwen3_next=*/true, 64);
  Model m(c);
  random_weights(m, 5);
  const std::string dir = test::fresh_temp_path("ckpt_q3n", "model");
  save_checkpoint(m, dir);
  std::unique_ptr<Model> back = load_model(dir);
  EXPECT_EQ(back->config().model_type, "qwen3_next");
  EXPECT_EQ(back->num_parameters(), m.num_parameters());
  const std::vector<int> tokens = random_tokens(11, c.vocab_size, 2);
  EXPECT_TRUE(test::all_close(logits_of(*back, tokens), logits_of(m, tokens), 0, 0, "logits"));
}

// Linear layers and the attention output gate exist only in llama.cpp's qwen3next: outside
// qwen3_next the GGUF export refuses them by name instead of writing a llama file with the wrong
// q_proj; a qwen3_next model without experts or with dv != dk is refused too.
TEST(CheckpointQwen3Next, GgufExportRefusesWhatLlamaCppCannotRead) {
  auto refusal = [](const ModelConfig& c) {
    try {
      gguf_architecture(c);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refusal(hybrid_config({1, 0}, false)).find("linear-attention"), std::string::npos);
  EXPECT_NE(refusal(hybrid_config({0, 0}, false, 4, /*gate=*/true)).find("attn_output_gate"),
            std::string::npos);
  // qwen3_next goes to llama.cpp's qwen3next, which needs dv = dk and experts on every layer
  // (test_gguf_qwen3next covers the export that it accepts).
  EXPECT_NE(refusal(hybrid_config({1, 0}, true)).find("linear_value_head_dim 5 != linear_key_head_dim 6"),
            std::string::npos);
  ModelConfig dense = hybrid_config({1, 0}, true);
  dense.linear.linear_value_head_dim = 6;
  EXPECT_NE(refusal(dense).find("this qwen3_next model has no mixture-of-experts layer"),
            std::string::npos);
  EXPECT_EQ(refusal(hybrid_config({0, 0}, false)), "") << "a plain llama still exports";
}

}  // namespace
