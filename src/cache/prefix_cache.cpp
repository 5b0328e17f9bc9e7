// Prefix cache. See prefix_cache.h.
#include "cache/prefix_cache.h"

#include <algorithm>

#include "core/check.h"

namespace llm0 {

uint64_t PrefixCache::chain_hash(uint64_t parent, const int* tokens, int n) {
  // splitmix64 finaliser over (parent, token) pairs: every token and the whole prefix (through
  // the parent's hash) move every bit.
  uint64_t h = parent ^ 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < n; ++i) {
    h += (uint64_t)(uint32_t)tokens[i] + 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
  }
  return h;
}

std::vector<int> PrefixCache::match(const int* tokens, int max_pages) const {
  const int P = pool_->page_size();
  std::vector<int> pages;
  uint64_t h = 0;
  int parent = -1;
  for (int k = 0; k < max_pages; ++k) {
    const int* t = tokens + (long)k * P;
    h = chain_hash(h, t, P);
    const auto it = by_hash_.find(h);
    if (it == by_hash_.end()) break;
    const Entry& e = entries_.at(it->second);
    if (e.parent != parent || !std::equal(e.tokens.begin(), e.tokens.end(), t)) break;
    pages.push_back(it->second);
    parent = it->second;
  }
  return pages;
}

int PrefixCache::insert(int page, int parent, uint64_t hash, const int* tokens) {
  LLM0_CHECK(pool_->refs(page) > 0 && pool_->filled(page) == pool_->page_size(),
             "prefix cache: page {} must be referenced and full", page);
  const auto it = by_hash_.find(hash);
  if (it != by_hash_.end()) return it->second;
  if (parent >= 0 && !entries_.count(parent)) return -1;  // the prefix before it was evicted
  Entry e{hash, parent, std::vector<int>(tokens, tokens + pool_->page_size()), {}, false, {}};
  entries_.emplace(page, std::move(e));
  by_hash_.emplace(hash, page);
  if (parent >= 0) entries_.at(parent).children.push_back(page);
  return page;
}

void PrefixCache::unreferenced(int page) {
  Entry& e = entries_.at(page);
  LLM0_CHECK(!e.in_lru && pool_->refs(page) == 0, "prefix cache: page {} is still referenced", page);
  e.lru = lru_.insert(lru_.end(), page), e.in_lru = true;
}

void PrefixCache::referenced(int page) {
  Entry& e = entries_.at(page);
  if (e.in_lru) lru_.erase(e.lru), e.in_lru = false;
}

void PrefixCache::evict_one() {
  LLM0_CHECK(!lru_.empty(), "prefix cache: no unreferenced page to evict");
  drop(lru_.front());
}

void PrefixCache::drop(int page) {
  Entry e = std::move(entries_.at(page));
  entries_.erase(page);
  by_hash_.erase(e.hash);
  if (e.parent >= 0 && entries_.count(e.parent)) {
    std::vector<int>& c = entries_.at(e.parent).children;
    c.erase(std::remove(c.begin(), c.end(), page), c.end());
  }
  if (e.in_lru) {
    lru_.erase(e.lru);
    pool_->free_page(page);
  }
  for (int child : e.children) drop(child);
}

}  // namespace llm0
