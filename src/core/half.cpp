// fp16 / bf16 <-> float32 bit manipulation. See half.h for the formats and rounding rule.
#include "core/half.h"

#include <bit>
#include <cmath>

namespace llm0 {

float fp16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float32
    const float mag = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -mag : mag;
  }
  if (exp == 31)  // inf (mant 0) or NaN (payload kept, forced quiet)
    return std::bit_cast<float>(sign | 0x7f800000u | (mant ? (0x400000u | (mant << 13)) : 0u));
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

// Rounds m >> shift to nearest, ties to even (shift in [1, 31]).
static uint32_t shift_round_even(uint32_t m, int shift) {
  const uint32_t kept = m >> shift;
  const uint32_t rem = m & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  return kept + ((rem > half || (rem == half && (kept & 1u))) ? 1u : 0u);
}

uint16_t float_to_fp16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u)  // NaN: keep the top payload bits, force quiet
    return static_cast<uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 (and inf)
  const int e = static_cast<int>(ax >> 23) - 127;                       // unbiased float32 exponent
  if (e >= -14) {  // fp16 normal; a rounding carry into the exponent is correct
    const uint32_t h = (static_cast<uint32_t>(e + 15) << 10) | ((ax & 0x7fffffu) >> 13);
    const uint32_t rem = ax & 0x1fffu;
    const uint32_t up = (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ? 1u : 0u;
    return static_cast<uint16_t>(sign | (h + up));
  }
  if (e < -25) return sign;  // below 2^-25: rounds to zero
  // Subnormal: value = m * 2^(e-23) with m the 24-bit significand; in units of 2^-24 that is
  // m >> -(e+1). A carry up to 0x400 yields the smallest normal, which is correct.
  const uint32_t m = (ax & 0x7fffffu) | 0x800000u;
  return static_cast<uint16_t>(sign | shift_round_even(m, -(e + 1)));
}

float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

}  // namespace llm0
