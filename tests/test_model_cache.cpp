// The cache beyond the kind table (tests/kinds/, test_kinds_cached: cached = full for every kind):
// sliding windows of edge widths (1, the context, 2^31 − 1), the experts each token is routed to
// while decoding, Gated DeltaNet's chunk length as a setting, windows vs full attention, and the
// cache's limits (position limit, overflow). Incremental = full here as there: prefill 5, a chunk
// of 3, single tokens, chunks of 1, 3, T and > T (max abs < 1e-4), greedy tokens identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cached_path.h"
#include "model_fixtures.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

void expect_same_logits(const std::vector<float>& a, const std::vector<float>& b, int V,
                        const std::string& what) {
  expect_close_logits(a, b, V, 1e-4, what);
}

void check_config(const ModelConfig& c, const std::string& name, int T = 16) {
  Model m(c);
  random_weights(m, 7);
  const std::vector<int> tokens = random_tokens(T, c.vocab_size, 11);
  const std::vector<float> full = full_logits(m, tokens);
  const int V = c.vocab_size;
  expect_same_logits(full, cached_logits(m, tokens, {5, 3, 1}), V, name + " prefill5+chunk3+1s");
  expect_same_logits(full, cached_logits(m, tokens, {1}), V, name + " chunk 1");
  expect_same_logits(full, cached_logits(m, tokens, {3}), V, name + " chunk 3");
  expect_same_logits(full, cached_logits(m, tokens, {T}), V, name + " chunk T");
  expect_same_logits(full, cached_logits(m, tokens, {T + 7}), V, name + " chunk > T");
  expect_same_greedy_tokens(m, std::vector<int>(tokens.begin(), tokens.begin() + 5), 20, name);
}

}  // namespace

// Sliding windows of edge widths: W = 1 (each token sees itself), W = the context (as full
// attention, with sinks). The table's rows have W 5 and 6.
TEST(ModelCache, SlidingWindowEdgeWidthsIncrementalEqualsFull) {
  check_config(sliding_config(1, {1, 0}, false), "W=1: each token sees itself");
  check_config(sliding_config(64, {1, 0}, true), "W = context: as full attention", 30);
}

// Mixture of experts, every family: the counters show that each token is routed to exactly K
// experts per MoE layer, with a decode step choosing other experts than the token before it.
TEST(ModelCache, MixtureOfExpertsRouteKExpertsPerDecodedToken) {
  for (const char* family : {"qwen3_moe", "qwen2_moe", "deepseek_v2", "deepseek_v3"}) {
    const ModelConfig c = moe_model_config(family);
    Model m(c);
    random_weights(m, 7);
    const std::vector<int> t = random_tokens(8, c.vocab_size, 11);
    ModelCache cache = m.new_cache();
    InferContext ctx(m);
    std::vector<float> z((size_t)c.vocab_size);
    ctx.reset_counters();
    const size_t L = (size_t)c.num_hidden_layers, E = (size_t)c.moe.num_experts;
    // delta[i][il][e]: tokens step i routed to expert e of layer il.
    std::vector<std::vector<std::vector<uint64_t>>> delta;
    std::vector<std::vector<uint64_t>> last(L, std::vector<uint64_t>(E, 0));
    for (int i = 0; i < 8; ++i) {  // one token at a time
      m.forward_cached(&t[(size_t)i], 1, cache, ctx, z.data());
      delta.emplace_back(L, std::vector<uint64_t>(E, 0));
      for (size_t il = 0; il < L; ++il) {
        const std::vector<uint64_t>& now = ctx.layer_counters()[il].expert_tokens;
        if (c.layer((int)il).ffn != FfnKind::Moe) {
          EXPECT_TRUE(now.empty());
          continue;
        }
        ASSERT_EQ(now.size(), E);
        uint64_t routed = 0;
        for (size_t e = 0; e < E; ++e)
          routed += delta.back()[il][e] = now[e] - last[il][e], last[il][e] = now[e];
        EXPECT_EQ(routed, (uint64_t)c.moe.num_experts_per_tok) << family << " step " << i;
      }
    }
    bool differs = false;
    for (size_t i = 1; i < delta.size(); ++i) differs |= delta[i] != delta[i - 1];
    EXPECT_TRUE(differs) << family << ": every decode step chose the experts of the step before";
  }
}

// Model::set_linear_chunk_size (`--delta-chunk`): chunk lengths 1, 5 and 64 give the same logits
// through the full and the cached path; bad lengths are refused.
TEST(ModelCache, GatedDeltaNetChunkLengthIsASettingNotAResult) {
  const ModelConfig c = hybrid_config({1, 1}, /*qwen3_next=*/true, 64);
  Model m(c);
  random_weights(m, 7, 0.15);
  const std::vector<int> tokens = random_tokens(23, c.vocab_size, 5);
  const std::vector<float> ref = full_logits(m, tokens);
  for (int L : {1, 5, 64}) {
    m.set_linear_chunk_size(L);
    const std::string name = "chunk " + std::to_string(L);
    expect_same_logits(full_logits(m, tokens), ref, c.vocab_size, name + " full");
    expect_same_logits(cached_logits(m, tokens, {7, 2}), ref, c.vocab_size, name + " cached");
  }
  EXPECT_THROW(m.set_linear_chunk_size(0), Error);
}

TEST(ModelCache, WindowAtLeastTheSequenceEqualsFullAttention) {
  ModelConfig full = sliding_config(4, {0, 0}, false), wide = sliding_config(20, {1, 1}, false);
  Model a(full), b(wide);
  random_weights(a, 5), random_weights(b, 5);
  const std::vector<int> tokens = random_tokens(20, full.vocab_size, 3);
  expect_same_logits(full_logits(a, tokens), full_logits(b, tokens), full.vocab_size, "W=T");
  ModelConfig narrow = sliding_config(19, {1, 1}, false);
  Model n(narrow);
  random_weights(n, 5);
  const std::vector<float> fa = full_logits(a, tokens), fn = full_logits(n, tokens);
  const size_t last = (size_t)19 * full.vocab_size;  // only the last row loses a key
  double diff_before = 0, diff_last = 0;
  for (size_t i = 0; i < fa.size(); ++i)
    (i < last ? diff_before : diff_last) += std::fabs(fa[i] - fn[i]);
  EXPECT_EQ(diff_before, 0.0);
  EXPECT_GT(diff_last, 1e-3);
}

// A window far wider than the positions (2^31 − 1 with max_position_embeddings 64) allocates for
// the positions, not the window, and equals full attention.
TEST(ModelCache, HugeWindowIsBoundedByThePositions) {
  check_config(sliding_config(2147483647, {1, 1}, true), "W = 2^31 - 1", 20);
}

// An all-sliding model holds W positions, but its positions still end at the cache capacity
// (max_position_embeddings or --max-context): the next token is refused with a clear message.
TEST(ModelCache, SlidingModelStopsAtThePositionLimit) {
  Model m(sliding_config(4, {1, 1}, true));
  random_weights(m, 3);
  ModelCache cache = m.new_cache(10);
  InferContext ctx(m);
  EXPECT_EQ(cache.capacity(), 10);
  const std::vector<int> t = random_tokens(11, m.config().vocab_size, 5);
  std::vector<float> z((size_t)11 * m.config().vocab_size);
  m.forward_cached(t.data(), 10, cache, ctx, z.data());
  try {
    m.forward_cached(t.data() + 10, 1, cache, ctx, z.data());
    FAIL() << "no error past the position limit";
  } catch (const llm0::Error& e) {
    EXPECT_NE(std::string(e.what()).find("position limit"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cache.length(), 10);
}

TEST(ModelCache, OverflowIsAnErrorNotAWrap) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  random_weights(m, 3);
  ModelCache cache = m.new_cache(6);
  InferContext ctx(m);
  const std::vector<int> t = random_tokens(7, m.config().vocab_size, 5);
  std::vector<float> z((size_t)7 * m.config().vocab_size);
  m.forward_cached(t.data(), 6, cache, ctx, z.data());
  EXPECT_THROW(m.forward_cached(t.data() + 6, 1, cache, ctx, z.data()), llm0::Error);
  EXPECT_EQ(cache.length(), 6);
  EXPECT_THROW(m.new_cache(65), llm0::Error);  // above max_position_embeddings
}
