// A stop request (train/stop_request.h; SIGINT / SIGTERM during `llm0 train`): the trainer
// finishes its step, validates, writes a checkpoint that --resume continues exactly, records
// stopped_by "a stop request" and exits 0.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/run_lock.h"
#include "train/corpus.h"
#include "train/stop_request.h"
#include "train/train_state.h"
#include "train/trainer.h"
#include "child_process.h"
#include "cli_runner.h"
#include "test_util.h"
#include "train_fixtures.h"

using namespace llm0;
using testing_fixtures::ChildProcess;
using testing_fixtures::tiny_options;

namespace {

std::string tmp(const std::string& name) { return test::fresh_temp_path("train_stop", name); }

std::vector<nlohmann::json> records(const std::string& run) {
  std::vector<nlohmann::json> r;
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) r.push_back(nlohmann::json::parse(line));
  return r;
}

bool has_step_record(const std::string& run) {
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);)
    if (line.find("\"loss\"") != std::string::npos) return true;
  return false;
}

}  // namespace

// In process: a request made before the first step ends the session after it, and the resumed run
// then trains exactly the steps an uninterrupted run does (the same losses, bit for bit).
TEST(TrainStop, ARequestEndsTheSessionAfterTheStepAndResumeContinuesExactly) {
  testing_fixtures::TrainFixture f("train_stop");
  const std::string a = tmp("a"), b = tmp("b");
  TrainOptions o = tiny_options(f, a);
  o.max_steps = 30, o.eval_every = 10;
  Trainer(o).run();
  request_stop();
  o.out = b;
  const TrainSummary s = Trainer(o).run();
  clear_stop_request();
  EXPECT_EQ(s.steps, 1);
  EXPECT_EQ(s.stopped_by, "a stop request");
  EXPECT_EQ(read_train_state(b + "/checkpoint").step, 1);
  const nlohmann::json done = records(b).back();
  EXPECT_EQ(done["event"], "done");
  EXPECT_EQ(done["stopped_by"], "a stop request");
  EXPECT_EQ(done["step"], 1);
  TrainOptions r = tiny_options(f, b);
  r.resume = b, r.max_steps = 0;
  EXPECT_EQ(Trainer(r).run().stopped_by, "");
  EXPECT_EQ(test::step_losses(b), test::step_losses(a));
}

// The real program: SIGTERM while it trains -> exit 0, a checkpoint at the step reached, the done
// record; `--resume` then finishes the schedule.
TEST(TrainStop, SigtermCheckpointsExitsZeroAndResumeFinishes) {
  testing_fixtures::TrainFixture f("train_stop");
  const std::string run = tmp("cli"), cfg = std::string(LLM0_SOURCE_DIR) + "/configs/llm0-tiny.json";
  const std::vector<std::string> common = {"--data", f.corpus, "--out", run, "--threads", "1",
                                           "--log-every", "1"};
  std::vector<std::string> args = {"train", "--config", cfg, "--max-steps", "400", "--batch-size",
                                   "8", "--seq-len", "64", "--eval-every", "100", "--eval-batches",
                                   "2", "--precision", "f32", "--seed", "3"};
  args.insert(args.end(), common.begin(), common.end());
  {
    ChildProcess p(args, tmp("train.log"));
    for (int i = 0; i < 12000 && p.running() && !has_step_record(run); ++i)  // <= 60 s
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(has_step_record(run)) << p.log();
    EXPECT_TRUE(run_in_progress(run));
    EXPECT_EQ(run_lock_pid(run), p.pid());
    ASSERT_EQ(kill(p.pid(), SIGTERM), 0);
    ASSERT_EQ(p.wait_exit(), 0) << p.log();
    EXPECT_NE(p.log().find("stop requested"), std::string::npos) << p.log();
    EXPECT_NE(p.log().find("stopped by a stop request"), std::string::npos) << p.log();
  }
  EXPECT_FALSE(run_in_progress(run));
  const std::vector<nlohmann::json> first = records(run);
  const nlohmann::json done = first.back();
  const int reached = done["step"].get<int>();
  EXPECT_EQ(done["event"], "done");
  EXPECT_EQ(done["stopped_by"], "a stop request");
  EXPECT_GE(reached, 1);
  EXPECT_LT(reached, 400);  // 400 steps take seconds; the signal came after the first
  EXPECT_EQ(read_train_state(run + "/checkpoint").step, reached);
  bool validated = false;  // the stop validated at the step reached
  for (const nlohmann::json& j : first) validated |= j.contains("val_loss") && j["step"] == reached;
  EXPECT_TRUE(validated);
  // --resume finishes the schedule.
  std::string resume = "train --resume " + testing_fixtures::quote(run);
  for (const std::string& a : common) resume += " " + testing_fixtures::quote(a);
  const testing_fixtures::CmdOut r = testing_fixtures::run_cli(resume, tmp("resume.err"));
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(read_train_state(run + "/checkpoint").step, 400);
  const nlohmann::json end = records(run).back();
  EXPECT_EQ(end["event"], "done");
  EXPECT_EQ(end["stopped_by"], "");
  EXPECT_EQ(end["step"], 400);
}

// A second signal kills as usual: sent while the stopping run validates (400 batches of a large
// validation split: ~200k tokens, long enough that the run is still at it), it ends the process
// by SIGTERM.
TEST(TrainStop, ASecondSignalKills) {
  const std::string corpus = tmp("big_validation");
  std::filesystem::create_directories(corpus);
  {
    const std::vector<std::string> docs = fortunes_zh_documents();
    std::ofstream train(corpus + "/train.jsonl"), val(corpus + "/validation.jsonl");
    for (size_t i = 0; i < 400 && i < docs.size(); ++i) train << nlohmann::json{{"text", docs[i]}}.dump() << "\n";
    for (size_t i = 0; i < 4000 && i < docs.size(); ++i) val << nlohmann::json{{"text", docs[i]}}.dump() << "\n";
  }
  const std::string run = tmp("twice"), cfg = std::string(LLM0_SOURCE_DIR) + "/configs/llm0-tiny.json";
  ChildProcess p({"train", "--config", cfg, "--data", corpus, "--out", run, "--max-steps", "1000",
                  "--seq-len", "64", "--eval-every", "1000", "--eval-batches", "400", "--log-every",
                  "1", "--threads", "1", "--precision", "f32"},
                 tmp("twice.log"));
  for (int i = 0; i < 12000 && p.running() && !has_step_record(run); ++i)  // <= 60 s
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(has_step_record(run)) << p.log();
  ASSERT_EQ(kill(p.pid(), SIGTERM), 0);
  for (int i = 0; i < 12000 && p.running() && p.log().find("stop requested") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(p.running()) << "the stop finished before the second signal could be sent\n" << p.log();
  ASSERT_EQ(kill(p.pid(), SIGTERM), 0);
  EXPECT_EQ(p.wait_exit(), -1) << p.log();  // killed by the signal, not a clean exit
  EXPECT_EQ(p.term_signal(), SIGTERM);
  EXPECT_EQ(p.log().find("stopped by a stop request"), std::string::npos) << p.log();
}
