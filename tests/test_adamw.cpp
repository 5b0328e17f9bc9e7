// AdamW (src/train/adamw.h): one and two steps against hand arithmetic, which parameters decay,
// bias correction, and restoring m, v, t.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/params.h"
#include "core/threads.h"
#include "train/adamw.h"

using llm0::AdamW;
using llm0::AdamWConfig;
using llm0::ParamStore;

namespace {

// A small Llama-style store: 2-D weights (decay) and 1-D norms / biases (no decay).
void declare_small_model(ParamStore& s) {
  s.declare("model.embed_tokens.weight", {5, 2});
  s.declare("model.layers.0.input_layernorm.weight", {2});
  s.declare("model.layers.0.self_attn.q_proj.weight", {2, 2});
  s.declare("model.layers.0.self_attn.q_proj.bias", {2});
  s.declare("model.layers.0.mlp.down_proj.weight", {2, 3});
  s.declare("model.norm.weight", {2});
  s.declare("lm_head.weight", {5, 2});
  s.finalize();
}

// Two parameters of two elements each: "w" [1, 2] decays, "b" [2] does not.
struct TwoParams {
  ParamStore s;
  TwoParams() {
    s.declare("w", {1, 2});
    s.declare("b", {2});
    s.finalize();
    set("w", 0.5f, -1.0f);
    set("b", 0.5f, -1.0f);
  }
  void set(const char* name, float a, float b) {
    s.value(name)[0] = a;
    s.value(name)[1] = b;
  }
  void grad(float g0, float g1) {
    for (const char* name : {"w", "b"}) {
      s.gradient(name)[0] = g0;
      s.gradient(name)[1] = g1;
    }
  }
};

}  // namespace

TEST(AdamW, WeightDecayListMatchesTheRule) {
  ParamStore s;
  declare_small_model(s);
  const std::vector<std::string> expected = {
      "model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight",
      "model.layers.0.mlp.down_proj.weight", "lm_head.weight"};
  EXPECT_EQ(llm0::weight_decay_params(s), expected);
  EXPECT_FALSE(llm0::receives_weight_decay(s.info("model.norm.weight")));
  EXPECT_FALSE(llm0::receives_weight_decay(s.info("model.layers.0.self_attn.q_proj.bias")));
}

TEST(AdamW, OneAndTwoStepsByHand) {
  TwoParams t;
  const AdamWConfig cfg{0.9, 0.95, 1e-8, 0.1};
  AdamW opt(t.s, cfg);
  const double lr = 0.1;

  // Step 1, g = (0.2, -3.0). For element 0:
  //   m1 = 0.1 * 0.2 = 0.02;  v1 = 0.05 * 0.04 = 0.002
  //   m_hat = 0.02 / (1 - 0.9) = 0.2;  sqrt(v_hat) = sqrt(0.002 / (1 - 0.95)) = 0.2
  //   w: 0.5 * (1 - 0.1 * 0.1) - 0.1 * 0.2 / (0.2 + 1e-8) = 0.495 - 0.099999995 = 0.395000005
  //   b: 0.5 - 0.099999995 = 0.400000005 (no decay)
  // Element 1: m_hat = -3, sqrt(v_hat) = 3, so the update is +0.1 * 3 / (3 + 1e-8).
  t.grad(0.2f, -3.0f);
  opt.step(t.s, lr);
  const double g0 = static_cast<double>(0.2f);  // the float the store holds
  double m0 = 0.1 * g0, v0 = 0.05 * g0 * g0;
  const double upd1_0 = lr * (m0 / 0.1) / (std::sqrt(v0 / 0.05) + 1e-8);
  const double upd1_1 = lr * (-0.3 / 0.1) / (std::sqrt(0.05 * 9.0 / 0.05) + 1e-8);
  EXPECT_NEAR(t.s.value("w")[0], 0.5 * 0.99 - upd1_0, 1e-7);
  EXPECT_NEAR(t.s.value("w")[0], 0.395000005, 1e-7);
  EXPECT_NEAR(t.s.value("b")[0], 0.400000005, 1e-7);
  EXPECT_NEAR(t.s.value("w")[1], -1.0 * 0.99 - upd1_1, 1e-7);
  EXPECT_NEAR(t.s.value("b")[1], -1.0 - upd1_1, 1e-7);
  // Moments are float, updated in float (as PyTorch): a few ulp of 0.02 and 0.002.
  EXPECT_NEAR(opt.m()[t.s.info("w").offset], 0.02, 0.02 * 5e-7);
  EXPECT_NEAR(opt.v()[t.s.info("w").offset], 0.002, 0.002 * 5e-7);
  EXPECT_EQ(opt.step_count(), 1);

  // Step 2, g0 = -0.1 (element 0 only checked by hand):
  //   m2 = 0.9 * 0.02 + 0.1 * (-0.1) = 0.008;  v2 = 0.95 * 0.002 + 0.05 * 0.01 = 0.0024
  //   bias corrections 1 - 0.9^2 = 0.19 and 1 - 0.95^2 = 0.0975
  //   update = 0.1 * (0.008 / 0.19) / (sqrt(0.0024 / 0.0975) + 1e-8) = 0.02683694...
  const double w1 = t.s.value("w")[0], b1 = t.s.value("b")[0];
  t.grad(-0.1f, 1.0f);
  opt.step(t.s, lr);
  const double gm = static_cast<double>(-0.1f);
  m0 = 0.9 * 0.02 + 0.1 * gm;
  v0 = 0.95 * 0.002 + 0.05 * gm * gm;
  const double upd2 = lr * (m0 / 0.19) / (std::sqrt(v0 / 0.0975) + 1e-8);
  EXPECT_NEAR(upd2, 0.02683694, 1e-8);
  EXPECT_NEAR(t.s.value("w")[0], w1 * 0.99 - upd2, 1e-7);
  EXPECT_NEAR(t.s.value("b")[0], b1 - upd2, 1e-7);
  EXPECT_EQ(opt.step_count(), 2);
}

TEST(AdamW, BiasCorrectionMakesTheFirstStepLrSized) {
  // With bias correction, step 1 moves every element by lr * g / |g| (eps aside), whatever the
  // gradient's scale; without it the move would be lr * (1 - b1) / sqrt(1 - b2) = 0.447 lr.
  ParamStore s;
  s.declare("x", {4});
  s.finalize();
  const float g[4] = {1e-3f, -2.0f, 50.0f, -7e2f};
  for (int i = 0; i < 4; ++i) s.grad()[i] = g[i];
  AdamW opt(s, AdamWConfig{0.9, 0.95, 1e-12, 0.0});
  opt.step(s, 0.01);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(s.data()[i], g[i] > 0 ? -0.01 : 0.01, 1e-8) << i;
}

TEST(AdamW, ZeroGradientOnlyDecays) {
  ParamStore s;
  declare_small_model(s);
  for (size_t i = 0; i < s.size(); ++i) s.data()[i] = 2.0f;
  AdamW opt(s, AdamWConfig{0.9, 0.999, 1e-8, 0.5});
  opt.step(s, 0.1);  // m = v = 0: only the decoupled decay 2 * (1 - 0.1 * 0.5) = 1.9 acts
  for (const llm0::ParamInfo& p : s.params())
    for (size_t i = 0; i < p.numel; ++i)
      EXPECT_FLOAT_EQ(s.data()[p.offset + i], llm0::receives_weight_decay(p) ? 1.9f : 2.0f)
          << p.name;
}

TEST(AdamW, RestoredStateContinuesIdentically) {
  auto fill_grad = [](ParamStore& s, int step) {
    for (size_t i = 0; i < s.size(); ++i) s.grad()[i] = std::sin(0.37 * i + 1.3 * step);
  };
  ParamStore a, b;
  declare_small_model(a);
  declare_small_model(b);
  for (size_t i = 0; i < a.size(); ++i) a.data()[i] = 0.01f * i;
  AdamW opt_a(a);
  for (int step = 0; step < 2; ++step) {
    fill_grad(a, step);
    opt_a.step(a, 1e-2);
  }
  // Checkpoint after 2 steps: parameters, m, v, t.
  AdamW opt_b(b);
  for (size_t i = 0; i < a.size(); ++i) {
    b.data()[i] = a.data()[i];
    opt_b.m()[i] = opt_a.m()[i];
    opt_b.v()[i] = opt_a.v()[i];
  }
  opt_b.set_step_count(opt_a.step_count());
  for (int step = 2; step < 5; ++step) {
    fill_grad(a, step);
    opt_a.step(a, 1e-2);
    fill_grad(b, step);
    opt_b.step(b, 1e-2);
  }
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.data()[i], b.data()[i]) << i;
  EXPECT_EQ(opt_b.step_count(), 5);
}

// Above the OpenMP threshold each tensor's elements are split among the threads: 1 and 2 threads
// must give the same parameters and moments bit for bit, and only the 2-D tensors decay (a zero
// gradient leaves m = v = 0, so the update is exactly p · (1 − lr · weight_decay) or p).
TEST(AdamW, ThreadCountDoesNotChangeTheStep) {
  auto declare = [](ParamStore& s) {  // odd sizes, 40 013 floats in all (> the 32 768 threshold)
    s.declare("a.weight", {97, 301});
    s.declare("a.bias", {97});
    s.declare("b.weight", {31, 333});
    s.declare("norm.weight", {7});
    s.finalize();
  };
  ParamStore one, two, still;
  declare(one), declare(two), declare(still);
  ASSERT_GT(one.size(), 32768u);
  for (ParamStore* s : {&one, &two, &still})
    for (size_t i = 0; i < s->size(); ++i) s->data()[i] = std::cos(0.11 * i);
  AdamW opt_one(one), opt_two(two), opt_still(still);
  for (int step = 0; step < 3; ++step) {
    for (size_t i = 0; i < one.size(); ++i) one.grad()[i] = two.grad()[i] = std::sin(0.37 * i + step);
    llm0::set_num_threads(1);
    opt_one.step(one, 1e-2);
    llm0::set_num_threads(2);
    opt_two.step(two, 1e-2);
  }
  opt_still.step(still, 1e-2);  // zero gradient, 2 threads
  llm0::set_num_threads(1);
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(one.data()[i], two.data()[i]) << i;
    ASSERT_EQ(opt_one.m()[i], opt_two.m()[i]) << i;
    ASSERT_EQ(opt_one.v()[i], opt_two.v()[i]) << i;
  }
  const float decay = (float)(1.0 - 1e-2 * AdamWConfig{}.weight_decay);
  for (const llm0::ParamInfo& p : still.params())
    for (size_t i = p.offset; i < p.offset + p.numel; ++i)
      ASSERT_EQ(still.data()[i], (float)std::cos(0.11 * i) * (p.shape.rank() >= 2 ? decay : 1.0f))
          << p.name << " " << i;
}

TEST(AdamW, BadConfigAndSizeMismatchThrow) {
  ParamStore s, other;
  declare_small_model(s);
  other.declare("x", {3});
  other.finalize();
  EXPECT_THROW(AdamW(s, AdamWConfig{1.0, 0.95, 1e-8, 0.1}), llm0::Error);
  EXPECT_THROW(AdamW(s, AdamWConfig{0.9, -0.1, 1e-8, 0.1}), llm0::Error);
  EXPECT_THROW(AdamW(s, AdamWConfig{0.9, 0.95, 0.0, 0.1}), llm0::Error);
  EXPECT_THROW(AdamW(s, AdamWConfig{0.9, 0.95, 1e-8, -1.0}), llm0::Error);
  AdamW opt(s);
  EXPECT_THROW(opt.step(other, 1e-3), llm0::Error);
  EXPECT_THROW(opt.set_step_count(-1), llm0::Error);
}
