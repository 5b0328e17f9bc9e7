// Half-precision conversions: IEEE 754 binary16 (fp16) and bfloat16 (bf16) <-> float32.
// fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits; subnormals have unit 2^-24, max 65504.
// bf16: the upper 16 bits of a float32 (1 sign, 8 exponent, 7 mantissa bits).
// Narrowing rounds to nearest, ties to even (as torch .to(torch.float16/bfloat16) does);
// NaN stays a (quiet) NaN with its sign, infinities stay infinities.
#pragma once
#include <cstdint>

namespace llm0 {

/// Exact widening of an fp16 bit pattern to float32 (normals, subnormals, +-0, +-inf, NaN).
float fp16_to_float(uint16_t h);

/// float32 -> fp16 bits, round to nearest even. |x| >= 65520 becomes inf; |x| <= 2^-25 becomes
/// +-0; values in between the fp16 normals' lower end become subnormals.
uint16_t float_to_fp16(float f);

/// Exact widening of a bf16 bit pattern to float32 (the bits shifted left by 16).
float bf16_to_float(uint16_t b);

/// float32 -> bf16 bits, round to nearest even; finite values above the bf16 maximum become inf.
uint16_t float_to_bf16(float f);

}  // namespace llm0
