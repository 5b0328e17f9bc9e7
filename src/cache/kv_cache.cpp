// KV cache. See kv_cache.h.
#include "cache/kv_cache.h"

#include "core/check.h"

namespace llm0 {

KvCache::KvCache(int capacity, int num_key_value_heads, int head_dim, int v_head_dim)
    : capacity_(capacity), Hkv_(num_key_value_heads), D_(head_dim), Dv_(v_head_dim) {
  LLM0_CHECK(capacity > 0 && Hkv_ > 0 && D_ > 0 && Dv_ > 0,
             "KvCache: capacity={} num_key_value_heads={} head_dim={} v_head_dim={} must be > 0",
             capacity, Hkv_, D_, Dv_);
  k_ = Tensor(Shape{capacity, Hkv_, D_});
  v_ = Tensor(Shape{capacity, Hkv_, Dv_});
}

size_t KvCache::bytes_in_use() const {
  return (size_t)length_ * Hkv_ * (D_ + Dv_) * sizeof(float);
}

size_t KvCache::bytes_allocated() const {
  return (size_t)capacity_ * Hkv_ * (D_ + Dv_) * sizeof(float);
}

void KvCache::check_append(int pos, int n) const {
  check_cache_append("KV cache", pos, n, length_, capacity_);
}

float* KvCache::k_rows(int pos, int n) {
  check_append(pos, n);
  return k_.data() + (long)pos * Hkv_ * D_;
}

float* KvCache::v_rows(int pos, int n) {
  check_append(pos, n);
  return v_.data() + (long)pos * Hkv_ * Dv_;
}

void KvCache::commit(int n) {
  check_append(length_, n);
  length_ += n;
}

}  // namespace llm0
