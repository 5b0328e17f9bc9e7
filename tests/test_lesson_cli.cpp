// `llm0 lesson attention|kv-cache|shapes` end to end: the program (LLM0_CLI) is run through
// popen, its --json output parsed; bad input must exit non-zero with a message naming the field.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSrc = LLM0_SOURCE_DIR;

struct Result {
  int status = -1;
  std::string out;  // stdout, plus stderr when merged
};

// Runs `llm0 ARGS` in directory `cwd` (default: the source tree).
Result run(const std::string& args, bool merge_stderr = false, const std::string& cwd = kSrc) {
  const std::string cmd = "cd '" + cwd + "' && '" + std::string(LLM0_CLI) + "' " + args +
                          (merge_stderr ? " 2>&1" : " 2>/dev/null");
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class LessonCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(LLM0_CLI)) << "llm0 program not built: " << LLM0_CLI;
    dir_ = fs::temp_directory_path() / ("llm0_lesson_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(LessonCli, AttentionJson) {
  const Result r = run("lesson attention --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["tokens"].size(), 5u);
  for (const json& h : j["heads"]) {
    for (const json& row : h["weights"]) {
      double s = 0;
      for (const json& w : row) s += w.get<double>();
      EXPECT_NEAR(s, 1.0, 1e-6);
    }
    EXPECT_TRUE(h["outputs_inside_v_range"].get<bool>());
  }
  EXPECT_TRUE(j["heads"][0].contains("sink"));
  EXPECT_LT(j["swap_test"]["delta_k"].get<double>(), 0.25 * j["swap_test"]["delta_v"].get<double>());
  EXPECT_EQ(j["swap_test"]["query"], "给了");
  // the course's figures are part of the JSON (their values: test_lesson_figures.cpp)
  EXPECT_EQ(j["figures"]["row"], "给了");
  EXPECT_EQ(j["figures"]["split"].size(), 2u);
  EXPECT_EQ(j["figures"]["sink_row"]["row"], "苹果");
  EXPECT_EQ(j["split_heads"].size(), 2u);
}

TEST_F(LessonCli, AttentionTextFromAnotherDirectoryFindsTheShippedWorld) {
  const Result r = run("lesson attention", false, dir_.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("Swap test"), std::string::npos);
  EXPECT_NE(r.out.find("100.0"), std::string::npos);
  EXPECT_NE(r.out.find("weight given to \"nothing\""), std::string::npos);
  EXPECT_NE(r.out.find("head A 89.5% on 小明"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("scores 0.04, 0.36, 0.00"), std::string::npos) << r.out;
}

TEST_F(LessonCli, KvCacheJsonAndSvg) {
  const std::string svg = (dir_ / "kv.svg").string();
  const Result r = run("lesson kv-cache --prompt-len 2 --generate 3 --up-to 64 --threads 2 --json "
                       "--svg '" + svg + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["without_cache"]["kv_per_layer"], 9);
  EXPECT_EQ(j["with_cache"]["kv_per_layer"], 4);
  std::vector<int> fed;
  for (const json& s : j["without_cache"]["steps"]) fed.push_back(s["kv_per_layer"].get<int>());
  EXPECT_EQ(fed, (std::vector<int>{2, 3, 4}));
  fed.clear();
  for (const json& s : j["with_cache"]["steps"]) fed.push_back(s["kv_per_layer"].get<int>());
  EXPECT_EQ(fed, (std::vector<int>{2, 1, 1}));
  EXPECT_LT(j["max_logit_diff"].get<double>(), 1e-4);
  EXPECT_TRUE(j["same_tokens"].get<bool>());
  EXPECT_NEAR(j["fit"]["kv_cache"].get<double>(), 1.0, 0.02);
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("</svg>"), std::string::npos);
}

TEST_F(LessonCli, KvCacheOnACheckpointDirectory) {
  const std::string model = (dir_ / "model").string();
  ASSERT_EQ(run("init --config configs/lesson-tiny.json --seed 5 --output '" + model + "'").status,
            0);
  const Result r = run("lesson kv-cache --model '" + model + "' --prompt-len 4 --generate 5 "
                       "--up-to 0 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["model"], model);
  EXPECT_EQ(j["without_cache"]["kv_per_layer"], 4 + 5 + 6 + 7 + 8);
  EXPECT_EQ(j["with_cache"]["kv_per_layer"], 4 + 1 + 1 + 1 + 1);
  EXPECT_EQ(j["with_cache"]["kv_total"], 2 * 8);  // 2 layers
  EXPECT_TRUE(j["same_tokens"].get<bool>());
  EXPECT_TRUE(j["growth"].empty());
}

TEST_F(LessonCli, ShapesJsonAndSvg) {
  const std::string svg = (dir_ / "shapes.svg").string();
  const Result r = run("lesson shapes --config configs/reference/llama-3-8b.json --tokens 2048 "
                       "--json --svg '" + svg + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["config"]["d_qk"], 128);
  EXPECT_EQ(j["config"]["steps"][3]["result"], json({2048, 2048}));
  EXPECT_EQ(j["config"]["steps"][5]["contracted"], 2048);
  EXPECT_EQ(j["teaching_world"]["T"], 5);
  EXPECT_TRUE(fs::exists(svg));
}

void expect_failure(const std::string& args, const std::string& needle) {
  const Result r = run(args, true);
  EXPECT_NE(r.status, 0) << args;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

TEST_F(LessonCli, BadInputExitsNonZeroNamingTheField) {
  const std::string bad = (dir_ / "bad-world.json").string();
  {
    std::ifstream in(kSrc + "/data/teaching-world.json");
    json w = json::parse(in);
    w["heads"][0]["W_Q"][1] = {1.0};
    std::ofstream(bad) << w.dump();
  }
  expect_failure("lesson attention --world '" + bad + "'", "heads[0].W_Q[1]");
  expect_failure("lesson attention --world /no/such/world.json", "/no/such/world.json");
  expect_failure("lesson shapes --config configs/reference/llama-3-8b.json --tokens -3",
                 "--tokens");
  expect_failure("lesson shapes --config /no/such/config.json", "/no/such/config.json");
  const std::string cfg = (dir_ / "cfg.json").string();
  std::ofstream(cfg) << R"({"num_attention_heads": 4})";
  expect_failure("lesson shapes --config '" + cfg + "'", "hidden_size");
  expect_failure("lesson kv-cache --prompt-len -1 --up-to 0", "--prompt-len");
  expect_failure("lesson kv-cache --up-to -5", "--up-to");
  expect_failure("lesson kv-cache --generate 0", "--generate");
  expect_failure("lesson kv-cache --model /no/such/model", "/no/such/model");
}

}  // namespace
