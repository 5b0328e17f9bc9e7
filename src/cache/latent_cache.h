// Cache of one multi-head latent attention layer (DeepSeek-V2, arXiv:2405.04434 §2.1.2): per
// token the latent c_kv after kv_a_layernorm (kv_lora_rank r numbers) and the shared rotary key
// k_pe after RoPE (qk_rope_head_dim dr numbers), stored together as rows [c_kv | k_pe] of
// [capacity, r + dr] float32 or bfloat16 (cache/cache_rows.h) — the keys of absorbed decode, whose values are the rows' first r
// numbers. Capacity is fixed at construction; appending past it throws, never wraps.
#pragma once
#include <cstddef>

#include "cache/cache_rows.h"
#include "cache/layer_cache.h"

namespace llm0 {

class LatentCache final : public LayerCache {
 public:
  /// Allocates capacity × (r + dr) numbers in storage.dtype (BF16 rows are widened into
  /// storage.k_read). Throws llm0::Error on non-positive sizes.
  LatentCache(int capacity, int kv_lora_rank, int qk_rope_head_dim, const CacheStorage& storage = {});

  int length() const override { return length_; }
  int capacity() const override { return capacity_; }
  /// length × (r + dr) × (4 or 2) bytes: what `llm0 kv` counts for MLA (kv_lora_rank + qk_rope_head_dim).
  size_t bytes_in_use() const override;
  size_t bytes_allocated() const override;
  void reset() override { length_ = 0; }
  int bytes_per_number() const override { return cache_dtype_bytes(rows_.dtype()); }

  int row() const { return r_ + dr_; }  ///< floats per token: r + dr
  /// Rows for positions [pos, pos + n) to be written by the caller ([n, r + dr], float32; a BF16
  /// cache rounds them at commit). Throws
  /// llm0::Error if pos != length() or pos + n > capacity().
  float* rows(int pos, int n);
  /// Marks positions [length, length + n) as stored.
  void commit(int n);
  /// All stored rows [length, r + dr] as float32 (BF16: widened into the read buffer, valid
  /// until the next read of any layer).
  const float* data() const { return rows_.all(length_); }
  /// The stored rows [0, length) as they are held (float32 or bf16, no widening): row pointers
  /// written into `ptrs` (must outlive the result).
  KvRowSet rows_view(KvRowPointers& ptrs) const { return rows_.row_pointers(length_, ptrs); }

 private:
  void check_append(int pos, int n) const;
  int capacity_, r_, dr_;
  int length_ = 0;
  AppendRows rows_;
};

}  // namespace llm0
