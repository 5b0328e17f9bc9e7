// The engine at 2 and 3 threads against itself at 1 thread (ctest runs every other test with
// OMP_NUM_THREADS=1, so this is where the threaded paths of every op run): sizes above every
// OpenMP threshold (norms, activations, attention, loss, matvec, AdamW), a Llama and a GPT-2
// flavour (LayerNorm, GELU, biases, tied). Loss, every parameter's gradient, one AdamW step and
// prefill + decode logits must agree to float rounding (OpenBLAS splits sums differently per
// thread count); one AdamW step from the same gradients must be bit-identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cache/model_cache.h"
#include "core/check.h"
#include "core/threads.h"
#include "model/infer_context.h"
#include "model/model.h"
#include "model_fixtures.h"
#include "test_util.h"
#include "train/adamw.h"

namespace llm0 {
namespace {

using namespace testing_fixtures;
using test::all_close;

ModelConfig wide_config(bool gpt2) {
  ModelConfig c = gpt2 ? gpt2_config() : tiny_config(Heads::GQA, PositionKind::Rope, 0.5, false);
  c.vocab_size = 1024, c.hidden_size = 256, c.intermediate_size = 688;
  c.num_attention_heads = 8, c.num_key_value_heads = gpt2 ? 8 : 2, c.head_dim = 32;
  c.max_position_embeddings = 128;
  c.validate();
  return c;
}

struct Outputs {
  double loss;
  std::vector<float> grad, after_step, logits;
};

// step_grad: the gradient AdamW steps with (null: the one just computed).
Outputs run(const ModelConfig& cfg, int threads, const std::vector<float>* step_grad = nullptr) {
  set_num_threads(threads);
  Model m(cfg);
  random_weights(m, 5, 0.05);
  const int B = 2, T = 128, V = cfg.vocab_size;
  const auto tokens = random_tokens(B * T + 1, V, 9);
  const std::vector<int> x(tokens.begin(), tokens.end() - 1), y(tokens.begin() + 1, tokens.end());
  Outputs r;
  long count = 0;
  m.params().zero_grad();
  r.loss = m.forward(x.data(), y.data(), B, T, &count);
  m.backward(1.0f / (float)count);
  r.grad.assign(m.params().grad(), m.params().grad() + m.params().size());
  if (step_grad) std::copy(step_grad->begin(), step_grad->end(), m.params().grad());
  AdamW opt(m.params());
  opt.step(m.params(), 1e-3);
  r.after_step.assign(m.params().data(), m.params().data() + m.params().size());
  // Prefill 40 tokens, then decode 8 one at a time: every step's last-position logits.
  ModelCache cache = m.new_cache(64);
  InferContext ctx(m);
  std::vector<float> logits((size_t)V);
  m.forward_cached(x.data(), 40, cache, ctx, logits.data(), true);
  r.logits = logits;
  for (int t = 40; t < 48; ++t) {
    m.forward_cached(&x[(size_t)t], 1, cache, ctx, logits.data(), true);
    r.logits.insert(r.logits.end(), logits.begin(), logits.end());
  }
  set_num_threads(1);
  return r;
}

TEST(ModelThreads, TwoThreadsAgreeWithOne) {
  for (bool gpt2 : {false, true}) {
    SCOPED_TRACE(gpt2 ? "gpt2" : "llama");
    const ModelConfig cfg = wide_config(gpt2);
    const Outputs one = run(cfg, 1);
    const std::vector<double> g1(one.grad.begin(), one.grad.end());
    const std::vector<double> l1(one.logits.begin(), one.logits.end());
    for (int threads : {2, 3}) {  // 3: splits of rows and blocks that do not divide evenly
      SCOPED_TRACE(format("threads={}", threads));
      const Outputs many = run(cfg, threads, &one.grad);
      EXPECT_NEAR(many.loss, one.loss, 1e-6 * one.loss);
      EXPECT_TRUE(all_close(many.grad, g1, 1e-4, 1e-7, "grad", {(int)g1.size()}));
      EXPECT_TRUE(all_close(many.logits, l1, 1e-5, 1e-5, "logits", {9, cfg.vocab_size}));
      // AdamW is element-wise: the same gradients give bit-identical weights at any thread count.
      EXPECT_EQ(many.after_step, one.after_step);
    }
  }
}

}  // namespace
}  // namespace llm0
