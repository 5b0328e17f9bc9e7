// log_softmax of one row of logits and its top-n (logprobs.h).
#include "infer/logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace llm0 {

TokenLogprob token_logprob(const float* logits, int V, int token, int top_n) {
  const auto value = [&](int i) {
    const double l = logits[i];
    return std::isfinite(l) ? l : -std::numeric_limits<double>::infinity();
  };
  double mx = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < V; ++i) mx = std::max(mx, value(i));
  double sum = 0;
  for (int i = 0; i < V; ++i) sum += std::exp(value(i) - mx);
  const double lse = mx + std::log(sum);
  TokenLogprob out;
  out.token = token;
  out.logprob = value(token) - lse;
  const int n = std::min(std::max(top_n, 0), V);
  if (n > 0) {
    std::vector<int> ids((size_t)V);
    std::iota(ids.begin(), ids.end(), 0);
    std::partial_sort(ids.begin(), ids.begin() + n, ids.end(), [&](int a, int b) {
      return value(a) > value(b) || (value(a) == value(b) && a < b);
    });
    for (int k = 0; k < n; ++k) out.top.emplace_back(ids[(size_t)k], value(ids[(size_t)k]) - lse);
  }
  return out;
}

}  // namespace llm0
