// Resuming honestly (issue 43): every state a crash inside a checkpoint commit can leave
// (io/checkpoint.h: DIR.tmp written, DIR.old removed, DIR -> DIR.old, DIR.tmp -> DIR, DIR.old
// removed) resumes from the last complete checkpoint and ends bit for bit where the uninterrupted
// run ends, saying so where it had to fall back on checkpoint.old; a resume with another thread
// count says that its bits will differ; a corrupt trainer_state.json names its own field, not the
// command-line flag it would have set.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/threads.h"
#include "io/checkpoint.h"
#include "train/train_state.h"
#include "train/trainer.h"
#include "cli_runner.h"
#include "test_util.h"
#include "train_fixtures.h"

using namespace llm0;
using testing_fixtures::read_file;
using testing_fixtures::tiny_options;
namespace fs = std::filesystem;

namespace {

std::string tmp(const std::string& name) { return test::fresh_temp_path("train_resume", name); }

// 12 steps, a checkpoint (and a validation) every 4.
TrainOptions twelve_steps(const testing_fixtures::TrainFixture& f, const std::string& out) {
  TrainOptions o = tiny_options(f, out);
  o.max_steps = 12, o.checkpoint_every = 4, o.eval_every = 4, o.eval_batches = 2;
  return o;
}

// The first `steps` steps of twelve_steps, as an interrupted session leaves them.
void run_until(const testing_fixtures::TrainFixture& f, const std::string& out, int steps) {
  TrainOptions o = twelve_steps(f, out);
  if (fs::exists(out + "/checkpoint") || fs::exists(out + "/checkpoint.old")) o.resume = out;
  o.stop_after = steps;
  Trainer(o).run();
}

// --resume RUN --out RUN to the end; returns what it printed.
std::string resume_to_end(const testing_fixtures::TrainFixture& f, const std::string& run) {
  TrainOptions o = twelve_steps(f, run);
  o.resume = run, o.quiet = false;
  ::testing::internal::CaptureStdout();
  try {
    Trainer(o).run();
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

// Every file of two checkpoints byte for byte.
void expect_same_checkpoint(const std::string& want, const std::string& got) {
  for (const char* file : {"config.json", "model.safetensors", "optimizer.safetensors",
                           "tokenizer.json", "trainer_state.json"}) {
    const std::string a = read_file(want + "/" + file), b = read_file(got + "/" + file);
    EXPECT_FALSE(a.empty()) << want << "/" << file;
    EXPECT_TRUE(a == b) << got << "/" << file << " differs from the uninterrupted run's";
  }
}

// Resumes `run` to step 12 and checks it against the uninterrupted `ref`: the final checkpoint
// byte for byte, the losses of steps 5..12, no checkpoint.old or checkpoint.tmp left; whether it
// said that it fell back on checkpoint.old.
void expect_resumed_like(const testing_fixtures::TrainFixture& f, const std::string& run,
                         const std::string& ref, bool fell_back) {
  const std::string out = resume_to_end(f, run);
  const std::string note = "(a crash interrupted the commit of a newer checkpoint): resuming from "
                           "the last complete one, " + run + "/checkpoint.old (step 4)";
  EXPECT_EQ(out.find(note) != std::string::npos, fell_back) << out;
  expect_same_checkpoint(ref + "/checkpoint", run + "/checkpoint");
  const auto want = test::step_losses(ref), got = test::step_losses(run);
  ASSERT_EQ(got.size(), 12u);
  for (int s = 5; s <= 12; ++s) EXPECT_EQ(want.at(s), got.at(s)) << "step " << s;
  EXPECT_FALSE(fs::exists(run + "/checkpoint.old"));
  EXPECT_FALSE(fs::exists(run + "/checkpoint.tmp"));
}

}  // namespace

// The states a crash inside CheckpointWriter::commit can leave, each made from a real run stopped
// at step 4 (a step-4 checkpoint; and a step-8 one where the newer checkpoint was complete), then
// resumed with --resume RUN --out RUN to step 12.
TEST(TrainResume, EveryStateAnInterruptedCommitLeavesResumesBitIdentically) {
  testing_fixtures::TrainFixture f("train_resume");
  const std::string ref = tmp("reference");
  Trainer(twelve_steps(f, ref)).run();
  const auto copy = fs::copy_options::recursive;

  // Between the two renames (issue 43, F9): checkpoint (step 4) moved to checkpoint.old, the
  // complete step-8 checkpoint still in checkpoint.tmp, no checkpoint; metrics.jsonl logs step 8.
  const std::string a = tmp("between_renames"), step4 = tmp("step4");
  run_until(f, a, 4);
  fs::copy(a + "/checkpoint", step4, copy);
  run_until(f, a, 4);
  ASSERT_EQ(read_train_state(a + "/checkpoint").step, 8);
  fs::rename(a + "/checkpoint", a + "/checkpoint.tmp");
  fs::copy(step4, a + "/checkpoint.old", copy);
  expect_resumed_like(f, a, ref, true);

  // The same without checkpoint.tmp (the reproduction:
  // mv RUN/checkpoint RUN/checkpoint.old).
  const std::string b = tmp("old_only");
  run_until(f, b, 4);
  fs::rename(b + "/checkpoint", b + "/checkpoint.old");
  expect_resumed_like(f, b, ref, true);

  // Inside a removal of checkpoint.old (before the first rename, or after the second):
  // checkpoint complete, checkpoint.old partly removed (here its weights gone, config.json kept).
  const std::string c = tmp("old_half_removed");
  run_until(f, c, 4);
  fs::copy(c + "/checkpoint", c + "/checkpoint.old", copy);
  fs::remove(c + "/checkpoint.old/model.safetensors");
  expect_resumed_like(f, c, ref, false);
}

// After an interrupted commit checkpoint.old is the run's only complete checkpoint: the next
// commit keeps it until the new checkpoint is in place. A commit whose final rename fails (its
// temporary directory gone) stands in for a crash at that point: checkpoint.old must still be
// there and load (before the fix it was deleted first, leaving no checkpoint at all).
TEST(TrainResume, ACommitAfterAnInterruptedOneKeepsTheLastCompleteCheckpoint) {
  testing_fixtures::TrainFixture f("train_resume");
  const std::string run = tmp("keep_old"), ckpt = run + "/checkpoint";
  run_until(f, run, 4);
  fs::rename(ckpt, ckpt + ".old");
  const std::string weights = read_file(ckpt + ".old/model.safetensors");
  {
    CheckpointWriter w(ckpt);
    std::ofstream(w.path("config.json")) << "{}";
    fs::remove_all(ckpt + ".tmp");
    EXPECT_THROW(w.commit(), Error);
  }
  EXPECT_EQ(resolve_checkpoint_dir(run), ckpt + ".old");
  EXPECT_TRUE(read_file(ckpt + ".old/model.safetensors") == weights);
  EXPECT_EQ(read_train_state(ckpt + ".old").step, 4);
  // A commit that succeeds replaces it: checkpoint holds the new files, checkpoint.old is gone.
  {
    CheckpointWriter w(ckpt);
    fs::copy(ckpt + ".old", w.path(""), fs::copy_options::recursive);
    w.commit();
  }
  EXPECT_TRUE(read_file(ckpt + "/model.safetensors") == weights);
  EXPECT_FALSE(fs::exists(ckpt + ".old"));
}

// trainer_state.json records the threads per process; a resume with another count continues the
// run and says that its bits will differ from an uninterrupted run's (train/thread_lanes.h); the
// same count, or a checkpoint from before the count was recorded, says nothing.
TEST(TrainResume, AnotherThreadCountIsSaidToChangeTheBits) {
  testing_fixtures::TrainFixture f("train_resume");
  const int threads = num_threads(), other = threads == 1 ? 2 : 1;
  const std::string run = tmp("threads");
  run_until(f, run, 4);
  const std::string state = run + "/checkpoint/trainer_state.json";
  EXPECT_EQ(read_train_state(run + "/checkpoint").threads, threads);
  auto started_at = [&](int n) {  // what a resume at n threads prints while it starts
    TrainOptions o = twelve_steps(f, run);
    o.resume = run, o.quiet = false;
    set_num_threads(n);
    ::testing::internal::CaptureStdout();
    try {
      Trainer t(o);
    } catch (...) {
      ADD_FAILURE() << "the resume at " << n << " threads was refused";
    }
    set_num_threads(threads);
    return ::testing::internal::GetCapturedStdout();
  };
  const std::string note = format(
      "note: the run trained with {} thread{} per process and this session has {}: a run's bits "
      "depend on its thread count, so from here on they will differ from an uninterrupted run's "
      "(resume with --threads {} to continue it bit for bit)", threads, threads == 1 ? "" : "s",
      other, threads);
  EXPECT_NE(started_at(other).find(note), std::string::npos) << started_at(other);
  EXPECT_EQ(started_at(threads).find("note: the run trained with"), std::string::npos);
  nlohmann::json j = nlohmann::json::parse(read_file(state));
  j.erase("threads");  // a checkpoint written before the count was recorded
  std::ofstream(state) << j.dump(2);
  EXPECT_EQ(read_train_state(run + "/checkpoint").threads, 0);
  EXPECT_EQ(started_at(other).find("note: the run trained with"), std::string::npos);
}

// A corrupt trainer_state.json names the file and its own field (not the flag the value would have
// set, nor a generic "inconsistent step"), each before anything is trained or written.
TEST(TrainResume, ACorruptTrainerStateNamesItsField) {
  testing_fixtures::TrainFixture f("train_resume");
  const std::string run = tmp("corrupt");
  run_until(f, run, 4);
  const std::string path = run + "/checkpoint/trainer_state.json";
  const nlohmann::json good = nlohmann::json::parse(read_file(path));
  auto error_with = [&](const std::string& field, const nlohmann::json& value) -> std::string {
    nlohmann::json j = good;
    j[field] = value;
    std::ofstream(path) << j.dump(2);
    TrainOptions o = twelve_steps(f, run);
    o.resume = run;
    try {
      Trainer t(o);
    } catch (const Error& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const std::string file = "checkpoint/trainer_state.json: ";
  const std::pair<std::pair<const char*, nlohmann::json>, std::string> cases[] = {
      {{"lr", -1.0}, "lr is -1.0, not a finite number > 0"},
      {{"batch_size", 0}, "batch_size is 0, not an integer from 1 to 2147483647"},
      {{"grad_accum", 2.5}, "grad_accum is 2.5, not an integer from 1 to 2147483647"},
      {{"seq_len", "32"}, "seq_len is a string, not an integer from 2 to 2147483647"},
      {{"total_steps", 4294967297ull}, "total_steps is 4294967297, not an integer from 1 to"},
      {{"step", 13}, "step 13 is past total_steps 12"},
      {{"min_lr", 0.5}, "min_lr 0.5 exceeds lr 0.01"},
      {{"threads", 0}, "threads is 0, not an integer from 1 to 2147483647"},
      {{"seed", "-7"}, "seed must be an unsigned 64-bit decimal number in a string"},
      {{"loader_rng", "99999999999999999999"},
       "loader_rng must be an unsigned 64-bit decimal number in a string"},
      {{"dropout", 1.0}, "dropout is 1.0, not a probability in [0, 1)"},
      {{"tokens_seen", nullptr}, "tokens_seen is null, not a finite number >= 0"}};
  for (const auto& [edit, want] : cases) {
    const std::string e = error_with(edit.first, edit.second);
    EXPECT_NE(e.find(file + want), std::string::npos) << edit.first << ": " << e;
    EXPECT_EQ(e.find("--"), std::string::npos) << edit.first << " is named as a flag: " << e;
  }
}
