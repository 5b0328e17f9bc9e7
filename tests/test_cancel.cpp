// Cancellation at step boundaries (src/core/cancel.h): without a scope cancel_point() never throws;
// under one it throws Cancelled from the first call whose test says stop, and at every call after
// (the test is not asked again); an inner scope replaces the outer one until it ends; and the
// kv-cache lesson's generation stops at its first step once its test says stop.
#include <gtest/gtest.h>

#include "core/cancel.h"
#include "lesson/lesson_kv_cache.h"

namespace llm0 {
namespace {

TEST(Cancel, OnlyAScopeWhoseTestSaysStopThrows) {
  EXPECT_NO_THROW(cancel_point());
  int asked = 0;
  bool stop = false;
  CancelScope outer([&] { return ++asked, stop; });
  EXPECT_NO_THROW(cancel_point());
  EXPECT_EQ(asked, 1);
  EXPECT_FALSE(outer.fired());
  {
    CancelScope inner([] { return true; });
    EXPECT_THROW(cancel_point(), Cancelled);
    EXPECT_TRUE(inner.fired());
  }
  EXPECT_NO_THROW(cancel_point()) << "the outer scope's test is back";
  EXPECT_EQ(asked, 2);
  stop = true;
  EXPECT_THROW(cancel_point(), Cancelled);
  stop = false;
  EXPECT_THROW(cancel_point(), Cancelled) << "once fired, the scope stays fired";
  EXPECT_EQ(asked, 3);
  EXPECT_TRUE(outer.fired());
}

// The test is asked before every step: stopping after k answers leaves exactly k steps run (the
// cached run: one prefill step, then one per generated token).
TEST(Cancel, TheLessonsGenerationStopsAtTheStepItIsToldTo) {
  const auto model = lesson::lesson_model_from_config(std::string(LLM0_SOURCE_DIR) + "/configs/lesson-tiny.json", 1);
  const std::vector<int> prompt = lesson::lesson_prompt(4, model->config().vocab_size);
  int steps = 0;
  CancelScope scope([&] { return ++steps > 5; });
  EXPECT_THROW(lesson::run_generation(*model, prompt, 20, true), Cancelled);
  EXPECT_EQ(steps, 6) << "5 steps ran, the 6th was refused";
}

}  // namespace
}  // namespace llm0
