// Training from zero (issue "Train from zero"): a tiny model on a small real corpus lowers the
// validation loss by a stated margin; same seed -> same losses; --resume continues exactly (the
// loss curve after resuming equals the uninterrupted run's); a checkpoint interrupted mid-write
// leaves the previous one intact; bad input fails before anything is written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "train/corpus.h"
#include "train/lr_schedule.h"
#include "train/train_state.h"
#include "train/trainer.h"
#include "test_util.h"
#include "train_fixtures.h"

using namespace llm0;
namespace fs = std::filesystem;

using testing_fixtures::short_run;
using testing_fixtures::tiny_options;

namespace {

std::string tmp(const std::string& name) { return test::fresh_temp_path("train", name); }

struct Fixture : testing_fixtures::TrainFixture {
  Fixture() : TrainFixture("train") {}
};

}  // namespace

TEST(Trainer, LowersValidationLossSameSeedSameLossesResumeIsExact) {
  Fixture f;
  // Uninterrupted run.
  const std::string a = tmp("a");
  const TrainSummary sa = Trainer(tiny_options(f, a)).run();
  // Validation loss after 80 steps vs the untrained model (≈ log 384 = 5.95): at least 1.2
  // nats/token lower, and 0.3 below the unigram (no-context) baseline. Measured: 5.97 -> 4.38,
  // baseline 4.94.
  TrainOptions o0 = tiny_options(f, tmp("zero"));
  o0.max_steps = 1, o0.lr = 1e-12, o0.min_lr = 0;
  const TrainSummary s0 = Trainer(o0).run();
  EXPECT_LT(sa.final_val_loss, s0.final_val_loss - 1.2) << s0.final_val_loss;
  EXPECT_LT(sa.final_val_loss, sa.unigram_entropy - 0.3);
  // The previous token tells a lot on this corpus (poems): the bigram baseline is below the
  // unigram one (measured: 3.54 vs 4.94), and every validation record of metrics.jsonl carries both.
  EXPECT_LT(sa.bigram_entropy, sa.unigram_entropy - 0.3) << sa.bigram_entropy;
  int val_records = 0;
  std::ifstream metrics(a + "/metrics.jsonl");
  for (std::string line; std::getline(metrics, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (!j.contains("val_loss")) continue;
    ++val_records;
    EXPECT_EQ(j.value("unigram_baseline", -1.0), sa.unigram_entropy) << line;
    EXPECT_EQ(j.value("bigram_baseline", -1.0), sa.bigram_entropy) << line;
  }
  EXPECT_GT(val_records, 0);
  std::ifstream svg_file(a + "/loss_curve.svg");
  const std::string svg((std::istreambuf_iterator<char>(svg_file)), std::istreambuf_iterator<char>());
  char legend[64];  // the chart's legend names both baselines with their values
  std::snprintf(legend, sizeof legend, "unigram baseline %.2f", sa.unigram_entropy);
  EXPECT_NE(svg.find(legend), std::string::npos) << legend;
  std::snprintf(legend, sizeof legend, "bigram baseline %.2f", sa.bigram_entropy);
  EXPECT_NE(svg.find(legend), std::string::npos) << legend;
  EXPECT_TRUE(fs::exists(a + "/checkpoint/optimizer.safetensors"));
  // Same seed -> same losses.
  const std::string a2 = tmp("a2");
  Trainer(tiny_options(f, a2)).run();
  EXPECT_EQ(test::step_losses(a), test::step_losses(a2));
  // Interrupted after 40 steps, then resumed: steps 41..80 identical to the uninterrupted run.
  const std::string b = tmp("b");
  TrainOptions ob = tiny_options(f, b);
  ob.stop_after = 40;
  EXPECT_EQ(Trainer(ob).run().steps, 40);
  TrainOptions orr = tiny_options(f, b);
  orr.resume = b;
  EXPECT_EQ(Trainer(orr).run().steps, 80);
  const auto la = test::step_losses(a), lb = test::step_losses(b);
  ASSERT_EQ(lb.size(), 80u);
  for (int s = 41; s <= 80; ++s) EXPECT_EQ(la.at(s), lb.at(s)) << "step " << s;
}

// Residual dropout (--dropout): the masks are a function of seed, step, rank, micro-batch, layer
// and site (ops/dropout.h), so a run interrupted and resumed draws the same masks and its losses
// equal the uninterrupted run's bitwise; validation runs without dropout; the probability is
// kept by the checkpoint like the rest of the schedule.
TEST(Trainer, DropoutResumesExactlyAndValidationRunsWithoutIt) {
  Fixture f;
  auto with_dropout = [&](const std::string& out, double p) {
    TrainOptions o = tiny_options(f, out);
    o.max_steps = 20, o.eval_every = 10, o.checkpoint_every = 10, o.dropout = p;
    return o;
  };
  const std::string a = tmp("drop_a"), plain = tmp("drop_plain"), b = tmp("drop_b");
  Trainer(with_dropout(a, 0.3)).run();
  Trainer(with_dropout(plain, 0)).run();
  const auto la = test::step_losses(a);
  // Dropout acts from the first forward: step 1 (same weights, same batch) differs.
  EXPECT_NE(la.at(1), test::step_losses(plain).at(1));
  TrainOptions ob = with_dropout(b, 0.3);
  ob.stop_after = 10;
  EXPECT_EQ(Trainer(ob).run().steps, 10);
  TrainOptions orr = with_dropout(b, 0);  // not given: the checkpoint's 0.3 is used
  orr.resume = b;
  EXPECT_EQ(Trainer(orr).run().steps, 20);
  const auto lb = test::step_losses(b);
  for (int s = 11; s <= 20; ++s) EXPECT_EQ(la.at(s), lb.at(s)) << "step " << s;
  // Another explicit value on --resume is refused, naming the flag and both values.
  TrainOptions other = with_dropout(b, 0.1);
  other.resume = b, other.max_steps = 0, other.given = {"--dropout"};
  try {
    Trainer t(other);
    ADD_FAILURE() << "--resume with another --dropout was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--dropout 0.1 differs from the checkpoint's 0.3"),
              std::string::npos) << e.what();
  }
  // 0.99999999 is below 1 as a double but rounds to 1.0f, the precision the masks draw in
  for (double bad : {1.0, -0.5, 0.99999999, std::nan("")}) {
    const std::string out = tmp("drop_bad");
    std::filesystem::remove_all(out);
    try {
      Trainer t(with_dropout(out, bad));
      ADD_FAILURE() << "--dropout " << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--dropout"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("must be a probability in [0, 1)"), std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(out)) << "a refused run leaves no --out directory";
  }
  // Validation without dropout: after one step at lr 1e-12 the weights of a run with p = 0.5
  // and one without differ by at most ~1e-12 each (Adam's first step is ±lr), which moves the
  // validation loss by far less than 1e-6; evaluating under p = 0.5 would move it by > 0.01.
  auto untrained = [&](const std::string& out, double p) {
    TrainOptions o = with_dropout(out, p);
    o.max_steps = 1, o.lr = 1e-12, o.min_lr = 0;
    return Trainer(o).run().final_val_loss;
  };
  EXPECT_NEAR(untrained(tmp("drop_val_a"), 0.5), untrained(tmp("drop_val_b"), 0), 1e-6);
}

TEST(Trainer, InterruptedCheckpointWriteLeavesThePreviousIntact) {
  Fixture f;
  const std::string run = tmp("interrupt");
  short_run(f, run, 2);
  const std::string ckpt = run + "/checkpoint";
  const auto before = fs::file_size(ckpt + "/model.safetensors");
  {
    CheckpointWriter w(ckpt);  // a new checkpoint starts...
    std::ofstream(w.path("model.safetensors")) << "half";
  }  // ...and dies before commit()
  EXPECT_EQ(fs::file_size(ckpt + "/model.safetensors"), before);
  EXPECT_FALSE(fs::exists(ckpt + ".tmp"));
  EXPECT_NO_THROW(load_model(ckpt));
  // A crash between the two renames of commit(): only checkpoint.old exists; it is still found.
  fs::rename(ckpt, ckpt + ".old");
  EXPECT_EQ(resolve_checkpoint_dir(run), ckpt + ".old");
}

TEST(Trainer, NonUtf8CorpusIsTrainedAsBytes) {
  // Invalid UTF-8 is not an error: documents are byte strings, the byte-level tokenizer has a
  // token for every byte, so training and decoding see exactly the bytes of the file.
  Fixture f;
  std::string text;
  for (int i = 0; i < 300; ++i) text += "abc\xff\xfe caf\xe9 " + std::to_string(i) + " \xe4\xb8\n\n";
  std::ofstream(f.dir + "/latin1.txt", std::ios::binary) << text;
  TrainOptions o = tiny_options(f, tmp("bytes"));
  o.data = f.dir + "/latin1.txt", o.max_steps = 3;
  const TrainSummary s = Trainer(o).run();
  EXPECT_EQ(s.steps, 3);
  EXPECT_TRUE(std::isfinite(s.final_val_loss));
}

TEST(Trainer, BadInputFailsClearlyAndWritesNothing) {
  Fixture f;
  auto expect_error = [&](TrainOptions o, const std::string& needle) {
    try {
      Trainer t(o);
      ADD_FAILURE() << "no error; expected one mentioning " << needle;
    } catch (const llm0::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const std::string out = tmp("bad");
  TrainOptions o = tiny_options(f, out);
  o.data = f.dir + "/missing.txt";
  expect_error(o, "missing.txt");
  std::ofstream(f.dir + "/empty.txt") << "";
  o.data = f.dir + "/empty.txt";
  expect_error(o, "empty.txt");
  o = tiny_options(f, out), o.seq_len = 65;
  o.given.insert("--seq-len");  // given: refused (not given, the default is cut to the context)
  expect_error(o, "max_position_embeddings");
  std::ofstream(f.dir + "/small_vocab.json") << R"({"vocab_size": 200, "hidden_size": 48,
    "intermediate_size": 96, "num_hidden_layers": 1, "num_attention_heads": 4, "head_dim": 12,
    "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0})";
  o = tiny_options(f, out), o.config = f.dir + "/small_vocab.json";
  expect_error(o, "vocab_size");
  o = tiny_options(f, "/proc/llm0-not-writable");
  expect_error(o, "not writable");
  // Corrupt checkpoint on --resume: error, and the checkpoint is left as it was.
  const std::string run = tmp("corrupt");
  short_run(f, run, 1);
  std::ofstream(run + "/checkpoint/trainer_state.json") << "{ not json";
  TrainOptions r = tiny_options(f, run);
  r.resume = run;
  expect_error(r, "trainer_state.json");
  std::ifstream in(run + "/checkpoint/trainer_state.json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "{ not json");
  EXPECT_FALSE(fs::exists(out));
}

// --seq-len not given: the default 256 is cut to a shorter model context (the tiny config's 64),
// as Hugging Face's run_clm.py takes min(1024, model_max_length); the checkpoint records it.
TEST(Trainer, DefaultSeqLenIsCutToTheModelsContext) {
  Fixture f;
  const std::string run = tmp("default_seq_len");
  TrainOptions o = tiny_options(f, run);
  o.seq_len = TrainOptions().seq_len, o.max_steps = 1;
  ASSERT_GT(o.seq_len, 64);
  Trainer(o).run();
  const nlohmann::json st = nlohmann::json::parse(std::ifstream(run + "/checkpoint/trainer_state.json"));
  EXPECT_EQ(st.at("seq_len").get<int>(), 64);
}

TEST(Trainer, RefusesToOverwriteARunWithoutResumeOrOverwrite) {
  Fixture f;
  const std::string run = tmp("keep");
  TrainOptions o = short_run(f, run, 1);
  const auto before = fs::last_write_time(run + "/checkpoint/model.safetensors");
  EXPECT_THROW(Trainer t(o), llm0::Error);
  EXPECT_EQ(fs::last_write_time(run + "/checkpoint/model.safetensors"), before);
  o.overwrite = true;
  EXPECT_NO_THROW(Trainer(o).run());
}

// A run planned from a time budget (--time-limit-minutes, here 6 s) checks its schedule against
// its pace (src/train/time_budget.h). The start-up plan is forced far too long (a step "timed" at
// 1 µs: ~5 million steps, warmup capped at 500,000), so the first check, 0.6 s in, must re-plan
// (no real step of this model takes within 10% of 1 µs). Then: the log holds the start-up plan at
// step 0 and one record per re-plan, each starting from the length before it and naming the
// warmup capped_warmup derives from the new length; the checkpoint's total_steps is the last
// length (what a resume continues, deriving the same warmup); and every step after the last
// re-plan took that schedule's learning rate — the same double, lr_at on the same inputs (had the
// warmup stayed at 500,000, every such step would still be warming up).
TEST(Trainer, TimeBudgetedRunReplansAndFollowsTheLastPlan) {
  Fixture f;
  const std::string run = tmp("budget");
  TrainOptions o = tiny_options(f, run);
  o.max_steps = 0, o.time_limit_minutes = 0.1, o.test_startup_step_s = 1e-6;
  o.warmup_steps = 1000000;
  Trainer(o).run();
  std::vector<std::pair<int, int>> plans;  // (step, schedule length from then on)
  std::map<int, double> lr;                // step record -> the learning rate its step used
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    const int step = j.at("step").get<int>();
    if (j.contains("replanned_total_steps")) {
      ASSERT_FALSE(plans.empty());
      const int now = j.at("replanned_total_steps").get<int>();
      EXPECT_EQ(j.at("previous_total_steps").get<int>(), plans.back().second) << "step " << step;
      EXPECT_EQ(j.at("warmup_steps").get<int>(), capped_warmup(o.warmup_steps, now));
      EXPECT_GT(step, plans.back().first);
      EXPECT_GT(now, step);
      plans.emplace_back(step, now);
    } else if (j.contains("planned_total_steps")) {
      EXPECT_TRUE(plans.empty());
      EXPECT_EQ(step, 0);
      plans.emplace_back(0, j.at("planned_total_steps").get<int>());
    }
    if (j.contains("lr")) lr[step] = j.at("lr").get<double>();
  }
  ASSERT_GE(plans.size(), 2u) << "the forced plan was not re-planned";
  EXPECT_GT(plans.front().second, 4000000);  // 5.4 s / (1.08 µs + validation's share)
  EXPECT_EQ(read_train_state(run + "/checkpoint").total_steps, plans.back().second);
  // A record of step k logs the rate of optimizer step k − 1, chosen before a re-plan at step k.
  const LrSchedule last{o.lr, o.min_lr, capped_warmup(o.warmup_steps, plans.back().second),
                        plans.back().second};
  int checked = 0;
  for (const auto& [step, rate] : lr) {
    if (step <= plans.back().first) continue;
    EXPECT_DOUBLE_EQ(rate, lr_at(step - 1, last)) << "step " << step;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// --max-steps sets the schedule and --time-limit-minutes may only cut it short. Here the clock
// (3 s) must end a 1,000,000-step schedule first: the log says so at the last step taken, and
// the checkpoint keeps the whole schedule's length, so --resume continues it. A schedule that
// ends before the clock (2 steps) has no such record.
TEST(Trainer, AClockThatCutsAStepScheduleShortSaysSo) {
  Fixture f;
  for (const int max_steps : {1000000, 2}) {
    const std::string run = tmp("cut" + std::to_string(max_steps));
    TrainOptions o = tiny_options(f, run);
    o.max_steps = max_steps, o.time_limit_minutes = 0.05;
    Trainer(o).run();
    const TrainState s = read_train_state(run + "/checkpoint");
    EXPECT_EQ(s.total_steps, max_steps);
    int cuts = 0;
    std::ifstream in(run + "/metrics.jsonl");
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line);
      if (!j.contains("stopped_by_time_limit")) continue;
      ++cuts;
      EXPECT_EQ(j.at("step").get<int>(), s.step);
      EXPECT_EQ(j.at("total_steps").get<int>(), max_steps);
    }
    EXPECT_EQ(cuts, max_steps == 2 ? 0 : 1) << "--max-steps " << max_steps;
    if (max_steps == 2) EXPECT_EQ(s.step, 2);
    else EXPECT_LT(s.step, max_steps);
  }
}
