// Gradient clipping by global L2 norm (src/train/grad_clip.h).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "train/grad_clip.h"

using llm0::clip_grad_norm;
using llm0::grad_norm;

namespace {
std::vector<float> random_grad(size_t n, unsigned seed, float mean) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(mean, 1.0f);
  std::vector<float> g(n);
  for (float& x : g) x = dist(rng);
  return g;
}
double norm_by_long_double(const std::vector<float>& g) {
  long double s = 0;
  for (float x : g) s += static_cast<long double>(x) * x;
  return static_cast<double>(std::sqrt(s));
}
}  // namespace

TEST(GradClip, ThreeFourFive) {
  std::vector<float> g = {3.0f, 0.0f, -4.0f};
  EXPECT_DOUBLE_EQ(clip_grad_norm(g.data(), g.size(), 1.0), 5.0);
  EXPECT_FLOAT_EQ(g[0], 0.6f);
  EXPECT_EQ(g[1], 0.0f);
  EXPECT_FLOAT_EQ(g[2], -0.8f);
}

TEST(GradClip, ScalesGlobalNormExactlyToThreshold) {
  // Odd size (not a multiple of the 64 chunks), above the OpenMP threshold, non-zero mean.
  std::vector<float> g = random_grad(100003, 7, 0.3f);
  const std::vector<float> before = g;
  const double norm0 = norm_by_long_double(g);
  const double returned = clip_grad_norm(g.data(), g.size(), 2.5);
  EXPECT_NEAR(returned, norm0, 1e-12 * norm0);
  EXPECT_NEAR(norm_by_long_double(g), 2.5, 2.5 * 1e-6);
  // Direction kept: every element scaled by the same factor 2.5 / norm0.
  const double scale = 2.5 / norm0;
  for (size_t i = 0; i < g.size(); i += 997)
    EXPECT_NEAR(g[i], before[i] * scale, 1e-7 * std::abs(before[i] * scale) + 1e-30) << i;
}

TEST(GradClip, SmallGradientsUntouched) {
  std::vector<float> g = random_grad(1000, 3, 0.0f);
  const std::vector<float> before = g;
  const double norm0 = norm_by_long_double(g);
  EXPECT_NEAR(clip_grad_norm(g.data(), g.size(), norm0 * 1.01), norm0, 1e-12 * norm0);
  EXPECT_EQ(g, before);  // bit-identical
}

TEST(GradClip, ZeroMaxNormDisablesClipping) {
  std::vector<float> g = {30.0f, 40.0f};
  EXPECT_DOUBLE_EQ(clip_grad_norm(g.data(), g.size(), 0.0), 50.0);
  EXPECT_EQ(g, (std::vector<float>{30.0f, 40.0f}));
}

TEST(GradClip, NonFiniteNormReturnedAndGradientsUntouched) {
  std::vector<float> g = {1.0f, std::numeric_limits<float>::infinity(), 2.0f};
  EXPECT_TRUE(std::isinf(clip_grad_norm(g.data(), g.size(), 1.0)));
  EXPECT_EQ(g[0], 1.0f);
  EXPECT_EQ(g[2], 2.0f);
  std::vector<float> h = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_TRUE(std::isnan(clip_grad_norm(h.data(), h.size(), 1.0)));
  EXPECT_EQ(h[0], 1.0f);
}

TEST(GradClip, EmptyAndTinyBuffers) {
  EXPECT_EQ(grad_norm(nullptr, 0), 0.0);
  const float one[1] = {-2.0f};
  EXPECT_EQ(grad_norm(one, 1), 2.0);
}

TEST(GradClip, NormIsIdenticalForAnyThreadCount) {
  const std::vector<float> g = random_grad(300001, 11, 0.1f);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const double n1 = grad_norm(g.data(), g.size());
  omp_set_num_threads(3);
  const double n3 = grad_norm(g.data(), g.size());
  omp_set_num_threads(saved);
  EXPECT_EQ(n1, n3);
}
