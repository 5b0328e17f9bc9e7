// RUN/train.lock (train/run_lock.h): one trainer writes a run directory at a time, and other
// processes (a second trainer, the explorer server) can tell that one is writing it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/check.h"
#include "train/run_lock.h"
#include "train/trainer.h"
#include "cli_runner.h"
#include "test_util.h"
#include "train_fixtures.h"

using namespace llm0;
namespace fs = std::filesystem;
using testing_fixtures::read_file;
using testing_fixtures::tiny_options;

namespace {

std::string tmp(const std::string& name) { return test::fresh_temp_path("run_lock", name); }

// Every file under `dir` with its bytes (what a refused trainer must leave as it was).
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    m[e.path().string()] = e.is_regular_file() ? read_file(e.path()) : "<dir>";
  return m;
}

// The message of the Error that constructing a Trainer with `o` throws ("" if none).
std::string trainer_error(const TrainOptions& o) {
  try {
    Trainer t(o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RunLock, HeldByOneObjectSeenByAProbeAndFreedAtDestruction) {
  const std::string dir = tmp("probe");
  EXPECT_FALSE(run_in_progress(dir));  // no directory: nobody trains
  fs::create_directories(dir);
  EXPECT_FALSE(run_in_progress(dir));  // no lock file
  EXPECT_EQ(run_lock_pid(dir), 0);
  {
    RunLock lock(dir);
    EXPECT_TRUE(run_in_progress(dir));
    EXPECT_EQ(run_lock_pid(dir), (int)getpid());
    // A second holder (a second trainer) is refused, naming the holder's pid and the directory.
    try {
      RunLock second(dir);
      ADD_FAILURE() << "a second lock of " << dir << " was granted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "another llm0 train (pid " + std::to_string(getpid()) +
                                           ") is writing " + dir);
    }
    EXPECT_TRUE(run_in_progress(dir));  // the refused one did not release the holder's lock
    EXPECT_THROW(check_run_not_locked(dir), Error);
  }
  EXPECT_TRUE(fs::exists(run_lock_path(dir)));  // the file stays, free and naming nobody
  EXPECT_FALSE(run_in_progress(dir));
  EXPECT_EQ(run_lock_pid(dir), 0);
  EXPECT_NO_THROW(check_run_not_locked(dir));
  RunLock again(dir);  // free again
  EXPECT_TRUE(run_in_progress(dir));
}

TEST(RunLock, ATrainerHoldsItFromConstructionToDestruction) {
  testing_fixtures::TrainFixture f("run_lock");
  const std::string out = tmp("held");
  TrainOptions o = tiny_options(f, out);
  o.max_steps = 2;
  {
    Trainer t(o);
    EXPECT_TRUE(run_in_progress(out));
    EXPECT_EQ(run_lock_pid(out), (int)getpid());
    t.run();
    EXPECT_TRUE(run_in_progress(out));
  }
  EXPECT_FALSE(run_in_progress(out));
}

TEST(RunLock, ASecondTrainerIntoALockedRunIsRefusedWritingNothing) {
  testing_fixtures::TrainFixture f("run_lock");
  const std::string out = tmp("locked");
  const std::string expected = "another llm0 train (pid " + std::to_string(getpid()) + ") is writing " + out;
  // A fresh run directory another trainer has just locked: nothing else appears in it.
  fs::create_directories(out);
  {
    RunLock other(out);
    const auto before = snapshot(out);
    EXPECT_EQ(trainer_error(tiny_options(f, out)), expected);
    TrainOptions ow = tiny_options(f, out);
    ow.overwrite = true;  // --overwrite does not override a running trainer either
    EXPECT_EQ(trainer_error(ow), expected);
    EXPECT_EQ(snapshot(out), before);
  }
  // A finished run being resumed by another trainer: a second --resume into it is refused and its
  // checkpoint and metrics stay byte for byte.
  TrainOptions o = tiny_options(f, out);
  o.max_steps = 4, o.stop_after = 2, o.overwrite = true;
  Trainer(o).run();
  const auto before = snapshot(out);
  TrainOptions r = tiny_options(f, out);
  r.resume = out, r.max_steps = 0;
  {
    RunLock other(out);
    EXPECT_EQ(trainer_error(r), expected);
  }
  EXPECT_EQ(snapshot(out), before);
  EXPECT_EQ(trainer_error(r), "");  // once free, the resume is accepted
}
