// Cache vs recompute on the teaching world (src/lesson/lesson_world_cache.h): the full pass equals
// the attention lesson's outputs (the same ops in the same order), the incremental outputs equal it
// within float32 rounding, both ways compute the causal pairs H·T(T+1)/2, and the JSON carries it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lesson/lesson_attention.h"
#include "lesson/lesson_attention_json.h"
#include "lesson/lesson_json.h"
#include "lesson/lesson_world_cache.h"

namespace llm0::lesson {
namespace {

TEST(LessonWorldCache, IncrementalOutputsEqualTheFullPass) {
  for (const TeachingWorld& w : {attention_world("", ""), split_world(attention_world("", ""))}) {
    const WorldCacheCheck c = world_cache_check(w);
    const int T = w.T(), H = w.H(), D = w.d_head;
    ASSERT_EQ(c.full.size(), (size_t)T * H * D);
    ASSERT_EQ(c.cached.size(), c.full.size());
    // The full pass is the attention lesson's O = A V, computed by the same calls.
    const AttentionLesson l = run_attention_lesson(w);
    double vmax = 0;
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < D; ++i) {
          EXPECT_EQ(c.full[((size_t)t * H + h) * D + i], l.heads[(size_t)h].outputs[(size_t)t * D + i]);
          vmax = std::max(vmax, std::fabs(l.heads[(size_t)h].values[(size_t)t * D + i]));
        }
    // Each output is a convex combination of at most T value rows; the two ways differ only in
    // float32 rounding of the same sums: ≤ (T + D + 2) roundings of relative 2^-24 each, times
    // the largest |v|. 4× that bound leaves room for the exp's own rounding.
    const double tol = 4.0 * (T + D + 2) * std::ldexp(1.0, -24) * vmax;
    EXPECT_LE(c.max_abs_diff, tol);
    double diff = 0;
    for (size_t i = 0; i < c.full.size(); ++i) diff = std::max(diff, std::fabs(c.full[i] - c.cached[i]));
    EXPECT_EQ(c.max_abs_diff, diff);
    const uint64_t pairs = (uint64_t)H * T * (T + 1) / 2;
    EXPECT_EQ(c.qk_full, pairs);
    EXPECT_EQ(c.qk_cached, pairs);
    EXPECT_EQ(c.kv_cached, (uint64_t)T);
  }
}

TEST(LessonWorldCache, IsAFieldOfTheAttentionLessonJson) {
  const AttentionLesson l = run_attention_lesson(attention_world("", ""));
  const nlohmann::json j = to_json(l);
  ASSERT_TRUE(j.contains("cache_check"));
  EXPECT_EQ(j["cache_check"]["full"].size(), l.tokens.size());
  EXPECT_EQ(j["cache_check"]["cached"][0].size(), (size_t)l.d_head * l.heads.size());
  EXPECT_EQ(j["cache_check"]["max_abs_diff"], l.cache_check.max_abs_diff);
}

}  // namespace
}  // namespace llm0::lesson
