// KV page pool. See page_pool.h.
#include "cache/page_pool.h"

#include <cstring>
#include <new>

#include "core/check.h"
#include "core/half.h"

namespace llm0 {

PagePool::PagePool(int num_pages, int page_size, int num_layers, int width, CacheDtype dtype)
    : page_size_(page_size), layers_(num_layers), width_(width), dtype_(dtype) {
  LLM0_CHECK(num_pages > 0 && page_size > 0 && num_layers > 0 && width > 0,
             "KV page pool: pages={} page_size={} layers={} width={} must be > 0", num_pages,
             page_size, num_layers, width);
  const double numbers = (double)num_pages * page_size * num_layers * 2.0 * width;
  LLM0_CHECK(numbers <= (double)(1L << 40), "KV page pool of {} pages × {} tokens is too large",
             num_pages, page_size);
  try {
    if (dtype == CacheDtype::F32) f32_.reset(new float[(size_t)numbers]);
    else bf16_.reset(new uint16_t[(size_t)numbers]);
  } catch (const std::bad_alloc&) {
    LLM0_FAIL("KV page pool: cannot allocate {} pages of {} tokens ({} MiB)", num_pages,
              page_size, numbers * cache_dtype_bytes(dtype) / (1 << 20));
  }
  refs_.assign((size_t)num_pages, 0), filled_.assign((size_t)num_pages, 0);
  for (int p = num_pages - 1; p >= 0; --p) free_.push_back(p);  // page 0 is taken first
}

size_t PagePool::bytes_per_token() const {
  return (size_t)layers_ * 2 * (size_t)width_ * (size_t)cache_dtype_bytes(dtype_);
}

int PagePool::allocate() {
  LLM0_CHECK(!free_.empty(), "KV page pool: no free page (all {} in use)", num_pages());
  const int p = free_.back();
  free_.pop_back();
  refs_[(size_t)p] = 1, filled_[(size_t)p] = 0;
  return p;
}

void PagePool::retain(int page) {
  LLM0_CHECK(page >= 0 && page < num_pages(), "KV page {} does not exist", page);
  ++refs_[(size_t)page];
}

int PagePool::release(int page) {
  LLM0_CHECK(page >= 0 && page < num_pages() && refs_[(size_t)page] > 0,
             "KV page {} released but not referenced", page);
  return --refs_[(size_t)page];
}

void PagePool::free_page(int page) {
  LLM0_CHECK(page >= 0 && page < num_pages() && refs_[(size_t)page] == 0,
             "KV page {} freed while referenced", page);
  filled_[(size_t)page] = 0;
  free_.push_back(page);
}

size_t PagePool::offset(int page, int il, int kv) const {
  return (((size_t)page * layers_ + il) * 2 + kv) * page_size_ * width_;
}

void PagePool::write(int page, int il, int slot, int n, const float* k, const float* v) {
  LLM0_CHECK(slot >= 0 && n >= 0 && slot + n <= page_size_ && il >= 0 && il < layers_,
             "KV page write of rows [{}, {}) in a page of {} (layer {})", slot, slot + n,
             page_size_, il);
  const size_t count = (size_t)n * width_;
  for (int kv = 0; kv < 2; ++kv) {
    const size_t at = offset(page, il, kv) + (size_t)slot * width_;
    const float* src = kv ? v : k;
    if (dtype_ == CacheDtype::F32) std::memcpy(f32_.get() + at, src, count * sizeof(float));
    else
      for (size_t i = 0; i < count; ++i) bf16_[at + i] = float_to_bf16(src[i]);
  }
  int& f = filled_[(size_t)page];
  if (slot + n > f) f = slot + n;
}

const void* PagePool::rows(int page, int il, int kv) const {
  const size_t at = offset(page, il, kv);
  if (dtype_ == CacheDtype::F32) return f32_.get() + at;
  return bf16_.get() + at;
}

}  // namespace llm0
