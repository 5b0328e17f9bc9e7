// Generator (src/infer/generator.h) on tiny random models: greedy tokens and per-step logits agree
// between the naive recompute, the cache and every prefill chunk size; KV-cache bytes and work
// counters equal their closed forms (MHA, GQA, MQA); stop reasons, limits, bad options, seeds, and
// the repetition-penalty history (prompt + generated).
#include <gtest/gtest.h>

#include <cmath>

#include "core/check.h"
#include "generator_fixtures.h"
#include "infer/generator.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

struct StepRun {
  std::vector<int> tokens;                // generated ids
  std::vector<std::vector<float>> logits; // [G][V] raw logits of each step
  GenerateResult result;
};

// Step-wise run that records the logits each token was drawn from.
StepRun run_steps(Generator& gen, const std::vector<int>& prompt, const GenerateOptions& o) {
  StepRun r;
  gen.start_ids(prompt, o);
  while (!gen.finished()) {
    const GenerateStep& s = gen.next();
    if (s.token >= 0) r.tokens.push_back(s.token), r.logits.push_back(gen.last_logits());
  }
  r.result = gen.result();
  return r;
}

GenerateOptions greedy(int max_new_tokens) {
  GenerateOptions o;
  o.max_new_tokens = max_new_tokens;
  o.sampler.temperature = 0.0;
  return o;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (double)std::fabs(a[i] - b[i]));
  return worst;
}

const Heads kHeads[] = {Heads::MHA, Heads::GQA, Heads::MQA};
const char* kHeadNames[] = {"MHA", "GQA", "MQA"};

class GeneratorTest : public ::testing::Test {
 protected:
  Tokenizer tok = corpus_tokenizer(/*eos=*/false);
};

TEST_F(GeneratorTest, GreedySameWithoutCacheWithCacheAndEveryChunk) {
  for (int h = 0; h < 3; ++h) {
    Model m(tiny_config_vocab(kHeads[h], tok.vocab_size()));
    random_weights(m, 5 + (unsigned)h);
    Generator gen(m, tok);
    const std::vector<int> prompt = tok.encode("the cat sat on é");
    const int P = (int)prompt.size(), G = 14;
    GenerateOptions o = greedy(G);
    o.use_cache = false;
    const StepRun ref = run_steps(gen, prompt, o);
    ASSERT_EQ((int)ref.tokens.size(), G);
    o.use_cache = true;
    for (int chunk = 0; chunk <= P + 1; ++chunk) {
      o.chunk = chunk;
      const StepRun r = run_steps(gen, prompt, o);
      const std::string what = std::string(kHeadNames[h]) + " chunk " + std::to_string(chunk);
      EXPECT_EQ(r.tokens, ref.tokens) << what;
      for (size_t s = 0; s < std::min(r.logits.size(), ref.logits.size()); ++s)
        EXPECT_LT(max_abs_diff(r.logits[s], ref.logits[s]), 1e-4) << what << " step " << s;
    }
  }
}

TEST_F(GeneratorTest, GreedyPrefillLogitsMatchFullForward) {
  // The first step's logits are the prompt's last-position logits of one full forward.
  Model m(tiny_config_vocab(Heads::GQA, tok.vocab_size()));
  random_weights(m, 9);
  Generator gen(m, tok);
  const std::vector<int> prompt = tok.encode("hello world");
  const StepRun r = run_steps(gen, prompt, greedy(1));
  const int T = (int)prompt.size(), V = m.config().vocab_size;
  std::vector<int> targets((size_t)T, -1);
  m.forward(prompt.data(), targets.data(), 1, T);
  const std::vector<float> full(m.logits() + (size_t)(T - 1) * V, m.logits() + (size_t)T * V);
  EXPECT_LT(max_abs_diff(r.logits.at(0), full), 1e-4);
}

TEST_F(GeneratorTest, KvCacheBytesExactForMhaGqaMqa) {
  for (int h = 0; h < 3; ++h) {
    const ModelConfig c = tiny_config_vocab(kHeads[h], tok.vocab_size());
    Model m(c);
    random_weights(m, 1);
    Generator gen(m, tok);
    const size_t per_token =
        (size_t)c.num_hidden_layers * 2 * c.num_key_value_heads * c.head_dim * 4;
    for (bool cache : {true, false}) {
      GenerateOptions o = greedy(6);
      o.use_cache = cache;
      const std::vector<int> prompt = {3, 70, 5};
      gen.start_ids(prompt, o);
      EXPECT_EQ(gen.result().kv_cache_bytes, per_token * 3) << kHeadNames[h] << " after prefill";
      for (int g = 1; !gen.finished(); ++g) {
        gen.next();
        // Token g was sampled from a cache of 3 + g - 1 tokens; it is not fed yet.
        EXPECT_EQ(gen.result().kv_cache_bytes, per_token * (size_t)(3 + g - 1))
            << kHeadNames[h] << " cache " << cache << " step " << g;
      }
      EXPECT_EQ(gen.result().generated_ids.size(), 6u);
    }
  }
}

// Closed forms for a prompt of P tokens and G >= 1 generated tokens, per layer (H query heads).
// Cache: prefill projects P K/V vectors and scores 1 + ... + P causal pairs per head; each of the
// G - 1 fed tokens projects one and, at position n - 1, scores n pairs (n = P+1 .. P+G-1).
// No cache: step s (s = 0 .. G-1) runs n = P + s tokens: n projections, n(n+1)/2 pairs per head.
uint64_t kv_cached(uint64_t P, uint64_t G) { return P + (G - 1); }
uint64_t qk_cached(uint64_t P, uint64_t G, uint64_t H) {
  uint64_t s = P * (P + 1) / 2;
  for (uint64_t n = P + 1; n <= P + G - 1; ++n) s += n;
  return H * s;
}
uint64_t kv_naive(uint64_t P, uint64_t G) {
  uint64_t s = 0;
  for (uint64_t n = P; n <= P + G - 1; ++n) s += n;
  return s;
}
uint64_t qk_naive(uint64_t P, uint64_t G, uint64_t H) {
  uint64_t s = 0;
  for (uint64_t n = P; n <= P + G - 1; ++n) s += n * (n + 1) / 2;
  return H * s;
}

void expect_counters(const GenerateResult& r, int L, uint64_t kv, uint64_t qk,
                     const std::string& what) {
  ASSERT_EQ((int)r.layer_counters.size(), L) << what;
  for (int il = 0; il < L; ++il) {
    EXPECT_EQ(r.layer_counters[(size_t)il].kv_projected, kv) << what << " layer " << il;
    EXPECT_EQ(r.layer_counters[(size_t)il].qk_scores, qk) << what << " layer " << il;
  }
  EXPECT_EQ(r.total_counters.kv_projected, kv * (uint64_t)L) << what;
  EXPECT_EQ(r.total_counters.qk_scores, qk * (uint64_t)L) << what;
}

TEST_F(GeneratorTest, WorkCountersPromptTwoGeneratedThree) {
  const ModelConfig c = tiny_config_vocab(Heads::GQA, tok.vocab_size());
  Model m(c);
  random_weights(m, 2);
  Generator gen(m, tok);
  const uint64_t H = (uint64_t)c.num_attention_heads;
  GenerateOptions o = greedy(3);
  const GenerateResult with = run_steps(gen, {10, 20}, o).result;
  ASSERT_EQ(with.generated_ids.size(), 3u);
  expect_counters(with, c.num_hidden_layers, 2 + 1 + 1, H * (1 + 2) + H * 3 + H * 4, "cache");
  o.use_cache = false;
  const GenerateResult without = run_steps(gen, {10, 20}, o).result;
  expect_counters(without, c.num_hidden_layers, 2 + 3 + 4, H * (3 + 6 + 10), "no cache");
  // The closed forms agree with the hand counts above.
  EXPECT_EQ(kv_cached(2, 3), 4u);
  EXPECT_EQ(qk_cached(2, 3, H), 10 * H);
  EXPECT_EQ(kv_naive(2, 3), 9u);
  EXPECT_EQ(qk_naive(2, 3, H), 19 * H);
}

TEST_F(GeneratorTest, WorkCountersLargerPromptMatchClosedForms) {
  for (int h = 0; h < 3; ++h) {
    const ModelConfig c = tiny_config_vocab(kHeads[h], tok.vocab_size());
    Model m(c);
    random_weights(m, 4);
    Generator gen(m, tok);
    const uint64_t H = (uint64_t)c.num_attention_heads, P = 11, G = 9;
    const std::vector<int> prompt = random_tokens((int)P, c.vocab_size, 8);
    for (int chunk : {0, 1, 4}) {  // chunking changes neither count
      GenerateOptions o = greedy((int)G);
      o.chunk = chunk;
      expect_counters(run_steps(gen, prompt, o).result, c.num_hidden_layers, kv_cached(P, G),
                      qk_cached(P, G, H), std::string(kHeadNames[h]) + " cache");
    }
    GenerateOptions o = greedy((int)G);
    o.use_cache = false;
    expect_counters(run_steps(gen, prompt, o).result, c.num_hidden_layers, kv_naive(P, G),
                    qk_naive(P, G, H), std::string(kHeadNames[h]) + " no cache");
  }
}

TEST_F(GeneratorTest, StopsAtMaxNewTokensAndContext) {
  Model m(tiny_config_vocab(Heads::MQA, tok.vocab_size()));  // max_position_embeddings 64
  random_weights(m, 6);
  Generator gen(m, tok);
  GenerateResult r = gen.generate("the cat", greedy(5));
  EXPECT_EQ(r.stop_reason, StopReason::max_new_tokens);
  EXPECT_EQ(r.generated_ids.size(), 5u);

  r = gen.generate("the cat", greedy(0));
  EXPECT_EQ(r.stop_reason, StopReason::max_new_tokens);
  EXPECT_TRUE(r.generated_ids.empty());
  EXPECT_TRUE(r.text.empty());

  for (bool cache : {true, false}) {
    GenerateOptions o = greedy(100);
    o.use_cache = cache;
    o.max_context = 9;  // a user limit below max_position_embeddings
    r = gen.generate("hello", o);
    EXPECT_EQ(r.stop_reason, StopReason::context_full);
    EXPECT_EQ(r.prompt_ids.size() + r.generated_ids.size(), 9u);
    o.max_context = 0;  // the model's limit: 64 tokens, no crash at the edge
    const std::vector<int> prompt = random_tokens(60, m.config().vocab_size, 1);
    r = run_steps(gen, prompt, o).result;
    EXPECT_EQ(r.stop_reason, StopReason::context_full);
    EXPECT_EQ(r.generated_ids.size(), 4u);
    EXPECT_EQ(r.context, 64);
    r = run_steps(gen, random_tokens(64, m.config().vocab_size, 1), o).result;  // prompt == context
    EXPECT_EQ(r.stop_reason, StopReason::context_full);
    EXPECT_TRUE(r.generated_ids.empty());
  }
  // Finished generators keep answering "finished".
  EXPECT_TRUE(gen.next().finished);
  EXPECT_EQ(gen.next().token, -1);
}

TEST_F(GeneratorTest, BadInputThrows) {
  Model m(tiny_config_vocab(Heads::GQA, tok.vocab_size()));
  Generator gen(m, tok);
  EXPECT_THROW(gen.next(), Error);  // before start
  GenerateOptions o = greedy(4);
  EXPECT_THROW(gen.start_ids(random_tokens(65, m.config().vocab_size, 2), o), Error);
  o.max_context = 8;
  EXPECT_THROW(gen.start_ids(random_tokens(9, m.config().vocab_size, 2), o), Error);
  EXPECT_THROW(gen.start("", greedy(4)), Error);
  EXPECT_THROW(gen.start_ids({m.config().vocab_size}, greedy(4)), Error);
  auto bad = [&](auto edit) {
    GenerateOptions b = greedy(4);
    edit(b);
    EXPECT_THROW(gen.start("hi", b), Error);
  };
  bad([](GenerateOptions& b) { b.sampler.temperature = -0.5; });
  bad([](GenerateOptions& b) { b.sampler.top_p = 0.0; });
  bad([](GenerateOptions& b) { b.sampler.top_p = 1.5; });
  bad([](GenerateOptions& b) { b.max_new_tokens = -1; });
  bad([](GenerateOptions& b) { b.chunk = -2; });
  bad([](GenerateOptions& b) { b.max_context = 65; });
  bad([](GenerateOptions& b) { b.stop = {""}; });
  try {
    gen.start_ids(random_tokens(70, m.config().vocab_size, 2), greedy(4));
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("context"), std::string::npos) << e.what();
  }
}

TEST_F(GeneratorTest, SeedDeterminism) {
  Model m(tiny_config_vocab(Heads::GQA, tok.vocab_size()));
  random_weights(m, 7, 0.05);  // flat logits: sampling really varies
  Generator gen(m, tok);
  GenerateOptions o;
  o.max_new_tokens = 24, o.sampler.temperature = 1.0, o.sampler.top_k = 50, o.sampler.seed = 42;
  const GenerateResult a = gen.generate("the cat", o);
  const GenerateResult b = gen.generate("the cat", o);
  EXPECT_EQ(a.generated_ids, b.generated_ids);
  EXPECT_EQ(a.text, b.text);
  Generator other(m, tok);  // a fresh generator gives the same tokens too
  EXPECT_EQ(other.generate("the cat", o).generated_ids, a.generated_ids);
  o.sampler.seed = 43;
  EXPECT_NE(gen.generate("the cat", o).generated_ids, a.generated_ids);
}

TEST_F(GeneratorTest, RepetitionPenaltyHistoryIsPromptPlusGenerated) {
  Model m(tiny_config_vocab(Heads::MHA, tok.vocab_size()));
  random_weights(m, 12);
  Generator gen(m, tok);
  GenerateOptions o = greedy(12);
  o.sampler.repetition_penalty = 3.0;
  const std::vector<int> prompt = tok.encode("hello hello the cat");
  gen.start_ids(prompt, o);
  const int V = tok.vocab_size();
  int changed = 0;
  while (!gen.finished()) {
    const std::vector<int> history = gen.tokens();  // before this step's token
    const GenerateStep& s = gen.next();
    if (s.token < 0) break;
    std::vector<float> z = gen.last_logits();
    changed += argmax_lowest_id(z.data(), V) != s.token;
    apply_repetition_penalty(z.data(), V, history, 3.0);
    EXPECT_EQ(s.token, argmax_lowest_id(z.data(), V)) << "step " << history.size();
  }
  EXPECT_GT(changed, 0) << "the penalty never mattered: the test proves nothing";
}

TEST_F(GeneratorTest, CallbackTextEqualsDecodeOfGeneratedIds) {
  Model m(tiny_config_vocab(Heads::GQA, tok.vocab_size()));
  random_weights(m, 13);
  Generator gen(m, tok);
  std::string streamed;
  int calls = 0;
  const GenerateResult r = gen.generate("café ", greedy(20), [&](std::string_view piece) {
    EXPECT_FALSE(piece.empty());
    streamed += piece, ++calls;
  });
  EXPECT_EQ(streamed, tok.decode(r.generated_ids));
  EXPECT_EQ(r.text, streamed);
  EXPECT_GT(calls, 0);
  EXPECT_EQ(r.prompt_ids, tok.encode("café "));
  EXPECT_GT(r.prefill_seconds, 0.0);
  EXPECT_GT(r.decode_tokens_per_second, 0.0);
  EXPECT_GT(r.prefill_tokens_per_second, 0.0);
}

}  // namespace
