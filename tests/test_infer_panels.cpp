// The model's packed panels (Model::panels, model/infer_context.h): one store, packed once, read
// by every fixed-order context of a model (its size: every linear map of the config, counted from
// the config); two contexts on two threads over one model give each sequence its logits alone,
// bitwise (dense, MoE, MLA and Gated DeltaNet models); a change of the weights (a write through
// the ParamStore, an AdamW step, use_bf16_weights) makes a forward through an older fixed-order
// context throw, and a new context reads fresh panels (the logits of a model built with the
// changed weights, bitwise); a training step never packs.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cache/model_cache.h"
#include "core/check.h"
#include "model/infer_context.h"
#include "model/model.h"
#include "model_fixtures.h"
#include "train/adamw.h"

namespace llm0 {
namespace {

using namespace testing_fixtures;

// Logits of `tokens` through a fresh cache in `ctx`: prefill of all but the last 4 tokens
// (every row), then the last 4 one at a time (each one's row): [T, V].
std::vector<float> run_sequence(const Model& m, InferContext& ctx, const std::vector<int>& tokens) {
  const int T = (int)tokens.size(), V = m.config().vocab_size, P = T - 4;
  ModelCache cache = m.new_cache(T);
  std::vector<float> out((size_t)T * V);
  m.forward_cached(tokens.data(), P, cache, ctx, out.data());
  for (int t = P; t < T; ++t) m.forward_cached(&tokens[(size_t)t], 1, cache, ctx, out.data() + (size_t)t * V);
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The stale-panels refusal, by its words.
void expect_stale(const Model& m, InferContext& ctx, const std::vector<int>& tokens) {
  try {
    run_sequence(m, ctx, tokens);
    ADD_FAILURE() << "a forward through stale panels did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("predate a change of the model's weights"), std::string::npos)
        << e.what();
  }
}

// A second model holding `m`'s weights as they are now.
std::unique_ptr<Model> copy_of(const Model& m) {
  auto c = std::make_unique<Model>(m.config());
  std::memcpy(c->params().data(), m.params().data(), m.params().size() * sizeof(float));
  return c;
}

// Bytes of W [O, I] as panels of kLinearPanel outputs (ops/linear_pack.h), float32.
size_t panel_bytes(long I, long O) {
  return (size_t)((O + kLinearPanel - 1) / kLinearPanel * kLinearPanel * I * 4);
}

TEST(InferPanels, OneStorePerModelHoldingEveryLinearMap) {
  const ModelConfig cfg = tiny_config(Heads::GQA, PositionKind::Rope, 0.5, false);
  Model m(cfg);
  random_weights(m, 3);
  EXPECT_EQ(m.panel_bytes(), 0u);  // nothing packed before a context asks
  InferContext a(m), b(m);
  ASSERT_NE(a.panels(), nullptr);
  EXPECT_EQ(a.panels(), b.panels());
  // q [H·D, C], k and v [Hkv·D, C], o [C, H·D], gate and up [F, C], down [C, F] per layer; lm_head.
  const long C = cfg.hidden_size, HD = cfg.num_attention_heads * cfg.head_dim;
  const long KD = cfg.num_key_value_heads * cfg.head_dim, F = cfg.intermediate_size;
  const size_t layer = panel_bytes(C, HD) + 2 * panel_bytes(C, KD) + panel_bytes(HD, C) +
                       2 * panel_bytes(C, F) + panel_bytes(F, C);
  EXPECT_EQ(a.panel_bytes(), cfg.num_hidden_layers * layer + panel_bytes(C, cfg.vocab_size));
  EXPECT_EQ(m.panel_bytes(), a.panel_bytes());
  b.set_fixed_order(false);  // BLAS: no panels held
  EXPECT_EQ(b.panels(), nullptr);
  EXPECT_EQ(b.panel_bytes(), 0u);
  b.set_fixed_order(true);   // the same store again, not a second copy
  EXPECT_EQ(b.panels(), a.panels());
}

TEST(InferPanels, TwoContextsOnTwoThreadsGiveEachSequenceItsLogitsAlone) {
  const ModelConfig configs[] = {tiny_config(Heads::GQA, PositionKind::Rope, 0.5, false),
                                 moe_model_config("qwen3_moe"), mla_model_config(16),
                                 hybrid_config({0}, true)};
  for (const ModelConfig& cfg : configs) {
    SCOPED_TRACE(cfg.model_type);
    Model m(cfg);
    random_weights(m, 5);
    const std::vector<int> s1 = random_tokens(13, cfg.vocab_size, 1);
    const std::vector<int> s2 = random_tokens(9, cfg.vocab_size, 2);
    InferContext c1(m), c2(m);
    const std::vector<float> alone1 = run_sequence(m, c1, s1), alone2 = run_sequence(m, c2, s2);
    // A fresh model with the same weights: its panels are packed by whichever thread asks first.
    const std::unique_ptr<Model> twin = copy_of(m);
    std::vector<float> got1, got2;
    const PackedWeights *p1 = nullptr, *p2 = nullptr;
    std::thread t1([&] {
      InferContext ctx(*twin);
      p1 = ctx.panels();
      got1 = run_sequence(*twin, ctx, s1);
    });
    std::thread t2([&] {
      InferContext ctx(*twin);
      p2 = ctx.panels();
      got2 = run_sequence(*twin, ctx, s2);
    });
    t1.join(), t2.join();
    EXPECT_EQ(p1, p2);  // one store for both
    EXPECT_TRUE(same_bits(got1, alone1));
    EXPECT_TRUE(same_bits(got2, alone2));
  }
}

TEST(InferPanels, AChangeOfTheWeightsMakesOlderContextsThrow) {
  const ModelConfig cfg = tiny_config(Heads::GQA, PositionKind::Rope, 0.5, false);
  Model m(cfg);
  random_weights(m, 7);
  const std::vector<int> tokens = random_tokens(12, cfg.vocab_size, 3);
  InferContext old_ctx(m), blas(m);
  blas.set_fixed_order(false);
  const std::vector<float> before = run_sequence(m, old_ctx, tokens);
  // A write through the store (as a load or an initializer does).
  m.params().value("model.layers.1.mlp.down_proj.weight")[5] += 0.5f;
  expect_stale(m, old_ctx, tokens);
  run_sequence(m, blas, tokens);  // BLAS reads the weights themselves: nothing stale
  {
    InferContext fresh(m);
    const std::unique_ptr<Model> twin = copy_of(m);
    InferContext twin_ctx(*twin);
    const std::vector<float> now = run_sequence(m, fresh, tokens);
    EXPECT_TRUE(same_bits(now, run_sequence(*twin, twin_ctx, tokens)));
    EXPECT_FALSE(same_bits(now, before));  // the change reached the logits
  }
  old_ctx.set_fixed_order(false), old_ctx.set_fixed_order(true);  // re-taken: current again
  run_sequence(m, old_ctx, tokens);
  // AdamW steps: a training step packs nothing; a step after a context was made leaves it stale.
  const std::unique_ptr<Model> learner = copy_of(m);
  AdamW opt(learner->params());
  const std::vector<int> targets(tokens.begin() + 1, tokens.end());
  const auto train_step = [&] {
    learner->params().zero_grad();
    learner->forward(tokens.data(), targets.data(), 1, (int)targets.size());
    learner->backward(1.0f);
    opt.step(learner->params(), 1e-2);
  };
  train_step();
  EXPECT_EQ(learner->panel_bytes(), 0u);
  InferContext learner_ctx(*learner);
  run_sequence(*learner, learner_ctx, tokens);
  train_step();
  expect_stale(*learner, learner_ctx, tokens);
  // use_bf16_weights: the float32 panels are freed at once; new contexts read BF16 panels, half
  // the bytes (every linear map of this config is rounded), the same bits as a model that was
  // never packed in float32.
  const size_t f32_bytes = m.panel_bytes();
  const std::unique_ptr<Model> twin = copy_of(m);
  m.use_bf16_weights();
  EXPECT_EQ(m.panel_bytes(), 0u);
  expect_stale(m, old_ctx, tokens);
  InferContext bf16_ctx(m);
  EXPECT_EQ(bf16_ctx.panel_bytes() * 2, f32_bytes);
  twin->use_bf16_weights();
  InferContext twin_ctx(*twin);
  EXPECT_TRUE(same_bits(run_sequence(m, bf16_ctx, tokens), run_sequence(*twin, twin_ctx, tokens)));
}

}  // namespace
}  // namespace llm0
