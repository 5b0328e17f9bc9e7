// Storage of cached rows (K, V, MLA latents) in the cache's element type: float32, or bfloat16
// rounded to nearest even when written and widened (exactly) when read — half the bytes per
// cached number, which is what the KV ledger (`llm0 kv --dtype bf16`) counts.
// Layout: [rows, width] row-major; `width` numbers per row (e.g. Hkv·D for K).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "ops/attention_rows.h"

namespace llm0 {

/// Element type of a cache (`--kv-dtype f32|bf16`).
enum class CacheDtype { F32, BF16 };

/// "f32" / "bf16".
const char* cache_dtype_name(CacheDtype dtype);
/// Bytes per cached number: 4 / 2.
int cache_dtype_bytes(CacheDtype dtype);
/// Parses "f32" (or "fp32") and "bf16". Throws llm0::Error naming the value otherwise.
CacheDtype parse_cache_dtype(std::string_view name);

/// How a layer cache stores its rows: the element type (attention reads BF16 rows as stored,
/// widening in registers).
struct CacheStorage {
  CacheDtype dtype = CacheDtype::F32;
};

/// rows × width numbers in `dtype`.
class CacheRows {
 public:
  CacheRows() = default;
  /// Allocates rows × width numbers (zero). Throws llm0::Error on negative sizes.
  CacheRows(long rows, long width, CacheDtype dtype);
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
  CacheDtype dtype() const { return dtype_; }
  /// Bytes of n rows.
  size_t bytes(long n) const { return (size_t)n * (size_t)width_ * (size_t)cache_dtype_bytes(dtype_); }

 private:
  long width_ = 0;
  CacheDtype dtype_ = CacheDtype::F32;
  Tensor f32_;                 // [rows, width] when F32
  std::vector<uint16_t> bf16_;  // [rows, width] when BF16
};

}  // namespace llm0
