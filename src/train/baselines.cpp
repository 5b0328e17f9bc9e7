// Unigram and bigram baselines. See baselines.h.
#include "train/baselines.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "core/check.h"

namespace llm0 {

namespace {
void check_ids(const std::vector<int32_t>& s, int vocab_size, const char* which) {
  for (size_t i = 0; i < s.size(); ++i)
    LLM0_CHECK(s[i] >= 0 && s[i] < vocab_size, "{} token {} is id {}, outside the vocabulary [0, {})",
               which, i, s[i], vocab_size);
}

// Add-one unigram probabilities of every id: (c(b) + 1) / (N + V).
std::vector<double> unigram_probs(const std::vector<int32_t>& train, int vocab_size) {
  std::vector<double> p((size_t)vocab_size, 1.0);
  for (int32_t t : train) p[(size_t)t] += 1;
  const double total = (double)train.size() + vocab_size;
  for (double& x : p) x /= total;
  return p;
}
}  // namespace

double unigram_cross_entropy(const std::vector<int32_t>& train, const std::vector<int32_t>& val,
                             int vocab_size) {
  LLM0_CHECK(!val.empty(), "the unigram baseline needs at least 1 validation token");
  check_ids(train, vocab_size, "training"), check_ids(val, vocab_size, "validation");
  const std::vector<double> p = unigram_probs(train, vocab_size);
  double h = 0;
  for (int32_t t : val) h -= std::log(p[(size_t)t]);
  return h / (double)val.size();
}

double bigram_cross_entropy(const std::vector<int32_t>& train, const std::vector<int32_t>& val,
                            int vocab_size) {
  LLM0_CHECK(val.size() >= 2, "the bigram baseline needs at least 2 validation tokens, got {}",
             val.size());
  check_ids(train, vocab_size, "training"), check_ids(val, vocab_size, "validation");
  const std::vector<double> uni = unigram_probs(train, vocab_size);
  // Only the pairs validation asks about are kept: key a * V + b for c(a, b); per context a,
  // c(a) and T(a) come from all of train.
  const auto key = [vocab_size](int32_t a, int32_t b) {
    return (uint64_t)a * (uint64_t)vocab_size + (uint64_t)b;
  };
  std::unordered_map<uint64_t, double> pair_count;
  for (size_t i = 1; i < val.size(); ++i) pair_count.emplace(key(val[i - 1], val[i]), 0.0);
  std::vector<double> context_count((size_t)vocab_size, 0.0), distinct((size_t)vocab_size, 0.0);
  std::unordered_set<uint64_t> seen;  // every distinct pair of train, for T(a)
  for (size_t i = 1; i < train.size(); ++i) {
    const int32_t a = train[i - 1], b = train[i];
    context_count[(size_t)a] += 1;
    if (seen.insert(key(a, b)).second) distinct[(size_t)a] += 1;
    if (auto it = pair_count.find(key(a, b)); it != pair_count.end()) it->second += 1;
  }
  double h = 0;
  for (size_t i = 1; i < val.size(); ++i) {
    const int32_t a = val[i - 1], b = val[i];
    const double ca = context_count[(size_t)a], ta = distinct[(size_t)a];
    const double p = ca == 0 ? uni[(size_t)b]  // a never preceded anything in train
                             : (pair_count[key(a, b)] + ta * uni[(size_t)b]) / (ca + ta);
    h -= std::log(p);
  }
  return h / (double)(val.size() - 1);
}

}  // namespace llm0
