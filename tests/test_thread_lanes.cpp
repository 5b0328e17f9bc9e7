// Thread lanes (train/thread_lanes.h): a batch's sequences shared out over the threads, each lane
// a whole single-threaded forward and backward, the gradients summed.
// (1) Bit for bit: lanes at 2 and 3 threads (3 lanes of 1, 1 and 2 sequences) give the loss and
//     gradients of separate one-thread models, one per lane on its sequences, summed in lane
//     order — with residual dropout on, each lane drawing the masks of its rows of the batch.
// (2) The whole batch at one thread agrees: a lane that lost a sequence or drew other masks
//     moves the gradient by a sizeable part of its norm (one sequence of 4, or a p = 0.2 mask);
//     summing in another order moves it by rounding only (γ_n · Σ|terms|, Higham eq. 3.5, with
//     n ≤ B·T = 256 terms per dW element: 256 · 2⁻²⁴ ≈ 1.5e-5 of the terms' magnitude) — the
//     check allows 1e-3 of the norm, between the two.
// (3) A mixture-of-experts model, whose routing couples the batch's sequences, runs in one lane.
// (4) A lane shares its owner's weights, not its gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "core/check.h"
#include "core/threads.h"
#include "model/model.h"
#include "model_fixtures.h"
#include "train/thread_lanes.h"

namespace llm0 {
namespace {

using namespace testing_fixtures;

constexpr int B = 4, T = 64;

struct Grads {
  double loss = 0;
  long count = 0;
  std::vector<float> grad;
};

struct Kind {
  const char* name;
  ModelConfig cfg;
};

std::vector<Kind> kinds() {
  return {{"llama GQA RoPE", tiny_config(Heads::GQA, PositionKind::Rope, 0.5, true)},
          {"gpt2 learned positions, tied", gpt2_config()},
          {"sliding window + sinks", sliding_config(8, {1, 0}, true)},
          {"MLA", mla_model_config(16)},
          {"Gated DeltaNet hybrid", hybrid_config({1, 0, 1}, true)}};
}

Dropout draw() { return Dropout{0.2f, 0xD0}; }

// Inputs and next-token targets [B, T] of one random token stream.
std::pair<std::vector<int>, std::vector<int>> next_token_batch(const ModelConfig& c,
                                                             unsigned seed) {
  const auto tokens = random_tokens(B * T + 1, c.vocab_size, seed);
  return {{tokens.begin(), tokens.end() - 1}, {tokens.begin() + 1, tokens.end()}};
}

// Lanes of `model` at `threads` threads.
Grads lanes(Model& model, int threads, const std::vector<int>& x, const std::vector<int>& y) {
  set_num_threads(threads);
  ThreadLanes l(model);
  Grads r;
  model.params().zero_grad();
  r.loss = l.forward(x.data(), y.data(), B, T, &r.count, draw());
  l.backward(1.0f / (float)r.count);
  set_num_threads(1);
  r.grad.assign(model.params().grad(), model.params().grad() + model.params().size());
  return r;
}

TEST(ThreadLanes, EqualTheSumOfOneModelPerLane) {
  for (const Kind& k : kinds()) {
    SCOPED_TRACE(k.name);
    const auto [x, y] = next_token_batch(k.cfg, 3);
    Model model(k.cfg);
    random_weights(model, 7, 0.1);
    for (int R : {2, 3}) {
      SCOPED_TRACE(format("{} lanes", R));
      const Grads got = lanes(model, R, x, y);
      // One model per lane at one thread, on the lane's sequences and its rows' masks.
      set_num_threads(1);
      Grads want;
      std::vector<std::vector<float>> grads;
      for (int r = 0; r < R; ++r) {
        const int b0 = r * B / R, b1 = (r + 1) * B / R;
        Model m(k.cfg);
        std::memcpy(m.params().data(), model.params().data(), 4 * model.params().size());
        Dropout d = draw();
        d.first = (size_t)b0 * T * k.cfg.hidden_size;
        long c = 0;
        want.loss += m.forward(&x[(size_t)b0 * T], &y[(size_t)b0 * T], b1 - b0, T, &c, d);
        want.count += c;
        m.backward(1.0f / (float)got.count);  // the whole batch's scale, as the lanes use
        grads.emplace_back(m.params().grad(), m.params().grad() + m.params().size());
      }
      want.grad = grads[0];
      for (int r = 1; r < R; ++r)
        for (size_t i = 0; i < want.grad.size(); ++i) want.grad[i] += grads[(size_t)r][i];
      EXPECT_EQ(got.count, want.count);
      EXPECT_EQ(got.loss, want.loss);
      ASSERT_EQ(got.grad.size(), want.grad.size());
      size_t differ = 0;
      for (size_t i = 0; i < got.grad.size(); ++i)
        differ += std::memcmp(&got.grad[i], &want.grad[i], 4) != 0;
      EXPECT_EQ(differ, 0u) << "gradient elements that differ in their bits";
    }
  }
}

TEST(ThreadLanes, AgreeWithTheWholeBatchAtOneThread) {
  for (const Kind& k : kinds()) {
    SCOPED_TRACE(k.name);
    const auto [x, y] = next_token_batch(k.cfg, 4);
    Model model(k.cfg);
    random_weights(model, 8, 0.1);
    const Grads one = lanes(model, 1, x, y);  // one lane: the model itself, the whole batch
    for (int R : {2, 3}) {
      SCOPED_TRACE(format("{} lanes", R));
      const Grads got = lanes(model, R, x, y);
      EXPECT_EQ(got.count, one.count);
      EXPECT_NEAR(got.loss, one.loss, 1e-3 * std::fabs(one.loss));
      double d2 = 0, n2 = 0;
      for (size_t i = 0; i < one.grad.size(); ++i) {
        const double d = (double)got.grad[i] - one.grad[i];
        d2 += d * d, n2 += (double)one.grad[i] * one.grad[i];
      }
      EXPECT_LE(std::sqrt(d2), 1e-3 * std::sqrt(n2)) << "gradient differs beyond rounding";
    }
  }
}

TEST(ThreadLanes, MixtureOfExpertsRunsInOneLane) {
  Model model(moe_model_config("qwen3_moe"));
  set_num_threads(2);
  const ThreadLanes l(model);
  EXPECT_EQ(l.lanes_for(B), 1);
  set_num_threads(1);
  Model dense(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  set_num_threads(3);
  const ThreadLanes d(dense);
  EXPECT_EQ(d.lanes_for(B), 3);
  EXPECT_EQ(d.lanes_for(2), 2);  // never more lanes than sequences
  set_num_threads(1);
}

// A lane reads its owner's weights in place and keeps gradients of its own; a store whose
// parameters differ cannot share another's values.
TEST(ThreadLanes, ALaneSharesTheWeightsAndNotTheGradients) {
  Model owner(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  owner.set_bf16_products(true);
  Model lane(Model::LaneOf{owner});
  const Model& o = owner;
  const Model& l = lane;
  EXPECT_EQ(l.params().data(), o.params().data());
  EXPECT_NE(l.params().grad(), o.params().grad());
  EXPECT_TRUE(lane.bf16_products());
  owner.params().data()[3] = 0.625f;  // a write through the owner (an optimizer step)
  EXPECT_EQ(l.params().data()[3], 0.625f);
  ParamStore other;
  other.declare("w", {3});
  EXPECT_THROW(other.finalize_sharing(owner.params()), Error);
}

}  // namespace
}  // namespace llm0
