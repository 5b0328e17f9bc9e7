// Incremental equals full (TESTING.md family 1): for MHA/GQA/MQA × RoPE full / partial / learned
// / none × QK-norm on/off (+ a GPT-2 flavour): prefill 5, a chunk of 3, then single tokens up to
// T = 16 give the logits of one full forward (max abs < 1e-4); greedy generation of 20 tokens is
// identical with and without the cache; chunk sizes 1, 3, T and > T agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "model_fixtures.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

std::vector<float> full_logits(Model& m, const std::vector<int>& tokens) {
  const int T = (int)tokens.size(), V = m.config().vocab_size;
  std::vector<int> no_targets((size_t)T, -1);
  m.forward(tokens.data(), no_targets.data(), 1, T);
  return std::vector<float>(m.logits(), m.logits() + (size_t)T * V);
}

// Feeds `tokens` in chunks of the given sizes (the last repeats) and returns all logits.
std::vector<float> cached_logits(Model& m, const std::vector<int>& tokens, std::vector<int> chunks) {
  const int T = (int)tokens.size(), V = m.config().vocab_size;
  ModelCache cache = m.new_cache();
  std::vector<float> out((size_t)T * V);
  int pos = 0;
  for (size_t i = 0; pos < T; ++i) {
    const int n = std::min(chunks[std::min(i, chunks.size() - 1)], T - pos);
    m.forward_cached(tokens.data() + pos, n, cache, out.data() + (size_t)pos * V);
    pos += n;
  }
  EXPECT_EQ(cache.length(), T);
  return out;
}

int argmax(const float* z, int V) { return (int)(std::max_element(z, z + V) - z); }

void expect_same_logits(const std::vector<float>& a, const std::vector<float>& b, int V,
                        const std::string& what) {
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > worst) worst = std::fabs(a[i] - b[i]), at = i;
  EXPECT_LT(worst, 1e-4) << what << ": first worst at position " << at / (size_t)V << ", vocab "
                         << at % (size_t)V << ": " << a[at] << " vs " << b[at];
}

void check_config(const ModelConfig& c, const std::string& name, int T = 16,
                  MlaDecode form = MlaDecode::Absorbed, double sd = 0.25) {
  Model m(c);
  m.set_mla_decode(form);
  random_weights(m, 7, sd);
  const std::vector<int> tokens = random_tokens(T, c.vocab_size, 11);
  const std::vector<float> full = full_logits(m, tokens);
  const int V = c.vocab_size;
  expect_same_logits(full, cached_logits(m, tokens, {5, 3, 1}), V, name + " prefill5+chunk3+1s");
  expect_same_logits(full, cached_logits(m, tokens, {1}), V, name + " chunk 1");
  expect_same_logits(full, cached_logits(m, tokens, {3}), V, name + " chunk 3");
  expect_same_logits(full, cached_logits(m, tokens, {T}), V, name + " chunk T");
  expect_same_logits(full, cached_logits(m, tokens, {T + 7}), V, name + " chunk > T");
  // Greedy generation of 20 tokens: cache vs recompute of the whole sequence each step.
  std::vector<int> seq_cache(tokens.begin(), tokens.begin() + 5), seq_full = seq_cache;
  ModelCache cache = m.new_cache();
  std::vector<float> z((size_t)V);
  m.forward_cached(seq_cache.data(), 5, cache, z.data(), /*last_only=*/true);
  for (int step = 0; step < 20; ++step) {
    seq_cache.push_back(argmax(z.data(), V));
    m.forward_cached(&seq_cache.back(), 1, cache, z.data(), true);
    const std::vector<float> f = full_logits(m, seq_full);
    seq_full.push_back(argmax(f.data() + (seq_full.size() - 1) * (size_t)V, V));
  }
  EXPECT_EQ(seq_cache, seq_full) << name << ": greedy tokens differ with and without the cache";
}

}  // namespace

TEST(ModelCache, IncrementalEqualsFullForEveryKind) {
  const struct { Heads h; const char* name; } heads[] = {
      {Heads::MHA, "MHA"}, {Heads::GQA, "GQA 4/2"}, {Heads::MQA, "MQA"}};
  const struct { PositionKind p; double factor; const char* name; } positions[] = {
      {PositionKind::Rope, 1.0, "rope"}, {PositionKind::Rope, 0.25, "rope 0.25"},
      {PositionKind::Learned, 1.0, "learned"}, {PositionKind::None, 1.0, "none"}};
  for (const auto& h : heads)
    for (const auto& p : positions)
      for (bool qk : {false, true})
        check_config(tiny_config(h.h, p.p, p.factor, qk),
                     std::string(h.name) + "/" + p.name + (qk ? "/qk-norm" : ""));
}

TEST(ModelCache, Gpt2FlavourIncrementalEqualsFull) { check_config(gpt2_config(), "gpt2"); }

// Sliding-window layers (ring-buffer caches) and sinks: prompts shorter and longer than W, chunks
// of 3 and 5 that straddle the ring's wrap point, single tokens far past W (T = 45, W = 4).
TEST(ModelCache, SlidingWindowAndSinksIncrementalEqualsFull) {
  check_config(sliding_config(5, {1, 0}, false), "sliding W=5 + full");
  check_config(sliding_config(4, {1, 1}, true), "all sliding W=4 + sinks", 45);
  check_config(sliding_config(7, {0, 1, 1}, true, /*qwen2=*/true), "qwen2 bias, sliding W=7", 23);
  check_config(sliding_config(1, {1, 0}, false), "W=1: each token sees itself");
  check_config(sliding_config(64, {1, 0}, true), "W = context: as full attention", 30);
  ModelConfig sinks_only = tiny_config(Heads::MQA, PositionKind::Rope, 0.25, true);
  sinks_only.attention_sinks = true;
  check_config(sinks_only, "full attention + sinks, MQA, qk-norm");
}

// MLA (latent cache): both decode forms, with and without query compression.
TEST(ModelCache, LatentAttentionIncrementalEqualsFullInBothForms) {
  for (int qr : {0, 9}) {
    check_config(mla_model_config(qr), "mla absorbed qr=" + std::to_string(qr), 19);
    check_config(mla_model_config(qr), "mla expanded qr=" + std::to_string(qr), 19,
                 MlaDecode::Expanded);
  }
}

// Mixture of experts, every family: cached = full, and the counters show that each token is
// routed to exactly K experts per MoE layer, with a decode step choosing other experts than the
// prefill token before it.
TEST(ModelCache, MixtureOfExpertsIncrementalEqualsFullEveryFamily) {
  for (const char* family : {"qwen3_moe", "qwen2_moe", "deepseek_v2", "deepseek_v3"}) {
    const ModelConfig c = moe_model_config(family);
    check_config(c, family, 19);
    Model m(c);
    random_weights(m, 7);
    const std::vector<int> t = random_tokens(8, c.vocab_size, 11);
    ModelCache cache = m.new_cache();
    std::vector<float> z((size_t)c.vocab_size);
    m.reset_counters();
    const size_t L = (size_t)c.num_hidden_layers, E = (size_t)c.moe.num_experts;
    // delta[i][il][e]: tokens step i routed to expert e of layer il.
    std::vector<std::vector<std::vector<uint64_t>>> delta;
    std::vector<std::vector<uint64_t>> last(L, std::vector<uint64_t>(E, 0));
    for (int i = 0; i < 8; ++i) {  // one token at a time
      m.forward_cached(&t[(size_t)i], 1, cache, z.data());
      delta.emplace_back(L, std::vector<uint64_t>(E, 0));
      for (size_t il = 0; il < L; ++il) {
        const std::vector<uint64_t>& now = m.layer_counters()[il].expert_tokens;
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

// A sliding layer with W = context gives exactly full attention's logits.
// Gated DeltaNet: the recurrent state (S and the conv window) carries across calls: chunk sizes
// 1 and 2 are shorter than K − 1 = 3, the op's chunk L = 4 sits between 3 and T. Weights of
// sd 0.15: the gated RMSNorm after o = Sᵀq (a short dot product that can cancel) turns the
// rounding of single-token projections (matvec vs sgemm) into up to 2e-4 of logit difference
// after four linear layers at sd 0.25 — one layer stays within 1e-5 of the double reference
// cached and full (test_layers_gated_deltanet).
TEST(ModelCache, GatedDeltaNetHybridIncrementalEqualsFull) {
  const double sd = 0.15;
  check_config(hybrid_config({1, 1, 1, 0}, /*qwen3_next=*/true), "qwen3_next 3 linear : 1 full",
               19, MlaDecode::Absorbed, sd);
  check_config(hybrid_config({1, 1}, /*qwen3_next=*/true, 8), "qwen3_next all linear", 21,
               MlaDecode::Absorbed, sd);
  check_config(hybrid_config({0, 1}, /*qwen3_next=*/false, 4, /*gate=*/true), "llama gated", 17,
               MlaDecode::Absorbed, sd);
  const ModelConfig c = hybrid_config({1, 0}, true);
  Model m(c);
  random_weights(m, 7, sd);
  const std::vector<int> tokens = random_tokens(18, c.vocab_size, 3);
  const std::vector<float> full = full_logits(m, tokens);
  expect_same_logits(full, cached_logits(m, tokens, {2, 1, 2, 4, 9}), c.vocab_size,
                     "splits 2, 1, 2 (< K-1), 4 (= L), 9 (> L)");
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
  EXPECT_EQ(cache.capacity(), 10);
  const std::vector<int> t = random_tokens(11, m.config().vocab_size, 5);
  std::vector<float> z((size_t)11 * m.config().vocab_size);
  m.forward_cached(t.data(), 10, cache, z.data());
  try {
    m.forward_cached(t.data() + 10, 1, cache, z.data());
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
  const std::vector<int> t = random_tokens(7, m.config().vocab_size, 5);
  std::vector<float> z((size_t)7 * m.config().vocab_size);
  m.forward_cached(t.data(), 6, cache, z.data());
  EXPECT_THROW(m.forward_cached(t.data() + 6, 1, cache, z.data()), llm0::Error);
  EXPECT_EQ(cache.length(), 6);
  EXPECT_THROW(m.new_cache(65), llm0::Error);  // above max_position_embeddings
}

TEST(ModelCache, BytesInUseMatchLayersTimesKvHeads) {
  for (Heads h : {Heads::MHA, Heads::GQA, Heads::MQA}) {
    Model m(tiny_config(h, PositionKind::Rope, 1.0, false));
    random_weights(m, 3);
    ModelCache cache = m.new_cache();
    const std::vector<int> t = random_tokens(9, m.config().vocab_size, 5);
    std::vector<float> z((size_t)9 * m.config().vocab_size);
    m.forward_cached(t.data(), 9, cache, z.data());
    const ModelConfig& c = m.config();
    EXPECT_EQ(cache.bytes_in_use(),
              (size_t)c.num_hidden_layers * 2 * c.num_key_value_heads * c.head_dim * 4 * 9);
  }
}
