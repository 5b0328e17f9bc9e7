// Whole-model gradient check (TESTING.md family 5): for every parameter tensor, the directional
// derivative of the loss along a random direction u, by central finite differences of the
// forward, equals <grad, u> from backward. Also: gradients accumulate across micro-batches and
// micro-batches give the gradient of one big batch; a tied embedding's gradient sums both uses.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

// Mean cross-entropy + the MoE balancing loss (0 without one): the objective backward differentiates.
double loss(Model& m, const Batch& b) {
  long n = 0;
  const double s = m.forward(b.tokens.data(), b.targets.data(), b.B, b.T, &n);
  return s / (double)n + m.aux_loss();
}

void check_gradients(const ModelConfig& c, const std::string& name, double h_step = 1e-2) {
  Model m(c);
  random_weights(m, 21, 0.3);
  const Batch b = make_batch(2, 7, c.vocab_size, 5);
  long count = 0;
  m.params().zero_grad();
  m.forward(b.tokens.data(), b.targets.data(), b.B, b.T, &count);
  m.backward(1.0f / (float)count);
  std::mt19937 rng(3);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (const ParamInfo& p : m.params().params()) {
    float* w = m.params().data() + p.offset;
    const float* g = m.params().grad() + p.offset;
    std::vector<float> u(p.numel), w0(w, w + p.numel);
    double gu = 0, unorm = 0;
    for (size_t i = 0; i < p.numel; ++i) u[i] = (float)nd(rng), unorm += (double)u[i] * u[i];
    for (size_t i = 0; i < p.numel; ++i) u[i] /= (float)std::sqrt(unorm), gu += (double)g[i] * u[i];
    const double h = h_step;
    for (size_t i = 0; i < p.numel; ++i) w[i] = w0[i] + (float)h * u[i];
    const double lp = loss(m, b);
    for (size_t i = 0; i < p.numel; ++i) w[i] = w0[i] - (float)h * u[i];
    const double lm = loss(m, b);
    std::copy(w0.begin(), w0.end(), w);
    const double fd = (lp - lm) / (2 * h);
    EXPECT_NEAR(gu, fd, 2e-3 + 2e-2 * std::fabs(fd)) << name << ": " << p.name;
  }
}

}  // namespace

TEST(ModelGrad, FiniteDifferencesEveryTensorLlamaGqaPartialRopeQkNorm) {
  check_gradients(tiny_config(Heads::GQA, PositionKind::Rope, 0.25, true), "qwen3-gqa");
}

// SwiGLU with mlp_bias: gate_proj and up_proj are not adjacent (a bias lies between them), so the
// MLP keeps two [N, F] products; the configs above (no biases) run the stacked [N, 2F] one.
TEST(ModelGrad, FiniteDifferencesEveryTensorSwigluWithMlpBias) {
  ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  c.mlp_bias = true;
  c.validate();
  check_gradients(c, "llama + mlp_bias");
}

TEST(ModelGrad, FiniteDifferencesEveryTensorMqaFullRope) {
  check_gradients(tiny_config(Heads::MQA, PositionKind::Rope, 1.0, false), "llama-mqa");
}

TEST(ModelGrad, FiniteDifferencesEveryTensorSlidingWindowAndSinks) {
  check_gradients(sliding_config(3, {1, 0}, true, /*qwen2=*/true), "qwen2 sliding W=3 + sinks");
}

TEST(ModelGrad, FiniteDifferencesEveryTensorLatentAttention) {
  check_gradients(mla_model_config(0), "mla q_proj");
  check_gradients(mla_model_config(9), "mla q_a/q_b");
}

// Mixture-of-experts layers of every family (qwen3_moe with the auxiliary balancing loss in the
// objective); the correction bias of deepseek_v3 gets exactly zero gradient.
TEST(ModelGrad, FiniteDifferencesEveryTensorMixtureOfExperts) {
  for (const char* family : {"qwen3_moe", "qwen2_moe", "deepseek_v2", "deepseek_v3"})
    check_gradients(moe_model_config(family), family, 2e-3);
}

TEST(ModelGrad, FiniteDifferencesEveryTensorGatedDeltaNetHybrid) {
  check_gradients(hybrid_config({1, 0}, /*qwen3_next=*/true, 4), "qwen3_next linear + full, L=4");
  check_gradients(hybrid_config({1, 1}, /*qwen3_next=*/false, 3, /*gate=*/true),
                  "llama all linear, L=3");
  check_gradients(hybrid_config({0, 1}, /*qwen3_next=*/false, 64, /*gate=*/true),
                  "llama gated attention + linear, L=64");
}

TEST(ModelGrad, FiniteDifferencesEveryTensorGpt2Flavour) {
  check_gradients(gpt2_config(), "gpt2");
}

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
