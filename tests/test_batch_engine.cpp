// BatchEngine (serve/batch_engine.h): many sequences through one model, a step at a time.
// References: the contiguous cache (Model::forward_cached on one sequence alone) for the logits,
// the KV ledger (`llm0 kv`) for the bytes, and the contract's page arithmetic for the pool.
// Shapes: tiny_config (every dimension different), prompts not a multiple of the page size.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/check.h"
#include "ledger/kv_ledger.h"
#include "model_fixtures.h"
#include "serve/batch_engine.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

/// Logits [V] of the last token of `tokens`, run alone through a contiguous cache.
std::vector<float> alone_logits(Model& m, const std::vector<int>& tokens) {
  ModelCache c = m.new_cache();
  std::vector<float> out((size_t)m.config().vocab_size);
  m.forward_cached(tokens.data(), (int)tokens.size(), c, out.data(), /*last_only=*/true);
  return out;
}

float max_abs_diff(const float* a, const float* b, int n) {
  float d = 0;
  for (int i = 0; i < n; ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

BatchEngineOptions pool(int page_size, int pages) {
  BatchEngineOptions o;
  o.page_size = page_size, o.num_pages = pages;
  return o;
}

}  // namespace

// Three sequences of different lengths, prefilled in chunks and decoded together: each step's
// logits equal the contiguous cache's for that sequence's tokens so far.
TEST(BatchEngine, StepLogitsEqualTheContiguousCache) {
  for (CacheDtype dt : {CacheDtype::F32, CacheDtype::BF16})
    for (int page : {1, 16}) {
      SCOPED_TRACE(std::string(cache_dtype_name(dt)) + " page " + std::to_string(page));
      Model m(tiny_config(Heads::GQA, PositionKind::Rope, 0.5, true));
      random_weights(m, 3);
      m.set_kv_dtype(dt);
      const int V = m.config().vocab_size;
      BatchEngine e(m, pool(page, 64 / page * 4));
      std::vector<std::vector<int>> seqs = {random_tokens(29, V, 1), random_tokens(17, V, 2),
                                            random_tokens(5, V, 3)};
      std::vector<SeqId> ids;
      for (auto& s : seqs) ids.push_back(*e.open(s, (int)s.size() + 6));
      // Step 1: prefix chunks of 11, 17 (all), 5 (all); step 2: the rest of seq 0 (18) + decodes.
      std::vector<int> done = {0, 0, 0};
      auto run = [&](std::vector<int> n) {
        std::vector<BatchEngine::Work> w;
        for (size_t i = 0; i < n.size(); ++i)
          if (n[i] > 0) w.push_back({ids[i], seqs[i].data() + done[i], n[i]});
        std::vector<float> logits(w.size() * (size_t)V);
        e.step(w, logits.data());
        size_t k = 0;
        for (size_t i = 0; i < n.size(); ++i) {
          if (n[i] == 0) continue;
          done[i] += n[i];
          const std::vector<int> prefix(seqs[i].begin(), seqs[i].begin() + done[i]);
          EXPECT_LT(max_abs_diff(logits.data() + k * V, alone_logits(m, prefix).data(), V), 1e-4)
              << "sequence " << i << " at " << done[i];
          EXPECT_EQ(e.length(ids[i]), done[i]);
          ++k;
        }
      };
      run({11, 17, 5});
      run({18, 0, 0});
      for (size_t i = 0; i < seqs.size(); ++i)  // each sequence decodes 3 more tokens
        for (int t = 0; t < 3; ++t) seqs[i].push_back((int)((7 * i + 5 * t + 1) % V));
      for (int t = 0; t < 3; ++t) run({1, 1, 1});
    }
}

// A sequence's logits do not depend on which others share the step.
TEST(BatchEngine, LogitsDoNotDependOnTheBatchPartners) {
  Model m(tiny_config(Heads::MQA, PositionKind::Rope, 1.0, false));
  random_weights(m, 5);
  const int V = m.config().vocab_size;
  const std::vector<int> a = random_tokens(23, V, 11), b = random_tokens(9, V, 12);
  auto run = [&](bool with_partner) {
    BatchEngine e(m, pool(16, 8));
    const SeqId ia = *e.open(a, 30);
    std::vector<BatchEngine::Work> w = {{ia, a.data(), (int)a.size()}};
    if (with_partner) w.push_back({*e.open(b, 20), b.data(), (int)b.size()});
    std::vector<float> logits(w.size() * (size_t)V);
    e.step(w, logits.data());
    return std::vector<float>(logits.begin(), logits.begin() + V);
  };
  const std::vector<float> alone = run(false), shared = run(true);
  EXPECT_EQ(std::memcmp(alone.data(), shared.data(), sizeof(float) * (size_t)V), 0);
}

// Pages: ceil(reserve / page_size) per sequence at open, returned at close; open() refuses
// (nullopt, nothing changed) when the pool cannot cover the reservation.
TEST(BatchEngine, PagesAreReservedAndReturned) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  random_weights(m, 7);
  BatchEngine e(m, pool(16, 5));
  EXPECT_EQ(e.pages_total(), 5);
  EXPECT_EQ(e.page_size(), 16);
  const SeqId a = *e.open(random_tokens(20, 61, 1), 33);  // 3 pages
  EXPECT_EQ(e.pages_in_use(), 3);
  EXPECT_FALSE(e.open(random_tokens(4, 61, 2), 40).has_value());  // 3 more: too many
  EXPECT_EQ(e.pages_in_use(), 3);
  const SeqId b = *e.open(random_tokens(4, 61, 2), 32);  // exactly 2
  EXPECT_EQ(e.pages_in_use(), 5);
  e.close(a);
  EXPECT_EQ(e.pages_in_use(), 2);
  e.close(b);
  EXPECT_EQ(e.pages_in_use(), 0);
  EXPECT_THROW(e.length(a), Error);
}

// bytes_in_use() is the ledger's bytes per token × tokens held (F32 and BF16 caches).
TEST(BatchEngine, BytesInUseEqualTheLedger) {
  for (auto [dt, kd] : {std::pair{CacheDtype::F32, KvDtype::kFp32},
                        std::pair{CacheDtype::BF16, KvDtype::kBf16}}) {
    Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
    random_weights(m, 9);
    m.set_kv_dtype(dt);
    KvOptions opt;
    opt.dtype = kd;
    const uint64_t per_token = kv_ledger(m.config().to_json(), opt).kv_bytes_per_token;
    BatchEngine e(m, pool(4, 32));
    const std::vector<int> a = random_tokens(13, 61, 1), b = random_tokens(6, 61, 2);
    const SeqId ia = *e.open(a, 20), ib = *e.open(b, 10);
    EXPECT_EQ(e.bytes_in_use(), 0u);
    std::vector<float> logits(2 * 61);
    e.step({{ia, a.data(), 13}, {ib, b.data(), 4}}, logits.data());
    EXPECT_EQ(e.bytes_in_use(), per_token * 17);
    e.close(ia);
    EXPECT_EQ(e.bytes_in_use(), per_token * 4);
  }
}

TEST(BatchEngine, BadStepsThrowAndAppendNothing) {
  Model m(tiny_config(Heads::MHA, PositionKind::Rope, 1.0, false));
  random_weights(m, 13);
  BatchEngine e(m, pool(16, 8));
  const std::vector<int> a = random_tokens(7, 61, 1);
  const SeqId ia = *e.open(a, 9);
  std::vector<float> logits(2 * 61);
  auto throws = [&](const std::vector<BatchEngine::Work>& w, const std::string& text) {
    try {
      e.step(w, logits.data());
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find(text), std::string::npos) << err.what();
    }
    EXPECT_EQ(e.length(ia), 0);
  };
  throws({{ia, a.data(), 7}, {ia + 100, a.data(), 1}}, "unknown sequence");
  throws({{ia, a.data(), 3}, {ia, a.data() + 3, 1}}, "twice");
  const std::vector<int> ten = random_tokens(10, 61, 3);
  throws({{ia, ten.data(), 10}}, "reservation of 9");
  const std::vector<int> bad = {3, 61};
  throws({{ia, bad.data(), 2}}, "vocab_size");
  EXPECT_THROW(e.open({}, 4), Error);
  EXPECT_THROW(e.open(a, 6), Error);     // reservation < prompt
  EXPECT_THROW(e.open(a, 65), Error);    // > max_position_embeddings
  EXPECT_THROW(e.open({0, -1}, 4), Error);
}

TEST(BatchEngine, RefusesModelKindsItCannotPage) {
  auto refused = [](const ModelConfig& c, const std::string& kind) {
    Model m(c);
    try {
      BatchEngine e(m, pool(16, 4));
      ADD_FAILURE() << "accepted " << kind;
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find(kind), std::string::npos) << err.what();
    }
  };
  refused(mla_model_config(0), "latent attention");
  refused(sliding_config(5, {0, 1}, false), "sliding-window");
  refused(hybrid_config({1, 0}, false), "linear-attention");
  Model m(tiny_config(Heads::MHA, PositionKind::Rope, 1.0, false));
  EXPECT_THROW(BatchEngine(m, pool(0, 4)), Error);
  EXPECT_THROW(BatchEngine(m, BatchEngineOptions{16, 0, 0, true}), Error);
  BatchEngineOptions bytes{4, 0, 0, true};
  // 4 tokens × 2 layers × 4 KV heads × 2 × 24 numbers × 4 bytes = 6144 bytes per page.
  bytes.kv_memory_bytes = 6144 * 3 + 100;
  EXPECT_EQ(BatchEngine(m, bytes).pages_total(), 3);
}
