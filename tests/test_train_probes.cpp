// Samples and attention maps at each validation (`llm0 train --sample-prompt`, `--attention-text`;
// train/validation_probes.h): they never change training (the checkpoint is byte for byte the one
// a run without them writes, in float32 and in BF16 with thread lanes), their records have the
// stated shapes, the final samples are what `llm0 generate` draws from the checkpoint with the same
// settings, and bad prompts are refused at start-up naming the option, writing nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/cpu_features.h"
#include "train/trainer.h"
#include "train/validation_probes.h"
#include "cli_runner.h"
#include "test_util.h"
#include "train_fixtures.h"

using namespace llm0;
namespace fs = std::filesystem;
using testing_fixtures::quote;
using testing_fixtures::read_file;
using testing_fixtures::run_cli;

namespace {

std::string tmp(const std::string& name) { return test::fresh_temp_path("train_probes", name); }

std::vector<nlohmann::json> records_with(const std::string& run, const std::string& key) {
  std::vector<nlohmann::json> r;
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains(key)) r.push_back(std::move(j));
  }
  return r;
}

const std::vector<std::string> kPrompts = {"床前明月光", "春眠不觉晓"};

}  // namespace

TEST(TrainProbes, SampleLineShowsNewlines) {
  EXPECT_EQ(sample_line({"床前", "明月\n光\n"}), "sample 床前 → 明月⏎光⏎");
  // ESC, DEL, a C1 control, a stray continuation byte: nothing raw reaches a terminal
  EXPECT_EQ(sample_line({"床", "\x1b[2J\x7f\xc2\x85\x80月"}), "sample 床 → \xEF\xBF\xBD[2J\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD月");
}

TEST(TrainProbes, ACheckpointIsBitIdenticalWithOrWithoutThem) {
  testing_fixtures::TrainFixture f("train_probes");
  const std::string tiny = std::string(LLM0_SOURCE_DIR) + "/configs/llm0-tiny.json";
  std::vector<std::string> precisions = {"f32"};
  if (kernel_isa() == Isa::Avx512Bf16) precisions.push_back("bf16");  // what auto picks there
  for (const std::string& precision : precisions) {
    SCOPED_TRACE(precision);
    const std::string plain = tmp("plain_" + precision), probed = tmp("probed_" + precision);
    // 2 threads: batch 4 runs as 2 thread lanes (train/thread_lanes.h).
    const std::string common = "train --config " + quote(tiny) + " --data " + quote(f.corpus) +
                               " --max-steps 30 --seq-len 64 --batch-size 4 --eval-every 10 "
                               "--eval-batches 2 --log-every 1 --threads 2 --seed 5 --precision " +
                               precision;
    const auto a = run_cli(common + " --out " + quote(plain), tmp("plain.err"));
    ASSERT_EQ(a.rc, 0) << a.out << a.err;
    const auto b = run_cli(common + " --out " + quote(probed) + " --sample-prompt " + kPrompts[0] +
                               " --sample-prompt " + kPrompts[1] + " --sample-tokens 12 "
                               "--attention-text 白日依山尽",
                           tmp("probed.err"));
    ASSERT_EQ(b.rc, 0) << b.out << b.err;
    for (const char* file : {"model.safetensors", "optimizer.safetensors", "trainer_state.json"}) {
      const std::string x = read_file(plain + "/checkpoint/" + file), y = read_file(probed + "/checkpoint/" + file);
      EXPECT_FALSE(x.empty()) << file;
      EXPECT_TRUE(x == y) << file << " differs with the probes";
    }
    EXPECT_EQ(test::step_losses(probed), test::step_losses(plain));

    // One samples record per validation, one sample per prompt, in order, with the settings.
    const std::vector<nlohmann::json> samples = records_with(probed, "samples");
    ASSERT_EQ(samples.size(), 3u);
    for (size_t i = 0; i < samples.size(); ++i) {
      const nlohmann::json& r = samples[i];
      EXPECT_EQ(r["step"], 10 * (int)(i + 1));
      EXPECT_EQ(r["sample_tokens"], 12);
      EXPECT_EQ(r["temperature"], 0.8);
      EXPECT_EQ(r["top_k"], 40);
      EXPECT_EQ(r["sample_seed"], 5);
      ASSERT_EQ(r["samples"].size(), 2u);
      for (size_t p = 0; p < 2; ++p) EXPECT_EQ(r["samples"][p]["prompt"], kPrompts[p]);
    }
    // The last samples are what the checkpoint generates with the same draw (`llm0 generate`).
    for (size_t p = 0; p < 2; ++p) {
      const auto g = run_cli("generate --model " + quote(probed) + " --prompt " + kPrompts[p] +
                                 " --max-new-tokens 12 --temperature 0.8 --top-k 40 --seed 5 "
                                 "--weights-dtype f32 --threads 2 --json",
                             tmp("gen.err"));
      ASSERT_EQ(g.rc, 0) << g.err;
      // The sample stops at the last whole character; generate's JSON writes an incomplete last
      // character as U+FFFD: the same text, then nothing or U+FFFD only.
      const std::string full = nlohmann::json::parse(g.out)["text"], sample = samples.back()["samples"][p]["text"];
      ASSERT_EQ(full.substr(0, sample.size()), sample);
      for (size_t i = sample.size(); i < full.size(); i += 3) EXPECT_EQ(full.substr(i, 3), "\xEF\xBF\xBD") << full;
    }
    // On the terminal: each prompt's line right after each validation line.
    std::istringstream out(b.out);
    int validations = 0;
    for (std::string line; std::getline(out, line);) {
      if (line.rfind("step ", 0) != 0 || line.find("| validation loss") == std::string::npos) continue;
      ++validations;
      for (const std::string& p : kPrompts) {
        std::string next;
        std::getline(out, next);
        EXPECT_EQ(next.rfind("sample " + p + " → ", 0), 0u) << next;
      }
    }
    EXPECT_EQ(validations, 3);

    // One attention record per validation: layers × heads × T × T, causal rows summing to 1.
    const std::vector<nlohmann::json> maps = records_with(probed, "attention");
    ASSERT_EQ(maps.size(), 3u);
    for (const nlohmann::json& r : maps) {
      const nlohmann::json& m = r["attention"];
      EXPECT_EQ(m["text"], "白日依山尽");
      const size_t T = m["tokens"].size();
      ASSERT_GE(T, 2u);
      ASSERT_EQ(m["layers"].size(), 2u);  // llm0-tiny: 2 layers of 4 heads
      for (const nlohmann::json& layer : m["layers"]) {
        ASSERT_EQ(layer["heads"].size(), 4u);
        for (const nlohmann::json& head : layer["heads"]) {
          ASSERT_EQ(head.size(), T);
          for (size_t t = 0; t < T; ++t) {
            ASSERT_EQ(head[t].size(), T);
            double sum = 0;
            for (size_t j = 0; j < T; ++j) {
              const double w = head[t][j].get<double>();
              if (j > t) {
                EXPECT_EQ(w, 0.0);
              }
              EXPECT_GE(w, 0.0);
              sum += w;
            }
            // Each weight is a float32 softmax output (relative rounding 2^-24 ≈ 6e-8); T <= 64
            // of them sum to 1 within T · 6e-8 ≈ 4e-6 < 1e-5.
            EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << t;
          }
        }
      }
    }
  }
}

TEST(TrainProbes, BadPromptsAreRefusedAtStartUpNamingTheOption) {
  testing_fixtures::TrainFixture f("train_probes");
  const std::string out = tmp("refused");
  auto error = [&](const TrainOptions& o) -> std::string {
    try {
      Trainer t(o);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  TrainOptions o = testing_fixtures::tiny_options(f, out);
  std::string long_text;  // far more than the fixture's context of 64 tokens
  for (int i = 0; i < 100; ++i) long_text += "床前明月光，疑是地上霜。";
  o.sample_prompts = {"床前", ""};
  EXPECT_NE(error(o).find("--sample-prompt is empty"), std::string::npos);
  o.sample_prompts = {long_text};
  const std::string too_long = error(o);
  EXPECT_NE(too_long.find("--sample-prompt"), std::string::npos) << too_long;
  EXPECT_NE(too_long.find("context of 64"), std::string::npos) << too_long;
  o.sample_prompts = {"床前"}, o.sample_tokens = 0;
  EXPECT_NE(error(o).find("--sample-tokens 0 must be at least 1"), std::string::npos);
  o.sample_prompts = {}, o.sample_tokens = 8, o.given.insert("--sample-tokens");
  EXPECT_NE(error(o).find("no --sample-prompt"), std::string::npos);
  o = testing_fixtures::tiny_options(f, out);
  o.attention_text = long_text;
  const std::string map_too_long = error(o);
  EXPECT_NE(map_too_long.find("--attention-text"), std::string::npos) << map_too_long;
  EXPECT_NE(map_too_long.find("at most 64"), std::string::npos) << map_too_long;
  o.attention_text = "", o.given.insert("--attention-text");
  EXPECT_NE(error(o).find("--attention-text is empty"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));  // nothing written
}
