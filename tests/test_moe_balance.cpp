// Load balancing of mixture-of-experts training: the expert-load spread of the log
// (train/moe_load.h) on hand-made loads; DeepSeek-V3's bias update (Model::update_router_bias)
// moves each bias by ±γ against its expert's load, counted over the whole step (every micro-batch
// of --grad-accum); training with each balancing rule writes the spread to metrics.jsonl, and
// balancing narrows it compared with no balancing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "model_fixtures.h"
#include "test_util.h"
#include "io/checkpoint.h"
#include "train/corpus.h"
#include "train/data_parallel.h"
#include "train/moe_load.h"
#include "train/trainer.h"

using namespace llm0;
using namespace llm0::testing_fixtures;
namespace fs = std::filesystem;

TEST(MoeBalance, LoadSpreadNamesTheWorstLayer) {
  const std::vector<Model::ExpertLoad> load = {
      {0, {5, 5, 5, 5}}, {2, {10, 2, 4, 4}}, {3, {6, 4, 5, 5}}};
  const MoeLoadSpread s = moe_load_spread(load);
  EXPECT_EQ(s.layer, 2);
  EXPECT_DOUBLE_EQ(s.max_fraction, 0.5);
  EXPECT_DOUBLE_EQ(s.min_fraction, 0.1);
  // An idle expert makes its layer the worst, even with a smaller maximum.
  const MoeLoadSpread idle = moe_load_spread({{0, {10, 2, 4, 4}}, {1, {7, 0, 7, 6}}});
  EXPECT_EQ(idle.layer, 1);
  EXPECT_DOUBLE_EQ(idle.min_fraction, 0.0);
  EXPECT_EQ(moe_load_spread({}).layer, -1);
}

TEST(MoeBalance, BiasUpdateMovesEachBiasAgainstItsLoad) {
  const ModelConfig c = moe_model_config("deepseek_v3");
  Model m(c);
  random_weights(m, 3);
  const std::vector<int> t = random_tokens(2 * 9, c.vocab_size, 4), y = random_tokens(2 * 9, c.vocab_size, 5);
  m.forward(t.data(), y.data(), 2, 9);
  const auto load = m.expert_load();
  ASSERT_EQ(load.size(), 2u);  // both layers have experts
  const std::string name = "model.layers.1.mlp.gate.e_score_correction_bias";
  const std::vector<float> before(m.params().value(name), m.params().value(name) + c.moe.num_experts);
  m.update_router_bias(0.01, load);
  const float* after = m.params().value(name);
  double mean = 0;
  for (float v : load[1].tokens) mean += v / c.moe.num_experts;
  int moved = 0;
  for (int e = 0; e < c.moe.num_experts; ++e) {
    const float l = load[1].tokens[(size_t)e];
    const float want = before[(size_t)e] + (l < mean ? 0.01f : l > mean ? -0.01f : 0.0f);
    EXPECT_FLOAT_EQ(after[e], want) << "expert " << e << " load " << l << " mean " << mean;
    moved += after[e] != before[(size_t)e];
  }
  EXPECT_GT(moved, 0);
}

namespace {

// Options to train a tiny deepseek_v3 (MLA, sigmoid router, 8 experts, top 2, one shared expert)
// for `steps` on 300 poems, in a fresh directory named by `tag` (config and corpus written there).
TrainOptions moe_options(const std::string& balance, const std::string& topk, int steps,
                         const std::string& tag) {
  const std::string dir = test::fresh_temp_path("moe_balance", tag);
  fs::create_directories(dir);
  std::vector<std::string> docs = fortunes_zh_documents();
  std::ofstream out(dir + "/poems.txt");
  for (size_t i = 0; i < 300 && i < docs.size(); ++i) out << docs[i] << "\n\n";
  out.close();
  std::ofstream(dir + "/config.json") << R"({"model_type": "deepseek_v3", "vocab_size": 320,
      "hidden_size": 40, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
      "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
      "kv_lora_rank": 12, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8,
      "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 16,
      "n_shared_experts": 1, "topk_method": ")" + topk + R"(", "n_group": 1, "topk_group": 1,
      "first_k_dense_replace": 0, "routed_scaling_factor": 1.0, "router_aux_loss_coef": 0.0,
      "aux_loss_alpha": 0.05})";
  TrainOptions o;
  o.precision = "f32";  // auto's choice is a timing; routing must not depend on it
  o.config = dir + "/config.json", o.data = dir + "/poems.txt", o.out = dir + "/run";
  o.batch_size = 4, o.seq_len = 32, o.max_steps = steps, o.lr = 1e-2, o.min_lr = 1e-3;
  o.warmup_steps = 2, o.eval_every = 1000, o.eval_batches = 1, o.checkpoint_every = 1000;
  o.log_every = 1, o.quiet = true, o.seed = 3, o.moe_balance = balance, o.moe_bias_gamma = 0.02;
  return o;
}

// The run of moe_options(balance, topk, steps); returns the last metrics record.
nlohmann::json train_moe(const std::string& balance, const std::string& topk, int steps) {
  const TrainOptions o = moe_options(balance, topk, steps, balance);
  Trainer(o).run();
  std::ifstream in(o.out + "/metrics.jsonl");
  nlohmann::json last;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("moe_load_max")) last = j;
  }
  return last;
}

}  // namespace

// Both balancing rules keep every expert in use and narrow the spread that training without
// balancing reaches; the log carries the spread (and the aux loss).
TEST(MoeBalance, TrainingLogsTheSpreadAndBalancingKeepsEveryExpertBusy) {
  const nlohmann::json aux = train_moe("aux_loss", "greedy", 30);
  ASSERT_TRUE(aux.contains("moe_load_max")) << aux.dump();
  EXPECT_TRUE(aux.contains("aux_loss"));
  EXPECT_GT(aux["moe_load_min"].get<double>(), 0.0) << aux.dump();
  EXPECT_LT(aux["moe_load_max"].get<double>(), 0.5) << aux.dump();
  const nlohmann::json bias = train_moe("bias_update", "noaux_tc", 30);

  ASSERT_TRUE(bias.contains("moe_load_max")) << bias.dump();
  EXPECT_FALSE(bias.contains("aux_loss"));
  EXPECT_GT(bias["moe_load_min"].get<double>(), 0.0) << bias.dump();
  EXPECT_LT(bias["moe_load_max"].get<double>(), 0.5) << bias.dump();
  // Without balancing the same run leaves an expert idle and one with ~45% of the tokens
  // (measured: none 0.453 / 0; aux_loss 0.25 / 0.059; bias_update 0.207 / 0.023).
  const nlohmann::json none = train_moe("none", "greedy", 30);
  EXPECT_GT(none["moe_load_max"].get<double>(), aux["moe_load_max"].get<double>()) << none.dump();
  EXPECT_GT(none["moe_load_max"].get<double>(), bias["moe_load_max"].get<double>()) << none.dump();
}

namespace {
// sign(mean load − load_e) per expert of each layer: the direction the bias update moves b_e.
std::vector<int> bias_directions(const std::vector<Model::ExpertLoad>& load) {
  std::vector<int> d;
  for (const Model::ExpertLoad& l : load) {
    double mean = 0;
    for (float v : l.tokens) mean += v / (double)l.tokens.size();
    for (float v : l.tokens) d.push_back(mean > v ? 1 : mean < v ? -1 : 0);
  }
  return d;
}
}  // namespace

// A step's expert load is summed over its micro-batches: two micro-batches of one sequence give
// exactly the load of one batch of both (token counts are integers, exact in float), and that
// moves some bias another way than the last micro-batch alone (what the update once read) would.
TEST(MoeBalance, StepLoadSumsTheMicroBatches) {
  const ModelConfig c = moe_model_config("deepseek_v3");
  Model m(c);
  random_weights(m, 3);
  const int T = 9, N = 2 * T;
  const std::vector<int> t = random_tokens(N, c.vocab_size, 4), y = random_tokens(N, c.vocab_size, 5);
  auto batch = [&](int B, int from) {
    Batch b;
    b.B = B, b.T = T;
    b.inputs.assign(t.begin() + from, t.begin() + from + B * T);
    b.targets.assign(y.begin() + from, y.begin() + from + B * T);
    return b;
  };
  std::vector<Batch> one{batch(2, 0)}, two{batch(1, 0), batch(1, T)};
  DataParallel whole(2, 1), accum(1, 2);
  double targets = 0;
  whole.gradients(m, one, &targets);
  accum.gradients(m, two, &targets);
  const std::vector<Model::ExpertLoad> last = m.expert_load();  // the second micro-batch's
  ASSERT_EQ(whole.expert_load().size(), 2u);  // both layers have experts
  ASSERT_EQ(accum.expert_load().size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const std::vector<float>& a = whole.expert_load()[i].tokens;
    EXPECT_EQ(whole.expert_load()[i].layer, accum.expert_load()[i].layer);
    EXPECT_EQ(accum.expert_load()[i].tokens, a) << "layer " << i;
    double sum = 0;
    for (float v : a) sum += v;
    EXPECT_EQ(sum, (double)N * c.moe.num_experts_per_tok) << "layer " << i;  // every token routed K times
  }
  EXPECT_NE(bias_directions(accum.expert_load()), bias_directions(last));
}

// DeepSeek-V3 monitors the expert load "on the whole batch of each training step" (§2.1.2): one
// step at batch 2 and one at batch 1 × --grad-accum 2 read the same two windows, so every
// e_score_correction_bias must move alike. Exact: each bias starts at 0, AdamW leaves it at 0 (it
// gets no gradient, and decay of 0 is 0), and the update adds exactly +γ, −γ or 0 from integer
// token counts; the biases could differ only if a token's routing flipped between the two batch
// shapes (two router scores within float rounding of each other).
TEST(MoeBalance, GradAccumUpdatesTheBiasFromTheWholeStepsLoad) {
  std::vector<std::vector<float>> biases;
  for (const auto& [B, A] : {std::pair{2, 1}, std::pair{1, 2}}) {
    TrainOptions o = moe_options("bias_update", "noaux_tc", 1, "accum" + std::to_string(A));
    o.batch_size = B, o.grad_accum = A;
    Trainer(o).run();
    const std::unique_ptr<Model> m = load_model(o.out + "/checkpoint");
    std::vector<float> b;
    for (int il = 0; il < 2; ++il) {
      const float* v = m->params().value("model.layers." + std::to_string(il) + ".mlp.gate.e_score_correction_bias");
      b.insert(b.end(), v, v + m->config().moe.num_experts);
    }
    biases.push_back(b);
  }
  EXPECT_EQ(biases[0], biases[1]);
  int moved = 0;
  for (float v : biases[0]) moved += v != 0.0f;
  EXPECT_GT(moved, 0);  // not vacuous: the step moved biases
}
