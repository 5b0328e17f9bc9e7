// Ring-buffer KV cache of a sliding-window layer. See ring_kv_cache.h.
#include "cache/ring_kv_cache.h"

#include <algorithm>
#include <cstring>

#include "core/check.h"
#include "core/half.h"

namespace llm0 {

namespace {
void round_to_bf16(float* x, long n) {
  for (long i = 0; i < n; ++i) x[i] = bf16_to_float(float_to_bf16(x[i]));
}
}  // namespace

RingKvCache::RingKvCache(int window, int capacity, int num_key_value_heads, int head_dim,
                         int v_head_dim, const CacheStorage& storage)
    : W_(window), capacity_(capacity), Hkv_(num_key_value_heads), D_(head_dim), Dv_(v_head_dim) {
  LLM0_CHECK(window > 0 && capacity > 0 && Hkv_ > 0 && D_ > 0 && Dv_ > 0,
             "RingKvCache: sliding_window={} capacity={} num_key_value_heads={} head_dim={} "
             "v_head_dim={} must be > 0", window, capacity, Hkv_, D_, Dv_);
  slots_ = std::min(W_, capacity_);
  k_ = CacheRows(slots_, (long)Hkv_ * D_, storage.dtype);
  v_ = CacheRows(slots_, (long)Hkv_ * Dv_, storage.dtype);
}

int RingKvCache::held() const { return std::min(length_, slots_); }

size_t RingKvCache::bytes_in_use() const {
  return k_.bytes(held()) + v_.bytes(held());
}

size_t RingKvCache::bytes_allocated() const {
  return k_.bytes(slots_) + v_.bytes(slots_);
}

void RingKvCache::gather(int n, float* k_out, float* v_out) const {
  LLM0_CHECK(n >= 0 && n <= held(), "sliding-window cache: {} positions asked, {} held", n,
             held());
  const long kr = (long)Hkv_ * D_, vr = (long)Hkv_ * Dv_;  // floats per row
  int slot = (length_ - n) % slots_;
  for (int done = 0; done < n;) {  // at most two contiguous pieces: up to the end, then from 0
    const int m = std::min(n - done, slots_ - slot);
    k_.read(slot, m, k_out + done * kr);
    v_.read(slot, m, v_out + done * vr);
    done += m, slot = 0;
  }
}

void RingKvCache::copy_rows(int slot, int n, const float* k_src, const float* v_src) {
  const long kr = (long)Hkv_ * D_, vr = (long)Hkv_ * Dv_;
  for (int done = 0; done < n;) {
    const int m = std::min(n - done, slots_ - slot);
    k_.write(slot, m, k_src + done * kr);
    v_.write(slot, m, v_src + done * vr);
    done += m, slot = 0;
  }
}

void RingKvCache::append(int pos, int Tn, float* k_new, float* v_new) {
  LLM0_CHECK(pos == length_, "sliding-window cache: writing at position {} but {} positions were "
             "seen", pos, length_);
  LLM0_CHECK(Tn >= 0 && (long)pos + Tn <= capacity_,
             "context full: position {} is past the model's position limit of {} tokens "
             "(max_position_embeddings or --max-context). The sliding-window layers hold only the "
             "last {} tokens, but positions beyond max_position_embeddings were never trained",
             (long)pos + Tn - 1, capacity_, W_);
  const int keep = std::min(Tn, slots_), first = pos + Tn - keep;  // positions [first, pos + Tn)
  const long skip = (long)(Tn - keep);
  copy_rows(first % slots_, keep, k_new + skip * Hkv_ * D_, v_new + skip * Hkv_ * Dv_);
  if (k_.dtype() == ElementType::BF16) {  // the new rows as stored: rounded to BF16
    round_to_bf16(k_new, (long)Tn * Hkv_ * D_);
    round_to_bf16(v_new, (long)Tn * Hkv_ * Dv_);
  }
  length_ += Tn;
}

}  // namespace llm0
