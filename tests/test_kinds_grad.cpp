// Gradients vs central finite differences for every row of the kind table (TESTING.md family 5):
// for every parameter tensor, the derivative of the objective (mean cross-entropy + the MoE
// balancing loss) along a unit direction u, by finite differences of the forward, equals <g, u>
// from backward. u = (ĝ + r̂)/|ĝ + r̂| (ĝ the tensor's gradient normalised, r̂ a random unit
// vector): half along the gradient, so the signal is about |g|/√2 whatever the tensor's size
// (a purely random u sees |g|/√numel), and half random, so a gradient pointing the wrong way
// fails too. A tensor whose exact gradient is 0 (DeepSeek-V3's e_score_correction_bias) gets
// u = r̂ and must show 0.
//
// The model computes in float32, so there is no double reference at this level (each layer's
// double-precision references are checked in test_layers_* and test_ops_*); the tolerance comes
// from the two errors of a central difference D(h) = (L(w + hu) − L(w − hu)) / 2h:
//  - truncation, h²/6 · L'''(w): removed to O(h⁴) by Richardson's R = (4 D(h/2) − D(h)) / 3 and
//    bounded by |D(h) − D(h/2)| (= 3/4 · h²/6 · |L'''| + O(h⁴), far above R's O(h⁴) remainder);
//  - rounding: each L carries float32 noise of at most ε, so R carries at most
//    (4 · 2ε/h + 2ε/2h) / 3 = 3ε/h. ε comes from this forward's own noise, read off second
//    differences at five steps δ far below h: L(w + δu) − 2 L(w) + L(w − δu) = δ² L'' + noise
//    (δ² L'' only adds to the estimate, on the safe side). The noise e₊ − 2e₀ + e₋ has √6 ≈ 2.4 times the spread σ of one
//    evaluation's, so its largest of five is about 3σ and ε = 4 × that largest is about 12σ:
//    beyond the worst draw of the few hundred evaluations of a row. Rounding term: 12·max/h.
// Step h = 1e-3: small enough that the curvature of the Gated DeltaNet rows leaves Richardson's
// error below the rounding term (at 1e-2 their conv weights are off by 70%), large enough that
// the rounding term stays near 1e-4 to 1e-3 of an O(1) derivative. A mixture of experts is
// piecewise smooth: a step that changes a routing decision crosses a jump, so a step whose
// forwards route any token elsewhere (Model::expert_load differs from the unperturbed forward's)
// is halved until none does. The same check runs again under residual dropout (ops/dropout.h)
// with a fixed draw: the masks are a function of the draw, so the objective is the same smooth
// function of the weights at every evaluation and backward must be its gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kinds/kind_table.h"

using namespace llm0;
using namespace llm0::kinds;

namespace {

struct Batch {
  std::vector<int> tokens, targets;
  int B, T;
};

// The objective backward differentiates: mean cross-entropy + the MoE balancing loss (0 without).
double objective(Model& m, const Batch& b, const Dropout& d) {
  long n = 0;
  const double s = m.forward(b.tokens.data(), b.targets.data(), b.B, b.T, &n, d);
  return s / (double)n + m.aux_loss();
}

// Tokens per expert of every MoE layer in the last forward, concatenated (empty when dense).
std::vector<float> routing(const Model& m) {
  std::vector<float> all;
  for (const Model::ExpertLoad& l : m.expert_load()) all.insert(all.end(), l.tokens.begin(), l.tokens.end());
  return all;
}

// L(w0 + t·u) for the tensor w (restored afterwards); *same_routing: whether that forward routed
// as `base` did.
double objective_at(Model& m, const Batch& b, float* w, const std::vector<float>& w0,
                    const std::vector<double>& u, double t, const std::vector<float>& base,
                    const Dropout& d, bool* same_routing) {
  for (size_t i = 0; i < w0.size(); ++i) w[i] = (float)(w0[i] + t * u[i]);
  const double l = objective(m, b, d);
  *same_routing = routing(m) == base;
  std::copy(w0.begin(), w0.end(), w);
  return l;
}

std::vector<double> unit_direction(const float* g, size_t n, std::mt19937& rng) {
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<double> r(n), u(n);
  double rn = 0, gn = 0;
  for (size_t i = 0; i < n; ++i) r[i] = nd(rng), rn += r[i] * r[i], gn += (double)g[i] * g[i];
  rn = std::sqrt(rn), gn = std::sqrt(gn);
  double un = 0;
  for (size_t i = 0; i < n; ++i) u[i] = r[i] / rn + (gn > 0 ? g[i] / gn : 0.0), un += u[i] * u[i];
  for (double& x : u) x /= std::sqrt(un);
  return u;
}

class KindGrad : public ::testing::TestWithParam<KindRow> {};

void check_every_tensor(const KindRow& r, const Dropout& d) {
  const int V = r.config.vocab_size;
  Model m(r.config);
  prepare(m, r, 21);
  Batch b{testing_fixtures::random_tokens(14, V, 5), testing_fixtures::random_tokens(14, V, 6), 2, 7};
  b.targets[1] = -1;  // an ignored target
  long count = 0;
  m.params().zero_grad();
  m.forward(b.tokens.data(), b.targets.data(), b.B, b.T, &count, d);
  m.backward(1.0f / (float)count);
  const std::vector<float> base = routing(m);
  std::mt19937 rng(3);
  for (const ParamInfo& p : m.params().params()) {
    float* w = m.params().data() + p.offset;
    const float* g = m.params().grad() + p.offset;
    const std::vector<float> w0(w, w + p.numel);
    const std::vector<double> u = unit_direction(g, p.numel, rng);
    double gu = 0;
    for (size_t i = 0; i < p.numel; ++i) gu += (double)g[i] * u[i];
    bool smooth = true;
    auto L = [&](double t) {
      bool same = true;
      const double l = objective_at(m, b, w, w0, u, t, base, d, &same);
      smooth = smooth && same;
      return l;
    };
    auto D = [&](double s) { return (L(s) - L(-s)) / (2 * s); };
    double h = 2e-3, dh = 0, dh2 = 0;
    for (int halvings = 0; halvings < 8 && !(smooth && halvings > 0); ++halvings) {
      h /= 2, smooth = true;
      dh = D(h), dh2 = D(h / 2);
    }
    ASSERT_TRUE(smooth) << p.name << ": every step down to " << h << " changes the routing";
    const double l0 = L(0), R = (4 * dh2 - dh) / 3;
    double noise = 0;
    for (double delta : {1e-5, 2e-5, 3e-5, 4e-5, 5e-5})
      noise = std::max(noise, std::fabs(L(delta) - 2 * l0 + L(-delta)));
    const double tol = 3 * (4 * noise) / h + std::fabs(dh - dh2);
    EXPECT_NEAR(gu, R, tol) << p.name << ": h " << h << ", D(h) " << dh << ", D(h/2) " << dh2
                            << ", noise floor " << noise;
  }
}

}  // namespace

TEST_P(KindGrad, EveryTensorMatchesCentralDifferences) { check_every_tensor(GetParam(), {}); }

// p = 0.3: a third of every residual branch and of the embeddings dropped, so a backward that
// ignored a mask (or used another draw's) is off by far more than the tolerance.
TEST_P(KindGrad, EveryTensorMatchesCentralDifferencesUnderDropout) {
  check_every_tensor(GetParam(), Dropout{0.3f, 0x5eed});
}

INSTANTIATE_TEST_SUITE_P(Kinds, KindGrad, every_kind(), row_name);
