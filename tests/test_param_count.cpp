// Parameter ledger (ledger/param_count.h): the count equals the parameters Model declares for every
// model kind (dense, GPT-2 flavour, sliding, MLA, the four MoE families); the published totals
// of Qwen3-30B-A3B (30.5B total, 3.3B active) and DeepSeek-V3 (671B without the MTP module, 37B
// active) from configs/reference/; `llm0 params --json` reports the same numbers; the MoE preset
// has about llm0-small's active parameters per token.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "ledger/flops.h"
#include "ledger/param_count.h"
#include "model_fixtures.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

std::string ref_config(const std::string& name) {
  return std::string(LLM0_SOURCE_DIR) + "/configs/" + name;
}

}  // namespace

TEST(ParamCount, EqualsTheModelsParametersForEveryKind) {
  const std::vector<std::pair<std::string, ModelConfig>> kinds = {
      {"gqa qk-norm", tiny_config(Heads::GQA, PositionKind::Rope, 0.25, true)},
      {"gpt2", gpt2_config()},
      {"qwen2 sliding + sinks", sliding_config(3, {1, 0}, true, true)},
      {"mla", mla_model_config(0)},
      {"mla q_lora", mla_model_config(9)},
      {"qwen3_moe", moe_model_config("qwen3_moe")},
      {"qwen2_moe", moe_model_config("qwen2_moe")},
      {"deepseek_v2", moe_model_config("deepseek_v2")},
      {"deepseek_v3", moe_model_config("deepseek_v3")},
      {"qwen3_next hybrid", hybrid_config({1, 0}, /*qwen3_next=*/true)},
      {"llama linear + gated attention", hybrid_config({0, 1}, /*qwen3_next=*/false, 4, /*gate=*/true)}};
  for (const auto& [name, c] : kinds) {
    Model m(c);
    const ParamCount n = count_parameters(c);
    EXPECT_EQ(n.total, (double)m.num_parameters()) << name;
    EXPECT_LE(n.active, n.total) << name;
    if (c.moe.enabled()) {  // a token skips E − K experts of each MoE layer
      int moe_layers = 0;
      for (int il = 0; il < c.num_hidden_layers; ++il) moe_layers += c.layer(il).ffn == FfnKind::Moe;
      const double skipped = moe_layers * (double)(c.moe.num_experts - c.moe.num_experts_per_tok) *
                             3.0 * c.hidden_size * c.moe.moe_intermediate_size;
      EXPECT_EQ(n.total - n.active, skipped) << name;
    } else {
      EXPECT_EQ(n.active, n.total) << name;
    }
  }
}

// Published: Qwen3-30B-A3B "30.5B total, 3.3B activated"; DeepSeek-V3 "671B total, 37B
// activated" (its MTP module of num_nextn_predict_layers is not counted). The published figures
// are truncated, not rounded: 3.353B is "3.3B", 37.55B is "37B".
TEST(ParamCount, PublishedTotalsOfQwen3MoeDeepSeekV3AndQwen3Next) {
  const ParamCount q = count_parameters(read_config_for_count(ref_config("reference/qwen3-30b-a3b.json")));
  EXPECT_EQ(std::floor(q.total / 1e8), 305) << q.total;
  EXPECT_EQ(std::floor(q.active / 1e8), 33) << q.active;
  const ParamCount d = count_parameters(read_config_for_count(ref_config("reference/deepseek-v3.json")));
  EXPECT_EQ(std::floor(d.total / 1e9), 671) << d.total;
  EXPECT_EQ(std::floor(d.active / 1e9), 37) << d.active;
  // Qwen3-Next-80B-A3B's model card: "80B in total", "(Non-Embedding): 79B" (embed_tokens and
  // the untied lm_head, 151,936 × 2,048 each, left out).
  const ParamCount n = count_parameters(read_config_for_count(ref_config("reference/qwen3-next-80b-a3b.json")));
  EXPECT_EQ(std::round(n.total / 1e9), 80) << n.total;
  EXPECT_EQ(std::floor((n.total - 2 * n.embedding) / 1e9), 79) << n.total;
}

// The MoE preset uses about llm0-small's parameters per token (within 5%), with more in total.
TEST(ParamCount, MoePresetHasTheActiveParametersOfTheDensePreset) {
  const ParamCount dense = count_parameters(ModelConfig::from_file(ref_config("llm0-small.json")));
  const ParamCount moe = count_parameters(ModelConfig::from_file(ref_config("llm0-small-moe.json")));
  EXPECT_NEAR(moe.active / dense.active, 1.0, 0.05) << moe.active << " vs " << dense.active;
  EXPECT_GT(moe.total, 1.5 * dense.total);
}

TEST(ParamCount, CliJsonReportsTheLedger) {
  const std::string path = ref_config("reference/qwen3-30b-a3b.json");
  const auto err = std::filesystem::temp_directory_path() / "llm0_params_err.txt";
  const CmdOut r = run_cli("params --json --context 2048 " + quote(path), err);
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const ModelConfig c = read_config_for_count(path);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["total_parameters"].get<double>(), count_parameters(c).total);
  EXPECT_EQ(j[0]["active_parameters"].get<double>(), count_parameters(c).active);
  EXPECT_EQ(j[0]["moe_layers"].get<int>(), 48);
  EXPECT_DOUBLE_EQ(j[0]["decode_flops_per_token"].get<double>(), decode_flops_per_token(c, 2048));
  const CmdOut bad = run_cli("params /nonexistent/config.json", err);
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.err.find("/nonexistent/config.json"), std::string::npos) << bad.err;
}

// Several files: a refused one prints its own error and the others are still reported; the exit
// status is non-zero at the end.
TEST(ParamCount, CliReportsEveryConfigAndEachRefusal) {
  const std::string a = ref_config("reference/qwen3-30b-a3b.json"), b = ref_config("llm0-small.json");
  const auto err = std::filesystem::temp_directory_path() / "llm0_params_err2.txt";
  const CmdOut r = run_cli("params --json " + quote(a) + " /nonexistent/one.json " + quote(b) +
                           " /nonexistent/two.json", err);
  EXPECT_NE(r.rc, 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["config"], a);
  EXPECT_EQ(j[1]["config"], b);
  EXPECT_EQ(j[1]["total_parameters"].get<double>(),
            count_parameters(ModelConfig::from_file(b)).total);
  for (const char* bad : {"/nonexistent/one.json", "/nonexistent/two.json", "2 of 4 configs refused"})
    EXPECT_NE(r.err.find(bad), std::string::npos) << bad << "\n" << r.err;
  const CmdOut text = run_cli("params /nonexistent/one.json " + quote(b), err);  // text output too
  EXPECT_NE(text.rc, 0);
  EXPECT_NE(text.out.find(b), std::string::npos) << text.out;
}
