// KV page pool. See page_pool.h.
#include "cache/page_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "core/check.h"
#include "core/half.h"

namespace llm0 {

PagePool::PagePool(int num_pages, int page_size, int num_layers, int width, ElementType dtype)
    : PagePool(num_pages, page_size,
               std::vector<PageRows>((size_t)std::max(num_layers, 0), PageRows{width, width}),
               dtype) {
  LLM0_CHECK(width > 0, "KV page pool: width={} must be > 0", width);
}

PagePool::PagePool(int num_pages, int page_size, std::vector<PageRows> layers, ElementType dtype)
    : page_size_(page_size), layers_(std::move(layers)), dtype_(dtype) {
  LLM0_CHECK(num_pages > 0 && page_size > 0 && !layers_.empty(),
             "KV page pool: pages={} page_size={} layers={} must be > 0", num_pages, page_size,
             layers_.size());
  check_cache_stores(dtype);
  for (const PageRows& l : layers_) {
    LLM0_CHECK(l.k >= 0 && l.v >= 0, "KV page pool: row widths {} and {} must be >= 0", l.k, l.v);
    layer_off_.push_back(token_numbers_);
    token_numbers_ += (size_t)l.k + (size_t)l.v;
  }
  const double numbers = (double)num_pages * page_size * (double)token_numbers_;
  LLM0_CHECK(numbers <= (double)(1L << 40), "KV page pool of {} pages × {} tokens is too large",
             num_pages, page_size);
  try {
    if (numbers == 0) {
    } else if (dtype == ElementType::F32) {
      f32_.reset(new float[(size_t)numbers]);
    } else {
      bf16_.reset(new uint16_t[(size_t)numbers]);
    }
  } catch (const std::bad_alloc&) {
    LLM0_FAIL("KV page pool: cannot allocate {} pages of {} tokens ({} MiB)", num_pages,
              page_size, numbers * (double)element_bytes(dtype, 1) / (1 << 20));
  }
  refs_.assign((size_t)num_pages, 0), filled_.assign((size_t)num_pages, 0);
  for (int p = num_pages - 1; p >= 0; --p) free_.push_back(p);  // page 0 is taken first
}

size_t PagePool::bytes_per_token() const {
  return (size_t)element_bytes(dtype_, token_numbers_);
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

void PagePool::discard_memory(int page) {
  LLM0_CHECK(page >= 0 && page < num_pages(), "KV page {} does not exist", page);
#ifdef MADV_DONTNEED
  const size_t bytes = page_bytes();
  if (bytes == 0) return;
  const uintptr_t os = (uintptr_t)sysconf(_SC_PAGESIZE);
  const uintptr_t base = (uintptr_t)rows(page, 0, 0);
  const uintptr_t begin = (base + os - 1) / os * os, end = (base + bytes) / os * os;
  if (end > begin) madvise((void*)begin, end - begin, MADV_DONTNEED);
#endif
}

size_t PagePool::offset(int page, int il, int kv) const {
  const PageRows& l = layers_[(size_t)il];
  return ((size_t)page * token_numbers_ + layer_off_[(size_t)il] + (kv ? (size_t)l.k : 0)) *
         (size_t)page_size_;
}

void PagePool::write(int page, int il, int slot, int n, const float* k, const float* v) {
  LLM0_CHECK(slot >= 0 && n >= 0 && slot + n <= page_size_ && il >= 0 && il < num_layers(),
             "KV page write of rows [{}, {}) in a page of {} (layer {})", slot, slot + n,
             page_size_, il);
  for (int kv = 0; kv < 2; ++kv) {
    const size_t width = (size_t)(kv ? v_width(il) : k_width(il)), count = (size_t)n * width;
    if (count == 0) continue;
    const size_t at = offset(page, il, kv) + (size_t)slot * width;
    const float* src = kv ? v : k;
    if (dtype_ == ElementType::F32) std::memcpy(f32_.get() + at, src, count * sizeof(float));
    else
      for (size_t i = 0; i < count; ++i) bf16_[at + i] = float_to_bf16(src[i]);
  }
  int& f = filled_[(size_t)page];
  if (slot + n > f) f = slot + n;
}

const void* PagePool::rows(int page, int il, int kv) const {
  if (token_numbers_ == 0) return nullptr;  // a counting-only pool holds no rows
  const size_t at = offset(page, il, kv);
  if (dtype_ == ElementType::F32) return f32_.get() + at;
  return bf16_.get() + at;
}

}  // namespace llm0
