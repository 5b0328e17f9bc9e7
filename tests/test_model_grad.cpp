// Whole-model gradient rules beyond the finite differences of every kind (tests/kinds/,
// test_kinds_grad): gradients accumulate across micro-batches and micro-batches give the gradient
// of one big batch; a tied embedding's gradient sums both uses (TESTING.md family 5).
#include <gtest/gtest.h>

#include <cmath>

#include "model_fixtures.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

struct Batch {
  std::vector<int> tokens, targets;
  int B, T;
};

Batch make_batch(int B, int T, int V, unsigned seed) {
  Batch b{random_tokens(B * T, V, seed), random_tokens(B * T, V, seed + 1), B, T};
  b.targets[1] = -1;  // an ignored target
  return b;
}

}  // namespace

TEST(ModelGrad, MicroBatchesEqualOneBigBatchAndAccumulate) {
  const ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  Model m(c);
  random_weights(m, 4);
  const Batch big = make_batch(3, 8, c.vocab_size, 9);
  long n_big = 0;
  m.params().zero_grad();
  m.forward(big.tokens.data(), big.targets.data(), 3, 8, &n_big);
  m.backward(1.0f / (float)n_big);
  const std::vector<float> g_big(m.params().grad(), m.params().grad() + m.params().size());
  // Three micro-batches of one sequence each, normalised by the total target count.
  m.params().zero_grad();
  for (int i = 0; i < 3; ++i) {
    m.forward(big.tokens.data() + i * 8, big.targets.data() + i * 8, 1, 8);
    m.backward(1.0f / (float)n_big);
  }
  double worst = 0, scale = 0;
  for (size_t i = 0; i < g_big.size(); ++i) {
    worst = std::max(worst, (double)std::fabs(g_big[i] - m.params().grad()[i]));
    scale = std::max(scale, (double)std::fabs(g_big[i]));
  }
  EXPECT_GT(scale, 1e-3);
  EXPECT_LT(worst, 1e-5 + 1e-4 * scale);
}

TEST(ModelGrad, TiedEmbeddingGradientSumsBothUses) {
  ModelConfig tied_cfg = gpt2_config(), untied_cfg = gpt2_config();
  untied_cfg.tie_word_embeddings = false;
  Model tied(tied_cfg), untied(untied_cfg);
  EXPECT_FALSE(tied.params().has("lm_head.weight"));
  random_weights(untied, 8);
  // Same weights: copy every tensor; the untied lm_head equals the embedding.
  for (const ParamInfo& p : tied.params().params())
    std::copy_n(untied.params().value(p.name), p.numel, tied.params().value(p.name));
  std::copy_n(untied.params().value("model.embed_tokens.weight"),
              untied.params().info("lm_head.weight").numel, untied.params().value("lm_head.weight"));
  const Batch b = make_batch(2, 6, tied_cfg.vocab_size, 2);
  for (Model* m : {&tied, &untied}) {
    long n = 0;
    m->params().zero_grad();
    m->forward(b.tokens.data(), b.targets.data(), 2, 6, &n);
    m->backward(1.0f / (float)n);
  }
  const size_t n = tied.params().info("model.embed_tokens.weight").numel;
  const float* gt = tied.params().gradient("model.embed_tokens.weight");
  const float* ge = untied.params().gradient("model.embed_tokens.weight");
  const float* gh = untied.params().gradient("lm_head.weight");
  double worst = 0, head_norm = 0;
  for (size_t i = 0; i < n; ++i) {
    worst = std::max(worst, (double)std::fabs(gt[i] - (ge[i] + gh[i])));
    head_norm += (double)gh[i] * gh[i];
  }
  EXPECT_GT(head_norm, 1e-6);  // the head's share is not negligible, so a missing use would show
  EXPECT_LT(worst, 1e-6);
}
