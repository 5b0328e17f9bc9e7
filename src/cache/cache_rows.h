// Storage of cached rows (K, V, MLA latents) in the cache's element type: float32, or bfloat16
// rounded to nearest even when written and widened (exactly) when read — half the bytes per
// cached number, which is what the KV ledger (`llm0 kv --dtype bf16`) counts.
// Layout: [rows, width] row-major; `width` numbers per row (e.g. Hkv·D for K).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/element_type.h"
#include "core/tensor.h"
#include "ops/attention_rows.h"

namespace llm0 {

/// Throws llm0::Error unless a cache can store `dtype`: the caches store f32 or bf16 (`--kv-dtype`),
/// not the other element types the ledger counts.
void check_cache_stores(ElementType dtype);

/// How a layer cache stores its rows: the element type (attention reads BF16 rows as stored,
/// widening in registers).
struct CacheStorage {
  ElementType dtype = ElementType::F32;
};

/// rows × width numbers in `dtype`.
class CacheRows {
 public:
  CacheRows() = default;
  /// Allocates rows × width numbers (zero). Throws llm0::Error on negative sizes or a dtype no
  /// cache stores (check_cache_stores).
  CacheRows(long rows, long width, ElementType dtype);
  /// Rows [row, row + n) = src [n, width] (rounded to BF16 when the store is BF16).
  void write(long row, long n, const float* src);
  /// dst [n, width] = rows [row, row + n), as float32.
  void read(long row, long n, float* dst) const;
  /// Row r as stored (width() numbers): float32 (F32 store) or bf16 bits (BF16 store).
  const float* f32_row(long r) const { return f32_.data() + r * width_; }
  const uint16_t* bf16_row(long r) const { return bf16_.data() + r * width_; }
  /// The float32 storage, or null when BF16.
  float* f32() { return f32_.data(); }
  const float* f32() const { return f32_.data(); }
  long width() const { return width_; }
  ElementType dtype() const { return dtype_; }
  /// Bytes of n rows.
  size_t bytes(long n) const { return (size_t)element_bytes(dtype_, (uint64_t)n * (uint64_t)width_); }

 private:
  long width_ = 0;
  ElementType dtype_ = ElementType::F32;
  Tensor f32_;                 // [rows, width] when F32
  std::vector<uint16_t> bf16_;  // [rows, width] when BF16
};

}  // namespace llm0
