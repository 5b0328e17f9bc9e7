// The course's teaching-world figures (lesson 5 and the attention timeline of the course pages
// in docs/teaching-world.md), each computed by the engine from the shipped
// data/teaching-world.json and compared at the precision the course prints it.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "lesson/lesson_attention.h"
#include "lesson/lesson_figures.h"

namespace llm0::lesson {
namespace {

const std::string kWorld = std::string(LLM0_SOURCE_DIR) + "/data/teaching-world.json";

// v with `decimals` digits, as the course prints it.
std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::vector<std::string> percents(const std::vector<double>& w, int decimals) {
  std::vector<std::string> s;
  for (double x : w) s.push_back(fixed(100.0 * x, decimals));
  return s;
}

struct Figures : ::testing::Test {
  void SetUp() override {
    lesson = run_attention_lesson(load_world(kWorld));
    fig = course_figures(lesson);
  }
  std::vector<std::string> order(const std::vector<Ranked>& r) const {
    std::vector<std::string> s;
    for (const Ranked& x : r) s.push_back(lesson.tokens[(size_t)x.token]);
    return s;
  }
  AttentionLesson lesson;
  CourseFigures fig;
};

using Tokens = std::vector<std::string>;

TEST_F(Figures, TheWorldIsTheCourses) {
  EXPECT_EQ(lesson.tokens, (Tokens{"小明", "把", "苹果", "给了", "小王"}));
  EXPECT_EQ(lesson.d_model, 4);
  ASSERT_EQ(lesson.heads.size(), 1u);
  EXPECT_EQ(lesson.d_head, 4);  // scores ÷ √4
  EXPECT_EQ(lesson.tokens[(size_t)fig.row], "给了");
}

// "给了」这一行的权重是:小明 39.4%、把 2.2%、苹果 56.5%、自己 1.9%"
TEST_F(Figures, RowGeiWithTheCausalMask) {
  EXPECT_EQ(percents(fig.causal, 1), (Tokens{"39.4", "2.2", "56.5", "1.9"}));
}

// "不加掩码,「给了」一行有 32.5% 的注意力直接落在 … 「小王」上"
TEST_F(Figures, RowGeiWithoutTheMaskPuts32Point5PercentOnXiaowang) {
  ASSERT_EQ(fig.unmasked.size(), 5u);
  EXPECT_EQ(fixed(100.0 * fig.unmasked[4], 1), "32.5");
}

// "两个人名的 K 余弦 0.995"; "两个人名的 V 余弦相似度只有 0.285"
TEST_F(Figures, CosinesOfTheNamesKeysAndValues) {
  ASSERT_TRUE(lesson.swap.has_value());
  EXPECT_EQ(fixed(lesson.swap->cos_k, 3), "0.995");
  EXPECT_EQ(fixed(lesson.swap->cos_v, 3), "0.285");
}

// "取回 V 时新表示差 0.639,是取回 K 的 7 倍多": row 给了, |Σw·v − Σw·v'|₂ between
// 小明把苹果给了小王 and 小王把苹果给了小明.
TEST_F(Figures, SwapTestRetrievingVDiffers0Point639SevenTimesK) {
  const SwapLesson& s = *lesson.swap;
  EXPECT_EQ(s.tokens, (Tokens{"小王", "把", "苹果", "给了", "小明"}));
  EXPECT_EQ(fixed(s.delta_v, 3), "0.639");
  EXPECT_GE(s.ratio, 7.0);
  EXPECT_LT(s.ratio, 8.0);
}

// "直接比 embedding 时「给了」最像的是它自己(余弦 1.000),小明、苹果、小王排在最后"
TEST_F(Figures, RawEmbeddingsRankGeiItselfFirstAndXiaowangLast) {
  EXPECT_EQ(order(fig.by_embedding), (Tokens{"给了", "把", "小明", "苹果", "小王"}));
  EXPECT_EQ(fixed(fig.by_embedding[0].value, 3), "1.000");
}

// "投影成 Q、K 再点积,它自己排到最后、前三名是苹果、小王、小明"
TEST_F(Figures, AfterTheProjectionsGeiItselfIsLast) {
  EXPECT_EQ(order(fig.by_score), (Tokens{"苹果", "小王", "小明", "把", "给了"}));
}

// "头 A 把 89.5% 给「小明」、头 B 把 77.0% 给「苹果」"
TEST_F(Figures, TwoHeadsPickTheGiverAndTheThing) {
  ASSERT_EQ(fig.split.size(), 2u);
  EXPECT_EQ(fig.split[0].head, "A");
  EXPECT_EQ(lesson.tokens[(size_t)fig.split[0].token], "小明");
  EXPECT_EQ(fixed(100.0 * fig.split[0].weight, 1), "89.5");
  EXPECT_EQ(fig.split[1].head, "B");
  EXPECT_EQ(lesson.tokens[(size_t)fig.split[1].token], "苹果");
  EXPECT_EQ(fixed(100.0 * fig.split[1].weight, 1), "77.0");
}

// "「苹果」一行 3 个分数只差零点几(0.04、0.36、0.00),照样分成 30% / 41% / 29%"
TEST_F(Figures, SinkRowAppleSharesAll100Percent) {
  ASSERT_TRUE(fig.sink_row.has_value());
  EXPECT_EQ(lesson.tokens[(size_t)*fig.sink_row], "苹果");
  std::vector<std::string> scores;
  for (double s : fig.sink_scores) scores.push_back(fixed(s, 2));
  EXPECT_EQ(scores, (Tokens{"0.04", "0.36", "0.00"}));
  EXPECT_EQ(percents(fig.sink_weights, 0), (Tokens{"30", "41", "29"}));
  // with the head's sink logit the row may keep part of its weight ("这次不取")
  ASSERT_TRUE(fig.sink_nothing.has_value());
  double kept = 0;
  for (double w : fig.sink_weights_with_sink) kept += w;
  EXPECT_NEAR(kept + *fig.sink_nothing, 1.0, 1e-6);
  EXPECT_GT(*fig.sink_nothing, 0.0);
}

}  // namespace
}  // namespace llm0::lesson
