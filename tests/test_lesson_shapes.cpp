// Shapes lesson: one head's shapes for reference configs (GQA, MLA) and the teaching world, the
// contracted dimensions, the SVG picture and bad configs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "lesson/lesson_shapes.h"

namespace llm0::lesson {
namespace {

const std::string kSrc = LLM0_SOURCE_DIR;
using Shape = std::vector<int64_t>;

TEST(LessonShapes, Llama3HeadShapesAndContractions) {
  const ShapesLesson l = shapes_from_config(kSrc + "/configs/reference/llama-3-8b.json", -1);
  EXPECT_EQ(l.T, 8192);  // max_position_embeddings
  EXPECT_EQ(l.d_model, 4096);
  EXPECT_EQ(l.d_qk, 128);  // 4096 / 32
  EXPECT_EQ(l.d_v, 128);
  EXPECT_EQ(l.num_key_value_heads, 8);
  ASSERT_EQ(l.steps.size(), 6u);
  EXPECT_EQ(l.steps[0].result, (Shape{8192, 128}));  // Q_h
  EXPECT_EQ(l.steps[0].contracted, 4096);
  EXPECT_EQ(l.steps[3].left, (Shape{8192, 128}));   // Q_h
  EXPECT_EQ(l.steps[3].right, (Shape{128, 8192}));  // K_hᵀ
  EXPECT_EQ(l.steps[3].result, (Shape{8192, 8192}));
  EXPECT_EQ(l.steps[3].contracted, 128);
  EXPECT_EQ(l.steps[3].contracts, "d_h (head_dim)");
  EXPECT_TRUE(l.steps[4].contracts.empty());         // softmax
  EXPECT_EQ(l.steps[5].result, (Shape{8192, 128}));  // O_h
  EXPECT_EQ(l.steps[5].contracted, 8192);
  EXPECT_EQ(l.steps[5].multiply_adds, 8192ull * 8192 * 128);
  const ShapesLesson t = shapes_from_config(kSrc + "/configs/reference/llama-3-8b.json", 1000);
  EXPECT_EQ(t.steps[3].result, (Shape{1000, 1000}));
}

TEST(LessonShapes, MlaAndExplicitHeadDim) {
  const ShapesLesson d = shapes_from_config(kSrc + "/configs/reference/deepseek-v2.json", 64);
  EXPECT_TRUE(d.mla);
  EXPECT_EQ(d.d_qk, 192);  // qk_nope_head_dim 128 + qk_rope_head_dim 64
  EXPECT_EQ(d.d_v, 128);
  EXPECT_EQ(d.steps[5].result, (Shape{64, 128}));
  const ShapesLesson q = shapes_from_config(kSrc + "/configs/reference/qwen3-next-80b-a3b.json", 8);
  EXPECT_EQ(q.d_qk, 256);  // head_dim given explicitly
}

TEST(LessonShapes, TeachingWorldAndSvg) {
  const ShapesLesson w = shapes_from_world(load_world(kSrc + "/data/teaching-world.json"));
  EXPECT_EQ(w.T, 5);
  EXPECT_EQ(w.d_qk, 4);  // one head of d_head 4
  EXPECT_EQ(w.steps[3].result, (Shape{5, 5}));
  const ShapesLesson c = shapes_from_config(kSrc + "/configs/reference/llama-3-8b.json", -1);
  const std::string svg = shapes_svg({c, w});
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("[8192, 128]"), std::string::npos);
  EXPECT_NE(svg.find("contracts d_h = 128"), std::string::npos);
  EXPECT_NE(svg.find("[5, 4]"), std::string::npos);
  EXPECT_THROW(shapes_svg({}), Error);
}

void expect_config_error(const std::string& text, int64_t tokens, const std::string& needle) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("llm0_lesson_shapes_bad_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path) << text;
  try {
    shapes_from_config(path, tokens);
    ADD_FAILURE() << "no error; expected " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(LessonShapes, BadConfigsNameTheField) {
  expect_config_error(R"({"num_attention_heads": 8})", 16, "hidden_size");
  expect_config_error(R"({"hidden_size": 64})", 16, "num_attention_heads");
  expect_config_error(R"({"hidden_size": 60, "num_attention_heads": 8})", 16, "not divisible");
  expect_config_error(R"({"hidden_size": 64, "num_attention_heads": 8, "head_dim": -8})", 16,
                      "head_dim");
  expect_config_error(R"({"hidden_size": 64, "num_attention_heads": 8})", -1,
                      "max_position_embeddings");
  expect_config_error(R"({"hidden_size": 64, "num_attention_heads": 8})", 0, "--tokens");
  expect_config_error(R"({"hidden_size": 64, "num_attention_heads": 8, "kv_lora_rank": 8})", 4,
                      "qk_nope_head_dim");
  expect_config_error("{ not json", 4, "not valid JSON");
  EXPECT_THROW(shapes_from_config(kSrc + "/configs/reference/no-such.json", 4), Error);
  EXPECT_THROW(shapes_for(-3, 4, 1, 1, 2, 2), Error);
}

}  // namespace
}  // namespace llm0::lesson
