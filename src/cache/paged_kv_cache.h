// KV cache of one attention layer of one sequence, held in pages of a shared PagePool (vLLM's
// PagedAttention, Kwon et al., SOSP 2023): the sequence's page table maps position j to page
// table[j / page_size], row j % page_size; the layers of a sequence share one table (a page holds
// every layer's rows). Attention reads the rows through the table (ops/attention_rows.h
// attention_paged_forward), never a gathered copy. A single sequence's contiguous cache is the
// one-page case (a pool of its own, one page of `capacity` rows). Bytes: length × Hkv × (D + Dv)
// × (4 or 2) — what `llm0 kv` gives per token and layer; shared pages count once per sequence here
// (the engine's bytes_in_use() counts them once in all).
#pragma once
#include <memory>
#include <vector>

#include "cache/layer_cache.h"
#include "cache/page_pool.h"
#include "ops/attention_rows.h"

namespace llm0 {

/// A sequence's pages in position order (fixed for its lifetime: the engine reserves them when
/// the sequence opens).
struct PageTable {
  std::vector<int> pages;
};

class PagedKvCache final : public LayerCache {
 public:
  static constexpr CacheKind kKind = CacheKind::Paged;
  CacheKind kind() const override { return kKind; }
  /// Layer `layer`'s view of `table` in `pool`, holding its first `length` positions (a prefix
  /// shared from the prefix cache). Throws llm0::Error if length exceeds the table's capacity.
  PagedKvCache(PagePool& pool, std::shared_ptr<const PageTable> table, int layer,
               int length = 0);
  /// A sequence's own cache of `capacity` positions — the contiguous case: one page of a pool
  /// of its own, holding one layer's rows of `rows.k` K and `rows.v` V numbers per token
  /// (rows.v = 0: K-only rows, MLA's latent [c | k_pe] or shared-KV attention's one row) in
  /// `dtype`. Throws llm0::Error for capacity < 1 or rows.k < 1.
  PagedKvCache(int capacity, PageRows rows, ElementType dtype);

  int length() const override { return length_; }
  /// Positions the table's pages hold: pages × page_size.
  int capacity() const override;
  size_t bytes_in_use() const override;
  size_t bytes_allocated() const override;
  void reset() override { length_ = 0; }
  int bytes_per_number() const override { return (int)element_bytes(pool_->dtype(), 1); }

  /// Stores K [n, k_width], V [n, v_width] float32 for positions [pos, pos + n) into the pool
  /// (rounded when BF16; v may be null when the layer has no V row: MLA's latent rows). Throws llm0::Error if pos != length(), the capacity would overflow, or a target page
  /// is shared with another sequence (shared pages are full and never written).
  void append(int pos, int n, const float* k, const float* v);
  /// The page table as attention_paged_forward reads it.
  KvPages view() const;

 private:
  explicit PagedKvCache(std::shared_ptr<PagePool> own);  // layer 0 of a one-page pool it keeps
  size_t row_numbers() const;  // K + V numbers per token
  std::shared_ptr<PagePool> own_pool_;  // the contiguous case's pool (else the engine's)
  PagePool* pool_;
  std::shared_ptr<const PageTable> table_;
  int layer_, length_;
  std::vector<const void*> k_, v_;  // [pages] first K / V row of each page for this layer
};

}  // namespace llm0
