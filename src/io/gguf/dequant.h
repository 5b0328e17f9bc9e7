// Dequantization of ggml tensor data to float32: F32 (copied), F16 and BF16 (widened exactly),
// and the block-quantized Q8_0, Q4_0, Q4_K and Q6_K. The block layouts are ggml-common.h's
// block_q8_0, block_q4_0, block_q4_K and block_q6_K (little-endian, packed, no padding); the
// values are those of ggml-quants.c's dequantize_row_* (formulas in dequant.cpp).
// Exactness: every product below (fp16 scale x 6- or 8-bit scale x quant) needs at most 23
// significant bits, so it is exact in float32; the only rounding is Q4_K's one subtraction
// d*sc*q - dmin*m. So the result does not depend on the order of the multiplications or on
// FMA contraction, and any correct implementation agrees bitwise (tests/test_gguf_dequant.cpp
// checks it against gguf-py's numpy code).
#pragma once
#include <cstdint>

#include "io/gguf/ggml_type.h"

namespace llm0 {

/// Writes the `numel` float32 values of `src` (ggml_nbytes(type, numel) bytes of `type`, ggml's
/// row-major data, innermost dimension first) to `dst`. Throws llm0::Error when numel is not a
/// multiple of ggml_block_size(type). Source: ggml-quants.c dequantize_row_{q8_0,q4_0,q4_K,q6_K}.
void ggml_dequantize(GgmlType type, const uint8_t* src, uint64_t numel, float* dst);

}  // namespace llm0
