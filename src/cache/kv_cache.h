// KV cache of one attention layer (MHA/GQA/MQA): K [capacity, Hkv, D] and V [capacity, Hkv, Dv]
// in float32 or bfloat16 (cache/cache_rows.h), rows appended in position order. Capacity is fixed at construction
// (max_position_embeddings or a smaller user limit); appending past it throws, never wraps.
#pragma once
#include <vector>

#include "cache/cache_rows.h"
#include "cache/layer_cache.h"

namespace llm0 {

class KvCache final : public LayerCache {
 public:
  /// Allocates capacity × Hkv × (D + Dv) numbers in storage.dtype. Throws llm0::Error on
  /// non-positive sizes.
  KvCache(int capacity, int num_key_value_heads, int head_dim, int v_head_dim,
          const CacheStorage& storage = {});

  int length() const override { return length_; }
  int capacity() const override { return capacity_; }
  /// length × Hkv × (D + Dv) × (4 or 2) bytes.
  size_t bytes_in_use() const override;
  size_t bytes_allocated() const override;
  void reset() override { length_ = 0; }
  int bytes_per_number() const override { return cache_dtype_bytes(k_.dtype()); }

  /// Rows for positions [pos, pos + n) to be written by the caller: K [n, Hkv, D] / V [n, Hkv, Dv]
  /// (float32; a BF16 cache rounds them at commit). Throws llm0::Error if pos != length() or
  /// pos + n > capacity() (names both numbers).
  float* k_rows(int pos, int n);
  float* v_rows(int pos, int n);
  /// Marks positions [length, length + n) as stored (after k_rows/v_rows were filled).
  void commit(int n);
  /// All stored keys [length, Hkv, D] / values [length, Hkv, Dv] as float32 (a BF16 cache
  /// widens them into its read buffer: valid until the next k() / v() of any layer).
  const float* k() const { return k_.all(length_); }
  const float* v() const { return v_.all(length_); }
  /// The stored K / V rows [0, length) as they are held (float32 or bf16, no widening): row
  /// pointers written into `ptrs` (must outlive the result). For decode attention
  /// (ops/attention_rows.h).
  KvRowSet k_rows_view(KvRowPointers& ptrs) const { return k_.row_pointers(length_, ptrs); }
  KvRowSet v_rows_view(KvRowPointers& ptrs) const { return v_.row_pointers(length_, ptrs); }
  CacheDtype dtype() const { return k_.dtype(); }

 private:
  void check_append(int pos, int n) const;
  int capacity_, Hkv_, D_, Dv_;
  int length_ = 0;
  AppendRows k_, v_;
};

}  // namespace llm0
