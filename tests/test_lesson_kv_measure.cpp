// `llm0 kv --measure` (src/lesson/lesson_kv_measure.h): for every shipped reference config and
// preset, the small model of the same kind keeps the attention kind and the layer kinds of the
// ledger, the engine builds it, and its cache holds exactly the ledger's bytes (per-token bytes ×
// 16 tokens, windows capped, plus fixed state) in float32 and bfloat16.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/json_file.h"
#include "ledger/kv_ledger.h"
#include "lesson/lesson_kv_measure.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> layer_types(const KvLedger& l) {
  std::vector<std::string> t;
  for (const KvLayerGroup& g : l.groups) t.push_back(g.layer_type + "×" + std::to_string(g.layers));
  return t;
}

TEST(LessonKvMeasure, EverySmallModelOfAShippedKindHoldsTheLedgersBytes) {
  std::vector<fs::path> files;
  for (const char* dir : {"/configs/reference", "/configs"})
    for (const auto& e : fs::directory_iterator(std::string(LLM0_SOURCE_DIR) + dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  ASSERT_GE(files.size(), 15u);
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.filename().string());
    const json config = read_json_file(f.string());
    const json m = lesson::measure_kv_small_model(config);
    ASSERT_FALSE(m.contains("error")) << m["error"];
    const KvLedger big = kv_ledger(config, {}), small = kv_ledger(m["config"], {});
    EXPECT_EQ(to_json(small)["attention_kind"], to_json(big)["attention_kind"]);  // MHA, GQA, MQA, MLA
    EXPECT_EQ(layer_types(small), layer_types(big));
    ASSERT_EQ(m["rows"].size(), 2u);
    for (const json& r : m["rows"]) {
      EXPECT_GT(r["engine_bytes"].get<uint64_t>(), 0u);
      EXPECT_EQ(r["engine_bytes"], r["ledger_bytes"]) << r["dtype"];
    }
  }
}

TEST(LessonKvMeasure, AKindTheEngineCannotBuildIsReportedNotThrown) {
  // An activation the engine does not implement (the ledger does not read it).
  const json m = lesson::measure_kv_small_model({{"num_hidden_layers", 2}, {"hidden_size", 8},
                                                  {"hidden_act", "nope"}});
  ASSERT_TRUE(m.contains("error"));
  EXPECT_FALSE(m["error"].get<std::string>().empty());
}

// The published Llama-2-7b-hf config omits rope_theta: the small model takes transformers'
// LlamaConfig default (10000) and the engine builds it; its MHA cache is 2 × 32 heads × 128 × 2 B
// per layer per token (bf16) on the big model's ledger.
TEST(LessonKvMeasure, PublishedLlama2ConfigWithoutRopeThetaIsMeasured) {
  const json config = read_json_file(std::string(LLM0_SOURCE_DIR) + "/tests/data/llama-2-7b-hf/config.json");
  ASSERT_FALSE(config.contains("rope_theta"));
  const json m = lesson::measure_kv_small_model(config);
  ASSERT_FALSE(m.contains("error")) << m["error"];
  EXPECT_EQ(m["config"]["rope_theta"], 10000.0);
  for (const json& r : m["rows"]) EXPECT_EQ(r["engine_bytes"], r["ledger_bytes"]) << r["dtype"];
  EXPECT_EQ(kv_ledger(config, {}).kv_bytes_per_token, 32u * 2 * 32 * 128 * 2);
}

// A pasted layer count past kMeasureMaxLayers: the small model has one layer of each kind (the
// measurement stays small), its bytes still equal its ledger's, and the big ledger counts all.
TEST(LessonKvMeasure, AHugeLayerCountIsMeasuredOnOneLayerPerKind) {
  json config = read_json_file(std::string(LLM0_SOURCE_DIR) + "/configs/reference/qwen3-next-80b-a3b.json");
  config["num_hidden_layers"] = 10000;  // full_attention_interval 4: 7,500 linear + 2,500 full
  const json m = lesson::measure_kv_small_model(config);
  ASSERT_FALSE(m.contains("error")) << m["error"];
  EXPECT_EQ(m["config"]["num_hidden_layers"], 2);
  EXPECT_EQ(m["config"]["layer_types"], json({"linear_attention", "full_attention"}));
  for (const json& r : m["rows"]) EXPECT_EQ(r["engine_bytes"], r["ledger_bytes"]) << r["dtype"];
  EXPECT_EQ(layer_types(kv_ledger(config, {})),
            (std::vector<std::string>{"linear_attention×7500", "full_attention×2500"}));
}

// Past kKvMaxLayers the ledger refuses, naming the field and the limit (before allocating per layer).
TEST(LessonKvMeasure, ALayerCountPastTheLimitIsRefused) {
  json config = read_json_file(std::string(LLM0_SOURCE_DIR) + "/configs/reference/llama-3-8b.json");
  config["num_hidden_layers"] = 99999999;
  try {
    kv_ledger(config, {}, "config.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"num_hidden_layers\" is 99999999"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(kKvMaxLayers)), std::string::npos) << e.what();
  }
  EXPECT_THROW(lesson::measure_kv_small_model(config), Error);
}

}  // namespace
}  // namespace llm0
