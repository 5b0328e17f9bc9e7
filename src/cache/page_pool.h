// One pool of fixed-size KV pages for many sequences (vLLM's block allocator: Kwon et al.,
// "Efficient Memory Management for Large Language Model Serving with PagedAttention", SOSP 2023,
// §4.2). A page holds page_size token positions of every paged layer's K and V rows, in the
// cache's element type (float32, or bfloat16 as cache/cache_rows.h rounds it); the row widths are
// per layer (PageRows: a full-attention layer's K and V rows are Hkv·D numbers each; a layer kept
// outside the pages — sliding window, linear attention — has width 0):
//   page [L, K|V, page_size, width of that layer's K or V]
// Pages carry a reference count (sequences that hold them) and the number of positions written.
// A page whose count drops to 0 is not freed here: the owner (the serving engine) either returns
// it with free_page() or keeps it in its prefix cache.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cache/cache_rows.h"

namespace llm0 {

/// Numbers per token of one layer's K row and V row in a page (0: the layer is not paged).
struct PageRows {
  int k = 0, v = 0;
};

class PagePool {
 public:
  /// num_pages pages of page_size positions × the layers' K and V rows (`layers[il]` numbers
  /// each). Throws llm0::Error on non-positive counts, negative widths, no layer, or a pool over
  /// 2^40 numbers. With every width 0 the pages hold no rows: the pool then only counts pages
  /// (the serving engine's budget unit).
  PagePool(int num_pages, int page_size, std::vector<PageRows> layers, ElementType dtype);
  /// Every one of num_layers layers with K and V rows of `width` numbers (Hkv·D).
  PagePool(int num_pages, int page_size, int num_layers, int width, ElementType dtype);

  int num_pages() const { return (int)refs_.size(); }
  int page_size() const { return page_size_; }
  int num_layers() const { return (int)layers_.size(); }
  /// Numbers per token of layer il's K / V row.
  int k_width(int il) const { return layers_.at((size_t)il).k; }
  int v_width(int il) const { return layers_.at((size_t)il).v; }
  ElementType dtype() const { return dtype_; }
  /// Bytes of one token position in all paged layers (K and V): what `llm0 kv` gives per token
  /// for those layers.
  size_t bytes_per_token() const;
  /// Bytes of one page (page_size × bytes_per_token()).
  size_t page_bytes() const { return (size_t)page_size_ * bytes_per_token(); }
  /// Pages on the free list.
  int free_pages() const { return (int)free_.size(); }

  /// Takes a free page: reference count 1, nothing written. Throws llm0::Error if none is free.
  int allocate();
  /// Reference count +1 / −1 (returns the new count). Throws llm0::Error on a free page or a
  /// count already 0.
  void retain(int page);
  int release(int page);
  /// Puts an unreferenced page back on the free list. Throws llm0::Error if it is referenced.
  void free_page(int page);
  /// Gives the memory of a page that will not be written (a page the engine takes only to count
  /// a sequence's fixed state against the budget) back to the OS: the whole memory pages inside
  /// it (madvise MADV_DONTNEED; a no-op where unsupported). Its rows read as zero afterwards.
  void discard_memory(int page);
  int refs(int page) const { return refs_.at((size_t)page); }
  /// Positions written in the page (0 .. page_size).
  int filled(int page) const { return filled_.at((size_t)page); }

  /// Stores rows [slot, slot + n) of layer `il` of `page`: K [n, k_width(il)] and V [n,
  /// v_width(il)] float32 (v may be null when v_width is 0; rounded when the pool is BF16);
  /// filled() becomes at least slot + n.
  void write(int page, int il, int slot, int n, const float* k, const float* v);
  /// The first K (kv = 0) or V (kv = 1) row of layer il in page: float32 or uint16_t (BF16 bits)
  /// as dtype() says; rows are k_width(il) / v_width(il) numbers apart.
  const void* rows(int page, int il, int kv) const;

 private:
  size_t offset(int page, int il, int kv) const;  // numbers before the row block
  int page_size_;
  std::vector<PageRows> layers_;
  std::vector<size_t> layer_off_;  // [L] numbers per token before layer il's K row
  size_t token_numbers_ = 0;       // Σ (k + v) over layers
  ElementType dtype_;
  // [pages, page_size × Σ(k + v)] (F32) or the same in BF16. Not zero-filled: the OS maps a
  // page of memory when a row is first written, so resident memory follows the tokens held.
  std::unique_ptr<float[]> f32_;
  std::unique_ptr<uint16_t[]> bf16_;
  std::vector<int> refs_, filled_, free_;
};

}  // namespace llm0
