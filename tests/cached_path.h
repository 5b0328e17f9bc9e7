// The cached path against the full forward (TESTING.md family 1), shared by test_kinds_cached
// (every row of the kind table) and test_model_cache (edge cases beyond the table): logits of
// both paths, their comparison naming the first worst position, and greedy decoding both ways.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/infer_context.h"
#include "model/model.h"

namespace llm0::testing_fixtures {

/// Logits [T, V] of one full (training) forward over `tokens` [T].
inline std::vector<float> full_logits(Model& m, const std::vector<int>& tokens) {
  const int T = (int)tokens.size(), V = m.config().vocab_size;
  std::vector<int> no_targets((size_t)T, -1);
  m.forward(tokens.data(), no_targets.data(), 1, T);
  return std::vector<float>(m.logits(), m.logits() + (size_t)T * V);
}

/// Logits [T, V] of `tokens` fed to Model::forward_cached in chunks of the given sizes (the last
/// size repeats) through one fresh cache, in a fresh InferContext with MLA's decode form `form`
/// and the fixed-order kernels (`fixed_order`) or BLAS.
inline std::vector<float> cached_logits(Model& m, const std::vector<int>& tokens,
                                        const std::vector<int>& chunks,
                                        MlaDecode form = MlaDecode::Absorbed,
                                        bool fixed_order = true) {
  const int T = (int)tokens.size(), V = m.config().vocab_size;
  ModelCache cache = m.new_cache();
  InferContext ctx(m);
  ctx.set_mla_decode(form);
  ctx.set_fixed_order(fixed_order);
  std::vector<float> out((size_t)T * V);
  int pos = 0;
  for (size_t i = 0; pos < T; ++i) {
    const int n = std::min(chunks[std::min(i, chunks.size() - 1)], T - pos);
    m.forward_cached(tokens.data() + pos, n, cache, ctx, out.data() + (size_t)pos * V);
    pos += n;
  }
  EXPECT_EQ(cache.length(), T);
  return out;
}

/// Expects max |got − want| <= bound over logits [T, V] (a NaN fails); the message names the
/// position and vocabulary index of the worst one.
inline void expect_close_logits(const std::vector<float>& got, const std::vector<float>& want,
                                int V, double bound, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs((double)got[i] - want[i]);
    if (std::isnan(d)) {
      worst = INFINITY, at = i;
      break;
    }
    if (d > worst) worst = d, at = i;
  }
  EXPECT_LE(worst, bound) << what << ": worst at position " << at / (size_t)V << ", vocab "
                          << at % (size_t)V << ": " << got[at] << " vs " << want[at];
}

/// Greedy decoding of `steps` tokens after `prompt`, through the cache and by recomputing the
/// whole sequence each step: the same tokens.
inline void expect_same_greedy_tokens(Model& m, const std::vector<int>& prompt, int steps,
                                      const std::string& what) {
  const int V = m.config().vocab_size;
  auto argmax = [V](const float* z) { return (int)(std::max_element(z, z + V) - z); };
  std::vector<int> seq_cache = prompt, seq_full = prompt;
  ModelCache cache = m.new_cache();
  InferContext ctx(m);
  std::vector<float> z((size_t)V);
  m.forward_cached(seq_cache.data(), (int)seq_cache.size(), cache, ctx, z.data(), /*last_only=*/true);
  for (int step = 0; step < steps; ++step) {
    seq_cache.push_back(argmax(z.data()));
    m.forward_cached(&seq_cache.back(), 1, cache, ctx, z.data(), true);
    const std::vector<float> f = full_logits(m, seq_full);
    seq_full.push_back(argmax(f.data() + (seq_full.size() - 1) * (size_t)V));
  }
  EXPECT_EQ(seq_cache, seq_full) << what << ": greedy tokens differ with and without the cache";
}

}  // namespace llm0::testing_fixtures
