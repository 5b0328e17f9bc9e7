// `llm0 lesson hybrid-state` on the hybrid preset: the KV bytes the engine holds after a prefill
// of n tokens are n × the ledger's F32 bytes per token, the recurrent-state bytes are the
// ledger's fixed state at every n, and the anchor column is `llm0 kv` of the anchor config.
#include <gtest/gtest.h>

#include "core/check.h"
#include "core/json_file.h"
#include "ledger/kv_ledger.h"
#include "lesson/lesson_hybrid_state.h"
#include "lesson/lesson_kv_cache.h"

using namespace llm0;

TEST(LessonHybridState, KvGrowsWithTheContextAndTheStateDoesNot) {
  lesson::HybridStateOptions opt;
  opt.config = std::string(LLM0_SOURCE_DIR) + "/configs/llm0-small-hybrid.json";
  opt.anchor = std::string(LLM0_SOURCE_DIR) + "/configs/reference/course-anchor-hybrid.json";
  opt.contexts = {8, 40};
  opt.decode_tokens = 2;
  const lesson::HybridStateLesson l = lesson::run_hybrid_state_lesson(opt);
  EXPECT_EQ(l.layers, 8);
  EXPECT_EQ(l.linear_layers, 6);
  KvOptions f32;
  f32.dtype = ElementType::F32;
  const KvLedger k = kv_ledger_from_file(opt.config, f32);
  ASSERT_EQ(l.rows.size(), 2u);
  for (const lesson::HybridStateRow& r : l.rows) {
    EXPECT_EQ(r.kv_bytes, k.kv_bytes_per_token * (uint64_t)r.context) << "n=" << r.context;
    EXPECT_EQ(r.state_bytes, k.fixed_state_bytes) << "n=" << r.context;
    EXPECT_GT(r.decode_ms_per_token, 0.0);
  }
  const KvLedger a = kv_ledger_from_file(opt.anchor, {});
  EXPECT_EQ(l.anchor_kv_bytes_per_token, a.kv_bytes_per_token);
  EXPECT_EQ(l.anchor_state_bytes, a.fixed_state_bytes);
  EXPECT_EQ(l.anchor_kv_bytes_per_token, 65536u) << "the course's 64 KiB per token";
  opt.contexts = {0};
  EXPECT_THROW(lesson::run_hybrid_state_lesson(opt), Error);
}

// `llm0 lesson kv-cache --config configs/llm0-small-hybrid.json`: layer 0 is linear attention
// (no K/V), so the per-layer counts are those of the first full-attention layer (layer 3).
TEST(LessonHybridState, KvCacheLessonCountsTheFirstAttentionLayer) {
  auto m = lesson::lesson_model_from_config(
      std::string(LLM0_SOURCE_DIR) + "/configs/llm0-small-hybrid.json", 1);
  lesson::KvLessonOptions o;
  o.prompt_len = 3, o.generate = 4, o.up_to = 0;
  const lesson::KvCacheLesson l = lesson::run_kv_cache_lesson(*m, o, "hybrid");
  EXPECT_TRUE(l.same_tokens);
  // With the cache every token is projected once: P + G − 1 K/V vectors in the counted layer,
  // and 2 full-attention layers in all.
  EXPECT_EQ(l.with_cache.kv_per_layer, 3u + 4u - 1u);
  EXPECT_EQ(l.with_cache.kv_total, 2u * (3u + 4u - 1u));
}
