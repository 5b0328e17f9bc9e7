// The session records of metrics.jsonl (train/trainer.h): a start record once the schedule is
// planned, step records with the schedule's length, ETA and MFU, and a done record at every
// session's end — consistent with each other and with the checkpoint.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "io/checkpoint.h"
#include "ledger/flops.h"
#include "train/trainer.h"
#include "test_util.h"
#include "train_fixtures.h"

using namespace llm0;
using testing_fixtures::tiny_options;

namespace {

std::string tmp(const std::string& name) { return test::fresh_temp_path("train_records", name); }

std::vector<nlohmann::json> records(const std::string& run) {
  std::vector<nlohmann::json> r;
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) r.push_back(nlohmann::json::parse(line));
  return r;
}

std::vector<nlohmann::json> with_key(const std::vector<nlohmann::json>& rs, const std::string& key) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& j : rs)
    if (j.contains(key)) out.push_back(j);
  return out;
}

std::vector<nlohmann::json> events(const std::vector<nlohmann::json>& rs, const std::string& e) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& j : with_key(rs, "event"))
    if (j["event"] == e) out.push_back(j);
  return out;
}

}  // namespace

TEST(TrainRecords, StartStepAndDoneRecordsAgreeWithEachOtherAndTheCheckpoint) {
  testing_fixtures::TrainFixture f("train_records");
  const std::string run = tmp("run");
  TrainOptions o = tiny_options(f, run);
  o.max_steps = 30, o.eval_every = 10, o.checkpoint_every = 10;
  const TrainSummary s = Trainer(o).run();
  const std::vector<nlohmann::json> rs = records(run);
  ASSERT_GE(rs.size(), 2u);
  // The start record comes first and says what trains.
  const nlohmann::json& start = rs.front();
  EXPECT_EQ(start["event"], "start");
  EXPECT_EQ(start["step"], 0);
  EXPECT_EQ(start["total_steps"], 30);
  EXPECT_EQ(start["warmup_steps"], 3);  // --warmup-steps 5 capped at a tenth of 30
  EXPECT_EQ(start["lr"], o.lr);
  EXPECT_EQ(start["min_lr"], o.min_lr);
  EXPECT_EQ(start["batch_size"], 4);
  EXPECT_EQ(start["seq_len"], 32);
  EXPECT_EQ(start["grad_accum"], 1);
  EXPECT_EQ(start["ranks"], 1);
  EXPECT_GE(start["threads"].get<int>(), 1);
  EXPECT_EQ(start["precision"], "f32");
  EXPECT_EQ(start["peak_name"], "FMA");
  EXPECT_GT(start["sgemm_gflops"].get<double>(), 0);
  EXPECT_GT(start["peak_gflops"].get<double>(), 0);
  EXPECT_EQ(start["seed"], 7);
  EXPECT_EQ(start["dropout"], 0.0);
  EXPECT_EQ(start["time_limit_minutes"], 0.0);
  EXPECT_EQ(start["max_steps"], 30);
  EXPECT_EQ(start["resumed"], false);
  const std::unique_ptr<Model> model = load_model(run + "/checkpoint");
  EXPECT_EQ(start["parameters"], model->num_parameters());
  EXPECT_EQ(start["parameters"], s.parameters);
  std::ifstream config_file(run + "/checkpoint/config.json");
  const nlohmann::json config = nlohmann::json::parse(config_file);
  EXPECT_EQ(start["config"], config);
  EXPECT_EQ(start["model_type"], config["model_type"]);
  // Step records: one per step, each with the schedule's length; ETA 0 at the last; MFU = achieved
  // FLOP/s over the peaks measured at start-up (until the first validation re-measures them).
  const std::vector<nlohmann::json> steps = with_key(rs, "loss");
  ASSERT_EQ(steps.size(), 30u);
  const double per_token = train_flops_per_token(model->config(), 32);
  for (const nlohmann::json& j : steps) {
    EXPECT_EQ(j["total_steps"], 30);
    EXPECT_GE(j["eta_s"].get<double>(), 0);
    if (j["step"].get<int>() > 10) continue;
    const double flops = j["tokens_per_s"].get<double>() * per_token;
    // The trainer computes the same double quotient (JSON keeps 17 digits: exact), possibly in
    // another association of the product: a few ulp (2^-52 ≈ 2e-16 each), far inside 1e-12.
    EXPECT_NEAR(j["mfu"].get<double>(), flops / (start["sgemm_gflops"].get<double>() * 1e9),
                1e-12 * j["mfu"].get<double>());
    EXPECT_NEAR(j["mfu_fma"].get<double>(), flops / (start["peak_gflops"].get<double>() * 1e9),
                1e-12 * j["mfu_fma"].get<double>());
  }
  EXPECT_EQ(steps.back()["eta_s"], 0.0);
  // The done record comes last and repeats the session's final figures.
  const nlohmann::json& done = rs.back();
  const nlohmann::json val = with_key(rs, "val_loss").back();
  EXPECT_EQ(done["event"], "done");
  EXPECT_EQ(done["step"], 30);
  EXPECT_EQ(done["stopped_by"], "");
  EXPECT_EQ(done["total_steps"], 30);
  EXPECT_EQ(val["step"], 30);
  EXPECT_EQ(done["final_val_loss"], val["val_loss"]);
  EXPECT_EQ(done["final_train_loss"], steps.back()["loss"]);
  EXPECT_EQ(done["unigram_baseline"], val["unigram_baseline"]);
  EXPECT_EQ(done["bigram_baseline"], val["bigram_baseline"]);
  EXPECT_EQ(done["tokens_per_s"], s.tokens_per_second);
  EXPECT_EQ(done["mfu"], s.mfu);
  EXPECT_EQ(done["mfu_fma"], s.mfu_fma);
  EXPECT_EQ(events(rs, "start").size(), 1u);
  EXPECT_EQ(events(rs, "done").size(), 1u);
}

// Two sessions (--stop-after, then --resume): each writes its start and done records, and the
// resumed run's step records are the uninterrupted run's (the readers skip the session records).
TEST(TrainRecords, EachSessionOfAResumedRunWritesItsStartAndDone) {
  testing_fixtures::TrainFixture f("train_records");
  const std::string whole = tmp("whole"), run = tmp("sessions");
  TrainOptions o = tiny_options(f, whole);
  o.max_steps = 30, o.eval_every = 10, o.checkpoint_every = 10;
  Trainer(o).run();
  o.out = run, o.stop_after = 12;
  Trainer(o).run();
  TrainOptions r = tiny_options(f, run);
  r.resume = run, r.max_steps = 0;
  Trainer(r).run();
  const std::vector<nlohmann::json> rs = records(run);
  const std::vector<nlohmann::json> starts = events(rs, "start"), dones = events(rs, "done");
  ASSERT_EQ(starts.size(), 2u);
  ASSERT_EQ(dones.size(), 2u);
  EXPECT_EQ(starts[0]["step"], 0);
  EXPECT_EQ(starts[0]["resumed"], false);
  EXPECT_EQ(dones[0]["step"], 12);
  EXPECT_EQ(dones[0]["stopped_by"], "--stop-after");
  EXPECT_EQ(starts[1]["step"], 12);
  EXPECT_EQ(starts[1]["resumed"], true);
  EXPECT_EQ(starts[1]["total_steps"], 30);
  EXPECT_EQ(dones[1]["step"], 30);
  EXPECT_EQ(dones[1]["stopped_by"], "");
  EXPECT_EQ(test::step_losses(run), test::step_losses(whole));
}
