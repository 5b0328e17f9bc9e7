// Cached = full for every row of the kind table (TESTING.md family 1): Model::forward_cached fed
// the sequence in chunks (prefill 5 + chunk 3 + single tokens; chunks of 1, 3, T and > T; the
// splits 2, 1, 2, 4, 9 around the causal-conv window K − 1 and the delta-rule chunk L), in both
// MLA decode forms, gives the full forward's logits at every position; greedy decoding with and
// without the cache picks the same tokens; the serving forward (BatchEngine, a prefill then single
// tokens) gives the full forward's logits too. T = 23: not a multiple of any chunk, past every
// sliding window several times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cached_path.h"
#include "kinds/kind_table.h"
#include "serve/batch_engine.h"

using namespace llm0;
using namespace llm0::kinds;
using namespace llm0::testing_fixtures;

namespace {

constexpr int kT = 23;

// The tolerance on |cached − full| per logit: DESIGN.md's 1e-4 ("incremental equals full forward
// within 1e-4"), and why it fits these rows. Both sides compute the same real numbers in float32
// and differ in the order of their sums (sgemm blocks over all T rows vs the chunk's rows and the
// cache's rows) and, for Gated DeltaNet, in the algorithm (chunked vs recurrent delta rule). A
// rounded sum of n terms is off by about √n·u of its magnitude (u = 2⁻²⁴; rounding errors of
// either sign add as a random walk: Higham, "Accuracy and Stability of Numerical Algorithms",
// 2nd ed., §2.8 and §3.1), and a logit is the end of a chain of at most 6 such sums per layer
// (norm, q/k/v, scores, weights·V, o_proj, MLP/experts) plus 2 (final norm, lm_head), each at
// most n = max(C, F, H·D, T) long: an expected |Δz| of (6L + 2)·√n·u·max|z|, 2e-5 to 6e-5 on
// these rows (L = 2 to 4, n = 44 to 96, max|z| 2 to 6). 1e-4 leaves the headroom that this estimate
// lacks where a norm divides by a small, cancelling vector (Gated DeltaNet's gated RMSNorm after
// o = Sᵀq: why its rows take weights of sd 0.15), while a wrong row, position, sign or head moves
// logits by 1e-2 and more. rounding_estimate() checks the premise on each row: a row whose depth or
// logit scale pushes the estimate past 1e-4 makes the test fail, not pass loosely.
constexpr double kTolerance = 1e-4;

double rounding_estimate(const ModelConfig& c, int T, const std::vector<float>& z) {
  const double n = std::max({c.hidden_size, c.intermediate_size,
                             c.num_attention_heads * c.head_dim, T});
  double zmax = 0;
  for (float v : z) zmax = std::max(zmax, (double)std::fabs(v));
  return (6.0 * c.num_hidden_layers + 2) * std::sqrt(n) * 0x1p-24 * zmax;
}

class KindCached : public ::testing::TestWithParam<KindRow> {};

}  // namespace

TEST_P(KindCached, EveryChunkingEqualsTheFullForward) {
  const KindRow& r = GetParam();
  Model m(r.config);
  prepare(m, r, 7);
  const std::vector<int> tokens = random_tokens(kT, r.config.vocab_size, 11);
  const std::vector<float> full = full_logits(m, tokens);
  EXPECT_LE(rounding_estimate(r.config, kT, full), kTolerance) << "the tolerance's premise";
  const std::vector<std::vector<int>> chunkings = {{5, 3, 1}, {1}, {3}, {kT}, {kT + 7},
                                                   {2, 1, 2, 4, 9}};
  for (bool fixed : {true, false})  // the context's kernel order: fixed (default) or BLAS
    for (MlaDecode form : {MlaDecode::Absorbed, MlaDecode::Expanded}) {
      for (const std::vector<int>& ch : chunkings) {
        std::string what = std::string(fixed ? "fixed order, " : "BLAS, ") +
                           (form == MlaDecode::Absorbed ? "absorbed" : "expanded") + " chunks";
        for (int n : ch) what += " " + std::to_string(n);
        expect_close_logits(cached_logits(m, tokens, ch, form, fixed), full, r.config.vocab_size,
                            kTolerance, what);
      }
    }
}

// Greedy decoding of 20 tokens after a prompt of 5: through the cache vs recomputing the whole
// sequence each step.
TEST_P(KindCached, GreedyTokensEqualWithAndWithoutTheCache) {
  const KindRow& r = GetParam();
  Model m(r.config);
  prepare(m, r, 7);
  expect_same_greedy_tokens(m, random_tokens(5, r.config.vocab_size, 11), 20, r.name);
}

// The serving forward (Model::forward_cached through a BatchEngine's pages, rings and states):
// a prefill of 7, then one token per step; each step's logits (its last token's) against the full
// forward's row, within the same tolerance.
TEST_P(KindCached, ServingForwardEqualsTheFullForward) {
  const KindRow& r = GetParam();
  const int V = r.config.vocab_size;
  Model m(r.config);
  prepare(m, r, 7);
  const std::vector<int> tokens = random_tokens(kT, V, 11);
  const std::vector<float> full = full_logits(m, tokens);
  BatchEngineOptions o;
  o.page_size = 4, o.num_pages = 64;
  BatchEngine e(m, o);
  const SeqId id = *e.open(tokens, kT);
  std::vector<float> served, want;
  for (int pos = 0, n = 7; pos < kT; pos += n, n = 1) {
    std::vector<float> z((size_t)V);
    e.step({{id, tokens.data() + pos, n}}, z.data());
    served.insert(served.end(), z.begin(), z.end());
    const auto row = full.begin() + (long)(pos + n - 1) * V;
    want.insert(want.end(), row, row + V);
  }
  expect_close_logits(served, want, V, kTolerance, "serving forward");
}

INSTANTIATE_TEST_SUITE_P(Kinds, KindCached, every_kind(), row_name);
