// Memo: answers of deterministic computations kept by key, shared by the explorer's HTTP threads
// (explore_api.h keeps the kv-cache lesson's growth tables in one). Lookups and inserts hold the
// memo's own lock; the computation runs outside it, so a slow computation never blocks a lookup
// (two threads asking for the same new key at once may both compute it: the values are equal).
#pragma once
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace llm0::explore {

template <class T>
class Memo {
 public:
  /// At most `capacity` (>= 1) entries; inserting one more drops the oldest.
  explicit Memo(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  /// The value stored for `key`, else compute() (which may throw: nothing is stored then),
  /// stored and returned.
  template <class F>
  T get_or_compute(const std::string& key, F&& compute) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = values_.find(key); it != values_.end()) return ++hits_, it->second;
    }
    T value = compute();
    std::lock_guard<std::mutex> lock(mu_);
    if (values_.emplace(key, value).second) {
      order_.push_back(key);
      if (order_.size() > capacity_) values_.erase(order_.front()), order_.pop_front();
    }
    return value;
  }

  /// Lookups answered from the memo so far.
  size_t hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }

  /// Entries stored now.
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return values_.size();
  }

 private:
  size_t capacity_;
  mutable std::mutex mu_;
  std::map<std::string, T> values_;
  std::deque<std::string> order_;  // insertion order, oldest first
  size_t hits_ = 0;
};

}  // namespace llm0::explore
