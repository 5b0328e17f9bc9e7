// Lesson 5's "is retrieving K always wrong?" answer (lesson/lesson_shared_kv.h) on the shipped
// presets: the cache bytes read from the engine's caches equal the ledger and the closed forms
// (GQA: 2·Hkv·D numbers per token per layer; shared-KV: Hkv·D), the ratio is exactly 1/2, and the
// parameter counts differ by exactly the v_proj matrices the shared layers do not have.
#include <gtest/gtest.h>

#include <string>

#include "core/check.h"
#include "lesson/lesson_shared_kv.h"
#include "test_util.h"

namespace llm0 {
namespace {

const std::string kDir = LLM0_SOURCE_DIR "/configs/";

TEST(LessonSharedKv, PresetsCacheHalfTheBytes) {
  const lesson::SharedKvAnswer a =
      lesson::run_shared_kv_answer(kDir + "llm0-small.json", kDir + "llm0-shared-kv.json", 11);
  const uint64_t L = 6, Hkv = 2, D = 32, C = 256, T = 11;  // configs/llm0-small.json
  ASSERT_EQ(a.layers, (int)L);
  EXPECT_EQ(a.kv_heads, (int)Hkv);
  EXPECT_EQ(a.head_dim, (int)D);
  EXPECT_EQ(a.gqa.layer_type, "full_attention");
  EXPECT_EQ(a.shared.layer_type, "shared_kv_attention");
  EXPECT_EQ(a.gqa.config, "llm0-small.json");
  for (const lesson::SharedKvSide* s : {&a.gqa, &a.shared}) {
    ASSERT_EQ(s->bytes.size(), 2u);
    const uint64_t rows = s == &a.gqa ? 2 : 1;  // K and V rows, or the one shared row
    EXPECT_EQ(s->bytes[0].engine_bytes, T * L * rows * Hkv * D * 4) << s->config;  // f32
    EXPECT_EQ(s->bytes[1].engine_bytes, T * L * rows * Hkv * D * 2) << s->config;  // bf16
    for (const lesson::KvBytesRow& r : s->bytes) EXPECT_EQ(r.engine_bytes, r.ledger_bytes);
    EXPECT_EQ(s->bytes_per_token_per_layer, (double)(rows * Hkv * D * 4));
  }
  EXPECT_EQ(a.ratio, 0.5);
  EXPECT_EQ(a.gqa.parameters - a.shared.parameters, L * Hkv * D * C);  // no v_proj [Hkv·D, C]
  EXPECT_NE(lesson::shared_kv_answer_text(a).find("0.500 of the cache"), std::string::npos);
  EXPECT_EQ(lesson::to_json(a)["shared"]["bytes"][0]["engine_bytes"], a.shared.bytes[0].engine_bytes);
}

TEST(LessonSharedKv, RefusesConfigsThatDifferInMoreThanTheKind) {
  try {
    lesson::run_shared_kv_answer(kDir + "llm0-30m.json", kDir + "llm0-shared-kv.json", 4);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("must have the same num_hidden_layers"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace llm0
