// Model::backward's GradsReady hook (data parallelism starts a block's all-reduce there): every
// float of the gradient buffer is announced exactly once, and a range announced is final — its
// values then equal those after backward returns (tied embeddings and learned positions included).
#include <gtest/gtest.h>

#include <vector>

#include "model_fixtures.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

void check_announcements(const ModelConfig& cfg) {
  Model m(cfg);
  random_weights(m, 5);
  const int B = 2, T = 7;
  std::vector<int> tokens = random_tokens(B * T, cfg.vocab_size, 1), targets = random_tokens(B * T, cfg.vocab_size, 2);
  targets[3] = -1;
  ParamStore& p = m.params();
  std::vector<int> times(p.size(), 0);
  std::vector<float> at_announce(p.size(), 0.0f);
  m.forward(tokens.data(), targets.data(), B, T);
  m.backward(0.1f, [&](size_t at, size_t n) {
    ASSERT_LE(at + n, p.size());
    for (size_t i = at; i < at + n; ++i) times[i] += 1, at_announce[i] = p.grad()[i];
  });
  size_t unannounced = 0, twice = 0, changed = 0, nonzero = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    unannounced += times[i] == 0, twice += times[i] > 1;
    changed += at_announce[i] != p.grad()[i], nonzero += p.grad()[i] != 0.0f;
  }
  EXPECT_EQ(unannounced, 0u);
  EXPECT_EQ(twice, 0u);
  EXPECT_EQ(changed, 0u) << "gradients changed after their range was announced";
  EXPECT_GT(nonzero, p.size() / 2);
}

}  // namespace

TEST(ModelGradsReady, LlamaEveryFloatOnceAndFinal) {
  check_announcements(tiny_config(Heads::GQA, PositionKind::Rope, 0.5, true));
}

TEST(ModelGradsReady, Gpt2TiedEmbeddingsAndLearnedPositionsOnceAndFinal) {
  check_announcements(gpt2_config());
}
