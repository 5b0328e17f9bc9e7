// `llm0 lesson cache-kinds`: the engine's measured cache bytes per token equal the closed forms
// of each kind (2·Hkv·d_h per layer for MHA/GQA/MQA, kv_lora_rank + qk_rope_head_dim for MLA, in
// float32), the decode multiply-adds follow each form's formula exactly, the llm0 kv figures are
// the course's (389,120 vs 69,120 B/token: −82%), and bad options name themselves.
#include <gtest/gtest.h>

#include <string>

#include "core/check.h"
#include "lesson/lesson_cache_kinds.h"

namespace llm0::lesson {
namespace {

CacheKindOptions small() {
  CacheKindOptions o;
  o.hidden_size = 32, o.contexts = {16, 40}, o.decode_tokens = 3;
  o.reference_dir = std::string(LLM0_SOURCE_DIR) + "/configs/reference";
  return o;
}

TEST(LessonCacheKinds, MeasuredBytesAndWorkMatchClosedForms) {
  const CacheKindsLesson l = run_cache_kinds_lesson(small());
  ASSERT_EQ(l.rows.size(), 10u);  // 5 kinds × 2 contexts
  const double H = 4, dh = 8, L = 2, r = 32, dr = 4, dn = 8, dv = 8, G = 3;
  for (const CacheKindRow& row : l.rows) {
    SCOPED_TRACE(row.kind + " n=" + std::to_string(row.context));
    const double Hkv = row.kind == "MHA" ? 4 : row.kind == "GQA" ? 2 : 1;
    const bool mla = row.kind.rfind("MLA", 0) == 0;
    EXPECT_EQ(row.cache_bytes_per_token, mla ? L * (r + dr) * 4 : L * 2 * Hkv * dh * 4);
    double macs = 0;  // decode steps at positions n .. n + G − 1 see S = n + 1 .. n + G keys
    for (double S = row.context + 1; S <= row.context + G; ++S) {
      if (!mla) macs += L * H * S * (dh + dh);
      else if (row.kind == "MLA absorbed") macs += L * (H * (dn + dv) * r + H * S * (r + dr + r));
      else macs += L * (S * r * H * (dn + dv) + H * S * (dn + dr + dv));
    }
    EXPECT_DOUBLE_EQ(row.decode_macs_per_token, macs / G);
    EXPECT_GT(row.decode_ms_per_token, 0.0);
  }
  ASSERT_EQ(l.ledger.size(), 2u);
  EXPECT_EQ(l.ledger[0].bytes_per_token, 389120u);  // DeepSeek-LLM-67B, BF16
  EXPECT_EQ(l.ledger[1].bytes_per_token, 69120u);   // DeepSeek-V2, BF16
  EXPECT_NEAR(l.mla_saving, 1.0 - 69120.0 / 389120.0, 1e-12);
  const std::string text = cache_kinds_text(l);
  EXPECT_NE(text.find("82% less"), std::string::npos) << text;
  EXPECT_EQ(to_json(l)["rows"].size(), 10u);
  const std::string svg = cache_kinds_svg(l);
  EXPECT_NE(svg.find("MLA expanded"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(LessonCacheKinds, BadOptionsNameThemselves) {
  CacheKindOptions o = small();
  o.hidden_size = 36;
  EXPECT_THROW(run_cache_kinds_lesson(o), Error);
  o = small(), o.contexts = {0};
  EXPECT_THROW(run_cache_kinds_lesson(o), Error);
  o = small(), o.decode_tokens = 0;
  EXPECT_THROW(run_cache_kinds_lesson(o), Error);
  o = small(), o.reference_dir = "/nonexistent";
  EXPECT_THROW(run_cache_kinds_lesson(o), Error);
}

}  // namespace
}  // namespace llm0::lesson
