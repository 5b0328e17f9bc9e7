// SIMD helpers (core/simd.h): the vectorized e^x against std::exp in double over the range
// softmax and cross-entropy feed it (shifted logits ≤ 0, plus positive values), its edges
// (underflow to 0, -inf → 0, NaN stays NaN, clamping at the top), the lane reductions, and the
// 16 × 16 transpose (core/simd_transpose.h) against the index rule, including NaN and -0 bits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/simd.h"
#include "core/simd_transpose.h"

namespace llm0 {
namespace {

using simd::f32x16;

TEST(Simd, ExpWithinTwoUlpOfDoubleExp) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-87.0f, 87.0f);
  double worst = 0;
  for (int it = 0; it < 20000; ++it) {
    f32x16 x;
    for (int j = 0; j < 16; ++j) x[j] = it < 10 ? (float)(-it * 16 - j) * 0.5f : u(rng);
    const f32x16 y = simd::exp(x);
    for (int j = 0; j < 16; ++j) {
      const double want = std::exp((double)x[j]);
      const double ulp = std::nextafter((float)want, INFINITY) - (float)want;
      worst = std::max(worst, std::abs(y[j] - want) / ulp);
    }
  }
  EXPECT_LE(worst, 2.0);
  EXPECT_GT(worst, 0.0);  // the polynomial is not exact: the comparison is live
}

TEST(Simd, ExpEdges) {
  f32x16 x = {};
  const float inf = std::numeric_limits<float>::infinity();
  x[0] = -inf, x[1] = -100.0f, x[2] = std::nanf(""), x[3] = 0.0f, x[4] = 1.0f, x[5] = 88.0f,
  x[6] = -87.0f, x[7] = 1000.0f;
  const f32x16 y = simd::exp(x);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_NEAR(y[4], std::exp(1.0), 2e-7 * std::exp(1.0));
  EXPECT_NEAR(y[5], std::exp(88.0), 2e-7 * std::exp(88.0));
  EXPECT_NEAR(y[6], std::exp(-87.0), 2e-7 * std::exp(-87.0));
  EXPECT_TRUE(std::isfinite(y[7]));  // clamped, not inf: softmax inputs are shifted ≤ 0 anyway
}

TEST(Simd, Reductions) {
  f32x16 v;
  for (int j = 0; j < 16; ++j) v[j] = (float)((j * 7) % 16) - 3.0f;  // a permutation of -3..12
  EXPECT_EQ(simd::sum(v), 72.0f);
  EXPECT_EQ(simd::max(v), 12.0f);
  float in[17], out[17] = {};
  for (int j = 0; j < 17; ++j) in[j] = (float)j;
  simd::store(out + 1, simd::load(in + 1) * 2.0f + simd::splat(0.5f));  // unaligned both ways
  EXPECT_EQ(out[0], 0.0f);
  for (int j = 1; j < 17; ++j) EXPECT_EQ(out[j], 2.0f * j + 0.5f);
}

TEST(Simd, TransposeMovesEveryNumberToItsMirroredPlace) {
  f32x16 r[16];
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) r[i][j] = (float)(100 * i + j);
  r[3][9] = -0.0f, r[12][1] = std::numeric_limits<float>::quiet_NaN();
  simd::transpose16(r);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      SCOPED_TRACE(::testing::Message() << "row " << i << " lane " << j);
      if (i == 9 && j == 3) EXPECT_TRUE(std::signbit(r[i][j]) && r[i][j] == 0.0f);
      else if (i == 1 && j == 12) EXPECT_TRUE(std::isnan(r[i][j]));
      else EXPECT_EQ(r[i][j], (float)(100 * j + i));
    }
  simd::transpose16(r);  // twice = the identity
  EXPECT_EQ(r[5][11], 511.0f);
  EXPECT_TRUE(std::signbit(r[3][9]));
}

}  // namespace
}  // namespace llm0
