// KV cache. See kv_cache.h.
#include "cache/kv_cache.h"

#include "core/check.h"

namespace llm0 {

KvCache::KvCache(int capacity, int num_key_value_heads, int head_dim, int v_head_dim,
                 const CacheStorage& storage)
    : capacity_(capacity), Hkv_(num_key_value_heads), D_(head_dim), Dv_(v_head_dim) {
  LLM0_CHECK(capacity > 0 && Hkv_ > 0 && D_ > 0 && Dv_ > 0,
             "KvCache: capacity={} num_key_value_heads={} head_dim={} v_head_dim={} must be > 0",
             capacity, Hkv_, D_, Dv_);
  k_ = AppendRows(capacity, (long)Hkv_ * D_, storage.dtype, storage.k_read);
  v_ = AppendRows(capacity, (long)Hkv_ * Dv_, storage.dtype, storage.v_read);
}

size_t KvCache::bytes_in_use() const {
  return k_.bytes(length_) + v_.bytes(length_);
}

size_t KvCache::bytes_allocated() const {
  return k_.bytes(capacity_) + v_.bytes(capacity_);
}

void KvCache::check_append(int pos, int n) const {
  check_cache_append("KV cache", pos, n, length_, capacity_);
}

float* KvCache::k_rows(int pos, int n) {
  check_append(pos, n);
  return k_.rows(pos, n);
}

float* KvCache::v_rows(int pos, int n) {
  check_append(pos, n);
  return v_.rows(pos, n);
}

void KvCache::commit(int n) {
  check_append(length_, n);
  k_.commit(length_, n);
  v_.commit(length_, n);
  length_ += n;
}

}  // namespace llm0
