// Prefix cache over a PagePool (vLLM's automatic prefix caching; SGLang's RadixAttention,
// Zheng et al., arXiv:2312.07104, at page granularity): a FULL page is keyed by the chain hash of
// the whole token prefix up to its end, h_k = mix(h_{k-1}, tokens of page k), so equal keys mean
// equal prefixes; a hit is verified (the page's own tokens and its parent page) before it is
// shared. Registered pages stay here while sequences reference them and, once unreferenced,
// wait on an LRU list until a reservation needs their room (evict_one). Pages of running
// sequences (reference count > 0) are never evicted.
#pragma once
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "cache/page_pool.h"

namespace llm0 {

class PrefixCache {
 public:
  explicit PrefixCache(PagePool& pool) : pool_(&pool) {}

  /// h_k from h_{k-1} (0 for the first page) and the page's page_size tokens.
  static uint64_t chain_hash(uint64_t parent, const int* tokens, int n);

  /// The cached pages holding tokens [0, k · page_size) for the largest k <= max_pages, in
  /// order (verified: tokens and parent chain). Changes nothing.
  std::vector<int> match(const int* tokens, int max_pages) const;
  /// Registers full page `page` (referenced) holding `tokens` [page_size] after `parent` (the
  /// cached page of the previous page_size tokens, -1 for the first page). Returns the page now
  /// cached for this prefix: `page`, or the one cached before it (then `page` stays private), or
  /// -1 when `parent` is no longer cached (evicted: `page` stays private, the chain ends).
  int insert(int page, int parent, uint64_t hash, const int* tokens);
  /// Whether `page` is registered here.
  bool holds(int page) const { return entries_.count(page) != 0; }

  /// Called when a registered page's reference count drops to 0: it joins the LRU list (most
  /// recently used at the back).
  void unreferenced(int page);
  /// Called before a cached unreferenced page is referenced again: it leaves the LRU list.
  void referenced(int page);
  /// Unreferenced cached pages (free for eviction).
  int evictable() const { return (int)lru_.size(); }
  /// Evicts the least recently used unreferenced page (and the pages cached after it: their
  /// prefix is gone) to the pool's free list. Throws llm0::Error if none is evictable.
  void evict_one();

 private:
  struct Entry {
    uint64_t hash;
    int parent;
    std::vector<int> tokens;
    std::vector<int> children;
    bool in_lru = false;
    std::list<int>::iterator lru;
  };
  void drop(int page);  // unregisters page and its descendants; frees the unreferenced ones

  PagePool* pool_;
  std::unordered_map<uint64_t, int> by_hash_;  // chain hash -> page
  std::unordered_map<int, Entry> entries_;     // page -> entry
  std::list<int> lru_;                         // unreferenced cached pages, oldest first
};

}  // namespace llm0
