// `llm0 kv --measure` (src/lesson/lesson_kv_measure.h): for every shipped reference config and
// preset, the small model of the same kind keeps the attention kind and the layer kinds of the
// ledger, the engine builds it, and its cache holds exactly the ledger's bytes (per-token bytes ×
// 16 tokens, windows capped, plus fixed state) in float32 and bfloat16.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

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
  const json m = lesson::measure_kv_small_model({{"num_hidden_layers", 2}, {"hidden_size", 8}});
  ASSERT_TRUE(m.contains("error"));
  EXPECT_FALSE(m["error"].get<std::string>().empty());
}

}  // namespace
}  // namespace llm0
