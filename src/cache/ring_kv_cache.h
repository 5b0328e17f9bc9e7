// KV cache of a sliding-window attention layer (Mistral, arXiv:2310.06825 §2; HF
// `sliding_attention` layers): a ring buffer of W positions, K [W, Hkv, D] and V [W, Hkv, Dv] in
// float32 or bfloat16 (cache/cache_rows.h), position p in slot p mod W. A query at position i sees keys i-W < j <= i, so W
// positions are all any later query can need: bytes held never exceed W positions however long
// the sequence. The position limit (max_position_embeddings or a smaller user limit) still
// applies: positions past it were never trained, so appending past it throws.
#pragma once
#include <cstddef>

#include "cache/cache_rows.h"
#include "cache/layer_cache.h"

namespace llm0 {

class RingKvCache final : public LayerCache {
 public:
  static constexpr CacheKind kKind = CacheKind::Ring;
  CacheKind kind() const override { return kKind; }
  /// Allocates min(window, capacity) slots × Hkv × (D + Dv) numbers in storage.dtype. Throws
  /// llm0::Error on non-positive sizes.
  RingKvCache(int window, int capacity, int num_key_value_heads, int head_dim, int v_head_dim,
              const CacheStorage& storage = {});

  /// Positions seen (the next token goes to this position).
  int length() const override { return length_; }
  /// The position limit.
  int capacity() const override { return capacity_; }
  /// min(length, W) × Hkv × (D + Dv) × (4 or 2) bytes: what `llm0 kv` counts for a sliding layer.
  size_t bytes_in_use() const override;
  /// min(W, capacity) × Hkv × (D + Dv) × (4 or 2) bytes.
  size_t bytes_allocated() const override;
  void reset() override { length_ = 0; }
  int bytes_per_number() const override { return (int)element_bytes(k_.dtype(), 1); }

  int window() const { return W_; }
  /// Positions held: min(length, W).
  int held() const;
  /// Copies the last n held positions, oldest first, into k_out [n, Hkv, D] / v_out [n, Hkv, Dv].
  /// Throws llm0::Error if n > held().
  void gather(int n, float* k_out, float* v_out) const;
  /// Stores positions [pos, pos + Tn) from k_new [Tn, Hkv, D] / v_new [Tn, Hkv, Dv] (only the last
  /// min(Tn, W) are kept). A BF16 cache also rounds k_new / v_new in place, so the caller attends
  /// to the values later calls will read. Throws llm0::Error if pos != length() or
  /// pos + Tn > capacity(), naming the position limit.
  void append(int pos, int Tn, float* k_new, float* v_new);

 private:
  // Copies n rows between position-ordered rows and the ring, starting at ring slot `slot`.
  void copy_rows(int slot, int n, const float* k_src, const float* v_src);
  int W_, capacity_, Hkv_, D_, Dv_, slots_;
  int length_ = 0;
  CacheRows k_, v_;
};

}  // namespace llm0
