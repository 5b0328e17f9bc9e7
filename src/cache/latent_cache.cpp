// MLA latent cache. See latent_cache.h.
#include "cache/latent_cache.h"

#include "core/check.h"

namespace llm0 {

LatentCache::LatentCache(int capacity, int kv_lora_rank, int qk_rope_head_dim,
                         const CacheStorage& storage)
    : capacity_(capacity), r_(kv_lora_rank), dr_(qk_rope_head_dim) {
  LLM0_CHECK(capacity > 0 && r_ > 0 && dr_ > 0,
             "LatentCache: capacity={} kv_lora_rank={} qk_rope_head_dim={} must be > 0", capacity,
             r_, dr_);
  rows_ = AppendRows(capacity, r_ + dr_, storage.dtype, storage.k_read);
}

size_t LatentCache::bytes_in_use() const { return rows_.bytes(length_); }

size_t LatentCache::bytes_allocated() const { return rows_.bytes(capacity_); }

void LatentCache::check_append(int pos, int n) const {
  check_cache_append("latent cache", pos, n, length_, capacity_);
}

float* LatentCache::rows(int pos, int n) {
  check_append(pos, n);
  return rows_.rows(pos, n);
}

void LatentCache::commit(int n) {
  check_append(length_, n);
  rows_.commit(length_, n);
  length_ += n;
}

}  // namespace llm0
