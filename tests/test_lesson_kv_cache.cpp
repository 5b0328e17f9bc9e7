// KV-cache lesson: the engine's counters against closed forms, cache = recompute (logits and
// greedy tokens), the log-log growth fit, the chart, and bad options.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/check.h"
#include "lesson/lesson_json.h"
#include "lesson/lesson_kv_cache.h"
#include "lesson/lesson_text.h"
#include "nlohmann/json.hpp"

namespace llm0::lesson {
namespace {

const std::string kTiny = std::string(LLM0_SOURCE_DIR) + "/configs/lesson-tiny.json";

// Closed forms per layer for prompt P and G generated tokens; n_s = P + s tokens at step s.
// Without a cache step s projects n_s K/V vectors and scores H·n_s(n_s+1)/2 causal pairs.
// With a cache step 0 is the prefill (P vectors, H·P(P+1)/2 pairs); step s ≥ 1 feeds one token at
// position P + s − 1, which sees P + s keys: 1 vector, H·(P + s) pairs.
struct Expected {
  std::vector<uint64_t> kv0, qk0, kv1, qk1;  // per step: without (0) / with (1) the cache
};

Expected closed_form(uint64_t P, uint64_t G, uint64_t H) {
  Expected e;
  for (uint64_t s = 0; s < G; ++s) {
    const uint64_t n = P + s;
    e.kv0.push_back(n), e.qk0.push_back(H * n * (n + 1) / 2);
    e.kv1.push_back(s == 0 ? P : 1), e.qk1.push_back(s == 0 ? H * P * (P + 1) / 2 : H * (P + s));
  }
  return e;
}

void check_counts(int P, int G) {
  auto model = lesson_model_from_config(kTiny, 1);
  const KvCacheLesson l = run_kv_cache_lesson(*model, {P, G, 0}, "tiny");
  const uint64_t H = (uint64_t)l.num_attention_heads, L = (uint64_t)l.num_hidden_layers;
  const Expected e = closed_form((uint64_t)P, (uint64_t)G, H);
  ASSERT_EQ(l.without_cache.steps.size(), (size_t)G);
  ASSERT_EQ(l.with_cache.steps.size(), (size_t)G);
  uint64_t kv0 = 0, kv1 = 0, qk0 = 0, qk1 = 0;
  for (int s = 0; s < G; ++s) {
    const KvStep &a = l.without_cache.steps[(size_t)s], &b = l.with_cache.steps[(size_t)s];
    EXPECT_EQ(a.kv_per_layer, e.kv0[(size_t)s]) << "step " << s;
    EXPECT_EQ(a.qk_per_layer, e.qk0[(size_t)s]) << "step " << s;
    EXPECT_EQ(b.kv_per_layer, e.kv1[(size_t)s]) << "step " << s;
    EXPECT_EQ(b.qk_per_layer, e.qk1[(size_t)s]) << "step " << s;
    EXPECT_EQ(a.kv_total, L * a.kv_per_layer);
    EXPECT_EQ(b.qk_total, L * b.qk_per_layer);
    kv0 += e.kv0[(size_t)s], kv1 += e.kv1[(size_t)s], qk0 += e.qk0[(size_t)s], qk1 += e.qk1[(size_t)s];
  }
  EXPECT_EQ(l.without_cache.kv_per_layer, kv0);
  EXPECT_EQ(l.with_cache.kv_per_layer, kv1);
  EXPECT_EQ(l.without_cache.qk_per_layer, qk0);
  EXPECT_EQ(l.with_cache.qk_per_layer, qk1);
  // totals in closed form: Σ n_s = G·P + G(G−1)/2 vs P + G − 1; cached scores = H·N(N+1)/2
  const uint64_t N = (uint64_t)(P + G - 1);
  EXPECT_EQ(kv0, (uint64_t)(G * P + G * (G - 1) / 2));
  EXPECT_EQ(kv1, N);
  EXPECT_EQ(qk1, H * N * (N + 1) / 2);
  EXPECT_EQ(l.without_cache.kv_total, L * kv0);
  EXPECT_EQ(l.with_cache.qk_total, L * qk1);
  EXPECT_LT(l.max_logit_diff, 1e-4);
  EXPECT_TRUE(l.same_tokens);
}

TEST(LessonKvCache, CourseExampleNineVersusFourPerLayer) {
  check_counts(2, 3);
  auto model = lesson_model_from_config(kTiny, 1);
  const KvCacheLesson l = run_kv_cache_lesson(*model, {2, 3, 0}, "tiny");
  EXPECT_EQ(l.without_cache.kv_per_layer, 9u);  // 2 + 3 + 4
  EXPECT_EQ(l.with_cache.kv_per_layer, 4u);     // 2 + 1 + 1
}

TEST(LessonKvCache, LongerPromptAndGenerationMatchClosedForms) {
  check_counts(5, 7);
  check_counts(1, 1);
  check_counts(13, 20);
}

TEST(LessonKvCache, GreedyDecodingIsNotDegenerateAndCacheMatchesRecompute) {
  auto model = lesson_model_from_config(kTiny, 1);
  const std::vector<int> prompt = lesson_prompt(3, model->config().vocab_size);
  const KvRun a = run_generation(*model, prompt, 16, false);
  const KvRun b = run_generation(*model, prompt, 16, true);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_GE(std::set<int>(b.tokens.begin(), b.tokens.end()).size(), 6u);
  ASSERT_EQ(a.logits.size(), b.logits.size());
  double diff = 0;
  for (size_t i = 0; i < a.logits.size(); ++i)
    diff = std::max(diff, (double)std::fabs(a.logits[i] - b.logits[i]));
  EXPECT_LT(diff, 1e-4);
}

// The lesson measures the engine's cache after the cached run's P + G - 1 tokens in both dtypes:
// each equals the ledger, and BF16 holds exactly half of float32's bytes.
TEST(LessonKvCache, MeasuredCacheBytesEqualTheLedgerInBothDtypes) {
  auto model = lesson_model_from_config(kTiny, 1);
  KvLessonOptions o;
  o.prompt_len = 4, o.generate = 6, o.up_to = 0;
  const KvCacheLesson l = run_kv_cache_lesson(*model, o, "tiny");
  ASSERT_EQ(l.cache_bytes.size(), 2u);
  const ModelConfig& c = model->config();
  const uint64_t per_token_f32 = (uint64_t)c.num_hidden_layers * c.num_key_value_heads * 2 * c.head_dim * 4;
  EXPECT_EQ(l.cache_bytes[0].dtype, "f32");
  EXPECT_EQ(l.cache_bytes[0].length, 9);
  EXPECT_EQ(l.cache_bytes[0].engine_bytes, per_token_f32 * 9);
  EXPECT_EQ(l.cache_bytes[1].dtype, "bf16");
  EXPECT_EQ(l.cache_bytes[1].engine_bytes * 2, l.cache_bytes[0].engine_bytes);
  for (const KvBytesRow& r : l.cache_bytes) EXPECT_EQ(r.engine_bytes, r.ledger_bytes) << r.dtype;
  EXPECT_NE(kv_cache_text(l).find("bf16 (--kv-dtype bf16): engine"), std::string::npos);
  EXPECT_EQ(to_json(l)["cache_bytes"][1]["engine_bytes"], l.cache_bytes[1].engine_bytes);
}

TEST(LessonKvCache, GrowthOrderFittedOnLogLogScale) {
  auto model = lesson_model_from_config(kTiny, 1);
  const KvCacheLesson l = run_kv_cache_lesson(*model, {2, 3, 128}, "tiny");
  ASSERT_EQ(l.growth.size(), 6u);  // 4 8 16 32 64 128
  EXPECT_EQ(l.growth.front().length, 4);
  EXPECT_EQ(l.growth.back().length, 128);
  EXPECT_NEAR(l.fit.kv_no_cache, 2.0, 0.1);
  EXPECT_NEAR(l.fit.kv_cache, 1.0, 0.02);
  EXPECT_NEAR(l.fit.qk_no_cache, 3.0, 0.25);
  EXPECT_NEAR(l.fit.qk_cache, 2.0, 0.1);
  EXPECT_GT(l.fit.qk_no_cache, l.fit.kv_no_cache + 0.7);
  const std::string svg = kv_growth_svg(l);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("q·k scores, cache (slope " + format_slope(l.fit.qk_cache)), std::string::npos);
}

// The growth table reads one run per track at each row: every row equals the closed forms summed
// over its n − P + 1 steps, and the counting model's counts per head equal lesson-tiny's (they
// depend on the lengths and the mask only), so the default lesson runs its table on it.
TEST(LessonKvCache, GrowthRowsFromOneRunEqualTheRulesOnTheCountingModel) {
  const int P = 2, L = 256;
  auto tiny = lesson_model_from_config(kTiny, 1);
  const KvCacheLesson t = run_kv_cache_lesson(*tiny, {P, 3, L}, "tiny");
  const KvCacheLesson c = run_kv_cache_lesson(KvLessonModel{}, {P, 3, L});
  EXPECT_NE(c.growth_model.find("lesson-count.json"), std::string::npos) << c.growth_model;
  EXPECT_NE(c.model.find("lesson-tiny.json"), std::string::npos) << c.model;
  ASSERT_EQ(c.growth_heads, 1);
  ASSERT_EQ(t.growth_heads, 4);
  ASSERT_EQ(c.growth.size(), t.growth.size());
  for (size_t i = 0; i < c.growth.size(); ++i) {
    const KvGrowthRow& r = c.growth[i];
    const Expected e = closed_form(P, (uint64_t)r.length - P + 1, 1);
    uint64_t kv0 = 0, qk0 = 0, kv1 = 0, qk1 = 0;
    for (size_t s = 0; s < e.kv0.size(); ++s)
      kv0 += e.kv0[s], qk0 += e.qk0[s], kv1 += e.kv1[s], qk1 += e.qk1[s];
    EXPECT_EQ(r.kv_no_cache, kv0) << r.length;
    EXPECT_EQ(r.qk_no_cache, qk0) << r.length;
    EXPECT_EQ(r.kv_cache, kv1) << r.length;
    EXPECT_EQ(r.qk_cache, qk1) << r.length;
    EXPECT_EQ(t.growth[i].length, r.length);
    EXPECT_EQ(t.growth[i].kv_no_cache, r.kv_no_cache);
    EXPECT_EQ(t.growth[i].qk_no_cache, 4 * r.qk_no_cache);  // lesson-tiny: 4 query heads
    EXPECT_EQ(t.growth[i].qk_cache, 4 * r.qk_cache);
  }
  // The fitted orders are computed on the same per-head shape, so they agree exactly (up to the
  // constant factor 4, which only shifts log counts).
  EXPECT_NEAR(c.fit.qk_no_cache, t.fit.qk_no_cache, 1e-12);
  EXPECT_EQ(to_json(c)["growth_heads"], 1);
}

TEST(LessonKvCache, LogLogSlopeOfAnExactPowerLaw) {
  std::vector<double> x = {2, 3, 5, 8, 13}, y;
  for (double v : x) y.push_back(3.0 * std::pow(v, 2.5));
  EXPECT_NEAR(loglog_slope(x, y), 2.5, 1e-12);
  EXPECT_THROW(loglog_slope({2}, {4}), Error);
  EXPECT_THROW(loglog_slope({2, 3}, {4, 0}), Error);
  EXPECT_EQ(growth_lengths(2, 256), (std::vector<int>{8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(growth_lengths(2, 3), (std::vector<int>{3}));
}

TEST(LessonKvCache, BadOptionsThrowNamingTheOption) {
  auto model = lesson_model_from_config(kTiny, 1);
  auto expect_error = [&](KvLessonOptions o, const std::string& needle) {
    try {
      run_kv_cache_lesson(*model, o, "tiny");
      ADD_FAILURE() << "no error; expected " << needle;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({0, 3, 0}, "--prompt-len");
  expect_error({-2, 3, 0}, "--prompt-len");
  expect_error({2, 0, 0}, "--generate");
  expect_error({2, 3, -1}, "--up-to");
  expect_error({2, 3, 2}, "--up-to");
  expect_error({2, 3, 5000}, "max_position_embeddings");
  expect_error({4000, 100, 0}, "max_position_embeddings");
  EXPECT_THROW(lesson_model_from_config(std::string(LLM0_SOURCE_DIR) + "/configs/none.json", 1),
               Error);
}

// The lesson on a sliding-window model (lesson-tiny with every layer sliding, W = 4): a cached
// step at position p scores min(p + 1, W) keys per head, the growth of q·k with the cache is
// linear once n ≫ W, and the cached run still equals recompute.
TEST(LessonKvCache, SlidingWindowCountsAreCappedAtW) {
  nlohmann::json c = nlohmann::json::parse(std::ifstream(kTiny));
  c["model_type"] = "mistral", c["sliding_window"] = 4;
  const std::string path = ::testing::TempDir() + "lesson_sliding.json";
  std::ofstream(path) << c.dump();
  auto model = lesson_model_from_config(path, 1);
  const int P = 6, G = 9;
  const KvCacheLesson l = run_kv_cache_lesson(*model, {P, G, 128}, "tiny sliding");
  EXPECT_EQ(l.sliding_window, 4);
  const uint64_t H = (uint64_t)l.num_attention_heads;
  uint64_t prefill = 0;
  for (int i = 0; i < P; ++i) prefill += H * (uint64_t)std::min(i + 1, 4);
  EXPECT_EQ(l.with_cache.steps[0].qk_per_layer, prefill);
  for (int s = 1; s < G; ++s)
    EXPECT_EQ(l.with_cache.steps[(size_t)s].qk_per_layer, H * 4) << "step " << s;
  EXPECT_LT(l.max_logit_diff, 1e-4);
  EXPECT_TRUE(l.same_tokens);
  EXPECT_NEAR(l.fit.qk_cache, 1.0, 0.15);  // ∝ n·W, not n²
  EXPECT_NEAR(l.fit.kv_cache, 1.0, 0.02);
}

}  // namespace
}  // namespace llm0::lesson
