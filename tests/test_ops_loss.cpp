// Cross-entropy op: forward vs the double reference (per-row losses, total, count of used rows,
// ignored targets < 0, large logits), uniform logits give log V, backward vs finite differences
// of the reference (dlogits overwritten, 0 on ignored rows, also when aliasing the logits), and
// targets >= V rejected with llm0::Error.
#include <cmath>
#include <limits>
#include <string>
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

const Case kCases[] = {{1, 1, 1.0f, 0.0f},  {3, 2, 3.0f, 0.0f},     {13, 7, 5.0f, 0.0f},
                       {9, 257, 30.0f, 0.0f}, {20, 1000, 4.0f, 1000.0f}, {5, 50, 2.0f, -500.0f}};

TEST(OpsLoss, ForwardMatchesReference) {
  unsigned seed = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(format("N={} V={} range={} shift={}", c.N, c.V, c.range, c.shift));
    std::mt19937 rng(seed++);
    const auto logits = rand_vec((size_t)c.N * c.V, rng, c.shift - c.range, c.shift + c.range);
    const auto targets = targets_for(c, rng);
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
    std::mt19937 rng(seed++);
    const auto logits = rand_vec((size_t)c.N * c.V, rng, c.shift - c.range, c.shift + c.range);
    const auto targets = targets_for(c, rng);
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
