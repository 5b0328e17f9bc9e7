// fp16 / bf16 <-> float32 conversions (src/core/half.h) against values computed another way:
// literal IEEE bit patterns, the binary16 formula evaluated in double, and a brute-force
// nearest-representable search for rounding (ties to even).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/half.h"

using llm0::bf16_to_float;
using llm0::float_to_bf16;
using llm0::float_to_fp16;
using llm0::fp16_to_float;

namespace {

// binary16 value from its fields, in double (IEEE 754-2008 section 3.4); NaN patterns excluded.
double fp16_formula(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  const double mag = exp == 0    ? mant * std::ldexp(1.0, -24)
                     : exp == 31 ? std::numeric_limits<double>::infinity()
                                 : (1.0 + mant / 1024.0) * std::ldexp(1.0, exp - 15);
  return sign ? -mag : mag;
}

// Nearest fp16 pattern to a finite double x by search over all positive finite fp16 values,
// ties to the even pattern; overflow past 65520 gives inf (round-to-nearest with unbounded
// exponent would give 65536, not representable).
uint16_t fp16_nearest(double x) {
  static std::vector<double> pos = [] {
    std::vector<double> v;
    for (uint16_t h = 0; h <= 0x7bff; ++h) v.push_back(fp16_formula(h));
    return v;
  }();
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7c00;
  const size_t hi = std::lower_bound(pos.begin(), pos.end(), a) - pos.begin();
  if (hi == 0) return sign;
  if (hi == pos.size()) return sign | 0x7bff;
  const size_t lo = hi - 1;
  const double dlo = a - pos[lo], dhi = pos[hi] - a;
  const size_t pick = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
  return static_cast<uint16_t>(sign | pick);
}

}  // namespace

TEST(Half, Fp16KnownValues) {
  EXPECT_EQ(fp16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(fp16_to_float(0xc100), -2.5f);
  EXPECT_EQ(fp16_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_to_float(0x0001), 5.9604644775390625e-08f);     // 2^-24, smallest subnormal
  EXPECT_EQ(fp16_to_float(0x03ff), 6.0975551605224609375e-05f);  // largest subnormal 1023*2^-24
  EXPECT_EQ(fp16_to_float(0x0400), 6.103515625e-05f);            // smallest normal 2^-14
  EXPECT_EQ(fp16_to_float(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::signbit(fp16_to_float(0x8000)) && fp16_to_float(0x8000) == 0.0f);
  EXPECT_EQ(fp16_to_float(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(fp16_to_float(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7e00)));
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7c01)));  // signalling NaN pattern stays NaN
  EXPECT_TRUE(std::isnan(fp16_to_float(0xfe00)) && std::signbit(fp16_to_float(0xfe00)));
}

TEST(Half, Fp16WidenAllPatternsMatchFormula) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const bool nan = ((h >> 10) & 31) == 31 && (h & 1023) != 0;
    const float f = fp16_to_float(static_cast<uint16_t>(h));
    if (nan) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(f)))) << std::hex << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), fp16_formula(static_cast<uint16_t>(h))) << std::hex << h;
    ASSERT_EQ(std::signbit(f), (h >> 15) != 0) << std::hex << h;
    ASSERT_EQ(float_to_fp16(f), h) << "round trip of " << std::hex << h;
  }
}

TEST(Half, Fp16RoundingMatchesNearestSearch) {
  // Every tie point between consecutive fp16 values, and one float ulp either side of it.
  for (uint16_t h = 0; h < 0x7bff; ++h) {
    const float mid = static_cast<float>((fp16_formula(h) + fp16_formula(h + 1)) / 2);  // exact
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      ASSERT_EQ(float_to_fp16(x), fp16_nearest(x)) << x;
      ASSERT_EQ(float_to_fp16(-x), fp16_nearest(-x)) << -x;
    }
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> expo(-30.0f, 17.0f), mant(-1.0f, 1.0f);
  for (int i = 0; i < 200000; ++i) {
    const float x = mant(rng) * std::exp2(expo(rng));
    ASSERT_EQ(float_to_fp16(x), fp16_nearest(x)) << x;
  }
}

TEST(Half, Fp16EdgesOfRange) {
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65519.99f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);  // tie between 65504 and 2^16 goes to even: inf
  EXPECT_EQ(float_to_fp16(-1e10f), 0xfc00);
  EXPECT_EQ(float_to_fp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // tie between 0 and 2^-24: even 0
  EXPECT_EQ(float_to_fp16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(float_to_fp16(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 units of 2^-24: tie to even 2
  EXPECT_EQ(float_to_fp16(std::ldexp(5.0f, -25)), 0x0002);  // 2.5 units: tie to even 2
  EXPECT_EQ(float_to_fp16(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 units
  EXPECT_EQ(float_to_fp16(-std::ldexp(1.0f, -26)), 0x8000);
  EXPECT_EQ(float_to_fp16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(float_to_fp16(std::nextafter(std::ldexp(1.0f, -14), 0.0f)), 0x0400);  // carry to normal
  const uint16_t nan = float_to_fp16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
}

TEST(Half, Bf16KnownValues) {
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(bf16_to_float(0xc020), -2.5f);
  EXPECT_EQ(bf16_to_float(0x4049), 3.140625f);
  EXPECT_EQ(float_to_bf16(3.14159265358979f), 0x4049);  // pi = 0x40490fdb rounds down
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // overflows to inf
  EXPECT_EQ(float_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  const uint16_t nan = float_to_bf16(std::bit_cast<float>(0x7f800001u));  // NaN with low payload
  EXPECT_TRUE(std::isnan(bf16_to_float(nan)));
}

TEST(Half, Bf16AllPatternsAndRounding) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const float f = bf16_to_float(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bf16(f), b) << std::hex << b;
  }
  // Random floats: the result must be the nearer (in double) of the two bf16 neighbours.
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> bits(0, 0x7f7effffu);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t x = bits(rng);
    const double v = std::bit_cast<float>(x);
    const double lo = std::bit_cast<float>(x & 0xffff0000u);
    const double hi = std::bit_cast<float>((x & 0xffff0000u) + 0x10000u);
    const uint16_t lo_b = static_cast<uint16_t>(x >> 16);
    const uint16_t want = v - lo < hi - v   ? lo_b
                          : hi - v < v - lo ? lo_b + 1
                                            : (lo_b % 2 ? lo_b + 1 : lo_b);
    ASSERT_EQ(float_to_bf16(static_cast<float>(v)), want) << std::hex << x;
    ASSERT_EQ(float_to_bf16(static_cast<float>(-v)), want | 0x8000) << std::hex << x;
  }
}
