// `llm0 lesson experts` on a small qwen2_moe model (the preset's kind at a test's size): the ledger equals the model's parameter count, every
// (token, slot) row is routed once, and the router's cross-entropy gradient is exactly zero for
// top-1 renormalised routing and non-zero otherwise (the trap of docs/derivations/moe.md).
#include <gtest/gtest.h>

#include <numeric>

#include "core/check.h"
#include "lesson/lesson_experts.h"
#include "test_util.h"

#include <fstream>
#include <nlohmann/json.hpp>

using namespace llm0;

namespace {
std::string preset(const char* name) { return std::string(LLM0_SOURCE_DIR) + "/configs/" + name; }

// qwen2_moe, 3 layers (layer 1 dense), 7 experts of width 12, top 2, gated shared expert of 20.
std::string small_moe_config() {
  const nlohmann::json j = {
      {"model_type", "qwen2_moe"}, {"vocab_size", 97}, {"hidden_size", 24},
      {"intermediate_size", 40}, {"num_hidden_layers", 3}, {"num_attention_heads", 4},
      {"num_key_value_heads", 2}, {"head_dim", 6}, {"max_position_embeddings", 64},
      {"num_experts", 7}, {"num_experts_per_tok", 2}, {"moe_intermediate_size", 12},
      {"shared_expert_intermediate_size", 20}, {"mlp_only_layers", {1}},
      {"norm_topk_prob", true}, {"router_aux_loss_coef", 0.01}, {"rms_norm_eps", 1e-6},
      {"rope_theta", 10000.0}};
  const std::string path = test::fresh_temp_path("lesson_experts", "config.json");
  std::ofstream(path) << j.dump();
  return path;
}
}  // namespace

TEST(LessonExperts, LedgerLoadsAndTheTopOneTrap) {
  lesson::ExpertsOptions opt;
  opt.config = small_moe_config();
  opt.tokens = 41;
  const lesson::ExpertsLesson l = lesson::run_experts_lesson(opt);
  EXPECT_EQ(l.total_params, (double)l.model_params);
  EXPECT_LT(l.active_params, l.total_params);
  EXPECT_EQ(l.moe_layers, 2);
  ASSERT_EQ((int)l.loads.size(), l.moe_layers);
  for (const lesson::ExpertLayerLoad& r : l.loads) {
    ASSERT_EQ((int)r.tokens.size(), l.experts);
    EXPECT_EQ(std::accumulate(r.tokens.begin(), r.tokens.end(), uint64_t{0}),
              (uint64_t)(opt.tokens - 1) * l.top_k) << "layer " << r.layer;
    EXPECT_GE(r.max_share, 1.0 / l.experts);
    EXPECT_LE(r.min_share, 1.0 / l.experts);
  }
  ASSERT_EQ(l.gradients.size(), 3u);
  EXPECT_EQ(l.gradients[0].top_k, 1);
  EXPECT_TRUE(l.gradients[0].renormalised);
  EXPECT_EQ(l.gradients[0].max_abs, 0.0);  // exactly: the single weight is 1 whatever the score
  EXPECT_GT(l.gradients[1].max_abs, 1e-7);  // top-1, raw probability as the weight
  EXPECT_GT(l.gradients[2].max_abs, 1e-7);  // top-2, renormalised
  const std::string text = lesson::experts_text(l);
  EXPECT_NE(text.find("exactly zero"), std::string::npos);
  EXPECT_EQ(lesson::to_json(l)["gradients"][0]["max_abs"].get<double>(), 0.0);
}

TEST(LessonExperts, DenseConfigAndBadTokenCountsAreRefusedByName) {
  lesson::ExpertsOptions opt;
  opt.config = preset("llm0-small.json");
  try {
    lesson::run_experts_lesson(opt);
    FAIL() << "a dense config was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no layer has experts"), std::string::npos) << e.what();
  }
  opt.config = small_moe_config();
  for (int bad : {1, 0, -5, 5000}) {
    opt.tokens = bad;
    EXPECT_THROW(lesson::run_experts_lesson(opt), Error) << bad;
  }
}
