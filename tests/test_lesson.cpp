// Tests of the lessons' library logic (src/lesson/lesson_*.h): the attention lesson on the
// teaching world against hand computations in double, the KV-cache counters against closed
// forms, the growth-order fit, the shapes of one head, SVG output and malformed inputs.
// The CLI end to end is in test_lesson_cli.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "lesson/lesson_attention.h"
#include "lesson/lesson_kv_cache.h"
#include "lesson/lesson_shapes.h"
#include "lesson/lesson_svg.h"

namespace llm0::lesson {
namespace {

const std::string kSrc = LLM0_SOURCE_DIR;
const std::string kWorld = kSrc + "/data/teaching-world.json";
const std::string kTiny = kSrc + "/configs/lesson-tiny.json";

// x W for a row x [d] and W [d, D] (course layout), in double.
std::vector<double> times(const std::vector<float>& x, size_t row, const std::vector<float>& W,
                          int d, int D) {
  std::vector<double> y((size_t)D, 0.0);
  for (int i = 0; i < d; ++i)
    for (int o = 0; o < D; ++o) y[(size_t)o] += (double)x[row * d + i] * W[(size_t)i * D + o];
  return y;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Hand-computed causal scores of head h, row t: q_t·k_j / √d_h for j ≤ t.
std::vector<double> hand_scores(const TeachingWorld& w, int h, int t) {
  const WorldHead& hd = w.heads[(size_t)h];
  const std::vector<double> q = times(w.embeddings, (size_t)t, hd.W_Q, w.d_model, w.d_head);
  std::vector<double> s;
  for (int j = 0; j <= t; ++j)
    s.push_back(dot(q, times(w.embeddings, (size_t)j, hd.W_K, w.d_model, w.d_head)) /
                std::sqrt((double)w.d_head));
  return s;
}

TEST(LessonAttention, RowsSumTo100PercentAndMatchAHandSoftmax) {
  const TeachingWorld w = load_world(kWorld);
  ASSERT_EQ(w.T(), 5);
  ASSERT_EQ(w.d_model, 4);
  const AttentionLesson l = run_attention_lesson(w);
  ASSERT_EQ(l.heads.size(), 1u);
  EXPECT_EQ(l.qk_scores, 1u * (5 * 6 / 2));  // heads × causal pairs
  for (int h = 0; h < 1; ++h)
    for (int t = 0; t < 5; ++t) {
      const std::vector<double> s = hand_scores(w, h, t);
      double z = 0, sum = 0;
      for (double x : s) z += std::exp(x);
      for (int j = 0; j < 5; ++j) {
        const double got = l.heads[(size_t)h].weights[(size_t)t * 5 + j];
        sum += got;
        EXPECT_NEAR(got, j <= t ? std::exp(s[(size_t)j]) / z : 0.0, 1e-6) << h << " " << t;
      }
      EXPECT_NEAR(100.0 * sum, 100.0, 1e-4);
    }
}

TEST(LessonAttention, OutputsAreConvexCombinationsOfVisibleValues) {
  const AttentionLesson l = run_attention_lesson(load_world(kWorld));
  const int D = l.d_head;
  for (const HeadLesson& h : l.heads) {
    EXPECT_TRUE(h.outputs_inside_v_range) << h.name << " max outside " << h.max_outside;
    for (int t = 0; t < 5; ++t)
      for (int i = 0; i < D; ++i) {
        double want = 0, lo = 1e30, hi = -1e30;
        for (int j = 0; j <= t; ++j) {
          const double v = h.values[(size_t)j * D + i];
          want += h.weights[(size_t)t * 5 + j] * v, lo = std::min(lo, v), hi = std::max(hi, v);
        }
        const double o = h.outputs[(size_t)t * D + i];
        EXPECT_NEAR(o, want, 1e-5);
        EXPECT_GE(o, lo - 1e-5);
        EXPECT_LE(o, hi + 1e-5);
      }
  }
  EXPECT_EQ(l.projected.size(), 5u * 4u);  // W_O present in the shipped world
}

TEST(LessonAttention, SwapChangesRetrievedKFarLessThanRetrievedV) {
  const AttentionLesson l = run_attention_lesson(load_world(kWorld));
  ASSERT_TRUE(l.swap.has_value());
  const SwapLesson& s = *l.swap;
  EXPECT_EQ(l.tokens[(size_t)s.swap.query], "给了");
  EXPECT_EQ(s.tokens, (std::vector<std::string>{"小王", "把", "苹果", "给了", "小明"}));
  EXPECT_GT(s.cos_k, 0.95);       // nearly identical keys
  EXPECT_LT(s.cos_v, s.cos_k - 0.5);  // clearly different values
  EXPECT_GT(s.delta_v, 0.5);
  EXPECT_LT(s.delta_k, 0.25 * s.delta_v);  // retrieving K barely changes
  EXPECT_GT(s.ratio, 4.0);
  EXPECT_NEAR(s.ratio, s.delta_v / s.delta_k, 1e-12);
}

TEST(LessonAttention, SinkWeightMatchesHandComputation) {
  const TeachingWorld w = load_world(kWorld);
  const AttentionLesson l = run_attention_lesson(w);
  const HeadLesson& h = l.heads[0];
  ASSERT_TRUE(h.sink_logit.has_value());
  const double sink = *w.heads[0].sink_logit;
  for (int t = 0; t < 5; ++t) {
    double z = std::exp(sink);
    for (double s : hand_scores(w, 0, t)) z += std::exp(s);
    EXPECT_NEAR(h.sink_weight[(size_t)t], std::exp(sink) / z, 1e-6) << t;
    double sum = h.sink_weight[(size_t)t];
    for (int j = 0; j < 5; ++j) sum += h.weights_with_sink[(size_t)t * 5 + j];
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  // row 0 sees only itself: sink weight e^sink / (e^sink + e^s00)
  const double s00 = hand_scores(w, 0, 0)[0];
  EXPECT_NEAR(h.sink_weight[0], std::exp(sink) / (std::exp(sink) + std::exp(s00)), 1e-6);
  for (const HeadLesson& s : l.split_heads) EXPECT_FALSE(s.sink_logit.has_value());
}

TEST(LessonAttention, ScoresAndUnmaskedWeightsMatchAHandSoftmax) {
  const TeachingWorld w = load_world(kWorld);
  const AttentionLesson l = run_attention_lesson(w);
  const HeadLesson& h = l.heads[0];
  for (int t = 0; t < 5; ++t) {
    std::vector<double> s = hand_scores(w, 0, t);  // j ≤ t
    for (int j = t + 1; j < 5; ++j) {              // the keys the mask hides
      const WorldHead& hd = w.heads[0];
      s.push_back(dot(times(w.embeddings, (size_t)t, hd.W_Q, 4, 4),
                      times(w.embeddings, (size_t)j, hd.W_K, 4, 4)) / 2.0);
    }
    double z = 0;
    for (double x : s) z += std::exp(x);
    for (int j = 0; j < 5; ++j) {
      EXPECT_NEAR(h.scores[(size_t)t * 5 + j], s[(size_t)j], 1e-5) << t << " " << j;
      EXPECT_NEAR(h.weights_unmasked[(size_t)t * 5 + j], std::exp(s[(size_t)j]) / z, 1e-6);
    }
  }
}

TEST(LessonAttention, SplitHeadsAreHeadZerosColumnsWithTheirOwnSoftmax) {
  const TeachingWorld w = load_world(kWorld);
  const TeachingWorld s = split_world(w);
  ASSERT_EQ(s.H(), 2);
  ASSERT_EQ(s.d_head, 2);
  EXPECT_EQ(s.heads[1].name, "B");
  for (int i = 0; i < 4; ++i)  // head B = columns 2, 3 of W_K
    for (int c = 0; c < 2; ++c)
      EXPECT_EQ(s.heads[1].W_K[(size_t)i * 2 + c], w.heads[0].W_K[(size_t)i * 4 + 2 + c]);
  const AttentionLesson l = run_attention_lesson(w);
  ASSERT_EQ(l.split_heads.size(), 2u);
  for (int h = 0; h < 2; ++h)
    for (int t = 0; t < 5; ++t) {
      const std::vector<double> sc = hand_scores(s, h, t);  // scale 1/√2
      double z = 0;
      for (double x : sc) z += std::exp(x);
      for (int j = 0; j <= t; ++j)
        EXPECT_NEAR(l.split_heads[(size_t)h].weights[(size_t)t * 5 + j],
                    std::exp(sc[(size_t)j]) / z, 1e-6);
    }
}

nlohmann::json shipped_json() {
  std::ifstream in(kWorld);
  return nlohmann::json::parse(in);
}

void expect_world_error(const nlohmann::json& j, const std::string& needle) {
  try {
    world_from_json(j, "bad.json");
    ADD_FAILURE() << "no error; expected one naming " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(LessonWorld, MalformedWorldsNameTheField) {
  nlohmann::json j = shipped_json();
  j["heads"][0]["W_K"].erase(0);
  expect_world_error(j, "heads[0].W_K");
  j = shipped_json();
  j["heads"][0]["W_V"][2] = {1.0, 2.0, 3.0};
  expect_world_error(j, "heads[0].W_V[2]");
  j = shipped_json();
  j["split_heads"]["count"] = 3;
  expect_world_error(j, "split_heads.count");
  j = shipped_json();
  j["split_heads"]["names"] = {"A"};
  expect_world_error(j, "split_heads.names");
  j = shipped_json();
  j["sink_row"] = "小李";
  expect_world_error(j, "小李");
  j = shipped_json();
  j["tokens"].push_back("了");
  expect_world_error(j, "\"embeddings\" has 5 rows but \"tokens\" has 6");
  j = shipped_json();
  j.erase("d_head");
  expect_world_error(j, "d_head");
  j = shipped_json();
  j["d_model"] = -4;
  expect_world_error(j, "d_model");
  j = shipped_json();
  j["W_O"].erase(3);
  expect_world_error(j, "W_O");
  j = shipped_json();
  j["embeddings"][1][0] = "x";
  expect_world_error(j, "embeddings[1]");
  j = shipped_json();
  j["swap_test"]["swap"][1] = "小李";
  expect_world_error(j, "小李");
  j = shipped_json();
  j["heads"][0]["sink_logit"] = "high";
  expect_world_error(j, "sink_logit");
  EXPECT_THROW(load_world(kSrc + "/data/no-such-world.json"), Error);
}

}  // namespace
}  // namespace llm0::lesson
