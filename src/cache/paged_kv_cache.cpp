// Paged KV cache. See paged_kv_cache.h.
#include "cache/paged_kv_cache.h"

#include <algorithm>

#include "core/check.h"

namespace llm0 {

PagedKvCache::PagedKvCache(PagePool& pool, std::shared_ptr<const PageTable> table, int layer,
                           int length)
    : pool_(&pool), table_(std::move(table)), layer_(layer), length_(length) {
  LLM0_CHECK(layer >= 0 && layer < pool.num_layers(), "paged KV cache: layer {} of {}", layer,
             pool.num_layers());
  LLM0_CHECK(length >= 0 && length <= capacity(), "paged KV cache: {} positions held exceed the "
             "{} its pages hold", length, capacity());
  LLM0_CHECK(pool.k_width(layer) > 0, "paged KV cache: layer {} has no rows in the pages", layer);
  for (int p : table_->pages) {
    k_.push_back(pool.rows(p, layer, 0));
    v_.push_back(pool.rows(p, layer, 1));
  }
}

namespace {
std::shared_ptr<PagePool> one_page_pool(int capacity, PageRows rows, ElementType dtype) {
  LLM0_CHECK(capacity > 0 && rows.k > 0 && rows.v >= 0, "KV cache: capacity {} and row of {} "
             "K + {} V numbers must be positive", capacity, rows.k, rows.v);
  return std::make_shared<PagePool>(1, capacity, std::vector<PageRows>{rows}, dtype);
}
}  // namespace

PagedKvCache::PagedKvCache(int capacity, PageRows rows, ElementType dtype)
    : PagedKvCache(one_page_pool(capacity, rows, dtype)) {}

PagedKvCache::PagedKvCache(std::shared_ptr<PagePool> own)
    : PagedKvCache(*own, std::make_shared<const PageTable>(PageTable{{own->allocate()}}), 0) {
  own_pool_ = std::move(own);
}

size_t PagedKvCache::row_numbers() const {
  return (size_t)pool_->k_width(layer_) + (size_t)pool_->v_width(layer_);
}

int PagedKvCache::capacity() const { return (int)table_->pages.size() * pool_->page_size(); }

size_t PagedKvCache::bytes_in_use() const {
  return (size_t)length_ * row_numbers() * (size_t)bytes_per_number();
}

size_t PagedKvCache::bytes_allocated() const {
  return (size_t)capacity() * row_numbers() * (size_t)bytes_per_number();
}

void PagedKvCache::append(int pos, int n, const float* k, const float* v) {
  PagePool& pool = *pool_;
  check_cache_append("paged KV cache", pos, n, length_, capacity());
  const int P = pool.page_size();
  const long kw = pool.k_width(layer_), vw = pool.v_width(layer_);
  for (int done = 0; done < n;) {
    const int j = pos + done, page = table_->pages[(size_t)(j / P)], slot = j % P;
    const int rows = std::min(n - done, P - slot);
    LLM0_CHECK(pool.refs(page) == 1, "paged KV cache: page {} is shared by {} sequences and "
               "cannot be written", page, pool.refs(page));
    pool.write(page, layer_, slot, rows, k + done * kw, v + done * vw);
    done += rows;
  }
  length_ += n;
}

KvPages PagedKvCache::view() const {
  KvPages p;
  p.k = k_.data(), p.v = v_.data();
  p.page_size = pool_->page_size();
  p.bf16 = pool_->dtype() == ElementType::BF16;
  return p;
}

}  // namespace llm0
