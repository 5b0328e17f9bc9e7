// Cross-entropy op: forward vs the double reference (per-row losses, total, count of used rows,
// ignored targets < 0, large logits), uniform logits give log V, backward vs finite differences
// of the reference (dlogits overwritten, 0 on ignored rows, also when aliasing the logits), the
// one-pass backward from the forward's saved row max and sum bit-identical to the recomputing one,
// and targets >= V rejected with llm0::Error.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/check.h"
#include "ops/loss.h"
#include "ops/ref/ref_loss.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

struct Case {
  int N, V;
  float range, shift;  // logits uniform in [shift - range, shift + range)
};

std::vector<int> targets_for(const Case& c, std::mt19937& rng) {
  std::uniform_int_distribution<int> u(0, c.V - 1);
  std::vector<int> t(c.N);
  for (int n = 0; n < c.N; ++n) t[n] = n % 5 == 2 ? -100 : n % 7 == 4 ? -1 : u(rng);
  return t;
}

// A case's logits (uniform in its range) and then its targets, from one generator seeded `seed`.
struct Drawn {
  std::vector<float> logits;  // [N, V]
  std::vector<int> targets;   // [N]
};
Drawn draw(const Case& c, unsigned seed) {
  std::mt19937 rng(seed);
  auto logits = rand_vec((size_t)c.N * c.V, rng, c.shift - c.range, c.shift + c.range);
  return {std::move(logits), targets_for(c, rng)};
}

const Case kCases[] = {{1, 1, 1.0f, 0.0f},  {3, 2, 3.0f, 0.0f},     {13, 7, 5.0f, 0.0f},
                       {9, 257, 30.0f, 0.0f}, {20, 1000, 4.0f, 1000.0f}, {5, 50, 2.0f, -500.0f}};

TEST(OpsLoss, ForwardMatchesReference) {
  unsigned seed = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(format("N={} V={} range={} shift={}", c.N, c.V, c.range, c.shift));
    const auto [logits, targets] = draw(c, seed++);
    std::vector<float> losses(c.N, std::numeric_limits<float>::quiet_NaN());
    long count = -1, count_r = -1;
    const double total = cross_entropy_forward(losses.data(), logits.data(), targets.data(), c.N,
                                               c.V, &count);
    const auto ld = to_double(logits);
    std::vector<double> want(c.N);
    const double total_r = ref::cross_entropy_forward(want.data(), ld.data(), targets.data(), c.N,
                                                      c.V, &count_r);
    EXPECT_TRUE(all_close(losses, want, 1e-5, 1e-6, "losses", {c.N}));
    // float32 exp per element, double accumulation: float precision relative to the total.
    EXPECT_NEAR(total, total_r, 2e-6 * (1 + std::fabs(total_r)));
    long used = 0;
    for (int t : targets) used += t >= 0;
    EXPECT_EQ(count, used);
    EXPECT_EQ(count_r, used);
    for (int n = 0; n < c.N; ++n) {
      if (targets[n] < 0) {
        EXPECT_EQ(losses[n], 0.0f) << "ignored row " << n;
      }
    }
  }
}

TEST(OpsLoss, UniformLogitsGiveLogV) {
  for (int V : {1, 2, 7, 50000}) {
    const int N = 11;
    std::vector<float> logits((size_t)N * V, 3.7f), losses(N);
    std::vector<int> targets(N);
    for (int n = 0; n < N; ++n) targets[n] = n == 4 ? -100 : (n * 7919) % V;
    long count = 0;
    const double total = cross_entropy_forward(losses.data(), logits.data(), targets.data(), N, V,
                                               &count);
    EXPECT_EQ(count, N - 1);
    EXPECT_NEAR(total, (N - 1) * std::log((double)V), 1e-9 * (N - 1) * (1 + std::log(V)));
    for (int n = 0; n < N; ++n)
      EXPECT_NEAR(losses[n], n == 4 ? 0.0 : std::log((double)V), 1e-6) << "V=" << V << " row " << n;
  }
}

TEST(OpsLoss, BackwardMatchesFiniteDifferences) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), scale = 0.37f;
  unsigned seed = 20;
  for (const Case& c : kCases) {
    if ((size_t)c.N * c.V > 3000) continue;  // FD cost
    SCOPED_TRACE(format("N={} V={} range={} shift={}", c.N, c.V, c.range, c.shift));
    const auto [logits, targets] = draw(c, seed++);
    std::vector<float> dlogits(logits.size(), nan);
    cross_entropy_backward(dlogits.data(), logits.data(), targets.data(), c.N, c.V, scale);
    auto ld = to_double(logits);
    auto loss = [&] {  // L = scale · Σ_n loss_n
      return scale * ref::cross_entropy_forward(nullptr, ld.data(), targets.data(), c.N, c.V,
                                                nullptr);
    };
    EXPECT_TRUE(all_close(dlogits, test::fd_grad(ld, loss), test::kGradRtol, test::kGradAtol,
                          "dlogits", {c.N, c.V}));
    for (int n = 0; n < c.N; ++n) {
      if (targets[n] < 0) {
        for (int v = 0; v < c.V; ++v) ASSERT_EQ(dlogits[(size_t)n * c.V + v], 0.0f) << n;
      }
    }
    auto inplace = logits;  // dlogits may alias logits
    cross_entropy_backward(inplace.data(), inplace.data(), targets.data(), c.N, c.V, scale);
    EXPECT_TRUE(all_close(inplace, dlogits, 0.0, 0.0, "dlogits in place", {c.N, c.V}));
  }
}

TEST(OpsLoss, BackwardFromTheForwardsSoftmaxRowsIsBitIdentical) {
  // The training step hands the backward the forward's row max and sum (SoftmaxRows): the one-pass
  // backward must write exactly the bits of the backward that recomputes them, ignored rows and
  // in place included, on every case (V = 1, tails of V mod 16, |logits| ~ 1000).
  const float nan = std::numeric_limits<float>::quiet_NaN(), scale = 0.37f;
  unsigned seed = 40;
  for (const Case& c : kCases) {
    SCOPED_TRACE(format("N={} V={} range={} shift={}", c.N, c.V, c.range, c.shift));
    const auto [logits, targets] = draw(c, seed++);
    std::vector<float> mx(c.N, nan);
    std::vector<double> sum(c.N, std::numeric_limits<double>::quiet_NaN());
    const SoftmaxRows rows{mx.data(), sum.data()};
    cross_entropy_forward(nullptr, logits.data(), targets.data(), c.N, c.V, nullptr, rows);
    std::vector<float> want(logits.size(), nan), got(logits.size(), nan);
    cross_entropy_backward(want.data(), logits.data(), targets.data(), c.N, c.V, scale);
    cross_entropy_backward(got.data(), logits.data(), targets.data(), c.N, c.V, scale, rows);
    EXPECT_TRUE(all_close(got, want, 0.0, 0.0, "dlogits from saved rows", {c.N, c.V}));
    auto inplace = logits;
    cross_entropy_backward(inplace.data(), inplace.data(), targets.data(), c.N, c.V, scale, rows);
    EXPECT_TRUE(all_close(inplace, want, 0.0, 0.0, "in place from saved rows", {c.N, c.V}));
  }
}

TEST(OpsLoss, LargeLogitsGiveProbabilitiesExactToFloatRounding) {
  // Softmax recovered from the backward (scale 1): p = dlogits + onehot(target). Rows of
  // magnitude 1e3 and 1e4, one long enough for the 16-lane loop; the reference is the double
  // softmax, and every row must sum to 1 within float rounding (it summed to 1.00003 when
  // p = exp(z - float(logsumexp))).
  const std::vector<std::vector<float>> rows = {
      {1000.0f, 1001.0f}, {1e4f, -1e4f}, {-1e4f, -1e4f + 1.0f, -1e4f + 0.5f},
      {1e4f, 1e4f + 1.0f, 1e4f - 2.0f}, {-1000.0f, -1001.0f, -999.0f}};
  std::vector<std::vector<float>> all = rows;
  std::mt19937 rng(7);
  all.push_back(rand_vec(37, rng, 1e4f - 3.0f, 1e4f + 3.0f));
  all.push_back(rand_vec(37, rng, -1e4f - 3.0f, -1e4f + 3.0f));
  for (const auto& z : all) {
    const int V = (int)z.size(), target = V - 1;
    SCOPED_TRACE(format("V={} z0={}", V, z[0]));
    std::vector<float> p(V);
    cross_entropy_backward(p.data(), z.data(), &target, 1, V, 1.0f);
    p[target] += 1.0f;
    const double mx = *std::max_element(z.begin(), z.end());
    double s = 0, sum_p = 0;
    for (float x : z) s += std::exp((double)x - mx);
    std::vector<double> want(V);
    for (int v = 0; v < V; ++v) want[v] = std::exp((double)z[v] - mx) / s;
    for (int v = 0; v < V; ++v) sum_p += p[v];
    // A few float ulps; p[target] = dlogits + 1 also carries the rounding of p - 1 (ulp(1) / 2).
    EXPECT_TRUE(all_close(p, want, 6e-7, 6e-8, "softmax", {V}));
    EXPECT_NEAR(sum_p, 1.0, 4e-7 * V);
    float loss = 0;
    cross_entropy_forward(&loss, z.data(), &target, 1, V, nullptr);
    EXPECT_NEAR(loss, -std::log(want[target]), 1e-5 * (1 - std::log(want[target])));
  }
}

TEST(OpsLoss, TargetOutOfVocabThrows) {
  const int N = 3, V = 4;
  std::vector<float> logits(N * V, 0.0f);
  std::vector<double> ld(N * V, 0.0);
  const std::vector<int> targets = {0, V, 1};
  EXPECT_THROW(cross_entropy_forward(nullptr, logits.data(), targets.data(), N, V, nullptr), Error);
  EXPECT_THROW(ref::cross_entropy_forward(nullptr, ld.data(), targets.data(), N, V, nullptr), Error);
}

}  // namespace
}  // namespace llm0
