// What the BF16 product (ops/bf16_gemm.h) and its MR × NR tiles (ops/bf16_gemm_kernel.h) both
// read: the strided float32 operand and the width of a packed B panel. A header of its own so the
// product calls its tiles and the tiles never include the product.
#pragma once

namespace llm0 {

/// A float32 matrix operand read through strides: element (r, k) is p[r * rs + k * ks]
/// (row-major [R, K]: rs = K, ks = 1; its transpose [K, R] seen as [R, K]: rs = 1, ks = R).
struct GemmOperand {
  const float* p = nullptr;
  long rs = 0, ks = 1;
};

/// Columns per packed B panel (the tile width): PackedB column offsets are multiples of it.
inline constexpr int kBf16PanelCols = 32;

}  // namespace llm0
