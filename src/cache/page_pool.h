// One pool of fixed-size KV pages for many sequences (vLLM's block allocator: Kwon et al.,
// "Efficient Memory Management for Large Language Model Serving with PagedAttention", SOSP 2023,
// §4.2). A page holds page_size token positions of every layer's K and V rows, in the cache's
// element type (float32, or bfloat16 as cache/cache_rows.h rounds it):
//   page [L, 2, page_size, width]  (layer, K|V, position in the page, Hkv·D numbers)
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

class PagePool {
 public:
  /// num_pages pages of page_size positions × num_layers × (K and V rows of `width` numbers).
  /// Throws llm0::Error on non-positive sizes or a pool over 2^40 numbers.
  PagePool(int num_pages, int page_size, int num_layers, int width, CacheDtype dtype);

  int num_pages() const { return (int)refs_.size(); }
  int page_size() const { return page_size_; }
  int num_layers() const { return layers_; }
  int width() const { return width_; }
  CacheDtype dtype() const { return dtype_; }
  /// Bytes of one token position in all layers (K and V): what `llm0 kv` gives per token.
  size_t bytes_per_token() const;
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
  int refs(int page) const { return refs_.at((size_t)page); }
  /// Positions written in the page (0 .. page_size).
  int filled(int page) const { return filled_.at((size_t)page); }

  /// Stores rows [slot, slot + n) of layer `il` of `page`: K and V [n, width] float32 (rounded
  /// when the pool is BF16); filled() becomes at least slot + n.
  void write(int page, int il, int slot, int n, const float* k, const float* v);
  /// The first K (kv = 0) or V (kv = 1) row of layer il in page: float32 or uint16_t (BF16 bits)
  /// as dtype() says; rows are `width` numbers apart.
  const void* rows(int page, int il, int kv) const;

 private:
  size_t offset(int page, int il, int kv) const;  // numbers before the row block
  int page_size_, layers_, width_;
  CacheDtype dtype_;
  // [pages, L, 2, page_size, width] (F32) or the same in BF16. Not zero-filled: the OS maps a
  // page of memory when a row is first written, so resident memory follows the tokens held.
  std::unique_ptr<float[]> f32_;
  std::unique_ptr<uint16_t[]> bf16_;
  std::vector<int> refs_, filled_, free_;
};

}  // namespace llm0
